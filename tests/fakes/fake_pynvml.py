"""A fake ``pynvml`` module that answers like real NVML (nvidia-ml-py) for test scenarios.

Real-shaped where it matters: ``NVMLError(code)`` maps to the same generated subclasses as
nvidia-ml-py (``NVMLError(3)`` is an ``NVMLError_NotSupported`` with ``.value == 3``; the
subclasses take no arguments), the return codes are NVML's, power is in milliwatts, memory in
bytes, ECC/MIG modes are ``[current, pending]`` pairs, and processes carry ``pid`` and
``usedGpuMemory``. Inject with ``monkeypatch.setitem(sys.modules, "pynvml", make_module(...))``.

A device field set to :class:`Raise` makes the matching ``nvmlDevice*`` call raise that code;
``fake.lose(i)`` makes every call on card ``i`` raise ``NVMLError_GpuIsLost`` from then on.

MIG as NVML has it: a card in MIG mode (``mig_mode=(1, 1)``) has ``max_mig_devices`` slots
(``nvmlDeviceGetMaxMigDeviceCount``: 7 on an A100/H100, NOT_SUPPORTED on a card without MIG);
``nvmlDeviceGetMigDeviceHandleByIndex`` returns a slice's handle, NOT_FOUND for an empty slot,
INVALID_ARGUMENT past the last slot and when MIG mode is off, NOT_SUPPORTED on a card without
MIG. A slice's handle answers for its name, UUID, memory, attributes, instance ids and
processes; anything else on it raises NOT_SUPPORTED, as on real MIG device handles.
"""

from __future__ import annotations

import string
import sys
import types
from dataclasses import dataclass, field
from typing import Any

# Return codes, as in nvml.h / nvidia-ml-py.
NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_ALREADY_INITIALIZED = 5
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_INSUFFICIENT_SIZE = 7
NVML_ERROR_INSUFFICIENT_POWER = 8
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_TIMEOUT = 10
NVML_ERROR_IRQ_ISSUE = 11
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_CORRUPTED_INFOROM = 14
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_RESET_REQUIRED = 16
NVML_ERROR_OPERATING_SYSTEM = 17
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18
NVML_ERROR_IN_USE = 19
NVML_ERROR_MEMORY = 20
NVML_ERROR_NO_DATA = 21
NVML_ERROR_UNKNOWN = 999

NVML_FEATURE_DISABLED = 0
NVML_FEATURE_ENABLED = 1
NVML_TEMPERATURE_GPU = 0
NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1
NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
NVML_VOLATILE_ECC = 0


class NVMLError(Exception):
    """Same construction rules as nvidia-ml-py's ``NVMLError``."""

    _valClassMapping: dict[int, type] = {}  # noqa: RUF012 - mirrors the real class attribute

    def __new__(typ, value):
        if typ == NVMLError:
            typ = NVMLError._valClassMapping.get(value, typ)
        obj = Exception.__new__(typ)
        obj.value = value
        return obj

    def __str__(self) -> str:
        return f"NVML Error with code {self.value}"

    def __eq__(self, other: object) -> bool:
        return self.value == getattr(other, "value", None)

    __hash__ = Exception.__hash__


def _extract_error_classes() -> None:
    module = sys.modules[__name__]
    for err_name in [x for x in dir(module) if x.startswith("NVML_ERROR_")]:
        class_name = "NVMLError_" + string.capwords(
            err_name.replace("NVML_ERROR_", ""), "_").replace("_", "")
        value = getattr(module, err_name)

        def gen_new(val):
            def new(typ, *args):
                return NVMLError.__new__(typ, val)
            return new

        cls = type(class_name, (NVMLError,), {"__new__": gen_new(value)})
        cls.__module__ = __name__
        setattr(module, class_name, cls)
        NVMLError._valClassMapping[value] = cls


_extract_error_classes()
NVMLError_NotSupported: type[NVMLError] = NVMLError._valClassMapping[NVML_ERROR_NOT_SUPPORTED]
NVMLError_GpuIsLost: type[NVMLError] = NVMLError._valClassMapping[NVML_ERROR_GPU_IS_LOST]
NVMLError_LibraryNotFound: type[NVMLError] = NVMLError._valClassMapping[
    NVML_ERROR_LIBRARY_NOT_FOUND]
NVMLError_Uninitialized: type[NVMLError] = NVMLError._valClassMapping[NVML_ERROR_UNINITIALIZED]
NVMLError_NoPermission: type[NVMLError] = NVMLError._valClassMapping[NVML_ERROR_NO_PERMISSION]
NVMLError_DriverNotLoaded: type[NVMLError] = NVMLError._valClassMapping[
    NVML_ERROR_DRIVER_NOT_LOADED]
