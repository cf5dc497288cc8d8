"""Small widgets and helpers of the Rig page: its style sheet and (name, value) grids."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGridLayout, QLabel

from gpuadvisor.gui.widgets.wrap import NBSP, WORD_JOINER, keep_units, plain

#: Under this name lupdate finds the literal (context, text) calls of the page's regions.
translate = QCoreApplication.translate

#: The page's own style: none; its colours (severities, badges, tiles) are in the window's
#: style sheet, in the palette's colours (``gui/widgets/theme.py``).
STYLE = ""

def fill_grid(grid: QGridLayout, labels: list[tuple[QLabel, QLabel]], rows, parent,
              columns: int = 1) -> list[tuple[QLabel, QLabel]]:
    """Set ``rows`` into (name, value) label pairs laid out in ``columns`` pairs per line."""
    while len(labels) < len(rows):
        name, value = QLabel(parent), QLabel(parent)
        name.setProperty("role", "fieldName")
        name.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        value.setWordWrap(True)
        value.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        k = len(labels)
        # Name and value on one baseline: a name mixing scripts ("驱动 / CUDA") has a
        # taller line than its value, and top alignment set it lower than the value.
        grid.addWidget(name, k // columns, 2 * (k % columns), Qt.AlignmentFlag.AlignBaseline)
        grid.addWidget(value, k // columns, 2 * (k % columns) + 1,
                       Qt.AlignmentFlag.AlignBaseline)
        labels.append((name, value))
    for (name, value), (label, text) in zip(labels, rows, strict=False):
        name.setText(label)
        value.setText(keep_units(text))
        name.setVisible(True)
        value.setVisible(True)
    for name, value in labels[len(rows):]:  # fewer rows than before: their lines close up
        name.setVisible(False)
        value.setVisible(False)
    return labels


def pair_text(name: QLabel, value: QLabel) -> str:
    """``name: value`` of a (name, value) pair, in plain spaces (:func:`plain`)."""
    return f"{name.text()}: {plain(value.text())}"


__all__ = ["NBSP", "STYLE", "WORD_JOINER", "fill_grid", "keep_units", "pair_text", "plain",
           "translate"]
