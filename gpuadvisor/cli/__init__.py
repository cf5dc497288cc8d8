"""Command line: ``gpuadvisor estimate``, ``suggest``, ``export``, ``catalog
list|show|validate|update``, ``detect``, ``probe``, ``gui``, ``completion``, ``man``.

Contract (DESIGN.md §3): ``--json`` prints one JSON object on stdout; otherwise a table for
people. Bad input exits with status 2 and one line on stderr naming the bad field.

One module per verb, each with ``add_parser(verbs, ...)`` and ``command(args) -> int``; what
they share is in :mod:`.args`. This package is a leaf: nothing else in gpuadvisor imports it
(``python -m gpuadvisor`` and the console script call :func:`main`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from gpuadvisor import __version__
from gpuadvisor.core.units import printable

from . import catalog, check_log, detect, estimate, examples, export, gui, probe, shell, suggest
from .args import EXIT_BAD_INPUT, InputError, Parser, tell_set_aside
from .estimate import plan_from_args
from .gui import HEADLESS_DEFAULT

__all__ = ["EXIT_BAD_INPUT", "HEADLESS_DEFAULT", "InputError", "build_parser", "main",
           "plan_from_args"]

#: Each verb's ``command(args) -> exit status``.
COMMANDS = {
    "estimate": estimate.command,
    "catalog": catalog.command,
    "detect": detect.command,
    "probe": probe.command,
    "gui": gui.command,
    "suggest": suggest.command,
    "export": export.command,
    "check-log": check_log.command,
    "completion": lambda args: shell.command(args, build_parser()),
    "man": lambda args: shell.command(args, build_parser()),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every verb."""
    parser = Parser(prog="gpuadvisor", description=(
        "Will this training or inference plan fit my GPU, and how long will it take?"))
    parser.add_argument("--version", action="version", version=f"gpuadvisor {__version__}")
    parser.add_argument("--self-test", action="store_true",
                        help="check this installation without a screen: load the catalog, "
                             "estimate a plan, render every page; print one line, exit 0 "
                             "if all is well")
    verbs = parser.add_subparsers(dest="verb", parser_class=Parser)
    est = estimate.add_parser(verbs)
    catalog.add_parser(verbs)
    detect.add_parser(verbs)
    probe.add_parser(verbs)
    gui.add_parser(verbs)
    export.add_parser(verbs, est)
    suggest.add_parser(verbs, est)
    check_log.add_parser(verbs)
    shell.add_parser(verbs)
    _add_examples(parser)
    return parser


def _add_examples(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """Each verb's ``--help`` ends with its Examples (:mod:`.examples`)."""
    for action in parser._actions:  # argparse has no public accessor for sub-parsers
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                verb = f"{prefix}{name}"
                text = examples.epilog(verb)
                if text:
                    sub.epilog = f"{sub.epilog}\n\n{text}" if sub.epilog else text
                _add_examples(sub, prefix=f"{verb} ")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gpuadvisor`` command."""
    argv = sys.argv[1:] if argv is None else argv
    _show_any_text()
    if not argv:
        argv = gui.bare_command()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.self_test:
            from gpuadvisor.selftest import main as self_test

            return self_test()
        command = COMMANDS.get(args.verb)
        if command is not None:
            code = command(args)
            tell_set_aside()
            return code
        parser.print_help()
        return 0
    except InputError as exc:
        # One line, and no character from the input acts on the terminal (CR, LF, U+2028,
        # escape sequences are written as visible escapes); then any user catalog file set
        # aside on the way (often why a name was not found).
        print(printable(str(exc).replace("\n", " ")), file=sys.stderr)
        tell_set_aside()
        return EXIT_BAD_INPUT
    except _catalog_error() as exc:
        print(printable(f"catalog: {exc}".replace("\n", " ")), file=sys.stderr)
        tell_set_aside()
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A path the user named that the system refuses (too long, a loop of links, ...):
        # every verb reports the files it knows; this is the one line for any other.
        where = f"{exc.filename}: " if exc.filename else ""
        print(printable(f"gpuadvisor: {where}{exc.strerror or exc}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OverflowError, RecursionError) as exc:
        # Every number is bounded at the door (gpuadvisor.core.limits); should one still
        # reach a float's end, it came from the input: say so in one line, as bad input.
        print(f"gpuadvisor: the input is too large to compute with ({exc})", file=sys.stderr)
        return EXIT_BAD_INPUT


#: What a console that cannot show a character gets instead (a cp1252 or ASCII console):
#: the bars' eighth blocks, arrows, marks and dashes in plain ASCII.
ASCII_FALLBACK = {
    **{ch: "#" for ch in "█▉▊▋▌▍▎▏"}, "…": "...", "→": "->", "←": "<-", "≤": "<=", "≥": ">=",
    "≈": "~", "✓": "ok", "✔": "ok", "✗": "x", "⚠": "!", "–": "-", "—": "-", "×": "x",
    "·": "-", "÷": "/", "±": "+/-", "µ": "u", "“": '"', "”": '"', "‘": "'", "’": "'",
}
ERROR_HANDLER = "gpuadvisor-ascii"


def _ascii_fallback(error: UnicodeError):
    """codecs error handler: a known symbol as its ASCII stand-in, anything else (and lone
    surrogates: a file name in another encoding) as a backslash escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = []
    for ch in error.object[error.start:error.end]:
        out.append(ASCII_FALLBACK.get(ch) or ch.encode("ascii", "backslashreplace").decode())
    return "".join(out), error.end


def _show_any_text() -> None:
    """Never fail on a character the console cannot show: a bar or an arrow on a cp1252 or
    ASCII console becomes ASCII (:data:`ASCII_FALLBACK`), anything else an escape."""
    import codecs

    try:
        codecs.lookup_error(ERROR_HANDLER)
    except LookupError:
        codecs.register_error(ERROR_HANDLER, _ascii_fallback)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a closed stream: leave it
                reconfigure(errors=ERROR_HANDLER)


def _catalog_error():
    # Imported only when something went wrong: most verbs' flags need no catalog.
    from gpuadvisor.catalog import CatalogError

    return CatalogError
