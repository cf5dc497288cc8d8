"""The Compare page's two charts, able to read per million generated tokens for an inference
plan: the options chart draws each option's time and money for a million tokens (with the
cheapest hosted API as a dashed line: its speed is not estimated), and the break-even chart
counts millions of tokens instead of jobs. Training plans draw as before."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QFontMetrics

from gpuadvisor.gui.charts.break_even import BreakEvenChart
from gpuadvisor.gui.charts.compare_charts import CostTimeChart
from gpuadvisor.gui.charts.style import OKABE_ITO

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

API_COLOR = OKABE_ITO["vermillion"]


class OptionsChart(CostTimeChart):
    """:class:`CostTimeChart` with a per-token mode (:meth:`set_per_token`): x is the time to
    generate a million tokens, y the money for them; the cheapest API is a horizontal line.

    Attributes:
        per_token: drawing per million tokens.
        api_line: the cheapest API's price per million tokens (hidden when none).
    """

    def __init__(self, parent=None, money=None) -> None:
        self.per_token = False
        self._api_price: float | None = None
        self._api_name = ""
        self.api_line = pg.InfiniteLine(angle=0, movable=False)
        super().__init__(parent, money)
        self.api_line.setZValue(2)
        self.plot_item.addItem(self.api_line, ignoreBounds=True)
        self._api_label = pg.TextItem(anchor=(0, 0))
        self._api_label.setParentItem(self.plot_item.vb)
        # the dashed line's legend entry (a sample only: the line itself is api_line)
        self._api_sample = pg.PlotDataItem()
        self._redraw()

    def set_per_token(self, enabled: bool, api_price: float | None = None,
                      api_name: str = "") -> None:
        """Read per million tokens (``enabled``), with the cheapest API's price (display
        currency) and name for the dashed line."""
        self.per_token = enabled
        self._api_price = api_price if enabled and api_price and api_price > 0 else None
        self._api_name = api_name
        self._redraw()

    def api_price(self) -> float | None:
        """The API line's price (display currency), or None when hidden."""
        return self._api_price

    def _redraw(self) -> None:
        super()._redraw()
        if not hasattr(self, "_api_label"):
            return  # the base class draws once before this one is built
        line, label = self.api_line, self._api_label
        shown = self.per_token and self._api_price is not None
        line.setVisible(shown)
        label.setVisible(shown)
        if not self.per_token:
            return
        self._set_axis_labels(
            translate("ComparePage", "Time for a million generated tokens (log scale)"),
            translate("ComparePage", "Cost per million tokens, {currency} (log)").format(
                currency=self._currency),
            translate("ComparePage", "Per M tokens ({currency})").format(
                currency=self._currency),
            self._currency,  # a short plot (a Chinese page at 1280 x 720): the unit at least
            "")
        if shown:
            pen = pg.mkPen(API_COLOR, width=self.theme.reference_px, style=Qt.PenStyle.DashLine)
            line.setPen(pen)
            line.setValue(math.log10(self._api_price))
            label.setColor(API_COLOR)
            # the chart's annotation size: a projector's large type too
            label.setFont(self.theme.font(self.theme.annotation_pt))
            # The legend names the line whether or not its label finds room among the points.
            self._api_sample.setPen(pen)
            self._set_legend([*self._legend_entries, (self._api_sample, translate(
                "ComparePage", "cheapest API: {price}").format(
                    price=self._money(self._api_price)))])
        self._frame()

    def _frame(self) -> None:
        super()._frame()
        if not (getattr(self, "per_token", False) and self._api_price and self._auto_frame):
            return
        vb = self.plot_item.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        y = math.log10(self._api_price)
        if not y0 < y < y1:
            pad = 0.15 * max(y1 - y0, 1.0)
            vb.setRange(xRange=(x0, x1), yRange=(min(y0, y - pad), max(y1, y + pad)),
                        padding=0)
        self._place_api_label(y)

    def api_label_text(self) -> str:
        """The API line's label: the API's name and price."""
        price = self._money(self._api_price) if self._api_price else ""
        return translate("ComparePage", "cheapest API: {name}, {price}").format(
            name=self._api_name, price=price)

    def _place_api_label(self, y: float) -> None:
        """Put the API line's label where it covers no option: over or under the line, at
        the left or the right edge; left out when no place is free (the legend names the
        line and its price)."""
        vb, label = self.plot_item.vb, self._api_label
        (x0, x1), (y0, y1) = vb.viewRange()
        width, height = vb.width(), vb.height()
        if width <= 0 or height <= 0 or x1 <= x0 or y1 <= y0:
            return
        line_y = (y1 - y) / (y1 - y0) * height
        marks = []
        for item in (*self.series.values(), self.front_rings):
            xs, ys = item.getData()
            if xs is None or not len(xs):
                continue
            radius = (self.theme.marker_size + 10) / 2 + 2
            for px, py in zip(xs, ys, strict=True):
                marks.append(((px - x0) / (x1 - x0) * width, (y1 - py) / (y1 - y0) * height,
                              radius))
        box = QRectF(0, 0, width, height)
        metrics = QFontMetrics(label.textItem.font())
        pad = 2 * label.textItem.document().documentMargin()
        for text in (self.api_label_text(),):
            w, h = metrics.horizontalAdvance(text) + pad + 2, metrics.height() + pad
            for left, over in ((True, True), (False, True), (True, False), (False, False)):
                rect = QRectF(6 if left else width - 6 - w,
                              line_y - 2 - h if over else line_y + 2, w, h)
                if box.contains(rect) and not any(
                        rect.left() - r <= mx <= rect.right() + r
                        and rect.top() - r <= my <= rect.bottom() + r for mx, my, r in marks):
                    if label.toPlainText() != text:
                        label.setText(text)
                    label.setPos(rect.left(), rect.top())
                    label.setVisible(True)
                    return
        label.setVisible(False)

    def _hover_text_at(self, x: float, y: float) -> str | None:
        text = super()._hover_text_at(x, y)
        if text and self.per_token:
            text += "\n" + translate("ComparePage", "(time and cost for a million tokens)")
        return text


