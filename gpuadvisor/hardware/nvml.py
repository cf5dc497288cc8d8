"""NVIDIA GPUs through NVML (the ``nvidia-ml-py`` distribution, module ``pynvml``).

The only module of gpuadvisor that imports ``pynvml``, and only inside functions: importing
this module never touches the driver. NVML is initialised once per process while any backend is
open (reference-counted, like NVML itself) and shut down when the last one closes.

Every field is read through :meth:`_Reader.call`, which turns NVML's "not supported", "no
permission", "function not found" (old driver) and any other per-field error into ``None``
("n/a") instead of raising. "GPU is lost" (the card fell off the bus) marks that one card
``lost``; the others are still read. When NVML cannot start at all (library missing, driver not
loaded, WSL without the Windows driver's NVML, a container started without GPU access),
:func:`open_backend` raises :class:`NvmlUnavailable` carrying ONE actionable hint.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import GpuInfo, GpuProcess, HiddenGpu, MigSlice, throttle_reason_names
from .visible import VARIABLE as CUDA_VISIBLE_DEVICES
from .visible import apply_cuda_visible_devices

# NVML return codes (nvml.h; stable ABI). Compared by value so that any NVMLError subclass,
# from any nvidia-ml-py version, is classified the same way.
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18
NVML_ERROR_UNKNOWN = 999

#: Per-field errors that mean "this card/driver does not offer it": shown as n/a.
NOT_APPLICABLE_CODES = frozenset({
    NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NO_PERMISSION, NVML_ERROR_FUNCTION_NOT_FOUND,
    NVML_ERROR_NOT_FOUND, NVML_ERROR_INVALID_ARGUMENT,
})

# Enum values used as arguments (nvml.h).
_TEMPERATURE_GPU = 0
_TEMPERATURE_THRESHOLD_SLOWDOWN = 1
_CLOCK_SM = 1
_CLOCK_MEM = 2
_MEMORY_ERROR_TYPE_UNCORRECTED = 1
_VOLATILE_ECC = 0
_FEATURE_ENABLED = 1
_NVLINK_MAX_LINKS = 18  # Hopper and Blackwell have 18 links; newer headers allow more
_VALUE_NOT_AVAILABLE = 2**64 - 1
_UINT_MAX = 2**32 - 1  # an instance id NVML cannot tell

WSL_NVML_DIR = "/usr/lib/wsl/lib"


class NvmlUnavailable(Exception):
    """NVML cannot be used on this machine.

    Attributes:
        reason: Short machine-readable reason: ``not-installed``, ``library-not-found``,
            ``driver-not-loaded``, ``uninitialized``, ``no-permission``,
            ``version-mismatch`` or ``error``.
        hint: One actionable sentence for the user.
    """

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__(hint)
        self.reason = reason
        self.hint = hint


class _GpuLost(Exception):
    """Internal: NVML said "GPU is lost" while reading a card."""


# --------------------------------------------------------------------------- environment
@dataclass(frozen=True)
class Environment:
    """What decides which hint fits when NVML is missing.

    Attributes:
        is_wsl: Running under Windows Subsystem for Linux.
        in_container: Running inside a Docker/Podman/Kubernetes container.
        nvidia_pci_present: An NVIDIA display device is on the PCI bus (sysfs), i.e. the
            hardware is there but the driver is not.
    """

    is_wsl: bool = False
    in_container: bool = False
    nvidia_pci_present: bool = False

    @classmethod
    def probe(cls, root: str | os.PathLike[str] = "/") -> Environment:
        """Look at ``root`` (``/`` on a real machine; a fake tree in tests)."""
        base = Path(root)
        version = _read_text(base / "proc/version") or ""
        is_wsl = "microsoft" in version.lower() or (base / WSL_NVML_DIR.lstrip("/")).is_dir()
        cgroup = _read_text(base / "proc/1/cgroup") or ""
        in_container = (
            (base / ".dockerenv").exists()
            or (base / "run/.containerenv").exists()
            or any(word in cgroup for word in ("docker", "kubepods", "containerd", "libpod"))
        )
        nvidia = False
        pci = base / "sys/bus/pci/devices"
        if pci.is_dir():
            for dev in pci.iterdir():
                vendor = (_read_text(dev / "vendor") or "").strip().lower()
                klass = (_read_text(dev / "class") or "").strip().lower()
                if vendor == "0x10de" and klass.startswith("0x03"):
                    nvidia = True
                    break
        return cls(is_wsl=is_wsl, in_container=in_container, nvidia_pci_present=nvidia)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def unavailable_hint(reason: str, env: Environment) -> str:
    """The ONE actionable hint for an NVML start failure, chosen by where we run."""
    if reason == "not-installed":
        return ("The NVIDIA NVML bindings are not installed: pip install nvidia-ml-py "
                "(not the deprecated 'pynvml' package).")
    if reason == "version-mismatch":
        return ("The NVIDIA driver was updated but the old kernel module is still loaded "
                "(NVML/driver version mismatch): reboot.")
    if reason == "no-permission":
        return ("NVML was refused access to the GPU: check permissions on /dev/nvidia* "
                "(your user may need to be in the 'video' group).")
    if env.is_wsl:
        return ("No usable NVML under WSL: install or update the NVIDIA driver on Windows (not "
                f"inside WSL); WSL's NVML lives in {WSL_NVML_DIR} — make sure that folder is on "
                "the library path (ldconfig).")
    if env.in_container:
        return ("No NVIDIA driver is visible in this container: start it with GPU access "
                "(docker run --gpus all, with the NVIDIA Container Toolkit installed on the host).")
    if reason == "driver-not-loaded":
        return ("The NVIDIA driver is installed but not loaded: reboot, or run "
                "'sudo modprobe nvidia' (Secure Boot can block unsigned modules); "
                "nvidia-smi should then list the GPU.")
    if env.nvidia_pci_present:
        return ("An NVIDIA GPU is present but its driver is not installed (libnvidia-ml not "
                "found): install the NVIDIA driver, then check with nvidia-smi.")
    return ("No NVIDIA driver found (libnvidia-ml missing). If this machine has an NVIDIA "
            "GPU, install its driver and check with nvidia-smi.")


def _reason_for_code(code: int | None) -> str:
    return {
        NVML_ERROR_LIBRARY_NOT_FOUND: "library-not-found",
        NVML_ERROR_DRIVER_NOT_LOADED: "driver-not-loaded",
        NVML_ERROR_UNINITIALIZED: "uninitialized",
        NVML_ERROR_NO_PERMISSION: "no-permission",
        NVML_ERROR_LIB_RM_VERSION_MISMATCH: "version-mismatch",
    }.get(code, "error")  # type: ignore[arg-type]


def deprecated_pynvml_hint(
    distribution: Callable[[str], Any] = importlib.metadata.distribution,
) -> str | None:
    """A hint when the deprecated ``pynvml`` distribution is installed, else ``None``.

    Old ``pynvml`` releases (< 12) ship their own ``pynvml.py``, which overwrites or shadows the
    one from ``nvidia-ml-py`` and lags behind new drivers. Newer ones are a thin wrapper around
    nvidia-ml-py and do no harm, so they get no hint.
    """
    try:
        dist = distribution("pynvml")
    except importlib.metadata.PackageNotFoundError:
        return None
    files = getattr(dist, "files", None)
    if files is not None:
        ships_module = any(str(f).replace("\\", "/") in ("pynvml.py", "pynvml/__init__.py")
                           for f in files)
    else:
        major = str(getattr(dist, "version", "0")).split(".")[0]
        ships_module = not major.isdigit() or int(major) < 12
    if not ships_module:
        return None
    version = getattr(dist, "version", "?")
    return (f"The deprecated 'pynvml' package ({version}) is installed and its pynvml module "
            "shadows nvidia-ml-py's: pip uninstall pynvml && pip install --force-reinstall "
            "nvidia-ml-py")


# --------------------------------------------------------------------------- init once
_lock = threading.Lock()
_session: dict[str, Any] = {"module": None, "refs": 0}


def _import_pynvml() -> ModuleType:
    import pynvml  # the one place gpuadvisor imports it

    return pynvml


def _acquire(env: Environment | None) -> ModuleType:
    """Import pynvml and initialise NVML once; raise NvmlUnavailable with a hint."""
    try:
        module = _import_pynvml()
    except ImportError:
        raise NvmlUnavailable("not-installed", unavailable_hint("not-installed",
                                                                 env or Environment())) from None
    with _lock:
        if _session["module"] is module and _session["refs"] > 0:
            _session["refs"] += 1
            return module
        try:
            module.nvmlInit()
        except module.NVMLError as exc:
            reason = _reason_for_code(getattr(exc, "value", None))
            env = env if env is not None else Environment.probe()
            hint = unavailable_hint(reason, env)
            if reason == "error":
                hint = f"NVML failed to start ({exc}). {hint}"
            raise NvmlUnavailable(reason, hint) from None
        except OSError as exc:  # a broken libnvidia-ml (wrong architecture, missing symbols)
            env = env if env is not None else Environment.probe()
            raise NvmlUnavailable("library-not-found",
                                  f"{unavailable_hint('library-not-found', env)} ({exc})") from None
        _session["module"] = module
        _session["refs"] = 1
        return module


def _release(module: ModuleType) -> None:
    with _lock:
        if _session["module"] is not module or _session["refs"] <= 0:
            return
        _session["refs"] -= 1
        if _session["refs"] == 0:
            _session["module"] = None
            with contextlib.suppress(module.NVMLError):
                module.nvmlShutdown()


# --------------------------------------------------------------------------- reading
class _Reader:
    """Calls NVML functions by name; every failure but "GPU is lost" becomes ``None``."""

    def __init__(self, module: ModuleType) -> None:
        self._nv = module

    def call(self, names: str | Iterable[str], *args: Any) -> Any:
        """Call the first of ``names`` the bindings have; ``None`` for n/a.

        Raises:
            _GpuLost: NVML said the GPU is lost.
        """
        for name in (names,) if isinstance(names, str) else names:
            fn = getattr(self._nv, name, None)
            if fn is None:
                continue
            try:
                return fn(*args)
            except self._nv.NVMLError as exc:
                if getattr(exc, "value", None) == NVML_ERROR_GPU_IS_LOST:
                    raise _GpuLost from None
                return None
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _watts(milliwatts: Any) -> float | None:
    return None if milliwatts is None else milliwatts / 1000.0


def _pair_first(value: Any) -> Any:
    """NVML returns (current, pending) pairs for ECC and MIG mode."""
    if value is None:
        return None
    try:
        return value[0]
    except (TypeError, IndexError):
        return value


def _bool(value: Any) -> bool | None:
    return None if value is None else value == _FEATURE_ENABLED


def _cuda_version(value: Any) -> str | None:
    if not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def _process_name(reader: _Reader, pid: int) -> str | None:
    name = _text(reader.call("nvmlSystemGetProcessName", pid))
    if name:
        return os.path.basename(name)
    comm = _read_text(Path(f"/proc/{pid}/comm"))
    return comm.strip() if comm else None


def _processes(reader: _Reader, handle: Any) -> tuple[GpuProcess, ...] | None:
    compute = reader.call("nvmlDeviceGetComputeRunningProcesses", handle)
    graphics = reader.call("nvmlDeviceGetGraphicsRunningProcesses", handle)
    if compute is None and graphics is None:
        return None
    by_pid: dict[int, GpuProcess] = {}
    for proc in [*(compute or []), *(graphics or [])]:
        pid = int(proc.pid)
        used = getattr(proc, "usedGpuMemory", None)
        if used is not None and used >= _VALUE_NOT_AVAILABLE:
            used = None
        if pid in by_pid:
            continue
        by_pid[pid] = GpuProcess(pid=pid, name=_process_name(reader, pid), used_bytes=used)
    return tuple(by_pid.values())


def _nvlink_active(reader: _Reader, handle: Any) -> int | None:
    active = 0
    supported = False
    for link in range(_NVLINK_MAX_LINKS):
        state = reader.call("nvmlDeviceGetNvLinkState", handle, link)
        if state is None:
            continue
        supported = True
        active += state == _FEATURE_ENABLED
    return active if supported else None


def _compute_capability(value: Any) -> str | None:
    if value is None:
        return None
    major, minor = value
    return f"{major}.{minor}"


def read_device(module: ModuleType, index: int, driver_version: str | None,
                cuda_driver_version: str | None) -> GpuInfo:
    """Read every field of NVML device ``index``.

    Raises:
        _GpuLost: the card stopped answering (handled by the backend).
    """
    r = _Reader(module)
    handle = r.call("nvmlDeviceGetHandleByIndex", index)
    if handle is None:
        raise _GpuLost
    memory = r.call("nvmlDeviceGetMemoryInfo", handle)
    pci = r.call("nvmlDeviceGetPciInfo", handle)
    util = r.call("nvmlDeviceGetUtilizationRates", handle)
    attributes = r.call(("nvmlDeviceGetAttributes_v2", "nvmlDeviceGetAttributes"), handle)
    limits = r.call("nvmlDeviceGetPowerManagementLimitConstraints", handle)
    reasons = r.call(("nvmlDeviceGetCurrentClocksEventReasons",
                      "nvmlDeviceGetCurrentClocksThrottleReasons"), handle)
    ecc_mode = _pair_first(r.call("nvmlDeviceGetEccMode", handle))
    ecc_errors = None
    if ecc_mode:
        ecc_errors = r.call("nvmlDeviceGetTotalEccErrors", handle,
                            _MEMORY_ERROR_TYPE_UNCORRECTED, _VOLATILE_ECC)
    temp = r.call("nvmlDeviceGetTemperature", handle, _TEMPERATURE_GPU)
    slowdown = r.call("nvmlDeviceGetTemperatureThreshold", handle, _TEMPERATURE_THRESHOLD_SLOWDOWN)
    return GpuInfo(
        index=index,
        name=_text(r.call("nvmlDeviceGetName", handle)) or f"NVIDIA GPU {index}",
        vendor="nvidia",
        backend="nvml",
        uuid=_text(r.call("nvmlDeviceGetUUID", handle)),
        pci_bus_id=_text(getattr(pci, "busId", None)),
        memory_total_bytes=getattr(memory, "total", None),
        memory_used_bytes=getattr(memory, "used", None),
        memory_free_bytes=getattr(memory, "free", None),
        driver_version=driver_version,
        cuda_driver_version=cuda_driver_version,
        compute_capability=_compute_capability(
            r.call("nvmlDeviceGetCudaComputeCapability", handle)),
        sm_count=getattr(attributes, "multiprocessorCount", None),
        pcie_gen_current=r.call("nvmlDeviceGetCurrPcieLinkGeneration", handle),
        pcie_gen_max=r.call(("nvmlDeviceGetGpuMaxPcieLinkGeneration",
                             "nvmlDeviceGetMaxPcieLinkGeneration"), handle),
        pcie_width_current=r.call("nvmlDeviceGetCurrPcieLinkWidth", handle),
        pcie_width_max=r.call("nvmlDeviceGetMaxPcieLinkWidth", handle),
        nvlink_links_active=_nvlink_active(r, handle),
        power_draw_w=_watts(r.call("nvmlDeviceGetPowerUsage", handle)),
        power_limit_w=_watts(r.call(("nvmlDeviceGetEnforcedPowerLimit",
                                     "nvmlDeviceGetPowerManagementLimit"), handle)),
        power_default_limit_w=_watts(r.call("nvmlDeviceGetPowerManagementDefaultLimit", handle)),
        power_min_limit_w=_watts(limits[0]) if limits else None,
        power_max_limit_w=_watts(limits[1]) if limits else None,
        temperature_c=None if temp is None else float(temp),
        temperature_slowdown_c=None if slowdown is None else float(slowdown),
        sm_clock_mhz=r.call("nvmlDeviceGetClockInfo", handle, _CLOCK_SM),
        sm_clock_max_mhz=r.call("nvmlDeviceGetMaxClockInfo", handle, _CLOCK_SM),
        mem_clock_mhz=r.call("nvmlDeviceGetClockInfo", handle, _CLOCK_MEM),
        mem_clock_max_mhz=r.call("nvmlDeviceGetMaxClockInfo", handle, _CLOCK_MEM),
        utilization_gpu_pct=None if util is None else float(util.gpu),
        utilization_mem_pct=None if util is None else float(util.memory),
        throttle_reasons=None if reasons is None else throttle_reason_names(int(reasons)),
        ecc_enabled=_bool(ecc_mode),
        ecc_errors_uncorrected=ecc_errors,
        mig_enabled=_bool(_pair_first(r.call("nvmlDeviceGetMigMode", handle))),
        persistence_mode=_bool(r.call("nvmlDeviceGetPersistenceMode", handle)),
        processes=_processes(r, handle),
    )


def _instance_id(value: Any) -> int | None:
    return None if value is None or value == _UINT_MAX else int(value)


def read_mig_slices(module: ModuleType, parent: GpuInfo, first_index: int) -> list[GpuInfo]:
    """The MIG slices of card ``parent`` (in MIG mode), numbered from ``first_index``.

    A slice answers for its own name (``"NVIDIA A100-SXM4-40GB MIG 3g.20gb"``), UUID
    (``MIG-…``), memory, SMs, instance ids and processes; power, clocks, temperature and links
    are the card's, so they are left n/a on the slice. An empty slot is skipped.

    Raises:
        _GpuLost: the card stopped answering.
    """
    r = _Reader(module)
    handle = r.call("nvmlDeviceGetHandleByIndex", parent.index)
    count = r.call("nvmlDeviceGetMaxMigDeviceCount", handle) if handle is not None else None
    slices: list[GpuInfo] = []
    for mig_index in range(int(count or 0)):
        mig = r.call("nvmlDeviceGetMigDeviceHandleByIndex", handle, mig_index)
        if mig is None:  # NVML_ERROR_NOT_FOUND: no slice in this slot
            continue
        memory = r.call("nvmlDeviceGetMemoryInfo", mig)
        attributes = r.call(("nvmlDeviceGetAttributes_v2", "nvmlDeviceGetAttributes"), mig)
        slices.append(GpuInfo(
            index=first_index + len(slices),
            name=_text(r.call("nvmlDeviceGetName", mig)) or f"{parent.name} MIG {mig_index}",
            vendor="nvidia",
            backend="nvml",
            uuid=_text(r.call("nvmlDeviceGetUUID", mig)),
            pci_bus_id=parent.pci_bus_id,
            memory_total_bytes=getattr(memory, "total", None),
            memory_used_bytes=getattr(memory, "used", None),
            memory_free_bytes=getattr(memory, "free", None),
            driver_version=parent.driver_version,
            cuda_driver_version=parent.cuda_driver_version,
            compute_capability=parent.compute_capability,
            sm_count=getattr(attributes, "multiprocessorCount", None),
            ecc_enabled=parent.ecc_enabled,
            processes=_processes(r, mig),
            mig=MigSlice(parent.index, mig_index,
                         _instance_id(r.call("nvmlDeviceGetGpuInstanceId", mig)),
                         _instance_id(r.call("nvmlDeviceGetComputeInstanceId", mig))),
        ))
    return slices


# --------------------------------------------------------------------------- backend
_FROM_ENVIRONMENT: Any = object()


class NvmlBackend:
    """:class:`~gpuadvisor.hardware.base.GpuBackend` over NVML. Open with :func:`open_backend`."""

    name = "nvml"

    def __init__(self, module: ModuleType, *,
                 cuda_visible_devices: str | None = _FROM_ENVIRONMENT,
                 cuda_device_order: str | None = _FROM_ENVIRONMENT) -> None:
        """Serve the cards of ``module``; ``CUDA_VISIBLE_DEVICES`` and ``CUDA_DEVICE_ORDER``
        are read from the environment on each refresh unless given here (tests)."""
        self._nv: ModuleType | None = module
        self._reader = _Reader(module)
        self._snapshot: list[GpuInfo] | None = None
        self._known: dict[int, GpuInfo] = {}
        self._visible_devices = cuda_visible_devices
        self._device_order = cuda_device_order
        #: Devices ``CUDA_VISIBLE_DEVICES`` hides, as of the last refresh.
        self.hidden: tuple[HiddenGpu, ...] = ()
        #: Lines for the user about what is hidden and how CUDA reads the variable.
        self.notes: tuple[str, ...] = ()
        #: ``CUDA_VISIBLE_DEVICES`` as read at the last refresh (``None``: unset).
        self.cuda_visible_devices: str | None = None

    def refresh(self) -> None:
        """Re-read every card and its MIG slices; a lost card is kept, marked ``lost``.
        What ``CUDA_VISIBLE_DEVICES`` hides is left out (see :attr:`hidden`)."""
        if self._nv is None:
            raise RuntimeError("NVML backend is closed")
        nv = self._nv
        try:
            count = self._reader.call("nvmlDeviceGetCount") or 0
            driver = _text(self._reader.call("nvmlSystemGetDriverVersion"))
            cuda = _cuda_version(self._reader.call(("nvmlSystemGetCudaDriverVersion_v2",
                                                    "nvmlSystemGetCudaDriverVersion")))
        except _GpuLost:
            count, driver, cuda = 0, None, None
        indices = sorted(set(range(count)) | set(self._known))
        cards = []
        for index in indices:
            try:
                info = read_device(nv, index, driver, cuda)
            except _GpuLost:
                info = self._lost_record(index)
            self._known[index] = info
            cards.append(info)
        next_index = indices[-1] + 1 if indices else 0
        devices: list[GpuInfo] = []
        for card in cards:
            devices.append(card)
            if card.is_mig_parent:
                try:
                    slices = read_mig_slices(nv, card, next_index)
                except _GpuLost:
                    slices = []
                devices.extend(slices)
                next_index += len(slices)
        value = self._setting(self._visible_devices, CUDA_VISIBLE_DEVICES)
        seen = apply_cuda_visible_devices(
            devices, value, self._setting(self._device_order, "CUDA_DEVICE_ORDER"))
        self._snapshot = list(seen.visible)
        self.hidden, self.notes, self.cuda_visible_devices = seen.hidden, seen.notes, value

    @staticmethod
    def _setting(given: str | None, name: str) -> str | None:
        return os.environ.get(name) if given is _FROM_ENVIRONMENT else given

    def _lost_record(self, index: int) -> GpuInfo:
        before = self._known.get(index)
        return GpuInfo(
            index=index,
            name=before.name if before else f"NVIDIA GPU {index}",
            vendor="nvidia",
            backend="nvml",
            uuid=before.uuid if before else None,
            pci_bus_id=before.pci_bus_id if before else None,
            memory_total_bytes=before.memory_total_bytes if before else None,
            driver_version=before.driver_version if before else None,
            lost=True,
        )

    def devices(self) -> list[GpuInfo]:
        """The cards as of the last refresh (the first call refreshes)."""
        if self._snapshot is None:
            self.refresh()
        return list(self._snapshot or [])

    def close(self) -> None:
        """Shut NVML down if this was the last open backend; safe to call twice."""
        if self._nv is not None:
            _release(self._nv)
            self._nv = None

    def __enter__(self) -> NvmlBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_backend(env: Environment | None = None, **options: Any) -> NvmlBackend:
    """Start NVML (once per process) and return a backend.

    Args:
        env: Where we run, for the hint; probed from ``/`` when needed and not given.
        options: ``cuda_visible_devices`` / ``cuda_device_order`` instead of the
            environment's (see :class:`NvmlBackend`).

    Raises:
        NvmlUnavailable: NVML cannot be used; ``.hint`` says what to do.
    """
    return NvmlBackend(_acquire(env), **options)
