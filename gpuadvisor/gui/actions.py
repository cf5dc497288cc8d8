"""The window's actions: one helper that makes an action whose shortcut works everywhere."""

from __future__ import annotations

from PySide6.QtGui import QAction


def add_action(window, text: str, slot, shortcut=None, *, checkable: bool = False) -> QAction:
    """An action of ``window`` that calls ``slot`` (with the checked state when
    ``checkable``, without arguments otherwise)."""
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(shortcut)
    action.setCheckable(checkable)
    if checkable:
        action.triggered.connect(slot)
    else:
        action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)  # shortcuts work in full screen, where the menu bar hides
    return action


__all__ = ["add_action"]
