"""Memory per GPU against micro-batch or sequence length, with the out-of-memory line."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QWidget

from gpuadvisor.core.units import format_bytes
from gpuadvisor.core.verdict import verdict_for
from gpuadvisor.gui.widgets.wrap import cjk_words

from .base import BADGE_MARGIN, ChartBase, as_float_array
from .curve_annotations import CurveAnnotations
from .items import PointMarks, PowerOfTwoAxis, format_number, nice_ceiling
from .sentences import curve_sentence
from .style import (
    CATEGORY_COLORS,
    DOES_NOT_FIT,
    FITS,
    VERDICT_CATEGORY,
    verdict_labels,
)
from .vram_bar import compact_bytes

_CONTEXT = "MemoryCurveChart"
#: The initial view shows up to this multiple of the GPU's capacity.
_MAX_TOP_OVER_CAPACITY = 2.5
#: The badge's sentence takes at most this share of the plot's height (else its number).
_BADGE_SHARE = 0.3


class MemoryCurveChart(CurveAnnotations, ChartBase):
    """Memory per GPU as a function of one knob (micro-batch or sequence length).

    Shows the curve, the target GPU's out-of-memory line with the region above it shaded,
    a marker at the largest x that fits and a ring at the current plan's x.

    Data units: ``curve.getOriginalDataset()`` is ``(x as given, total_bytes / unit)`` where
    unit is 2**30 for ``units="GiB"`` and 10**9 for ``"GB"``; ``curve.getData()`` is the same
    in linear mode and has ``log10(x)`` as x in log mode (pyqtgraph's log-axis convention).
    ``oom_line.value()`` is the capacity in the same display unit.

    Attributes:
        curve: the memory curve (PlotDataItem).
        oom_line: horizontal InfiniteLine at the GPU's capacity (hidden without a GPU).
        largest_fit_marker: PlotDataItem with one point at (largest_fit, its memory).
        current_marker: PlotDataItem with one point at (current_x, its memory).
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        x_label: str | None = None,
        log_x: bool = False,
        units: str = "GiB",
    ) -> None:
        """Create the chart.

        Args:
            parent: Qt parent.
            x_label: what x is, e.g. "micro-batch" or "sequence length" (translated by the
                caller); used on the axis, the fit label and the tooltip.
            log_x: log2 x-axis (for sequence lengths).
            units: "GiB" or "GB" for the y axis.
        """
        super().__init__(
            parent, units=units, axis_items={"bottom": PowerOfTwoAxis(orientation="bottom")}
        )
        self.setAccessibleName(QCoreApplication.translate(
            "MemoryCurveChart", "Memory per GPU curve"))
        self._x_label = x_label or QCoreApplication.translate("MemoryCurveChart", "micro-batch")
        self._x = np.zeros(0)
        self._y_bytes = np.zeros(0)
        self._capacity: float | None = None
        self._gpu_name: str | None = None
        self._largest_fit: float | None = None
        self._current_x: float | None = None
        self._fit_text = ""
        self._fit_short = ""  # the badge on a short plot: its star and number
        self._whole_context = False
        self._queued = False  # a server's requests at once (see set_data)
        self._left_tick_sample = "0000"

        # The region above the line is where every point runs out of memory: shading it
        # makes the crossing readable without reading numbers.
        self._oom_region = pg.LinearRegionItem(
            orientation="horizontal", movable=False, pen=pg.mkPen(None)
        )
        self._oom_region.setZValue(-20)
        self._oom_region.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.plot_item.addItem(self._oom_region, ignoreBounds=True)

        self.oom_line = pg.InfiniteLine(angle=0, movable=False)
        self.oom_line.setZValue(15)
        self.plot_item.addItem(self.oom_line, ignoreBounds=True)
        # Over the curve, with a fill: the curve often runs through the label's spot.
        self.oom_label = self._add_edge_label("left")
        # ...but under the markers: the star often sits on the line, right under the label.
        self.oom_label.setZValue(17)

        # The items hold the data (and the line); the symbols are drawn by PointMarks, in
        # one cheap paint each (see PointMarks).
        self.curve = pg.PlotDataItem()
        self.curve.setZValue(10)
        self.plot_item.addItem(self.curve)
        self._dots = PointMarks("o")
        self._dots.setZValue(11)
        self.plot_item.addItem(self._dots, ignoreBounds=True)

        self.current_marker = pg.PlotDataItem(pen=None)
        self.plot_item.addItem(self.current_marker)
        self._ring = PointMarks("o")
        self._ring.setZValue(20)
        self.plot_item.addItem(self._ring, ignoreBounds=True)

        self.largest_fit_marker = pg.PlotDataItem(pen=None)
        self.plot_item.addItem(self.largest_fit_marker)
        self._star = PointMarks("star")
        self._star.setZValue(30)
        self.plot_item.addItem(self._star, ignoreBounds=True)

        # A badge in view-box pixels (top left, where a rising curve never is), not a label
        # beside the star: beside it, the text collides with the curve or the plot's edge.
        self._fit_label = pg.TextItem(anchor=(0, 0))
        self._fit_label.setParentItem(self.plot_item.vb)
        self._fit_label.setPos(BADGE_MARGIN + 2, BADGE_MARGIN)
        self._fit_label.setZValue(900)
        self._fit_label.textItem.document().setDocumentMargin(6)

        # Legend swatches are separate items: the real markers are sized for the plot and
        # would overflow the legend's 20-pixel sample box in presentation mode.
        self._legend_curve = pg.PlotDataItem(symbol="o")
        self._legend_current = pg.PlotDataItem(symbol="o", pen=None)
        self._legend_fit = pg.PlotDataItem(symbol="star", pen=None)
        self._legend_oom = pg.PlotDataItem()
        # Clicking a legend row toggles its swatch; pass that on to the plotted item.
        for swatch, items in (
            (self._legend_curve, (self.curve, self._dots)),
            (self._legend_current, (self.current_marker, self._ring)),
            (self._legend_fit, (self.largest_fit_marker, self._star)),
        ):
            for item in items:
                swatch.visibleChanged.connect(
                    lambda s=swatch, i=item: i.setVisible(s.isVisible()))

        self._hover_point = pg.PlotDataItem(symbol="o", pen=None)
        self._hover_point.setZValue(25)
        self.plot_item.addItem(self._hover_point, ignoreBounds=True)

        self._log_x = bool(log_x)
        self.plot_item.setLogMode(x=self._log_x, y=False)
        self._apply_axis_style()
        self._redraw()

    # -- public API ----------------------------------------------------------------------

    @property
    def log_x(self) -> bool:
        """Whether the x axis is logarithmic (base-2 ticks)."""
        return self._log_x

    def set_log_x(self, enabled: bool) -> None:
        """Switch the x axis between linear and log2 (for sequence lengths)."""
        self._log_x = bool(enabled)
        self.plot_item.setLogMode(x=self._log_x, y=False)
        self._memo.pop("curve_style", None)
        self._redraw()

    def set_x_label(self, x_label: str) -> None:
        """Name what x is ("micro-batch", "sequence length")."""
        self._x_label = x_label
        self._redraw()

    def set_data(
        self,
        x,
        total_bytes,
        capacity_bytes: float | None = None,
        largest_fit: float | None = None,
        current_x: float | None = None,
        *,
        gpu_name: str | None = None,
        context: float | None = None,
        queued: bool = False,
    ) -> None:
        """Draw memory per GPU (bytes) against x.

        Args:
            x: the knob's values, increasing (positive in log mode).
            total_bytes: memory per GPU at each x, in bytes.
            capacity_bytes: the target GPU's memory (None: no GPU, no OOM line).
            largest_fit: the largest x that fits (from core), None when none fits or no GPU.
            current_x: the plan's x (None: no marker).
            gpu_name: names the OOM line, e.g. "RTX 4090".
            context: the model's context length when x is the sequence length: a largest
                fit at or past it is said as the whole context fitting, at the context
                (a longer sequence than the model holds is not a plan to offer).
            queued: a server's requests at once (vLLM): over the card's line they wait for
                room rather than run out of memory, and "fits" is all of them at once.

        Raises:
            ValueError: x and total_bytes differ in length or are not one-dimensional.
        """
        xs = as_float_array(x, "x")
        ys = as_float_array(total_bytes, "total_bytes")
        if xs.shape != ys.shape:
            raise ValueError(f"x and total_bytes differ in length: {xs.size} vs {ys.size}")
        self._start_data()
        self._x, self._y_bytes = xs, ys
        self.plot_item.getAxis("bottom").integer_only = bool(xs.size and np.all(np.mod(xs, 1) == 0))
        self._capacity = None if capacity_bytes is None else float(capacity_bytes)
        self._largest_fit = None if largest_fit is None else float(largest_fit)
        self._whole_context = bool(context and self._largest_fit is not None
                                   and self._largest_fit >= context)
        if self._whole_context:
            self._largest_fit = float(context)
        self._current_x = None if current_x is None else float(current_x)
        self._gpu_name = gpu_name
        self._queued = bool(queued)
        self._redraw()

    def fit_text(self) -> str:
        """The fit annotation, e.g. "largest micro-batch that fits: 6" ("" when none)."""
        return self._fit_text

    # -- drawing --------------------------------------------------------------------------

    def _y_at(self, x: float) -> float:
        """Memory (display unit) at ``x``: the given point, or interpolated between two."""
        if self._x.size == 0:
            return float("nan")
        return float(np.interp(x, self._x, self._y_bytes)) / self.unit_bytes

    def _redraw(self) -> None:
        theme = self.theme
        ys = self._y_bytes / self.unit_bytes
        # Style only when the theme changes: each style setter re-renders the item's
        # symbols, and this runs on every slider move.
        if self._changed("curve_style", (theme.line_px, theme.marker_size, theme.background,
                                         theme.curve)):
            self.curve.setData(self._x, ys, pen=pg.mkPen(theme.curve, width=theme.line_px))
            self._dots.set_style(symbol="o", size=theme.marker_size, brush=theme.curve,
                                 pen=pg.mkPen(theme.background, width=1))
        else:
            self.curve.setData(self._x, ys)
        self._dots.set_points(self._view_x(self._x), ys)

        red = CATEGORY_COLORS[DOES_NOT_FIT]
        if self._capacity is not None:
            cap = self._capacity / self.unit_bytes
            self.oom_line.show()
            if self._changed("oom_style", (theme.capacity_px, theme.annotation_pt,
                                           theme.bad_text, theme.label_fill)):
                self.oom_line.setPen(pg.mkPen(red, width=theme.capacity_px))
                self.oom_label.setFont(theme.font(theme.annotation_pt, bold=True))
                # The label in the text shade of the red (4.5:1 on the plot), over a fill.
                self.oom_label.setColor(theme.bad_text)
                self.oom_label.fill = pg.mkBrush(*theme.label_fill[:3], 200)
                # clear of its own line (the fill covered half of it)
                self.oom_label.edge_gap = theme.capacity_px / 2 + 1
                self._oom_region.setBrush(pg.mkBrush(213, 94, 0, 28))
            if self._changed("oom_value", cap):
                self.oom_line.setValue(cap)
            name = self._gpu_name or QCoreApplication.translate("MemoryCurveChart", "target GPU")
            size = compact_bytes(self._capacity, self.units)
            # The long text where it has room, else the short one (see _place_annotations).
            self._oom_texts = (
                QCoreApplication.translate(
                    "MemoryCurveChart", "requests wait above {size} ({gpu})"
                ).format(size=size, gpu=name),
                QCoreApplication.translate(
                    "MemoryCurveChart", "requests wait above {size}").format(size=size),
            ) if self._queued else (
                QCoreApplication.translate(
                    "MemoryCurveChart", "out of memory above {size} ({gpu})"
                ).format(size=size, gpu=name),
                QCoreApplication.translate(
                    "MemoryCurveChart", "out of memory above {size}").format(size=size),
            )
            self._set_text(self.oom_label, self._oom_texts[0])
            self.oom_label.edge_value = cap
            self._oom_region.show()
        else:
            self.oom_line.hide()
            self.oom_label.edge_value = None
            self._oom_region.hide()

        self._draw_markers()
        if getattr(self, "_swatch_theme", None) is not self.theme:  # only on theme change
            self._swatch_theme = self.theme
            self._style_legend_swatches()
        entries = [
            (self._legend_curve, QCoreApplication.translate("MemoryCurveChart", "memory per GPU")),
            (self._legend_current, QCoreApplication.translate("MemoryCurveChart", "your plan")),
            (self._legend_fit, QCoreApplication.translate("MemoryCurveChart", "largest that fits")),
        ]
        if self._capacity is not None:
            entries.append((self._legend_oom, QCoreApplication.translate(
                "MemoryCurveChart", "requests wait") if self._queued
                else QCoreApplication.translate("MemoryCurveChart", "out of memory")))
        self._set_legend(entries if self._x.size else [])
        self._set_axis_labels(
            self._x_label,
            QCoreApplication.translate("MemoryCurveChart", "memory per GPU ({unit})").format(
                unit=self.units
            ),
            QCoreApplication.translate("MemoryCurveChart", "memory ({unit})").format(
                unit=self.units
            ),
            self.units,
        )
        self._frame()
        self._update_description()

    def describe(self) -> str:
        """The curve in a sentence: its ends, the out-of-memory line, the largest x that
        fits and the plan's own point (:func:`.sentences.curve_sentence`)."""
        if not self._x.size:
            return ""
        current = None if self._current_x is None else (
            self._current_x, self._y_at(self._current_x) * self.unit_bytes)
        oom = self._oom_texts[0] if self._capacity is not None else ""
        return curve_sentence(self._x_label, self._x, self._y_bytes, self.units, oom,
                              self._fit_text, current)

    def _legend_entry_shown(self, item: object) -> bool:
        # The out-of-memory line carries its own label ("out of memory above 24 GiB");
        # a legend row repeating it would cost the plot a row of height.
        if item is self._legend_oom:
            return self.oom_label.edge_value is None or self.oom_label.edge_suppressed
        return True

    def _style_legend_swatches(self) -> None:
        # The legend draws a PlotDataItem's symbol from its scatter, which is only styled
        # once the item has data: hence the dummy point.
        theme = self.theme
        for swatch, style in (
            (self._legend_curve, dict(pen=pg.mkPen(theme.curve, width=theme.line_px),
                                      symbol="o", symbolSize=8, symbolBrush=theme.curve,
                                      symbolPen=pg.mkPen(None))),
            (self._legend_current, dict(pen=None, symbol="o", symbolSize=14, symbolBrush=None,
                                        symbolPen=pg.mkPen(theme.foreground, width=2))),
            (self._legend_fit, dict(pen=None, symbol="star", symbolSize=16,
                                    symbolBrush=CATEGORY_COLORS[FITS],
                                    symbolPen=pg.mkPen(theme.foreground, width=1))),
            (self._legend_oom, dict(pen=pg.mkPen(CATEGORY_COLORS[DOES_NOT_FIT],
                                                 width=theme.capacity_px))),
        ):
            swatch.setData([0], [0], **style)

    def _draw_markers(self) -> None:
        theme = self.theme
        if self._changed("marker_style", (theme.marker_size, theme.line_px, theme.foreground)):
            self._ring.set_style(symbol="o", size=theme.marker_size * 2.2, brush=None,
                                 pen=pg.mkPen(theme.foreground, width=theme.line_px))
            self._star.set_style(symbol="star", size=theme.marker_size * 2.5,
                                 brush=CATEGORY_COLORS[FITS],
                                 pen=pg.mkPen(theme.foreground, width=1))
        ring = star = {}
        if self._current_x is not None and self._x.size:
            self.current_marker.setData([self._current_x], [self._y_at(self._current_x)], **ring)
        else:
            self.current_marker.setData([], [], **ring)
        self._marks_from(self.current_marker, self._ring)

        label = self._fit_label
        font = self._badge_font()
        if self._changed("fit_font", (font.pointSize(), font.bold(), theme.label_fill)):
            label.setFont(font)
            label.fill = pg.mkBrush(*theme.label_fill)
        if self._largest_fit is not None and self._x.size:
            self.largest_fit_marker.setData(
                [self._largest_fit], [self._y_at(self._largest_fit)], **star
            )
            value = (  # 147,968 tokens, as the text says them
                f"{self._largest_fit:,.0f}" if float(self._largest_fit).is_integer()
                else format_number(self._largest_fit))
            self._fit_text = (QCoreApplication.translate(
                "MemoryCurveChart", "the model's whole context fits: {value}"
            ).format(value=value) if self._whole_context else QCoreApplication.translate(
                "MemoryCurveChart", "longest prompt with all requests at once: {value}"
            ).format(value=value) if self._queued else QCoreApplication.translate(
                "MemoryCurveChart", "largest {what} that fits: {value}"
            ).format(what=self._x_label, value=value))
            color = theme.good_text  # the fits green, in a shade that reads as text
        elif self._capacity is not None and self._x.size:
            self.largest_fit_marker.setData([], [], **star)
            self._fit_text = QCoreApplication.translate(
                "MemoryCurveChart", "no {what} in this range fits"
            ).format(what=self._x_label)
            color = theme.bad_text  # the does-not-fit red, in a shade for text
        else:
            self.largest_fit_marker.setData([], [], **star)
            self._fit_text = ""
            color = None
        self._marks_from(self.largest_fit_marker, self._star)
        if color is not None and self._changed("fit_color", color):
            label.setColor(color)
            label.border = pg.mkPen(color, width=1)
        self._fit_short = f"★ {value}" if self._largest_fit is not None and self._x.size else ""
        label.setVisible(bool(self._fit_text))
        self._badge_text_for_height()
        if self._hover_point.xData is not None and len(self._hover_point.xData):
            self._hover_point.setData([], [])

    def _badge_text_for_height(self) -> None:
        """The badge's sentence, or only its star and number where the sentence would
        take more than :data:`_BADGE_SHARE` of a short plot (at 1366 x 768 a vLLM plan's
        two-line "longest prompt with all requests at once: 2,528" raised the y range to
        125 GiB to clear the curve under it); the legend names the star."""
        text = cjk_words(self._fit_text)  # breaks after "：", not mid-word
        height = self.plot_item.vb.height()
        if text and self._fit_short and height > 0:
            font = self._badge_font()
            margin = self._fit_label.textItem.document().documentMargin()
            available = self.plot_item.vb.width() - 2 * BADGE_MARGIN - 2
            # as _fit_badge sizes it: one line at the badge's font, or wrapped lines at the
            # smallest font it shrinks to
            metrics = QFontMetrics(font)
            lines = 1
            if available > 0 and metrics.horizontalAdvance(text) + 2 * margin + 2 > available:
                font.setPointSize(min(self.theme.label_pt, font.pointSize()))
                metrics = QFontMetrics(font)
                lines = math.ceil((metrics.horizontalAdvance(text) + 2 * margin + 2)
                                  / available)
            if lines * metrics.lineSpacing() + 2 * margin > _BADGE_SHARE * height:
                text = self._fit_short
        self._set_text(self._fit_label, text)

    def _view_x(self, x) -> np.ndarray:
        """x as the view places it (``log10`` on the log axis)."""
        x = np.asarray(x, dtype=float)
        if not self.log_x:
            return x
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log10(x)

    def _marks_from(self, item: pg.PlotDataItem, marks: PointMarks) -> None:
        """Draw ``marks`` at the points ``item`` holds."""
        x, y = item.getOriginalDataset()
        if x is None or not len(x):
            marks.set_points([], [])
        else:
            marks.set_points(self._view_x(x), y)

    def _frame(self) -> None:
        """Frame the interesting part: up to the OOM line and a bit beyond.

        The "A" (autorange) button still shows every point.
        """
        if self._x.size == 0:
            return
        self._badge_text_for_height()
        self._fit_badge(self._fit_label)  # its size depends on the plot's
        ys = self._y_bytes / self.unit_bytes
        top = float(np.nanmax(ys))
        xs = np.log10(self._x) if self.log_x else self._x
        shown = np.ones(xs.shape, dtype=bool)
        if self._capacity is not None:
            # A 128k-token point at 20x the capacity would squash the rest into one line of
            # pixels: cap the height, and end the x range at the first point above it.
            # When nothing fits, the whole curve is the story: frame all of it.
            cap = self._capacity / self.unit_bytes
            something_fits = float(np.nanmin(ys)) <= cap
            if something_fits:
                top = min(max(top, cap), _MAX_TOP_OVER_CAPACITY * cap)
                above = np.flatnonzero(ys > top)
                if above.size and above[0] > 0:
                    shown[above[0] + 1 :] = False
            # The OOM line's label (and, when nothing fits, the whole curve) clear of the
            # badge's usual corner; _place_annotations finds both a free spot.
            clear = [cap] if something_fits else [cap, top]
            clear_top, _roomy = self._top_clear_of_badge(
                clear, self._fit_label, self.theme.annotation_pt, fallback=1.15
            )
            top = max(top * 1.05, clear_top)
        else:
            top *= 1.15
        lo, hi = float(np.min(xs[shown])), float(np.max(xs[shown]))
        pad = 0.06 * (hi - lo) if hi > lo else 0.5
        top = nice_ceiling(top) or 1.0
        top = self._place_annotations(lo - pad, hi + pad, top)
        if self._capacity is not None:
            # Shaded up to a little past the view's top: a region reaching far beyond it
            # costs a repaint as much as the rest of the plot.
            cap = self._capacity / self.unit_bytes
            if self._changed("oom_region", (cap, top)):
                self._oom_region.setRegion((cap, max(top, cap) * 1.001))
        self._set_range((lo - pad, hi + pad), (0, top))
        self._place_edge_labels()

    # -- hover ----------------------------------------------------------------------------

    def _hover_text_at(self, x: float, y: float) -> str | None:
        if self._x.size == 0:
            return None
        xs = np.log10(self._x) if self.log_x else self._x
        i = int(np.argmin(np.abs(xs - x)))
        # Only near a point (within 40% of the gap to its neighbours, and a few percent of
        # the view), so the tooltip never claims a value between two samples.
        span = self.plot_item.vb.viewRange()[0]
        tolerance = 0.04 * (span[1] - span[0])
        if xs.size > 1:
            gaps = np.abs(np.diff(xs))
            tolerance = min(tolerance, 0.4 * float(min(gaps[max(i - 1, 0) : i + 1])))
        if abs(xs[i] - x) > tolerance:
            self._hover_point.setData([], [])
            return None
        value = self._y_bytes[i]
        text = QCoreApplication.translate("MemoryCurveChart", "{what} {value}: {size}").format(
            what=self._x_label,
            value=format_number(self._x[i]),
            size=format_bytes(value, self.units),
        )
        if self._capacity is not None:
            category = VERDICT_CATEGORY[verdict_for(value, self._capacity)]
            text = QCoreApplication.translate("MemoryCurveChart", "{point} — {verdict}").format(
                point=text, verdict=verdict_labels()[category]
            )
        self._hover_point.setData(
            [self._x[i]],
            [value / self.unit_bytes],
            pen=None,
            symbol="o",
            symbolSize=self.theme.marker_size * 1.6,
            symbolBrush=None,
            symbolPen=pg.mkPen(self.theme.curve, width=2),
        )
        return text

    def _hide_hover(self) -> None:
        super()._hide_hover()
        if hasattr(self, "_hover_point"):
            self._hover_point.setData([], [])
