"""A pinned multi-GPU layout: in the plan, in plan files, in the shared state (with undo) and
on the command line (``estimate --plan FILE``)."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.cli import main
from gpuadvisor.core.layout_pins import layout_pin_problem
from gpuadvisor.core.plan import Plan
from gpuadvisor.workspace.planfile import PlanFileError, load_plan, parse_plan_dict, save_plan
from gpuadvisor.workspace.state import PlanState


def _pretrain(state: PlanState, n_gpus: int = 8) -> None:
    assert state.set_gpu("h100-sxm")
    assert state.update(task="pretrain", n_gpus=n_gpus, checkpointing="full", micro_batch=1,
                        grad_accum=4)


@pytest.fixture
def state() -> PlanState:
    return PlanState()


@pytest.fixture
def errors(state: PlanState) -> list:
    seen: list = []
    state.error.connect(lambda field, message: seen.append((field, message)))
    return seen


# --------------------------------------------------------------------------- the plan
def test_pins_are_free_by_default_and_carried_by_with_changes():
    plan = Plan(task="pretrain", n_gpus=8)
    assert (plan.tp, plan.pp, plan.vpp, plan.cp, plan.ep) == (None,) * 5
    assert plan.layout_global_batch is None and plan.layout_pins == {}
    pinned = plan.with_changes(tp=2, pp=2, layout_global_batch=64)
    assert pinned.layout_pins == {"tp": 2, "pp": 2}
    assert pinned.layout_global_batch == 64
    # A copy of the plan on one GPU (what the layout model makes) stays a valid plan.
    assert pinned.with_changes(n_gpus=1).tp == 2


@pytest.mark.parametrize("field, value", [("tp", 0), ("pp", -2), ("cp", 1.5), ("ep", True),
                                          ("vpp", "2"), ("layout_global_batch", 0)])
def test_a_pin_that_is_not_a_positive_whole_number_is_refused_by_name(field, value):
    with pytest.raises(ValueError, match=rf"^{field} must be a positive whole number"):
        Plan(task="pretrain", n_gpus=8, **{field: value})


def test_virtual_stages_need_a_pinned_pipeline():
    with pytest.raises(ValueError, match=r"^vpp 2 interleaves a pipeline"):
        Plan(task="pretrain", n_gpus=8, vpp=2)
    assert Plan(task="pretrain", n_gpus=8, pp=2, vpp=2).vpp == 2


@pytest.mark.parametrize("pins, n_gpus, named", [
    ({"tp": 3}, 16, "tp 3 does not divide n_gpus 16"),
    ({"tp": 4, "pp": 8}, 16, "tp 4 x pp 8 = 32 GPUs per replica"),
    # 16 / pp 2 = 8 tensor-, data- and context-parallel ranks: 16 expert groups cannot fit,
    # even folded over the tensor-parallel ranks.
    ({"tp": 2, "pp": 2, "ep": 16}, 16, "n_gpus / pp = 8"),
])
def test_pins_the_gpu_count_cannot_hold_are_named(pins, n_gpus, named):
    problem = layout_pin_problem(Plan(task="pretrain", n_gpus=n_gpus, **pins))
    assert problem is not None and named in problem


def test_pins_that_divide_the_gpus_are_fine():
    assert layout_pin_problem(Plan(task="pretrain", n_gpus=16, tp=2, pp=2, cp=2, ep=4)) is None


# --------------------------------------------------------------------------- plan files
def test_a_plan_file_keeps_its_pins_through_save_and_open(tmp_path, state):
    _pretrain(state, 16)
    assert state.pin_layout(tp=2, pp=2, vpp=2, layout_global_batch=128)
    path = save_plan(state, tmp_path / "pinned.gpuplan")
    saved = json.loads(path.read_text(encoding="utf-8"))["plan"]
    assert (saved["tp"], saved["pp"], saved["vpp"], saved["cp"], saved["ep"]) == (2, 2, 2,
                                                                                 None, None)
    assert saved["layout_global_batch"] == 128
    other = PlanState()
    other.from_dict(load_plan(path))
    assert other.plan == state.plan
    assert other.plan.layout_pins == {"tp": 2, "pp": 2, "vpp": 2}


def test_a_plan_file_written_before_pins_existed_loads_with_a_free_layout(tmp_path):
    old = Plan(task="pretrain", n_gpus=8).to_dict()
    for name in ("tp", "pp", "vpp", "cp", "ep", "layout_global_batch"):
        del old[name]
    data = {"schema_version": 1, "app": "gpuadvisor", "model": {"preset": "llama-3.1-8b"},
            "plan": old, "gpu": "h100-sxm", "assumptions": {}}
    doc = parse_plan_dict(data)
    assert doc.plan.layout_pins == {} and doc.plan.layout_global_batch is None


@pytest.mark.parametrize("pins, expected", [
    ({"tp": 0}, "plan.tp: tp must be a positive whole number"),
    ({"tp": 3}, "plan.tp: tp 3 does not divide n_gpus 8"),
    ({"vpp": 4}, "plan.vpp: vpp 4 interleaves a pipeline"),
    ({"ep": 16}, "plan.ep: ep 16 does not divide n_gpus 8"),
])
def test_a_bad_pin_in_a_file_names_the_file_and_the_field(tmp_path, pins, expected):
    path = tmp_path / "bad.gpuplan"
    plan = Plan(task="pretrain", n_gpus=8).to_dict() | pins
    path.write_text(json.dumps({"schema_version": 1, "app": "gpuadvisor",
                                "model": {"preset": "llama-3.1-8b"}, "plan": plan,
                                "gpu": None, "assumptions": {}}), encoding="utf-8")
    with pytest.raises(PlanFileError) as info:
        load_plan(path)
    assert str(info.value).startswith(f"{path}: {expected}")


# --------------------------------------------------------------------------- the state
def test_tp_2_pinned_on_8_gpus_times_the_plan_with_tp_2_and_4_replicas(state):
    _pretrain(state)
    assert state.pin_layout(tp=2, pp=1, cp=1)
    layout = state.estimate.layout.chosen.layout
    # 8 GPUs = tp 2 x pp 1 x cp 1 x dp  ->  dp = 8 / 2 = 4.
    assert (layout.tp, layout.pp, layout.cp, layout.dp) == (2, 1, 1, 4)
    # The global batch stays the plan's: 1 x 4 x 8 = 32 sequences; at the plan's
    # micro-batch 1 each of the 4 replicas accumulates 32 / 4 = 8 micro-batches.
    assert (layout.micro_batch, layout.grad_accum) == (1, 8)
    assert state.estimate.layout.global_batch == 32


def test_pinning_the_chosen_layout_keeps_the_estimate(state):
    _pretrain(state)
    chosen = state.estimate.layout.chosen.layout
    seconds = state.estimate.time.seconds
    assert state.pin_chosen_layout()
    # A dense model: expert parallelism stays free.
    assert state.plan.layout_pins == {"tp": chosen.tp, "pp": chosen.pp, "vpp": chosen.vpp,
                                      "cp": chosen.cp}
    assert state.estimate.time.seconds == pytest.approx(seconds)


def test_undo_restores_the_pins_before_and_redo_makes_them_again(state):
    _pretrain(state)
    assert state.pin_layout(tp=2)
    state._history.mark_saved()  # the next change is a step of its own
    assert state.pin_layout(tp=4)
    assert state.undo_what == "layout"
    assert state.estimate.layout.chosen.layout.tp == 4
    assert state.undo()
    assert state.plan.tp == 2 and state.estimate.layout.chosen.layout.tp == 2
    assert state.redo()
    assert state.plan.tp == 4
    assert state.unpin_layout() and state.plan.layout_pins == {}
    assert state.undo() and state.plan.tp == 4


def test_a_pin_the_gpus_cannot_hold_is_refused_with_its_field(state, errors):
    _pretrain(state)
    before = state.plan
    assert not state.pin_layout(tp=3)
    assert errors[-1] == ("tp", "tp 3 does not divide n_gpus 8")
    assert state.plan == before


def test_fewer_gpus_free_the_pins_they_cannot_hold_and_inference_frees_all(state):
    _pretrain(state)
    assert state.pin_layout(tp=4, pp=2)
    assert state.update(n_gpus=16)
    assert state.plan.layout_pins == {"tp": 4, "pp": 2}
    assert state.update(n_gpus=6)  # 4 x 2 does not divide 6
    assert state.plan.layout_pins == {}
    assert state.pin_layout(tp=2, layout_global_batch=12)
    assert state.update(task="infer")
    assert state.plan.layout_pins == {} and state.plan.layout_global_batch is None


def test_a_pinned_layout_that_cannot_hold_the_global_batch_keeps_the_flat_time(state):
    _pretrain(state)
    flat_warnings = len(state.estimate.warnings)
    # tp 2 on 8 GPUs leaves 4 replicas; 6 sequences do not split over 4.
    assert state.pin_layout(tp=2, pp=1, cp=1, layout_global_batch=6)
    assert state.estimate.layout is None
    warning = state.estimate.warnings[-1]
    assert len(state.estimate.warnings) == flat_warnings + 1
    assert warning.startswith("layout: no layout of 8 GPUs holds a global batch of 6")
    assert warning.endswith("(pinned: TP 2, PP 1, CP 1)")


# --------------------------------------------------------------------------- command line
def _plan_file(tmp_path, **pins) -> str:
    path = tmp_path / "pinned.gpuplan"
    plan = Plan(task="pretrain", n_gpus=16, micro_batch=1, grad_accum=4,
                checkpointing="full", **pins).to_dict()
    path.write_text(json.dumps({"schema_version": 1, "app": "gpuadvisor",
                                "model": {"preset": "llama-3.1-8b"}, "plan": plan,
                                "gpu": "h100-sxm", "assumptions": {}}), encoding="utf-8")
    return str(path)


def _time(capsys, *argv) -> dict:
    main(["estimate", *argv, "--json"])
    out, _ = capsys.readouterr()
    return json.loads(out)


def test_the_plan_files_pins_lay_out_the_time(tmp_path, capsys):
    data = _time(capsys, "--plan", _plan_file(tmp_path, tp=2, pp=2))
    layout = data["time"]["layout"]
    # 16 GPUs = tp 2 x pp 2 x cp 1 x dp  ->  dp = 4 (cp is free but 2048 tokens are too
    # short for it).
    assert (layout["tp"], layout["pp"], layout["cp"], layout["dp"]) == (2, 2, 1, 4)
    assert data["plan"]["n_gpus"] == 16 and data["plan"]["tp"] == 2


def test_a_tp_flag_overrides_the_files_pin(tmp_path, capsys):
    path = _plan_file(tmp_path, tp=2, pp=2)
    after = _time(capsys, "--plan", path, "--tp", "4")["time"]["layout"]
    before = _time(capsys, "--tp", "4", "--plan", path)["time"]["layout"]
    for layout in (after, before):
        # 16 = tp 4 x pp 2 x dp  ->  dp = 2; the file's pp stays.
        assert (layout["tp"], layout["pp"], layout["dp"]) == (4, 2, 2)


def test_the_plan_file_and_a_model_flag_are_one_or_the_other(tmp_path, capsys):
    assert main(["estimate", "--plan", _plan_file(tmp_path), "--model", "gpt2"]) == 2
    assert main(["estimate", "--task", "full"]) == 2
    _, err = capsys.readouterr()
    assert "one of the arguments --model --plan is required" in err


def test_a_bad_plan_file_is_one_line_naming_the_file_and_field(tmp_path, capsys):
    path = _plan_file(tmp_path)
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    data["plan"]["tp"] = 3
    with open(path, "w", encoding="utf-8") as out:
        json.dump(data, out)
    assert main(["estimate", "--plan", path]) == 2
    _, err = capsys.readouterr()
    assert err.strip() == (f"gpuadvisor estimate: --plan: {path}: plan.tp: tp 3 does not "
                           "divide n_gpus 16")
