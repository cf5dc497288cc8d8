"""Where the main window's pages sit in its stack: a scroll area that sizes the page to the
window (the page scrolls inside it rather than the window growing past the screen), and a
holder that builds a page the first time it is shown."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QFrame, QHBoxLayout, QScrollArea, QWidget

#: Pixels a page's minimum may grow by without being asked again (see Fit._fit_page).
_SLACK = 60


class Fit(QScrollArea):
    """A page's place in the stack: the page fills it, and where the screen is smaller than
    the page can be (a 1280 x 720 laptop in presentation mode), the page scrolls inside the
    window instead of making the window larger than the screen."""

    def __init__(self, page: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # Sized here, not by widgetResizable: that asks the page's height for its width,
        # which word-wrapped texts compute from their preferred sizes, and the page would
        # scroll though its minimum fits.
        self.setWidgetResizable(False)
        self.setWidget(page)
        page.installEventFilter(self)

    def minimumSizeHint(self) -> QSize:
        return QSize(200, 150)

    def sizeHint(self) -> QSize:
        return self.widget().sizeHint()

    def _fit_page(self, *, laid_out: bool = False) -> None:
        page = self.widget()
        size = self.viewport().size()
        known = getattr(self, "_least", None)
        if laid_out and known is not None and page.size() == size and (
                size.width() >= known.width() + _SLACK and size.height() >= known.height()
                + _SLACK):
            # A text changed inside a page well larger than its minimum: the page's own
            # layout handles it; asking the page's minimum again is a whole layout pass.
            return
        least = page.minimumSizeHint()
        self._least = least
        scrollbar = self.verticalScrollBar().sizeHint().width()
        if least.height() > size.height():
            size.setWidth(size.width() - scrollbar)  # the bar will take its room
        # Fixed at that size: a text that changes inside the page then re-lays the page
        # alone, instead of asking this scroll area (and the window) to lay out again.
        page.setFixedSize(size.expandedTo(least))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_page()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self._fit_page(laid_out=True)
        return super().eventFilter(watched, event)


class Holder(QWidget):
    """A page's place in the window until the page is built: builds it when first shown."""

    def __init__(self, build, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._build = build
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    def hold(self, page: QWidget) -> None:
        """Put the built page in this place."""
        self.layout().addWidget(page)
        if self.isVisible():
            page.show()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._build()


__all__ = ["Fit", "Holder"]
