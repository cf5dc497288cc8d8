"""The README's sample outputs are what the command line prints.

Every ```console block of the README that starts with ``$ gpuadvisor ...`` is run, and each
line it shows must be printed, in the same order (``...`` stands for lines left out). A
change to the estimator that changes a shown number fails here until the README is redrawn:

    python tests/test_readme_samples.py --write

runs every block's command and writes its output into the README, keeping each block's
shape (a block ending in ``...`` shows the first lines, one starting with ``...`` the last,
as many as it showed before).
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


def _printed(command: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.suppress(SystemExit):
        main(shlex.split(command)[1:])
    return [line.rstrip() for line in out.getvalue().splitlines()]


def redrawn(text: str) -> str:
    """The README ``text`` with every console block's output printed anew."""
    def block(match: re.Match) -> str:
        command, body = match.group(1), match.group(2)
        lines = body.splitlines()
        shown = [line for line in lines if line.strip() != "..."]
        printed = _printed(command)
        if lines and lines[0].strip() == "...":
            new = [lines[0], *printed[len(printed) - len(shown):]]
        elif lines and lines[-1].strip() == "...":
            new = [*printed[:len(shown)], lines[-1]]
        else:
            new = printed
        return "```console\n$ " + command + "\n" + "\n".join(new) + "\n```"
    return BLOCK.sub(block, text)


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
    printed = _printed(command)
    at = 0
    for line in shown:
        want = line.rstrip()
        while at < len(printed) and printed[at] != want:
            at += 1
        assert at < len(printed), f"README shows a line the command does not print: {want!r}"
        at += 1


def test_redrawing_keeps_what_is_drawn():
    """Redrawing the README changes nothing once it is up to date (and keeps the shape)."""
    text = README.read_text(encoding="utf-8")
    assert redrawn(text) == text


if __name__ == "__main__":  # python tests/test_readme_samples.py --write
    import sys

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_readme_samples.py --write")
    README.write_text(redrawn(README.read_text(encoding="utf-8")), encoding="utf-8")