NVMLError_FunctionNotFound: type[NVMLError] = NVMLError._valClassMapping[
    NVML_ERROR_FUNCTION_NOT_FOUND]


@dataclass(frozen=True)
class Raise:
    """Put in a FakeDevice field: the call reading it raises ``NVMLError(code)``."""

    code: int


NA = Raise(NVML_ERROR_NOT_SUPPORTED)
GIB = 1024**3
MIB = 1024**2


@dataclass
class FakeMigDevice:
    """What NVML answers for one MIG slice (a MIG device handle)."""

    name: Any = "NVIDIA A100-SXM4-40GB MIG 3g.20gb"
    uuid: Any = "MIG-5c4b1e0a-1111-5b2a-9c3d-000000000001"
    memory_total: int = 19968 * 1024**2
    memory_used: int = 13 * 1024**2
    sm_count: Any = 42
    gpu_instance_id: Any = 1
    compute_instance_id: Any = 0
    compute_procs: Any = field(default_factory=list)
    graphics_procs: Any = field(default_factory=list)


@dataclass
class FakeDevice:
    """What NVML answers for one card, in NVML's own units (mW, bytes, MHz, °C)."""

    name: Any = "NVIDIA GeForce RTX 4090"
    uuid: Any = "GPU-0d1c9b4e-7a33-4f5e-9d61-3a2b1c0de001"
    bus_id: Any = "00000000:01:00.0"
    memory_total: int = 24564 * MIB
    memory_used: int = 1200 * MIB
    cuda_cc: Any = (8, 9)
    sm_count: Any = 128
    pcie_gen_current: Any = 4
    pcie_gen_max: Any = 4
    pcie_width_current: Any = 16
    pcie_width_max: Any = 16
    nvlink: Any = NA  # list of per-link states, or Raise
    power_usage_mw: Any = 61_250
    power_limit_mw: Any = 450_000
    power_default_mw: Any = 450_000
    power_constraints_mw: Any = (150_000, 600_000)
    temperature_c: Any = 41
    slowdown_c: Any = 90
    clocks_mhz: Any = field(default_factory=lambda: {NVML_CLOCK_SM: 2520, NVML_CLOCK_MEM: 10501})
    max_clocks_mhz: Any = field(default_factory=lambda: {NVML_CLOCK_SM: 3105,
                                                         NVML_CLOCK_MEM: 10501})
    utilization: Any = (37, 12)
    throttle_mask: Any = 0x0
    ecc_mode: Any = NA
    ecc_uncorrected: Any = NA
    mig_mode: Any = NA
    max_mig_devices: Any = NA  # 7 on MIG-capable cards
    mig_devices: Any = field(default_factory=list)  # FakeMigDevice per slot (None: empty)
    persistence: Any = NVML_FEATURE_DISABLED
    compute_procs: Any = field(default_factory=list)  # [(pid, used_bytes or None)]
    graphics_procs: Any = field(default_factory=list)


class _Struct:
    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


