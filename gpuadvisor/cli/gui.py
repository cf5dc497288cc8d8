"""``gpuadvisor gui`` (and a bare ``gpuadvisor``): open the desktop app.

The flags are the app's own (:func:`gpuadvisor.gui.app.add_gui_arguments`, shared with the
``gpuadvisor-gui`` entry point); Qt is imported only when the app starts.
"""

from __future__ import annotations

import argparse
import sys

from gpuadvisor.gui.app import DESCRIPTION, add_gui_arguments

from .args import InputError

#: What a bare ``gpuadvisor`` shows in a terminal without a display: a typical hobbyist plan.
HEADLESS_DEFAULT = ["estimate", "--model", "llama-3.1-8b", "--task", "qlora", "--gpu",
                    "rtx-4090"]


def add_parser(verbs) -> None:
    """Add the ``gui`` verb to ``verbs``."""
    gui = verbs.add_parser("gui", help="open the desktop app (the default with no arguments)",
                           description=DESCRIPTION)
    add_gui_arguments(gui)


def command(args: argparse.Namespace) -> int:
    """``gui``: the app's exit status."""
    check_paths(args)
    # Qt is imported only here: every other verb runs without PySide6 installed.
    try:
        from gpuadvisor.gui.app import run
    except ImportError as exc:
        raise InputError(
            f"gpuadvisor gui: the desktop app needs PySide6 and pyqtgraph ({exc}); "
            "the command line works without them (gpuadvisor estimate --help)"
        ) from None
    return run(args)


def check_paths(args: argparse.Namespace) -> None:
    """InputError for an empty ``--screenshot``, ``--plan`` or ``--simulate`` (an empty
    screenshot path would open the interactive app instead of writing a picture)."""
    for flag in ("screenshot", "plan", "simulate"):
        value = getattr(args, flag, None)
        if value is not None and (not value.strip() or "\0" in value):
            what = "empty" if not value.strip() else "not a usable path (a NUL character)"
            raise InputError(f"gpuadvisor gui: --{flag}: {what}")


def bare_command() -> list[str]:
    """A bare ``gpuadvisor`` opens the desktop app; without a display (a server, SSH, CI)
    it says so in one line and shows a typical plan's estimate in the terminal instead."""
    from gpuadvisor.gui.app import display_problem  # plain Python: no Qt import

    problem = display_problem(seen=True)
    if problem is None:
        return ["gui"]
    print(f"{problem}. Showing: gpuadvisor {' '.join(HEADLESS_DEFAULT)}", file=sys.stderr)
    return list(HEADLESS_DEFAULT)
