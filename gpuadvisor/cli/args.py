"""What every verb shares: the parser class, the bad-input error, argument value types, the
catalog look-ups that name the bad flag, and JSON output.

Contract (DESIGN.md §3): bad input exits with status 2 and one line on stderr naming the bad
field; :class:`InputError` carries that line up to :func:`gpuadvisor.cli.main`.
"""

from __future__ import annotations

import argparse
import math

#: Exit status of bad input (a bad flag, an unknown id, an unreadable file).
EXIT_BAD_INPUT = 2


class InputError(Exception):
    """Bad user input: reported as one line on stderr with exit status 2."""


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line naming the problem (exit 2)."""

    def error(self, message: str) -> None:  # argparse's API: must not return
        raise InputError(f"{self.prog}: {message}")


# --------------------------------------------------------------------------- value types
def positive_int(text: str) -> int:
    """argparse type: a whole number above zero (argparse names the flag in its error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {value}")
    return value


def count(flag: str):
    """argparse type for ``flag``: a positive count with an optional suffix (2T, 300M)."""
    def parse(text: str) -> float:
        from gpuadvisor.core.units import parse_count

        try:
            value = parse_count(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
        return value

    return parse


def fraction(text: str) -> float:
    """argparse type: a number in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


def assumption(text: str) -> tuple[str, str]:
    """argparse type: ``NAME=VALUE`` -> ``(name, value)``."""
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def positive_float(flag: str):
    """argparse type for ``flag``: a finite number above zero."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (value > 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
        return value
    return parse


def non_negative_float(flag: str):
    """argparse type for ``flag``: a finite number of zero or more."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (value >= 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be zero or more, got {text}")
        return value
    return parse


# --------------------------------------------------------------------------- look-ups
#: Help text of ``--model`` (what it accepts).
MODEL_HELP = (
    "preset id (see 'catalog list --kind models'), a config.json, a model folder, a .gguf "
    "file, a Hugging Face repo id in the local cache (Qwen/Qwen3-8B), an Ollama name "
    "(qwen3:8b), or '-' for a config.json on standard input; never downloads"
)


def load_model(ref: str, stdin=None):
    """``--model``: a preset id, or a model on disk (see :data:`MODEL_HELP`) -> ModelSpec.

    A catalog preset wins over a file or folder of the same name (write ``./gpt2`` for the
    folder); then :func:`gpuadvisor.localmodels.resolve_model_ref` reads what is on disk.

    Args:
        ref: what the user typed.
        stdin: where ``-`` reads from (default: ``sys.stdin``).

    Raises:
        InputError: unknown preset, or a model on disk that cannot be used (one line naming
            the file and what is wrong).
    """
    import sys

    from gpuadvisor import catalog
    from gpuadvisor.localmodels import ModelFileError, resolve_model_ref

    models = catalog.load_models()
    if ref in models:
        return models[ref]
    try:
        spec = resolve_model_ref(ref, sys.stdin if stdin is None else stdin)
    except ModelFileError as exc:
        raise InputError(f"--model: {exc}") from None
    if spec is None:
        raise InputError(f"--model: unknown preset {ref!r}{did_you_mean(ref, models)}")
    return spec


def load_gpu(ref: str | None):
    """``--gpu``: ``(the catalog GPU or None without one, every catalog GPU by id)``.

    Raises:
        InputError: an id the catalog does not know.
    """
    from gpuadvisor import catalog

    gpus = catalog.load_gpus()
    if ref is None:
        return None, gpus
    if ref not in gpus:
        raise InputError(f"--gpu: unknown GPU {ref!r}{did_you_mean(ref, gpus)}")
    return gpus[ref], gpus


def did_you_mean(name: str, known) -> str:
    """The tail of an unknown-id message: close matches among ``known``, else where to look."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    if close:
        return f" (did you mean {', '.join(close)}?)"
    return " (see 'gpuadvisor catalog list')"


# --------------------------------------------------------------------------- output
def json_default(value):
    """``json.dumps(default=...)``: numpy values as lists, non-finite floats as null."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
