"""Numbers out of range and the smaller items (issue groups 3 and 6): every flag takes finite
numbers in a physical range and says which flag when not (exit 2, one line, no traceback);
``--json`` is valid JSON even at the largest plans; ``suggest --simulate`` of an unknown card,
``gui --screenshot ""``, ``catalog validate ""`` and an empty catalog file are bad input."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.cli import main

BIG = "1" + "0" * 400


@pytest.fixture(autouse=True)
def _user_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(("flag", "value"), [
    ("--micro-batch", BIG), ("--grad-accum", BIG), ("--seq", BIG), ("--gpus", BIG),
    ("--lora-rank", BIG), ("--new-tokens", BIG), ("--micro-batch", "9" * 5000),
    ("--gpus", "1048577"), ("--seq", "0"), ("--tp", BIG), ("--gpus-per-node", BIG),
    ("--tokens", "1e400"), ("--tokens", "nan"), ("--samples", "inf"), ("--epochs", "1e300"),
    ("--global-batch", "1e400"), ("--efficiency", "nan"), ("--efficiency", "inf"),
    ("--assume", "gpus_per_node=inf"), ("--assume", "gpus_per_node=1e300"),
    ("--assume", "gpus_per_node=2.5"), ("--assume", "cuda_context_bytes=nan"),
    ("--assume", "efficiency_train=-1"), ("--assume", f"nccl_bytes={BIG}"),
])
def test_a_number_out_of_range_is_bad_input_naming_the_flag(capsys, flag, value):
    argv = ["estimate", "--model", "gpt2", "--task", "lora" if flag == "--lora-rank" else "full",
            flag, value]
    if flag == "--epochs":
        argv += ["--samples", "1000"]
    status, _out, err = run(capsys, *argv)
    assert status == 2
    assert flag in err or flag.lstrip("-") in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert len(err) < 400  # a 5,000-digit number is not echoed back


@pytest.mark.parametrize(("verb", "flag", "value"), [
    ("suggest", "--budget", "inf"), ("suggest", "--budget", "1e400"),
    ("suggest", "--deadline", "nan"), ("suggest", "--electricity", "1e300"),
    ("suggest", "--max-cards", BIG), ("suggest", "--limit", BIG),
])
def test_suggest_numbers_are_bounded_too(capsys, verb, flag, value):
    status, _out, err = run(capsys, verb, "--model", "gpt2", "--no-rig", flag, value)
    assert status == 2 and flag in err


def test_the_largest_plan_gives_valid_json(capsys):
    status, out, _err = run(capsys, "estimate", "--model", "gpt2", "--layout", "off",
                            "--gpus", "1048576", "--micro-batch", "1048576",
                            "--grad-accum", "1048576", "--seq", "1024", "--tokens", "1e18",
                            "--json")
    assert status == 0

    def refuse(name):
        raise AssertionError(f"{name} in --json output")

    json.loads(out, parse_constant=refuse)


def test_suggest_with_an_unknown_simulated_card_is_bad_input(capsys):
    status, _out, err = run(capsys, "suggest", "--model", "gpt2", "--simulate", "rtx-9999")
    assert status == 2 and "--simulate" in err and "rtx-9999" in err
    status, _out, err = run(capsys, "suggest", "--model", "gpt2", "--simulate", "one-gpu",
                            "--no-rig")
    assert status == 2 and "--no-rig" in err


@pytest.mark.parametrize("flag", ["--screenshot", "--plan", "--simulate"])
def test_gui_refuses_an_empty_path_before_starting(capsys, monkeypatch, flag):
    from gpuadvisor.gui import app

    def must_not_start(args):
        raise AssertionError("the app was started")

    monkeypatch.setattr(app, "run", must_not_start)
    status, _out, err = run(capsys, "gui", flag, "")
    assert status == 2 and f"{flag}: empty" in err


def test_catalog_validate_names_an_empty_path(capsys):
    status, _out, err = run(capsys, "catalog", "validate", "")
    assert status == 2 and "the path is empty ('')" in err


def test_catalog_validate_refuses_an_empty_file_as_update_does(capsys, tmp_path):
    path = tmp_path / "gpus.toml"
    path.write_text("# nothing yet\nschema_version = 1\n", encoding="utf-8")
    status, _out, err = run(capsys, "catalog", "validate", str(path))
    assert status == 2 and "has no entries" in err
    status, _out, err = run(capsys, "catalog", "update", "--from", str(path))
    assert status == 2 and "has no entries" in err


def test_catalog_update_names_an_empty_source(capsys):
    status, _out, err = run(capsys, "catalog", "update", "--from", "")
    assert status == 2 and "empty" in err


@pytest.mark.parametrize("argv", [
    ["export", "launch", "--model", "gpt2", "--out", ""],
    ["probe", "--python", ""],
    ["probe", "--data", "", "--no-save"],
    ["probe", "--plan", ""],
    ["probe", "--timeout", "1e400", "--history"],
])
def test_empty_or_endless_values_of_file_flags_are_bad_input(capsys, argv):
    status, _out, err = run(capsys, *argv)
    assert status == 2 and err.strip()


def test_config_errors_use_the_files_own_field_names(capsys, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
        "vocab_size": 32000, "num_local_experts": 0, "num_experts_per_tok": 2,
        "max_position_embeddings": 32768}),
        encoding="utf-8")
    status, _out, err = run(capsys, "estimate", "--model", str(config))
    assert status == 2 and "num_local_experts" in err and "n_experts" not in err


def test_the_estimate_parser_has_no_stray_positional_argument(capsys):
    # export's flags once redeclared --gpus-per-node, which stripped the option string from
    # the shared estimate action and made it a positional: `estimate 7` was accepted.
    status, _out, err = run(capsys, "estimate", "7", "--model", "gpt2")
    assert status == 2 and "unrecognized arguments: 7" in err
    status, out, _err = run(capsys, "export", "launch", "--model", "gpt2", "--gpus", "16",
                            "--gpus-per-node", "4")
    assert status == 0 and "--nnodes 4" in out


def test_a_refusal_repeats_no_line_break_or_escape_from_the_input(capsys):
    """CR, LF, U+2028 and an escape sequence typed into a flag come back as visible text in
    the one-line refusal."""
    from gpuadvisor.cli import main

    assert main(["estimate", "--model", "llama\r\u2028x\x1b[31m"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("\n")
    assert "\r" not in err and "\u2028" not in err and "\x1b" not in err
    assert "\\r\\u2028x\\x1b[31m" in err
