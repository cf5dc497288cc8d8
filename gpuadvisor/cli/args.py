"""What every verb shares: the parser class, the bad-input error, argument value types, the
catalog look-ups that name the bad flag, and JSON output.

Contract (DESIGN.md §3): bad input exits with status 2 and one line on stderr naming the bad
field; :class:`InputError` carries that line up to :func:`gpuadvisor.cli.main`.
"""

from __future__ import annotations

import argparse
import math
import re
import sys

from gpuadvisor.core.units import printable

#: Exit status of bad input (a bad flag, an unknown id, an unreadable file).
EXIT_BAD_INPUT = 2
#: Exit status of ``estimate`` when the plan does not fit the GPU's memory (the output is
#: printed as usual), so that a script can test it: ``gpuadvisor estimate ... || ...``.
EXIT_NO_FIT = 3


class InputError(Exception):
    """Bad user input: reported as one line on stderr with exit status 2."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help that says each flag's default (when it has one the text does not already name)
    and keeps the Examples' line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (default not in (None, False, argparse.SUPPRESS, [], "")
                and action.option_strings and "default" not in text
                and "%(default)" not in text):
            text = f"{text} (default: %(default)s)" if text else "(default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line naming the problem (exit 2), with
    :class:`HelpFormatter` help."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # argparse's API: must not return
        raise InputError(f"{self.prog}: {message}")


# --------------------------------------------------------------------------- value types
# Every number a flag brings is finite, whole where a count is meant, and inside a physical
# range (gpuadvisor.core.limits), so nothing the user types can overflow the estimate.
#: Largest money amount a flag takes (USD): far above any job's cost.
MAX_USD = 1e12
#: Longest deadline a flag takes (hours): about a thousand years.
MAX_HOURS = 1e7


def _shown(text: str) -> str:
    """The user's text for a message, cut short (a 4,000-digit number is not echoed)."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


#: A whole number with an optional size suffix: ``8k``, ``32K``, ``1.5M``, ``2G``.
_SIZED = re.compile(r"^\s*\+?(\d+(?:\.\d+)?)\s*([kKmMgG])\s*$")


def _whole(text: str, *, tokens: bool = False) -> int:
    """A whole number typed by the user (``1_000`` and ``+3`` as Python reads them), or with
    a size suffix k, M or G. For token lengths (``tokens``) a suffix counts in 1024s, as
    context sizes are named (``8k`` = 8,192, ``32K`` = 32,768, ``1M`` = 1,048,576); for other
    counts in 1000s (``1.5k`` = 1,500). The result must be whole (``1.0001k`` is refused)."""
    stripped = text.strip()
    if len(stripped.lstrip("+-").lstrip("0")) > 30:
        raise argparse.ArgumentTypeError(f"too large: {_shown(text)}")
    sized = _SIZED.match(stripped)
    if sized:
        base = 1024 if tokens else 1000
        power = "kmg".index(sized.group(2).lower()) + 1
        value = float(sized.group(1)) * base**power
        if value != int(value):
            raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)} = {value:g}")
        return int(value)
    try:
        return int(stripped)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a whole number: {_shown(text)} (e.g. 2048, 8k, 1.5M)") from None


def int_in(low: int, high: int, *, tokens: bool = False):
    """argparse type: a whole number from ``low`` to ``high`` (suffixes as :func:`_whole`;
    ``tokens``: k = 1024)."""
    def parse(text: str) -> int:
        value = _whole(text, tokens=tokens)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be a whole number from {low:,} to {high:,}, got {_shown(text)}")
        return value
    return parse


def positive_int(text: str) -> int:
    """argparse type: a whole number above zero, at most
    :data:`gpuadvisor.core.limits.MAX_COUNT` (argparse names the flag in its error)."""
    from gpuadvisor.core.limits import MAX_COUNT

    value = _whole(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {value}")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 1 to {MAX_COUNT:,}, got {_shown(text)}")
    return value


