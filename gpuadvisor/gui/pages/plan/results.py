"""The Plan page's row under the charts: the time estimate and the "Make it fit" levers,
each scrolling on its own, as tall as the time panel wants but never more than a share of
the page (the charts keep their room on small screens and projectors)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QScrollArea, QWidget

from gpuadvisor.gui.widgets.levers import LeversPanel
from gpuadvisor.gui.widgets.panels import TimePanel

#: A row at least this wide (pixels) gives three fifths of it to the time panel.
WIDE_ROW_PX = 1000


def scroller(panel: QWidget, parent: QWidget) -> QScrollArea:
    """``panel`` in a frameless, vertical-only scroll area."""
    area = QScrollArea(parent)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(panel)
    return area


class TimeAndLevers(QWidget):
    """Time on the left, levers on the right.

    Attributes:
        time_panel, levers_panel: the panels (:mod:`gpuadvisor.gui.widgets.panels`,
            :mod:`gpuadvisor.gui.widgets.levers`).
        time_scroll, levers_scroll: their scroll areas.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 4, 0, 0)
        self.time_panel = TimePanel(self)
        self.levers_panel = LeversPanel(self)
        self.time_scroll = scroller(self.time_panel, self)
        self.levers_scroll = scroller(self.levers_panel, self)
        row.addWidget(self.time_scroll, 1)
        row.addWidget(self.levers_scroll, 1)
        self._row = row
        self._presentation = False

    def _share(self) -> None:
        """Half the width each on a laptop; on a wide row or a projector three fifths to
        the time: its rows (throughput, users served, steps) are sentences that wrap and
        scroll at half the width, while the levers are a line or two each (at 1920 x 1080
        their half stood empty; at 1366 x 768 two fifths wrapped each lever in two lines
        and scrolled the third)."""
        wide = self._presentation or self.width() >= WIDE_ROW_PX
        if self._row.stretch(0) != (3 if wide else 1):  # a new stretch lays the row out
            self._row.setStretch(0, 3 if wide else 1)
            self._row.setStretch(1, 2 if wide else 1)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._share()

    def set_presentation(self, enabled: bool) -> None:
        """On a projector the time panel shows the time and its parts only."""
        self.time_panel.set_compact(enabled)
        self._presentation = bool(enabled)
        self._share()
        self._fit_key = None

    def fit_height(self, page_height: int, presentation: bool, paged: bool = False) -> None:
        """As tall as the time panel wants, but never more than a quarter of a page of
        ``page_height`` pixels (the charts are what the page is read for; a third when the
        charts are tabbed, one row of them, so that the time with its assumptions and the
        levers show whole on a laptop screen and a projector), and never under what the
        headline time needs: on a smaller screen the panels scroll."""
        # The time panel's hint is a full layout pass: asked again only when what it holds
        # may have changed its height (rows shown, text lengths, fonts) or the page did.
        panel = self.time_panel
        key = (page_height, presentation, paged, panel.width(), panel.shape_key(),
               len(self.levers_panel.levers()),
               sum(button.text().count("\n") for button in self.levers_panel.buttons()))
        if key == getattr(self, "_fit_key", None):
            return
        self._fit_key = key
        wanted = panel.sizeHint().height() + 6
        levers = self.levers_panel.sizeHint().height() + 6
        if presentation:
            wanted = max(wanted, levers)
        share = 3 if paged else 4
        height = max(120, min(wanted, page_height // share)) if page_height > 0 else wanted
        if presentation and page_height > 0:
            # A projector's levers panel holds two levers under a one-line header: the
            # row gives them their height (up to two fifths of the page) rather than
            # leave the second one half under a scroll bar on a 1280 x 720 projector.
            height = max(height, min(levers, 2 * page_height // 5))
        if self.height() != height:
            self.setFixedHeight(height)


__all__ = ["TimeAndLevers", "scroller"]
