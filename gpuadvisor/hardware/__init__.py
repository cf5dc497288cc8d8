"""What is in this machine: GPUs (NVML, sysfs, Apple, simulated) and the host.

Importing this package imports no driver binding: ``pynvml`` is imported only by
:mod:`gpuadvisor.hardware.nvml`, inside functions, and torch never (a subprocess is asked).

Public API::

    detect(simulate=None, ...) -> DetectionResult     # one-shot detection (CLI, GUI)
    open_backend(simulate=None, ...) -> (GpuBackend | None, hints)   # for live refresh
    health_warnings(gpu) -> list[HealthWarning]
    smallest_card(gpus) -> GpuInfo | None
    match_gpu(name, memory_total_bytes=None, gpus=None) -> catalog id | None
    matched_gpus(gpus, catalog) -> list[GpuInfo]      # MIG slices take their card's entry
    apply_cuda_visible_devices(gpus, value) -> Visibility   # what CUDA programs see
    check_host_ram(needed, available, total) -> HostRamCheck  # offload vs this machine's RAM
    SCENARIOS, parse_spec, SimulatedBackend           # --simulate SPEC
"""

from .base import (
    BACKENDS,
    DetectionResult,
    DiskInfo,
    GpuBackend,
    GpuInfo,
    GpuProcess,
    HealthWarning,
    HiddenGpu,
    HostInfo,
    MigSlice,
)
from .detect import (
    describe_scenarios,
    detect,
    health_warnings,
    matched_gpus,
    open_backend,
    rig_hints,
    smallest_card,
)
from .host_ram import HostRamCheck, check_host_ram
from .match import match_gpu, with_catalog_match
from .simulated import SCENARIOS, SimulatedBackend, parse_spec
from .visible import Visibility, apply_cuda_visible_devices

__all__ = [
    "BACKENDS",
    "SCENARIOS",
    "DetectionResult",
    "DiskInfo",
    "GpuBackend",
    "GpuInfo",
    "GpuProcess",
    "HealthWarning",
    "HiddenGpu",
    "HostInfo",
    "HostRamCheck",
    "MigSlice",
    "SimulatedBackend",
    "Visibility",
    "apply_cuda_visible_devices",
    "check_host_ram",
    "describe_scenarios",
    "detect",
    "health_warnings",
    "match_gpu",
    "matched_gpus",
    "open_backend",
    "parse_spec",
    "rig_hints",
    "smallest_card",
    "with_catalog_match",
]
