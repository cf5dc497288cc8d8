"""Decode and host-memory probes, the pure half: bytes, sizes, caches (no torch).

A helper of :mod:`decode`, :mod:`decodecheck` and :mod:`hostmem` (no ``PROBES``): what a
weight matrix stores in each format, how many matrices a timed pass needs to exceed the
caches, and how large the caches are. Like every kernel module it needs only the standard
library and runs on Python 3.8+; it never imports torch or gpuadvisor, so tests load it
alone.

Weight formats (bytes of an ``rows x cols`` matrix, :func:`weight_bytes`):

``fp16``, ``bf16``
    2 bytes per weight (``fp32``, for the plan check of an fp32 plan: 4).
``int8``
    1 byte per weight and one 16-bit scale per output row (per-channel weight-only int8,
    the layout of ``torch._weight_int8pack_mm``): ``rows x cols + 2 x rows``.
``q4``
    4 bits per weight in groups of :data:`Q4_GROUP` = 32 along the input, each group with
    a 16-bit scale and a 16-bit zero point: ``rows x cols / 2 + 4 x rows x cols / 32`` =
    0.625 bytes per weight. That is the size of llama.cpp's ``Q4_1`` block (``block_q4_1``
    in ggml/src/ggml-common.h: two fp16 ``d``, ``m`` and 16 bytes of nibbles for 32
    weights, 20 bytes), and the layout torch's fused int4 kernels read
    (``torch._weight_int4pack_mm``, tinygemm: int4 values, bf16 scale-and-zero per group).
"""

from __future__ import annotations

import os

MiB = 1 << 20
GiB = 1 << 30

#: Weight formats the decode probe times, in order.
FORMATS = ("fp16", "bf16", "int8", "q4")
#: Weights per group of the 4-bit format (llama.cpp's QK4_0 / QK4_1).
Q4_GROUP = 32
#: Bytes of a group's scale and zero point (two 16-bit numbers).
Q4_GROUP_BYTES = 4

#: Matrix sizes and time budgets per (device kind, suite): ``hidden`` x ``ffn`` are the
#: shapes of one decoder layer's MLP matrices (``ffn x hidden`` up, ``hidden x ffn`` down;
#: both multiples of 256 so every fused 4-bit kernel takes them); ``target_bytes`` is the
#: least a timed pass reads in each format (more where the caches are larger, see
#: :func:`pass_target_bytes`); ``budget_s`` is the timing per format. The tiny suite (for
#: tests, fractions of a second) does not grow with the cache (``cache_multiple`` 0).
DECODE_SIZES = {
    ("cpu", "tiny"): {"hidden": 256, "ffn": 768, "target_bytes": 2 * MiB, "budget_s": 0.08,
                      "max_batches": 4, "cache_multiple": 0},
    ("cpu", "quick"): {"hidden": 2048, "ffn": 5632, "target_bytes": 64 * MiB,
                       "budget_s": 0.8, "max_batches": 10},
    ("cpu", "full"): {"hidden": 4096, "ffn": 11008, "target_bytes": 256 * MiB,
                      "budget_s": 3.0, "max_batches": 20},
    ("gpu", "tiny"): {"hidden": 1024, "ffn": 2816, "target_bytes": 32 * MiB, "budget_s": 0.2,
                      "max_batches": 5, "cache_multiple": 0},
    ("gpu", "quick"): {"hidden": 4096, "ffn": 14336, "target_bytes": 512 * MiB,
                       "budget_s": 1.0, "max_batches": 10},
    ("gpu", "full"): {"hidden": 8192, "ffn": 28672, "target_bytes": 2 * GiB, "budget_s": 3.0,
                      "max_batches": 20},
}
#: A timed pass reads at least this many times the last-level cache (GPU L2, CPU L3), so
#: the next pass finds none of its matrices still cached.
CACHE_MULTIPLE = 8


