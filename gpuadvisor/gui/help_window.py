"""Help → gpuadvisor Help (F1): the README's user sections, offline, in the window's language.

The pages are Markdown files shipped with the app (``resources/help/help_<language>.md``;
the wheel and the installers carry them as ``gpuadvisor/help/``): English is made from the
README by ``resources/help/make_help.py``, Chinese is written by hand. The window shows the
sections on the left and the text on the right, with a field to find words; links to other
sections scroll there, links to web pages open in the browser only when clicked.
"""

from __future__ import annotations

import importlib.resources
import re
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

SOURCE_DIR = Path(__file__).resolve().parents[2] / "resources" / "help"
HEADING = re.compile(r"^(#{2,3})\s+(.*\S)\s*$")


def help_path(language: str) -> Path | None:
    """The help page of ``language`` (packaged, else the source checkout's), or the English
    one when there is none in that language; None when no help is installed."""
    for name in (f"help_{language}.md", "help_en.md"):
        resource = importlib.resources.files("gpuadvisor") / "help" / name
        if resource.is_file():
            return Path(str(resource))
        if (SOURCE_DIR / name).is_file():
            return SOURCE_DIR / name
    return None


#: Chinese and Japanese characters, their punctuation and full-width forms.
_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
#: A line break between two such characters inside a paragraph (a list item's next line is
#: indented: the indent goes too). Between Chinese and a Latin word the space stays.
_CJK_BREAK = re.compile(rf"(?<=[{_CJK}])\n[ \t]*(?=[{_CJK}])")


def join_cjk_lines(markdown: str) -> str:
    """Markdown renders a line break inside a paragraph as a space, which is right between
    English words and wrong between Chinese characters: those breaks are removed (code
    blocks are left as they are)."""
    parts = re.split(r"(```.*?```)", markdown, flags=re.S)
    return "".join(part if part.startswith("```") else _CJK_BREAK.sub("", part)
                   for part in parts)


def help_markdown(language: str) -> str:
    """The help page's Markdown ("" when none is installed)."""
    path = help_path(language)
    return join_cjk_lines(path.read_text(encoding="utf-8")) if path is not None else ""


def slug(title: str) -> str:
    """A heading as a link target, as GitHub writes it: lower case, punctuation dropped,
    spaces as hyphens ("What should I do? Own, buy" -> "what-should-i-do-own-buy")."""
    text = re.sub(r"[`*_]", "", title.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def sections(markdown: str) -> list[tuple[int, str]]:
    """(level, title) of each ``##``/``###`` heading outside code blocks."""
    found, code = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            code = not code
            continue
        match = None if code else HEADING.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
    return found


class HelpWindow(QDialog):
    """The help (object name ``helpWindow``): contents, text and a find field.

    Attributes:
        contents: the sections (click one to go there).
        browser: the text (a QTextBrowser showing the Markdown).
        find_edit: words to find (Enter: the next place; Ctrl+F goes here).
        language: the language of the text shown.
    """

    def __init__(self, language: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("helpWindow")
        self.setWindowTitle(translate("HelpWindow", "gpuadvisor Help"))
        # Inherits the window's palette (light or dark) although it is a window of its own.
        self.setAttribute(Qt.WidgetAttribute.WA_WindowPropagation)
        self.setModal(False)
        self.language = language
        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.find_edit = QLineEdit(self)
        self.find_edit.setObjectName("helpFind")
        self.find_edit.setPlaceholderText(translate("HelpWindow", "Find in the help"))
        self.find_edit.setToolTip(translate("HelpWindow", "Words to find; Enter finds the "
                                            "next place, Shift+Enter the one before"))
        self.find_edit.setAccessibleName(translate("HelpWindow", "Find in the help"))
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.returnPressed.connect(self.find_next)
        bar.addWidget(self.find_edit, 1)
        layout.addLayout(bar)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.contents = QListWidget(splitter)
        self.contents.setObjectName("helpContents")
        self.contents.setAccessibleName(translate("HelpWindow", "Sections of the help"))
        self.contents.setToolTip(translate("HelpWindow", "Click a section to go there"))
        self.browser = QTextBrowser(splitter)
        self.browser.setObjectName("helpText")
        self.browser.setAccessibleName(translate("HelpWindow", "Help text"))
        self.browser.setOpenLinks(False)  # section links scroll; web links ask the browser
        self.browser.anchorClicked.connect(self._on_link)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 760])
        layout.addWidget(splitter, 1)
        self.contents.currentRowChanged.connect(self._on_section)
        QShortcut(QKeySequence.StandardKey.Find, self, self.find_edit.setFocus)
        back = QShortcut(QKeySequence("Shift+Return"), self.find_edit)
        back.activated.connect(lambda: self.find_next(backward=True))
        self.resize(1000, 720)
        self.set_language(language)

    def set_language(self, language: str) -> None:
        """Show the help in ``language`` (English when there is none in it)."""
        self.language = language
        markdown = help_markdown(language)
        if not markdown:
            markdown = translate("HelpWindow", "The help pages are not installed.")
        self.browser.document().setDefaultStyleSheet("")
        self.browser.setMarkdown(markdown)
        self.contents.clear()
        self._targets: dict[str, int] = {}
        for level, title in sections(markdown):
            item = QListWidgetItem(("    " if level == 3 else "") + title, self.contents)
            item.setData(Qt.ItemDataRole.UserRole, slug(title))
        self._index_headings()

    def _index_headings(self) -> None:
        """Where each heading's block is in the document, by slug."""
        block = self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                self._targets.setdefault(slug(block.text()), block.position())
            block = block.next()

    def sections(self) -> list[str]:
        """The titles listed under Contents."""
        return [self.contents.item(i).text().strip() for i in range(self.contents.count())]

    def go_to(self, target: str) -> bool:
        """Scroll to the section whose slug (or title) is ``target``; False when none is."""
        position = self._targets.get(target, self._targets.get(slug(target)))
        if position is None:
            return False
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(position)
        self.browser.setTextCursor(cursor)
        # The heading at the top of the view, not just somewhere in it.
        bar = self.browser.verticalScrollBar()
        bar.setValue(bar.maximum())
        self.browser.ensureCursorVisible()
        return True

    def find_next(self, backward: bool = False) -> bool:
        """Select the next place of the words in the find field (wrapping round)."""
        words = self.find_edit.text().strip()
        if not words:
            return False
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        if self.browser.find(words, flags):
            return True
        cursor = self.browser.textCursor()  # from the other end, once
        cursor.movePosition(QTextCursor.MoveOperation.End if backward
                            else QTextCursor.MoveOperation.Start)
        self.browser.setTextCursor(cursor)
        return self.browser.find(words, flags)

    def _on_section(self, row: int) -> None:
        if row >= 0:
            self.go_to(self.contents.item(row).data(Qt.ItemDataRole.UserRole))

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https"):
            QDesktopServices.openUrl(url)  # only when the user clicks a web link
        elif url.hasFragment():
            self.go_to(url.fragment())


__all__ = ["HelpWindow", "help_markdown", "help_path", "sections", "slug"]
