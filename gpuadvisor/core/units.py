"""Units: parse and format bytes, FLOPs, durations, counts and money in one place.

The math everywhere else works in plain SI base units (bytes, FLOPs, seconds, US dollars);
only this module turns them into text for people, and text from people into numbers.
"""

from __future__ import annotations

import math
import re
import unicodedata

KiB = 1024
MiB = 1024**2
GiB = 1024**3
TiB = 1024**4
KB = 1000
MB = 1000**2
GB = 1000**3
TB = 1000**4

_BYTE_UNITS = {
    "b": 1,
    "kb": KB,
    "mb": MB,
    "gb": GB,
    "tb": TB,
    "kib": KiB,
    "mib": MiB,
    "gib": GiB,
    "tib": TiB,
}
#: Count suffixes: thousands (k, M, B/G, T) and the Chinese myriads (万 10^4, 亿 10^8, 万亿
#: 10^12), as the app writes counts in either language.
_COUNT_SUFFIX = {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12,
                 "万": 1e4, "亿": 1e8, "万亿": 1e12}
_NUMBER_UNIT = re.compile(
    r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*|万亿|万|亿)\s*$")


def parse_bytes(text: str) -> int:
    """Parse a size such as ``"24GiB"``, ``"80 GB"``, ``"512MiB"`` or ``"1000"`` into bytes.

    Raises:
        ValueError: the text is not a size, naming what was given.
    """
    match = _NUMBER_UNIT.match(str(text))
    unit = match.group(2).lower() if match else None
    if not match or unit not in {*_BYTE_UNITS, ""}:
        raise ValueError(f"not a size: {text!r} (try e.g. '24GiB' or '80GB')")
    return round(float(match.group(1)) * _BYTE_UNITS.get(unit, 1))


def parse_count(text: str) -> float:
    """Parse a count such as ``"2T"``, ``"1.5B"``, ``"300M"``, ``"16k"``, ``"1e9"`` or
    ``"665万"``.

    Raises:
        ValueError: the text is not a count, naming what was given.
    """
    match = _NUMBER_UNIT.match(str(text))
    suffix = match.group(2).lower() if match else None
    if not match or suffix not in _COUNT_SUFFIX:
        raise ValueError(f"not a count: {text!r} (try e.g. '2T', '1.5B', '300M', '16k')")
    return float(match.group(1)) * _COUNT_SUFFIX[suffix]


def format_bytes(n: float, units: str = "GiB", digits: int = 1) -> str:
    """Format a byte count for people: binary (``"GiB"``) or decimal (``"GB"``) units."""
    if n is None or not math.isfinite(n):
        return "n/a"
    if units == "GB":
        steps = [(TB, "TB"), (GB, "GB"), (MB, "MB"), (KB, "kB")]
    else:
        steps = [(TiB, "TiB"), (GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")]
    for size, name in steps:
        if abs(n) >= size:
            return f"{n / size:.{digits}f} {name}"
    return f"{n:.0f} B"


def format_count(n: float, digits: int = 2) -> str:
    """Format a large count compactly: ``8.03B``, ``124.4M``, ``2.0T``."""
    if n is None or not math.isfinite(n):
        return "n/a"
    for size, name in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= size:
            return f"{n / size:.{digits}f}{name}"
    return f"{n:.0f}"


def format_flops(n: float) -> str:
    """Format a FLOP count with SI prefixes: ``1.2e21`` -> ``"1.20 ZFLOP"``."""
    if n is None or not math.isfinite(n):
        return "n/a"
    for size, name in ((1e24, "YFLOP"), (1e21, "ZFLOP"), (1e18, "EFLOP"), (1e15, "PFLOP"),
                       (1e12, "TFLOP"), (1e9, "GFLOP")):
        if abs(n) >= size:
            return f"{n / size:.2f} {name}"
    return f"{n:.3g} FLOP"


def printable(text: str) -> str:
    """``text`` as one safe line for a terminal, a table or a label: every control, format,
    line- or paragraph-separator character (``\\x1b``, ``\\n``, U+202E, U+2028) written as
    a visible escape (``\\x1b``, ``\\n``, ``\\u202e``), so a name read from a file cannot
    move the cursor, recolour the terminal, rename its window or reverse the text after it."""
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            code = ord(char)
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char) or (
                f"\\x{code:02x}" if code < 0x100 else
                f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"))
        else:
            out.append(char)
    return "".join(out)


def format_sig(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant figures with thousands separators, trailing zeros kept
    and no exponent: ``2.74``, ``9.50``, ``0.0262``, ``1,070``, ``52,000`` (the app's numbers
    and the command line's are this one function)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    decimals = digits - 1 - magnitude
    rounded = round(x, decimals)
    # Rounding may carry into the next power of ten (9.996 -> 10.0).
    if rounded != 0 and math.floor(math.log10(abs(rounded))) > magnitude:
        decimals -= 1
        rounded = round(x, decimals)
    return f"{rounded:,.{max(decimals, 0)}f}"


#: Units of :func:`duration_parts`, with the largest duration each is used below (seconds).
DURATION_UNITS = (("s", 60.0, 1.0), ("min", 3600.0, 60.0), ("h", 48 * 3600.0, 3600.0),
                  ("days", 2 * 365 * 86400.0, 86400.0))


def duration_parts(seconds: float) -> tuple[str, str] | None:
    """A duration as ``(number, unit)`` with three significant figures in the unit that
    reads best (``ms``, ``s``, ``min``, ``h``, ``days``, ``years``); None when unknown. The
    one rule for durations: :func:`format_duration` and the app's translated text use it."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    if seconds < 1:
        return format_sig(seconds * 1000), "ms"
    for unit, below, size in DURATION_UNITS:
        if seconds < below:
            return format_sig(seconds / size), unit
    return format_sig(seconds / (365 * 86400)), "years"


def format_duration(seconds: float) -> str:
    """A duration or a step time to 3 significant figures: ``"838 ms"``, ``"2.74 s"``,
    ``"12.5 min"``, ``"9.50 h"``, ``"3.20 days"``, ``"2.10 years"``; ``"n/a"`` if unknown."""
    parts = duration_parts(seconds)
    return "n/a" if parts is None else f"{parts[0]} {parts[1]}"


CURRENCY_SYMBOLS = {"USD": "$", "CNY": "¥", "EUR": "€"}
"""Symbols written before an amount; other currency codes are written after it."""


def format_money(amount: float, currency: str = "USD", digits: int | None = 2) -> str:
    """Format an amount already in ``currency``: ``"$1,234.50"``, ``"¥88.00"``, ``"-€9.99"``.

    Args:
        amount: the amount, in ``currency``.
        currency: ``USD``, ``CNY`` or ``EUR`` get their symbol first (:data:`CURRENCY_SYMBOLS`);
            other codes are written after the number (``"12.30 GBP"``).
        digits: decimals (default two); None: none from 10 up (``"$14"``, ``"$1,250"``), two
            below (``"$0.90"``, ``"$2.69"``), so an hourly price keeps its cents.

    Returns:
        The text, the sign before the symbol (``"-$5.50"``, never ``"-$0.00"``); ``"n/a"`` for
        a missing or non-finite amount.
    """
    if amount is None or not math.isfinite(amount):
        return "n/a"
    if digits is None:
        digits = 0 if abs(amount) >= 10 else 2
    body = f"{abs(amount):,.{digits}f}"
    sign = "-" if amount < 0 and float(body.replace(",", "")) != 0 else ""
    symbol = CURRENCY_SYMBOLS.get(currency)
    return f"{sign}{symbol}{body}" if symbol else f"{sign}{body} {currency}"
