"""Find the GPUs of this machine (or a simulated rig) and say what is wrong with them.

:func:`detect` tries NVML, then sysfs (AMD/Intel on Linux), then Apple silicon, else reports
backend ``"none"`` — with the host described either way and hints that say what to do.
:func:`health_warnings` checks one card at a time: warnings are per card, memory is per card,
nothing is ever summed across cards.
"""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import replace

from gpuadvisor.core.gpu import INLINE_ECC_BANDWIDTH_LOSS, GpuSpec, ecc_is_inline
from gpuadvisor.core.gpu import smallest_card as smallest_card  # re-exported
from gpuadvisor.core.units import format_bytes

from .base import (
    POWER_REASONS,
    QT_TRANSLATE_NOOP,
    THERMAL_REASONS,
    DetectionResult,
    GpuBackend,
    GpuInfo,
    HealthWarning,
    HostInfo,
)

#: VRAM held by processes we cannot see that is worth a warning: the larger of these.
VRAM_IN_USE_MIN_BYTES = 1024**3
VRAM_IN_USE_MIN_FRACTION = 0.10


# --------------------------------------------------------------------------- health
def _fmt(n: int | None) -> str:
    return format_bytes(n) if n is not None else "n/a"


def health_warnings(gpu: GpuInfo, own_pid: int | None = None) -> list[HealthWarning]:
    """Everything about one card that costs speed or memory now, each with its reason.

    Args:
        gpu: The card.
        own_pid: This process's pid (its own VRAM is not "another process"); default: ours.
    """
    own_pid = os.getpid() if own_pid is None else own_pid
    out: list[HealthWarning] = []

    def warn(code: str, template: str, **params) -> None:
        out.append(HealthWarning(gpu.index, code, template, tuple(params.items())))

    if gpu.lost:
        warn("gpu_lost", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "The GPU stopped answering (NVML: GPU is lost) — it fell off the bus. Check power "
            "cables and riser, reseat the card and reboot; the kernel log shows an Xid 79."))
        return out
    if gpu.integrated:
        warn("integrated", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "Integrated GPU: it shares system memory and is not counted as a training GPU."))
    now, most = gpu.pcie_width_current, gpu.pcie_width_max
    if now is not None and most is not None and now < most:
        warn("pcie_narrow", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "PCIe link runs at x{now} but the card supports x{most} (an x{now} slot, a riser or "
            "a shared lane budget): loading data and multi-GPU traffic are slower. Move the "
            "card to a full-width slot."), now=str(now), most=str(most))
    reasons = set(gpu.throttle_reasons or ())
    thermal = sorted(reasons & THERMAL_REASONS)
    if thermal:
        temp = f"{gpu.temperature_c:.0f} °C" if gpu.temperature_c is not None else "n/a"
        limit = (f"{gpu.temperature_slowdown_c:.0f} °C"
                 if gpu.temperature_slowdown_c is not None else "n/a")
        warn("thermal_throttle", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "Throttling now because it is too hot ({temp}; slowdown at {limit}): {reasons}. "
            "Improve airflow or clean the cooler; clocks drop until it cools."),
            temp=temp, limit=limit, reasons=", ".join(thermal))
    power = sorted(reasons & POWER_REASONS)
    if power:
        draw = (f"{gpu.power_draw_w:.0f} W" if gpu.power_draw_w is not None else "n/a")
        cap = (f"{gpu.power_limit_w:.0f} W" if gpu.power_limit_w is not None else "n/a")
        warn("power_throttle", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "Clocks are held down by power now (drawing {draw} of {cap}): {reasons}. Expected "
            "under full load at the limit; a low limit or weak PSU makes it worse."),
            draw=draw, cap=cap, reasons=", ".join(power))
    limit_w, default_w = gpu.power_limit_w, gpu.power_default_limit_w
    if limit_w is not None and default_w is not None and limit_w < default_w - 1:
        warn("power_limit_low", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "Power limit is {limit} W, below the card's default {default} W: expect lower "
            "clocks under load (raise it with nvidia-smi -pl, or accept the slower, cooler "
            "card)."), limit=f"{limit_w:.0f}", default=f"{default_w:.0f}")
    if gpu.ecc_errors_uncorrected:
        warn("ecc_errors", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "{count} uncorrected ECC memory error(s) since the driver loaded: results on this "
            "card may be wrong. Reset the GPU; if errors return, have it checked."),
            count=str(gpu.ecc_errors_uncorrected))
    if gpu.ecc_enabled and _inline_ecc(gpu):
        warn("ecc_inline", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "ECC is on, and this card keeps the check bits in its own GDDR memory: they take "
            "1/16 of the memory and about {loss} of the bandwidth of a streaming read (more "
            "for scattered access), so decoding runs about that much slower. If you do not "
            "need ECC, turn it off (sudo nvidia-smi -e 0, then reboot)."),
            loss=f"{INLINE_ECC_BANDWIDTH_LOSS:.0%}")
    others = [p for p in (gpu.processes or ()) if p.pid != own_pid]
    held = sum(p.used_bytes or 0 for p in others)
    used, total = gpu.memory_used_bytes, gpu.memory_total_bytes
    big = max(VRAM_IN_USE_MIN_BYTES, VRAM_IN_USE_MIN_FRACTION * (total or 0))
    if others and held > 0:
        names = ", ".join(f"{p.name or '?'} (pid {p.pid})" for p in others[:3])
        more = f" +{len(others) - 3}" if len(others) > 3 else ""
        warn("vram_in_use", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "{count} other process(es) hold {held} of VRAM: {names}. Free for training: "
            "{free} of {total}."), count=str(len(others)), held=_fmt(held),
            names=names + more, free=_fmt(gpu.memory_free_bytes), total=_fmt(total))
    elif used is not None and used >= big:
        warn("vram_in_use", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "{used} of VRAM is already in use by processes not visible here (another container "
            "or user, or the desktop): free for training is {free} of {total}."),
            used=_fmt(used), free=_fmt(gpu.memory_free_bytes), total=_fmt(total))
    if gpu.mig_enabled:
        warn("mig_enabled", QT_TRANSLATE_NOOP(
            "HealthWarnings",
            "MIG mode is on: the card is split into instances and a job sees only its "
            "instance's memory and SMs. Disable MIG (nvidia-smi -mig 0) to train on the whole "
            "card."))
    return out


