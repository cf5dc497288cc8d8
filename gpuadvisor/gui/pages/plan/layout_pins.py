"""The Plan page's parallel layout of a multi-GPU training plan: automatic (the fastest layout
that fits, its degrees shown read-only) or pinned (tensor, pipeline, virtual pipeline, context
and expert parallel degrees the user sets; the layout search chooses the rest).

:class:`LayoutPins` is a view: it shows the state's plan and estimate (:meth:`sync`, signals
blocked) and reports the user's edits as signals; the page sends them to the plan state
(``pin_layout``, ``pin_chosen_layout``, ``unpin_layout``).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.plan import LAYOUT_PINS
from gpuadvisor.gui.widgets.fields import ErrorLabel

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: Largest virtual-stage and context-parallel degrees offered (Megatron-LM runs use up to 4
#: and 8 of each; more only splits the work into pieces too small to keep a GPU busy).
MAX_VPP = 8
MAX_CP = 16


class DivisorSpinBox(QSpinBox):
    """A spin box whose arrows step through a set of allowed values (the divisors of the GPU
    count); typing any value in range is still possible (the state says why it is refused)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._allowed: list[int] = []

    def set_allowed(self, values: list[int]) -> None:
        """The values the arrows step through (sorted; the range spans them)."""
        self._allowed = sorted(set(values)) or [1]
        with QSignalBlocker(self):
            self.setRange(self._allowed[0], self._allowed[-1])

    def stepBy(self, steps: int) -> None:  # Qt's API
        if not self._allowed:
            super().stepBy(steps)
            return
        value = self.value()
        if steps > 0:
            above = [v for v in self._allowed if v > value]
            target = above[min(steps, len(above)) - 1] if above else value
        else:
            below = [v for v in self._allowed if v < value]
            target = below[-min(-steps, len(below))] if below else value
        self.setValue(target)

    def stepEnabled(self) -> QSpinBox.StepEnabledFlag:  # Qt's API
        if not self._allowed:
            return super().stepEnabled()
        flags = QSpinBox.StepEnabledFlag.StepNone
        if self.value() > self._allowed[0]:
            flags |= QSpinBox.StepEnabledFlag.StepDownEnabled
        if self.value() < self._allowed[-1]:
            flags |= QSpinBox.StepEnabledFlag.StepUpEnabled
        return flags


def divisors(n: int, limit: int | None = None) -> list[int]:
    """The divisors of ``n`` up to ``limit`` (all of them without one)."""
    top = n if limit is None else min(n, limit)
    return [d for d in range(1, max(1, top) + 1) if n % d == 0]


