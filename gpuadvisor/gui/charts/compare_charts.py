"""The Compare page's time-cost chart: every option's time against its cost.

:class:`CostTimeChart` plots each option that fits as one point, on log axes (jobs range from
minutes on a rented cluster to weeks on one small card, and from cents to thousands), coloured
and shaped by kind (your rig, buy new, buy used, rent, cloud). The options on the time-cost
Pareto front (no other option is both faster and cheaper) are joined by a line and ringed; the
selected option gets a larger ring; the budget and the deadline are dashed lines. Hover names
a point; a click selects it (``point_clicked``).

The buy-vs-rent break-even is :mod:`.break_even`'s.

Points are drawn in log10 space by the chart itself (``ScatterPlotItem`` does not follow
pyqtgraph's log mode); the axes label their ticks in hours and money.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QPointF, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QWidget

from gpuadvisor.gui.numbers import duration, hours_tick

from .base import ChartBase
from .style import OKABE_ITO

#: Colour, symbol and stacking order per option kind (Okabe–Ito colours). Your rig's black
#: is drawn in the theme's ``mark`` colour (light on a dark plot).
KIND_STYLE = {
    "own": (OKABE_ITO["black"], "star"),
    "buy-new": (OKABE_ITO["blue"], "s"),
    "buy-used": (OKABE_ITO["sky_blue"], "d"),
    "rent": (OKABE_ITO["orange"], "o"),
    "cloud": (OKABE_ITO["reddish_purple"], "t"),
}
PARETO_COLOR = OKABE_ITO["bluish_green"]
SELECTED_COLOR = OKABE_ITO["vermillion"]
#: The limits' colour on a light plot (drawn in the theme's ``reference_color``).
LIMIT_COLOR = "#8A8A8A"
#: A point within this many pixels of the cursor is the one hovered or clicked.
PICK_RADIUS_PX = 12


def kind_labels() -> dict[str, str]:
    """Human names of the option kinds, translated at call time."""
    return {
        "own": QCoreApplication.translate("CompareCharts", "your rig"),
        "buy-new": QCoreApplication.translate("CompareCharts", "buy new"),
        "buy-used": QCoreApplication.translate("CompareCharts", "buy used"),
        "rent": QCoreApplication.translate("CompareCharts", "rent"),
        "cloud": QCoreApplication.translate("CompareCharts", "cloud"),
    }


@dataclass(frozen=True)
class Point:
    """One option on the chart.

    Attributes:
        id: the option's id (selection and clicks use it).
        label: its name for people.
        kind: one of :data:`KIND_STYLE`'s keys.
        hours: wall-clock hours of the job.
        cost: money for the job, in the display currency.
        gpus: GPUs the job runs on.
        acceptable: within the budget and the deadline (others are drawn faded).
        changed: fits only with a change to the plan (drawn hollow, off the Pareto front).
    """

    id: str
    label: str
    kind: str
    hours: float
    cost: float
    gpus: int = 1
    acceptable: bool = True
    changed: bool = False


def _nice_ticks(low: float, high: float, steps: Sequence[float]) -> list[float]:
    """log10 positions of ``step x 10^k`` values within ``[10^low, 10^high]``."""
    ticks = []
    for exponent in range(math.floor(low) - 1, math.ceil(high) + 1):
        for step in steps:
            value = math.log10(step) + exponent
            if low - 1e-9 <= value <= high + 1e-9:
                ticks.append(value)
    return ticks


#: Durations people think in, in hours: 1, 10, 30 min; 1, 3, 10 h; 1, 3 days; 1, 2 weeks;
#: 1, 3 months; 1 year.
TIME_TICKS_H = (1 / 60, 10 / 60, 0.5, 1.0, 3.0, 10.0, 24.0, 72.0, 168.0, 336.0, 720.0,
                2160.0, 8760.0)


class _LogAxis(pg.AxisItem):
    """An axis over log10 values whose ticks read as plain values (``format_value``); with
    ``candidates``, ticks go at those values (thinned to every other when crowded)."""

    def __init__(self, orientation: str, format_value: Callable[[float], str],
                 candidates: Sequence[float] = ()) -> None:
        super().__init__(orientation)
        # the values are log10 of what the ticks say: pyqtgraph's scale prefix ("(x0.001)"
        # after the title of a range under 1) would say nothing true
        self.enableAutoSIPrefix(False)
        self.format_value = format_value
        self.candidates = tuple(candidates)

    def tickValues(self, minVal, maxVal, size):
        low, high = sorted((minVal, maxVal))
        if not (math.isfinite(low) and math.isfinite(high)) or high - low > 40:
            return []
        if self.candidates:
            ticks = [math.log10(v) for v in self.candidates
                     if low <= math.log10(v) <= high]
            while len(ticks) > 7:
                ticks = ticks[::2]
            return [(1.0, ticks)]
        span = high - low
        major_steps = (1.0,) if span > 2.5 else (1.0, 3.0) if span > 1.2 else (1.0, 2.0, 5.0)
        ticks = _nice_ticks(low, high, major_steps)
        # A short axis (a projector's large font on a laptop) keeps every other tick
        # until its labels have room: no label runs into the next.
        if self.orientation in ("left", "right"):
            room = QFontMetrics(self.style.get("tickFont") or QFont()).height() * 1.6
            while len(ticks) > 2 and size / len(ticks) < room:
                ticks = ticks[::2]
        return [(1.0, ticks)]

    def tickStrings(self, values, scale, spacing):
        return [self.format_value(10.0 ** v) for v in values]


def money_tick(money: Callable[[float], str], value: float) -> str:
    """An amount on an axis, in one format for every tick: whole units from 1 up ("$1",
    "$10", "$1,000"), cents only below ("$0.10"); a tick is a round number, its cents
    always ".00" from 1 up."""
    text = money(value)
    if (abs(value) >= 1 or value == 0) and text.endswith(".00"):
        text = text[:-3]
    elif abs(value) < 1:
        # a round tick under 1 keeps two decimals and its significant digits: "$0.01",
        # "$0.001" (an amount's format gives small ones two significant digits: "$0.010")
        text = re.sub(r"([.,]\d{2}\d*?)0+(?=\D*$)", r"\1", text)
    return text


class MoneyAxis(pg.AxisItem):
    """A linear axis whose ticks read as amounts (:func:`money_tick`)."""

    def __init__(self, orientation: str, money: Callable[[], Callable[[float], str]]) -> None:
        super().__init__(orientation)
        self._money = money

    def tickStrings(self, values, scale, spacing):
        return [money_tick(self._money(), v) for v in values]


def hours_text(hours: float) -> str:
    """A duration for an axis tick: ``"10 min"``, ``"1 h"``, ``"3 d"``, ``"2 wk"``
    (translated)."""
    return hours_tick(hours)


def _faded(color: str) -> str:
    """``color`` at 30% opacity (``#RRGGBBAA``)."""
    return f"{color}4D"


class CostTimeChart(ChartBase):
    """Time (x, log) against cost (y, log) of every option that fits.

    Attributes:
        point_clicked: emitted with an option's id when its point is clicked.
        series: kind -> the ScatterPlotItem of that kind's points.
        front_line: the line through the Pareto front (fastest to cheapest).
        front_rings: rings around the Pareto options.
        selected_ring: the ring around the selected option.
        budget_line, deadline_line: the limits (hidden when none is set).
    """

    point_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None,
                 money: Callable[[float], str] | None = None) -> None:
        self._money = money or (lambda value: f"${value:,.2f}")
        self.time_axis = _LogAxis("bottom", hours_text, TIME_TICKS_H)
        self.cost_axis = _LogAxis("left", self._tick_money)
        super().__init__(parent, axis_items={"bottom": self.time_axis,
                                             "left": self.cost_axis})
        self.setAccessibleName(QCoreApplication.translate(
            "CompareCharts", "Time against cost of every option"))
        self._points: list[Point] = []
        self._front: list[str] = []
        self._selected: str | None = None
        self._budget: float | None = None
        self._deadline: float | None = None
        self._currency = "USD"
        self.series: dict[str, pg.ScatterPlotItem] = {}
        for kind in KIND_STYLE:
            item = pg.ScatterPlotItem()
            item.setZValue(10)
            self.plot_item.addItem(item)
            self.series[kind] = item
        # The legend's swatch for hollow marks (not plotted): options that fit only with a
        # change to the plan.
        self._legend_changed = pg.PlotDataItem(symbol="o", pen=None)
        # ... and for the front: its line through its ringed points, as plotted
        self._legend_front = pg.PlotDataItem(symbol="o")
        self.front_line = pg.PlotDataItem()
        self.front_line.setZValue(5)
        self.front_rings = pg.ScatterPlotItem()
        self.front_rings.setZValue(6)
        self.selected_ring = pg.ScatterPlotItem()
        self.selected_ring.setZValue(20)
        for item in (self.front_line, self.front_rings, self.selected_ring):
            self.plot_item.addItem(item)
        # Clicking the front's legend row toggles its swatch; the line and rings follow.
        for item in (self.front_line, self.front_rings):
            self._legend_front.visibleChanged.connect(
                lambda i=item: i.setVisible(self._legend_front.isVisible()))
        self.budget_line = pg.InfiniteLine(angle=0, movable=False)
        self.deadline_line = pg.InfiniteLine(angle=90, movable=False)
        for line in (self.budget_line, self.deadline_line):
            line.setZValue(1)
            self.plot_item.addItem(line, ignoreBounds=True)
        self.plot_item.showGrid(x=True, y=True, alpha=0.12)
        self._left_tick_sample = "$10,000"
        self.plot_widget.scene().sigMouseClicked.connect(self._on_click)
        self._apply_axis_style()
        self._redraw()

    # -- public API ----------------------------------------------------------------------

    def set_money(self, money: Callable[[float], str], currency: str) -> None:
        """How to write an amount of the display currency (axis ticks, hover)."""
        self._money, self._currency = money, currency
        self._redraw()

    def set_data(self, points: Sequence[Point], front: Sequence[str] = (), *,
                 selected: str | None = None, budget: float | None = None,
                 deadline_hours: float | None = None) -> None:
        """Draw ``points`` (those with a time and cost above zero), the Pareto ``front`` (ids),
        the ``selected`` option and the limits (display currency; hours)."""
        self._start_data()
        self._points = [p for p in points if p.hours > 0 and p.cost > 0
                        and math.isfinite(p.hours) and math.isfinite(p.cost)]
        by_id = {p.id: p for p in self._points}
        self._front = sorted((i for i in front if i in by_id), key=lambda i: by_id[i].hours)
        self._selected = selected if selected in by_id else None
        self._budget = budget if budget and budget > 0 else None
        self._deadline = deadline_hours if deadline_hours and deadline_hours > 0 else None
        self._redraw()

    def set_selected(self, option_id: str | None) -> None:
        """Ring ``option_id`` (None or an id not drawn: no ring)."""
        self._selected = option_id if any(p.id == option_id for p in self._points) else None
        self._draw_selected()

    @property
    def points(self) -> list[Point]:
        """The points drawn (those that can go on log axes)."""
        return list(self._points)

    @property
    def front(self) -> list[str]:
        """Ids on the Pareto front, fastest first."""
        return list(self._front)

    @property
    def selected(self) -> str | None:
        """The ringed option's id."""
        return self._selected

    def scene_position(self, option_id: str) -> QPointF:
        """Where an option's point is in scene coordinates (tests click and hover there)."""
        point = next(p for p in self._points if p.id == option_id)
        return self.plot_item.vb.mapViewToScene(
            QPointF(math.log10(point.hours), math.log10(point.cost)))

    def point_at(self, scene_pos: QPointF) -> Point | None:
        """The point nearest ``scene_pos`` within :data:`PICK_RADIUS_PX`, or None."""
        vb = self.plot_item.vb
        best, best_d = None, float(PICK_RADIUS_PX)
        for p in self._points:
            at = vb.mapViewToScene(QPointF(math.log10(p.hours), math.log10(p.cost)))
            d = math.hypot(at.x() - scene_pos.x(), at.y() - scene_pos.y())
            if d <= best_d:
                best, best_d = p, d
        return best

    def click_at(self, scene_pos: QPointF) -> str | None:
        """Select the point at ``scene_pos`` (what a click does); returns its id."""
        point = self.point_at(scene_pos)
        if point is None:
            return None
        self.set_selected(point.id)
        self.point_clicked.emit(point.id)
        return point.id

    # -- drawing --------------------------------------------------------------------------

    def _tick_money(self, value: float) -> str:
        return money_tick(self._money, value)

    def _redraw(self) -> None:
        theme = self.theme
        size = theme.marker_size + 2
        labels = kind_labels()
        entries = []
        for kind, item in self.series.items():
            color, symbol = KIND_STYLE[kind]
            if kind == "own":
                color = theme.mark
            elif kind == "buy-new":
                color = theme.buy_new
            mine = [p for p in self._points if p.kind == kind]
            brushes = [pg.mkBrush(color if p.acceptable else _faded(color)) for p in mine]
            # The kind's colour as the item's own brush (the legend draws that), then each
            # point's: faded when over the budget or past the deadline.
            item.setData(x=[math.log10(p.hours) for p in mine],
                         y=[math.log10(p.cost) for p in mine], data=[p.id for p in mine],
                         symbol=symbol, size=size * (1.5 if kind == "own" else 1.0),
                         brush=pg.mkBrush(color), pen=pg.mkPen(theme.background, width=1))
            if mine:
                item.setBrush(brushes)
                # Hollow: fits only with a change to the plan (the kind's colour outlines it).
                item.setPen([pg.mkPen(color, width=2) if p.changed
                             else pg.mkPen(theme.background, width=1) for p in mine])
                item.setBrush([pg.mkBrush(None) if p.changed else b
                               for p, b in zip(mine, brushes, strict=True)])
            if mine:
                entries.append((item, labels[kind]))
        if any(p.changed for p in self._points):
            self._legend_changed.setData([0], [0], pen=None, symbol="o", symbolSize=size,
                                         symbolBrush=None,
                                         symbolPen=pg.mkPen(theme.foreground, width=2))
            entries.append((self._legend_changed, QCoreApplication.translate(
                "CompareCharts", "hollow: fits with a change to the plan")))
        by_id = {p.id: p for p in self._points}
        front = [by_id[i] for i in self._front]
        xs = [math.log10(p.hours) for p in front]
        ys = [math.log10(p.cost) for p in front]
        self.front_line.setData(xs, ys)
        self.front_line.setPen(pg.mkPen(PARETO_COLOR, width=theme.line_px))
        self.front_rings.setData(x=xs, y=ys, size=size + 8, brush=pg.mkBrush(None),
                                 pen=pg.mkPen(PARETO_COLOR, width=theme.line_px))
        if front:
            self._legend_front.setData([0], [0], pen=pg.mkPen(PARETO_COLOR, width=theme.line_px),
                                       symbol="o", symbolSize=size, symbolBrush=None,
                                       symbolPen=pg.mkPen(PARETO_COLOR, width=theme.line_px))
            entries.append((self._legend_front, QCoreApplication.translate(
                "CompareCharts", "best trade-offs (Pareto front)")))
        dash = pg.mkPen(theme.reference_color, width=theme.reference_px,
                        style=Qt.PenStyle.DashLine)
        for line, value in ((self.budget_line, self._budget),
                            (self.deadline_line, self._deadline)):
            line.setPen(dash)
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(math.log10(value))
        self._draw_selected()
        self._set_legend(entries)
        self._set_axis_labels(
            QCoreApplication.translate("CompareCharts", "Time for the job (log scale)"),
            QCoreApplication.translate("CompareCharts", "Cost of the job, {currency} (log)")
            .format(currency=self._currency),
            QCoreApplication.translate("CompareCharts", "Cost ({currency})")
            .format(currency=self._currency), self._currency, "")
        self._frame()
        self._update_description()

    def describe(self) -> str:
        """The options in a sentence: how many, the fastest and the cheapest, the front."""
        if not self._points:
            return ""
        translate = QCoreApplication.translate
        fastest = min(self._points, key=lambda p: p.hours)
        cheapest = min(self._points, key=lambda p: p.cost)

        def said(p: Point) -> str:
            return translate("CompareCharts", "{name} ({time}, {cost})").format(
                name=p.label, time=duration(p.hours * 3600.0), cost=self._money(p.cost))

        return translate("CompareCharts", "{n} options, time against cost. Fastest: "
                                          "{fastest}. Cheapest: {cheapest}. {front} on the "
                                          "Pareto front.").format(
            n=len(self._points), fastest=said(fastest), cheapest=said(cheapest),
            front=len(self._front))

    def _draw_selected(self) -> None:
        theme = self.theme
        point = next((p for p in self._points if p.id == self._selected), None)
        if point is None:
            self.selected_ring.setData(x=[], y=[])
            return
        self.selected_ring.setData(
            x=[math.log10(point.hours)], y=[math.log10(point.cost)],
            size=theme.marker_size * 3.2, brush=pg.mkBrush(None),
            pen=pg.mkPen(SELECTED_COLOR, width=theme.line_px + 1))

    def _frame(self) -> None:
        if not self._auto_frame:
            return
        xs = [math.log10(p.hours) for p in self._points]
        ys = [math.log10(p.cost) for p in self._points]
        if self._budget:
            ys.append(math.log10(self._budget))
        if self._deadline:
            xs.append(math.log10(self._deadline))
        if not xs or not ys:
            self.plot_item.vb.setRange(xRange=(-1, 2), yRange=(-1, 3), padding=0)
            return
        x0, x1 = min(xs), max(xs)
        y0, y1 = min(ys), max(ys)
        # At least a factor of 10 each way, and a margin so that no marker (the selected
        # one's ring is the widest) is cut at the edge: in pixels, then in log units.
        xpad = max(0.5 - (x1 - x0) / 2, 0.0)
        ypad = max(0.5 - (y1 - y0) / 2, 0.0)
        ring = self.theme.marker_size * 1.6 + 6
        vb = self.plot_item.vb
        for pad_name, span, pixels in (("x", x1 - x0 + 2 * xpad, vb.width()),
                                       ("y", y1 - y0 + 2 * ypad, vb.height())):
            share = ring / pixels if pixels > 4 * ring else 0.12
            extra = max(span * share / (1 - 2 * share), 0.05)
            if pad_name == "x":
                xpad += extra
            else:
                ypad += extra
        # The money axis reaches down to a decade at or below the cheapest option, with room
        # for its label (centred on the tick; pyqtgraph leaves out a label that would stick
        # out of the axis), so that a labelled tick is under every point: on a tall chart
        # the margin alone ended above "$0.10", and the best option ($0.16) sat under the
        # last label, "$1".
        top, bottom = y1 + ypad, y0 - ypad
        decade = math.floor(y0 + 1e-9)
        pixels = vb.height()
        label = QFontMetrics(self.theme.font(self.theme.tick_pt)).height() / 2 + 2
        share = min(label / pixels, 0.25) if pixels > 0 else 0.05
        bottom = min(bottom, (decade - share * top) / (1 - share))
        # ... and the highest decade in range keeps room for its label over its line (the
        # $100,000 line stood unlabelled over $30,000 cards at 1366 x 768)
        highest = math.floor(top + 1e-9)
        top = max(top, (highest - share * bottom) / (1 - share))
        self.plot_item.vb.setRange(xRange=(x0 - xpad, x1 + xpad), yRange=(bottom, top),
                                   padding=0)

    def _hover_text_at(self, x: float, y: float) -> str | None:
        scene = self.plot_item.vb.mapViewToScene(QPointF(x, y))
        point = self.point_at(scene)
        if point is None:
            return None
        kind = kind_labels().get(point.kind, point.kind)
        gpus = QCoreApplication.translate("CompareCharts", "{n} GPU(s)").format(n=point.gpus)
        lines = [point.label, f"{kind} · {gpus}",
                 QCoreApplication.translate("CompareCharts", "{time} · {cost}").format(
                     time=duration(point.hours * 3600.0), cost=self._money(point.cost))]
        if point.id in self._front:
            lines.append(QCoreApplication.translate(
                "CompareCharts", "on the Pareto front: nothing is both faster and cheaper"))
        if not point.acceptable:
            lines.append(QCoreApplication.translate("CompareCharts",
                                                    "over the budget or past the deadline"))
        if point.changed:
            lines.append(QCoreApplication.translate(
                "CompareCharts", "fits only with a change to the plan (hollow)"))
        return "\n".join(lines)

    def _on_click(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.click_at(event.scenePos())


__all__ = ["KIND_STYLE", "CostTimeChart", "MoneyAxis", "Point", "hours_text", "kind_labels",
           "money_tick"]
