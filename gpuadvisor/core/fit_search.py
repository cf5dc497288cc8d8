"""The largest micro-batch or sequence that fits a card: a search over the memory model.

:func:`largest_true` and :func:`largest_true_bisect` find the largest value a predicate holds
for (memory grows with the micro-batch and the sequence); :func:`longest_fitting_seq` and
:func:`largest_fitting_micro_batch` ask them of :func:`~.memory.memory_breakdown`.
"""

from __future__ import annotations

import numpy as np

from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from .gpu import GpuSpec
from .memory import memory_breakdown
from .model import ModelLike, model_shape
from .plan import Plan

#: Upper bound of :func:`longest_fitting_seq` (4M tokens).
MAX_SEQ_SEARCH = 1 << 22
#: Upper bound of :func:`largest_fitting_micro_batch`.
MAX_MICRO_BATCH_SEARCH = 1 << 16


def _capacity(capacity: GpuSpec | float) -> float:
    """Bytes of GPU memory: a GPU's, or a number of bytes (positive, finite)."""
    value = float(capacity.usable_bytes) if isinstance(capacity, GpuSpec) else capacity
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0 \
            or not np.isfinite(value):
        raise ValueError(f"capacity must be a GPU or a positive number of bytes, "
                         f"got {capacity!r}")
    return float(value)


def _bracket(fits, limit: int):
    """Powers of two up to ``limit`` tried in one call: ``(lo, hi)`` with ``fits(lo)`` true
    and ``fits(hi)`` false, or the answer itself (an int) when it is 0 or ``limit``."""
    probes = np.unique(np.minimum(2 ** np.arange(int(limit).bit_length() + 1), limit))
    ok = np.asarray(fits(probes), dtype=bool)
    if not ok[0]:
        return 0
    if ok.all():
        return int(probes[-1])
    first_bad = int(np.argmin(ok))
    return int(probes[first_bad - 1]), int(probes[first_bad])


def largest_true(fits, limit: int) -> int:
    """Largest integer n in [1, limit] with ``fits(n)`` true, for a monotone predicate.

    ``fits`` takes an int array and returns a bool array. Powers of two bracket the answer,
    then a 65-point grid narrows the bracket each round (about 3 array calls for 2**22).

    Returns:
        The largest fitting n, 0 when even 1 does not fit, ``limit`` when all fit.
    """
    found = _bracket(fits, limit)
    if isinstance(found, int):
        return found
    lo, hi = found
    while hi - lo > 1:
        grid = np.unique(np.linspace(lo, hi, 65).round().astype(np.int64))
        ok = np.asarray(fits(grid), dtype=bool)
        first_bad = int(np.argmin(ok))
        if ok.all() or first_bad == 0:
            return int(grid[-1]) if ok.all() else lo
        lo, hi = int(grid[first_bad - 1]), int(grid[first_bad])
    return lo


def largest_true_bisect(fits, limit: int) -> int:
    """:func:`largest_true` for a predicate that costs one evaluation per point (an inference
    engine's memory): powers of two bracket the answer in one call, then bisection, one point
    per call (about ``2 log2(limit)`` points in all, against a few hundred for the grid).

    Returns:
        The largest fitting n, 0 when even 1 does not fit, ``limit`` when all fit.
    """
    found = _bracket(fits, limit)
    if isinstance(found, int):
        return found
    lo, hi = found
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bool(np.asarray(fits(np.array([mid])), dtype=bool)[0]):
            lo = mid
        else:
            hi = mid
    return lo


def longest_fitting_seq(model: ModelLike, plan: Plan, capacity: GpuSpec | float,
                        assumptions: Assumptions = DEFAULT_ASSUMPTIONS, *,
                        limit: int = MAX_SEQ_SEARCH) -> int:
    """The longest sequence (tokens) whose training or inference step fits ``capacity``.

    Everything but the sequence length is the plan's (micro-batch, framework, LoRA, ...);
    memory per GPU is :func:`~.memory.memory_breakdown` ``.total``, which grows with the
    sequence. Not capped at the model's context length.

    Args:
        model: the architecture.
        plan: the plan (its ``seq_len`` is ignored).
        capacity: a GPU (its memory) or bytes.
        assumptions: overridable constants.
        limit: the longest sequence tried.

    Returns:
        Tokens, 0 when even one token does not fit, ``limit`` when everything up to it fits.

    Raises:
        ValueError: a capacity that is not a GPU or a positive number of bytes.
    """
    cap = _capacity(capacity)
    shape = model_shape(model)
    return largest_true(lambda s: memory_breakdown(shape, plan, assumptions,
                                               seq_len=s.astype(float)).total <= cap,
                    max(1, int(limit)))


def largest_fitting_micro_batch(model: ModelLike, plan: Plan, capacity: GpuSpec | float,
                                assumptions: Assumptions = DEFAULT_ASSUMPTIONS, *,
                                limit: int = MAX_MICRO_BATCH_SEARCH) -> int:
    """The largest micro-batch whose step fits ``capacity`` (the rest of the plan as is).

    Returns 0 when even one sequence does not fit; see :func:`longest_fitting_seq`.
    """
    cap = _capacity(capacity)
    shape = model_shape(model)
    return largest_true(lambda b: memory_breakdown(shape, plan, assumptions,
                                               micro_batch=b.astype(float)).total <= cap,
                    max(1, int(limit)))


#: GGUF types above 4.5 bits per weight, for which Q4_K_M is a smaller file.


__all__ = ["MAX_MICRO_BATCH_SEARCH", "MAX_SEQ_SEARCH", "largest_fitting_micro_batch",
           "largest_true", "largest_true_bisect", "longest_fitting_seq"]
