"""The Plan page's parallel layout, driven like a user: switch to Pinned, step the TP spin box,
pin the chosen layout, undo. Assertions are on what the page shows and on the estimate."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt

from gpuadvisor.gui.accessibility import undescribed
from gpuadvisor.gui.pages.plan import PlanPage
from gpuadvisor.gui.pages.plan.layout_pins import divisors
from gpuadvisor.workspace.state import PlanState

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


@pytest.fixture
def page(qtbot):
    page = PlanPage(PlanState())
    qtbot.addWidget(page)
    page.resize(1500, 950)
    page.show()
    state = page.state
    assert state.set_gpu("h100-sxm")
    assert state.update(task="pretrain", n_gpus=8, checkpointing="full", micro_batch=1,
                        grad_accum=4)
    page.flush()
    yield page
    page.shutdown()


def _pick_mode(qtbot, page, mode: str) -> None:
    combo = page.layout_pins.mode_combo
    combo.setCurrentIndex(combo.findData(mode))
    combo.activated.emit(combo.currentIndex())
    page.flush()


def test_one_gpu_and_inference_show_no_layout(qtbot, page):
    pins = page.layout_pins
    assert pins.isVisibleTo(page) and pins.mode_combo.isVisibleTo(page)
    page.state.update(n_gpus=1)
    page.flush()
    assert not pins.isVisibleTo(page) and not pins.mode_combo.isVisibleTo(page)
    page.state.update(n_gpus=8, task="infer")
    page.flush()
    assert not pins.isVisibleTo(page)


def test_auto_shows_the_chosen_degrees_read_only(page):
    pins = page.layout_pins
    chosen = page.state.estimate.layout.chosen.layout
    assert pins.mode_combo.currentData() == "auto"
    for name in ("tp", "pp", "cp"):
        assert pins.spins[name].value() == getattr(chosen, name)
        assert not pins.spins[name].isEnabled()
    assert pins.dp_label.text() == f"DP {chosen.dp}"
    assert pins.pin_button.isVisibleTo(page) and pins.pin_button.isEnabled()
    assert page.time_panel.layout_text.text().startswith("<b>Chosen:</b>")


def test_pinned_mode_and_the_tp_spin_change_the_shown_layout(qtbot, page):
    pins = page.layout_pins
    _pick_mode(qtbot, page, "pinned")
    assert page.state.plan.layout_pins  # the chosen layout, now pinned
    spin = pins.spins["tp"]
    assert spin.isEnabled() and not pins.spins["ep"].isEnabled()  # Llama is dense
    assert not pins.pin_button.isVisibleTo(page)
    # Pipeline and context parallel 1, then TP up by one step: the next divisor of 8 above 1.
    pins.spins["pp"].setValue(1)
    pins.spins["cp"].setValue(1)
    page.flush()
    spin.setValue(1)
    page.flush()
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    page.flush()
    assert page.state.plan.tp == 2
    layout = page.state.estimate.layout.chosen.layout
    # 8 GPUs = tp 2 x pp 1 x cp 1 x dp  ->  dp = 4.
    assert (layout.tp, layout.pp, layout.cp, layout.dp) == (2, 1, 1, 4)
    assert pins.dp_label.text() == "DP 4"
    text = page.time_panel.layout_text.text()
    assert text.startswith("<b>Pinned:</b> TP 2 (SP) × DP 4")  # as the CLI names it
    # Up again: 4 (3 does not divide 8).
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    page.flush()
    assert page.state.plan.tp == 4 and page.state.estimate.layout.chosen.layout.dp == 2


def test_undo_restores_the_previous_pins(qtbot, page):
    pins = page.layout_pins
    state = page.state
    pins.pin_button.click()
    page.flush()
    before = state.plan.layout_pins
    assert before and pins.mode_combo.currentData() == "pinned"
    state._history.mark_saved()  # the spin's change is a step of its own
    pins.spins["tp"].setValue(4 if before["tp"] != 4 else 2)
    page.flush()
    assert state.plan.layout_pins != before and state.undo_what == "layout"
    assert state.undo()
    page.flush()
    assert state.plan.layout_pins == before
    assert pins.spins["tp"].value() == before["tp"]
    _pick_mode(qtbot, page, "auto")
    assert state.plan.layout_pins == {} and not pins.spins["tp"].isEnabled()
    assert state.undo()
    page.flush()
    assert state.plan.layout_pins == before and pins.mode_combo.currentData() == "pinned"


def test_a_tp_the_gpus_cannot_hold_is_said_under_the_layout(qtbot, page):
    pins = page.layout_pins
    _pick_mode(qtbot, page, "pinned")
    before = page.state.plan
    pins.spins["tp"].setValue(3)  # typed: the arrows never offer it
    assert page.state.plan == before
    assert pins.error.isVisibleTo(page)
    assert pins.error.text() == "tp 3 does not divide n_gpus 8"


def test_every_layout_input_has_a_tooltip_and_a_name(page):
    assert undescribed(page.layout_pins) == []
    combo = page.layout_pins.mode_combo
    assert combo.toolTip() and combo.accessibleName() == "Parallel layout"


def test_the_spin_arrows_step_through_the_divisors_of_the_gpu_count():
    assert divisors(12) == [1, 2, 3, 4, 6, 12]
    assert divisors(16, 8) == [1, 2, 4, 8]
