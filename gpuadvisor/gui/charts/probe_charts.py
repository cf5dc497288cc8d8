"""Charts of the Probe page: measured vs the catalog's theoretical peak, and one figure over
the runs of a device.

Both follow :class:`~.base.ChartBase`: items are created once and updated with
``setOpts``/``setData``; tests read :meth:`VersusChart.bars` and the curve's ``getData()``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QWidget

from .base import ChartBase
from .style import OKABE_ITO

#: Thickness of a measured bar and of the peak behind it, in rows.
MEASURED_HEIGHT = 0.5
PEAK_HEIGHT = 0.76
#: Room right of the longest bar for its label, as a share of the bar.
_LABEL_ROOM = 0.75
#: The peak bar's colours on a light plot (the theme's ``peak_fill``/``peak_line`` follow the
#: palette).
PEAK_FILL = "#E4E4E4"
PEAK_LINE = "#7A7A7A"


def format_value(value: float | None) -> str:
    """A measured figure for people: three significant digits, no exponent below 10⁶."""
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("ProbeCharts", "n/a")
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def parse_timestamp(text: str) -> float | None:
    """Seconds since the epoch of a stored UTC ISO timestamp (``...Z``), or ``None``."""
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.timestamp()


class VersusChart(ChartBase):
    """Measured figures (solid bars) against the catalog's peak (a light bar behind), one
    row per figure, all in one unit; each row is labelled with the value and its share of
    the peak.

    Attributes:
        measured_item: the measured bars (``opts["width"]``: values, ``opts["y"]``: rows).
        peak_item: the peak bars (0 where the catalog has no figure).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(QCoreApplication.translate(
            "ProbeCharts", "Measured against the catalog peak"))
        self._rows: list[tuple[str, float, float | None, float | None]] = []
        self._bases: list[str] = []
        self._unit = ""
        self.peak_item = pg.BarGraphItem(x0=[0.0], width=[0.0], y=[0.0], height=PEAK_HEIGHT)
        self.peak_item.setZValue(-5)
        self.measured_item = pg.BarGraphItem(x0=[0.0], width=[0.0], y=[0.0],
                                             height=MEASURED_HEIGHT)
        self.plot_item.addItem(self.peak_item)
        self.plot_item.addItem(self.measured_item)
        self.plot_item.vb.invertY(True)  # the first figure on top, as in a table
        self.plot_item.setMouseEnabled(x=True, y=False)
        self.plot_item.vb.setLimits(xMin=0)
        self.plot_item.showGrid(x=True, y=False, alpha=0.12)
        # "TFLOPS (x1e-3)" would be a second unit beside the one in the labels.
        self.plot_item.getAxis("bottom").enableAutoSIPrefix(False)
        self._value_labels: list[pg.TextItem] = []
        self._apply_axis_style()
        self._redraw()

    # -- public API ----------------------------------------------------------------------

    def set_data(self, rows: Sequence[Any], unit: str) -> None:
        """Draw one bar per row.

        Args:
            rows: objects with ``label``, ``measured``, ``theoretical`` (``None`` without a
                catalog figure) and ``percent`` (measured as a % of theoretical, or ``None``),
                such as :class:`gpuadvisor.probes.compare.VersusRow`.
            unit: the unit all rows share (``TFLOPS``, ``GB/s``).

        Raises:
            ValueError: a measured value that is not a finite number.
        """
        checked = []
        for row in rows:
            measured = float(row.measured)
            if not math.isfinite(measured):
                raise ValueError(f"rows: {row.label} has a measured value of {measured}")
            theoretical = None if row.theoretical is None else float(row.theoretical)
            percent = None if row.percent is None else float(row.percent)
            checked.append((str(row.label), measured, theoretical, percent))
        self._start_data()
        self._rows = checked
        self._bases = [str(getattr(row, "basis", "") or "") for row in rows]
        self._unit = unit
        labels = [label for label, *_ in checked] or ["0"]
        self._left_tick_sample = max(labels, key=len)
        self._apply_axis_style()
        self._redraw()

    def preferred_height(self) -> int:
        """Pixels that show every row at a readable thickness, with axis and legend."""
        row_px = 2.4 * QFontMetrics(self.theme.font(self.theme.annotation_pt)).height()
        extra = 4 * QFontMetrics(self.theme.font(self.theme.tick_pt)).height() + 16
        return int(max(len(self._rows), 1) * row_px + extra)

    def bars(self) -> list[tuple[str, float, float | None, float | None]]:
        """(label, measured, theoretical, percent) per row, top to bottom."""
        return list(self._rows)

    def value_texts(self) -> list[str]:
        """The label drawn beside each bar."""
        return [item.toPlainText() for item in self._value_labels[:len(self._rows)]]

    # -- drawing --------------------------------------------------------------------------

    def _row_text(self, measured: float, theoretical: float | None,
                  percent: float | None) -> str:
        value = f"{format_value(measured)} {self._unit}"
        if percent is None or theoretical is None:
            return value
        return QCoreApplication.translate(
            "ProbeCharts", "{value} · {percent:.0f}% of {peak}").format(
            value=value, percent=percent, peak=format_value(theoretical))

    def _redraw(self) -> None:
        theme = self.theme
        n = len(self._rows)
        ys = np.arange(n, dtype=float)
        measured = np.array([m for _, m, _, _ in self._rows], dtype=float)
        peaks = np.array([t or 0.0 for _, _, t, _ in self._rows], dtype=float)
        self.measured_item.setOpts(
            x0=np.zeros(n), width=measured, y=ys, height=MEASURED_HEIGHT,
            brush=pg.mkBrush(theme.curve),
            pen=pg.mkPen(theme.background, width=theme.outline_px))
        self.peak_item.setOpts(
            x0=np.zeros(n), width=peaks, y=ys, height=PEAK_HEIGHT,
            brush=pg.mkBrush(theme.peak_fill),
            pen=pg.mkPen(theme.peak_line, width=theme.outline_px))
        while len(self._value_labels) < n:
            item = pg.TextItem(anchor=(0, 0.5))
            item.setZValue(20)
            self.plot_item.addItem(item, ignoreBounds=True)
            self._value_labels.append(item)
        for i, item in enumerate(self._value_labels):
            if i >= n:
                item.hide()
                continue
            _, value, peak, percent = self._rows[i]
            item.setText(self._row_text(value, peak, percent))
            item.setFont(theme.font(theme.annotation_pt, bold=True))
            item.setColor(theme.foreground)
            item.setPos(max(value, peak or 0.0), float(i))
            item.show()
        self.plot_item.getAxis("left").setTicks(
            [[(float(i), label) for i, (label, *_rest) in enumerate(self._rows)], []])
        has_peak = any(t is not None for _, _, t, _ in self._rows)
        entries = [(self.measured_item, QCoreApplication.translate("ProbeCharts", "measured"))]
        if has_peak:
            entries.append((self.peak_item, QCoreApplication.translate("ProbeCharts",
                                                                       "catalog peak")))
        # Without a peak the title says it all; a legend of one entry only takes room.
        self._set_legend(entries if n and has_peak else [])
        self._set_axis_labels(self._unit, "")
        self._frame()
        self._update_description()

    def describe(self) -> str:
        """Each measured figure in a sentence, with its share of the catalog peak."""
        if not self._rows:
            return ""
        return "; ".join(f"{label}: {self._row_text(value, peak, percent)}"
                         for label, value, peak, percent in self._rows) + "."

    def _frame(self) -> None:
        n = max(len(self._rows), 1)
        longest = max([max(m, t or 0.0) for _, m, t, _ in self._rows], default=1.0) or 1.0
        self.plot_item.vb.setRange(xRange=(0, longest * (1 + _LABEL_ROOM)),
                                   yRange=(-0.6, n - 0.4), padding=0)

    def _hover_text_at(self, x: float, y: float) -> str | None:
        index = round(y)
        if not 0 <= index < len(self._rows) or abs(y - index) > PEAK_HEIGHT / 2:
            return None
        label, measured, peak, percent = self._rows[index]
        lines = [label, QCoreApplication.translate(
            "ProbeCharts", "measured: {value} {unit}").format(value=format_value(measured),
                                                              unit=self._unit)]
        if peak is not None:
            lines.append(QCoreApplication.translate(
                "ProbeCharts", "catalog peak: {value} {unit}").format(value=format_value(peak),
                                                                 unit=self._unit))
            if self._bases[index]:
                lines[-1] += f" ({self._bases[index]})"
        if percent is not None:
            lines.append(QCoreApplication.translate("ProbeCharts", "{percent:.1f}% of peak").format(
                percent=percent))
        return "\n".join(lines)


