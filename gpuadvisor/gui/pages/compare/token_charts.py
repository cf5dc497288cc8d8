"""The Compare page's two charts, able to read per million generated tokens for an inference
plan: the options chart draws each option's time and money for a million tokens (with the
cheapest hosted API as a dashed line: its speed is not estimated), and the break-even chart
counts millions of tokens instead of jobs. Training plans draw as before."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt

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
        self._api_label = pg.TextItem(anchor=(0, 1))
        self._api_label.setParentItem(self.plot_item.vb)
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
                currency=self._currency), "")
        if shown:
            line.setPen(pg.mkPen(API_COLOR, width=self.theme.reference_px,
                                 style=Qt.PenStyle.DashLine))
            line.setValue(math.log10(self._api_price))
            label.setText(translate("ComparePage", "cheapest API: {name}, {price}").format(
                name=self._api_name, price=self._money(self._api_price)))
            label.setColor(API_COLOR)
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
        (x0, _x1), (y0, y1) = vb.viewRange()
        at = vb.mapFromView(pg.Point(x0, y))
        self._api_label.setPos(at.x() + 6, at.y() - 2)

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
