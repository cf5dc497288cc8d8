"""Numbers people read in the app, written in one place and translated.

The policy:

- results (times, rates, counts of parameters or tokens, FLOPs, GPU-hours) have three
  significant figures: ``27.7 h``, ``1.92 s``, ``1,070 tokens/s``, ``41.9M``, ``5.06 EFLOP``;
- memory sizes keep one decimal of their unit, GiB or GB as the View setting says
  (:func:`gpuadvisor.core.units.format_bytes`): ``10.6 GiB``, ``872.7 MiB`` — the resolution a
  plan is held against a card's capacity at;
- exact counts (optimizer steps, samples, days) are written in full: ``52,002``;
- what the user types keeps what they typed;
- a figure nobody knows reads "unknown" (未知), never "n/a".

A time is consistent with its parts: ``52,002 × 1.92 s = 27.7 h`` (the step is rounded to three
figures, and so is the total).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication

from gpuadvisor.core.units import duration_parts, format_sig

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


def sig(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures, with thousands separators:
    ``1.92``, ``27.7``, ``0.0452``, ``1,070``, ``52,000`` (:func:`~gpuadvisor.core.units.
    format_sig`, the command line's too)."""
    if value is None or not math.isfinite(value):
        return unknown()
    return format_sig(value, digits)


def unknown() -> str:
    """What a figure nobody knows reads."""
    return translate("Numbers", "unknown")


def duration(seconds: float) -> str:
    """A duration with three significant figures in the unit that reads best: ``452 ms``,
    ``1.92 s``, ``15.2 min``, ``27.7 h``, ``7.52 days``, ``2.10 years``
    (:func:`~gpuadvisor.core.units.duration_parts`: the command line's rule, translated)."""
    parts = duration_parts(seconds)
    if parts is None:
        return unknown()
    number, unit = parts
    template = {"ms": translate("Numbers", "{n} ms"), "s": translate("Numbers", "{n} s"),
                "min": translate("Numbers", "{n} min"), "h": translate("Numbers", "{n} h"),
                "days": translate("Numbers", "{n} days"),
                "years": translate("Numbers", "{n} years")}[unit]
    return template.format(n=number)


#: Chinese counts large numbers in myriads: 万 (10^4), 亿 (10^8), 万亿 (10^12) - "6.65M
#: tokens" reads 665万, "8.03B parameters" 80.3亿.
_MYRIADS = ((1e12, "万亿"), (1e8, "亿"), (1e4, "万"))
_THOUSANDS = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def count(n: float) -> str:
    """A large count with three significant figures: ``8.03B``, ``41.9M``, ``106M``, ``52.0k``;
    under 1,000 in full. In Chinese by myriads: ``80.3亿``, ``4190万``, ``5.20万``; under
    10,000 in full. Either is what the count fields take back
    (:func:`~gpuadvisor.core.units.parse_count`)."""
    if n is None or not math.isfinite(n):
        return unknown()
    from gpuadvisor.gui.i18n import current_language

    myriads = current_language().startswith("zh")
    for size, name in _MYRIADS if myriads else _THOUSANDS:
        if abs(n) >= size:
            # a myriad's figure has at most four digits: 4190万, read and typed whole
            figure = sig(n / size)
            return f"{figure.replace(',', '') if myriads else figure}{name}"
    return f"{n:,.0f}"


def whole(n: float) -> str:
    """An exact count in full: ``52,002``."""
    if n is None or not math.isfinite(n):
        return unknown()
    return f"{n:,.0f}"


def flops(n: float) -> str:
    """FLOPs with an SI prefix and three significant figures: ``5.06 EFLOP``."""
    if n is None or not math.isfinite(n):
        return unknown()
    for size, name in ((1e24, "YFLOP"), (1e21, "ZFLOP"), (1e18, "EFLOP"), (1e15, "PFLOP"),
                       (1e12, "TFLOP"), (1e9, "GFLOP")):
        if abs(n) >= size:
            return f"{sig(n / size)} {name}"
    return f"{sig(n)} FLOP"


def hours_tick(hours: float) -> str:
    """A duration for an axis tick, whole units: ``10 min``, ``3 h``, ``2 d``, ``1 wk``."""
    seconds = hours * 3600.0
    for limit, scale, text in (
        (90, 1, translate("Numbers", "{n} s")),
        (3600 - 1, 60, translate("Numbers", "{n} min")),
        (24 * 3600 - 1, 3600, translate("Numbers", "{n} h")),
        (168 * 3600 - 1, 86400, translate("Numbers", "{n} d")),
        (720 * 3600 - 1, 7 * 86400, translate("Numbers", "{n} wk")),
        (8760 * 3600 - 1, 30 * 86400, translate("Numbers", "{n} mo")),
    ):
        if seconds < limit:
            return text.format(n=f"{seconds / scale:.0f}")
    return translate("Numbers", "{n} yr").format(n=f"{seconds / (8760 * 3600):.0f}")


def short_gpu_name(name: str) -> str:
    """"NVIDIA GeForce RTX 4090" -> "RTX 4090" where room is short (charts, a projector)."""
    for prefix in ("NVIDIA GeForce ", "NVIDIA ", "AMD Radeon ", "AMD ", "Intel "):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


__all__ = ["count", "duration", "flops", "hours_tick", "short_gpu_name", "sig", "unknown",
           "whole"]