class FakeNvml:
    """The state behind one fake module: devices, init behaviour, lost cards, call log."""

    def __init__(self, devices: list[FakeDevice], *, init_error: int | None = None,
                 driver_version: str = "550.54.15", cuda_version: int = 12040,
                 process_names: dict[int, str] | None = None,
                 missing: tuple[str, ...] = ()) -> None:
        self.devices = devices
        self.init_error = init_error
        self.driver_version = driver_version
        self.cuda_version = cuda_version
        self.process_names = process_names or {}
        self.missing = set(missing)
        self.lost: set[int] = set()
        self.init_calls = 0
        self.shutdown_calls = 0
        self.initialised = 0

    def lose(self, index: int) -> None:
        """From now on every call on card ``index`` raises ``NVMLError_GpuIsLost``."""
        self.lost.add(index)

    # -- helpers
    def _check_init(self) -> None:
        if self.initialised <= 0:
            raise NVMLError(NVML_ERROR_UNINITIALIZED)

    def _dev(self, handle: Any) -> FakeDevice | FakeMigDevice:
        self._check_init()
        if handle.index in self.lost:
            raise NVMLError(NVML_ERROR_GPU_IS_LOST)
        device = self.devices[handle.index]
        mig = getattr(handle, "mig", None)
        return device if mig is None else device.mig_devices[mig]

    def _get(self, handle: Any, attr: str) -> Any:
        # A MIG slice's handle lacks most fields: NOT_SUPPORTED, as real NVML answers.
        value = getattr(self._dev(handle), attr, NA)
        if isinstance(value, Raise):
            raise NVMLError(value.code)
        return value

    # -- the NVML API
    def nvmlInit(self) -> None:
        self.init_calls += 1
        if self.init_error is not None:
            raise NVMLError(self.init_error)
        self.initialised += 1

    def nvmlShutdown(self) -> None:
        self._check_init()
        self.shutdown_calls += 1
        self.initialised -= 1

    def nvmlSystemGetDriverVersion(self) -> str:
        self._check_init()
        return self.driver_version

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._check_init()
        return self.cuda_version

    nvmlSystemGetCudaDriverVersion_v2 = nvmlSystemGetCudaDriverVersion

    def nvmlSystemGetProcessName(self, pid: int) -> str:
        self._check_init()
        if pid not in self.process_names:
            raise NVMLError(NVML_ERROR_NOT_FOUND)
        return self.process_names[pid]

    def nvmlDeviceGetCount(self) -> int:
        self._check_init()
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any:
        self._check_init()
        if not 0 <= index < len(self.devices):
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        if index in self.lost:
            raise NVMLError(NVML_ERROR_GPU_IS_LOST)
        return _Struct(index=index)

    def nvmlDeviceGetName(self, h):
        return self._get(h, "name")

    def nvmlDeviceGetUUID(self, h):
        return self._get(h, "uuid")

    def nvmlDeviceGetPciInfo(self, h):
        return _Struct(busId=self._get(h, "bus_id"))

    def nvmlDeviceGetMemoryInfo(self, h, version=None):
        d = self._dev(h)
        total = self._get(h, "memory_total")  # a Raise: NVML reports no framebuffer (GB10)
        return _Struct(total=total, used=d.memory_used, free=total - d.memory_used)

    def nvmlDeviceGetCudaComputeCapability(self, h):
        return self._get(h, "cuda_cc")

    def nvmlDeviceGetAttributes(self, h):
        return _Struct(multiprocessorCount=self._get(h, "sm_count"))

    nvmlDeviceGetAttributes_v2 = nvmlDeviceGetAttributes

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h):
        return self._get(h, "pcie_gen_current")

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h):
        return self._get(h, "pcie_gen_max")

    nvmlDeviceGetGpuMaxPcieLinkGeneration = nvmlDeviceGetMaxPcieLinkGeneration

    def nvmlDeviceGetCurrPcieLinkWidth(self, h):
        return self._get(h, "pcie_width_current")

    def nvmlDeviceGetMaxPcieLinkWidth(self, h):
        return self._get(h, "pcie_width_max")

    def nvmlDeviceGetNvLinkState(self, h, link):
        states = self._get(h, "nvlink")
        if link >= len(states):
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        return states[link]

    def nvmlDeviceGetPowerUsage(self, h):
        return self._get(h, "power_usage_mw")

    def nvmlDeviceGetEnforcedPowerLimit(self, h):
        return self._get(h, "power_limit_mw")

    nvmlDeviceGetPowerManagementLimit = nvmlDeviceGetEnforcedPowerLimit

    def nvmlDeviceGetPowerManagementDefaultLimit(self, h):
        return self._get(h, "power_default_mw")

    def nvmlDeviceGetPowerManagementLimitConstraints(self, h):
        return list(self._get(h, "power_constraints_mw"))

    def nvmlDeviceGetTemperature(self, h, sensor):
        assert sensor == NVML_TEMPERATURE_GPU
        return self._get(h, "temperature_c")

    def nvmlDeviceGetTemperatureThreshold(self, h, threshold):
        assert threshold == NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
        return self._get(h, "slowdown_c")

    def nvmlDeviceGetClockInfo(self, h, clock):
        return self._get(h, "clocks_mhz")[clock]

    def nvmlDeviceGetMaxClockInfo(self, h, clock):
        return self._get(h, "max_clocks_mhz")[clock]

    def nvmlDeviceGetUtilizationRates(self, h):
        gpu, memory = self._get(h, "utilization")
        return _Struct(gpu=gpu, memory=memory)

    def nvmlDeviceGetCurrentClocksEventReasons(self, h):
        return self._get(h, "throttle_mask")

    nvmlDeviceGetCurrentClocksThrottleReasons = nvmlDeviceGetCurrentClocksEventReasons

    def nvmlDeviceGetEccMode(self, h):
        return list(self._get(h, "ecc_mode"))

    def nvmlDeviceGetTotalEccErrors(self, h, error_type, counter_type):
        assert (error_type, counter_type) == (NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                              NVML_VOLATILE_ECC)
        return self._get(h, "ecc_uncorrected")

    def nvmlDeviceGetMigMode(self, h):
        return list(self._get(h, "mig_mode"))

    def nvmlDeviceGetMaxMigDeviceCount(self, h):
        if getattr(h, "mig", None) is not None:
            self._dev(h)
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        return self._get(h, "max_mig_devices")

    def nvmlDeviceGetMigDeviceHandleByIndex(self, h, index):
        device = self._dev(h)
        if getattr(h, "mig", None) is not None:
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        slots = self._get(h, "max_mig_devices")  # NOT_SUPPORTED without MIG
        mode = self._get(h, "mig_mode")
        if mode[0] != NVML_FEATURE_ENABLED or not 0 <= index < slots:
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        if index >= len(device.mig_devices) or device.mig_devices[index] is None:
            raise NVMLError(NVML_ERROR_NOT_FOUND)
        return _Struct(index=h.index, mig=index)

    def nvmlDeviceIsMigDeviceHandle(self, h):
        self._dev(h)
        return int(getattr(h, "mig", None) is not None)

    def nvmlDeviceGetDeviceHandleFromMigDeviceHandle(self, h):
        self._dev(h)
        if getattr(h, "mig", None) is None:
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        return _Struct(index=h.index)

    def nvmlDeviceGetGpuInstanceId(self, h):
        if getattr(h, "mig", None) is None:
            self._dev(h)
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        return self._get(h, "gpu_instance_id")

    def nvmlDeviceGetComputeInstanceId(self, h):
        if getattr(h, "mig", None) is None:
            self._dev(h)
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        return self._get(h, "compute_instance_id")

    def nvmlDeviceGetPersistenceMode(self, h):
        return self._get(h, "persistence")

    def _procs(self, h, attr):
        return [_Struct(pid=pid, usedGpuMemory=used) for pid, used in self._get(h, attr)]

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        return self._procs(h, "compute_procs")

    def nvmlDeviceGetGraphicsRunningProcesses(self, h):
        return self._procs(h, "graphics_procs")


