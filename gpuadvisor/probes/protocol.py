"""The probe protocol: one JSON object per line on the worker's stdout (DESIGN.md §3).

Every line is an object with a ``type``; the messages, in order::

    {"type": "hello", "protocol": 1, "versions": {"python": "3.12.3", "torch": "2.13.0"|null, ...},
     "accelerators": {"cuda": false, "rocm": false, "mps": false, "xpu": false, "cpu": true},
     "devices": [{"id": "cpu", "name": "...", "memory_total_bytes": ...}], "torch_error": null}
    {"type": "progress", "probe": "matmul", "fraction": 0.25, "message": "fp32 1024x1024"}
    {"type": "result", "probe": "matmul", "figures": {"fp32_median_tflops": 1.9, ...},
     "units": {"fp32_median_tflops": "TFLOPS", ...}, "conditions": {"device": "cpu", ...}}
    {"type": "error", "probe": "bandwidth", "kind": "out-of-memory", "message": "..."}
    {"type": "done"}

``hello`` comes first and exactly once, ``done`` last; each requested probe gets a ``result``
or an ``error``. Anything else on stdout is a protocol error, and so is a line the strict
reader refuses: longer than :data:`MAX_LINE_BYTES`, ``NaN``/``Infinity``, a number too large
for a float, or nesting deeper than :data:`MAX_LINE_DEPTH`. Unknown extra keys are ignored,
so a newer worker can add fields without breaking an older app; a different ``protocol``
number is refused.

The worker (:mod:`gpuadvisor.probes.worker`) writes these lines itself with the standard
library only, because it may run under another interpreter where gpuadvisor is not installed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from gpuadvisor.core.limits import MAX_WORKER_LINE_BYTES, LimitError, loads_json

#: Bumped on any change an older reader would misread. The worker carries the same number.
PROTOCOL_VERSION = 1

#: Longest line the runner accepts (bytes; ``core.limits``); a longer one is a protocol error.
MAX_LINE_BYTES = MAX_WORKER_LINE_BYTES
#: Deepest nesting of arrays and objects in a line (the worker's use 5 or 6 levels).
MAX_LINE_DEPTH = 32

#: Error kinds the worker reports.
WORKER_ERROR_KINDS = ("torch-missing", "bad-device", "unknown-probe", "out-of-memory",
                      "unsupported", "exception")
#: Error kinds the runner makes from a worker that misbehaved or was stopped.
RUNNER_ERROR_KINDS = ("start-failed", "timeout", "crash", "nonzero-exit", "protocol",
                      "incomplete", "cancelled")


class ProtocolError(ValueError):
    """A line that is not a valid protocol message; the text names the problem."""


@dataclass(frozen=True)
class Hello:
    """The worker's handshake: versions, accelerators and devices it can see.

    Attributes:
        protocol: The worker's protocol version (equal to :data:`PROTOCOL_VERSION`).
        versions: ``python``, ``torch`` (``None`` when torch is missing), ``cuda``, ``hip``.
        accelerators: Availability of ``cuda``, ``rocm``, ``mps``, ``xpu`` and ``cpu``.
        devices: One dict per device, each with at least ``id`` (``"cuda:0"``, ``"cpu"``) and
            ``name``; ``memory_total_bytes`` / ``memory_free_bytes`` where known.
        torch_error: Why ``import torch`` failed, when it did.
    """

    protocol: int
    versions: dict[str, str | None]
    accelerators: dict[str, bool] = field(default_factory=dict)
    devices: tuple[dict[str, Any], ...] = ()
    torch_error: str | None = None

    @property
    def torch(self) -> str | None:
        """torch's version in the worker's interpreter, or ``None`` when it is missing."""
        return self.versions.get("torch")

    def to_json(self) -> dict[str, Any]:
        return {"type": "hello", "protocol": self.protocol, "versions": dict(self.versions),
                "accelerators": dict(self.accelerators), "devices": list(self.devices),
                "torch_error": self.torch_error}


@dataclass(frozen=True)
class Progress:
    """How far one probe has got: ``fraction`` in [0, 1] and a short human message."""

    probe: str
    fraction: float
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": "progress", "probe": self.probe, "fraction": self.fraction,
                "message": self.message}


@dataclass(frozen=True)
class Result:
    """One probe's measurements.

    Attributes:
        probe: The probe's name (``matmul``, ``bandwidth``).
        figures: Name -> finite number; the unit is in the name (``fp32_median_tflops``).
        units: Name -> unit (``TFLOPS``, ``GB/s``) for every figure.
        conditions: How it was measured: device name, dtypes, shapes, iterations, sizes.
    """

    probe: str
    figures: dict[str, float]
    units: dict[str, str]
    conditions: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"type": "result", "probe": self.probe, "figures": dict(self.figures),
                "units": dict(self.units), "conditions": dict(self.conditions)}


@dataclass(frozen=True)
class Error:
    """A probe (or, with ``probe=None``, the whole run) that failed.

    ``kind`` is one of :data:`WORKER_ERROR_KINDS` or :data:`RUNNER_ERROR_KINDS` (others are
    accepted from newer workers); ``message`` says what happened, for people.
    """

    probe: str | None
    kind: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "error", "probe": self.probe, "kind": self.kind, "message": self.message}


@dataclass(frozen=True)
class Done:
    """The worker finished; nothing follows."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "done"}


