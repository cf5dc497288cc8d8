"""A fake ``psutil`` answering with psutil's own record shapes (``svmem``, ``sswap``,
``sdiskpart``, ``sdiskusage``: named tuples with these fields), for host-fact tests."""

from __future__ import annotations

import types
from collections import namedtuple
from typing import Any

GIB = 1024**3

svmem = namedtuple("svmem", "total available percent used free")
sswap = namedtuple("sswap", "total used free percent sin sout")
sdiskpart = namedtuple("sdiskpart", "device mountpoint fstype opts")
sdiskusage = namedtuple("sdiskusage", "total used free percent")


def make_psutil(*, physical: int | None = 8, logical: int | None = 16,
                total: int = 64 * GIB, available: int = 40 * GIB,
                swap_total: int = 8 * GIB, swap_free: int = 6 * GIB,
                partitions: list[tuple[str, str, str]] | None = None,
                usage: dict[str, Any] | None = None,
                failing: tuple[str, ...] = ()) -> types.ModuleType:
    """A module named ``psutil``.

    Args:
        partitions: ``(device, mountpoint, fstype)`` per partition.
        usage: mountpoint -> ``(total, free)`` or an exception to raise (an empty drive).
        failing: Function names that raise ``OSError`` (no permission, not implemented).
    """
    module = types.ModuleType("psutil")
    usage = usage or {}
    module.calls = []  # type: ignore[attr-defined]

    def fails(name: str) -> None:
        module.calls.append(name)  # type: ignore[attr-defined]
        if name in failing:
            raise OSError(f"{name}: not permitted")

    threads = logical

    def cpu_count(logical: bool = True):
        fails("cpu_count")
        return threads if logical else physical

    def virtual_memory():
        fails("virtual_memory")
        return svmem(total, available, 100 * (1 - available / total), total - available,
                     available)

    def swap_memory():
        fails("swap_memory")
        return sswap(swap_total, swap_total - swap_free, swap_free, 0.0, 0, 0)

    def disk_partitions(all: bool = False):  # psutil's own argument name
        fails("disk_partitions")
        return [sdiskpart(d, m, f, "rw") for d, m, f in partitions or []]

    def disk_usage(path: str):
        fails("disk_usage")
        answer = usage[path]
        if isinstance(answer, BaseException):
            raise answer
        size, free = answer
        return sdiskusage(size, size - free, free, 100 * (1 - free / size))

    for fn in (cpu_count, virtual_memory, swap_memory, disk_partitions, disk_usage):
        setattr(module, fn.__name__, fn)
    return module