class HistoryChart(ChartBase):
    """One figure of a device over its runs: a point per run, joined by a line, on a date axis.

    Attributes:
        curve: the line and points; ``getData()`` is (seconds since the epoch, values).
        highlight: rings around the runs being compared.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, axis_items={"bottom": pg.DateAxisItem(orientation="bottom")})
        self.setAccessibleName(QCoreApplication.translate(
            "ProbeCharts", "History of a measured figure"))
        self._times: list[float] = []
        self._values: list[float] = []
        self._label = ""
        self._unit = ""
        self._rings: list[int] = []
        self.curve = pg.PlotDataItem(symbol="o")
        self.highlight = pg.ScatterPlotItem()
        self.plot_item.addItem(self.curve)
        self.plot_item.addItem(self.highlight)
        self.plot_item.setMouseEnabled(x=True, y=False)
        self.plot_item.getAxis("left").enableAutoSIPrefix(False)
        self._apply_axis_style()
        self._redraw()

    def set_data(self, timestamps: Sequence[str], values: Sequence[float], label: str,
                 unit: str, highlighted: Sequence[int] = ()) -> None:
        """Draw ``values`` at the runs' ``timestamps`` (stored UTC ISO texts).

        Runs whose timestamp cannot be read are left out. ``highlighted``: indexes of runs
        to ring (the two being compared).
        """
        times, kept, rings = [], [], []
        for i, (stamp, value) in enumerate(zip(timestamps, values, strict=True)):
            seconds = parse_timestamp(stamp)
            if seconds is None or value is None or not math.isfinite(float(value)):
                continue
            if i in highlighted:
                rings.append(len(times))
            times.append(seconds)
            kept.append(float(value))
        self._start_data()
        self._times, self._values, self._label, self._unit = times, kept, label, unit
        self._rings = rings
        self._redraw()

    def _redraw(self) -> None:
        theme = self.theme
        self.curve.setData(np.array(self._times, dtype=float),
                           np.array(self._values, dtype=float))
        self.curve.setPen(pg.mkPen(theme.curve, width=theme.line_px))
        self.curve.setSymbolBrush(pg.mkBrush(theme.curve))
        self.curve.setSymbolPen(pg.mkPen(theme.background))
        self.curve.setSymbolSize(theme.marker_size)
        rings = self._rings
        self.highlight.setData([self._times[i] for i in rings], [self._values[i] for i in rings],
                               size=theme.marker_size * 2, brush=pg.mkBrush(None),
                               pen=pg.mkPen(OKABE_ITO["vermillion"], width=theme.line_px))
        # The figure's name is in the picker above the chart; the axis carries the unit.
        self._set_axis_labels("", self._unit)
        self._frame()
        self._update_description()

    def describe(self) -> str:
        """The figure over its runs in a sentence: how many, first and last value."""
        if not self._values:
            return ""
        first = datetime.fromtimestamp(self._times[0]).strftime("%Y-%m-%d")
        last = datetime.fromtimestamp(self._times[-1]).strftime("%Y-%m-%d")
        return QCoreApplication.translate(
            "ProbeCharts", "{label} over {runs} runs: {first} {unit} on {first_day}, {last} "
            "{unit} on {last_day}.").format(
            label=self._label, runs=len(self._values), first=format_value(self._values[0]),
            last=format_value(self._values[-1]), unit=self._unit, first_day=first,
            last_day=last)

    def _frame(self) -> None:
        if not self._times:
            self.plot_item.vb.setRange(yRange=(0, 1), padding=0.05)
            return
        low, high = min(self._times), max(self._times)
        span = max(high - low, 3600.0)
        top = max(self._values) or 1.0
        self.plot_item.vb.setRange(xRange=(low - 0.08 * span, high + 0.08 * span),
                                   yRange=(0, top * 1.15), padding=0)

    def _hover_text_at(self, x: float, y: float) -> str | None:
        if not self._times:
            return None
        times = np.array(self._times)
        i = int(np.argmin(np.abs(times - x)))
        span = self.plot_item.vb.viewRange()[0]
        if abs(times[i] - x) > 0.04 * (span[1] - span[0]):
            return None
        when = datetime.fromtimestamp(times[i]).strftime("%Y-%m-%d %H:%M")
        return f"{when}\n{self._label}: {format_value(self._values[i])} {self._unit}"


__all__ = ["HistoryChart", "VersusChart", "format_value", "parse_timestamp"]