_ERROR_CLASSES = {name: getattr(sys.modules[__name__], name)
                  for name in dir(sys.modules[__name__]) if name.startswith("NVMLError")}


def make_module(devices: list[FakeDevice] | None = None, **options: Any) -> types.ModuleType:
    """A fresh module object named ``pynvml`` serving ``devices``; ``module.fake`` controls it.

    Functions named in ``options["missing"]`` are absent (an old nvidia-ml-py).
    """
    fake = FakeNvml(list(devices or []), **options)
    module = types.ModuleType("pynvml")
    module.fake = fake  # type: ignore[attr-defined]
    for name, value in globals().items():
        if name.startswith("NVML_"):
            setattr(module, name, value)
    for name, cls in _ERROR_CLASSES.items():
        setattr(module, name, cls)
    for name in dir(FakeNvml):
        if name.startswith("nvml") and name not in fake.missing:
            setattr(module, name, getattr(fake, name))
    return module


# --------------------------------------------------------------------------- scenarios
def rtx_4090(**kw: Any) -> FakeDevice:
    """An idle RTX 4090 as NVML 550 reports it (24564 MiB)."""
    return FakeDevice(**kw)


def rtx_3090(**kw: Any) -> FakeDevice:
    base = {"name": "NVIDIA GeForce RTX 3090", "uuid": "GPU-3090aaaa-0000-0000-0000-000000000001",
            "bus_id": "00000000:21:00.0", "memory_total": 24576 * MIB, "memory_used": 300 * MIB,
            "cuda_cc": (8, 6), "sm_count": 82, "power_usage_mw": 30_500,
            "power_limit_mw": 350_000, "power_default_mw": 350_000,
            "power_constraints_mw": (100_000, 400_000), "nvlink": [0, 0, 0, 0],
            "clocks_mhz": {NVML_CLOCK_SM: 210, NVML_CLOCK_MEM: 405},
            "max_clocks_mhz": {NVML_CLOCK_SM: 2100, NVML_CLOCK_MEM: 9751},
            "throttle_mask": 0x1}
    base.update(kw)
    return FakeDevice(**base)


