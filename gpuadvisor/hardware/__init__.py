"""What is in this machine: GPUs (NVML, sysfs, Apple, simulated) and the host.

Importing this package imports no driver binding: ``pynvml`` is imported only by
:mod:`gpuadvisor.hardware.nvml`, inside functions, and torch never (a subprocess is asked).

Public API::

    detect(simulate=None, ...) -> DetectionResult     # one-shot detection (CLI, GUI)
    open_backend(simulate=None, ...) -> (GpuBackend | None, hints)   # for live refresh
    health_warnings(gpu) -> list[HealthWarning]
    smallest_card(gpus) -> GpuInfo | None
    match_gpu(name, memory_total_bytes=None, gpus=None) -> catalog id | None
    SCENARIOS, parse_spec, SimulatedBackend           # --simulate SPEC
"""

from .base import (
    BACKENDS,
    DetectionResult,
    GpuBackend,
    GpuInfo,
    GpuProcess,
    HealthWarning,
    HostInfo,
)
from .detect import describe_scenarios, detect, health_warnings, open_backend, smallest_card
from .match import match_gpu, with_catalog_match
from .simulated import SCENARIOS, SimulatedBackend, parse_spec

__all__ = [
    "BACKENDS",
    "SCENARIOS",
    "DetectionResult",
    "GpuBackend",
    "GpuInfo",
    "GpuProcess",
    "HealthWarning",
    "HostInfo",
    "SimulatedBackend",
    "describe_scenarios",
    "detect",
    "health_warnings",
    "match_gpu",
    "open_backend",
    "parse_spec",
    "smallest_card",
    "with_catalog_match",
]
