"""The command line run in-process, as a user runs it: exit status, stdout and stderr."""

from __future__ import annotations

import contextlib
import io

from gpuadvisor.cli import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``gpuadvisor ARGV``: ``(exit status, stdout, stderr)`` (argparse's exits included)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()