def _number(text: str) -> float:
    """A finite number typed by the user; ``nan``, ``inf`` and ``1e400`` are refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {_shown(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {_shown(text)}")
    return value


def count(flag: str, high: float | None = None):
    """argparse type for ``flag``: a positive count with an optional suffix (2T, 300M), at
    most ``high`` (default :data:`gpuadvisor.core.limits.MAX_DATASET`)."""
    def parse(text: str) -> float:
        from gpuadvisor.core.limits import MAX_DATASET
        from gpuadvisor.core.units import parse_count

        try:
            value = parse_count(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite count, got {_shown(text)}")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
        limit = MAX_DATASET if high is None else high
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit:g}, got {_shown(text)}")
        return value

    return parse


def float_in(low: float, high: float):
    """argparse type: a finite number from ``low`` to ``high``."""
    def parse(text: str) -> float:
        value = _number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a number from {low:g} to {high:g}, "
                                             f"got {_shown(text)}")
        return value
    return parse


def fraction(text: str) -> float:
    """argparse type: a number in (0, 1]."""
    value = _number(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


def engine_version(text: str) -> str:
    """argparse type: an engine release like ``0.6.4``."""
    from gpuadvisor.core.plan import ENGINE_VERSION

    value = text.strip().lstrip("v")
    if not ENGINE_VERSION.match(value):
        raise argparse.ArgumentTypeError(f"must be a release like 0.6.4, got {text[:40]!r}")
    return value


def assumption(text: str) -> tuple[str, str]:
    """argparse type: ``NAME=VALUE`` -> ``(name, value)``.

    A known numeric assumption's value must be a finite number inside its range
    (:data:`gpuadvisor.core.limits.ASSUMPTION_BOUNDS`; ``gpus_per_node`` a whole number);
    unknown names pass through, for the estimate to refuse by name.
    """
    from gpuadvisor.core.limits import ASSUMPTION_BOUNDS, LimitError, check

    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {_shown(text)}")
    bound = ASSUMPTION_BOUNDS.get(name)
    if bound is not None:
        number = _number(value)
        if bound.integer:
            if not number.is_integer():
                raise argparse.ArgumentTypeError(f"{name} must be {bound.describe()}, got "
                                                 f"{_shown(value)}")
            number = int(number)
        try:
            check(name, number, bound)
        except LimitError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return name, value


def quant_name(text: str) -> str:
    """argparse type for ``--quant``: one of the plan's quantizations (``q4_k_m``,
    ``nf4``, ...) or ``exl2-<bits>``; case-insensitive (``Q4_K_M`` as llama.cpp prints it)."""
    from gpuadvisor.core.plan import EXL2_BITS_RANGE, QUANT, is_quant

    name = text.strip().lower()
    if is_quant(name):
        return name
    if name.startswith("exl2-"):
        low, high = EXL2_BITS_RANGE
        raise argparse.ArgumentTypeError(
            f"EXL2 takes exl2-<bits per weight> from {low:g} to {high:g}, got {_shown(text)}")
    raise argparse.ArgumentTypeError(
        f"unknown quantization {_shown(text)}; choose one of {', '.join(QUANT)} or "
        "exl2-<bits>")


def positive_float(flag: str, high: float = MAX_USD):
    """argparse type for ``flag``: a finite number above zero, at most ``high``."""
    def parse(text: str) -> float:
        value = _number(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:g}, got {_shown(text)}")
        return value
    return parse


def non_negative_float(flag: str, high: float = MAX_USD):
    """argparse type for ``flag``: a finite number of zero or more, at most ``high``."""
    def parse(text: str) -> float:
        value = _number(text)
        if not value >= 0:
            raise argparse.ArgumentTypeError(f"must be zero or more, got {text}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:g}, got {_shown(text)}")
        return value
    return parse


def path_text(flag: str):
    """argparse type for ``flag``: a path that is not empty (``""`` would mean the current
    folder to some calls) and has no NUL character."""
    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError("the path is empty")
        if "\0" in text:
            raise argparse.ArgumentTypeError("the path contains a NUL character")
        return text
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


def load_gpu(ref: str | None, *, observed: bool = True):
    """``--gpu``: ``(the catalog GPU or None without one, every catalog GPU by id)``.

    With ``observed``, a card whose memory an engine log showed (``check-log``) has the
    memory CUDA reported there (:func:`gpuadvisor.probes.observed.with_observations`).

    ``ref`` is a catalog id or a GPU's name as drivers and reviews print it ("RTX 4090",
    "NVIDIA Tesla P40", "Tesla V100-SXM2-16GB"; :mod:`gpuadvisor.core.gpu_names`). A name
    read with a choice made (an Apple chip's fullest variant, the one card a shortened name
    fits) is said in one line on stderr.

    Raises:
        InputError: a name that fits several catalog GPUs (the message lists them) or none
            (the message names the closest).
    """
    import sys

    from gpuadvisor import catalog
    from gpuadvisor.core.gpu_names import GpuNameError, resolve_gpu_name

    gpus = catalog.load_gpus()
    if observed:
        from gpuadvisor.probes import observed as kept

        warnings: list[str] = []
        gpus = kept.with_observations(gpus, kept.load(warnings))
        for warning in warnings:
            print(f"gpuadvisor: {warning}", file=sys.stderr)
    if ref is None:
        return None, gpus
    try:
        match = resolve_gpu_name(ref, gpus)
    except GpuNameError as exc:
        raise InputError(f"--gpu: {exc}") from None
    if match.note:
        print(f"gpuadvisor: --gpu {ref!r}: {match.note}", file=sys.stderr)
    return gpus[match.gpu_id], gpus


def did_you_mean(name: str, known) -> str:
    """The tail of an unknown-id message: close matches among ``known``, else where to look."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    if close:
        return f" (did you mean {', '.join(close)}?)"
    return " (see 'gpuadvisor catalog list')"


