"""Host facts: CPU name and cores, RAM total and available, swap, and disks per mount.

Counts and sizes come from ``psutil`` on Linux, Windows and macOS; when psutil cannot be
imported (a trimmed install), from the system's own files and tools: ``/proc/cpuinfo`` and
``/proc/meminfo`` on Linux, ``sysctl`` on macOS (no available-RAM figure there), nothing on
Windows. The CPU's marketing name is read per system, since psutil has none: ``model name`` in
``/proc/cpuinfo``, the registry's ``ProcessorNameString`` on Windows (``platform.processor()``
gives only "Intel64 Family 6 Model 183 Stepping 1, GenuineIntel" there), and
``sysctl machdep.cpu.brand_string`` on macOS.

Every reader takes its source as an argument (a fake psutil, registry or ``/proc`` tree in
tests) and returns ``None`` for what it cannot read; none raises.
"""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import DiskInfo

Runner = Callable[..., subprocess.CompletedProcess]

#: Where Windows keeps the first CPU's name (``HKEY_LOCAL_MACHINE``).
WINDOWS_CPU_KEY = r"HARDWARE\DESCRIPTION\System\CentralProcessor\0"
#: File systems that are never a place to keep data (snap images, RAM disks, CD images).
SKIPPED_FSTYPES = frozenset({"squashfs", "tmpfs", "devtmpfs", "iso9660", "udf", "ramfs"})
#: At most this many disks are listed (a server may mount hundreds).
MAX_DISKS = 16


def import_psutil() -> ModuleType | None:
    """``psutil``, or ``None`` when it cannot be imported."""
    try:
        import psutil
    except ImportError:
        return None
    return psutil


# --------------------------------------------------------------------------- CPU name
def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def linux_cpu(root: str | os.PathLike[str] = "/") -> tuple[str | None, int | None]:
    """``(model name, physical cores)`` from ``<root>/proc/cpuinfo``; ``None`` where absent.

    Physical cores are the distinct (``physical id``, ``core id``) pairs.
    """
    text = _read(Path(root) / "proc/cpuinfo")
    if not text:
        return None, None
    model = None
    cores: set[tuple[str, str]] = set()
    physical = core = None
    for line in [*text.splitlines(), ""]:
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "model name" and model is None:
            model = value or None
        elif key == "physical id":
            physical = value
        elif key == "core id":
            core = value
        elif not key:
            if physical is not None and core is not None:
                cores.add((physical, core))
            physical = core = None
    return model, len(cores) or None


def windows_cpu_name(registry: Any = None) -> str | None:
    """The CPU's name as Windows shows it (``ProcessorNameString``), e.g.
    ``"13th Gen Intel(R) Core(TM) i9-13900K"``.

    Args:
        registry: The ``winreg`` module or a stand-in; imported when ``None`` (Windows only).
    """
    if registry is None:
        try:
            import winreg as registry  # type: ignore[no-redef]
        except ImportError:
            return None
    try:
        with registry.OpenKey(registry.HKEY_LOCAL_MACHINE, WINDOWS_CPU_KEY) as key:
            value, _kind = registry.QueryValueEx(key, "ProcessorNameString")
    except OSError:
        return None
    return " ".join(str(value).split()) or None  # Windows pads some names with spaces