def _inline_ecc(gpu: GpuInfo) -> bool:
    """Whether ``gpu``'s catalog card keeps its check bits inline (:func:`ecc_is_inline`);
    False for an unmatched card or when the catalog cannot be read."""
    catalog = _catalog([]) if gpu.catalog_id else None
    spec = catalog.get(gpu.catalog_id) if catalog else None
    return spec is not None and ecc_is_inline(spec)


# --------------------------------------------------------------------------- detection
def _catalog(hints: list[str]) -> Mapping[str, GpuSpec] | None:
    from gpuadvisor.catalog import CatalogError, load_gpus

    try:
        return load_gpus()
    except (CatalogError, OSError) as exc:
        hints.append(f"The GPU catalog could not be loaded, so cards are unmatched: {exc}")
        return None


def matched_gpus(gpus: list[GpuInfo], catalog: Mapping[str, GpuSpec] | None) -> list[GpuInfo]:
    """``gpus`` with their catalog entries: each card matched by name and memory; a MIG slice
    takes its card's entry (its own name and memory are the slice's, not a catalog card's)."""
    from .match import with_catalog_match

    if not catalog:
        return gpus
    cards = {g.index: (g if g.catalog_id is not None else with_catalog_match(g, catalog))
             for g in gpus if g.mig is None}
    out = []
    for gpu in gpus:
        if gpu.mig is None:
            out.append(cards[gpu.index])
        elif gpu.catalog_id is None and gpu.mig.parent_index in cards:
            out.append(replace(gpu, catalog_id=cards[gpu.mig.parent_index].catalog_id))
        else:
            out.append(gpu)
    return out



def open_backend(
    simulate: str | None = None,
    *,
    system: str | None = None,
    env=None,
    sysfs_root: str | os.PathLike[str] = "/",
    run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
) -> tuple[GpuBackend | None, list[str]]:
    """Open the first backend that sees a GPU, for callers that refresh it (the Rig page).

    Args:
        simulate: A ``--simulate`` SPEC; serves that rig instead of real hardware.
        system: ``platform.system()`` (tests pass another).
        env: :class:`~gpuadvisor.hardware.nvml.Environment` for hints (probed when ``None``).
        sysfs_root: Root of ``/sys`` lookups (tests pass a fake tree).
        run: Command runner for ``sysctl``/``system_profiler`` (tests).

    Returns:
        ``(backend or None, hints)``. The caller closes the backend.

    Raises:
        ValueError: ``simulate`` names an unknown scenario or GPU.
    """
    hints: list[str] = []
    if simulate is not None:
        from .simulated import SimulatedBackend

        return SimulatedBackend(simulate), hints
    system = system or platform.system()
    if system == "Darwin":
        from .apple import AppleBackend

        apple = AppleBackend(run)
        return (apple if apple.devices() else None), hints

    from . import nvml

    if env is None:
        env = nvml.Environment.probe(sysfs_root)
    stale = nvml.deprecated_pynvml_hint()
    if stale:
        hints.append(stale)
    nvml_hint: str | None = None
    nvml_reason: str | None = None
    try:
        backend = nvml.open_backend(env)
    except nvml.NvmlUnavailable as exc:
        nvml_hint, nvml_reason = exc.hint, exc.reason
    else:
        if backend.devices() or backend.hidden:
            return backend, [*hints, *backend.notes]
        backend.close()
        if env.in_container:
            nvml_hint = ("NVML works but lists no GPU: start the container with GPU access "
                         "(docker run --gpus all, NVIDIA Container Toolkit on the host).")
    found: GpuBackend | None = None
    if system == "Linux":
        from .sysfs import SysfsBackend

        sysfs = SysfsBackend(sysfs_root)
        if sysfs.devices():
            found = sysfs
    if nvml_hint and _hint_relevant(nvml_reason, env, found is not None):
        hints.append(nvml_hint)
    return found, hints


