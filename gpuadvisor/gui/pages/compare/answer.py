"""The Compare page's answer banner: the best option in a sentence or two, or why nothing
fits. Its colours come from the style sheet by its ``state`` property."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class AnswerBanner(QLabel):
    """A selectable, word-wrapped banner (object name ``compareAnswer``) whose ``state``
    property is ``ok``, ``none`` or ``busy``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareAnswer")
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def set_answer(self, text: str, state: str) -> None:
        """Show ``text`` in the colours of ``state`` (the style sheet is applied again)."""
        self.setText(text)
        self.setProperty("state", state)
        self.style().unpolish(self)
        self.style().polish(self)


__all__ = ["AnswerBanner"]
