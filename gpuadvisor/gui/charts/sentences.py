"""Charts' data in a sentence, for screen readers (a chart's accessible description)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from gpuadvisor.core.units import format_bytes

from .items import format_number

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


def curve_sentence(x_label: str, xs, totals_bytes, units: str, oom_text: str = "",
                   fit_text: str = "", current: tuple[float, float] | None = None) -> str:
    """"Memory per GPU against micro-batch: 6.1 GiB at 1 to 20.3 GiB at 64. Out of memory
    above 24 GiB (RTX 4090). Largest micro-batch that fits: 30. Your plan: 4 (7.2 GiB)."

    Args:
        x_label: what x is ("micro-batch").
        xs, totals_bytes: the curve's points (bytes per GPU), at least one.
        units: "GiB" or "GB".
        oom_text, fit_text: the chart's own out-of-memory and largest-fit labels ("": none).
        current: the plan's (x, bytes), or None.
    """
    parts = [translate("MemoryCurveChart", "Memory per GPU against {what}: {low} at {x0} to "
                                           "{high} at {x1}.").format(
        what=x_label, low=format_bytes(totals_bytes[0], units), x0=format_number(xs[0]),
        high=format_bytes(totals_bytes[-1], units), x1=format_number(xs[-1]))]
    parts += [f"{text}." for text in (oom_text, fit_text) if text]
    if current is not None:
        parts.append(translate("MemoryCurveChart", "Your plan: {value} ({size}).").format(
            value=format_number(current[0]), size=format_bytes(current[1], units)))
    return " ".join(parts)


__all__ = ["curve_sentence"]
