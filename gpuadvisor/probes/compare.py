"""Measured against the datasheet, and runs against each other (Qt-free, no torch).

:func:`versus_catalog` puts each figure a probe measured next to the catalog's theoretical
value for the same card: matmul TFLOPS per dtype against the dense peak at that dtype, the
training step's achieved TFLOPS against the peak at its dtype (that percentage is the model
FLOPs utilisation, MFU), copy/triad bandwidth and the decode probe's GEMV reads per
weight format (fused kernels only) against the memory bandwidth, pinned
host<->device copies against the PCIe link the card has (lanes x
:data:`gpuadvisor.core.gpu.PCIE_GB_S_PER_LANE`). :func:`trend` and :func:`diff_runs`
compare stored runs over time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuadvisor.core.calibration import WEIGHT_FORMATS as DECODE_FORMATS
from gpuadvisor.core.gpu import PCIE_GB_S_PER_LANE, GpuSpec

from .history import StoredRun


@dataclass(frozen=True)
class VersusRow:
    """One measured figure and its theoretical counterpart.

    Attributes:
        probe: the probe (``matmul``, ``bandwidth``, ``decode``, ``transfer``, ``step``,
            ``burnin``).
        figure: the figure's name in the result (``bf16_median_tflops``).
        label: a short name for people (``bf16 matmul``).
        measured: the measured value.
        theoretical: the catalog's value in the same unit, or ``None`` when the catalog has
            none (no card matched, or the card lacks the format).
        unit: ``TFLOPS`` or ``GB/s``.
        percent: ``100 x measured / theoretical``, or ``None``.
        basis: what the theoretical value is (``"dense bf16 peak"``, ``"PCIe 4.0 x16"``).
    """

    probe: str
    figure: str
    label: str
    measured: float
    theoretical: float | None
    unit: str
    percent: float | None
    basis: str = ""


def _row(probe, figure, label, measured, theoretical, unit, basis) -> VersusRow:
    percent = None
    if theoretical is not None and theoretical > 0:
        percent = 100.0 * measured / theoretical
    return VersusRow(probe, figure, label, float(measured),
                     float(theoretical) if theoretical is not None else None, unit, percent,
                     basis if theoretical is not None else "")


def pcie_gb_s(generation: int | None, lanes: int | None) -> float | None:
    """Usable one-direction rate of a PCIe link in GB/s, or ``None`` when unknown."""
    if generation not in PCIE_GB_S_PER_LANE or not lanes:
        return None
    return PCIE_GB_S_PER_LANE[generation] * lanes


def _peak(gpu: GpuSpec | None, dtype: str) -> float | None:
    if gpu is None:
        return None
    try:
        return gpu.peak_tflops(dtype)
    except ValueError:
        return None


def versus_catalog(run: StoredRun, gpu: GpuSpec | None) -> list[VersusRow]:
    """Every figure of ``run`` that has a theoretical counterpart kind, measured vs catalog.

    Figures whose kind has a counterpart (matmul medians, the step and burn-in TFLOPS,
    bandwidth, pinned transfers) get a row even without a catalog value (``theoretical``
    ``None``): a CPU or an unmatched card still shows what it measured.
    """
    rows: list[VersusRow] = []
    matmul = run.results.get("matmul", {}).get("figures", {})
    for name, value in matmul.items():
        if name.endswith("_median_tflops") and _number(value):
            dtype = name[:-len("_median_tflops")]
            rows.append(_row("matmul", name, f"{dtype} matmul", value, _peak(gpu, dtype),
                             "TFLOPS", f"dense {dtype} peak"))
    # The step's MFU counts model FLOPs only (``model_tflops``); its ``achieved_tflops``
    # also counts the recomputed forward under checkpointing (what times the estimate).
    step_figure = ("model_tflops" if "model_tflops" in run.results.get("step", {}).get(
        "figures", {}) else "achieved_tflops")
    for probe, figure, label in (("step", step_figure, "training step"),
                                 ("burnin", "tflops_median", "burn-in")):
        result = run.results.get(probe, {})
        value = result.get("figures", {}).get(figure)
        dtype = result.get("conditions", {}).get("dtype")
        if _number(value):
            peak = _peak(gpu, dtype) if isinstance(dtype, str) else None
            rows.append(_row(probe, figure, f"{label} ({dtype})" if dtype else label, value,
                             peak, "TFLOPS", f"dense {dtype} peak"))
    bandwidth = run.results.get("bandwidth", {}).get("figures", {})
    for name, label in (("copy_gb_s", "memory copy"), ("triad_gb_s", "memory triad")):
        if _number(bandwidth.get(name)):
            rows.append(_row("bandwidth", name, label, bandwidth[name],
                             gpu.memory_bandwidth_gb_s if gpu is not None else None, "GB/s",
                             "memory bandwidth"))
    decode = run.results.get("decode", {}).get("figures", {})
    for fmt in DECODE_FORMATS:
        name = f"{fmt}_gb_s"
        if _number(decode.get(name)):
            rows.append(_row("decode", name, f"{fmt} GEMV (decode)", decode[name],
                             gpu.memory_bandwidth_gb_s if gpu is not None else None, "GB/s",
                             "memory bandwidth"))
    transfer = run.results.get("transfer", {}).get("figures", {})
    link = pcie_gb_s(gpu.pcie_gen, gpu.pcie_lanes) if gpu is not None else None
    link_name = f"PCIe {gpu.pcie_gen}.0 x{gpu.pcie_lanes}" if link is not None else ""
    for name, label in (("h2d_pinned_gb_s", "host to device (pinned)"),
                        ("d2h_pinned_gb_s", "device to host (pinned)"),
                        ("h2d_pageable_gb_s", "host to device (pageable)"),
                        ("d2h_pageable_gb_s", "device to host (pageable)")):
        if _number(transfer.get(name)):
            rows.append(_row("transfer", name, label, transfer[name], link, "GB/s", link_name))
    return rows


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def trend(runs: Iterable[StoredRun], probe: str, figure: str) -> list[tuple[str, float]]:
    """``(timestamp, value)`` of one figure across ``runs`` (those that measured it), in
    time order."""
    points = [(r.timestamp, r.figure(probe, figure)) for r in runs]
    return sorted((t, v) for t, v in points if v is not None)


@dataclass(frozen=True)
class RunDiff:
    """One figure in two runs: ``change_pct`` = ``100 x (b - a) / a`` (``None`` when a
    side lacks it or ``a`` is 0)."""

    probe: str
    figure: str
    unit: str
    a: float | None
    b: float | None
    change_pct: float | None


def diff_runs(a: StoredRun, b: StoredRun) -> list[RunDiff]:
    """Every figure of either run, side by side, in probe then figure order."""
    rows = []
    probes: Sequence[str] = list(dict.fromkeys([*a.results, *b.results]))
    for probe in probes:
        figures_a = a.results.get(probe, {}).get("figures", {})
        figures_b = b.results.get(probe, {}).get("figures", {})
        units = {**a.results.get(probe, {}).get("units", {}),
                 **b.results.get(probe, {}).get("units", {})}
        for name in dict.fromkeys([*figures_a, *figures_b]):
            va, vb = a.figure(probe, name), b.figure(probe, name)
            change = 100.0 * (vb - va) / va if va and vb is not None else None
            rows.append(RunDiff(probe, name, str(units.get(name, "")), va, vb, change))
    return rows


__all__ = ["RunDiff", "VersusRow", "diff_runs", "pcie_gb_s", "trend",
           "versus_catalog"]
