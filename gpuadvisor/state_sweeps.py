"""Helpers of :class:`gpuadvisor.state.PlanState` that need none of its state: breakdowns
as arrays for the charts, the largest value that fits, the parallel layout of a multi-GPU
plan, and reading a ``config.json``. Qt-free."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.estimate import Estimate
from gpuadvisor.core.memory import TERMS, MemoryBreakdown
from gpuadvisor.core.plan import Plan

MAX_CONFIG_JSON_BYTES = 5 * 1024 * 1024
"""config.json files larger than this are refused unread (real ones are a few kB)."""


def full_breakdown(mb: MemoryBreakdown, shape: tuple[int, ...]) -> MemoryBreakdown:
    """A breakdown whose every term is a float array of ``shape`` (scalars broadcast)."""
    names = (*TERMS, "cpu_bytes", "context_bytes")
    arrays = {name: np.broadcast_to(np.asarray(getattr(mb, name), dtype=float), shape).copy()
              for name in names}
    return MemoryBreakdown(**arrays)


def largest_true(fits, limit: int) -> int:
    """Largest integer n in [1, limit] with ``fits(n)`` true, for a monotone predicate.

    ``fits`` takes an int array and returns a bool array. Powers of two bracket the answer,
    then a 65-point grid narrows the bracket each round (about 3 array calls for 2**22).

    Returns:
        The largest fitting n, 0 when even 1 does not fit, ``limit`` when all fit.
    """
    probes = np.unique(np.minimum(2 ** np.arange(int(limit).bit_length() + 1), limit))
    ok = np.asarray(fits(probes), dtype=bool)
    if not ok[0]:
        return 0
    if ok.all():
        return int(probes[-1])
    first_bad = int(np.argmin(ok))
    lo, hi = int(probes[first_bad - 1]), int(probes[first_bad])
    while hi - lo > 1:
        grid = np.unique(np.linspace(lo, hi, 65).round().astype(np.int64))
        ok = np.asarray(fits(grid), dtype=bool)
        first_bad = int(np.argmin(ok))
        if ok.all() or first_bad == 0:
            return int(grid[-1]) if ok.all() else lo
        lo, hi = int(grid[first_bad - 1]), int(grid[first_bad])
    return lo


def model_id_for_file(path: Path) -> str:
    """``config`` files are named after their folder (the Hub layout); others by their stem."""
    if path.stem.lower() == "config" and path.parent.name:
        return path.parent.name
    return path.stem or "custom-model"


def read_config_json(file: Path) -> dict:
    """A config.json as a dict; problems raise ``ValueError`` naming the file."""
    try:
        if file.stat().st_size > MAX_CONFIG_JSON_BYTES:
            raise ValueError(f"{file}: too large for a config.json")
        config = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{file}: file not found") from None
    except UnicodeDecodeError:
        raise ValueError(f"{file}: not a text (UTF-8) file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file}: not valid JSON (line {exc.lineno}, column {exc.colno}): "
                         f"{exc.msg}") from None
    except OSError as exc:
        raise ValueError(f"{file}: cannot read: {exc.strerror or exc}") from None
    if not isinstance(config, dict):
        raise ValueError(f"{file}: must hold a JSON object (a config.json)")
    return config


def with_best_layout(result: Estimate, plan: Plan, assumptions: Assumptions) -> Estimate:
    """Several GPUs train in the fastest layout that fits, at the plan's micro-batch (the
    user's memory knob; the ZeRO stage the plan names is kept when it names one); the flat
    estimate stays, with a warning, when no layout holds the global batch."""
    from gpuadvisor.core.parallel.plan_time import LayoutRequest, with_layout
    from gpuadvisor.core.parallel.search import Constraints

    zero = plan.zero_stage or None
    try:
        # Hybrid sharding is asked for, not chosen: it trades memory for speed, and the
        # page's memory charts show plain sharding.
        pins = Constraints(zero=zero, micro_batch=plan.micro_batch, hybrid_shard=False)
        return with_layout(result, assumptions, LayoutRequest(constraints=pins))
    except ValueError as exc:
        return replace(result, warnings=[*result.warnings, f"layout: {exc}"])


__all__ = ["MAX_CONFIG_JSON_BYTES", "full_breakdown", "largest_true", "model_id_for_file",
           "read_config_json", "with_best_layout"]
