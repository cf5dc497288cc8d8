"""The Compare page's break-even: the cumulative cost of owning (hardware, then power per
job) and of renting (rent per job) against the number of such jobs, with the crossing
marked. Money on the y axis as the time-cost chart shows it (:class:`.compare_charts.MoneyAxis`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QWidget

from .base import ChartBase
from .compare_charts import KIND_STYLE, MoneyAxis


class BreakEvenChart(ChartBase):
    """Cumulative cost of owning against renting, per number of such jobs.

    Attributes:
        own_curve, rent_curve: the two lines (x: jobs, y: display currency).
        crossing_line: a vertical dashed line at the break-even (hidden when never).
        badge: the answer in words, top left.
    """

    def __init__(self, parent: QWidget | None = None,
                 money: Callable[[float], str] | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(QCoreApplication.translate(
            "CompareCharts", "Break-even: owning against renting"))
        self._money = money or (lambda value: f"${value:,.0f}")
        self._jobs: float | None = None
        self._hardware = self._own_per_job = self._rent_per_job = 0.0
        self._own_label = self._rent_label = ""
        self._currency = "USD"
        self.own_curve = pg.PlotDataItem()
        self.rent_curve = pg.PlotDataItem()
        self.crossing_line = pg.InfiniteLine(angle=90, movable=False)
        for item in (self.own_curve, self.rent_curve):
            self.plot_item.addItem(item)
        self.plot_item.addItem(self.crossing_line, ignoreBounds=True)
        self.badge = pg.TextItem(anchor=(0, 0))
        self.badge.setParentItem(self.plot_item.vb)
        self.badge.setPos(8, 8)
        self.plot_item.setAxisItems({"left": MoneyAxis("left", lambda: self._money)})
        self.plot_item.getAxis("left").enableAutoSIPrefix(False)
        self.plot_item.getAxis("bottom").enableAutoSIPrefix(False)
        self._left_tick_sample = "$10,000"
        self._apply_axis_style()
        self._redraw()

    def set_money(self, money: Callable[[float], str], currency: str) -> None:
        """How to write an amount of the display currency."""
        self._money, self._currency = money, currency
        self._redraw()

    def set_data(self, *, hardware: float, own_per_job: float, rent_per_job: float,
                 jobs: float | None, own_label: str, rent_label: str) -> None:
        """Owning costs ``hardware + n x own_per_job`` after n jobs, renting ``n x
        rent_per_job`` (display currency); ``jobs``: the break-even (None: never)."""
        self._start_data()
        self._hardware, self._own_per_job, self._rent_per_job = hardware, own_per_job, rent_per_job
        self._jobs = jobs
        self._own_label, self._rent_label = own_label, rent_label
        self._redraw()

    def clear(self, message: str = "") -> None:
        """No pair to compare: empty chart, ``message`` in the corner."""
        self.set_data(hardware=0.0, own_per_job=0.0, rent_per_job=0.0, jobs=None,
                      own_label="", rent_label="")
        self._set_badge(message)
        self._update_description()

    def horizon(self) -> float:
        """The last number of jobs drawn: twice the break-even (100 when there is none)."""
        if self._jobs is None or not math.isfinite(self._jobs):
            return 100.0
        return max(2.0 * self._jobs, 4.0)

    def curves(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(jobs, owning, renting) as drawn."""
        jobs = np.linspace(0.0, self.horizon(), 41)
        own = self._hardware + jobs * self._own_per_job
        rent = jobs * self._rent_per_job
        return jobs, own, rent

    def badge_text(self) -> str:
        """The answer in the corner."""
        return self.badge.textItem.toPlainText()

    def _redraw(self) -> None:
        theme = self.theme
        jobs, own, rent = self.curves()
        empty = not self._own_label
        self.own_curve.setData([] if empty else jobs, [] if empty else own)
        self.rent_curve.setData([] if empty else jobs, [] if empty else rent)
        self.own_curve.setPen(pg.mkPen(KIND_STYLE["buy-used"][0], width=theme.line_px))
        self.rent_curve.setPen(pg.mkPen(KIND_STYLE["rent"][0], width=theme.line_px))
        self.crossing_line.setPen(pg.mkPen(theme.reference_color, width=theme.reference_px,
                                           style=Qt.PenStyle.DashLine))
        crossing = self._jobs is not None and not empty
        self.crossing_line.setVisible(crossing)
        if crossing:
            self.crossing_line.setValue(self._jobs)
        entries = [] if empty else [
            (self.own_curve, QCoreApplication.translate("CompareCharts", "own: {name}")
             .format(name=self._own_label)),
            (self.rent_curve, QCoreApplication.translate("CompareCharts", "rent: {name}")
             .format(name=self._rent_label))]
        self._set_legend(entries)
        self._set_axis_labels(
            QCoreApplication.translate("CompareCharts", "Jobs like this one"),
            QCoreApplication.translate("CompareCharts", "Total cost ({currency})")
            .format(currency=self._currency), "")
        if not empty:
            if self._jobs is None:
                text = QCoreApplication.translate(
                    "CompareCharts", "Renting stays cheaper: it costs less per job than "
                    "the owned card's power")
            else:
                text = QCoreApplication.translate(
                    "CompareCharts", "Owning pays off after {jobs} jobs").format(
                    jobs=f"{self._jobs:,.0f}" if self._jobs >= 10 else f"{self._jobs:.1f}")
            self._set_badge(text)
        self._frame()
        self._update_description()

    def describe(self) -> str:
        """The two costs in a sentence, and where they cross."""
        if not self._own_label:
            return self.badge_text()
        return QCoreApplication.translate(
            "CompareCharts", "Owning {own}: {hardware} and {own_per_job} per job; renting "
            "{rent}: {rent_per_job} per job. {answer}.").format(
            own=self._own_label, hardware=self._money(self._hardware),
            own_per_job=self._money(self._own_per_job), rent=self._rent_label,
            rent_per_job=self._money(self._rent_per_job), answer=self.badge_text())

    def _set_badge(self, text: str) -> None:
        self.badge.setText(text)
        self.badge.setColor(self.theme.foreground)
        self._fit_badge(self.badge)

    def _frame(self) -> None:
        if not self._auto_frame:
            return
        jobs, own, rent = self.curves()
        if self.badge.isVisible() and self.badge.textItem.toPlainText():
            self._fit_badge(self.badge)  # its size depends on the plot's
        # Both lines stay under the answer in the corner (annotations never cover data).
        top, _roomy = self._top_clear_of_badge(
            [float(own.max()), float(rent.max()), 1.0], self.badge, self.theme.annotation_pt,
            fallback=1.25)
        self.plot_item.vb.setRange(xRange=(0, jobs[-1]), yRange=(0, top), padding=0.02)

    def _hover_text_at(self, x: float, y: float) -> str | None:
        if not self._own_label or x < 0:
            return None
        jobs = max(x, 0.0)
        own = self._hardware + jobs * self._own_per_job
        rent = jobs * self._rent_per_job
        return QCoreApplication.translate(
            "CompareCharts", "after {jobs} jobs\nowning: {own}\nrenting: {rent}").format(
            jobs=f"{jobs:,.0f}", own=self._money(own), rent=self._money(rent))



__all__ = ["BreakEvenChart"]
