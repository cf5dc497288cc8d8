"""PyTorch's memory lines read back (Qt-free): ``torch.cuda.memory_summary()``'s table, printed
``max_memory_allocated`` / ``max_memory_reserved`` values, and the out-of-memory message."""

from __future__ import annotations

import re

from gpuadvisor.probes.logreading import LogReading, size_bytes

TORCH_MARK = re.compile(r"max_memory_allocated|max_memory_reserved|PyTorch CUDA memory "
                         r"summary|Allocated memory\s*\||CUDA out of memory|OutOfMemoryError",
                         re.I)

_T_SUMMARY_ROW = re.compile(r"\|\s*(Allocated memory|GPU reserved memory)\s*\|\s*([^|]+)\|"
                            r"\s*([^|]+)\|")
_T_LINE = re.compile(r"(max_memory_allocated|max_memory_reserved|memory_allocated|"
                     r"memory_reserved)\b[^0-9\n]*([0-9][0-9,]*(?:\.[0-9]+)?)\s*"
                     r"(B|KB|MB|GB|KiB|MiB|GiB|bytes)?", re.I)
_T_SIZE = re.compile(r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB)\b")
#: ``memory_summary`` before torch 2.1 printed KB/MB/GB for powers of 1,024 (``_format_size``
#: divides by 1024).
_T_BINARY = {"KB": "KiB", "MB": "MiB", "GB": "GiB"}


#: PyTorch's out-of-memory message (c10/cuda/CUDACachingAllocator.cpp), as 2.1 and later word
#: it ("Tried to allocate 36.00 MiB. GPU 0 has a total capacity of 22.38 GiB of which 16.81
#: MiB is free. ... Of the allocated memory 22.09 GiB is allocated by PyTorch, and 51.65 MiB
#: is reserved by PyTorch but unallocated."; 2.1 wrote "capacty") and before ("Tried to
#: allocate 1.25 GiB (GPU 1; 79.10 GiB total capacity; 76.13 GiB already allocated; 290.12
#: MiB free; 77.47 GiB reserved in total by PyTorch)"); read from the text with its lines
#: joined, since consoles wrap it.
_OOM_SIZE = r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*(bytes|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)"
_T_OOM_NEW = re.compile(r"Tried to allocate\s+" + _OOM_SIZE + r"\.?\s*GPU\s*\d+\s+has a total "
                        r"capac\w*\s+of\s+" + _OOM_SIZE + r"\s+of which\s+" + _OOM_SIZE
                        + r"\s+is free.*?Of the allocated memory\s+" + _OOM_SIZE
                        + r"\s+is allocated by PyTorch,\s*and\s+" + _OOM_SIZE
                        + r"\s+is reserved by PyTorch but unallocated", re.S)
_T_OOM_OLD = re.compile(r"Tried to allocate\s+" + _OOM_SIZE + r"\s*\(GPU\s*\d+;\s*"
                        + _OOM_SIZE + r"\s+total capacity;\s*" + _OOM_SIZE
                        + r"\s+already allocated;\s*" + _OOM_SIZE + r"\s+free;\s*" + _OOM_SIZE
                        + r"\s+reserved in total", re.S)


def _read_oom(lines: list[str], r: LogReading) -> None:
    """PyTorch's out-of-memory message: the card's total, what was allocated and reserved
    when it ran out, and the allocation it could not make (the run needed at least
    allocated + that)."""
    flat = " ".join(line.strip() for line in lines)
    at = next((i for i, line in enumerate(lines, 1) if "Tried to allocate" in line), 0)
    if m := _T_OOM_NEW.search(flat):
        want, total, free, allocated, unused = (size_bytes(m.group(k), m.group(k + 1))
                                                for k in range(1, 11, 2))
        reserved = allocated + unused
    elif m := _T_OOM_OLD.search(flat):
        want, total, allocated, free, reserved = (size_bytes(m.group(k), m.group(k + 1))
                                                  for k in range(1, 11, 2))
    else:
        return
    r.set("total_memory", total, at)
    r.set("free_memory", free, at)
    r.set("oom_allocated", allocated, at)
    r.set("oom_reserved", reserved, at)
    r.set("oom_request", want, at)
    r.set("oom_needed", allocated + want, at)
    r.refused = "CUDA out of memory. " + " ".join(m.group(0).split())
    r.lines["refused"] = at


def read_torch(lines: list[str], r: LogReading) -> None:
    _read_oom(lines, r)
    for i, line in enumerate(lines, 1):
        if m := _T_SUMMARY_ROW.search(line):
            peak = _T_SIZE.search(m.group(3))
            if peak:
                name = "peak_allocated" if m.group(1) == "Allocated memory" else "peak_reserved"
                unit = _T_BINARY.get(peak.group(2), peak.group(2))
                r.set(name, size_bytes(peak.group(1), unit), i)
            continue
        if m := _T_LINE.search(line):
            what, number, unit = m.group(1).lower(), m.group(2), m.group(3)
            if not what.startswith("max_"):
                continue
            unit = "B" if unit is None or unit.lower() == "bytes" else unit
            name = "peak_allocated" if what == "max_memory_allocated" else "peak_reserved"
            r.set(name, size_bytes(number, unit), i)



__all__ = ["TORCH_MARK", "read_torch"]
