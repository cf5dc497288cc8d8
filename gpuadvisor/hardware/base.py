"""Records and the backend protocol shared by every hardware backend.

Units are in the field names (``_bytes``, ``_w``, ``_mhz``, ``_c``, ``_pct``). A field is
``None`` when the driver says it is not supported, not permitted, or simply does not report it:
the UI shows "n/a", it never guesses. Nothing here imports a driver binding.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

#: Backend names, as they appear in ``detect --json`` (DESIGN.md §3).
BACKENDS = ("nvml", "sysfs", "apple", "torch", "simulated", "none")

#: NVML clock-event ("throttle") reason bits -> readable name. The bit values are NVML's ABI
#: (``nvmlClocksEventReason*``), identical in every driver since they were introduced.
THROTTLE_REASON_BITS: dict[int, str] = {
    0x001: "idle",
    0x002: "applications clocks setting",
    0x004: "power cap",
    0x008: "hardware slowdown",
    0x010: "sync boost",
    0x020: "thermal (software)",
    0x040: "thermal (hardware)",
    0x080: "power brake (hardware)",
    0x100: "display clock setting",
}
#: Throttle reasons that mean "too hot now".
THERMAL_REASONS = frozenset({"thermal (software)", "thermal (hardware)"})
#: Throttle reasons that mean "held down by power now".
POWER_REASONS = frozenset({"power cap", "power brake (hardware)", "hardware slowdown"})


def throttle_reason_names(mask: int) -> tuple[str, ...]:
    """Readable names of the bits set in an NVML clock-event reason mask, in bit order."""
    return tuple(name for bit, name in THROTTLE_REASON_BITS.items() if mask & bit)


@dataclass(frozen=True)
class GpuProcess:
    """A process holding memory on a GPU.

    Attributes:
        pid: Process id (in the driver's pid namespace; may be a host pid in containers).
        name: Executable name, or ``None`` when it cannot be read.
        used_bytes: GPU memory it holds, ``None`` when the driver does not say (Windows WDDM).
    """

    pid: int
    name: str | None
    used_bytes: int | None


@dataclass(frozen=True)
class MigSlice:
    """Where a MIG slice (a Multi-Instance GPU device) sits on its physical card.

    Attributes:
        parent_index: The physical card's ``GpuInfo.index`` (its NVML index).
        mig_index: The slice's NVML MIG device index on that card (0, 1, ...).
        gpu_instance_id / compute_instance_id: The GI and CI ids nvidia-smi shows (``None``
            when NVML does not say); ``CUDA_VISIBLE_DEVICES=MIG-GPU-<uuid>/<GI>/<CI>`` names a
            slice by them.
    """

    parent_index: int
    mig_index: int
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None


@dataclass(frozen=True)
class GpuInfo:
    """One GPU as a backend sees it: identity, memory, link, power, clocks and health.

    Every field but ``index``, ``name``, ``vendor`` and ``backend`` may be ``None`` ("n/a").
    Memory is per card: a rig of two GPUs is two records, never one summed figure.

    Attributes:
        index: The backend's device index (NVML index, or discrete-card order for sysfs).
        name: Device name as the driver reports it, e.g. ``"NVIDIA GeForce RTX 4090"``.
        vendor: ``nvidia``, ``amd``, ``intel`` or ``apple``.
        backend: The backend that produced the record (one of :data:`BACKENDS`).
        catalog_id: Matched catalog entry, ``None`` when unmatched (see ``hardware.match``).
        uuid: Driver UUID, e.g. ``"GPU-5d3c..."``.
        pci_bus_id: PCI address, e.g. ``"00000000:01:00.0"``.
        memory_total_bytes / memory_used_bytes / memory_free_bytes: Device memory as the
            driver reports it (for unified memory: the whole system's RAM).
        driver_version: Kernel driver version string.
        cuda_driver_version: Highest CUDA version the driver supports, e.g. ``"12.4"``.
        compute_capability: CUDA compute capability, e.g. ``"8.9"``.
        sm_count: Streaming multiprocessors (NVIDIA).
        gpu_cores: GPU cores as Apple counts them.
        pcie_gen_current / pcie_gen_max: PCIe generation now and the best the link supports
            (cards drop the generation when idle; that is normal).
        pcie_width_current / pcie_width_max: PCIe lanes now and the most the card supports.
        nvlink_links_active: Active NVLink links; ``None`` when the card has no NVLink.
        power_draw_w, power_limit_w (enforced), power_default_limit_w, power_min_limit_w,
            power_max_limit_w: Board power in watts.
        temperature_c / temperature_slowdown_c: Core temperature and the slowdown threshold.
        sm_clock_mhz / sm_clock_max_mhz / mem_clock_mhz / mem_clock_max_mhz: Clocks.
        utilization_gpu_pct / utilization_mem_pct: Busy percentages over the last sample.
        throttle_reasons: Readable reasons clocks are held down now (see
            :data:`THROTTLE_REASON_BITS`); empty when none; ``None`` when unknown.
        ecc_enabled: ECC mode now.
        ecc_errors_uncorrected: Uncorrected ECC errors since the driver loaded.
        mig_enabled: Multi-Instance GPU mode now.
        persistence_mode: Driver persistence mode.
        processes: Processes holding memory on the card; ``None`` when the driver won't say.
        unified_memory: The GPU shares memory with the CPU (Apple silicon).
        integrated: An integrated GPU (Intel iGPU, AMD APU): shown, never counted as a
            training GPU.
        lost: The card stopped answering (NVML "GPU is lost"): it fell off the bus.
        mig: Set when this record is a MIG slice of a physical card (its memory is the
            slice's; power, clocks and links are the card's and read n/a here). A slice's
            ``index`` is numbered after every physical card's, unique within one detection.
    """

    index: int
    name: str
    vendor: str
    backend: str
    catalog_id: str | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None
    memory_total_bytes: int | None = None
    memory_used_bytes: int | None = None
    memory_free_bytes: int | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    compute_capability: str | None = None
    sm_count: int | None = None
    gpu_cores: int | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    nvlink_links_active: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    power_default_limit_w: float | None = None
    power_min_limit_w: float | None = None
    power_max_limit_w: float | None = None
    temperature_c: float | None = None
    temperature_slowdown_c: float | None = None
    sm_clock_mhz: int | None = None
    sm_clock_max_mhz: int | None = None
    mem_clock_mhz: int | None = None
    mem_clock_max_mhz: int | None = None
    utilization_gpu_pct: float | None = None
    utilization_mem_pct: float | None = None
    throttle_reasons: tuple[str, ...] | None = None
    ecc_enabled: bool | None = None
    ecc_errors_uncorrected: int | None = None
    mig_enabled: bool | None = None
    persistence_mode: bool | None = None
    processes: tuple[GpuProcess, ...] | None = None
    unified_memory: bool = False
    integrated: bool = False
    lost: bool = False
    mig: MigSlice | None = None

    def __post_init__(self) -> None:
        """Reject impossible records early, naming the field."""
        if self.backend not in BACKENDS:
            raise ValueError(f"backend: {self.backend!r} is not one of {', '.join(BACKENDS)}")
        for name in ("memory_total_bytes", "memory_used_bytes", "memory_free_bytes"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name}: must be >= 0, got {value}")

    @property
    def is_training_gpu(self) -> bool:
        """Whether plans may use this card: not integrated, still answering, and not a card
        split by MIG (a job there runs on one of its slices, listed as devices of their own)."""
        return not self.integrated and not self.lost and not self.is_mig_parent

    @property
    def is_mig_parent(self) -> bool:
        """A physical card in MIG mode: CUDA sees its slices, never the whole card."""
        return self.mig is None and self.mig_enabled is True

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (tuples become lists, processes become objects)."""
        data = asdict(self)
        if self.throttle_reasons is not None:
            data["throttle_reasons"] = list(self.throttle_reasons)
        if self.processes is not None:
            data["processes"] = [asdict(p) for p in self.processes]
        return data


@dataclass(frozen=True)
class DiskInfo:
    """One mounted file system.

    Attributes:
        mountpoint: Where it is mounted, e.g. ``"/"``, ``"/data"`` or ``"C:\\"``.
        device: The device, e.g. ``"/dev/nvme0n1p2"`` (``None`` when unknown).
        fstype: File-system type, e.g. ``"ext4"``, ``"NTFS"``, ``"apfs"``.
        total_bytes / free_bytes: Size and space free for this user.
    """

    mountpoint: str
    device: str | None = None
    fstype: str | None = None
    total_bytes: int | None = None
    free_bytes: int | None = None


@dataclass(frozen=True)
class HostInfo:
    """The machine around the GPUs.

    Attributes:
        cpu_model: CPU model string, e.g. ``"AMD Ryzen 9 7950X 16-Core Processor"``.
        cpu_cores_physical / cpu_cores_logical: Core counts.
        ram_total_bytes / ram_available_bytes: System memory; available is what programs
            can take without swapping (Linux MemAvailable, what psutil reports elsewhere).
        swap_total_bytes / swap_free_bytes: Swap space (offloading into it is very slow).
        disk_free_bytes: Free space on the file system holding ``disk_path``.
        disk_path: The folder measured (the data folder).
        disks: Every mounted disk (psutil's physical partitions), once per device.
        facts_source: Where the CPU, memory and disk figures come from: ``"psutil"``, or
            ``"system"`` (``/proc``, ``sysctl``) when psutil cannot be imported.
        os: Operating system, e.g. ``"Linux 6.8.0 (x86_64)"``.
        python_version: The app's Python, e.g. ``"3.11.9"``.
        torch_python: The interpreter asked about torch.
        torch_available: Whether ``import torch`` works there; ``None`` when not checked.
        torch_version: ``torch.__version__`` there.
        torch_cuda_version: ``torch.version.cuda`` (``None`` for CPU/ROCm builds).
        torch_cuda_available: ``torch.cuda.is_available()`` there (true for ROCm builds too).
        torch_mps_available: ``torch.backends.mps.is_available()`` there.
        torch_error: Why the check failed (last line of the error), when it did.
    """

    cpu_model: str | None = None
    cpu_cores_physical: int | None = None
    cpu_cores_logical: int | None = None
    ram_total_bytes: int | None = None
    ram_available_bytes: int | None = None
    swap_total_bytes: int | None = None
    swap_free_bytes: int | None = None
    disk_free_bytes: int | None = None
    disk_path: str | None = None
    disks: tuple[DiskInfo, ...] = ()
    facts_source: str | None = None
    os: str | None = None
    python_version: str | None = None
    torch_python: str | None = None
    torch_available: bool | None = None
    torch_version: str | None = None
    torch_cuda_version: str | None = None
    torch_cuda_available: bool | None = None
    torch_mps_available: bool | None = None
    torch_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (``disks`` a list of objects)."""
        data = asdict(self)
        data["disks"] = [asdict(d) for d in self.disks]
        return data


@dataclass(frozen=True)
class HealthWarning:
    """Something about one card that costs speed or memory now, with the reason spelled out.

    Attributes:
        gpu_index: The card's ``GpuInfo.index``.
        code: Stable id: ``pcie_narrow``, ``thermal_throttle``, ``power_throttle``,
            ``power_limit_low``, ``ecc_errors``, ``ecc_inline``, ``vram_in_use``,
            ``mig_enabled``, ``gpu_lost``, ``integrated``.
        template: The English sentence with ``{name}`` placeholders, marked for translation
            (context :data:`WARNING_CONTEXT`) so the GUI can show it in the user's language.
        params: The values for the placeholders (already formatted as text).
    """

    gpu_index: int
    code: str
    template: str
    params: tuple = ()

    @property
    def message(self) -> str:
        """One sentence for people: what, why it matters, what to do (English)."""
        return self.template.format(**dict(self.params))


#: Translation context of health-warning templates (see :func:`QT_TRANSLATE_NOOP`).
WARNING_CONTEXT = "HealthWarnings"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for Qt's translation catalog without importing Qt (returns it unchanged)."""
    return text


@runtime_checkable
class GpuBackend(Protocol):
    """What every backend offers. Construction must not raise for a missing driver: backends
    are opened through a factory that reports unavailability as a hint."""

    name: str

    def devices(self) -> list[GpuInfo]:
        """The GPUs as of the last refresh (the first call refreshes)."""
        ...

    def refresh(self) -> None:
        """Re-read live values (memory used, power, temperature, clocks, processes)."""
        ...

    def close(self) -> None:
        """Release the driver; safe to call twice."""
        ...


@dataclass(frozen=True)
class HiddenGpu:
    """A device the driver lists but ``CUDA_VISIBLE_DEVICES`` hides from CUDA programs.

    Attributes:
        index: Its ``GpuInfo.index``.
        name: Its name.
        uuid: ``GPU-…`` or ``MIG-…`` UUID, when known.
        memory_total_bytes: Its memory.
        mig_parent_index: For a MIG slice, the physical card's index.
        reason: Why it is hidden, one English sentence.
    """

    index: int
    name: str
    uuid: str | None
    memory_total_bytes: int | None
    mig_parent_index: int | None
    reason: str

    @classmethod
    def of(cls, gpu: GpuInfo, reason: str) -> HiddenGpu:
        """The hidden record of ``gpu``."""
        return cls(gpu.index, gpu.name, gpu.uuid, gpu.memory_total_bytes,
                   gpu.mig.parent_index if gpu.mig is not None else None, reason)

    @property
    def label(self) -> str:
        """``GPU 1 (NVIDIA GeForce RTX 3060)`` or ``GPU 0 MIG 2 (…)``."""
        where = (f"GPU {self.mig_parent_index} MIG slice" if self.mig_parent_index is not None
                 else f"GPU {self.index}")
        return f"{where} ({self.name})"


@dataclass(frozen=True)
class DetectionResult:
    """Everything ``detect`` found.

    Attributes:
        backend: The backend that produced ``gpus`` (``"none"`` when no GPU was found).
        gpus: Every card, per card (integrated ones included but marked).
        host: The host machine.
        hints: Actionable lines for the user (driver missing, WSL, container, ...).
        warnings: Health warnings, each naming its card.
        hidden: Devices the driver lists that ``CUDA_VISIBLE_DEVICES`` hides (not in ``gpus``).
        cuda_visible_devices: The variable's value as read (``None`` when unset).
    """

    backend: str
    gpus: tuple[GpuInfo, ...]
    host: HostInfo
    hints: tuple[str, ...] = ()
    warnings: tuple[HealthWarning, ...] = field(default=())
    hidden: tuple[HiddenGpu, ...] = ()
    cuda_visible_devices: str | None = None

    def warnings_for(self, gpu_index: int) -> tuple[HealthWarning, ...]:
        """The warnings about one card."""
        return tuple(w for w in self.warnings if w.gpu_index == gpu_index)

    @property
    def training_gpus(self) -> tuple[GpuInfo, ...]:
        """Cards plans may use: discrete and still answering."""
        return tuple(g for g in self.gpus if g.is_training_gpu)

    def to_json(self) -> dict[str, Any]:
        """The ``detect --json`` object (DESIGN.md §3)."""
        gpus = []
        for gpu in self.gpus:
            item = gpu.to_json()
            item["warnings"] = [
                {"code": w.code, "message": w.message} for w in self.warnings_for(gpu.index)
            ]
            gpus.append(item)
        return {
            "backend": self.backend,
            "gpus": gpus,
            "host": self.host.to_json(),
            "hints": list(self.hints),
            "hidden": [asdict(h) for h in self.hidden],
            "cuda_visible_devices": self.cuda_visible_devices,
        }