def weight_bytes(rows: int, cols: int, fmt: str) -> int:
    """Bytes of a ``rows x cols`` weight matrix stored in ``fmt`` (see the module docstring).

    Raises:
        ValueError: an unknown format, or ``cols`` not a whole number of 4-bit groups.
    """
    if rows <= 0 or cols <= 0:
        raise ValueError(f"a matrix needs positive rows and cols, got {rows} x {cols}")
    if fmt in ("fp16", "bf16"):
        return 2 * rows * cols
    if fmt == "fp32":  # the plan check of an fp32 plan; the GEMV probe does not time it
        return 4 * rows * cols
    if fmt == "int8":
        return rows * cols + 2 * rows
    if fmt == "q4":
        if cols % Q4_GROUP:
            raise ValueError(f"q4: cols {cols} is not a multiple of the group ({Q4_GROUP})")
        return rows * cols // 2 + Q4_GROUP_BYTES * rows * (cols // Q4_GROUP)
    raise ValueError(f"unknown weight format {fmt!r}; known: {', '.join(FORMATS)}")


def pass_target_bytes(sizes: dict, cache_bytes: int | None, limit_bytes: int | None) -> tuple:
    """``(bytes a timed pass reads, what decided it)``: the suite's ``target_bytes``, raised
    to :data:`CACHE_MULTIPLE` x the cache (the suite's ``cache_multiple`` where it has
    one) where that is larger, then capped at ``limit_bytes`` (the memory the probe may
    use); at least 1 MiB."""
    target, why = int(sizes["target_bytes"]), "suite"
    multiple = int(sizes.get("cache_multiple", CACHE_MULTIPLE))
    if cache_bytes and multiple * cache_bytes > target:
        target, why = multiple * int(cache_bytes), f"{multiple} x cache"
    if limit_bytes is not None and limit_bytes < target:
        target, why = int(limit_bytes), "memory the probe may use"
    return max(MiB, target), why


def plan_matrices(target_bytes: int, hidden: int, ffn: int, fmt: str) -> list:
    """The matrices of one timed pass in ``fmt``: ``(ffn, hidden)`` and ``(hidden, ffn)``
    in turn (an MLP's up and down projections) until they hold ``target_bytes``; at least
    two. Where one matrix alone is larger than the target, the shapes shrink (rows halved)
    so two fit it."""
    shapes = [(ffn, hidden), (hidden, ffn)]
    while (sum(weight_bytes(r, c, fmt) for r, c in shapes) > target_bytes
           and min(r for r, _ in shapes) > 8):
        shapes = [(max(8, r // 2), c) for r, c in shapes]
    matrices, total = [], 0
    while total < target_bytes or len(matrices) < 2:
        shape = shapes[len(matrices) % 2]
        matrices.append(shape)
        total += weight_bytes(shape[0], shape[1], fmt)
    return matrices


def pass_bytes(matrices, fmt: str) -> int:
    """Bytes one pass over ``matrices`` reads in ``fmt``: each matrix once."""
    return sum(weight_bytes(rows, cols, fmt) for rows, cols in matrices)


def gb_s(bytes_read: float, seconds: float) -> float:
    """Achieved bandwidth in GB/s (10⁹ bytes per second): ``bytes_read / seconds / 1e9``."""
    if seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    return bytes_read / seconds / 1e9


# --------------------------------------------------------------------------- caches
def parse_cache_size(text: str) -> int | None:
    """A sysfs cache size (``"32768K"``, ``"1M"``, ``"512"``) in bytes, or ``None``."""
    text = text.strip().upper()
    factor = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in ("K", "M", "G") else text
    return int(digits) * factor if digits.isdigit() else None


def host_cache_bytes(root: str = "/sys/devices/system/cpu/cpu0/cache") -> int | None:
    """The largest data or unified CPU cache of one core's view (the last level, usually
    L3, shared), from Linux sysfs; ``None`` where unknown (other systems)."""
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return None
    largest = None
    for entry in entries:
        if not entry.startswith("index"):
            continue
        try:
            with open(os.path.join(root, entry, "type"), encoding="ascii") as handle:
                kind = handle.read().strip()
            with open(os.path.join(root, entry, "size"), encoding="ascii") as handle:
                size = parse_cache_size(handle.read())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size and (largest is None or size > largest):
            largest = size
    return largest
