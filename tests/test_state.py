"""PlanState: the shared, Qt-free plan model every GUI page reads and writes.

Expected numbers are computed here independently with core (``estimate``, ``memory_breakdown``)
on plans built by hand, never read back from the state under test.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuadvisor.catalog import load_gpus, load_models
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
from gpuadvisor.core.estimate import estimate, sweep_fit_map
from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.core.memory import TERMS, memory_breakdown
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import TASKS, Plan
from gpuadvisor.workspace.planfile import PlanFileError
from gpuadvisor.workspace.state import DEFAULT_PLAN, PlanState, couple_plan_changes

MODELS = load_models()
GPUS = load_gpus()
HF_CONFIGS = Path(__file__).parent / "data" / "hf_configs"
ROOT = Path(__file__).resolve().parents[1]


class Recorder:
    """Collects what a PlanState emits."""

    def __init__(self, state: PlanState) -> None:
        self.changed: list = []
        self.errors: list[tuple[str, str]] = []
        state.changed.connect(self.changed.append)
        state.error.connect(lambda field, message: self.errors.append((field, message)))


@pytest.fixture
def state() -> PlanState:
    return PlanState()


@pytest.fixture
def seen(state: PlanState) -> Recorder:
    return Recorder(state)


def _tiny_custom_model() -> ModelSpec:
    return ModelSpec(id="my-tiny", name="My tiny LM", n_layers=4, d_model=256, n_heads=4,
                     d_ff=1024, vocab_size=1000, max_positions=1024)


# --------------------------------------------------------------------------- defaults
def test_new_state_is_llama_8b_qlora_with_full_checkpointing_on_an_rtx_4090(state):
    assert state.model_id == "llama-3.1-8b"
    assert state.model == MODELS["llama-3.1-8b"]
    assert state.plan == Plan(task="qlora", checkpointing="full") == DEFAULT_PLAN
    assert state.gpu_id == "rtx-4090"
    assert state.gpu == GPUS["rtx-4090"]
    # what CUDA can allocate: the driver's 24,564 MiB less its reserve
    assert state.capacity_bytes == (24_564 - DRIVER_RESERVE_MIB) * 2**20
    assert not state.is_custom_model
    expected = estimate(MODELS["llama-3.1-8b"], DEFAULT_PLAN, GPUS["rtx-4090"])
    assert state.estimate.memory == expected.memory
    assert state.estimate.verdict == expected.verdict == "fits"


def test_catalogs_are_read_only_views(state):
    assert set(state.models) == set(MODELS)
    assert set(state.gpus) == set(GPUS)
    with pytest.raises(TypeError):
        state.gpus["mine"] = GPUS["rtx-4090"]  # type: ignore[index]


def test_state_takes_custom_catalogs():
    models = {"my-tiny": _tiny_custom_model()}
    gpus = {"rtx-3090": GPUS["rtx-3090"]}
    state = PlanState(models=models, gpus=gpus)
    assert state.model_id == "my-tiny"
    assert state.gpu_id is None  # the default GPU is not in this catalog
    # No reference A100 either: time falls back to the only GPU there is.
    assert state.estimate.time_gpu.id == "rtx-3090"


# --------------------------------------------------------------------------- update
def test_update_micro_batch_emits_the_estimate_core_gives_for_that_plan(state, seen):
    assert state.update(micro_batch=8) is True
    expected = estimate(MODELS["llama-3.1-8b"],
                        Plan(task="qlora", checkpointing="full", micro_batch=8),
                        GPUS["rtx-4090"])
    assert len(seen.changed) == 1
    emitted = seen.changed[0]
    assert emitted.memory == expected.memory
    assert emitted.time.seconds == pytest.approx(expected.time.seconds)
    assert emitted is state.estimate
    assert state.plan.micro_batch == 8
    assert seen.errors == []


def test_negative_micro_batch_is_rejected_with_the_field_named_and_the_old_plan_kept(state, seen):
    before = state.plan
    assert state.update(micro_batch=-1) is False
    assert len(seen.errors) == 1
    field, message = seen.errors[0]
    assert field == "micro_batch"
    assert "positive" in message
    assert state.plan == before
    assert seen.changed == []


def test_unknown_plan_field_is_reported_not_raised(state, seen):
    assert state.update(batch=4) is False
    assert seen.errors == [("plan", "unknown plan field(s): batch")]


def test_an_update_that_changes_nothing_emits_nothing(state, seen):
    assert state.update(micro_batch=state.plan.micro_batch) is True
    assert seen.changed == []


def test_switching_task_from_qlora_to_full_clears_lora_rank_and_quant(state, seen):
    assert state.update(lora_rank=64, quant="nf4")
    assert state.update(task="full")
    assert state.plan.task == "full"
    assert state.plan.lora_rank is None
    assert state.plan.quant is None
    assert seen.errors == []


def test_switching_from_inference_with_int4_weights_to_lora_clears_quant(state):
    assert state.update(task="infer", quant="int4")
    assert state.update(task="lora")
    assert state.plan.quant is None


def test_switching_to_qlora_from_unquantized_inference_takes_the_default_quant(state):
    assert state.update(task="infer", quant="none")
    assert state.update(task="qlora")
    assert state.plan.quant is None
    assert state.plan.effective_quant == "nf4-dq"


def test_an_explicit_contradiction_is_reported_not_silently_fixed(state, seen):
    assert state.update(task="full", lora_rank=8) is False
    assert seen.errors[0][0] == "lora_rank"
    assert state.plan.task == "qlora"


def test_zero_stage_0_resets_offload_to_none(state):
    assert state.update(offload="optimizer", zero_stage=2)
    assert state.update(zero_stage=0)
    assert (state.plan.zero_stage, state.plan.offload) == (0, "none")


def test_zero_stage_below_3_turns_parameter_offload_into_optimizer_offload(state):
    assert state.update(offload="params")
    assert state.plan.zero_stage == 3  # parameter offload raised ZeRO to 3
    assert state.update(zero_stage=2)
    assert (state.plan.zero_stage, state.plan.offload) == (2, "optimizer")


def test_optimizer_offload_without_zero_raises_zero_to_2(state):
    assert state.update(offload="optimizer")
    assert (state.plan.zero_stage, state.plan.offload) == (2, "optimizer")


def test_giving_the_data_set_in_tokens_clears_samples_and_back(state):
    assert state.update(dataset_samples=10_000)
    assert state.update(dataset_tokens=1e9)
    assert (state.plan.dataset_tokens, state.plan.dataset_samples) == (1e9, None)
    assert state.update(dataset_samples=5_000)
    assert (state.plan.dataset_tokens, state.plan.dataset_samples) == (None, 5_000)


_STICKY = [
    {"task": "qlora", "lora_rank": 32, "quant": "nf4"},
    {"task": "lora", "lora_rank": 8},
    {"task": "infer", "quant": "int4"},
    {"task": "full", "zero_stage": 3, "offload": "params"},
    {"task": "pretrain", "zero_stage": 1, "offload": "optimizer"},
]


@pytest.mark.parametrize(("start", "task"), list(itertools.product(_STICKY, TASKS)))
def test_every_task_switch_succeeds_from_any_valid_plan(start, task):
    plan = Plan(**start)
    new = plan.with_changes(**couple_plan_changes(plan, {"task": task}))
    assert new.task == task


@pytest.mark.parametrize(("start", "zero"), list(itertools.product(_STICKY, (0, 1, 2, 3))))
def test_every_zero_stage_switch_succeeds_from_any_valid_plan(start, zero):
    plan = Plan(**start)
    assert plan.with_changes(**couple_plan_changes(plan, {"zero_stage": zero})).zero_stage == zero


@pytest.mark.parametrize(("start", "offload"),
                         list(itertools.product(_STICKY, ("none", "optimizer", "params"))))
def test_every_offload_switch_succeeds_from_any_valid_plan(start, offload):
    plan = Plan(**start)
    assert plan.with_changes(**couple_plan_changes(plan, {"offload": offload})).offload == offload


def test_set_efficiency_sets_the_plan_field_and_none_restores_the_default(state):
    assert state.set_efficiency(0.25)
    assert state.plan.efficiency == 0.25
    assert state.estimate.assumptions["efficiency_source"] == "plan"
    assert state.set_efficiency(None)
    assert state.estimate.assumptions["efficiency_source"] == "assumed"


def test_efficiency_above_1_is_rejected(state, seen):
    assert state.set_efficiency(1.5) is False
    assert seen.errors[0][0] == "efficiency"


# --------------------------------------------------------------------------- model and GPU
def test_set_model_to_a_preset(state, seen):
    assert state.set_model("mistral-7b")
    assert state.model == MODELS["mistral-7b"]
    assert state.model_id == "mistral-7b"
    assert seen.changed[-1].model == MODELS["mistral-7b"]


def test_unknown_preset_is_reported_with_a_suggestion(state, seen):
    assert state.set_model("mistral-7") is False
    field, message = seen.errors[0]
    assert field == "model"
    assert "mistral-7b" in message
    assert state.model_id == "llama-3.1-8b"


def test_set_model_to_a_custom_spec(state):
    custom = _tiny_custom_model()
    assert state.set_model(custom)
    assert state.is_custom_model
    assert state.model_id == "my-tiny"
    assert state.estimate.params.total == custom.params().total


def test_a_spec_equal_to_a_preset_counts_as_that_preset(state):
    assert state.set_model(MODELS["gpt2"])
    assert not state.is_custom_model
    assert state.to_dict()["model"] == {"preset": "gpt2"}


def test_switching_to_an_opaque_model_drops_a_data_set_given_in_tokens(state):
    assert state.update(task="full", dataset_tokens=1e9)
    assert state.set_model("resnet-50")
    assert state.plan.dataset_tokens is None


def test_tokens_on_an_opaque_model_are_rejected_and_name_the_field(state, seen):
    state.set_model("resnet-50")
    assert state.update(task="full")
    assert state.update(dataset_tokens=1e9) is False
    assert seen.errors[-1][0] == "dataset_tokens"
    assert state.plan.dataset_tokens is None


def test_a_sequence_beyond_the_context_is_kept_and_warned_about(state):
    assert state.set_model("gpt2")  # learned positions: 1024
    assert state.update(task="full", seq_len=4096)
    assert state.plan.seq_len == 4096
    assert any("context of 1024" in w for w in state.estimate.warnings)
    assert state.warnings == state.estimate.warnings
    assert state.update(seq_len=1024)
    assert not any("context" in w for w in state.warnings)


def test_no_gpu_times_on_the_reference_a100(state, seen):
    assert state.set_gpu(None)
    assert state.gpu is None
    assert state.capacity_bytes is None
    assert seen.changed[-1].fits is None
    assert seen.changed[-1].time_gpu.id == "a100-sxm-80gb"
    assert state.sweeps.largest_fitting_micro_batch() is None
    assert state.levers() == []


def test_unknown_gpu_is_reported(state, seen):
    assert state.set_gpu("rtx-9090") is False
    assert seen.errors[0][0] == "gpu"
    assert state.gpu_id == "rtx-4090"


# --------------------------------------------------------------------------- assumptions
def test_assumption_override_changes_the_estimate(state, seen):
    assert state.set_assumption("cuda_context_bytes", 2e9)
    expected = estimate(MODELS["llama-3.1-8b"], DEFAULT_PLAN, GPUS["rtx-4090"],
                        DEFAULT_ASSUMPTIONS.with_overrides({"cuda_context_bytes": 2e9}))
    assert seen.changed[-1].memory == expected.memory
    assert state.assumption_overrides == {"cuda_context_bytes": 2e9}


def test_invalid_assumption_is_reported_and_kept_out(state, seen):
    assert state.set_assumption("efficiency_train", 2.0) is False
    assert seen.errors == [("efficiency_train", seen.errors[0][1])]
    assert "efficiency_train" in seen.errors[0][1]
    assert state.assumptions == DEFAULT_ASSUMPTIONS
    assert state.set_assumption("no_such_thing", 1) is False
    assert seen.errors[-1][0] == "assumptions"


def test_none_removes_an_assumption_override(state):
    state.set_assumption("efficiency_train", 0.3)
    assert state.set_assumption("efficiency_train", None)
    assert state.assumption_overrides == {}
    assert state.assumptions == DEFAULT_ASSUMPTIONS
    state.set_assumption("comm_overlap", 0.9)
    assert state.reset_assumptions()
    assert state.assumptions == DEFAULT_ASSUMPTIONS


# --------------------------------------------------------------------------- config.json
def test_config_json_in_a_hub_style_folder_becomes_a_custom_model(state, tmp_path):
    folder = tmp_path / "Mistral-7B-v0.1"
    folder.mkdir()
    shutil.copy(HF_CONFIGS / "mistral-7b.json", folder / "config.json")
    assert state.load_config_json(folder / "config.json")
    assert state.is_custom_model
    assert state.model_id == "Mistral-7B-v0.1"
    assert state.model.params().total == MODELS["mistral-7b"].params().total


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "file not found"),
        ('{"model_type": "llama",\n  "hidden_size": }', "line 2"),
        ('{"model_type": "t5"}', "unsupported model_type"),
        ("[1, 2]", "JSON object"),
    ],
    ids=["missing", "bad-json", "unknown-architecture", "not-an-object"],
)
def test_bad_config_json_is_reported_on_the_model_field_naming_the_file(
        state, seen, tmp_path, content, words):
    path = tmp_path / "weird.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert state.load_config_json(path) is False
    field, message = seen.errors[0]
    assert field == "model"
    assert str(path) in message
    assert words in message
    assert state.model_id == "llama-3.1-8b"


# --------------------------------------------------------------------------- chart helpers
def test_fit_map_is_core_sweep_fit_map(state):
    mbs, seqs = [1, 2, 4, 8], [512, 2048, 8192]
    expected = sweep_fit_map(MODELS["llama-3.1-8b"], DEFAULT_PLAN, mbs, seqs)
    np.testing.assert_array_equal(state.sweeps.fit_map(mbs, seqs), expected)
    assert state.sweeps.fit_map(mbs, seqs).shape == (4, 3)


def test_memory_vs_micro_batch_matches_one_estimate_per_point(state):
    values = [1, 2, 3, 16]
    totals = state.sweeps.memory_vs_micro_batch(values)
    for b, total in zip(values, totals, strict=True):
        plan = DEFAULT_PLAN.with_changes(micro_batch=b)
        assert total == pytest.approx(memory_breakdown(MODELS["llama-3.1-8b"], plan).total)


def test_memory_vs_seq_gives_totals_and_every_term_as_arrays(state):
    values = np.array([256, 1024, 4096])
    parts = state.sweeps.breakdown_vs_seq(values)
    for name in TERMS:
        assert np.shape(getattr(parts, name)) == (3,)
    summed = sum(getattr(parts, name) for name in TERMS)
    np.testing.assert_allclose(summed, state.sweeps.memory_vs_seq(values))
    assert np.all(np.diff(state.sweeps.memory_vs_seq(values)) > 0)
    per_b = state.sweeps.breakdown_vs_micro_batch([1, 2])
    assert per_b.weights[0] == per_b.weights[1]  # weights do not grow with the batch


def _fits(plan: Plan) -> bool:
    return bool(estimate(MODELS["llama-3.1-8b"], plan, GPUS["rtx-4090"]).fits)


def test_largest_fitting_micro_batch_fits_and_one_more_does_not(state):
    state.update(seq_len=4096)
    b = state.sweeps.largest_fitting_micro_batch()
    base = DEFAULT_PLAN.with_changes(seq_len=4096)
    assert b >= 1
    assert _fits(base.with_changes(micro_batch=b))
    assert not _fits(base.with_changes(micro_batch=b + 1))


def test_largest_fitting_seq_fits_and_one_more_does_not(state):
    s = state.sweeps.largest_fitting_seq()
    assert s > 2048
    assert _fits(DEFAULT_PLAN.with_changes(seq_len=s))
    assert not _fits(DEFAULT_PLAN.with_changes(seq_len=s + 1))


def test_nothing_fits_gives_zero(state):
    state.set_model("llama-3.1-70b")
    state.update(task="full", checkpointing="none")
    assert state.sweeps.largest_fitting_micro_batch() == 0
    assert state.sweeps.largest_fitting_seq() == 0


def test_largest_fitting_micro_batch_stops_at_the_limit(state):
    state.set_model("gpt2")
    state.set_gpu("h200-sxm")
    assert state.sweeps.largest_fitting_micro_batch(limit=5) == 5


def test_levers_for_a_full_fine_tune_on_a_4090_and_applying_one(state, seen):
    state.update(task="full", checkpointing="none", micro_batch=4)
    assert state.estimate.fits is False
    levers = state.levers()
    assert levers, "a full fine-tune of an 8B model on 24 GB must have levers"
    assert all(lv.before_bytes == state.estimate.memory.total for lv in levers)
    lever = next(lv for lv in levers if lv.id == "qlora")
    assert state.apply_lever(lever)
    assert state.plan == lever.plan
    assert seen.changed[-1].memory.total == pytest.approx(lever.after_bytes)


# --------------------------------------------------------------------------- persistence
def test_to_dict_has_the_plan_file_layout(state):
    state.set_assumption("efficiency_train", 0.35)
    data = state.to_dict()
    assert data == {
        "schema_version": 1,
        "app": "gpuadvisor",
        "model": {"preset": "llama-3.1-8b"},
        "plan": DEFAULT_PLAN.to_dict(),
        "gpu": "rtx-4090",
        "assumptions": {"efficiency_train": 0.35},
    }
    json.dumps(data)  # JSON-ready


def test_round_trip_through_to_dict_and_from_dict_with_a_preset(state):
    state.update(task="lora", lora_rank=8, micro_batch=2, seq_len=4096)
    state.set_gpu("a100-sxm-80gb")
    state.set_assumption("comm_overlap", 0.7)
    data = json.loads(json.dumps(state.to_dict()))
    other = PlanState()
    seen = Recorder(other)
    other.from_dict(data)
    assert other.plan == state.plan
    assert other.gpu_id == "a100-sxm-80gb"
    assert other.assumptions == state.assumptions
    assert other.to_dict() == state.to_dict()
    assert seen.changed[-1].memory == state.estimate.memory


def test_round_trip_with_a_custom_model(state):
    state.set_model(_tiny_custom_model())
    data = json.loads(json.dumps(state.to_dict()))
    assert data["model"]["custom"]["id"] == "my-tiny"
    other = PlanState()
    other.from_dict(data)
    assert other.is_custom_model
    assert other.model == _tiny_custom_model()


def test_from_dict_with_bad_content_raises_and_changes_nothing(state, seen):
    data = state.to_dict()
    data["plan"]["micro_batch"] = 0
    with pytest.raises(PlanFileError, match="micro_batch"):
        state.from_dict(data)
    data = state.to_dict()
    data["model"] = {"preset": "resnet-50"}
    data["plan"]["dataset_tokens"] = 1e9
    data["plan"].update(task="full", lora_rank=None)
    with pytest.raises(PlanFileError, match="dataset_samples"):
        state.from_dict(data)
    assert state.model_id == "llama-3.1-8b"
    assert seen.changed == []


# --------------------------------------------------------------------------- layering
def test_state_settings_and_planfile_import_with_qt_blocked():
    code = (
        "import importlib.abc, sys\n"
        "class B(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'pyqtgraph', 'torch'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, B())\n"
        "import gpuadvisor.workspace.state, gpuadvisor.workspace.planfile\n"
        "import gpuadvisor.workspace.settings\n"
        "gpuadvisor.workspace.state.PlanState().update(micro_batch=2)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_probe_measurements_of_the_targeted_gpu_time_the_plan():
    from gpuadvisor.core.calibration import Measurement

    state = PlanState()
    state.set_gpu("rtx-4090")
    state.update(task="pretrain", precision="bf16", dataset_tokens=1e9)
    before = state.estimate
    seen = []
    state.changed.connect(seen.append)
    step = Measurement(60.0, "bf16", "2026-12-02T10:00:00Z", kind="step", gpu_id="rtx-4090")
    other = Measurement(500.0, "bf16", "2026-12-02T10:00:00Z", kind="step", gpu_id="h100-sxm")
    unnamed = Measurement(900.0, "bf16", "2026-12-02T10:00:00Z", kind="step")
    state.set_measurements([step, other, unnamed])
    assert state.measurements == (step, other)  # one without a catalog GPU is dropped
    after = state.estimate
    assert len(seen) == 1 and seen[0] is after
    # Hand check: time = training FLOPs / (60 TFLOPS measured); catalog time used 0.4 x peak.
    assert after.time.seconds == pytest.approx(after.time.flops_total / 60e12, rel=1e-9)
    assert before.time.seconds != pytest.approx(after.time.seconds)
    assert after.assumptions["efficiency_source"] == "measured 2026-12-02"
    state.set_gpu("h100-sxm")
    assert state.estimate.time.seconds == pytest.approx(
        state.estimate.time.flops_total / 500e12, rel=1e-9)


def test_a_config_json_the_command_line_refuses_is_refused_by_the_app_alike(state, seen,
                                                                              tmp_path):
    """One reader for a config.json: a 5,000-digit integer is refused naming the file (the
    app's own lax copy used to end in Python's integer-string limit, without the file)."""
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "hidden_size": ' + "9" * 5000 + "}")
    assert not state.load_config_json(path)
    field, message = seen.errors[-1]
    assert field == "model" and str(path) in message and "5000 digits" in message
