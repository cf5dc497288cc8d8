"""What the Rig page says, as text: each GPU's fields, its catalog match and warnings, the
host, and where the rig comes from.

Pure functions: no widgets, no Qt, so another front can say the same sentences. Translated
text goes through ``translate(context, text)``, the signature of Qt's
``QCoreApplication.translate``, which the page passes; the default, :func:`english`, returns
the source text. The texts are written as literal ``translate("RigFields", ...)`` (and
``"GpuTile"``, ``"RigPage"``) calls because that is how Qt's ``lupdate`` finds them for the
catalog (``resources/i18n/*.ts``): fields, a tile's own words, the page's own words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from gpuadvisor.core.units import format_bytes
from gpuadvisor.hardware import DetectionResult, GpuInfo, HostInfo
from gpuadvisor.hardware.base import WARNING_CONTEXT, HealthWarning

#: ``translate(context, text) -> text for people`` (Qt's ``QCoreApplication.translate``).
Translate = Callable[[str, str], str]


def english(context: str, text: str) -> str:
    """The source text, untranslated: ``translate`` for callers without a Qt catalog."""
    return text


class _Fields:
    """Field values for people, "n/a" where the driver does not say."""

    def __init__(self, translate: Translate) -> None:
        self.translate = translate

    def na(self) -> str:
        return self.translate("RigFields", "n/a")

    def v(self, value, unit: str = "", digits: int = 0) -> str:
        if value is None:
            return self.na()
        if isinstance(value, bool):
            return (self.translate("RigFields", "on") if value
                    else self.translate("RigFields", "off"))
        if unit and isinstance(value, int | float):
            text = f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"
        else:  # a version or a count without a unit: as it is
            text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
        return f"{text} {unit}".strip()

    def lanes(self, n) -> str:
        return self.na() if n is None else f"x{n}"

    def b(self, n, units: str) -> str:
        return self.na() if n is None else format_bytes(n, units)


def gpu_rows(gpu: GpuInfo, units: str, catalog: Mapping,
             translate: Translate = english, *, live_only: bool = False
             ) -> list[tuple[str, str]]:
    """(label, value) rows of one tile, "n/a" where the driver does not say; ``live_only``:
    the readings that change under load only (memory, power, temperature, utilization)."""
    f = _Fields(translate)
    na = f.na()
    vram = translate("RigFields", "{total} total · {free} free · {used} used").format(
        total=f.b(gpu.memory_total_bytes, units), free=f.b(gpu.memory_free_bytes, units),
        used=f.b(gpu.memory_used_bytes, units))
    if gpu.unified_memory:
        vram += " " + translate("RigFields", "(unified: shared with the CPU)")
    compute = f.v(gpu.compute_capability)
    if gpu.sm_count:
        compute += " · " + translate("RigFields", "{n} SMs").format(n=gpu.sm_count)
    if gpu.gpu_cores:
        compute += " · " + translate("RigFields", "{n} GPU cores").format(n=gpu.gpu_cores)
    pcie = translate("RigFields", "gen {gen} / {gen_max} · {width} / {width_max}").format(
        gen=f.v(gpu.pcie_gen_current), gen_max=f.v(gpu.pcie_gen_max),
        width=f.lanes(gpu.pcie_width_current), width_max=f.lanes(gpu.pcie_width_max))
    nvlink = na if gpu.nvlink_links_active is None else translate(
        "RigFields", "{n} links active").format(n=gpu.nvlink_links_active)
    power = translate("RigFields", "{draw} of {limit} limit (default {default})").format(
        draw=f.v(gpu.power_draw_w, "W"), limit=f.v(gpu.power_limit_w, "W"),
        default=f.v(gpu.power_default_limit_w, "W"))
    temperature = translate("RigFields", "{now} (slowdown at {limit})").format(
        now=f.v(gpu.temperature_c, "°C"), limit=f.v(gpu.temperature_slowdown_c, "°C"))
    clocks = translate("RigFields", "{sm} of {sm_max} · {mem} of {mem_max}").format(
        sm=f.v(gpu.sm_clock_mhz, "MHz"), sm_max=f.v(gpu.sm_clock_max_mhz, "MHz"),
        mem=f.v(gpu.mem_clock_mhz, "MHz"), mem_max=f.v(gpu.mem_clock_max_mhz, "MHz"))
    utilization = translate("RigFields", "GPU {gpu} · memory {mem}").format(
        gpu=f.v(gpu.utilization_gpu_pct, "%"), mem=f.v(gpu.utilization_mem_pct, "%"))
    none = translate("RigFields", "none")
    # NVML's reason names, translated (marked in gui/data_words.py).
    throttle = na if gpu.throttle_reasons is None else translate("Lists", ", ").join(
        translate("ThrottleReasons", reason) for reason in gpu.throttle_reasons) or none
    if gpu.ecc_errors_uncorrected is None:  # a whole sentence, not "unknown errors"
        ecc = translate("RigFields", "{mode} · uncorrected errors unknown").format(
            mode=f.v(gpu.ecc_enabled))
    else:
        ecc = translate("RigFields", "{mode} · {errors} uncorrected errors").format(
            mode=f.v(gpu.ecc_enabled), errors=f.v(gpu.ecc_errors_uncorrected))
    processes = na if gpu.processes is None else "; ".join(
        translate("RigFields", "{name} (pid {pid}, {used})").format(
            name=p.name or "?", pid=p.pid, used=f.b(p.used_bytes, units))
        for p in gpu.processes) or none
    if live_only:
        return [(translate("RigFields", "VRAM"), vram),
                (translate("RigFields", "Power"), power),
                (translate("RigFields", "Temperature"), temperature),
                (translate("RigFields", "Utilization"), utilization)]
    return [
        (translate("RigFields", "VRAM"), vram),
        (translate("RigFields", "Driver / CUDA"),
         f"{f.v(gpu.driver_version)} / {f.v(gpu.cuda_driver_version)}"),
        (translate("RigFields", "Compute capability"), compute),
        (translate("RigFields", "PCIe now / max"), pcie),
        (translate("RigFields", "NVLink"), nvlink),
        (translate("RigFields", "Power"), power),
        (translate("RigFields", "Temperature"), temperature),
        (translate("RigFields", "SM / memory clock"), clocks),
        (translate("RigFields", "Utilization"), utilization),
        (translate("RigFields", "Throttle reasons"), throttle),
        (translate("RigFields", "ECC"), ecc),
        (translate("RigFields", "MIG"), f.v(gpu.mig_enabled)),
        (translate("RigFields", "Processes"), processes),
    ]


def catalog_text(gpu: GpuInfo, catalog: Mapping, translate: Translate = english) -> str:
    """The matched catalog entry and its peaks, or that the card is unmatched."""
    f = _Fields(translate)
    spec = catalog.get(gpu.catalog_id) if gpu.catalog_id else None
    if spec is None:
        return translate("RigFields", "Unmatched — memory from the driver; no catalog peaks")

    def tflops(value) -> str:
        return f.na() if value is None else f"{value:g}"

    return translate("RigFields", "Catalog: {name} ({id}) · peak bf16 {bf16} / fp16 {fp16} / "
                     "fp8 {fp8} TFLOPS · {bw} GB/s").format(
        name=spec.name, id=spec.id, bf16=tflops(spec.bf16_tensor_tflops),
        fp16=tflops(spec.fp16_tensor_tflops), fp8=tflops(spec.fp8_tensor_tflops),
        bw=f"{spec.memory_bandwidth_gb_s:g}")


def host_rows(host: HostInfo, units: str,
              translate: Translate = english) -> list[tuple[str, str]]:
    """(label, value) rows of the host box."""
    f = _Fields(translate)
    if host.torch_available:
        extra = [f"CUDA {host.torch_cuda_version}" if host.torch_cuda_version else None,
                 translate("RigFields", "GPU usable") if host.torch_cuda_available else None,
                 translate("RigFields", "MPS usable") if host.torch_mps_available else None]
        found = (translate("Lists", ", ").join(e for e in extra if e)
                 or translate("RigFields", "CPU only"))
        torch = f"{host.torch_version} ({found})"
    elif host.torch_available is False:
        torch = (translate("RigFields", "not usable: {error}").format(error=host.torch_error)
                 if host.torch_error else translate("RigFields", "not installed"))
    elif host.torch_error:
        torch = translate("RigFields", "not checked: {error}").format(error=host.torch_error)
    else:
        torch = translate("RigFields", "checking…")
    cpu = translate("RigFields", "{model} ({cores} cores, {threads} threads)").format(
        model=f.v(host.cpu_model), cores=f.v(host.cpu_cores_physical),
        threads=f.v(host.cpu_cores_logical))
    ram = translate("RigFields", "{total} total, {available} available").format(
        total=f.b(host.ram_total_bytes, units), available=f.b(host.ram_available_bytes, units))
    disk = translate("RigFields", "{free} on {path}").format(
        free=f.b(host.disk_free_bytes, units), path=f.v(host.disk_path))
    swap = translate("RigFields", "{total} total, {free} free").format(
        total=f.b(host.swap_total_bytes, units), free=f.b(host.swap_free_bytes, units))
    disks = "; ".join(translate("RigFields", "{mount}: {free} free of {total}").format(
        mount=d.mountpoint, free=f.b(d.free_bytes, units), total=f.b(d.total_bytes, units))
        for d in host.disks) or f.na()
    return [
        (translate("RigFields", "CPU"), cpu),
        (translate("RigFields", "RAM"), ram),
        (translate("RigFields", "Swap"), swap),
        (translate("RigFields", "Disk free"), disk),
        (translate("RigFields", "Disks"), disks),
        (translate("RigFields", "OS / Python"), f"{f.v(host.os)} / {f.v(host.python_version)}"),
        (translate("RigFields", "PyTorch"), torch),
    ]


def gpu_title(gpu: GpuInfo, translate: Translate = english) -> str:
    """``GPU 0: NVIDIA GeForce RTX 3090`` (and ``(integrated)``): a tile's title."""
    tags = []
    if gpu.integrated:
        tags.append(translate("GpuTile", "integrated"))
    if gpu.is_mig_parent:
        tags.append(translate("GpuTile", "MIG mode: used through its slices"))
    if gpu.mig is not None:
        title = translate("GpuTile", "GPU {index} · MIG slice {slot}: {name}").format(
            index=gpu.mig.parent_index, slot=gpu.mig.mig_index, name=gpu.name)
    else:
        title = translate("GpuTile", "GPU {index}: {name}").format(index=gpu.index,
                                                                  name=gpu.name)
    return title + (f" ({', '.join(tags)})" if tags else "")


