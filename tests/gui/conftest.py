"""Shared fixtures for the GUI tests: a private settings folder, main windows that are
closed after each test, failing it if any QTimer is still running (napari's rule), and
windows built once per test module for the tests that only read them."""

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
        _close(window)


def _close(window) -> None:
    window.close()
    active = [t for t in window.findChildren(QTimer) if t.isActive()]
    assert active == [], "a timer outlived the test"


@pytest.fixture(scope="module")
def shared_window(qapp, tmp_path_factory):
    """``shared_window(key, build)``: the window ``build(config_folder)`` made for ``key``,
    built on the module's first ask and closed (timers checked) after its last test.

    Building a window and rendering it at a size is most of a GUI test's time; tests that
    only read what a window shows share one per key instead of building their own. A test
    that changes the window (its plan, its mode) builds its own with ``make_window``.
    """
    windows: dict = {}
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("shared-config")
        patch.setenv("GPUADVISOR_CONFIG_DIR", str(folder))

        def get(key, build):
            if key not in windows:
                windows[key] = build(folder)
            return windows[key]

        yield get
        for window in windows.values():
            _close(window)
