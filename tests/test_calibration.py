"""Calibrated time estimates: a measured matmul throughput replaces the published matmul
fraction in the kernel model (models without layers: peak x efficiency becomes the measured
rate x the documented matmul_to_step factor) when its dtype is the plan's, and the
assumptions say "measured <date>"."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.cli import main
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.calibration import Measurement
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.parallel.insitu import gpu_rates, one_gpu_work_seconds
from gpuadvisor.core.plan import Plan
from gpuadvisor.probes import history
from tests.probes.test_history import make_run
from tests.test_compute import GPT2_SMALL, make_gpu

GPU = make_gpu()  # 100 TFLOPS bf16 peak
PLAN = Plan(task="pretrain", precision="bf16", seq_len=1024, micro_batch=8,
            dataset_tokens=1e9)
M50 = Measurement(achieved_tflops=50.0, dtype="bf16", when="2026-12-01T09:00:00Z",
                  source="probe matmul on Test GPU")


def test_a_bf16_matmul_measurement_replaces_the_published_matmul_fraction():
    # The test GPU has no published fractions: matmul 0.80, attention 0.60 of its 100
    # TFLOPS (rates.DEFAULT). A measured 50 TFLOPS matmul makes the matmul fraction 0.50 and
    # scales attention alike (0.60 x 0.50 / 0.80 = 0.375); the step is the plan's kernels at
    # those rates over the in-situ factor.
    rates, _ = gpu_rates(GPU, "bf16", matmul_tflops=50.0)
    assert rates.matmul_fraction == pytest.approx(0.50)
    assert rates.attention_fraction == pytest.approx(0.375)
    result = estimate(GPT2_SMALL, PLAN, GPU, measurement=M50)
    flops = result.flops.train * 1e9  # FLOPs per token x tokens
    assert result.time.flops_total == pytest.approx(flops)
    steps = 1e9 / (8 * 1024)
    work = one_gpu_work_seconds(GPT2_SMALL, PLAN, rates)
    assert result.time.seconds == pytest.approx(steps * work / 0.73, rel=1e-9)
    a = result.assumptions
    assert a["efficiency_source"] == "measured 2026-12-01"
    assert a["measured_matmul_tflops"] == 50.0
    assert "matmul_to_step" not in a
    assert "measured matmul" in a["efficiency_basis"]
    assert a["peak_tflops_source"] == "catalog: test-gpu"
    assert a["peak_tflops"] == 100.0
    assert a["achieved_tflops"] == pytest.approx(result.time.achieved_tflops_per_gpu)
    # Slower than the published 0.80 fraction, and a faster card measures faster.
    assert result.time.seconds > estimate(GPT2_SMALL, PLAN, GPU).time.seconds
    faster = Measurement(90.0, "bf16", "2026-12-01T09:00:00Z")
    assert estimate(GPT2_SMALL, PLAN, GPU, measurement=faster).time.seconds \
        < result.time.seconds


def test_matmul_to_step_times_a_model_given_by_parameter_count():
    # Without layers there are no kernels to time: the measured matmul x matmul_to_step.
    opaque = ModelSpec(id="o", name="o", kind="opaque", params_override=100_000_000,
                       flops_per_sample=2e9)
    plan = Plan(task="pretrain", precision="bf16", dataset_samples=1e6)
    result = estimate(opaque, plan, GPU, measurement=M50)
    assert result.time.seconds == pytest.approx(result.time.flops_total / (50e12 * 0.6))
    assert result.assumptions["matmul_to_step"] == 0.6
    result = estimate(opaque, plan, GPU, Assumptions(matmul_to_step=0.5), measurement=M50)
    assert result.time.seconds == pytest.approx(result.time.flops_total / 25e12)
    with pytest.raises(ValueError, match="matmul_to_step"):
        Assumptions(matmul_to_step=1.5)


def test_without_a_measurement_the_catalog_peak_and_efficiency_are_used():
    # A 16-bit plan of a layered model is timed from kernel rates x the in-situ factor
    # (tests/test_insitu.py); the plan's own efficiency keeps the flat formula exactly.
    result = estimate(GPT2_SMALL, PLAN.with_changes(efficiency=0.4), GPU)
    assert result.time.seconds == pytest.approx(result.time.flops_total / (100e12 * 0.4))
    assert result.assumptions["efficiency_source"] == "plan"
    result = estimate(GPT2_SMALL, PLAN, GPU)
    a = result.assumptions
    assert a["efficiency_source"] == "assumed"
    assert "in-situ factor 0.73" in a["efficiency_basis"]
    assert result.time.seconds == pytest.approx(
        result.time.flops_total / (100e12 * a["efficiency"]))
    assert "measured_matmul_tflops" not in result.assumptions


@pytest.mark.parametrize(("measurement", "plan", "why"), [
    (Measurement(50.0, "fp32", "2026-12-01"), PLAN, "measured fp32"),
    (M50, Plan(task="pretrain", precision="fp16", seq_len=1024, dataset_tokens=1e9),
     "measured bf16"),
    (Measurement(50.0, "bf16", "2026-12-01", gpu_id="other-gpu"), PLAN, "other-gpu"),
    (M50, Plan(task="pretrain", precision="bf16", seq_len=1024, dataset_tokens=1e9,
               efficiency=0.5), "own efficiency"),
])
def test_a_measurement_that_does_not_apply_is_ignored_and_says_why(measurement, plan, why):
    plain = estimate(GPT2_SMALL, plan, GPU)
    result = estimate(GPT2_SMALL, plan, GPU, measurement=measurement)
    assert result.time.seconds == pytest.approx(plain.time.seconds)
    assert result.assumptions["efficiency_source"] == plain.assumptions["efficiency_source"]
    assert why in result.assumptions["measured_ignored"]


def test_a_measurement_rejects_nonsense():
    with pytest.raises(ValueError):
        Measurement(0.0, "bf16", "2026-12-01")


# --------------------------------------------------------------------------- end to end
# 8-bit AdamW: the plan fits the card (a plan that does not fit exits 3).
ARGS = ["estimate", "--model", "llama-3.2-1b", "--task", "pretrain", "--precision", "bf16",
        "--tokens", "1B", "--gpu", "rtx-4090", "--optimizer", "adamw8bit"]


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def measured(tmp_path, monkeypatch):
    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path / "data"))
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    history.record(make_run(40.0), timestamp="2026-11-01T09:00:00Z")
    history.record(make_run(50.0), timestamp="2026-12-01T09:00:00Z")


def test_cli_estimate_uses_the_latest_stored_measurement(measured, capsys):
    code, out, err = _run(capsys, *ARGS, "--json")
    assert code == 0, err
    data = json.loads(out)
    a = data["assumptions"]
    assert a["efficiency_source"] == "measured 2026-12-01"
    assert a["measured_matmul_tflops"] == 50.0
    achieved = data["time"]["achieved_tflops_per_gpu"]
    # The plan's kernels with the measured matmul (not the card's 165 TFLOPS figures).
    assert achieved == pytest.approx(a["efficiency"] * a["peak_tflops"])
    assert achieved < 50.0
    assert data["time"]["seconds"] == pytest.approx(
        data["compute"]["flops_total"] / (achieved * 1e12))
    assert a["peak_tflops_source"] == "catalog: rtx-4090"


def test_cli_estimate_text_says_measured_on_the_time_line(measured, capsys):
    code, out, _ = _run(capsys, *ARGS)
    assert code == 0
    [line] = [x for x in out.splitlines() if x.startswith("Time on")]
    assert "measured 2026-12-01" in line and "50 TFLOPS bf16 matmul" in line


def test_cli_estimate_no_measured_ignores_the_history(measured, capsys):
    code, out, _ = _run(capsys, *ARGS, "--no-measured", "--json")
    assert code == 0
    assert json.loads(out)["assumptions"]["efficiency_source"] == "assumed"


def test_cli_estimate_without_history_is_unchanged(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path / "empty"))
    code, out, err = _run(capsys, *ARGS, "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["assumptions"]["efficiency_source"] == "assumed"


def test_cli_estimate_reports_a_corrupt_history_and_still_answers(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    (tmp_path / "probes").mkdir()
    (tmp_path / "probes" / "x.json").write_text("{", encoding="utf-8")
    code, out, err = _run(capsys, *ARGS, "--json")
    assert code == 0
    assert "x.json" in err and "kept as" in err
    assert json.loads(out)["assumptions"]["efficiency_source"] == "assumed"


# --------------------------------------------------------------------------- step, bandwidth
STEP40 = Measurement(achieved_tflops=40.0, dtype="bf16", when="2026-12-02T10:00:00Z",
                     kind="step", source="probe training step", shape="hidden 768")


def test_a_step_measurement_times_the_plan_as_measured_without_matmul_to_step():
    result = estimate(GPT2_SMALL, PLAN, GPU, measurement=STEP40)
    assert result.time.seconds == pytest.approx(result.time.flops_total / 40e12, rel=1e-9)
    a = result.assumptions
    assert a["measured_kind"] == "step"
    assert a["measured_step_tflops"] == 40.0
    assert a["measured_shape"] == "hidden 768"
    assert "matmul_to_step" not in a
    assert a["efficiency"] == pytest.approx(0.4)


def test_from_a_list_the_step_wins_over_a_newer_matmul_and_other_dtypes_are_skipped():
    newer_matmul = Measurement(90.0, "bf16", "2026-12-03T00:00:00Z")
    fp16_step = Measurement(70.0, "fp16", "2026-12-04T00:00:00Z", kind="step")
    result = estimate(GPT2_SMALL, PLAN, GPU, measurement=[M50, newer_matmul, fp16_step,
                                                           STEP40])
    assert result.time.seconds == pytest.approx(result.time.flops_total / 40e12, rel=1e-9)
    # Without the step, the newest matmul at bf16 counts.
    result = estimate(GPT2_SMALL, PLAN, GPU, measurement=[M50, newer_matmul, fp16_step])
    alone = estimate(GPT2_SMALL, PLAN, GPU, measurement=newer_matmul)
    assert result.time.seconds == pytest.approx(alone.time.seconds, rel=1e-12)
    assert result.assumptions["measured_matmul_tflops"] == 90.0


def test_a_list_with_nothing_at_the_plans_dtype_says_so():
    result = estimate(GPT2_SMALL, PLAN, GPU,
                      measurement=[Measurement(70.0, "fp16", "2026-12-04", kind="step")])
    assert result.assumptions["efficiency_source"] == "assumed"
    assert "nothing measured at bf16" in result.assumptions["measured_ignored"]


def test_a_bandwidth_measurement_times_decoding_at_the_measured_rate():
    infer = Plan(task="infer", precision="bf16", seq_len=512, new_tokens=128, micro_batch=1)
    bw = Measurement(None, None, "2026-12-02T11:00:00Z", kind="bandwidth",
                     bandwidth_gb_s=400.0, source="probe bandwidth (copy)")
    plain = estimate(GPT2_SMALL, infer, GPU)
    result = estimate(GPT2_SMALL, infer, GPU, measurement=[bw])
    # Decode of a small model at batch 1 is bandwidth-bound: each step reads the weights
    # and the KV cache once. Catalog: bandwidth x 0.8; measured: 400 GB/s as is.
    catalog_rate = GPU.memory_bandwidth_gb_s * 0.8
    assert plain.time.decode_tokens_per_s / result.time.decode_tokens_per_s == pytest.approx(
        catalog_rate / 400.0, rel=1e-9)
    assert result.assumptions["bandwidth_source"] == "measured 2026-12-02"
    assert result.assumptions["memory_bandwidth_gb_s"] == 400.0
    # A training plan ignores a bandwidth measurement.
    train = estimate(GPT2_SMALL, PLAN, GPU, measurement=bw)
    assert "decoding" in train.assumptions["measured_ignored"]


def test_measurements_reject_a_bandwidth_without_a_rate_and_unknown_kinds():
    with pytest.raises(ValueError, match="bandwidth_gb_s"):
        Measurement(None, None, "2026-12-02", kind="bandwidth")
    with pytest.raises(ValueError, match="kind"):
        Measurement(1.0, "bf16", "2026-12-02", kind="guess")
    with pytest.raises(ValueError, match="dtype"):
        Measurement(1.0, None, "2026-12-02", kind="step")
