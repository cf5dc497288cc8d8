"""The README's sample outputs are what the command line prints.

Every ```console block of the README that starts with ``$ gpuadvisor ...`` is run, and each
line it shows must be printed, in the same order (``...`` stands for lines left out). A
change to the estimator that changes a shown number fails here until the README is redrawn.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from gpuadvisor.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"```console\n\$ (gpuadvisor [^\n]*)\n(.*?)```", re.S)


def _samples() -> list[tuple[str, list[str]]]:
    found = []
    for command, body in BLOCK.findall(README.read_text(encoding="utf-8")):
        shown = [line for line in body.splitlines() if line.strip() != "..."]
        found.append((command, shown))
    return found


def test_the_readme_has_samples_to_check():
    assert len(_samples()) >= 2


@pytest.mark.parametrize(("command", "shown"), _samples(), ids=lambda v: str(v)[:60])
def test_a_readme_sample_is_what_the_command_prints(command, shown):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.suppress(SystemExit):
        main(shlex.split(command)[1:])
    printed = [line.rstrip() for line in out.getvalue().splitlines()]
    at = 0
    for line in shown:
        want = line.rstrip()
        while at < len(printed) and printed[at] != want:
            at += 1
        assert at < len(printed), f"README shows a line the command does not print: {want!r}"
        at += 1
