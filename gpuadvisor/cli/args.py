"""What every verb shares: the parser class, the bad-input error, argument value types, the
catalog look-ups that name the bad flag, and JSON output.

Contract (DESIGN.md §3): bad input exits with status 2 and one line on stderr naming the bad
field; :class:`InputError` carries that line up to :func:`gpuadvisor.cli.main`.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

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
def load_model(ref: str):
    """``--model``: a catalog preset id or a Hugging Face config.json path -> ModelSpec.

    Raises:
        InputError: unknown preset, or a file that is missing, unreadable or not a config.
    """
    from gpuadvisor import catalog
    from gpuadvisor.core.model import spec_from_hf_config

    path = Path(ref)
    if ref.endswith(".json") or path.is_file():
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"--model: file not found: {ref}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"--model: cannot read {ref}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"--model: {ref} is not valid JSON: {exc}") from None
        if not isinstance(config, dict):
            raise InputError(f"--model: {ref} must hold a JSON object (a config.json)")
        try:
            return spec_from_hf_config(config, model_id=path.stem, name=path.parent.name or None)
        except ValueError as exc:
            raise InputError(f"--model: {ref}: {exc}") from None
    models = catalog.load_models()
    if ref not in models:
        raise InputError(f"--model: unknown preset {ref!r}{did_you_mean(ref, models)}")
    return models[ref]


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
