"""Measured throughput fed back into time estimates (pure: no probes, no files).

A :class:`Measurement` is what a probe measured on the user's own card, reduced to what the
time model needs. There are three kinds:

``step``
    The training-step probe: forward + backward + optimizer step of transformer blocks under
    the plan's precision. Its achieved TFLOPS times a training plan directly.
``matmul``
    The matmul probe: large matrix products. They overstate a whole training step, so a
    training plan is timed at ``measured x matmul_to_step`` (an overridable assumption,
    default 0.6); used only when no step measurement at the plan's dtype exists.
``bandwidth``
    The device-memory copy bandwidth. Decoding (inference) reads every weight and the KV
    cache once per token, so its speed is the memory bandwidth actually achieved: the
    measured copy rate replaces ``catalog bandwidth x bandwidth_efficiency``.

:func:`select` picks, for one GPU and one dtype, the compute measurement (step before
matmul, newest first) and the bandwidth measurement (newest) from everything measured;
:func:`gpuadvisor.core.estimate.estimate` takes either one measurement or a list.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

KINDS = ("step", "matmul", "bandwidth")


@dataclass(frozen=True)
class Measurement:
    """Throughput measured on one GPU.

    Attributes:
        achieved_tflops: ``step``: model FLOPs per second of a whole training step;
            ``matmul``: dense matmul throughput (median over iterations); ``None`` for
            ``bandwidth``.
        dtype: the compute dtype (``fp32``, ``tf32``, ``fp16``, ``bf16``, ``fp8``); a compute
            measurement is used only when it equals the dtype the plan is timed at
            (``None`` for ``bandwidth``).
        when: when it was measured (UTC ISO 8601, e.g. ``2026-12-02T18:41:27Z``).
        source: where it comes from, for people (``"probe step on NVIDIA H200"``).
        gpu_id: the catalog GPU it was measured on; when given, the measurement is used only
            for that GPU (``None``: the caller vouches for the match).
        kind: ``step``, ``matmul`` or ``bandwidth`` (see the module docstring).
        bandwidth_gb_s: ``bandwidth``: the measured device-memory rate (GB/s = 1e9 B/s).
        shape: ``step``: the shape it was measured at, for people
            (``"hidden 2048, seq 1024, micro-batch 1"``).
    """

    achieved_tflops: float | None
    dtype: str | None
    when: str
    source: str = "probe"
    gpu_id: str | None = None
    kind: str = "matmul"
    bandwidth_gb_s: float | None = None
    shape: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind == "bandwidth":
            _check_positive("bandwidth_gb_s", self.bandwidth_gb_s)
        else:
            _check_positive("achieved_tflops", self.achieved_tflops)
            if not isinstance(self.dtype, str) or not self.dtype:
                raise ValueError(f"a {self.kind} measurement needs its dtype")

    @property
    def date(self) -> str:
        """The day it was measured (``YYYY-MM-DD``), or ``when`` as given."""
        return self.when[:10]


def _check_positive(name: str, value) -> None:
    if (isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
            or not math.isfinite(value)):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


def select(measurements: Iterable[Measurement], gpu_id: str | None, dtype: str
           ) -> tuple[Measurement | None, Measurement | None]:
    """The measurements that time a plan at ``dtype`` on ``gpu_id``.

    Returns:
        ``(compute, bandwidth)``: the newest ``step`` measurement at ``dtype``, else the
        newest ``matmul`` one (``None`` if neither); and the newest ``bandwidth`` one.
        Measurements of another GPU (``gpu_id`` set and different) are skipped.
    """
    usable = [m for m in measurements if m.gpu_id is None or m.gpu_id == gpu_id]
    newest_first = sorted(usable, key=lambda m: m.when, reverse=True)
    compute = next((m for m in newest_first if m.kind == "step" and m.dtype == dtype), None)
    if compute is None:
        compute = next((m for m in newest_first if m.kind == "matmul" and m.dtype == dtype),
                       None)
    bandwidth = next((m for m in newest_first if m.kind == "bandwidth"), None)
    return compute, bandwidth


__all__ = ["KINDS", "Measurement", "select"]
