"""Input helpers: an error label shown under a field, a type-to-search combo box, and a
sequence-length input with a log2 slider."""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QLabel,
    QSlider,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QVBoxLayout,
    QWidget,
)

ID_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2


class ErrorLabel(QLabel):
    """A red, word-wrapped message under a field; hidden while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fieldError")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def set_error(self, message: str | None) -> None:
        """Show ``message`` (or hide the label when it is empty or None)."""
        self.setText(message or "")
        self.setVisible(bool(message))


class _WordFilter(QSortFilterProxyModel):
    """Keeps rows whose search text contains every typed word (any order, any case)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._words: list[str] = []

    def set_query(self, text: str) -> None:
        words = text.lower().split()
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.10
            self.beginFilterChange()
            self._words = words
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._words = words
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, row: int, parent) -> bool:  # Qt's API name
        index = self.sourceModel().index(row, 0, parent)
        haystack = str(index.data(SEARCH_ROLE) or "").lower()
        return all(word in haystack for word in self._words)


class SearchComboBox(QComboBox):
    """An editable combo box over (id, text) items with type-to-search.

    Typing filters a popup to the items containing every typed word ("llama 8b" finds
    "Llama 3.1 8B"); Enter picks the first match. :attr:`picked` fires only for the user's
    choices, never for :meth:`set_current_id`. Text that matches nothing is reported through
    :attr:`no_match` and the box returns to the current item.
    """

    picked = Signal(str)
    no_match = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(20)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(12)
        self._items = QStandardItemModel(self)
        self.setModel(self._items)
        self._filter = _WordFilter(self)
        self._filter.setSourceModel(self._items)
        completer = QCompleter(self._filter, self)
        completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setMaxVisibleItems(15)
        self.setCompleter(completer)
        completer.activated.connect(self._on_completer_activated)
        self.lineEdit().textEdited.connect(self._filter.set_query)
        self.lineEdit().returnPressed.connect(self.commit_text)
        self.lineEdit().editingFinished.connect(self._restore_text)
        self.activated.connect(self._on_activated)

    # ------------------------------------------------------------------ content
    def set_items(self, items: list[tuple[str, str]], search: dict[str, str] | None = None) -> None:
        """Replace the items: ``(id, text)`` pairs; ``search`` adds words to match per id."""
        blocker = QSignalBlocker(self)
        current = self.current_id()
        self._items.clear()
        for item_id, text in items:
            item = QStandardItem(text)
            item.setData(item_id, ID_ROLE)
            item.setData(f"{text} {item_id} {(search or {}).get(item_id, '')}", SEARCH_ROLE)
            item.setEditable(False)
            self._items.appendRow(item)
        del blocker
        if current is not None:
            self.set_current_id(current)

    def add_item(self, item_id: str, text: str) -> None:
        """Append one item (e.g. a custom model or a loaded config)."""
        item = QStandardItem(text)
        item.setData(item_id, ID_ROLE)
        item.setData(f"{text} {item_id}", SEARCH_ROLE)
        item.setEditable(False)
        self._items.appendRow(item)

    def ids(self) -> list[str]:
        """The item ids, in order."""
        return [self._items.item(row).data(ID_ROLE) for row in range(self._items.rowCount())]

    def current_id(self) -> str | None:
        """The id of the current item (None when empty)."""
        index = self.currentIndex()
        return None if index < 0 else self.itemData(index, ID_ROLE)

    def set_current_id(self, item_id: str | None) -> None:
        """Select the item with ``item_id`` without emitting any signal."""
        current = self.currentIndex()
        if (current >= 0 and self.itemData(current, ID_ROLE) == item_id
                and self.currentText() == self.itemText(current)):
            return  # shown already: setting it again would repaint the box
        ids = self.ids()
        row = ids.index(item_id) if item_id in ids else -1
        with QSignalBlocker(self):
            self.setCurrentIndex(row)
            self.setEditText(self.itemText(row) if row >= 0 else "")
            self.lineEdit().setCursorPosition(0)  # show the start of a long name

    def matches(self, text: str) -> list[str]:
        """Ids of the items whose search text contains every word of ``text``."""
        words = text.lower().split()
        out = []
        for row in range(self._items.rowCount()):
            item = self._items.item(row)
            haystack = str(item.data(SEARCH_ROLE)).lower()
            if all(word in haystack for word in words):
                out.append(item.data(ID_ROLE))
        return out

    # ------------------------------------------------------------------ user actions
    def commit_text(self) -> None:
        """Pick the best match for the typed text (Enter in the box)."""
        text = self.lineEdit().text().strip()
        current = self.current_id()
        if current is not None and text == self.itemText(self.currentIndex()):
            return
        found = self.matches(text) if text else []
        ids = self.ids()
        exact = [i for i in found if self.itemText(ids.index(i)).lower() == text.lower()]
        # An item whose name starts with the first typed word beats one that only contains
        # it ("qwen 7b" is Qwen2.5 7B before "DeepSeek-R1 Distill Qwen 7B").
        first = text.lower().split()[0] if text.split() else ""
        leading = [i for i in found if self.itemText(ids.index(i)).lower().startswith(first)]
        choice = (exact or leading or found or [None])[0]
        if choice is None:
            self._restore_text()
            if text:
                self.no_match.emit(text)
            return
        self.set_current_id(choice)
        self.completer().popup().hide()
        self.picked.emit(choice)

    def _on_completer_activated(self, text: str) -> None:
        ids = [i for i in self.ids() if self.itemText(self.ids().index(i)) == text]
        if ids:
            self.set_current_id(ids[0])
            self.picked.emit(ids[0])

    def _on_activated(self, index: int) -> None:
        item_id = self.itemData(index, ID_ROLE)
        if item_id is not None:
            self.picked.emit(item_id)

    def _restore_text(self) -> None:
        # Leaving the box with half-typed text shows the current choice again.
        if self.completer().popup().isVisible():
            return
        index = self.currentIndex()
        if index >= 0 and self.lineEdit().text() != self.itemText(index):
            with QSignalBlocker(self):
                self.setEditText(self.itemText(index))
        self._filter.set_query("")