def _hint_relevant(reason: str | None, env, other_gpus: bool) -> bool:
    """Show the NVML hint unless NVML is simply absent on a machine with other GPUs."""
    if reason not in ("library-not-found", "not-installed"):
        return True
    return env.is_wsl or env.in_container or env.nvidia_pci_present or not other_gpus


def detect(
    simulate: str | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    probe_torch: bool = True,
    python: str | None = None,
    host: HostInfo | None = None,
    system: str | None = None,
    env=None,
    sysfs_root: str | os.PathLike[str] = "/",
    run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
) -> DetectionResult:
    """Detect GPUs and the host once.

    Args:
        simulate: A ``--simulate`` SPEC (scenario name or catalog ids) instead of hardware.
        data_dir: Folder whose free disk space is reported (default: current folder).
        probe_torch: Ask a subprocess whether torch works (takes seconds).
        python: Interpreter to ask about torch (default: this one).
        host: Use this host record instead of collecting one (tests, the GUI's cache).
        system, env, sysfs_root, run: Stand-ins for tests (see :func:`open_backend`).

    Returns:
        The result; backend ``"none"`` with hints when no GPU was found. Never raises for
        missing drivers.

    Raises:
        ValueError: ``simulate`` names an unknown scenario or GPU (the message names it).
    """
    backend, hints = open_backend(simulate, system=system, env=env, sysfs_root=sysfs_root,
                                  run=run)
    try:
        gpus = backend.devices() if backend is not None else []
    finally:
        if backend is not None:
            backend.close()
    catalog = _catalog(hints) if gpus else None
    gpus = matched_gpus(gpus, catalog)
    if host is None:
        from .host import collect_host

        host = collect_host(data_dir, probe_torch=probe_torch, python=python, run=run)
    gpus = unified_memory_from_host(gpus, host, catalog)
    warnings = [w for g in gpus for w in health_warnings(g)]
    hints += rig_hints(gpus)
    return DetectionResult(
        backend=backend.name if backend is not None else "none",
        gpus=tuple(gpus),
        host=host,
        hints=tuple(hints),
        warnings=tuple(warnings),
        hidden=tuple(getattr(backend, "hidden", ())),
        cuda_visible_devices=getattr(backend, "cuda_visible_devices", None),
    )


def unified_memory_from_host(gpus, host: HostInfo, catalog) -> list[GpuInfo]:
    """An NVIDIA GPU with unified memory (GB10, DGX Spark) whose driver reports no memory
    total (NVML: NOT_SUPPORTED, nvidia-smi "Not Supported") takes the host's: CUDA reports
    the operating system's MemTotal as the GPU's total there (torch ``total_memory`` 119.70
    GiB on a 128 GB DGX Spark, GuigsEvt/dgx_spark_config issue 1), and its free memory is
    the host's available memory."""
    if not catalog or host is None or not host.ram_total_bytes:
        return list(gpus)
    out = []
    for gpu in gpus:
        spec = catalog.get(gpu.catalog_id) if gpu.catalog_id else None
        if (gpu.vendor == "nvidia" and gpu.memory_total_bytes is None and spec is not None
                and spec.unified_memory):
            gpu = replace(gpu, memory_total_bytes=int(host.ram_total_bytes),
                          memory_free_bytes=(int(host.ram_available_bytes)
                                             if host.ram_available_bytes else None),
                          unified_memory=True)
        out.append(gpu)
    return out


def rig_hints(gpus: list[GpuInfo]) -> list[str]:
    """Hints about the rig as a whole: only integrated GPUs; a card in MIG mode without a
    slice (CUDA sees nothing of it)."""
    hints = []
    if gpus and all(g.integrated for g in gpus if not g.lost) and not any(g.lost for g in gpus):
        hints.append("Only an integrated GPU was found: plans will use the CPU or a "
                     "simulated/rented GPU.")
    for card in gpus:
        if card.is_mig_parent and not any(g.mig is not None and g.mig.parent_index == card.index
                                          for g in gpus):
            hints.append(f"GPU {card.index} is in MIG mode with no slice visible here: CUDA "
                         "sees nothing of it. Create GPU and compute instances (nvidia-smi mig "
                         "-cgi ... -C) or disable MIG (nvidia-smi -mig 0).")
    return hints


def describe_scenarios() -> dict[str, str]:
    """Named ``--simulate`` scenarios -> one-line description (for pickers and help)."""
    from .simulated import SCENARIOS

    return {name: s.description for name, s in SCENARIOS.items()}