def sysctl(name: str, run: Runner = subprocess.run) -> str | None:
    """``sysctl -n name`` (macOS, BSD), or ``None`` when it fails."""
    try:
        proc = run(["sysctl", "-n", name], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (proc.stdout or "").strip() or None if proc.returncode == 0 else None


def mac_cpu_name(run: Runner = subprocess.run) -> str | None:
    """The CPU's name on macOS, e.g. ``"Apple M2 Max"`` (``machdep.cpu.brand_string``)."""
    return sysctl("machdep.cpu.brand_string", run)


def cpu_name(system: str, *, root: str | os.PathLike[str] = "/", run: Runner = subprocess.run,
             registry: Any = None) -> str | None:
    """The CPU's marketing name on ``system`` (``platform.system()``), else what
    ``platform.processor()`` says, else ``None``."""
    name = None
    if system == "Linux":
        name = linux_cpu(root)[0]
    elif system == "Windows":
        name = windows_cpu_name(registry)
    elif system == "Darwin":
        name = mac_cpu_name(run)
    return name or platform.processor() or None


# --------------------------------------------------------------------------- counts and sizes
@dataclass(frozen=True)
class HostFacts:
    """Counts and sizes of the host (``None`` where unknown), and where they come from.

    Attributes:
        cores_physical / cores_logical: CPU cores and hardware threads.
        ram_total_bytes / ram_available_bytes: RAM, and what programs can still take
            without swapping.
        swap_total_bytes / swap_free_bytes: Swap.
        disks: Mounted disks, once per device.
        source: ``"psutil"`` or ``"system"``.
    """

    cores_physical: int | None = None
    cores_logical: int | None = None
    ram_total_bytes: int | None = None
    ram_available_bytes: int | None = None
    swap_total_bytes: int | None = None
    swap_free_bytes: int | None = None
    disks: tuple[DiskInfo, ...] = ()
    source: str = "system"


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(...)``, or ``None`` when psutil cannot tell (no permission, not on this system)."""
    try:
        return fn(*args, **kwargs)
    except Exception:  # psutil raises OSError, RuntimeError, NotImplementedError, its own
        return None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and value >= 0 else None


def psutil_disks(psutil: ModuleType, limit: int = MAX_DISKS) -> tuple[DiskInfo, ...]:
    """Mounted disks from psutil's physical partitions: one per device (its shortest
    mount point, so ``/`` before a bind mount of it), RAM disks and snap images left out,
    and drives that do not answer (an empty card reader) skipped. Sorted by mount point."""
    parts = _call(psutil.disk_partitions, all=False) or []
    seen: set[str] = set()
    out: list[DiskInfo] = []
    for part in sorted(parts, key=lambda p: (len(p.mountpoint), p.mountpoint)):
        fstype = (part.fstype or "").lower()
        device = part.device or part.mountpoint
        if fstype in SKIPPED_FSTYPES or device in seen or not os.path.isdir(part.mountpoint):
            continue
        usage = _call(psutil.disk_usage, part.mountpoint)
        if usage is None:
            continue
        seen.add(device)
        out.append(DiskInfo(mountpoint=part.mountpoint, device=part.device or None,
                            fstype=part.fstype or None, total_bytes=_int(usage.total),
                            free_bytes=_int(usage.free)))
        if len(out) >= limit:
            break
    return tuple(sorted(out, key=lambda d: d.mountpoint))


def psutil_memory(psutil: ModuleType) -> tuple[int | None, int | None]:
    """``(total, available)`` RAM in bytes from psutil."""
    memory = _call(psutil.virtual_memory)
    if memory is None:
        return None, None
    return _int(getattr(memory, "total", None)), _int(getattr(memory, "available", None))


def psutil_facts(psutil: ModuleType) -> HostFacts:
    """Cores, RAM, swap and disks as psutil reports them."""
    total, available = psutil_memory(psutil)
    swap = _call(psutil.swap_memory)
    return HostFacts(
        cores_physical=_int(_call(psutil.cpu_count, logical=False)) or None,
        cores_logical=_int(_call(psutil.cpu_count, logical=True)) or None,
        ram_total_bytes=total,
        ram_available_bytes=available,
        swap_total_bytes=_int(getattr(swap, "total", None)),
        swap_free_bytes=_int(getattr(swap, "free", None)),
        disks=psutil_disks(psutil),
        source="psutil",
    )


def linux_meminfo(root: str | os.PathLike[str] = "/") -> dict[str, int]:
    """``<root>/proc/meminfo`` in bytes by key (``MemTotal``, ``MemAvailable``, ``SwapTotal``,
    ``SwapFree``, ...)."""
    values: dict[str, int] = {}
    for line in (_read(Path(root) / "proc/meminfo") or "").splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key.strip()] = int(parts[0]) * 1024  # kB
    return values


def system_facts(system: str, *, root: str | os.PathLike[str] = "/",
                 run: Runner = subprocess.run) -> HostFacts:
    """Cores, RAM and swap without psutil: ``/proc`` on Linux, ``sysctl`` on macOS (total RAM
    only), the logical core count elsewhere."""
    physical = total = available = swap_total = swap_free = None
    if system == "Linux":
        physical = linux_cpu(root)[1]
        meminfo = linux_meminfo(root)
        total, available = meminfo.get("MemTotal"), meminfo.get("MemAvailable")
        swap_total, swap_free = meminfo.get("SwapTotal"), meminfo.get("SwapFree")
    elif system == "Darwin":
        cores = sysctl("hw.physicalcpu", run)
        physical = int(cores) if cores and cores.isdigit() else None
        memsize = sysctl("hw.memsize", run)
        total = int(memsize) if memsize and memsize.isdigit() else None
    return HostFacts(cores_physical=physical, cores_logical=os.cpu_count(),
                     ram_total_bytes=total, ram_available_bytes=available,
                     swap_total_bytes=swap_total, swap_free_bytes=swap_free, source="system")


def host_facts(system: str | None = None, *, psutil: Any = None,
               root: str | os.PathLike[str] = "/", run: Runner = subprocess.run) -> HostFacts:
    """The host's counts and sizes: psutil's where it is importable, the system's otherwise.

    Args:
        system: ``platform.system()`` (tests pass another).
        psutil: The psutil module or a stand-in; imported when ``None``; ``False`` to read the
            system's files instead.
        root: File-system root for ``/proc`` when psutil is not used.
        run: Runner for ``sysctl`` when psutil is not used.
    """
    system = system or platform.system()
    module = import_psutil() if psutil is None else (psutil or None)
    if module is None:
        return system_facts(system, root=root, run=run)
    facts = psutil_facts(module)
    if facts.cores_physical is None and system == "Linux":  # some containers hide topology
        from dataclasses import replace

        facts = replace(facts, cores_physical=linux_cpu(root)[1])
    return facts


def available_ram(psutil: Any = None, *, system: str | None = None,
                  root: str | os.PathLike[str] = "/",
                  run: Runner = subprocess.run) -> tuple[int | None, int | None]:
    """``(total, available)`` RAM in bytes, quickly (no disks, no CPU name): for checking a
    plan's offload against this machine. Arguments as for :func:`host_facts`."""
    module = import_psutil() if psutil is None else (psutil or None)
    if module is not None:
        return psutil_memory(module)
    facts = system_facts(system or platform.system(), root=root, run=run)
    return facts.ram_total_bytes, facts.ram_available_bytes


__all__ = ["MAX_DISKS", "SKIPPED_FSTYPES", "WINDOWS_CPU_KEY", "HostFacts", "available_ram",
           "cpu_name", "host_facts", "import_psutil", "linux_cpu", "linux_meminfo",
           "mac_cpu_name", "psutil_disks", "psutil_facts", "psutil_memory", "sysctl",
           "system_facts", "windows_cpu_name"]
