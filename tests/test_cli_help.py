"""Every flag says what it does (and its default); every verb ends with Examples that work."""

from __future__ import annotations

import shlex

import pytest

from gpuadvisor.cli import build_parser, main
from gpuadvisor.cli.examples import EXAMPLES
from gpuadvisor.cli.shell import verbs_of

VERBS = verbs_of(build_parser())


@pytest.mark.parametrize("verb", VERBS, ids=[v.name for v in VERBS])
def test_every_flag_has_help_text(verb):
    missing = [f.names[-1] for f in verb.flags if not f.help]
    assert not missing, f"{verb.name}: flags without help: {missing}"


@pytest.mark.parametrize("verb", VERBS, ids=[v.name for v in VERBS])
def test_every_verb_ends_with_examples(verb, capsys):
    with pytest.raises(SystemExit):
        main([*verb.name.split(), "--help"])
    out = capsys.readouterr().out
    assert "Examples:" in out
    for command, _ in EXAMPLES[verb.name]:
        assert command in out


def test_help_names_the_default():
    estimate = next(v for v in VERBS if v.name == "estimate")
    task = next(f for f in estimate.flags if "--task" in f.names)
    assert task.help  # the parser's own text; the formatter adds the default when printed
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text), pytest.raises(SystemExit):
        main(["estimate", "--help"])
    flat = " ".join(text.getvalue().split())
    assert "pretrain, full fine-tune, lora, qlora (4-bit base) or infer (default: full)" in flat


def _example_argvs():
    for verb, rows in EXAMPLES.items():
        for command, _ in rows:
            first = command.split("||")[0].split("|")[0].split(">")[0]
            words = shlex.split(first)
            assert words[0] == "gpuadvisor"
            yield pytest.param(verb, words[1:], id=" ".join(words[1:4]))


RUNNABLE = ("estimate", "suggest", "export", "catalog list", "catalog show", "detect",
            "completion", "man")


@pytest.mark.parametrize("verb, argv", list(_example_argvs()))
def test_every_example_parses_and_the_quick_ones_run(verb, argv, tmp_path, monkeypatch,
                                                      capsys):
    args = build_parser().parse_args(argv)  # InputError (a failure) on a wrong flag
    assert args.verb == verb.split()[0]
    if verb not in RUNNABLE:
        return
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path / "data"))
    code = main(argv)
    _, err = capsys.readouterr()
    assert code in (0, 3), (argv, err)


@pytest.mark.parametrize("flag, text, value", [
    ("--seq", "8k", 8 * 1024), ("--seq", "32K", 32 * 1024), ("--seq", "1M", 1024**2),
    ("--seq", "1.5k", 1536), ("--new-tokens", "2k", 2048), ("--seq", "4096", 4096),
    # Counts that are not token lengths go in 1000s.
    ("--micro-batch", "1.5k", 1500), ("--gpus", "2k", 2000),
])
def test_size_suffixes_on_whole_numbers(flag, text, value):
    args = build_parser().parse_args(["estimate", "--model", "gpt2", flag, text])
    assert getattr(args, flag[2:].replace("-", "_")) == value


@pytest.mark.parametrize("text", ["1.0001k", "8q", "k", "-2k"])
def test_a_suffix_that_is_not_a_whole_number_is_named(text, capsys):
    assert main(["estimate", "--model", "gpt2", "--seq", text]) == 2
    err = capsys.readouterr().err
    assert "--seq" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv", [
    ["estimate", "--model", "gpt2", "--gpu", "rtx-4090", "--json"],
    ["catalog", "list", "--kind", "models", "--json"],
    ["catalog", "show", "rtx-4090", "--json"],
    ["detect", "--simulate", "2x rtx-3090", "--json"],
    ["suggest", "--model", "gpt2", "--task", "infer", "--no-rig", "--json"],
], ids=lambda argv: " ".join(argv[:2]))
def test_every_json_document_leads_with_its_schema_version(argv, capsys, tmp_path,
                                                          monkeypatch):
    import json

    from gpuadvisor.cli.args import SCHEMA_VERSION

    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path / "data"))
    assert main(argv) in (0, 3)
    data = json.loads(capsys.readouterr().out)
    assert SCHEMA_VERSION == 1
    assert next(iter(data)) == "schema_version" and data["schema_version"] == 1
