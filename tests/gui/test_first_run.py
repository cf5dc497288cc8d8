"""The first-run panel (issue 17): without a GPU it offers a demo rig, with one it points at
the Probe page; it appears only on the first start (no settings file yet)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


def _detected(qtbot, window):
    with qtbot.waitSignal(window.rig_page.detection_finished, timeout=20000):
        pass
    return window.first_run_panel


def test_no_gpu_offers_a_demo_rig_and_one_click_shows_it(qtbot, make_window):
    window = make_window(first_run=True, simulate="no-gpu", detect=True,
                         rig_options={"check_torch": False})
    panel = _detected(qtbot, window)
    assert panel.isVisible() and panel.kind == "no-gpu"
    assert "No GPU was found" in panel.message.text()
    assert panel.action_button.text() == "Use a demo rig"
    with qtbot.waitSignal(window.rig_page.detection_finished, timeout=20000):
        qtbot.mouseClick(panel.action_button, Qt.MouseButton.LeftButton)
    assert not panel.isVisible()
    assert window.current_page() == "rig" and window.rig_page.spec == "mixed"
    assert len(window.rig_page.result.gpus) == 2  # the demo's RTX 3090 and RTX 3060


def test_a_gpu_points_at_the_probe_page(qtbot, make_window):
    window = make_window(first_run=True, simulate="one-gpu", detect=True,
                         rig_options={"check_torch": False})
    panel = _detected(qtbot, window)
    assert panel.isVisible() and panel.kind == "gpu"
    name = window.rig_page.result.gpus[0].name
    assert name in panel.message.text() and "Probe page" in panel.message.text()
    qtbot.mouseClick(panel.action_button, Qt.MouseButton.LeftButton)
    assert window.current_page() == "probe" and not panel.isVisible()


def test_later_starts_show_no_panel_until_help_welcome(qtbot, make_window):
    window = make_window(simulate="no-gpu", detect=True, rig_options={"check_torch": False})
    panel = _detected(qtbot, window)
    assert not panel.isVisible()
    window.welcome_action.trigger()
    assert panel.isVisible() and panel.kind == "no-gpu"
    qtbot.mouseClick(panel.dismiss_button, Qt.MouseButton.LeftButton)
    assert not panel.isVisible()


def test_the_first_start_is_the_one_without_a_settings_file(make_window, config_dir):
    from gpuadvisor.gui.app import is_first_start

    assert is_first_start()
    window = make_window()
    window.close()  # the window saves the settings when it closes
    assert not is_first_start()
