"""A small YAML writer for the exports: nested mappings of plain scalars and text blocks.

The exports need far less than YAML offers: mappings (kept in the order given), strings,
numbers, booleans, null, and multi-line shell scripts as literal blocks (``|``). Writing
that by hand keeps PyYAML out of the app's dependencies; the tests parse every export back
with PyYAML (a test dependency) to prove the text means what we meant.

Strings are written plain only when YAML reads them back as the same string (a letter
first, then letters, digits and ``_.:/+-``, and not one of YAML 1.1's words for booleans
and null such as ``no`` or ``on``); everything else is double-quoted with JSON escapes,
which are valid YAML escapes (:func:`gpuadvisor.export.quoting.yaml_string`). ``A100-80GB:8``
stays plain, ``'no'`` becomes ``"no"``. Comments (the header, a value's trailing comment)
are one line whatever their text holds (:func:`~gpuadvisor.export.quoting.comment_text`),
and a multi-line string becomes a literal block only when it reads back exactly
(:func:`~gpuadvisor.export.quoting.literal_block_safe`), else a quoted string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from .quoting import comment_text, literal_block_safe, yaml_string

_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9_.:/+-]*$")
# YAML 1.1 (PyYAML) and 1.2 read these as booleans or null, in any case.
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"}
INDENT = "  "


class Commented:
    """A value written with a trailing ``# comment`` on its line (scalars only)."""

    def __init__(self, value: object, comment: str) -> None:
        self.value = value
        self.comment = comment


def scalar(value: object) -> str:
    """One scalar as YAML text.

    Raises:
        ValueError: for a non-finite float or a type the exports never write.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} to YAML")
        text = repr(value)
        mantissa, e, exponent = text.partition("e")
        if e and "." not in mantissa:  # YAML 1.1 reads 1e-08 as a string, 1.0e-08 as a float
            text = f"{mantissa}.0e{exponent}"
        return text
    if isinstance(value, str):
        if _PLAIN.match(value) and value.lower() not in _RESERVED and ": " not in value:
            return value
        return yaml_string(value)
    raise ValueError(f"cannot write a {type(value).__name__} to YAML")


def dump(mapping: Mapping[str, object], header: list[str] | tuple[str, ...] = ()) -> str:
    """A YAML document for ``mapping``, with ``header`` lines as ``#`` comments on top.

    Values may be scalars, nested mappings, :class:`Commented` scalars, or multi-line
    strings (written as literal blocks). An empty mapping is written ``{}``.
    """
    lines = [f"# {comment_text(line)}" if line else "#" for line in header]
    _mapping(mapping, 0, lines)
    return "\n".join(lines) + "\n"


def _mapping(mapping: Mapping[str, object], depth: int, lines: list[str]) -> None:
    pad = INDENT * depth
    for key, value in mapping.items():
        name = scalar(str(key))
        comment = ""
        if isinstance(value, Commented):
            value, comment = value.value, f"  # {comment_text(value.comment)}"
        if isinstance(value, Mapping):
            if not value:
                lines.append(f"{pad}{name}: {{}}{comment}")
                continue
            lines.append(f"{pad}{name}:{comment}")
            _mapping(value, depth + 1, lines)
        elif isinstance(value, str) and "\n" in value and literal_block_safe(value):
            _block(name, value, pad, comment, lines)
        else:
            lines.append(f"{pad}{name}: {scalar(value)}{comment}")


def _block(name: str, text: str, pad: str, comment: str, lines: list[str]) -> None:
    """A literal block: every line of ``text`` indented one level deeper.

    Chomping keeps the text exact: ``|`` for one final newline, ``|-`` for none, ``|+``
    (with the empty lines) for more. Lines of only spaces are written empty.
    """
    body = text.rstrip("\n").split("\n")
    trailing = len(text) - len(text.rstrip("\n"))
    chomp = {0: "-", 1: ""}.get(trailing, "+")
    # An explicit indentation indicator when the first line starts with a space.
    indicator = str(len(INDENT)) if body[0].startswith(" ") else ""
    lines.append(f"{pad}{name}: |{indicator}{chomp}{comment}")
    inner = pad + INDENT
    lines.extend(f"{inner}{line}" if line.strip() else "" for line in body)
    if trailing > 1:
        lines.extend([""] * (trailing - 1))
