"""Shell completion scripts and the man page, written from the parser."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess

from gpuadvisor.cli import build_parser, main
from gpuadvisor.cli.shell import bash_script, fish_script, man_page, verbs_of, zsh_script


def _complete_bash(words: list[str]) -> list[str]:
    """What the generated bash function offers for ``words`` (the last one is being typed)."""
    script = bash_script(build_parser())
    quoted = " ".join("'" + w + "'" for w in words)
    program = (f"{script}\nCOMP_WORDS=({quoted})\nCOMP_CWORD={len(words) - 1}\n"
               "_gpuadvisor\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    bash = shutil.which("bash")
    assert bash is not None, "bash is part of the test machine"
    done = subprocess.run([bash, "--norc", "--noprofile", "-c", program], capture_output=True,
                          text=True, timeout=30, check=True)
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completes_the_verbs():
    assert _complete_bash(["gpuadvisor", "est"]) == ["estimate"]
    assert set(_complete_bash(["gpuadvisor", ""])) >= {"estimate", "suggest", "probe", "gui",
                                                      "catalog", "completion", "man"}


def test_bash_completes_a_flag_and_its_choices():
    assert _complete_bash(["gpuadvisor", "estimate", "--mic"]) == ["--micro-batch"]
    # The choices come from the parser: Plan.TASKS.
    assert _complete_bash(["gpuadvisor", "estimate", "--task", ""]) == [
        "pretrain", "full", "lora", "qlora", "infer"]
    assert _complete_bash(["gpuadvisor", "estimate", "--task", "q"]) == ["qlora"]


def test_bash_completes_sub_verbs():
    assert set(_complete_bash(["gpuadvisor", "catalog", ""])) >= {"list", "show", "validate",
                                                                 "update"}


def test_bash_script_is_valid_syntax():
    subprocess.run(["bash", "-n"], input=bash_script(build_parser()), text=True, check=True)


def test_every_estimate_flag_is_in_every_script():
    parser = build_parser()
    estimate = next(v for v in verbs_of(parser) if v.name == "estimate")
    names = [n for f in estimate.flags for n in f.names if n.startswith("--")]
    assert "--framework" in names and "--quant" in names
    bash, zsh, fish = bash_script(parser), zsh_script(parser), fish_script(parser)
    for name in names:
        assert name in bash
        assert f"'{name}[" in zsh or name == "--help"  # zsh offers its own help
        assert f"-l {name[2:]}" in fish


def test_zsh_and_fish_quote_apostrophes():
    parser = build_parser()
    # "measure this machine's GPU" (probe's help) must not end a single-quoted word.
    assert "machine'\\''s" in zsh_script(parser)
    assert "machine\\'s" in fish_script(parser)


def test_man_page_lists_every_verb_flag_and_exit_status():
    parser = build_parser()
    page = man_page(parser, "9.9", date=dt.date(2026, 12, 3))
    assert page.startswith('.TH GPUADVISOR 1 "2026-12-03" "gpuadvisor 9.9"')
    for verb in verbs_of(parser):
        assert f".SH {verb.name.upper()}" in page
        for flag in verb.flags:
            for name in flag.names:
                assert name.replace("-", "\\-") in page
    assert ".SH EXIT STATUS\n.TP\n0\n" in page
    assert "\n3\nestimate: the plan does not fit" in page


def test_the_verbs_print(capsys):
    assert main(["completion", "fish"]) == 0
    assert capsys.readouterr().out.startswith("# fish completion for gpuadvisor")
    assert main(["man"]) == 0
    assert capsys.readouterr().out.startswith(".TH GPUADVISOR 1")
    assert main(["completion", "tcsh"]) == 2
