"""A word-wrapped label that keeps numbers with their units (:mod:`.wrap`, which stays
free of Qt: the text of the pages is written without it)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from .wrap import keep_units, plain


class UnitLabel(QLabel):
    """A word-wrapped, selectable label whose text is shown through :func:`keep_units`;
    :meth:`text` gives it back plain."""

    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(keep_units(text))

    def text(self) -> str:
        return plain(super().text())


__all__ = ["UnitLabel"]
