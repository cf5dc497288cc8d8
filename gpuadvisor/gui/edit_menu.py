"""Edit → Undo and Redo of the shared plan (Ctrl+Z; Ctrl+Shift+Z, and Ctrl+Y where that is
the system's Redo), named by what they take back: "Undo micro-batch", "Undo QLoRA".

A text field keeps Ctrl+Z for its own typing while it has typing to undo; otherwise (a spin
box just stepped, a picker just chosen) the keys undo the plan, which is what the user just
changed. :class:`UndoKeys` decides that, for the input that has the focus.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMenu,
    QWidget,
)

from .actions import add_action
from .help_texts import change_name

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


def redo_keys() -> list[QKeySequence]:
    """Ctrl+Shift+Z, and the system's own Redo keys (Ctrl+Y on Windows) when different."""
    keys = [QKeySequence("Ctrl+Shift+Z")]
    for key in QKeySequence.keyBindings(QKeySequence.StandardKey.Redo):
        if key not in keys:
            keys.append(key)
    return keys


def build_edit_menu(window, menu: QMenu) -> None:
    """Fill Edit: ``window.undo_action`` and ``window.redo_action`` (they call
    ``window.state.undo``/``redo``)."""
    window.undo_action = add_action(window, translate("MainWindow", "&Undo"), window.undo,
                                    QKeySequence.StandardKey.Undo)
    window.redo_action = add_action(window, translate("MainWindow", "&Redo"), window.redo)
    window.redo_action.setShortcuts(redo_keys())
    menu.addAction(window.undo_action)
    menu.addAction(window.redo_action)
    update_edit_actions(window)


def update_edit_actions(window) -> None:
    """Name and enable Undo and Redo for the state's history (texts set only when they
    change: this runs on every change of the plan)."""
    state = window.state
    for action, can, what, plain, named in (
        (window.undo_action, state.can_undo, state.undo_what,
         translate("MainWindow", "&Undo"), translate("MainWindow", "&Undo {what}")),
        (window.redo_action, state.can_redo, state.redo_what,
         translate("MainWindow", "&Redo"), translate("MainWindow", "&Redo {what}")),
    ):
        text = named.format(what=change_name(what)) if can else plain
        if action.text() != text:
            action.setText(text)
        if action.isEnabled() != can:
            action.setEnabled(can)


def _line_edit(widget: QObject) -> QLineEdit | None:
    if isinstance(widget, QLineEdit):
        return widget
    if isinstance(widget, QAbstractSpinBox):
        return widget.lineEdit()
    if isinstance(widget, QComboBox) and widget.isEditable():
        return widget.lineEdit()
    return None


class UndoKeys(QObject):
    """Lets Ctrl+Z / Ctrl+Shift+Z reach Edit → Undo/Redo from a text field, spin box or
    searchable picker that has no typing of its own to undo or redo.

    It watches the input that has the keyboard focus, and only that one (an event filter
    on every input would run on each of their repaints, and the Plan page repaints many
    inputs on every change)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watched: QWidget | None = None
        app = QApplication.instance()
        self._app = app
        if app is not None:
            app.focusChanged.connect(self._on_focus)

    def _on_focus(self, _old, new) -> None:
        if self._watched is not None:
            with contextlib.suppress(RuntimeError):  # deleted with its page
                self._watched.removeEventFilter(self)
            self._watched = None
        if new is not None and _line_edit(new) is not None and new.window() is self.parent():
            new.installEventFilter(self)
            self._watched = new

    def close(self) -> None:
        """Stop watching (the window is closing)."""
        self._on_focus(None, None)
        if self._app is not None:
            self._app.focusChanged.disconnect(self._on_focus)
            self._app = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride:
            return False
        edit = _line_edit(watched)
        if edit is None:
            return False
        if event.matches(QKeySequence.StandardKey.Undo):
            own = edit.isUndoAvailable()
        elif event.matches(QKeySequence.StandardKey.Redo) or any(
                event.keyCombination() == key[0] for key in redo_keys() if key.count()):
            own = edit.isRedoAvailable()
        else:
            return False
        # Not accepted: the key goes to the window's shortcut (the plan's undo) instead of
        # the field, which has nothing of its own to undo.
        return not own

__all__ = ["UndoKeys", "build_edit_menu", "redo_keys", "update_edit_actions"]