class LayoutPins(QWidget):
    """Mode (automatic or pinned), the five degrees, the data-parallel degree that is left,
    "Pin this layout" and the error under them (object name ``layoutPins``).

    Signals:
        mode_picked(str): ``"auto"`` or ``"pinned"``.
        degree_edited(str, int): a degree (``tp``, ...) set to a value.
        pin_clicked(): pin the layout the search chose.
    """

    mode_picked = Signal(str)
    degree_edited = Signal(str, int)
    pin_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("layoutPins")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        # The mode picker is a row of the page's GPU form (aligned with its labels); the
        # page adds it there with :attr:`mode_label`.
        self.mode_combo = QComboBox(parent)
        self.mode_combo.setObjectName("layoutMode")
        self.mode_combo.addItem(translate("PlanPage", "Auto (fastest that fits)"), "auto")
        self.mode_combo.addItem(translate("PlanPage", "Pinned"), "pinned")
        self.mode_combo.setToolTip(translate(
            "PlanPage", "How the GPUs split the job: automatically (the fastest layout that "
            "fits their memory, holding the global batch) or pinned to the degrees below "
            "(those left free are searched)"))
        self.mode_combo.setAccessibleName(translate("PlanPage", "Parallel layout"))
        self.mode_combo.activated.connect(
            lambda _i: self.mode_picked.emit(self.mode_combo.currentData()))
        self.mode_label = QLabel(translate("PlanPage", "Layout"), parent)
        self.mode_label.setBuddy(self.mode_combo)

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        self.spins: dict[str, QSpinBox] = {}
        tips = {
            "tp": translate("PlanPage", "Tensor parallel: GPUs that split every layer's "
                            "matrices (within a node); less memory per GPU, more traffic"),
            "pp": translate("PlanPage", "Pipeline parallel: stages of consecutive layers; "
                            "less memory per GPU, an idle bubble at each step"),
            "vpp": translate("PlanPage", "Virtual pipeline stages per GPU (interleaved "
                             "1F1B): a smaller bubble, more messages; needs PP of 2 or more"),
            "cp": translate("PlanPage", "Context parallel: GPUs that split each sequence "
                            "(long sequences)"),
            "ep": translate("PlanPage", "Expert parallel: GPUs that split a mixture of "
                            "experts' experts (MoE models only)"),
        }
        names = {"tp": translate("PlanPage", "Tensor parallel (TP)"),
                 "pp": translate("PlanPage", "Pipeline parallel (PP)"),
                 "vpp": translate("PlanPage", "Virtual pipeline stages (VPP)"),
                 "cp": translate("PlanPage", "Context parallel (CP)"),
                 "ep": translate("PlanPage", "Expert parallel (EP)")}
        for index, name in enumerate(LAYOUT_PINS):
            spin = DivisorSpinBox(self) if name != "vpp" else QSpinBox(self)
            spin.setObjectName(f"layout_{name}")
            spin.setKeyboardTracking(False)
            spin.setRange(1, MAX_VPP if name == "vpp" else 1)
            spin.setToolTip(tips[name])
            spin.setAccessibleName(names[name])
            spin.valueChanged.connect(lambda v, n=name: self.degree_edited.emit(n, int(v)))
            label = QLabel(name.upper(), self)
            label.setBuddy(spin)
            row, col = divmod(index, 3)
            grid.addWidget(label, row, 2 * col)
            grid.addWidget(spin, row, 2 * col + 1)
            self.spins[name] = spin
        self.dp_label = QLabel(self)
        self.dp_label.setObjectName("layoutDp")
        self.dp_label.setToolTip(translate("PlanPage", "Data-parallel replicas: the GPUs "
                                           "left, n ÷ (TP × PP × CP)"))
        grid.addWidget(self.dp_label, 1, 4, 1, 2)
        for col in (1, 3, 5):
            grid.setColumnStretch(col, 1)
        box.addLayout(grid)

        row = QHBoxLayout()
        self.pin_button = QPushButton(translate("PlanPage", "Pin this layout"), self)
        self.pin_button.setObjectName("pinLayout")
        self.pin_button.setToolTip(translate(
            "PlanPage", "Keep the layout the search chose (its TP, PP, VPP, CP and EP) while "
            "you change the rest of the plan"))
        self.pin_button.setAccessibleName(translate("PlanPage", "Pin this layout"))
        self.pin_button.clicked.connect(self.pin_clicked.emit)
        row.addWidget(self.pin_button)
        row.addStretch(1)
        box.addLayout(row)
        self.note = QLabel(self)
        self.note.setObjectName("layoutNote")
        self.note.setWordWrap(True)
        self.note.setProperty("role", "note")
        box.addWidget(self.note)
        self.error = ErrorLabel(self)
        self.error.setObjectName("layoutError")
        box.addWidget(self.error)

    # ------------------------------------------------------------------ state -> view
    def sync(self, plan, model, estimate) -> None:
        """Show the plan's pins, or the chosen layout's degrees read-only (signals blocked);
        hidden unless the plan trains on several GPUs."""
        from gpuadvisor.core.resolve import layout_applies

        shown = plan.is_training and plan.n_gpus > 1
        for widget in (self, self.mode_combo, self.mode_label):
            if widget.isHidden() == shown:
                widget.setVisible(shown)
        if not shown:
            return
        applies = layout_applies(model, plan) is None
        pins = plan.layout_pins
        pinned = bool(pins)
        layout = getattr(estimate, "layout", None)
        chosen = layout.chosen.layout if layout is not None else None
        with QSignalBlocker(self.mode_combo):
            self.mode_combo.setCurrentIndex(1 if pinned else 0)
        self.mode_combo.setEnabled(applies and (pinned or chosen is not None))
        n = plan.n_gpus
        experts = int(getattr(model, "n_experts", 1) or 1)
        allowed = {"tp": divisors(n, 64), "pp": divisors(n, max(1, model.n_layers)),
                   "cp": divisors(n, MAX_CP), "ep": divisors(n) if experts > 1 else [1]}
        values = {}
        for name, spin in self.spins.items():
            value = pins.get(name) or (getattr(chosen, name) if chosen is not None else 1)
            values[name] = value
            with QSignalBlocker(spin):
                if isinstance(spin, DivisorSpinBox):
                    spin.set_allowed([*allowed[name], value])
                spin.setValue(value)
        editable = pinned and applies
        for name, spin in self.spins.items():
            on = editable
            if name == "ep":
                on = on and experts > 1
            if name == "vpp":
                on = on and values["pp"] > 1
            spin.setEnabled(on)
        dp = chosen.dp if chosen is not None else max(
            1, n // (values["tp"] * values["pp"] * values["cp"]))
        self.dp_label.setText(translate("PlanPage", "DP {dp}").format(dp=dp))
        self.pin_button.setVisible(not pinned)
        self.pin_button.setEnabled(applies and chosen is not None)
        if not applies:
            note = translate("PlanPage", "Timed without a layout: CPU offload, a set "
                             "efficiency or a model without layers")
        elif pinned:
            note = translate("PlanPage", "Degrees set here are kept; the search picks the "
                             "rest, the ZeRO stage and the micro-batches")
        else:
            note = translate("PlanPage", "Chosen by the search (shown, not set)")
        if self.note.text() != note:
            self.note.setText(note)


def mark_time_layout(time_panel, estimate) -> None:
    """Say in the Time panel whether its layout is the user's (pinned) or the search's."""
    if getattr(estimate, "layout", None) is None:
        return
    word = (translate("PlanPage", "Pinned:") if estimate.plan.layout_pins
            else translate("PlanPage", "Chosen:"))
    label = time_panel.layout_text
    label.setText(f"<b>{html.escape(word)}</b> {label.text()}")


__all__ = ["DivisorSpinBox", "LayoutPins", "divisors", "mark_time_layout"]
