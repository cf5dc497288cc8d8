"""Small widgets and helpers of the Rig page: its style sheet and (name, value) grids."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGridLayout, QLabel

#: Under this name lupdate finds the literal (context, text) calls of the page's regions.
translate = QCoreApplication.translate

#: The page's own style: none; its colours (severities, badges, tiles) are in the window's
#: style sheet, in the palette's colours (``gui/widgets/theme.py``).
STYLE = ""

#: U+00A0, a space no line breaks at; U+2060, a joiner that keeps "GB/s" and "n/a" whole
#: (a line may break after a slash).
NBSP, WORD_JOINER = "\u00a0", "\u2060"
#: A number and the unit after it: "936 GB/s", "90 °C", "23.5 GiB", "350 W", "3 %".
_NUMBER_UNIT = re.compile(
    r"(?<=\d) (?=(?:[KMGTP]i?B|kB|B|W|°C|°F|[kMG]?Hz|%|TFLOPS|ms|s|h|min|V|RPM|rpm)"
    r"(?![A-Za-z]))")
#: A short word, a slash and a short word, with no space: "GB/s", "n/a" (not a path).
_SHORT_SLASH = re.compile(r"(?<![\w/])(\w{1,3})/(\w{1,3})(?![\w/])")


def keep_units(text: str) -> str:
    """``text`` for a word-wrapped label: a number stays on the line of its unit and
    "GB/s" and "n/a" stay whole (at 1280 px a tile read "936 GB/" / "s", "(default 350" /
    "W)", "n/" / "a)"). Display only: :func:`plain` gives the text back."""
    text = _NUMBER_UNIT.sub(NBSP, text)
    return _SHORT_SLASH.sub(rf"\1/{WORD_JOINER}\2", text)


def plain(text: str) -> str:
    """A label's text as :func:`keep_units` had it: plain spaces, no joiners."""
    return text.replace(NBSP, " ").replace(WORD_JOINER, "")


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
    return labels


def pair_text(name: QLabel, value: QLabel) -> str:
    """``name: value`` of a (name, value) pair, in plain spaces (:func:`plain`)."""
    return f"{name.text()}: {plain(value.text())}"


__all__ = ["NBSP", "STYLE", "WORD_JOINER", "fill_grid", "keep_units", "pair_text", "plain",
           "translate"]
