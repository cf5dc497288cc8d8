"""``gpuadvisor detect`` for people: one block per GPU, the host, then hints and warnings."""

from __future__ import annotations

from gpuadvisor.core.units import format_bytes

from .base import DetectionResult, DiskInfo, GpuInfo, HostInfo

NA = "n/a"


def _v(value: object, unit: str = "", fmt: str = "{}") -> str:
    if value is None:
        return NA
    if isinstance(value, bool):
        return "on" if value else "off"
    return fmt.format(value) + (f" {unit}" if unit else "")


def _bytes(n: int | None) -> str:
    return format_bytes(n) if n is not None else NA


def _pair(now: object, most: object, prefix: str = "") -> str:
    if now is None and most is None:
        return NA
    return f"{prefix}{_v(now)} (max {prefix}{_v(most)})"


def gpu_lines(gpu: GpuInfo) -> list[tuple[str, str]]:
    """Label/value rows for one card (``n/a`` where the driver does not say)."""
    matched = gpu.catalog_id or "unmatched (figures from the driver)"
    memory = f"{_bytes(gpu.memory_total_bytes)} total, {_bytes(gpu.memory_free_bytes)} free"
    if gpu.unified_memory:
        memory += " (unified: shared with the CPU)"
    rows = [
        ("catalog", matched),
        ("memory", memory),
        ("driver / CUDA", f"{_v(gpu.driver_version)} / {_v(gpu.cuda_driver_version)}"),
        ("compute capability", _v(gpu.compute_capability)),
        ("PCIe", f"gen {_pair(gpu.pcie_gen_current, gpu.pcie_gen_max)}, "
                 f"width {_pair(gpu.pcie_width_current, gpu.pcie_width_max, 'x')}"),
        ("NVLink links", _v(gpu.nvlink_links_active)),
        ("power", f"{_v(gpu.power_draw_w, 'W', '{:.0f}')} of limit "
                  f"{_v(gpu.power_limit_w, 'W', '{:.0f}')} (default "
                  f"{_v(gpu.power_default_limit_w, 'W', '{:.0f}')})"),
        ("temperature", f"{_v(gpu.temperature_c, '°C', '{:.0f}')} (slowdown "
                        f"{_v(gpu.temperature_slowdown_c, '°C', '{:.0f}')})"),
        ("SM clock", f"{_v(gpu.sm_clock_mhz, 'MHz')} (max {_v(gpu.sm_clock_max_mhz, 'MHz')})"),
        ("memory clock", f"{_v(gpu.mem_clock_mhz, 'MHz')} "
                         f"(max {_v(gpu.mem_clock_max_mhz, 'MHz')})"),
        ("utilization", f"gpu {_v(gpu.utilization_gpu_pct, '%', '{:.0f}')}, "
                        f"memory {_v(gpu.utilization_mem_pct, '%', '{:.0f}')}"),
        ("throttle reasons", NA if gpu.throttle_reasons is None
         else ", ".join(gpu.throttle_reasons) or "none"),
        ("ECC", f"{_v(gpu.ecc_enabled)}, uncorrected errors {_v(gpu.ecc_errors_uncorrected)}"),
        ("MIG / persistence", f"{_v(gpu.mig_enabled)} / {_v(gpu.persistence_mode)}"),
    ]
    if gpu.gpu_cores is not None:
        rows.append(("GPU cores", str(gpu.gpu_cores)))
    if gpu.sm_count is not None:
        rows.append(("SMs", str(gpu.sm_count)))
    if gpu.processes:
        rows.append(("processes", "; ".join(
            f"{p.name or '?'} (pid {p.pid}, {_bytes(p.used_bytes)})" for p in gpu.processes)))
    if gpu.uuid or gpu.pci_bus_id:
        rows.append(("uuid / PCI", f"{_v(gpu.uuid)} / {_v(gpu.pci_bus_id)}"))
    return rows


def host_lines(host: HostInfo) -> list[tuple[str, str]]:
    """Label/value rows for the host."""
    if host.torch_available:
        accel = [f"CUDA {host.torch_cuda_version}" if host.torch_cuda_version else None,
                 "GPU usable" if host.torch_cuda_available else None,
                 "MPS usable" if host.torch_mps_available else None]
        torch = f"{host.torch_version} ({', '.join(a for a in accel if a) or 'CPU only'})"
    elif host.torch_available is False:
        torch = f"not usable ({host.torch_error})" if host.torch_error else "not installed"
    else:
        torch = f"not checked ({host.torch_error})" if host.torch_error else "not checked"
    rows = [
        ("CPU", f"{_v(host.cpu_model)} ({_v(host.cpu_cores_physical)} cores, "
                f"{_v(host.cpu_cores_logical)} threads)"),
        ("RAM", f"{_bytes(host.ram_total_bytes)} total, "
                f"{_bytes(host.ram_available_bytes)} available"),
        ("swap", f"{_bytes(host.swap_total_bytes)} total, {_bytes(host.swap_free_bytes)} free"),
        ("disk free", f"{_bytes(host.disk_free_bytes)} on {_v(host.disk_path)}"),
    ]
    if host.disks:
        rows.append(("disks", "; ".join(disk_text(d) for d in host.disks)))
    return [*rows, ("OS / Python", f"{_v(host.os)} / {_v(host.python_version)}"),
            ("torch", torch)]


def disk_text(disk: DiskInfo) -> str:
    """``/data: 1.2 TiB free of 3.6 TiB (ext4)``."""
    kind = f" ({disk.fstype})" if disk.fstype else ""
    return (f"{disk.mountpoint}: {_bytes(disk.free_bytes)} free of "
            f"{_bytes(disk.total_bytes)}{kind}")


def gpu_title(gpu: GpuInfo) -> str:
    """``GPU 0: NVIDIA …``; a MIG slice as ``GPU 0 MIG 1 (GI 5, CI 0): NVIDIA … MIG 2g.10gb``."""
    if gpu.mig is None:
        where = f"GPU {gpu.index}"
    else:
        ids = (f" (GI {gpu.mig.gpu_instance_id}, CI {gpu.mig.compute_instance_id})"
               if gpu.mig.gpu_instance_id is not None else "")
        where = f"GPU {gpu.mig.parent_index} MIG {gpu.mig.mig_index}{ids}"
    tags = [t for t, on in (("integrated", gpu.integrated), ("LOST", gpu.lost),
                            ("MIG mode: see its slices", gpu.is_mig_parent)) if on]
    return f"{where}: {gpu.name}" + (f" [{', '.join(tags)}]" if tags else "")


def _block(title: str, rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(label) for label, _ in rows)
    return [title, *(f"  {label:<{width}}  {value}" for label, value in rows)]


def detection_text(result: DetectionResult) -> str:
    """The whole detection as text."""
    lines = [f"backend: {result.backend}"]
    if not result.gpus:
        lines.append("no GPU found")
    for gpu in result.gpus:
        lines += ["", *_block(gpu_title(gpu), gpu_lines(gpu))]
        for warning in result.warnings_for(gpu.index):
            lines.append(f"  ! {warning.message}")
    if result.hidden:
        lines += ["", *_block(f"hidden by CUDA_VISIBLE_DEVICES={result.cuda_visible_devices}",
                              [(h.label, f"{_bytes(h.memory_total_bytes)}; {h.reason}")
                               for h in result.hidden])]
    lines += ["", *_block("host", host_lines(result.host))]
    if result.hints:
        lines += ["", *(f"hint: {h}" for h in result.hints)]
    return "\n".join(lines)
