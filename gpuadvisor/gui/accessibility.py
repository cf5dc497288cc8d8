"""Every input of the window says what it is and what it changes: a tooltip, an accessible name
(what a screen reader reads) and an accessible description.

:func:`describe_inputs` walks a widget tree once its pages are built. An input without a
tooltip gets the one :mod:`gpuadvisor.gui.help_texts` has for its object name (or for the
composite input it belongs to, such as the sequence length's spin box and slider). Its name
comes from its label: the row label of a form, a label just before it in a row, a buddy
label, else its own text or placeholder. The description is the tooltip. What the code set
itself is never replaced. Charts describe their data themselves (``ChartBase.describe``).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QBoxLayout,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QScrollBar,
    QTabBar,
    QWidget,
)

from . import help_texts

#: What counts as an input: anything a user sets, presses or picks from.
INPUT_TYPES = (QAbstractSpinBox, QComboBox, QLineEdit, QAbstractButton, QAbstractSlider,
               QAbstractItemView)
#: Inputs that are parts of another one (a spin box's line edit, a combo box's list, a line
#: edit's clear button, a tab bar's scroll arrows): the outer input speaks for them.
_OUTER_TYPES = (QAbstractSpinBox, QComboBox, QTabBar, QAbstractItemView, QLineEdit)


def is_part(widget: QWidget) -> bool:
    """Whether ``widget`` is an internal part of another input (or Qt's own machinery)."""
    if isinstance(widget, QScrollBar) or widget.objectName().startswith("qt_"):
        return True
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, _OUTER_TYPES):
            return True
        if parent.isWindow():
            break
        parent = parent.parentWidget()
    return False


def inputs_of(root: QWidget) -> list[QWidget]:
    """The inputs under ``root`` (parts of other inputs, and the lists that pop up from
    pickers, which are windows of their own, left out)."""
    window = root.window()
    return [w for w in root.findChildren(QWidget)
            if isinstance(w, INPUT_TYPES) and w.window() is window and not is_part(w)]


def _plain(text: str) -> str:
    """A label's text as a name: no accelerator ``&``, no trailing colon or ellipsis."""
    text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return text.strip().rstrip(":：").rstrip("…").rstrip(".").strip()


def _form_label(widget: QWidget) -> str:
    """The row label of the form ``widget`` (or a container it is part of) sits in."""
    current = widget
    for _ in range(3):
        parent = current.parentWidget()
        if parent is None:
            return ""
        layout = parent.layout()
        if isinstance(layout, QFormLayout):
            label = layout.labelForField(current)
            if isinstance(label, QLabel) and label.text().strip():
                return _plain(label.text())
        current = parent
    return ""


def _label_before(widget: QWidget) -> str:
    """The text of a label just before ``widget`` in its row ("Device:" [combo])."""
    parent = widget.parentWidget()
    if parent is None:
        return ""
    layouts = [parent.layout(), *(parent.layout().findChildren(QBoxLayout)
                                  if parent.layout() is not None else [])]
    for layout in layouts:
        if layout is None:
            continue
        index = layout.indexOf(widget)
        if index > 0:
            before = layout.itemAt(index - 1).widget()
            if isinstance(before, QLabel) and before.text().strip():
                return _plain(before.text())
    return ""


def _buddy_label(widget: QWidget) -> str:
    window = widget.window()
    for label in window.findChildren(QLabel):
        if label.buddy() is widget and label.text().strip():
            return _plain(label.text())
    return ""


def _tip_for(widget: QWidget) -> str | None:
    current = widget
    for _ in range(3):  # the input, or the composite input it is part of
        text = help_texts.tip(current.objectName()) if current.objectName() else None
        if text:
            return text
        current = current.parentWidget()
        if current is None:
            break
    return None


def accessible_name_for(widget: QWidget) -> str:
    """The name a screen reader should read for ``widget``."""
    for find in (_form_label, _label_before, _buddy_label):
        name = find(widget)
        if name:
            return name
    if isinstance(widget, QAbstractButton) and widget.text().strip():
        return _plain(widget.text())
    if isinstance(widget, QLineEdit) and widget.placeholderText():
        return _plain(widget.placeholderText())
    if isinstance(widget, QComboBox) and widget.isEditable() and widget.lineEdit() \
            and widget.lineEdit().placeholderText():
        return _plain(widget.lineEdit().placeholderText())
    name = widget.objectName()
    if name and help_texts.FIELD_NAMES.get(name):
        return help_texts.field_name(name)
    tip = widget.toolTip()
    return _plain(tip.split("\n")[0].split(". ")[0]) if tip else ""


def describe_inputs(root: QWidget) -> int:
    """Give every input under ``root`` a tooltip, an accessible name and description where
    it has none; returns how many inputs were looked at."""
    inputs = inputs_of(root)
    for widget in inputs:
        if not widget.toolTip():
            text = _tip_for(widget)
            if text:
                widget.setToolTip(text)
        if not widget.accessibleName():
            name = accessible_name_for(widget)
            if name:
                widget.setAccessibleName(name)
        if not widget.accessibleDescription() and widget.toolTip():
            widget.setAccessibleDescription(widget.toolTip())
    return len(inputs)


def undescribed(root: QWidget) -> list[str]:
    """Inputs under ``root`` without a tooltip or an accessible name (for tests), each as
    ``"Class 'objectName' (what is missing)"``."""
    missing = []
    for widget in inputs_of(root):
        lacks = [what for what, value in (("tooltip", widget.toolTip()),
                                          ("name", widget.accessibleName())) if not value]
        if lacks:
            missing.append(f"{type(widget).__name__} {widget.objectName()!r} "
                           f"{getattr(widget, 'text', lambda: '')()!r} ({', '.join(lacks)})")
    return missing


__all__ = ["INPUT_TYPES", "accessible_name_for", "describe_inputs", "inputs_of", "is_part",
           "undescribed"]