# --------------------------------------------------------------------------- output
#: ``schema_version`` of every JSON document the command line prints. It goes up when a key
#: is removed or changes its meaning; new keys are added without a new version.
SCHEMA_VERSION = 1


def json_text(data, *, indent: int | None = 2) -> str:
    """``data`` as one JSON document for stdout: numpy values as lists, and non-finite
    floats as null, so the text is always valid JSON (never ``Infinity`` or ``NaN``). A dict
    (every verb prints one) leads with ``schema_version`` (:data:`SCHEMA_VERSION`)."""
    import json

    if isinstance(data, dict) and "schema_version" not in data:
        data = {"schema_version": SCHEMA_VERSION, **data}
    return json.dumps(_finite(data), indent=indent, default=json_default, allow_nan=False)


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    if hasattr(value, "tolist") and not isinstance(value, str | bytes):
        return _finite(value.tolist())
    return value


def json_default(value):
    """``json.dumps(default=...)``: numpy values as lists, non-finite floats as null."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


#: Messages about the user's catalog files already printed by this process.
_TOLD: set[str] = set()


def tell_catalog_warnings(messages, who: str = "gpuadvisor catalog") -> None:
    """Print each message about the user's catalog files (a file set aside, why, where it
    went, every problem) to stderr, once per process whichever command met it first; each
    line made printable (a key or path from the file cannot act on the terminal)."""
    for message in messages:
        if message in _TOLD:
            continue
        _TOLD.add(message)
        for i, line in enumerate(str(message).split("\n")):
            print(printable(f"{who}: {line}" if i == 0 else line), file=sys.stderr)


def tell_set_aside() -> None:
    """Tell what this process set aside of the user's catalog files (nothing when no catalog
    was read): every command ends with it, so a card or preset missing from a user's
    ``gpus.toml`` or ``models.toml`` is never dropped without a word."""
    overrides = sys.modules.get("gpuadvisor.catalog.overrides")
    if overrides is not None:
        tell_catalog_warnings(overrides.set_aside_notices())