class TokensBreakEvenChart(BreakEvenChart):
    """:class:`BreakEvenChart` with a per-token mode: the x axis counts millions of generated
    tokens; owning costs the cards and then their power per million, paying per token its
    price per million (:meth:`set_data` takes them as the per-job figures)."""

    def __init__(self, parent=None, money=None) -> None:
        self.per_token = False
        super().__init__(parent, money)

    def set_per_token(self, enabled: bool) -> None:
        """Count millions of tokens (``enabled``) or jobs."""
        self.per_token = enabled
        self._redraw()

    def _redraw(self) -> None:
        super()._redraw()
        if not getattr(self, "per_token", False):
            return
        self._set_axis_labels(
            translate("ComparePage", "Million tokens generated"),
            translate("ComparePage", "Total cost ({currency})").format(
                currency=self._currency), "")
        if not self._own_label:
            return
        self._set_legend([
            (self.own_curve, translate("ComparePage", "own: {name}").format(
                name=self._own_label)),
            (self.rent_curve, translate("ComparePage", "per token: {name}").format(
                name=self._rent_label))])
        if self._jobs is None:
            text = translate("ComparePage", "Paying per token stays cheaper: it costs less "
                             "per token than the owned card's power")
        elif self._jobs == 0:
            text = translate("ComparePage", "Your card is cheaper from the first token")
        else:
            text = translate("ComparePage", "Owning pays off after {n} million tokens").format(
                n=f"{self._jobs:,.0f}" if self._jobs >= 10 else f"{self._jobs:.2g}")
        self._set_badge(text)
        self._frame()

    def _hover_text_at(self, x: float, y: float) -> str | None:
        if not self.per_token:
            return super()._hover_text_at(x, y)
        if not self._own_label or x < 0:
            return None
        own = self._hardware + x * self._own_per_job
        other = x * self._rent_per_job
        return translate("ComparePage", "after {n} million tokens\nowning: {own}\npaying per "
                         "token: {other}").format(n=f"{x:,.0f}", own=self._money(own),
                                                  other=self._money(other))


__all__ = ["OptionsChart", "TokensBreakEvenChart"]
