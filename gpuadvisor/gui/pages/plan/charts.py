"""The Plan page's four charts: memory per GPU, what fits (micro-batch x sequence length),
memory against micro-batch and against sequence length, each with its title.

pyqtgraph takes about half a second to import and the charts as long again to build, so
:class:`PlanCharts` shows a placeholder and builds the charts on demand (:meth:`ensure`),
or after the placeholder's first paint when deferred: the window appears first.

Two arrangements: a 2 x 2 grid when every plot gets a readable height, else (a laptop, a
projector at 1366 x 768) the memory bar on the left and one of the other three on the right,
picked with tabs. A chart that is not shown is not drawn: it is drawn when it is shown.
"""

from __future__ import annotations

import math
import re

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QTabBar, QWidget

from .format import short_gpu_name

#: A parenthesized variant at the end of a GPU's name.
_PARENS = re.compile(r"\s*\([^)]*\)\s*$")

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: Fit map grid: micro-batches (rows) and sequence lengths (columns).
FIT_MAP_MICRO_BATCHES = (1, 2, 4, 8, 16, 32, 64)
FIT_MAP_SEQ_LENS = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)

#: Least plot height (pixels, axes and legend not counted) that reads at a glance: the grid
#: is used while each of its plots gets this much, the tabs otherwise.
MIN_PLOT_PX = {False: 120, True: 200}


def micro_batch_axis(current: int, largest_fit: int | None) -> np.ndarray:
    """Micro-batches for the memory curve: 1 up to past the current one and the largest fit,
    the end rounded up to a power of two (the axis stays put while the micro-batch moves)."""
    top = max(16, 2 * current)
    if largest_fit:
        top = max(top, math.ceil(1.25 * largest_fit))
    top = min(top, 1024, max(16, 2 * current, 64))
    top = max(top, current)
    top = max(top, 1 << max(0, math.ceil(math.log2(top))))
    if top <= 32:
        return np.arange(1, top + 1, dtype=float)
    return np.unique(np.round(np.geomspace(1, top, 28))).astype(float)


def seq_axis(current: int, context: int) -> np.ndarray:
    """Sequence lengths for the memory curve: powers of two (and halfway points) from 128."""
    top = max(4096, 2 * current, context or 0)
    top = min(top, 1 << 17)
    top = max(top, current)
    exponents = np.arange(7, math.log2(top) + 0.01, 0.5)
    values = np.unique(np.round(2.0 ** exponents))
    if current not in values:
        values = np.unique(np.append(values, float(current)))
    return values


