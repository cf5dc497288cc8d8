"""Measured vs the datasheet, and runs over time (gpuadvisor.probes.compare).

Theoretical figures for the RTX 4090 come from NVIDIA's Ada whitepaper (Appendix A): bf16
dense tensor 165.2 TFLOPS (FP32 accumulate), fp32 82.6 TFLOPS, memory 1008 GB/s, PCIe 4.0
x16. PCIe 4.0 carries 16 GT/s per lane with 128b/130b coding: 16 x 128/130 / 8 = 1.9692 GB/s
per lane and direction, 31.508 GB/s for x16.
"""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.probes.compare import diff_runs, pcie_gb_s, trend, versus_catalog
from gpuadvisor.probes.history import StoredRun


def stored(timestamp="2026-12-01T10:00:00Z", **results) -> StoredRun:
    return StoredRun(timestamp=timestamp, device_key="gpu-1", device_id="cuda:0",
                     device_name="NVIDIA GeForce RTX 4090", catalog_id="rtx-4090",
                     results={probe: {"figures": figures, "units": {}, "conditions": cond}
                              for probe, (figures, cond) in results.items()})


RUN = stored(
    matmul=({"bf16_median_tflops": 150.0, "bf16_max_tflops": 160.0,
             "fp32_median_tflops": 50.0}, {}),
    step=({"achieved_tflops": 88.1, "model_tflops": 66.08, "tokens_per_s": 1.0},
          {"dtype": "bf16"}),
    bandwidth=({"copy_gb_s": 907.2, "triad_gb_s": 900.0}, {}),
    transfer=({"h2d_pinned_gb_s": 25.2, "h2d_pageable_gb_s": 12.0}, {}),
    dataread=({"read_mb_s": 500.0}, {}),
)


@pytest.fixture(scope="module")
def rtx_4090():
    return catalog.load_gpus()["rtx-4090"]


def test_each_figure_is_set_against_its_datasheet_counterpart(rtx_4090):
    rows = {(r.probe, r.figure): r for r in versus_catalog(RUN, rtx_4090)}
    bf16 = rows[("matmul", "bf16_median_tflops")]
    assert bf16.theoretical == 165.2 and bf16.percent == pytest.approx(100 * 150 / 165.2)
    assert rows[("matmul", "fp32_median_tflops")].percent == pytest.approx(100 * 50 / 82.6)
    # The step's share of the bf16 peak is its MFU: 66.08 / 165.2 = 40%.
    # (achieved_tflops also counts the recomputed forward of checkpointing: not the MFU.)
    assert rows[("step", "model_tflops")].percent == pytest.approx(40.0)
    assert ("step", "achieved_tflops") not in rows
    assert rows[("bandwidth", "copy_gb_s")].percent == pytest.approx(90.0)
    h2d = rows[("transfer", "h2d_pinned_gb_s")]
    assert h2d.theoretical == pytest.approx(31.508, abs=0.02)
    assert h2d.basis == "PCIe 4.0 x16"
    assert h2d.percent == pytest.approx(100 * 25.2 / 31.5077, rel=1e-3)
    # Max figures and figures without a datasheet kind (disk reads) get no row.
    assert ("matmul", "bf16_max_tflops") not in rows
    assert not any(r.probe == "dataread" for r in rows.values())


def test_without_a_catalog_card_the_measured_values_stand_alone():
    rows = versus_catalog(RUN, None)
    assert rows and all(r.theoretical is None and r.percent is None for r in rows)
    assert {r.measured for r in rows if r.probe == "matmul"} == {150.0, 50.0}


@pytest.mark.parametrize(("gen", "lanes", "gb_s"), [
    (3, 16, 8 * 128 / 130 / 8 * 16),  # 15.754
    (4, 8, 16 * 128 / 130 / 8 * 8),   # 15.754: a x8 Gen4 link equals a x16 Gen3 one
    (5, 16, 63.015),
    (6, 16, 64 * 242 / 256 / 8 * 16),  # FLIT: 242 of 256 bytes carry data
    (None, 16, None), (4, None, None), (9, 16, None),
])
def test_pcie_link_rates(gen, lanes, gb_s):
    if gb_s is None:
        assert pcie_gb_s(gen, lanes) is None
    else:
        assert pcie_gb_s(gen, lanes) == pytest.approx(gb_s, rel=1e-3)


def test_trend_and_diff_compare_runs_over_time():
    older = stored("2026-11-01T10:00:00Z", matmul=({"bf16_median_tflops": 120.0}, {}))
    newer = stored("2026-12-01T10:00:00Z", matmul=({"bf16_median_tflops": 150.0}, {}),
                   bandwidth=({"copy_gb_s": 900.0}, {}))
    no_matmul = stored("2026-11-15T10:00:00Z", bandwidth=({"copy_gb_s": 880.0}, {}))
    assert trend([newer, no_matmul, older], "matmul", "bf16_median_tflops") == [
        ("2026-11-01T10:00:00Z", 120.0), ("2026-12-01T10:00:00Z", 150.0)]
    diffs = {(d.probe, d.figure): d for d in diff_runs(older, newer)}
    assert diffs[("matmul", "bf16_median_tflops")].change_pct == pytest.approx(25.0)
    copy = diffs[("bandwidth", "copy_gb_s")]
    assert copy.a is None and copy.b == 900.0 and copy.change_pct is None
