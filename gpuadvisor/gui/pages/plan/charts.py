"""The Plan page's four charts: memory per GPU, what fits (micro-batch x sequence length),
memory against micro-batch and against sequence length, each with its title.

pyqtgraph takes about half a second to import and the charts as long again to build, so
:class:`PlanCharts` shows a placeholder and builds the charts on demand (:meth:`ensure`),
or after the placeholder's first paint when deferred: the window appears first.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from .format import short_gpu_name

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: Fit map grid: micro-batches (rows) and sequence lengths (columns).
FIT_MAP_MICRO_BATCHES = (1, 2, 4, 8, 16, 32, 64)
FIT_MAP_SEQ_LENS = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)


def micro_batch_axis(current: int, largest_fit: int | None) -> np.ndarray:
    """Micro-batches for the memory curve: 1 up to past the current one and the largest fit."""
    top = max(16, 2 * current)
    if largest_fit:
        top = max(top, math.ceil(1.25 * largest_fit))
    top = min(top, 1024, max(16, 2 * current, 64))
    top = max(top, current)
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
        self.charts = [self.vram_chart, self.mb_chart, self.seq_chart, self.fit_map]
        for row, col, chart, name, title in (
            (0, 0, self.vram_chart, "vramChart", translate("PlanPage", "Memory per GPU")),
            (0, 1, self.fit_map, "fitMapChart",
             translate("PlanPage", "What fits: micro-batch × sequence length")),
            (2, 0, self.mb_chart, "microBatchChart",
             translate("PlanPage", "Memory vs micro-batch")),
            (2, 1, self.seq_chart, "seqChart",
             translate("PlanPage", "Memory vs sequence length")),
        ):
            chart.setObjectName(name)
            chart.setMinimumSize(200, 130)
            chart.set_presentation(self._presentation)
            label = QLabel(title, self)
            label.setProperty("role", "chartTitle")
            self.chart_titles[name] = label
            grid.addWidget(label, row, col)
            grid.addWidget(chart, row + 1, col)
        grid.setRowStretch(1, 1)
        grid.setRowStretch(3, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        self.built.emit()

    def draw(self, state, estimate) -> None:
        """Show ``estimate`` of the plan ``state`` holds (nothing before the charts exist)."""
        if not self.charts:
            return
        plan = estimate.plan
        capacity = state.capacity_bytes
        gpu_name = short_gpu_name(state.gpu.name) if state.gpu is not None else None
        self.vram_chart.set_data(estimate.memory.as_dict(),
                                 [translate("PlanPage", "your plan")],
                                 capacity, gpu_name, estimate.verdict)
        largest_mb = state.largest_fitting_micro_batch()
        xs = micro_batch_axis(plan.micro_batch, largest_mb)
        self.mb_chart.set_data(xs, state.memory_vs_micro_batch(xs), capacity,
                               largest_mb or None, plan.micro_batch, gpu_name=gpu_name)
        opaque = estimate.model.kind == "opaque"
        self.seq_chart.setEnabled(not opaque)
        self.fit_map.setEnabled(not opaque)
        if opaque:
            self.seq_chart.set_data([], [], capacity, None, None, gpu_name=gpu_name)
            self.fit_map.set_data([], [], np.zeros((0, 0)), capacity, None)
        else:
            largest_seq = state.largest_fitting_seq()
            seqs = seq_axis(plan.seq_len, estimate.model.max_positions)
            self.seq_chart.set_data(seqs, state.memory_vs_seq(seqs), capacity,
                                    largest_seq or None, plan.seq_len, gpu_name=gpu_name)
            mbs, sls = np.array(FIT_MAP_MICRO_BATCHES), np.array(FIT_MAP_SEQ_LENS)
            self.fit_map.set_data(mbs, sls, state.fit_map(mbs, sls), capacity,
                                  (plan.micro_batch, plan.seq_len))

    def set_units(self, units: str) -> None:
        """Memory in "GiB" or "GB" (charts built later use them too)."""
        self._units = units
        for chart in self.charts:
            chart.set_units(units)

    def set_presentation(self, enabled: bool) -> None:
        """Large text and thick lines (charts built later use them too)."""
        self._presentation = enabled
        for chart in self.charts:
            chart.set_presentation(enabled)


__all__ = ["FIT_MAP_MICRO_BATCHES", "FIT_MAP_SEQ_LENS", "PlanCharts", "micro_batch_axis",
           "seq_axis"]
