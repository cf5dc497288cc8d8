"""Undo and redo (issue 17): every change to the plan, a "Make it fit" lever and a model
loaded from a file included, through Edit → Undo/Redo and Ctrl+Z / Ctrl+Shift+Z."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtTest import QTest

from gpuadvisor.workspace.history import History
from gpuadvisor.workspace.state import PlanState

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

HF_CONFIGS = Path(__file__).resolve().parents[1] / "data" / "hf_configs"


class Clock:
    """A clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# ----------------------------------------------------------------------------- the state
def test_undo_takes_back_a_lever_and_redo_applies_it_again():
    state = PlanState()
    state.set_model("llama-3.1-70b")  # QLoRA of 70B does not fit a 24 GB card
    before = state.plan
    lever = next(lv for lv in state.levers() if lv.changes)
    assert state.apply_lever(lever)
    after = state.plan
    assert after != before and state.undo_what is lever
    assert state.undo()
    assert state.plan == before and state.model_id == "llama-3.1-70b"
    assert state.redo_what is lever
    assert state.redo()
    assert state.plan == after
    assert state.undo() and state.undo()  # the lever, then the model
    assert state.model_id == "llama-3.1-8b" and not state.can_undo
    assert not state.modified  # back where the session started


def test_turning_one_knob_in_a_row_is_one_step_and_a_pause_starts_another():
    state = PlanState()
    clock = Clock()
    state._history = History(clock=clock)
    for value in (2, 3, 4):
        clock.now += 0.2
        state.update(micro_batch=value)
    clock.now += 5.0  # a pause: the next change is a step of its own
    state.update(micro_batch=8)
    state.update(seq_len=4096)
    assert state.undo() and state.plan.seq_len == 2048 and state.plan.micro_batch == 8
    assert state.undo() and state.plan.micro_batch == 4
    assert state.undo() and state.plan.micro_batch == 1
    assert not state.can_undo


def test_undo_leaves_the_card_the_state_chose_after_detection():
    from gpuadvisor.hardware import SimulatedBackend

    state = PlanState()
    state.update(micro_batch=2)
    backend = SimulatedBackend("one-gpu")
    state.set_detected(backend.devices())
    backend.close()
    detected = state.gpu_id
    assert detected.startswith("detected:")
    assert state.undo()
    assert state.plan.micro_batch == 1 and state.gpu_id == detected


def test_saving_marks_the_plan_unmodified_and_undo_back_to_it_too():
    state = PlanState()
    state.update(micro_batch=2)
    state.mark_saved()
    assert not state.modified
    state.update(micro_batch=4)
    assert state.modified
    state.undo()
    assert not state.modified and state.plan.micro_batch == 2
    state.undo()
    assert state.modified  # before the save
    state.update(grad_accum=8)  # a new branch: the saved plan cannot come back by redo
    assert state.modified and not state.can_redo


# ----------------------------------------------------------------------------- the window
def test_edit_undo_takes_back_a_lever_clicked_on_the_plan_page(qtbot, make_window):
    window = make_window()
    window.state.set_model("llama-3.1-70b")
    page = window.plan_page
    page.flush()
    before = window.state.plan
    button = page.levers_panel.buttons()[0]
    lever = page.levers_panel.levers()[0]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.state.plan == lever.plan or window.state.plan != before
    from gpuadvisor.gui.widgets.levers import lever_title

    assert window.undo_action.isEnabled()
    assert window.undo_action.text() == f"&Undo {lever_title(lever)}"
    window.undo_action.trigger()
    assert window.state.plan == before
    assert window.status_label.text() == f"Undid: {lever_title(lever)}"
    assert window.redo_action.text() == f"&Redo {lever_title(lever)}"
    page.flush()
    assert page.micro_batch_spin.value() == before.micro_batch
    window.redo_action.trigger()
    assert window.state.plan != before


def test_the_shortcuts_are_ctrl_z_and_ctrl_shift_z(make_window):
    window = make_window()
    assert window.undo_action.shortcut().toString() == "Ctrl+Z"
    assert "Ctrl+Shift+Z" in [key.toString() for key in window.redo_action.shortcuts()]
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles[:2] == ["File", "Edit"]
    assert not window.undo_action.isEnabled() and window.undo_action.text() == "&Undo"


def test_ctrl_z_in_a_stepped_spin_box_undoes_the_plan(qtbot, make_window):
    window = make_window()
    window.activateWindow()
    assert QTest.qWaitForWindowActive(window, 5000)  # shortcuts go to the active window
    spin = window.plan_page.micro_batch_spin
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert window.state.plan.micro_batch == 2
    qtbot.keyClick(spin, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.state.plan.micro_batch == 1
    qtbot.keyClick(spin, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.state.plan.micro_batch == 2


def test_a_model_dropped_on_the_window_is_undone_as_one_step(qtbot, make_window, tmp_path):
    window = make_window()
    config = tmp_path / "Mistral-7B" / "config.json"
    config.parent.mkdir()
    config.write_text((HF_CONFIGS / "mistral-7b.json").read_text())
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(config))])
    with qtbot.waitSignal(window.model_files.finished, timeout=10000):
        window.dropEvent(QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, mime,
                                    Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
    assert window.state.model.id == "Mistral-7B"
    assert window.undo_action.text() == "&Undo model"
    assert window.isWindowModified()
    window.undo()
    assert window.state.model_id == "llama-3.1-8b"
    assert not window.isWindowModified()


def test_opening_a_plan_starts_a_new_history(make_window, tmp_path):
    window = make_window()
    window.state.update(micro_batch=3)
    path = tmp_path / "plan.gpuplan"
    path.write_text(json.dumps(window.state.to_dict()), encoding="utf-8")
    window.state.update(micro_batch=5)
    assert window.open_plan(path)  # not interactive: the change is discarded
    assert window.state.plan.micro_batch == 3
    assert not window.state.can_undo and not window.undo_action.isEnabled()
    assert not window.isWindowModified()
    # the status bar names the file, not its folders (a projector shows it to the room)
    assert window.status_label.text() == "Opened plan.gpuplan"
