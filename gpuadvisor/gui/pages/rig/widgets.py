"""Small widgets and helpers of the Rig page: its style sheet and (name, value) grids."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGridLayout, QLabel

#: Under this name lupdate finds the literal (context, text) calls of the page's regions.
translate = QCoreApplication.translate

STYLE = """
QLabel[severity="error"] { color: #B3261E; font-weight: bold; }
QLabel[severity="warning"] { color: #8A4B00; }
QLabel[role="lostBadge"] { background: #D55E00; color: #FFFFFF; padding: 1px 8px;
    border-radius: 3px; font-weight: bold; }
QLabel[role="fieldName"] { color: #555555; }
QFrame#gpuTile { border: 1px solid #B0B0B0; border-radius: 4px; }
"""


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
        grid.addWidget(name, k // columns, 2 * (k % columns))
        grid.addWidget(value, k // columns, 2 * (k % columns) + 1)
        labels.append((name, value))
    for (name, value), (label, text) in zip(labels, rows, strict=False):
        name.setText(label)
        value.setText(text)
    return labels


__all__ = ["STYLE", "fill_grid", "translate"]
