"""The Rig page's rig picker: this machine or a demo rig (a named scenario, a catalog rig,
or one typed in), and Refresh."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from gpuadvisor.gui import data_words
from gpuadvisor.gui.widgets.fields import ElidingComboBox
from gpuadvisor.hardware import describe_scenarios

from .widgets import translate

#: Catalog rigs offered in the demo picker besides the named scenarios.
DEMO_CATALOG_RIGS = ("rtx-4090", "2x rtx-3090", "h100-sxm", "8x h100-sxm")


class DemoRigPicker(QWidget):
    """Demo rig: a list of rigs, a field to type one, and Refresh.

    Signals:
        picked(object): the user picked a rig: its spec (str), or None for this machine.
    """

    picked = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel(translate("RigPage", "Demo rig:"), self))
        self.demo_combo = ElidingComboBox(self)
        self.demo_combo.setObjectName("demoRig")
        self.demo_combo.setToolTip(translate(
            "RigPage", "Show a simulated rig instead of this machine (for demos on a laptop "
            "without a GPU)"))
        # Moderate in the bar (long scenario descriptions are clipped there), whole in the list.
        self.demo_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.demo_combo.setMinimumContentsLength(30)
        # The picked rig's description is what the audience reads: it takes the larger
        # share of the bar (at 1280 px "an RTX 3090 and an RTX 3060" lost its last card).
        self.demo_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        bar.addWidget(self.demo_combo, 3)
        self.spec_edit = QLineEdit(self)
        self.spec_edit.setObjectName("demoSpec")
        self.spec_edit.setPlaceholderText(translate("RigPage",
                                                    "or type a rig, e.g. 2x rtx-3090"))
        self.spec_edit.setToolTip(translate(
            "RigPage", "Catalog ids joined by +, each with an optional count: "
            "rtx-3090+rtx-3060-12gb, 4x a100-sxm-80gb"))
        self.spec_edit.setMinimumWidth(180)
        bar.addWidget(self.spec_edit, 2)
        self.refresh_button = QPushButton(translate("RigPage", "Refresh"), self)
        self.refresh_button.setToolTip(translate("RigPage", "Detect again"))
        bar.addWidget(self.refresh_button)
        self.demo_combo.activated.connect(self._on_demo_picked)
        self.spec_edit.returnPressed.connect(self._on_spec_entered)

    def fill(self, spec: str | None) -> None:
        """List this machine, the scenarios and the catalog rigs; select ``spec``."""
        combo = self.demo_combo
        combo.clear()
        combo.addItem(translate("RigPage", "This machine"), None)
        for name, description in describe_scenarios().items():
            combo.addItem(translate("RigPage", "Demo: {name} — {description}").format(
                name=name, description=data_words.scenario(name, description)), name)
        for rig in DEMO_CATALOG_RIGS:
            combo.addItem(translate("RigPage", "Demo: {spec}").format(spec=rig), rig)
        self.select(spec)
        view = combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 24)

    def select(self, spec: str | None) -> None:
        """Show ``spec`` as the rig picked (added to the list if it is not there)."""
        index = self.demo_combo.findData(spec)
        if index < 0 and spec is not None:
            self.demo_combo.addItem(translate("RigPage", "Demo: {spec}").format(spec=spec), spec)
            index = self.demo_combo.count() - 1
        self.demo_combo.setCurrentIndex(max(index, 0))

    def _on_demo_picked(self, index: int) -> None:
        self.spec_edit.clear()
        self.picked.emit(self.demo_combo.itemData(index))

    def _on_spec_entered(self) -> None:
        text = self.spec_edit.text().strip()
        if text:
            self.picked.emit(text)


__all__ = ["DEMO_CATALOG_RIGS", "DemoRigPicker"]