def rtx_3060_12gb(**kw: Any) -> FakeDevice:
    base = {"name": "NVIDIA GeForce RTX 3060", "uuid": "GPU-3060bbbb-0000-0000-0000-000000000002",
            "bus_id": "00000000:4b:00.0", "memory_total": 12288 * MIB, "memory_used": 210 * MIB,
            "cuda_cc": (8, 6), "sm_count": 28, "power_usage_mw": 14_800,
            "power_limit_mw": 170_000, "power_default_mw": 170_000,
            "power_constraints_mw": (100_000, 170_000)}
    base.update(kw)
    return FakeDevice(**base)


def h100_sxm(**kw: Any) -> FakeDevice:
    base = {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-h100cccc-0000-0000-0000-000000000003",
            "bus_id": "00000000:18:00.0", "memory_total": 81559 * MIB, "memory_used": 577 * MIB,
            "cuda_cc": (9, 0), "sm_count": 132, "nvlink": [1] * 18,
            "power_usage_mw": 71_000, "power_limit_mw": 700_000, "power_default_mw": 700_000,
            "power_constraints_mw": (200_000, 700_000), "ecc_mode": (1, 1),
            "ecc_uncorrected": 0, "mig_mode": (0, 0), "persistence": NVML_FEATURE_ENABLED,
            "pcie_gen_current": 5, "pcie_gen_max": 5, "slowdown_c": 87}
    base.update(kw)
    return FakeDevice(**base)


def a100_mig(slices: list[FakeMigDevice | None] | None = None, **kw: Any) -> FakeDevice:
    """An A100-SXM4-40GB in MIG mode, split as nvidia-smi's 3g.20gb + 2g.10gb + 1g.5gb by
    default (7 slots; the memory and SM figures are NVML's for those profiles)."""
    if slices is None:
        slices = [
            FakeMigDevice(),
            FakeMigDevice(name="NVIDIA A100-SXM4-40GB MIG 2g.10gb",
                          uuid="MIG-5c4b1e0a-2222-5b2a-9c3d-000000000002",
                          memory_total=9728 * MIB, memory_used=11 * MIB, sm_count=28,
                          gpu_instance_id=5, compute_instance_id=0),
            FakeMigDevice(name="NVIDIA A100-SXM4-40GB MIG 1g.5gb",
                          uuid="MIG-5c4b1e0a-3333-5b2a-9c3d-000000000003",
                          memory_total=4864 * MIB, memory_used=6 * MIB, sm_count=14,
                          gpu_instance_id=13, compute_instance_id=0),
        ]
    base = {"name": "NVIDIA A100-SXM4-40GB", "uuid": "GPU-a100dddd-0000-0000-0000-000000000004",
            "bus_id": "00000000:07:00.0", "memory_total": 40960 * MIB, "memory_used": 1024 * MIB,
            "cuda_cc": (8, 0), "sm_count": 108, "nvlink": [1] * 12,
            "power_usage_mw": 52_000, "power_limit_mw": 400_000, "power_default_mw": 400_000,
            "power_constraints_mw": (100_000, 400_000), "ecc_mode": (1, 1),
            "ecc_uncorrected": 0, "mig_mode": (1, 1), "max_mig_devices": 7,
            "mig_devices": slices, "persistence": NVML_FEATURE_ENABLED, "slowdown_c": 92}
    base.update(kw)
    return FakeDevice(**base)


def gb10(**kw: Any) -> FakeDevice:
    """NVIDIA GB10 (DGX Spark): unified memory, so NVML answers NOT_SUPPORTED for the memory
    info (nvidia-smi prints "Not Supported"; XuehaiPan/nvitop PR 208, leptonai/gpud PR 1170),
    and there is no PCIe link to report; compute capability 12.1, 48 SMs (torch device
    properties in GuigsEvt/dgx_spark_config issue 1)."""
    base = {"name": "NVIDIA GB10", "uuid": "GPU-gb10aaaa-0000-0000-0000-000000000001",
            "bus_id": "0000000F:01:00.0", "memory_total": NA, "memory_used": 0,
            "cuda_cc": (12, 1), "sm_count": 48, "pcie_gen_current": NA, "pcie_gen_max": NA,
            "pcie_width_current": NA, "pcie_width_max": NA, "power_limit_mw": NA,
            "power_default_mw": NA, "power_constraints_mw": NA}
    base.update(kw)
    return FakeDevice(**base)


def unsupported_fields_device() -> FakeDevice:
    """A card whose power and utilization NVML reports as not supported."""
    return rtx_3090(power_usage_mw=NA, power_limit_mw=NA, power_default_mw=NA,
                    power_constraints_mw=NA, utilization=NA)
