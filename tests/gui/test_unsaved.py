"""Unsaved changes (issue 17): closing the window, opening another plan or dropping one asks
first; the answer (save, discard, cancel) is given by a fake message box."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from gpuadvisor.workspace.planfile import save_plan
from gpuadvisor.workspace.state import PlanState

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


class FakeBox:
    """Answers the unsaved-changes question and counts how often it was asked."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked = 0

    def __call__(self) -> str:
        self.asked += 1
        return self.answer


def _other_plan(tmp_path):
    other = PlanState()
    other.set_model("gpt2")
    return save_plan(other, tmp_path / "gpt2.gpuplan")


def test_closing_with_unsaved_changes_and_cancel_keeps_the_window(qtbot, make_window):
    window = make_window()
    window.state.update(micro_batch=4)
    box = FakeBox("cancel")
    window.ask_unsaved = box
    assert window.close() is False
    assert box.asked == 1 and window.isVisible()
    assert window.state.plan.micro_batch == 4
    window.ask_unsaved = FakeBox("discard")  # the fixture closes it after the test


def test_closing_with_unsaved_changes_and_save_writes_the_plan_first(make_window, tmp_path):
    window = make_window()
    window.state.update(micro_batch=6)
    window.ask_unsaved = FakeBox("save")
    window.ask_save_path = lambda: str(tmp_path / "mine")
    assert window.close() is True
    data = json.loads((tmp_path / "mine.gpuplan").read_text(encoding="utf-8"))
    assert data["plan"]["micro_batch"] == 6


def test_closing_with_save_cancelled_in_the_file_dialog_keeps_the_window(make_window):
    window = make_window()
    window.state.update(micro_batch=6)
    window.ask_unsaved = FakeBox("save")
    window.ask_save_path = lambda: None  # the user closed the file dialog
    assert window.close() is False and window.isVisible()
    window.ask_unsaved = FakeBox("discard")


def test_closing_without_changes_or_after_undoing_them_asks_nothing(make_window):
    window = make_window()
    box = FakeBox("cancel")
    window.ask_unsaved = box
    window.state.update(micro_batch=4)
    window.undo()
    assert window.close() is True and box.asked == 0


def test_opening_another_plan_asks_and_cancel_keeps_this_one(make_window, tmp_path):
    window = make_window()
    window.state.update(micro_batch=4)
    window.ask_unsaved = FakeBox("cancel")
    asked_for_path = []
    window.ask_open_path = lambda: asked_for_path.append(1) or str(_other_plan(tmp_path))
    assert window.open_action.trigger() is None
    assert asked_for_path == []  # asked before the file dialog, which never opened
    assert window.state.model_id == "llama-3.1-8b" and window.state.plan.micro_batch == 4
    window.ask_unsaved = FakeBox("discard")
    window.open_action.trigger()
    assert window.state.model_id == "gpt2"


def test_dropping_a_plan_on_unsaved_changes_asks_first(make_window, tmp_path):
    window = make_window()
    window.state.update(micro_batch=4)
    box = FakeBox("cancel")
    window.ask_unsaved = box
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(_other_plan(tmp_path)))])
    window.dropEvent(QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime,
                                Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
    assert box.asked == 1 and window.state.model_id == "llama-3.1-8b"
    window.ask_unsaved = FakeBox("discard")


def test_the_real_question_offers_save_discard_and_cancel(qtbot, make_window):
    window = make_window(interactive=True)
    window.state.update(micro_batch=4)
    seen = []

    def answer() -> None:
        box = next(w for w in QApplication.topLevelWidgets()
                   if isinstance(w, QMessageBox) and w.isVisible())
        buttons = QMessageBox.StandardButton
        seen.append((box.text(), box.standardButtons()))
        box.button(buttons.Cancel).click()

    QTimer.singleShot(50, answer)
    assert window.ask_unsaved() == "cancel"
    text, buttons = seen[0]
    assert text == "Save the changes to Untitled plan?"
    standard = QMessageBox.StandardButton
    assert buttons == standard.Save | standard.Discard | standard.Cancel
    window.ask_unsaved = FakeBox("discard")
