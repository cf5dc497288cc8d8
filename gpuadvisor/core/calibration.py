"""Measured throughput fed back into time estimates (pure: no probes, no files).

A :class:`Measurement` is what a probe measured on the user's own card, reduced to what the
time model needs. :func:`gpuadvisor.core.estimate.estimate` takes one and, when it applies,
times the plan at ``measured matmul TFLOPS x matmul_to_step`` instead of
``catalog peak x efficiency``. ``matmul_to_step`` (an :class:`~.assumptions.Assumptions`
field, default 0.6) is there because a matmul probe measures large matrix products, which
overstate a whole training step; the training-step probe will measure the step directly and
replace that factor.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measurement:
    """Matmul throughput measured on one GPU.

    Attributes:
        achieved_tflops: measured dense matmul throughput (TFLOPS, median over iterations).
        dtype: the matmul dtype (``fp32``, ``tf32``, ``fp16``, ``bf16``, ``fp8``); the
            measurement is used only when it equals the dtype the plan is timed at.
        when: when it was measured (UTC ISO 8601, e.g. ``2026-12-02T18:41:27Z``).
        source: where it comes from, for people (``"probe matmul on NVIDIA H200"``).
        gpu_id: the catalog GPU it was measured on; when given, the measurement is used only
            for that GPU (``None``: the caller vouches for the match).
    """

    achieved_tflops: float
    dtype: str
    when: str
    source: str = "probe"
    gpu_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.achieved_tflops, int | float) or not self.achieved_tflops > 0:
            raise ValueError(f"achieved_tflops must be a positive number, "
                             f"got {self.achieved_tflops!r}")
        if self.achieved_tflops == float("inf"):
            raise ValueError("achieved_tflops must be finite")

    @property
    def date(self) -> str:
        """The day it was measured (``YYYY-MM-DD``), or ``when`` as given."""
        return self.when[:10]


__all__ = ["Measurement"]
