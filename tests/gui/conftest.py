"""Shared fixtures for the GUI tests: a private settings folder, and main windows that are
closed after each test, failing it if any QTimer is still running (napari's rule)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QTimer

from gpuadvisor.gui.main_window import MainWindow
from gpuadvisor.workspace.settings import load_settings


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    folder = tmp_path / "config"
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def make_window(qtbot, config_dir):
    windows = []

    def make(**kwargs):
        kwargs.setdefault("interactive", False)
        # No torch check unless a test asks: closing the window waits for that subprocess.
        kwargs.setdefault("rig_options", {"check_torch": False})
        if "settings" not in kwargs:
            kwargs["settings"], kwargs["settings_warning"] = load_settings()
        window = MainWindow(**kwargs)
        qtbot.addWidget(window)
        window.resize(1400, 900)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
        active = [t for t in window.findChildren(QTimer) if t.isActive()]
        assert active == [], "a timer outlived the test"