def warning_texts(warnings: Sequence[HealthWarning],
                  translate: Translate = english) -> list[tuple[str, str]]:
    """(code, sentence) of each health warning, in the user's language.

    The templates are marked in :mod:`gpuadvisor.hardware` (``QT_TRANSLATE_NOOP``, context
    ``HealthWarnings``): translated first, then filled.
    """
    return [(w.code, translate(WARNING_CONTEXT, w.template).format(**dict(w.params)))
            for w in warnings]


def backend_text(result: DetectionResult, spec: str | None,
                 translate: Translate = english) -> str:
    """``Demo rig “mixed” · backend: simulated · 2 GPU(s)``: what the page shows."""
    names = {"nvml": "NVIDIA NVML", "sysfs": translate("RigPage", "Linux sysfs (AMD/Intel)"),
             "apple": "Apple", "simulated": translate("RigPage", "simulated"),
             "torch": "PyTorch", "none": translate("RigPage", "none")}
    where = (translate("RigPage", "Demo rig “{spec}”").format(spec=spec) if spec
             else translate("RigPage", "This machine"))
    return translate("RigPage", "{where} · backend: {backend} · {n} GPU(s)").format(
        where=where, backend=names.get(result.backend, result.backend), n=len(result.gpus))


__all__ = ["Translate", "backend_text", "catalog_text", "english", "gpu_rows", "gpu_title",
           "host_rows", "warning_texts"]
