"""The offline help (issue 17): F1 opens the README's user sections in the window's language;
the English page follows the README, the Chinese one has the same sections."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import re
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gpuadvisor.gui.help_window import HelpWindow, help_markdown, sections, slug

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

ROOT = Path(__file__).resolve().parents[2]
HELP = ROOT / "resources" / "help"


def _readme_user_sections() -> list[str]:
    sys.path.insert(0, str(HELP))
    try:
        import make_help
    finally:
        sys.path.remove(str(HELP))
    text = make_help.user_sections((ROOT / "README.md").read_text(encoding="utf-8"))
    return [title for _level, title in sections(text)]


def test_f1_opens_the_help_on_its_sections(qtbot, make_window):
    window = make_window()
    window.activateWindow()
    assert QTest.qWaitForWindowActive(window, 5000)
    assert window.help_window is None
    qtbot.keyClick(window, Qt.Key.Key_F1)
    help_window = window.help_window
    assert help_window is not None and help_window.isVisible()
    assert window.help_action.shortcut().toString() == "F1"
    titles = help_window.sections()
    assert titles[:3] == ["Install", "The desktop app", "Shortcuts, files and colours"]
    assert "Development" not in titles and "Architecture" not in titles
    text = help_window.browser.toPlainText()
    assert "Make it fit" in text and "Ctrl+Shift+Z" in text


def test_a_section_link_scrolls_to_that_section(qtbot):
    window = HelpWindow("en")
    qtbot.addWidget(window)
    window.show()
    assert window.go_to("measure-your-card")
    cursor = window.browser.textCursor()
    assert cursor.block().text() == "Measure your card"
    window.find_edit.setText("--burn-in")
    assert window.find_next()
    assert window.browser.textCursor().selectedText() == "--burn-in"


def test_the_help_speaks_chinese_in_a_chinese_window(qtbot):
    window = HelpWindow("zh_CN")
    qtbot.addWidget(window)
    titles = window.sections()
    assert titles[0] == "安装"
    assert all(re.search(r"[\u4e00-\u9fff]", t) for t in titles), titles
    text = window.browser.toPlainText()
    assert "撤销" in text
    # A line break between two Chinese characters is no space (it is one in English).
    assert "按住数字框的箭头" in text and "按住 数字框" not in text


def test_english_lines_are_left_as_markdown_joins_them():
    from gpuadvisor.gui.help_window import join_cjk_lines

    english = (HELP / "help_en.md").read_text(encoding="utf-8")
    assert join_cjk_lines(english) == english
    assert join_cjk_lines("按住\n  数字框 and\n`x`") == "按住数字框 and\n`x`"


def test_the_english_help_has_the_readme_user_sections():
    english = [title for _level, title in sections(help_markdown("en"))]
    readme = _readme_user_sections()
    # The README's sections, in its order, plus the desktop app's keyboard and files
    # section (resources/help/extra_en.md) when the README does not have it yet.
    assert [t for t in english if t != "Shortcuts, files and colours"] == [
        t for t in readme if t != "Shortcuts, files and colours"]


def test_the_chinese_help_has_the_same_sections_in_the_same_order():
    english = sections(help_markdown("en"))
    chinese = sections(help_markdown("zh_CN"))
    assert [level for level, _ in chinese] == [level for level, _ in english]
    assert len({slug(title) for _level, title in chinese}) == len(chinese)


def test_links_to_sections_of_the_chinese_help_lead_somewhere():
    text = help_markdown("zh_CN")
    targets = {slug(title) for _level, title in sections(text)}
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert links, "the Chinese help links its sections as the English one does"
    assert set(links) <= targets
