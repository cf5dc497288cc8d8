"""Output survives any console encoding: a cp1252 or ASCII console gets ASCII bars."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ARGV = ["estimate", "--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-4090",
        "--optimizer", "adamw8bit"]


def _run(encoding: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "gpuadvisor", *ARGV], capture_output=True,
                          env=env, timeout=120)


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_a_narrow_console_gets_ascii_bars_and_no_error(encoding):
    done = _run(encoding)
    assert done.returncode in (0, 3), done.stderr
    assert b"Traceback" not in done.stderr
    text = done.stdout.decode(encoding)  # every byte is valid in the console's encoding
    [weights] = [line for line in text.splitlines() if line.strip().startswith("weights")]
    assert weights.rstrip().endswith("#")
    assert "\\u2588" not in text  # no escapes where a bar was meant


def test_a_utf8_console_keeps_the_block_bars():
    done = _run("utf-8")
    text = done.stdout.decode("utf-8")
    [weights] = [line for line in text.splitlines() if line.strip().startswith("weights")]
    assert "█" in weights


def test_the_fallback_table_maps_each_symbol_to_ascii():
    from gpuadvisor.cli import ASCII_FALLBACK, _ascii_fallback

    for ch, stand_in in ASCII_FALLBACK.items():
        assert stand_in.isascii()
        error = UnicodeEncodeError("ascii", f"a{ch}b", 1, 2, "x")
        assert _ascii_fallback(error) == (stand_in, 2)
    # Not in the table: an escape, so nothing is lost.
    error = UnicodeEncodeError("ascii", "漢", 0, 1, "x")
    assert _ascii_fallback(error) == ("\\u6f22", 1)