class PlanCharts(QWidget):
    """The charts area (object name ``chartsArea``): a placeholder until :meth:`ensure`.

    Attributes:
        charts: the four charts once built (empty before).
        vram_chart, fit_map, mb_chart, seq_chart: the charts (once built).
        chart_titles: chart object name -> its title label.
        placeholder: "Drawing charts…" until the charts are built.
        timer: starts the deferred build once the placeholder has painted.
    """

    #: The charts were just built, empty: the page draws the plan in them.
    built = Signal()
    #: The grid became tabs or the other way round.
    arranged = Signal()

    def __init__(self, units: str, parent: QWidget | None = None, *, defer: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("chartsArea")
        self._units = units
        self._presentation = False
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(10)
        self._grid.setVerticalSpacing(2)
        self.placeholder = QLabel(translate("PlanPage", "Drawing charts…"), self)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setProperty("role", "note")
        self._grid.addWidget(self.placeholder, 0, 0)
        self.charts: list = []
        self.chart_titles: dict[str, QLabel] = {}
        self.paged = False  # tabs instead of the grid (see _arrange)
        self._serving = False  # a server's plan: the load curve in the micro-batch's place
        self._served = None  # its Capacity (state.sweeps.serving())
        self._arrange_pending = False
        self.tabs = QTabBar(self)
        self.tabs.setObjectName("chartTabs")
        self.tabs.setExpanding(False)
        self.tabs.setDrawBase(False)
        # All three tabs in view: their texts are short, and elided if still too long.
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.setUsesScrollButtons(False)
        self.tabs.hide()
        self.tabs.currentChanged.connect(self._on_tab)
        self._stale: set = set()  # charts not drawn since the data changed (not shown)
        self._drawn_with = None  # (state, estimate) of the last draw
        # The charts come after the placeholder's first paint when deferred: its paint
        # starts this timer, which the page stops on close.
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.ensure)
        if defer:
            self.placeholder.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if (watched is self.placeholder and event.type() == QEvent.Type.Paint
                and not self.charts and not self.timer.isActive()):
            self.timer.start()
        return super().eventFilter(watched, event)

    def ensure(self) -> None:
        """Build the four charts (once; ``built`` says when)."""
        self.timer.stop()
        if self.charts:
            return
        # pyqtgraph is imported here, not at module level: see the module's docstring.
        from gpuadvisor.gui.charts.curves import MemoryCurveChart
        from gpuadvisor.gui.charts.fit_map import FitMapChart
        from gpuadvisor.gui.charts.serving import ServingChart
        from gpuadvisor.gui.charts.vram_bar import VramBreakdownChart

        grid, units = self._grid, self._units
        self.placeholder.removeEventFilter(self)
        grid.removeWidget(self.placeholder)
        self.placeholder.hide()
        self.vram_chart = VramBreakdownChart(self, units=units)
        self.mb_chart = MemoryCurveChart(self, x_label=translate("PlanPage", "micro-batch"),
                                         units=units)
        self.seq_chart = MemoryCurveChart(self, x_label=translate("PlanPage",
                                                                  "sequence length"),
                                          log_x=True, units=units)
        self.fit_map = FitMapChart(self, units=units)
        # A server's plan (vLLM, llama-server) shows its load curve where a training plan
        # shows memory against the micro-batch.
        self.serving_chart = ServingChart(self, units=units)
        self.charts = [self.vram_chart, self.mb_chart, self.seq_chart, self.fit_map,
                       self.serving_chart]
        # The fit map's cells hold memory per GPU: its title says in which unit.
        self._titles = {
            "vramChart": translate("PlanPage", "Memory per GPU"),
            "fitMapChart": self._fit_map_titles[False],
            "microBatchChart": translate("PlanPage", "Memory vs micro-batch"),
            "seqChart": translate("PlanPage", "Memory vs sequence length"),
            "servingChart": translate("PlanPage", "Users at once: tokens per second"),
        }
        for chart, name in ((self.vram_chart, "vramChart"), (self.fit_map, "fitMapChart"),
                            (self.mb_chart, "microBatchChart"), (self.seq_chart, "seqChart"),
                            (self.serving_chart, "servingChart")):
            chart.setObjectName(name)
            chart.setMinimumSize(160, 110)
            chart.set_presentation(self._presentation)
            label = QLabel(self)
            label.setProperty("role", "chartTitle")
            label.setWordWrap(True)  # never wider than its column
            self.chart_titles[name] = label
        self._tab_charts = [self.fit_map, self._second(), self.seq_chart]
        for _chart in self._tab_charts:
            self.tabs.addTab("")
        self._set_titles()
        self._arrange(self._want_paged())
        self.built.emit()

    @property
    def _fit_map_titles(self) -> dict[bool, str]:
        """The fit map's title: its cells hold memory per GPU, or (a server that reserves
        its share of the card, vLLM) what the requests need to run at once."""
        return {False: translate("PlanPage", "What fits: micro-batch × sequence length "
                                 "(cells: {unit} per GPU)"),
                True: translate("PlanPage", "What fits: requests × prompt length (cells: "
                                "{unit} per GPU to serve them all at once)")}

    def _set_fit_map_title(self, queued: bool) -> None:
        """The fit map's and the length chart's titles, and the length chart's x axis: a
        server that queues requests (vLLM) is swept by prompt length, not by the sequence
        length of a training batch."""
        title = self._fit_map_titles[queued]
        if self._titles["fitMapChart"] != title:
            self._titles["fitMapChart"] = title
            self._titles["seqChart"] = (translate("PlanPage", "Memory vs prompt length")
                                        if queued else
                                        translate("PlanPage", "Memory vs sequence length"))
            self.seq_chart.set_x_label(translate("PlanPage", "prompt length") if queued
                                       else translate("PlanPage", "sequence length"))
            self._set_titles()

    # ------------------------------------------------------------------ arrangement
    def _set_titles(self) -> None:
        for name, label in self.chart_titles.items():
            label.setText(self._titles[name].format(unit=self._units))
            # A screen reader names the chart by its title (its description is its data).
            self.findChild(QWidget, name).setAccessibleName(label.text())
        second = self._second().objectName()
        queued = self._titles["fitMapChart"] == self._fit_map_titles[True]
        short = (translate("PlanPage", "Requests at once ({unit})").format(unit=self._units)
                 if queued else
                 translate("PlanPage", "What fits ({unit})").format(unit=self._units),
                 translate("PlanPage", "Users at once") if self._serving
                 else translate("PlanPage", "By micro-batch"),
                 translate("PlanPage", "By prompt length") if queued
                 else translate("PlanPage", "By sequence length"))
        for index, text in enumerate(short):
            self.tabs.setTabText(index, text)
            self.tabs.setTabToolTip(index, self._titles[
                ("fitMapChart", second, "seqChart")[index]].format(unit=self._units))

    def _second(self):
        """The chart of the grid's lower-left place: the load curve of a server's plan,
        memory against the micro-batch otherwise."""
        return self.serving_chart if self._serving else self.mb_chart

    def _want_paged(self, height: int | None = None) -> bool:
        """Whether the grid would leave a plot shorter than :data:`MIN_PLOT_PX` (in an area
        ``height`` pixels tall; the area's own height when None, with a margin before going
        back to the grid)."""
        if not self.charts:
            return False
        chart = self.vram_chart
        # Axes, axis titles and legend around a plot: as the vram chart (always shown) has
        # them now.
        chrome = chart.height() - chart.plot_item.vb.height()
        if chart.height() <= 0 or chrome <= 0 or chrome > chart.height():
            chrome = 100 if self._presentation else 90
        title = (self.chart_titles["vramChart"].fontMetrics().height() + 4
                 + self._grid.verticalSpacing())
        grid_plot = ((self.height() if height is None else height) - 2 * title) / 2 - chrome
        # A margin before going back to the grid, so that a size between the two does not
        # flip the arrangement back and forth.
        least = MIN_PLOT_PX[self._presentation] + (12 if self.paged and height is None else 0)
        return grid_plot < least

    def would_page(self, height: int) -> bool:
        """Whether an area ``height`` pixels tall shows the charts as tabs."""
        return self._want_paged(height)

    def _arrange(self, paged: bool) -> None:
        """Lay the charts out as the grid or as the memory bar beside tabs."""
        grid = self._grid
        for widget in (*self.chart_titles.values(), *self.charts, self.tabs):
            grid.removeWidget(widget)
        for row in range(4):
            grid.setRowStretch(row, 0)
        self.paged = paged
        titles = self.chart_titles
        second = self._second()
        spare = self.mb_chart if second is self.serving_chart else self.serving_chart
        spare.hide()
        titles[spare.objectName()].hide()
        self._tab_charts = [self.fit_map, second, self.seq_chart]
        if not paged:
            self.tabs.hide()
            for row, col, chart, name in ((0, 0, self.vram_chart, "vramChart"),
                                          (0, 1, self.fit_map, "fitMapChart"),
                                          (2, 0, second, second.objectName()),
                                          (2, 1, self.seq_chart, "seqChart")):
                grid.addWidget(titles[name], row, col)
                grid.addWidget(chart, row + 1, col)
                titles[name].show()
                chart.show()
            grid.setRowStretch(1, 1)
            grid.setRowStretch(3, 1)
            grid.setColumnStretch(0, 1)
            grid.setColumnStretch(1, 1)
        else:
            grid.addWidget(titles["vramChart"], 0, 0)
            grid.addWidget(self.vram_chart, 1, 0)
            grid.addWidget(self.tabs, 0, 1)
            current = self.tabs.currentIndex()
            for index, chart in enumerate(self._tab_charts):
                grid.addWidget(chart, 1, 1)
                chart.setVisible(index == current)
                titles[chart.objectName()].hide()
            self.tabs.show()
            grid.setRowStretch(1, 1)
            grid.setColumnStretch(0, 2)
            grid.setColumnStretch(1, 3)
        self._draw_stale()
        self.arranged.emit()

    def _on_tab(self, index: int) -> None:
        if not self.paged:
            return
        for k, chart in enumerate(self._tab_charts):
            chart.setVisible(k == index)
        self._draw_stale()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.charts and not self._arrange_pending:
            # Once this resize and the layouts under it are done: the arrangement is chosen
            # from the charts' real sizes, and re-arranging inside a resize resizes again.
            self._arrange_pending = True
            QTimer.singleShot(0, self._rearrange)

    def _rearrange(self) -> None:
        """Switch between the grid and the tabs if the size now asks for the other."""
        self._arrange_pending = False
        if self.charts and self._want_paged() != self.paged:
            self._arrange(not self.paged)

    def settle(self) -> None:
        """Lay out and choose the arrangement now (screenshots, tests)."""
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self._rearrange()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)

    def shown_charts(self) -> list:
        """The charts on screen now (all four in the grid, two with the tabs)."""
        return [chart for chart in self.charts if not chart.isHidden()]

    def draw(self, state, estimate) -> None:
        """Show ``estimate`` of the plan ``state`` holds (nothing before the charts exist).

        Only the charts on screen are drawn; the others when they are shown.
        """
        if not self.charts:
            return
        self._drawn_with = (state, estimate)
        self._served = state.sweeps.serving()
        if (self._served is not None) != self._serving:
            self._serving = self._served is not None
            self._set_titles()
            self._arrange(self.paged)
        self._stale = set(self.charts)
        self._draw_stale()

    def _draw_stale(self) -> None:
        if self._drawn_with is None:
            return
        state, estimate = self._drawn_with
        for chart in [c for c in self.charts if c in self._stale and not c.isHidden()]:
            self._stale.discard(chart)
            self._draw_one(chart, state, estimate)

    def _draw_one(self, chart, state, estimate) -> None:
        plan = estimate.plan
        capacity = state.capacity_bytes
        # The card's line names the chip: a variant's details in parentheses ("(DGX Spark,
        # 128 GB)", "(40-core GPU, 128 GB)") are in the banner, and the size is beside it.
        gpu_name = (_PARENS.sub("", short_gpu_name(state.gpu.name)).strip()
                    if state.gpu is not None else None)
        opaque = estimate.model.kind == "opaque"
        if chart is self.vram_chart:
            self.vram_chart.set_data(estimate.memory.as_dict(),
                                     [translate("PlanPage", "your plan")],
                                     capacity, gpu_name, estimate.verdict)
        elif chart is self.mb_chart:
            largest_mb = state.sweeps.largest_fitting_micro_batch()
            xs = micro_batch_axis(plan.micro_batch, largest_mb)
            self.mb_chart.set_data(xs, state.sweeps.memory_vs_micro_batch(xs), capacity,
                                   largest_mb or None, plan.micro_batch, gpu_name=gpu_name)
        elif chart is self.seq_chart:
            self.seq_chart.setEnabled(not opaque)
            if opaque:
                self.seq_chart.set_data([], [], capacity, None, None, gpu_name=gpu_name)
            else:
                largest_seq = state.sweeps.largest_fitting_seq()
                seqs = seq_axis(plan.seq_len, estimate.model.max_positions)
                queued = state.sweeps.queued()
                line, line_name = capacity, gpu_name
                if queued and capacity is not None:
                    # a server's requests wait past the share it reserved (vLLM's budget,
                    # the banner's "21.9 GiB of 23.4 GiB"), as the fit map colours them
                    line = estimate.memory.total
                    line_name = translate("PlanPage", "the server's share of {gpu}").format(
                        gpu=gpu_name or translate("PlanPage", "the card"))
                self.seq_chart.set_data(seqs, state.sweeps.memory_vs_seq(seqs), line,
                                        largest_seq or None, plan.seq_len, gpu_name=line_name,
                                        context=estimate.model.max_positions,
                                        queued=queued)
        elif chart is self.serving_chart:
            self.serving_chart.set_data(self._served)
        elif chart is self.fit_map:
            self.fit_map.setEnabled(not opaque)
            if opaque:
                self.fit_map.set_data([], [], np.zeros((0, 0)), capacity, None)
            else:
                mbs, sls = np.array(FIT_MAP_MICRO_BATCHES), np.array(FIT_MAP_SEQ_LENS)
                total, verdicts = state.sweeps.fit_grid(mbs, sls)
                self.fit_map.set_data(mbs, sls, total, capacity,
                                      (plan.micro_batch, plan.seq_len), verdicts=verdicts)
                self._set_fit_map_title(verdicts is not None)

    def set_units(self, units: str) -> None:
        """Memory in "GiB" or "GB" (charts built later use them too)."""
        self._units = units
        for chart in self.charts:
            chart.set_units(units)
        if self.charts:
            self._set_titles()

    def set_presentation(self, enabled: bool) -> None:
        """Large text and thick lines (charts built later use them too)."""
        self._presentation = enabled
        # On a projector the charts' white plots meet on the white page: a right axis's
        # rotated title ("first token (s)") stood beside the next chart's left one and
        # read as one. A wider gap between the columns keeps each with its chart.
        self._grid.setHorizontalSpacing(28 if enabled else 10)
        for chart in self.charts:
            chart.set_presentation(enabled)
        if self.charts and not self._arrange_pending:
            self._arrange_pending = True
            QTimer.singleShot(0, self._rearrange)


__all__ = ["FIT_MAP_MICRO_BATCHES", "FIT_MAP_SEQ_LENS", "PlanCharts", "micro_batch_axis",
           "seq_axis"]
