"""One GPU of the Rig page: name, fields, catalog match, warnings and a live chart."""

from __future__ import annotations

import math
from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.hardware import GpuInfo

from . import format as fmt
from .widgets import fill_grid, keep_units, pair_text, plain, translate

#: Warning codes shown as errors (red); the rest are warnings (amber).
ERROR_CODES = frozenset({"gpu_lost", "ecc_errors"})


#: Tallest live chart: on the desktop, and on a projector (its fonts are larger).
CHART_MAX_HEIGHT = {False: 230, True: 420}
#: The tallest a live chart grows to fill a page with room to spare (a 1080p screen).
CHART_FILL_HEIGHT = {False: 540, True: 600}
#: The live chart's shortest height: its plot, axis and one legend line still readable.
CHART_MIN_HEIGHT = 120
#: The same on a projector: its 16 pt ticks, axis title and (at 1280 px) two legend lines
#: left a plot of a few pixels at 120 px; where the page is shorter it scrolls.
PRESENTATION_CHART_MIN_HEIGHT = 200
#: A projector's shortest plot (inside the axes and the legend): the 50 and 100 % labels at
#: 16 pt, both whole. At 1280 x 720 a 200-pixel chart kept 74 pixels of plot under its
#: two legend lines, with only "50" on its axis.
PRESENTATION_PLOT_MIN_HEIGHT = 150


def chart_min_height(presentation: bool, chart=None) -> int:
    """The live chart's shortest height for the page's mode; on a projector, given a laid
    out ``chart``, also tall enough for :data:`PRESENTATION_PLOT_MIN_HEIGHT` of plot besides
    what its axes and legend take (the legend takes more lines where the tile is narrow)."""
    if not presentation:
        return CHART_MIN_HEIGHT
    low = PRESENTATION_CHART_MIN_HEIGHT
    if chart is not None:
        plot = chart.plot_item.vb.height()
        if chart.height() > 0 and plot > 0:
            around = chart.height() - plot
            low = max(low, math.ceil(around) + PRESENTATION_PLOT_MIN_HEIGHT)
    return low


def chart_max_height(presentation: bool) -> int:
    """The live chart's tallest height for the page's mode; the page shrinks it until its
    lowest tile fits the view (``RigPage._fit_charts``), whatever the number of cards, so
    two cards side by side on a 1080p projector get the room the page has."""
    return CHART_MAX_HEIGHT[presentation]


class GpuTile(QFrame):
    """One GPU: name, fields, catalog match, warnings and a live chart."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gpuTile")
        layout = QVBoxLayout(self)
        head = QHBoxLayout()
        self.title = QLabel(self)
        self.title.setProperty("role", "subheading")
        self.title.setWordWrap(True)
        self.badge = QLabel(self)
        self.badge.setProperty("role", "lostBadge")
        self.badge.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.badge.hide()
        head.addWidget(self.title, 1)
        head.addWidget(self.badge)
        layout.addLayout(head)
        self.catalog = QLabel(self)
        self.catalog.setWordWrap(True)
        self.catalog.setProperty("role", "note")
        layout.addWidget(self.catalog)
        self._grid = QGridLayout()
        self._grid.setHorizontalSpacing(10)
        self._grid.setVerticalSpacing(2)
        self._grid.setColumnStretch(1, 1)
        self._grid.setColumnStretch(3, 1)
        self._labels: list[tuple[QLabel, QLabel]] = []
        layout.addLayout(self._grid)
        self.warnings = QVBoxLayout()
        layout.addLayout(self.warnings)
        self.warning_labels: list[QLabel] = []
        self.chart = None
        self.gpu: GpuInfo | None = None
        # On a projector: the readings the live chart draws (memory, power, temperature,
        # utilization) and not the card's fixed details, so that two cards' charts show
        # whole on a 1280 x 720 projector.
        self.live_only = False
        self._chart_box = QVBoxLayout()
        layout.addLayout(self._chart_box)
        layout.addStretch(1)

    def ensure_chart(self):
        """The live chart (built on first use: pyqtgraph is imported lazily)."""
        if self.chart is None:
            from gpuadvisor.gui.charts.live import LiveGpuChart

            self.chart = LiveGpuChart(self)
            self.chart.setObjectName("liveChart")
            self.chart.setMinimumHeight(CHART_MIN_HEIGHT)
            self.chart.setMaximumHeight(chart_max_height(False))
            self._chart_box.addWidget(self.chart)
        return self.chart

    def set_gpu(self, gpu: GpuInfo, warnings, units: str, catalog: Mapping) -> None:
        """Show ``gpu`` and its warnings."""
        self.gpu = gpu
        self.title.setText(fmt.gpu_title(gpu, translate))
        self.badge.setText(self.tr("LOST"))
        self.badge.setVisible(gpu.lost)
        self.catalog.setText(keep_units(fmt.catalog_text(gpu, catalog, translate)))
        # Two (name, value) pairs per line: the readings take half the height, and the live
        # chart under them stays in view on a laptop's 768 pixels.
        fill_grid(self._grid, self._labels,
                  fmt.gpu_rows(gpu, units, catalog, translate, live_only=self.live_only),
                  self, columns=2)
        texts = fmt.warning_texts(warnings, translate)
        while len(self.warning_labels) < len(texts):
            label = QLabel(self)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.warnings.addWidget(label)
            self.warning_labels.append(label)
        for label, item in zip(self.warning_labels, [*texts, *[None] * len(self.warning_labels)],
                               strict=False):
            if item is None:
                label.hide()
                continue
            code, message = item
            severity = "error" if code in ERROR_CODES else "warning"
            label.setText("⚠ " + keep_units(message))
            if label.property("severity") != severity:
                label.setProperty("severity", severity)
                label.style().unpolish(label)
                label.style().polish(label)
            label.show()

    def text(self) -> str:
        """Everything the tile says (for tests)."""
        parts = [self.title.text(), self.badge.text() if self.badge.isVisibleTo(self) else "",
                 plain(self.catalog.text())]
        parts += [pair_text(n, v) for n, v in self._labels if not v.isHidden()]
        parts += [plain(w.text()) for w in self.warning_labels if not w.isHidden()]
        return "\n".join(p for p in parts if p)


__all__ = ["ERROR_CODES", "GpuTile"]