Message = Hello | Progress | Result | Error | Done


def to_line(message: Message) -> str:
    """One message as a protocol line (JSON, no newline inside, ``\\n`` at the end)."""
    return json.dumps(message.to_json(), separators=(",", ":"), allow_nan=False) + "\n"


def parse_line(line: str | bytes) -> Message:
    """Parse one line of the worker's stdout.

    Args:
        line: The line, with or without its trailing newline.

    Returns:
        The message.

    Raises:
        ProtocolError: The line is not a protocol message; the text names the problem
            (not JSON, not an object, unknown type, a missing or mistyped field, a different
            protocol version) and quotes the start of the line.
    """
    if isinstance(line, bytes):
        if len(line) > MAX_LINE_BYTES:
            raise ProtocolError(f"line longer than {MAX_LINE_BYTES} bytes")
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError(f"line is not UTF-8: {_quote(line)}") from None
    text = line.rstrip("\r\n")
    if len(text) > MAX_LINE_BYTES:
        raise ProtocolError(f"line longer than {MAX_LINE_BYTES} characters")
    if not text.strip():
        raise ProtocolError("empty line")
    try:
        data = loads_json(text, max_depth=MAX_LINE_DEPTH)
    except LimitError as exc:
        raise ProtocolError(f"not JSON as this app reads it ({exc}): {_quote(text)}") from None
    except (ValueError, RecursionError):
        raise ProtocolError(f"not JSON: {_quote(text)}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"not a JSON object: {_quote(text)}")
    kind = data.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise ProtocolError(f"unknown message type {kind!r}: {_quote(text)}")
    try:
        return parser(data)
    except ProtocolError as exc:
        raise ProtocolError(f"{kind}: {exc}: {_quote(text)}") from None
    except (TypeError, ValueError, ArithmeticError) as exc:  # a shape no check foresaw
        raise ProtocolError(f"{kind}: {exc}: {_quote(text)}") from None


def _quote(text: str | bytes, limit: int = 80) -> str:
    shown = repr(text[:limit])
    return shown + ("..." if len(text) > limit else "")


def _get(data: dict, key: str, types: type | tuple[type, ...], *, optional: bool = False):
    if key not in data or data[key] is None:
        if optional:
            return None
        raise ProtocolError(f"missing {key!r}")
    value = data[key]
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise ProtocolError(f"{key!r} must be {_type_names(types)}, got a boolean")
    if not isinstance(value, types):
        raise ProtocolError(f"{key!r} must be {_type_names(types)}, got {type(value).__name__}")
    return value


def _type_names(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    if float in types:
        return "a number"
    names = {str: "a string", int: "an integer", dict: "an object", list: "a list"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def _parse_hello(data: dict) -> Hello:
    protocol = _get(data, "protocol", int)
    if protocol != PROTOCOL_VERSION:
        raise ProtocolError(f"the worker speaks protocol {protocol}, this app speaks "
                            f"{PROTOCOL_VERSION}")
    versions = _get(data, "versions", dict)
    for name, value in versions.items():
        if value is not None and not isinstance(value, str):
            raise ProtocolError(f"versions.{name} must be a string or null")
    accelerators = _get(data, "accelerators", dict, optional=True) or {}
    if not all(isinstance(v, bool) for v in accelerators.values()):
        raise ProtocolError("accelerators must map names to booleans")
    devices = _get(data, "devices", list, optional=True) or []
    for i, device in enumerate(devices):
        if not isinstance(device, dict) or not isinstance(device.get("id"), str):
            raise ProtocolError(f"devices[{i}] must be an object with a string 'id'")
    return Hello(protocol=protocol, versions=dict(versions), accelerators=dict(accelerators),
                 devices=tuple(devices),
                 torch_error=_get(data, "torch_error", str, optional=True))


def _parse_progress(data: dict) -> Progress:
    fraction = float(_get(data, "fraction", (int, float)))
    if not 0.0 <= fraction <= 1.0:
        raise ProtocolError(f"'fraction' must be in [0, 1], got {fraction}")
    return Progress(probe=_get(data, "probe", str), fraction=fraction,
                    message=_get(data, "message", str, optional=True) or "")


def _parse_result(data: dict) -> Result:
    figures = _get(data, "figures", dict)
    units = _get(data, "units", dict)
    for name, value in figures.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
                float(value)):
            raise ProtocolError(f"figures.{name} must be a finite number, got {value!r}")
        if not isinstance(units.get(name), str):
            raise ProtocolError(f"figures.{name} has no unit in 'units'")
    return Result(probe=_get(data, "probe", str),
                  figures={k: float(v) for k, v in figures.items()},
                  units={k: v for k, v in units.items() if isinstance(v, str)},
                  conditions=dict(_get(data, "conditions", dict, optional=True) or {}))


def _parse_error(data: dict) -> Error:
    return Error(probe=_get(data, "probe", str, optional=True), kind=_get(data, "kind", str),
                 message=_get(data, "message", str, optional=True) or "")


def _parse_done(data: dict) -> Done:
    return Done()


_PARSERS = {"hello": _parse_hello, "progress": _parse_progress, "result": _parse_result,
            "error": _parse_error, "done": _parse_done}
