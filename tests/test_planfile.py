"""``.gpuplan`` files: atomic writes, and loads that report problems and never touch the file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import Plan
from gpuadvisor.workspace import planfile
from gpuadvisor.workspace.planfile import (
    PlanFileError,
    load_plan,
    parse_plan_dict,
    plan_field_in_message,
    save_plan,
    write_atomic,
)
from gpuadvisor.workspace.state import PlanState


def _good() -> dict:
    return {
        "schema_version": 1,
        "app": "gpuadvisor",
        "model": {"preset": "llama-3.1-8b"},
        "plan": Plan(task="qlora", checkpointing="full", micro_batch=2).to_dict(),
        "gpu": "rtx-4090",
        "assumptions": {"efficiency_train": 0.35},
    }


def _snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


# --------------------------------------------------------------------------- saving
def test_save_then_load_gives_back_the_states_data(tmp_path):
    state = PlanState()
    state.update(micro_batch=4, seq_len=4096)
    path = tmp_path / "mine.gpuplan"
    assert save_plan(state, path) == path
    data = load_plan(path)
    assert data == state.to_dict()
    other = PlanState()
    other.from_dict(data)
    assert other.plan == state.plan


def test_save_leaves_only_the_plan_file_in_the_folder(tmp_path):
    path = tmp_path / "a.gpuplan"
    save_plan(_good(), path)
    save_plan(_good() | {"gpu": None}, path)  # overwrite
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gpuplan"]
    assert load_plan(path)["gpu"] is None
    assert path.read_text(encoding="utf-8").endswith("}\n")


def test_a_failed_replace_keeps_the_old_file_and_removes_the_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "a.gpuplan"
    save_plan(_good(), path)
    before = _snapshot(path)

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(planfile.os, "replace", refuse)
    with pytest.raises(PlanFileError, match="cannot write"):
        save_plan(_good() | {"gpu": None}, path)
    assert _snapshot(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gpuplan"]


def test_data_that_is_not_json_is_refused_before_touching_the_file(tmp_path):
    path = tmp_path / "a.gpuplan"
    save_plan(_good(), path)
    before = _snapshot(path)
    with pytest.raises(PlanFileError, match="JSON"):
        save_plan(_good() | {"plan": {"efficiency": float("nan")}}, path)
    assert _snapshot(path) == before


def test_saving_into_a_missing_folder_is_a_plan_file_error(tmp_path):
    with pytest.raises(PlanFileError, match="cannot write"):
        save_plan(_good(), tmp_path / "no" / "such" / "a.gpuplan")


def test_write_atomic_keeps_the_permission_bits_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("old", encoding="utf-8")
    os.chmod(path, 0o600)
    write_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "new"
    if os.name == "posix":
        assert path.stat().st_mode & 0o777 == 0o600


# --------------------------------------------------------------------------- loading
_BAD_CONTENT = {
    "not-json": ('{\n  "schema_version": 1,\n  "plan": {,}\n}', "line 3, column"),
    "not-an-object": ("[1, 2, 3]", "JSON object, not an array"),
    "no-schema-version": (json.dumps({"app": "gpuadvisor"}), "missing 'schema_version'"),
    "newer-schema": (json.dumps(_good() | {"schema_version": 2}),
                     "made by a newer gpuadvisor (schema 2); this version reads 1"),
    "old-schema": (json.dumps(_good() | {"schema_version": 0}), "unknown schema_version 0"),
    "other-app": (json.dumps(_good() | {"app": "other"}), "not a gpuadvisor plan"),
    "unknown-preset": (json.dumps(_good() | {"model": {"preset": "llama-3.1-9b"}}),
                       "unknown model preset 'llama-3.1-9b' (did you mean llama-3.1-8b"),
    "unknown-gpu": (json.dumps(_good() | {"gpu": "rtx-4091"}), "unknown GPU 'rtx-4091'"),
    "bad-plan-field": (json.dumps(_good() | {"plan": {"micro_batch": 0}}), "plan.micro_batch"),
    "unknown-plan-field": (json.dumps(_good() | {"plan": {"batch": 2}}), "batch"),
    "bad-model-key": (json.dumps(_good() | {"model": {"hf": "x"}}), "'model' must be"),
    "bad-custom-model": (json.dumps(_good() | {"model": {"custom": {"id": "x", "name": "x",
                                                                    "n_layers": -1}}}),
                         "model.custom"),
    "bad-assumption": (json.dumps(_good() | {"assumptions": {"efficiency_train": 3}}),
                       "assumptions: assumption efficiency_train"),
}


@pytest.mark.parametrize(("content", "words"), list(_BAD_CONTENT.values()),
                         ids=list(_BAD_CONTENT))
def test_a_bad_file_is_reported_by_name_and_left_untouched(tmp_path, content, words):
    path = tmp_path / "bad.gpuplan"
    path.write_text(content, encoding="utf-8")
    before = _snapshot(path)
    with pytest.raises(PlanFileError) as caught:
        load_plan(path)
    assert words in str(caught.value)
    assert str(path) in str(caught.value)
    assert caught.value.path == path
    assert _snapshot(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.gpuplan"]


def test_a_missing_file_is_reported(tmp_path):
    with pytest.raises(PlanFileError, match="file not found"):
        load_plan(tmp_path / "gone.gpuplan")


def test_a_binary_file_is_reported_as_not_text(tmp_path):
    path = tmp_path / "bin.gpuplan"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PlanFileError, match="UTF-8"):
        load_plan(path)


def test_a_plan_file_with_a_custom_model_round_trips(tmp_path):
    spec = ModelSpec(id="tiny", name="Tiny", n_layers=2, d_model=128, n_heads=2, d_ff=512,
                     vocab_size=500)
    state = PlanState()
    state.set_model(spec)
    path = save_plan(state, tmp_path / "tiny.gpuplan")
    doc = parse_plan_dict(load_plan(path))
    assert doc.preset_id is None
    assert doc.model == spec


def test_assumptions_may_be_missing_or_null():
    data = _good()
    del data["assumptions"]
    assert parse_plan_dict(data).assumption_overrides == {}
    assert parse_plan_dict(_good() | {"assumptions": None}).assumption_overrides == {}


def test_plan_field_in_message_prefers_the_fields_just_changed():
    message = "offload: optimizer offload needs zero_stage 1, 2 or 3 (DeepSpeed)"
    assert plan_field_in_message(message) == "offload"
    assert plan_field_in_message(message, prefer=["zero_stage"]) == "zero_stage"
    assert plan_field_in_message("effective_quant is odd") is None
    assert plan_field_in_message("nothing here") is None


def test_a_plan_file_without_checkpointing_gets_the_frameworks_default(tmp_path):
    """One set of defaults: a hand-written plan file that leaves checkpointing out trains as
    the command line and the app would (Hugging Face QLoRA: on; pre-training: off)."""
    from gpuadvisor.core.plan import default_checkpointing
    from gpuadvisor.workspace.planfile import parse_plan_dict

    for task, expected in (("qlora", "full"), ("pretrain", "none")):
        doc = parse_plan_dict({"schema_version": 1, "app": "gpuadvisor",
                               "model": {"preset": "llama-3.1-8b"},
                               "plan": {"task": task}}, path=tmp_path / "p.gpuplan")
        assert doc.plan.checkpointing == expected == default_checkpointing(task)[0]


def test_a_boolean_assumption_in_a_plan_file_is_refused_naming_it(tmp_path):
    from gpuadvisor.workspace.planfile import PlanFileError, parse_plan_dict

    with pytest.raises(PlanFileError, match=r"assumptions\.insitu_factor: true is not a number"):
        parse_plan_dict({"schema_version": 1, "app": "gpuadvisor",
                         "model": {"preset": "llama-3.1-8b"}, "plan": {"task": "qlora"},
                         "assumptions": {"insitu_factor": True}}, path=tmp_path / "p.gpuplan")
