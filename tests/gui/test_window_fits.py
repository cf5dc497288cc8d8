"""The window fits the screen it is given: every page at a laptop's 1280 x 720 and 1366 x 768,
on the desktop and in presentation mode, is exactly that size and needs no scrolling of its
own; a window on a screen is never larger than the screen."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication

from gpuadvisor.gui.main_window import PAGES, MainWindow
from gpuadvisor.workspace.settings import Settings

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    window = MainWindow(settings=Settings(), persist=False, interactive=False,
                        simulate="mixed", detect=True)
    qtbot.addWidget(window)
    yield window
    window.close()
    assert [t for t in window.findChildren(QTimer) if t.isActive()] == []


@pytest.mark.parametrize("presentation", [False, True], ids=["desktop", "presentation"])
@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)], ids=["1280x720", "1366x768"])
def test_every_page_is_exactly_the_size_given_and_needs_no_scrolling(qtbot, window, size,
                                                                     presentation):
    if presentation:
        window.set_presentation(True, full_screen=False)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    for name in PAGES:
        window.show_page(name)
        window.flush()
        qtbot.wait(5)
        assert (window.width(), window.height()) == size, name
        assert window.grab().size().toTuple() == size, name
        holder = window.stack.currentWidget()  # the page's place: it scrolls only if it must
        assert not holder.verticalScrollBar().isVisible(), f"{name} scrolls at {size}"
        assert not holder.horizontalScrollBar().isVisible(), f"{name} scrolls at {size}"


def test_a_window_on_a_screen_is_never_larger_than_the_screen(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    window = MainWindow(settings=Settings(), persist=False, interactive=True)
    qtbot.addWidget(window)
    window.resize(5000, 4000)  # a size saved on a larger monitor
    window.show()
    qtbot.waitExposed(window)
    room = (window.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    assert window.width() <= room.width() and window.height() <= room.height()
    window.close()
