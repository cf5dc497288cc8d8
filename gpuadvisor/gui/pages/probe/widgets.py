"""Small widgets and helpers the Probe page's regions share: notes, tables, severities and
one probe's progress row."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QLabel,
    QProgressBar,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from gpuadvisor.gui.widgets.unit_label import UnitLabel

from . import format as fmt

#: Under this name lupdate finds the literal (context, text) calls of the page's regions.
translate = QCoreApplication.translate

#: The page's own style: none; its colours (severities, badges, tiles) are in the window's
#: style sheet, in the palette's colours (``gui/widgets/theme.py``).
STYLE = ""


def probe_name(probe: str | None) -> str:
    """A probe's name for people (translated); ``None`` is the run as a whole."""
    return fmt.probe_name(probe, translate)


def set_severity(label: QLabel, severity: str) -> None:
    """Colour ``label`` as ``error``, ``warning``, ``ok`` or plain (``""``)."""
    if label.property("severity") != severity:
        label.setProperty("severity", severity)
        label.style().unpolish(label)
        label.style().polish(label)


def note_label(text: str, parent: QWidget, *, role: str = "note") -> QLabel:
    """A wrapped, selectable label (a note by default) that keeps numbers with their units
    and a command's flags whole (:class:`~gpuadvisor.gui.widgets.unit_label.UnitLabel`)."""
    label = UnitLabel(text, parent)
    label.setProperty("role", role)
    return label


def make_table(columns: int, parent: QWidget, name: str) -> QTableWidget:
    """A read-only table that selects whole rows."""
    table = QTableWidget(0, columns, parent)
    table.setObjectName(name)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setTextElideMode(Qt.TextElideMode.ElideRight)
    return table


def fill_table(table: QTableWidget, rows: Sequence[Sequence[str]], *,
               right_from: int = 1) -> None:
    """Rows of text into ``table``; columns from ``right_from`` on are right-aligned."""
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c >= right_from:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)


class ProgressRow:
    """One probe's line in the Run box: name, bar, message."""

    def __init__(self, grid: QGridLayout, row: int, probe: str, parent: QWidget) -> None:
        self.probe = probe
        self.name = QLabel(probe_name(probe), parent)
        self.bar = QProgressBar(parent)
        self.bar.setRange(0, 1000)
        self.bar.setFormat("%p%")
        self.bar.setFixedWidth(160)
        self.message = QLabel(parent)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        grid.addWidget(self.name, row, 0)
        grid.addWidget(self.bar, row, 1)
        grid.addWidget(self.message, row, 2)
        self.widgets = (self.name, self.bar, self.message)

    def set_message(self, text: str, severity: str = "") -> None:
        self.message.setText(text)
        set_severity(self.message, severity)


__all__ = ["STYLE", "ProgressRow", "fill_table", "make_table", "note_label", "probe_name",
           "set_severity", "translate"]
