"""A server's load curve: tokens per second, in all and for each user, and the time to the
first token (on its own axis, right), against the users it serves at once, with the
reading-speed floor and the capacity marked
(:class:`gpuadvisor.core.serving_load.Capacity`)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QWidget

from .base import BADGE_MARGIN, ChartBase
from .items import PlainLogAxis, PowerOfTwoAxis, format_number, nice_ceiling
from .style import CATEGORY_COLORS, DOES_NOT_FIT, FITS, OKABE_ITO

#: The first token's curve (a colour no other series of the chart uses).
TTFT_COLOR = OKABE_ITO["reddish_purple"]


class ServingChart(ChartBase):
    """Tokens/s in all and per user against concurrent users (log2 x, log10 y).

    Attributes:
        total_curve, user_curve: the two curves (``getOriginalDataset()``: users, tokens/s).
        floor_line: the per-user speed floor (reading speed unless set), in log10 units.
        capacity_marker: one point at the capacity (users, tokens/s each).
    """

    def __init__(self, parent: QWidget | None = None, *, units: str = "GiB") -> None:
        super().__init__(parent, units=units,
                         axis_items={"bottom": PowerOfTwoAxis(orientation="bottom"),
                                     "left": PlainLogAxis(orientation="left")})
        self.setAccessibleName(QCoreApplication.translate("ServingChart", "Serving curve"))
        self._capacity = None
        self.total_curve = pg.PlotDataItem(symbol="o")
        self.total_curve.setZValue(10)
        self.user_curve = pg.PlotDataItem(symbol="s")
        self.user_curve.setZValue(11)
        self.full_points = pg.PlotDataItem(pen=None, symbol="x")  # requests that do not fit
        self.full_points.setZValue(12)
        self.floor_line = pg.InfiniteLine(angle=0, movable=False)
        self.floor_line.setZValue(5)
        self.capacity_marker = pg.PlotDataItem(pen=None, symbol="star")
        self.capacity_marker.setZValue(30)
        for item in (self.total_curve, self.user_curve, self.full_points,
                     self.capacity_marker):
            self.plot_item.addItem(item)
        self.plot_item.addItem(self.floor_line, ignoreBounds=True)
        # The floor is named in the legend (with its rate), not on its line: the curves
        # cross the line, and a label there hid either its number or their points.
        self._floor_sample = pg.PlotDataItem()  # the legend's sample of the dashed line
        self._badge = pg.TextItem(anchor=(0, 0))
        self._badge.setParentItem(self.plot_item.vb)
        self._badge.setPos(BADGE_MARGIN + 2, BADGE_MARGIN)
        self._badge.setZValue(900)
        self._badge.textItem.document().setDocumentMargin(6)
        self._edge_badge = self._badge
        self.plot_item.setLogMode(x=True, y=True)
        # The time to the first token, in seconds, on the right axis: its own view over the
        # same users (log10 of both, drawn as given; the axis labels them as powers of ten).
        self.ttft_view = pg.ViewBox(enableMenu=False)
        self.ttft_view.setMouseEnabled(False, False)
        self.plot_item.scene().addItem(self.ttft_view)
        # Under the plot (whose view box has no background): the first-token curve is drawn
        # beneath the plot's own labels (the reading-speed line's), not over their text.
        self.ttft_view.setZValue(self.plot_item.zValue() - 1)
        self.plot_item.showAxis("right")
        right = self.plot_item.getAxis("right")
        right.linkToView(self.ttft_view)
        right.setLogMode(False, True)
        self.ttft_view.setXLink(self.plot_item.vb)
        self.plot_item.vb.sigResized.connect(self._sync_ttft_view)
        self.ttft_curve = pg.PlotDataItem(symbol="t")
        self.ttft_curve.setZValue(9)
        self.ttft_view.addItem(self.ttft_curve)
        self._left_tick_sample = "10,000"
        self._apply_axis_style()
        self._redraw()

    def _sync_ttft_view(self, *_args) -> None:
        self.ttft_view.setGeometry(self.plot_item.vb.sceneBoundingRect())
        self.ttft_view.linkedViewChanged(self.plot_item.vb, self.ttft_view.XAxis)

    def _apply_axis_style(self) -> None:
        super()._apply_axis_style()
        if not hasattr(self, "ttft_view"):
            return
        theme = self.theme
        tick_font = theme.font(theme.tick_pt)
        axis = self.plot_item.getAxis("right")
        axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        axis.setPen(pg.mkPen(theme.foreground, width=max(1.0, theme.outline_px)))
        axis.setTextPen(theme.foreground)
        axis.setLabel(QCoreApplication.translate("ServingChart", "first token (s)"),
                      color=theme.foreground, **{"font-size": f"{theme.label_pt}pt"})
        axis.setStyle(tickFont=tick_font, tickTextOffset=6, maxTickLevel=1,
                      autoExpandTextSpace=False,
                      tickTextWidth=QFontMetrics(tick_font).horizontalAdvance("0.01") + 4)
        # the right axis holds the last tick's half: no extra margin there
        left, top, _, bottom = self.plot_item.layout.getContentsMargins()
        self.plot_item.layout.setContentsMargins(left, top, 2, bottom)

    # -- public API ----------------------------------------------------------------------

    def set_data(self, capacity) -> None:
        """Draw a :class:`~gpuadvisor.core.serving_load.Capacity` (None: nothing)."""
        self._start_data()
        self._capacity = capacity
        self._redraw()

    def badge_text(self) -> str:
        """The capacity in a line ("51 users at once, 6.1 tokens/s each (reading speed:
        5.3)")."""
        c = self._capacity
        if c is None:
            return ""
        if c.point is None:
            return QCoreApplication.translate(
                "ServingChart", "no user gets {rate} tokens/s").format(
                rate=f"{c.min_tokens_per_s:.1f}")
        # each user's own speed at that load, the floor it keeps named as the floor
        return QCoreApplication.translate(
            "ServingChart", "{users} at once, {speed} tokens/s each (reading speed: "
            "{rate})").format(
            users=(QCoreApplication.translate("ServingChart", "1 user") if c.users == 1 else
                   QCoreApplication.translate("ServingChart", "{n} users").format(n=c.users)),
            speed=f"{c.point.tokens_per_s_user:.0f}" if c.point.tokens_per_s_user >= 10
            else f"{c.point.tokens_per_s_user:.1f}",
            rate=f"{c.min_tokens_per_s:.1f}")

    def describe(self) -> str:
        c = self._capacity
        if c is None or not c.curve:
            return ""
        first, last = c.curve[0], c.curve[-1]
        return QCoreApplication.translate(
            "ServingChart", "Tokens per second against users at once: {a} in all for 1 user, "
            "{b} in all for {n} users ({each} each). {badge}.").format(
            a=format_number(first.tokens_per_s_total), b=format_number(last.tokens_per_s_total),
            n=last.users, each=format_number(last.tokens_per_s_user), badge=self.badge_text())

    # -- drawing --------------------------------------------------------------------------

    def _redraw(self) -> None:
        theme = self.theme
        c = self._capacity
        points = c.curve if c is not None else ()
        users = np.array([p.users for p in points], dtype=float)
        total = np.array([p.tokens_per_s_total for p in points], dtype=float)
        each = np.array([p.tokens_per_s_user for p in points], dtype=float)
        fits = np.array([p.fits for p in points], dtype=bool)
        if self._changed("style", (theme.line_px, theme.marker_size, theme.curve,
                                   theme.foreground, theme.background)):
            self.total_curve.setPen(pg.mkPen(theme.curve, width=theme.line_px))
            self.total_curve.setSymbolBrush(theme.curve)
            self.total_curve.setSymbolPen(pg.mkPen(theme.background))
            self.total_curve.setSymbolSize(theme.marker_size)
            self.user_curve.setPen(pg.mkPen(theme.foreground, width=theme.line_px,
                                            style=Qt.PenStyle.DashLine))
            self.user_curve.setSymbolBrush(theme.foreground)
            self.user_curve.setSymbolSize(theme.marker_size)
            self.full_points.setSymbolPen(pg.mkPen(CATEGORY_COLORS[DOES_NOT_FIT], width=2))
            self.full_points.setSymbolBrush(None)
            self.full_points.setSymbolSize(theme.marker_size * 1.6)
            self.capacity_marker.setSymbolBrush(CATEGORY_COLORS[FITS])
            self.capacity_marker.setSymbolPen(pg.mkPen(theme.background))
            self.capacity_marker.setSymbolSize(theme.marker_size * 2.2)
            floor_pen = pg.mkPen(theme.reference_color, width=theme.reference_px,
                                 style=Qt.PenStyle.DashLine)
            self.floor_line.setPen(floor_pen)
            self._floor_sample.setPen(floor_pen)
            self._badge.setFont(self._badge_font())
            self._badge.setColor(theme.foreground)
            self._badge.fill = pg.mkBrush(*theme.label_fill[:3], 220)
        if self._changed("ttft_style", (theme.line_px, theme.marker_size, theme.background)):
            self.ttft_curve.setPen(pg.mkPen(TTFT_COLOR, width=theme.line_px,
                                            style=Qt.PenStyle.DotLine))
            self.ttft_curve.setSymbolBrush(TTFT_COLOR)
            self.ttft_curve.setSymbolPen(pg.mkPen(theme.background))
            self.ttft_curve.setSymbolSize(theme.marker_size)
        self.total_curve.setData(users, total)
        self.user_curve.setData(users, each)
        first = np.array([p.first_token_s for p in points], dtype=float)
        shown = first > 0
        self.ttft_curve.setData(np.log10(users[shown]), np.log10(first[shown]))
        gone = ~fits
        self.full_points.setData(users[gone], total[gone])
        if c is not None and c.point is not None:
            self.capacity_marker.setData([float(c.point.users)], [c.point.tokens_per_s_user])
        else:
            self.capacity_marker.setData([], [])
        floor = []
        if c is not None:
            self.floor_line.show()
            self.floor_line.setValue(np.log10(c.min_tokens_per_s))
            floor = [(self._floor_sample, QCoreApplication.translate(
                "ServingChart", "reading speed {rate} tokens/s").format(
                rate=f"{c.min_tokens_per_s:.1f}"))]
        else:
            self.floor_line.hide()
        self._set_text(self._badge, self.badge_text())
        self._badge.setVisible(bool(self.badge_text()))
        self._set_legend([
            (self.total_curve, QCoreApplication.translate("ServingChart", "tokens/s in all")),
            (self.user_curve, QCoreApplication.translate("ServingChart", "tokens/s each")),
            (self.capacity_marker, QCoreApplication.translate("ServingChart", "users served")),
            (self.full_points, self._full_text()),
            (self.ttft_curve, QCoreApplication.translate("ServingChart", "first token (s)")),
            *floor,
        ])
        self._set_axis_labels(QCoreApplication.translate("ServingChart", "users at once"),
                              QCoreApplication.translate("ServingChart", "tokens/s"))
        self._frame()
        self._place_edge_labels()
        self._update_description()

    def _frame(self) -> None:
        c = self._capacity
        if c is None or not c.curve:
            return
        self._fit_badge(self._badge)
        values = [p.tokens_per_s_total for p in c.curve] + [
            p.tokens_per_s_user for p in c.curve] + [c.min_tokens_per_s]
        high = np.log10(nice_ceiling(max(values)))
        least = np.log10(min(v for v in values if v > 0))
        # The badge takes the top left corner and the floor's label sits under its line:
        # each gets its share of the plot's height beyond the data.
        plot_px = max(self.plot_item.vb.height(), 1.0)
        badge_px = self._badge.textItem.boundingRect().height() + 2 * BADGE_MARGIN
        below = 0.05  # the floor line a little above the plot's bottom
        shown = bool(self.badge_text())
        if shown and badge_px / plot_px + below > 0.5:
            # A plot too short for the badge (a small window's grid): the curves keep the
            # height, the sentence is the Time panel's "Users at once" row; the star marks
            # the users served.
            shown = False
        self._badge.setVisible(shown)
        above = min(badge_px / plot_px, 0.45) if shown else 0.05
        total = max(high - least, 0.5) / (1.0 - above - below)
        top, low = high + above * total, least - below * total
        self._set_range((0.0 - 0.15, np.log10(c.curve[-1].users) + 0.15), (low, top))
        # The first token's axis spans its values with the same share kept free above (the
        # badge) and below, at least a factor of ten.
        firsts = np.log10([p.first_token_s for p in c.curve if p.first_token_s > 0] or [1.0])
        lo, hi = float(firsts.min()), float(firsts.max())
        span = max(hi - lo, 1.0) / (1.0 - above - below)
        middle = (lo + hi) / 2
        lo, hi = middle - max(hi - lo, 1.0) / 2, middle + max(hi - lo, 1.0) / 2
        self.ttft_view.setYRange(lo - below * span, hi + above * span, padding=0)
        self._ttft_ticks(lo - below * span, hi + above * span, plot_px)
        self._sync_ttft_view()

    def _ttft_ticks(self, low: float, high: float, plot_px: float) -> None:
        """The first-token axis's values (``low``..``high`` in log10 seconds): the powers of
        ten, and 2 and 5 times them where a decade has room for their labels (log-spaced
        labels between 1 and 10 run into each other on a short plot)."""
        decade_px = plot_px / max(high - low, 1e-9)
        line_px = QFontMetrics(self.theme.font(self.theme.tick_pt)).height()
        steps = (1, 2, 5) if decade_px * np.log10(2.5) >= 1.2 * line_px else (1,)
        if steps == (1,) and decade_px * np.log10(3) >= 1.2 * line_px:
            steps = (1, 3)
        major, minor = [], []
        for k in range(int(np.floor(low)), int(np.ceil(high)) + 1):
            for step in steps:
                value = step * 10.0 ** k
                if low <= np.log10(value) <= high:
                    (major if step == 1 else minor).append((np.log10(value), f"{value:g}"))
        if self._changed("ttft_ticks", (tuple(major), tuple(minor))):
            self.plot_item.getAxis("right").setTicks([major, minor])

    def _hover_text_at(self, x: float, y: float) -> str | None:
        c = self._capacity
        if c is None or not c.curve:
            return None
        xs = np.log10([p.users for p in c.curve])
        i = int(np.argmin(np.abs(xs - x)))
        if abs(xs[i] - x) > 0.12:
            return None
        p = c.curve[i]
        text = QCoreApplication.translate(
            "ServingChart", "{users} users: {total} tokens/s in all, {each} each; first token "
            "{ttft} s").format(users=p.users, total=format_number(p.tokens_per_s_total),
                               each=format_number(p.tokens_per_s_user),
                               ttft=f"{p.first_token_s:.2f}")
        if not p.fits and p.limit == "kv pool":
            text += QCoreApplication.translate(
                "ServingChart", " (some requests wait: the KV pool is full)")
        elif not p.fits:
            text += QCoreApplication.translate("ServingChart", " (their requests do not fit)")
        return text

    def _full_text(self) -> str:
        """The legend's name for the loads that do not all run: on vLLM they wait for room
        in the KV pool (the server runs), elsewhere they do not fit in memory."""
        c = self._capacity
        if c is not None and any(p.limit == "kv pool" for p in c.curve):
            return QCoreApplication.translate("ServingChart", "requests wait")
        return QCoreApplication.translate("ServingChart", "requests do not fit")


__all__ = ["ServingChart"]
