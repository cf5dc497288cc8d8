"""VRAM breakdown: stacked bars of the seven memory terms against GPU capacities."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QWidget

from gpuadvisor.core.memory import TERMS
from gpuadvisor.core.units import GiB, format_bytes
from gpuadvisor.core.verdict import verdict_for

from .base import BADGE_MARGIN, ChartBase, nice_ceiling
from .style import (
    CATEGORY_COLORS,
    CATEGORY_TEXT_COLORS,
    DOES_NOT_FIT,
    FITS,
    TERM_COLORS,
    TIGHT,
    UNKNOWN,
    VERDICT_CATEGORY,
    term_labels,
)

_CONTEXT = "VramBreakdownChart"

#: Common card sizes drawn as dashed references. GPU makers' "GB" on memory is binary
#: (a "24 GB" RTX 4090 has 24 GiB), so the lines sit at these many GiB in either unit.
REFERENCE_CARD_GIB = (12, 16, 24, 48, 80)

BAR_WIDTH = 0.55
#: Headroom above the tallest thing, as a fraction of it, until the view has a size (then
#: the headroom is computed in pixels to clear the verdict badge).
_TOP_MARGIN = 1.3
#: Reference lines closer than this share of the y span to a shown line are hidden (until
#: the view has a size; then a label's height in pixels decides), so labels never overlap.
_MIN_LABEL_GAP = 0.07


def compact_bytes(n: float, units: str) -> str:
    """``format_bytes`` without a trailing ``.0`` ("24 GiB", "25.8 GB")."""
    text = format_bytes(n, units)
    number, _, unit = text.partition(" ")
    if number.endswith(".0"):
        number = number[:-2]
    return f"{number} {unit}".strip()


class VramBreakdownChart(ChartBase):
    """Stacked bars of memory per GPU by term, against the target GPU's capacity.

    One bar for the plan, optionally more for comparison (e.g. the plan after a lever). Bar
    heights are in the display unit (``units``: GiB or GB), not bytes.

    Attributes:
        bar_items: one ``BarGraphItem`` per term (keys :data:`~gpuadvisor.core.memory.TERMS`);
            ``bar_items[t].opts["height"]`` are that term's heights per bar and
            ``opts["y0"]`` where they start, both in display units.
        capacity_line: horizontal ``InfiniteLine`` at the target GPU's capacity (display
            units), labelled with the GPU's name and size; hidden without a GPU.
        reference_lines: dashed ``InfiniteLine`` per common card size (12/16/24/48/80 GB);
            those off the chart or crowding a closer line are hidden.
    """

    def __init__(self, parent: QWidget | None = None, *, units: str = "GiB") -> None:
        super().__init__(parent, units=units)
        self.setAccessibleName(QCoreApplication.translate(
            "VramBreakdownChart", "Memory per GPU by term"))
        self._bars: list[dict[str, float]] = []
        self._labels: list[str] = []
        self._capacity: float | None = None
        self._gpu_name: str | None = None
        self._verdict: str | None = None
        self._verdict_text = ""

        self.plot_item.setMouseEnabled(x=False, y=True)  # bars sit at fixed x slots
        self.plot_item.vb.setLimits(yMin=0)

        self.reference_lines: list[pg.InfiniteLine] = []
        self._reference_labels: list[pg.TextItem] = []
        for _gib in REFERENCE_CARD_GIB:
            line = pg.InfiniteLine(angle=0, movable=False)
            line.setZValue(-10)
            # Dashed lines are slow to draw, and these change only with the range.
            line.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.plot_item.addItem(line, ignoreBounds=True)
            self.reference_lines.append(line)
            self._reference_labels.append(self._add_edge_label("right"))

        self.bar_items: dict[str, pg.BarGraphItem] = {}
        for term in TERMS:
            item = pg.BarGraphItem(
                x=[0.0], height=[0.0], y0=[0.0], width=BAR_WIDTH, brush=TERM_COLORS[term]
            )
            self.plot_item.addItem(item)
            self.bar_items[term] = item

        self.capacity_line = pg.InfiniteLine(angle=0, movable=False)
        self.capacity_line.setZValue(10)
        self.plot_item.addItem(self.capacity_line, ignoreBounds=True)
        self.capacity_label = self._add_edge_label("right")
        self.capacity_label.edge_flips = True  # the card's line is always named

        self._total_labels: list[pg.TextItem] = []  # grown on demand, never recreated

        # In view-box pixels (not data), so it stays put and big while the user zooms.
        self._verdict_item = pg.TextItem(anchor=(0, 0))
        self._verdict_item.setParentItem(self.plot_item.vb)
        self._verdict_item.setPos(BADGE_MARGIN + 2, BADGE_MARGIN)
        self._verdict_item.setZValue(900)
        self._verdict_item.textItem.document().setDocumentMargin(8)
        self._edge_badge = self._verdict_item

        self._apply_axis_style()
        self._redraw()

    # -- public API ----------------------------------------------------------------------

    def set_data(
        self,
        terms: Mapping[str, float] | Sequence[Mapping[str, float]],
        labels: Sequence[str] | None = None,
        capacity_bytes: float | None = None,
        gpu_name: str | None = None,
        verdict: str | None = None,
    ) -> None:
        """Draw one bar per breakdown.

        Args:
            terms: bytes by term name (``MemoryBreakdown.as_dict()``), or a list of such, one
                per bar; the first bar is the plan the verdict describes. Missing terms are 0.
            labels: one label per bar (default "plan", "option 2", ...).
            capacity_bytes: the target GPU's memory (None: no GPU chosen).
            gpu_name: shown on the capacity line, e.g. "RTX 4090".
            verdict: the core's verdict for the first bar (``Estimate.verdict``: "fits",
                "tight", "does not fit"); None derives it from ``capacity_bytes``.

        Raises:
            ValueError: an unknown term name, a negative or non-finite value, or labels that do
                not match the bars.
        """
        bars = [terms] if isinstance(terms, Mapping) else list(terms)
        checked = []
        for bar in bars:
            unknown = set(bar) - set(TERMS)
            if unknown:
                raise ValueError(f"terms: unknown term(s) {sorted(unknown)}; expected {TERMS}")
            row = {t: float(bar.get(t, 0.0)) for t in TERMS}
            if any(not np.isfinite(v) or v < 0 for v in row.values()):
                raise ValueError(f"terms: values must be finite and >= 0, got {row}")
            checked.append(row)
        if labels is None:
            labels = [QCoreApplication.translate("VramBreakdownChart", "plan")] + [
                QCoreApplication.translate("VramBreakdownChart", "option {n}").format(n=i + 1)
                for i in range(1, len(checked))
            ]
        if len(labels) != len(checked):
            raise ValueError(f"labels: {len(labels)} labels for {len(checked)} bars")
        self._start_data()
        self._bars = checked
        self._labels = list(labels)
        self._capacity = None if capacity_bytes is None else float(capacity_bytes)
        self._gpu_name = gpu_name
        self._verdict = verdict
        self._redraw()

    def verdict_text(self) -> str:
        """The verdict shown in the chart, e.g. "fits — 13.4 GiB free" ("" without data)."""
        return self._verdict_text

    def totals(self) -> list[float]:
        """Total height of each bar in display units."""
        return [sum(bar.values()) / self.unit_bytes for bar in self._bars]

    # -- drawing --------------------------------------------------------------------------

    def _redraw(self) -> None:
        theme = self.theme
        unit = self.unit_bytes
        n = len(self._bars)
        xs = np.arange(n, dtype=float)
        bottoms = np.zeros(n)
        outline = pg.mkPen(theme.background, width=theme.outline_px)
        labels = term_labels()
        for term, item in self.bar_items.items():
            heights = np.array([bar[term] for bar in self._bars]) / unit
            # Each setOpts re-renders the bars' picture: only the terms that changed.
            key = (tuple(heights), tuple(bottoms), theme.outline_px, labels[term])
            if self._changed(f"bar:{term}", key):
                item.setOpts(
                    x=xs,
                    height=heights,
                    y0=bottoms.copy(),
                    width=BAR_WIDTH,
                    pen=outline,
                    name=labels[term],
                )
            bottoms = bottoms + heights
        self._set_legend(
            [(self.bar_items[t], labels[t]) for t in TERMS if any(bar[t] > 0 for bar in self._bars)]
        )

        totals_bytes = [sum(bar.values()) for bar in self._bars]
        self._draw_totals(xs, totals_bytes)

        capacity = self._capacity
        label = self.capacity_label
        if capacity is not None:
            self.capacity_line.show()
            if self._changed("capacity_style", (theme.capacity_px, theme.annotation_pt,
                                                theme.foreground)):
                self.capacity_line.setPen(pg.mkPen(theme.foreground, width=theme.capacity_px))
                label.setFont(theme.font(theme.annotation_pt, bold=True))
                label.setColor(theme.foreground)
            if self._changed("capacity_value", capacity / unit):
                self.capacity_line.setValue(capacity / unit)
            name = self._gpu_name or QCoreApplication.translate("VramBreakdownChart", "target GPU")
            self._capacity_texts = (f"{name} {compact_bytes(capacity, self.units)}",
                                    compact_bytes(capacity, self.units))
            self._set_text(label, self._capacity_texts[0])
            label.edge_value = capacity / unit
        else:
            self.capacity_line.hide()
            label.edge_value = None

        self._draw_verdict(totals_bytes[0] if totals_bytes else None)

        ticks = [[(float(i), label) for i, label in enumerate(self._labels)], []]
        if self._changed("ticks", ticks):
            self.plot_item.getAxis("bottom").setTicks(ticks)
        self._set_axis_labels(
            "",
            QCoreApplication.translate("VramBreakdownChart", "memory per GPU ({unit})").format(
                unit=self.units
            ),
            QCoreApplication.translate("VramBreakdownChart", "memory ({unit})").format(
                unit=self.units
            ),
            self.units,
        )
        self._frame()
        self._update_description()

    def describe(self) -> str:
        """The plan's memory in a sentence: the total, each term, and the verdict."""
        if not self._bars:
            return ""
        bar = self._bars[0]
        labels = term_labels()
        parts = QCoreApplication.translate("Lists", ", ").join(
            f"{labels[t]} {format_bytes(bar[t], self.units)}" for t in TERMS if bar[t] > 0)
        text = QCoreApplication.translate(
            "VramBreakdownChart", "Memory per GPU: {total} in all ({parts}).").format(
            total=format_bytes(sum(bar.values()), self.units), parts=parts)
        if self._capacity is not None:
            text += " " + QCoreApplication.translate(
                "VramBreakdownChart", "{gpu} has {size}: {verdict}.").format(
                gpu=self._gpu_name or QCoreApplication.translate("VramBreakdownChart",
                                                                 "target GPU"),
                size=format_bytes(self._capacity, self.units), verdict=self._verdict_text)
        return text

    def _frame(self) -> None:
        self._fit_badge(self._verdict_item)  # its size depends on the plot's
        unit = self.unit_bytes
        heights = [sum(bar.values()) / unit for bar in self._bars]
        if self._capacity is not None:
            heights.append(self._capacity / unit)
        badge = self._verdict_item
        if self._verdict_text and not badge.isVisible():
            badge.setVisible(True)  # a taller plot gives the badge its place back
        top, room = self._top_clear_of_badge(
            heights, badge, self.theme.annotation_pt, fallback=_TOP_MARGIN
        )
        if not room and badge.isVisible() and self.plot_item.vb.height() > 0:
            # Too short to hold the badge above the card's line (a projector's 1280 x 720
            # page in Chinese: the badge sat on the line and hid its label): the badge is
            # left out, and the banner over the charts says the same.
            badge.setVisible(False)
            top, _ = self._top_clear_of_badge(
                heights, None, self.theme.annotation_pt, fallback=_TOP_MARGIN)
        top = nice_ceiling(top)
        inside = self._totals_inside(top)  # once: the reference lines and totals use it
        self._place_reference_lines(top, inside)
        # Bars take the left part; the right third stays free for the line labels, or
        # more where the card's label is wider (a projector's font in a narrow chart): it
        # otherwise ran over the bar's total.
        n = max(len(self._bars), 1)
        left, bars_end = -0.7, n - 0.3
        right = bars_end + 1.0
        width_px = self.plot_item.vb.width()
        if self.capacity_label.edge_value is not None and width_px > 0:
            share = min(0.6, (self.capacity_label.textItem.boundingRect().width() + 12)
                        / width_px)
            right = max(right, (bars_end - share * left) / (1 - share))
        self._place_totals(inside)  # before the line labels, which keep off the totals
        if not self._set_range((left, right), (0, top)):
            self._place_edge_labels()  # the totals may have moved though the range did not

    def _totals_inside(self, top: float) -> list[bool]:
        """Per visible total: whether it goes off its place over the bar (beside the last
        bar's top, else just inside it), because the card's line would run through its box
        above the bar (vLLM fills 90% of the card: 22.1 GiB under a 23.6 GiB line; a
        projector's 15.0 GiB under 23.6 in a short chart); only where the bar is tall enough.
        The whole box counts, margins too: its fill covered the line."""
        height_px = self.plot_item.vb.height()
        capacity = None if self._capacity is None else self._capacity / self.unit_bytes
        flags = []
        for item in self._total_labels:
            if not item.isVisible():
                continue
            value = item.pos().y()
            text = item.textItem.boundingRect().height()
            label = text / height_px * top if height_px > 0 else 0.0
            flags.append(capacity is not None and value <= capacity <= value + label
                         and value > 1.5 * label)
        return flags

    def _place_totals(self, inside: list[bool]) -> None:
        """Each total on its bar; where the card's line would cross it there
        (:meth:`_totals_inside`), beside the bar's top on its right (the last bar: the
        chart keeps room there for the line labels), else just inside its top."""
        shown = [item for item in self._total_labels if item.isVisible()]
        for k, (item, within) in enumerate(zip(shown, inside, strict=True)):
            beside = within and k == len(shown) - 1
            anchor = (0.0, 0.0) if beside else (0.5, 0.0 if within else 1.0)
            x = k + BAR_WIDTH / 2 + 0.06 if beside else float(k)
            if tuple(item.anchor) != anchor:
                item.setAnchor(anchor)
            if item.pos().x() != x:
                item.setPos(x, item.pos().y())

    def _draw_totals(self, xs: np.ndarray, totals_bytes: list[float]) -> None:
        theme = self.theme
        while len(self._total_labels) < len(xs):
            item = pg.TextItem(anchor=(0.5, 1))
            item.setZValue(20)  # over the reference lines that may run through it
            self.plot_item.addItem(item, ignoreBounds=True)
            self._total_labels.append(item)
        for i, item in enumerate(self._total_labels):
            if i < len(xs):
                self._set_text(item, format_bytes(totals_bytes[i], self.units))
                if self._changed(f"total_style:{i}", (theme.annotation_pt, theme.foreground,
                                                      theme.label_fill)):
                    item.setFont(theme.font(theme.annotation_pt, bold=True))
                    item.setColor(theme.foreground)
                    item.fill = pg.mkBrush(*theme.label_fill[:3], 190)
                item.setPos(xs[i], totals_bytes[i] / self.unit_bytes)
                item.show()
            else:
                item.hide()

    def _place_edge_labels(self, *args) -> None:
        label = self.capacity_label
        texts = getattr(self, "_capacity_texts", None)
        if texts and label.textItem.toPlainText() != texts[0]:
            self._set_text(label, texts[0])  # the name again: the view may have room now
        super()._place_edge_labels(*args)
        if texts and label.edge_value is not None and not label.isVisible():
            # No room for the card's name beside its size (a projector's narrow chart, its
            # badge over the line): the size alone ("11.4 GiB"; the banner names the card)
            # rather than an unnamed line.
            self._set_text(label, texts[1])
            super()._place_edge_labels(*args)
        # A reference line whose label had no room is left out with it: a dashed line
        # without a name (near the badge, or between two others) read as a second limit.
        for line, label in zip(self.reference_lines, self._reference_labels, strict=True):
            show = label.edge_value is not None and label.isVisible()
            if line.isVisible() != show:
                line.setVisible(show)

    def _edge_keep_outs(self) -> list:
        """The bars' total labels: the card's line label goes under its line rather than
        over a total that reaches it (vLLM fills 90% of the card)."""
        vb = self.plot_item.vb
        rects = []
        for item in self._total_labels:
            if not item.isVisible():
                continue
            point = vb.mapFromView(item.pos())
            size = item.textItem.boundingRect().size()
            above = item.anchor.y() * size.height()  # its part above the anchor point
            rects.append(QRectF(point.x() - item.anchor.x() * size.width(),
                                point.y() - above, size.width(), size.height()))
        return rects

    def _place_reference_lines(self, top: float, inside: list[bool]) -> None:
        theme = self.theme
        unit = self.unit_bytes
        pen = pg.mkPen(theme.reference_color, width=theme.reference_px, style=Qt.PenStyle.DashLine)
        styled = self._changed("reference_style", (theme.reference_color, theme.reference_px,
                                                   theme.annotation_pt, unit))
        shown = [] if self._capacity is None else [self._capacity / unit]
        # Two labels need a label's height between their lines, in data units.
        height_px = self.plot_item.vb.height()
        label_px = QFontMetrics(theme.font(theme.annotation_pt)).height() + 2
        gap = label_px / height_px * top if height_px > 4 * label_px else _MIN_LABEL_GAP * top
        # A bar's total sits just above the bar (or just inside its top, under the card's
        # line: _totals_inside), a label's height tall: a reference line through it would
        # cross the number out, so that line is left out.
        totals = [sum(bar.values()) / unit for bar in self._bars]
        spans = [(t - gap, t + 0.2 * gap) if k < len(inside) and inside[k]
                 else (t - 0.2 * gap, t + gap) for k, t in enumerate(totals)]
        for gib, line in zip(REFERENCE_CARD_GIB, self.reference_lines, strict=True):
            value = gib * GiB / unit
            visible = (value < top - gap and all(abs(value - other) >= gap for other in shown)
                       and not any(low <= value <= high for low, high in spans))
            label = self._reference_labels[REFERENCE_CARD_GIB.index(gib)]
            if styled:
                line.setPen(pen)
                line.setValue(value)
                label.setFont(theme.font(theme.annotation_pt))
                label.setColor(theme.reference_color)
                # In the unit of the View setting: "12 GiB cards", or "12.9 GB cards".
                label.setText(QCoreApplication.translate("VramBreakdownChart", "{size} cards")
                              .format(size=compact_bytes(gib * GiB, self.units)))
            line.setVisible(visible)
            label.edge_value = value if visible else None
            if visible:
                shown.append(value)
        self._place_edge_labels()

    def _draw_verdict(self, total: float | None) -> None:
        capacity = self._capacity
        if total is None:
            text, category = "", UNKNOWN
        elif capacity is None:
            text = QCoreApplication.translate("VramBreakdownChart", "needs {total} per GPU").format(
                total=format_bytes(total, self.units)
            )
            category = UNKNOWN
        else:
            verdict = self._verdict or verdict_for(total, capacity)
            category = VERDICT_CATEGORY.get(verdict, UNKNOWN)
            headroom = format_bytes(abs(capacity - total), self.units)
            if category == FITS:
                text = QCoreApplication.translate(
                    "VramBreakdownChart", "fits — {free} free"
                ).format(free=headroom)
            elif category == TIGHT:
                text = QCoreApplication.translate(
                    "VramBreakdownChart", "tight — {free} free"
                ).format(free=headroom)
            elif category == DOES_NOT_FIT:
                text = QCoreApplication.translate(
                    "VramBreakdownChart", "does not fit by {over}"
                ).format(over=headroom)
            else:
                text = verdict
        self._verdict_text = text
        item = self._verdict_item
        self._set_text(item, text)
        font = self._badge_font()
        if self._changed("verdict_font", (font.pointSize(), font.bold())):
            item.setFont(font)
        if self._changed("verdict_category", category):
            item.setColor(CATEGORY_TEXT_COLORS[category])
            item.fill = pg.mkBrush(CATEGORY_COLORS[category])
            item.border = pg.mkPen(None)
            item.update()
        item.setVisible(bool(text))

    # -- hover ----------------------------------------------------------------------------

    def _hover_text_at(self, x: float, y: float) -> str | None:
        index = round(x)
        if 0 <= index < len(self._bars) and abs(x - index) <= BAR_WIDTH / 2:
            bar = self._bars[index]
            total = sum(bar.values())
            bottom = 0.0
            for term in TERMS:
                height = bar[term] / self.unit_bytes
                if height > 0 and bottom <= y <= bottom + height:
                    share = 100.0 * bar[term] / total if total else 0.0
                    text = QCoreApplication.translate(
                        "VramBreakdownChart", "{term}: {size} ({share:.1f}%)"
                    ).format(
                        term=term_labels()[term],
                        size=format_bytes(bar[term], self.units),
                        share=share,
                    )
                    return f"{self._labels[index]}\n{text}" if len(self._bars) > 1 else text
                bottom += height
        if self._capacity is not None and self.capacity_line.isVisible():
            span = self.plot_item.vb.viewRange()[1]
            if abs(y - self._capacity / self.unit_bytes) <= 0.02 * (span[1] - span[0]):
                name = self._gpu_name or QCoreApplication.translate(
                    "VramBreakdownChart", "target GPU"
                )
                return QCoreApplication.translate("VramBreakdownChart", "{gpu}: {size}").format(
                    gpu=name, size=format_bytes(self._capacity, self.units)
                )
        return None