class SequenceInput(QWidget):
    """Sequence length: a spin box for exact values and a slider on a log2 scale."""

    valueChanged = Signal(int)

    MIN_LOG2 = 6  # 64 tokens
    MAX_LOG2 = 17  # 131,072 tokens

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.spin = QSpinBox(self)
        self.spin.setRange(1, 1 << 20)
        self.spin.setGroupSeparatorShown(True)
        self.spin.setKeyboardTracking(False)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(self.MIN_LOG2, self.MAX_LOG2)
        self.slider.setPageStep(1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(1)
        layout.addWidget(self.spin)
        layout.addWidget(self.slider)
        self.spin.valueChanged.connect(self._on_spin)
        self.slider.valueChanged.connect(self._on_slider)

    def value(self) -> int:
        return self.spin.value()

    def setValue(self, value: int) -> None:
        """Set the value without emitting :attr:`valueChanged`."""
        with QSignalBlocker(self.spin), QSignalBlocker(self.slider):
            if self.spin.value() != value:
                self.spin.setValue(value)
            self.slider.setValue(self._log2(value))

    def _log2(self, value: int) -> int:
        exponent = round(math.log2(max(1, value)))
        return max(self.MIN_LOG2, min(self.MAX_LOG2, exponent))

    def _on_spin(self, value: int) -> None:
        with QSignalBlocker(self.slider):
            self.slider.setValue(self._log2(value))
        self.valueChanged.emit(value)

    def _on_slider(self, exponent: int) -> None:
        value = 1 << exponent
        with QSignalBlocker(self.spin):
            self.spin.setValue(value)
        self.valueChanged.emit(value)


class ElidingComboBox(QComboBox):
    """A combo box whose shown text loses its end to an ellipsis where the box is narrower
    than the text (Qt's clips it mid-letter); the list shows every entry whole. With
    ``elide=Qt.TextElideMode.ElideMiddle`` it loses its middle instead, for texts whose
    both ends matter (a device's name and its memory, a path and its PyTorch)."""

    def __init__(self, parent=None, *,
                 elide: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> None:
        super().__init__(parent)
        self.elide_mode = elide

    def paintEvent(self, _event) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        room = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                           QStyle.SubControl.SC_ComboBoxEditField, self)
        option.currentText = self.fontMetrics().elidedText(
            option.currentText, self.elide_mode, room.width())
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
