"""The first-run panel: a strip over the pages after the first detection of the rig.

No GPU found (a laptop before a talk): it offers a demo rig, so the app shows what it does
with cards it can simulate. A GPU found: it points at the Probe page, so the estimates use
what this card really achieves. One click does it; the strip closes with Dismiss and comes
back from Help → Welcome.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


class FirstRunPanel(QFrame):
    """The strip (object name ``firstRunPanel``; hidden until :meth:`show_for`).

    Signals:
        demo_requested(): "Use a demo rig" was clicked.
        probe_requested(): "Open the Probe page" was clicked.

    Attributes:
        kind: ``"no-gpu"`` or ``"gpu"`` (what was last shown), or None.
        message, action_button, dismiss_button: the strip's parts.
    """

    demo_requested = Signal()
    probe_requested = Signal()

    #: The demo rig offered: a mixed RTX 3090 + 3060 rig (multi-GPU plans, two card sizes).
    DEMO_RIG = "mixed"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstRunPanel")
        self.kind: str | None = None
        self._presentation = False
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 8, 6)
        self.message = QLabel(self)
        self.message.setObjectName("firstRunMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.message, 1)
        self.action_button = QPushButton(self)
        self.action_button.setObjectName("firstRunAction")
        self.action_button.clicked.connect(self._act)
        row.addWidget(self.action_button)
        self.dismiss_button = QPushButton(translate("FirstRun", "Dismiss"), self)
        self.dismiss_button.setObjectName("firstRunDismiss")
        self.dismiss_button.setToolTip(translate(
            "FirstRun", "Hide these hints (Help → Welcome shows them again)"))
        self.dismiss_button.setAccessibleName(translate("FirstRun", "Dismiss the hints"))
        self.dismiss_button.clicked.connect(self.hide)
        row.addWidget(self.dismiss_button)
        self.setAccessibleName(translate("FirstRun", "First steps"))
        self.show_for([])  # texts from the start, shown when the rig is known
        self.kind = None
        self.hide()

    def show_for(self, gpus) -> None:
        """Show the hint for a rig of ``gpus`` (GpuInfo records): a demo rig when none is a
        training GPU, the Probe page otherwise."""
        cards = [g for g in gpus if getattr(g, "is_training_gpu", False)
                 and not getattr(g, "lost", False)]
        if not cards:
            self.kind = "no-gpu"
            self.message.setText(translate(
                "FirstRun", "No GPU was found in this machine. The estimates still work for "
                "any GPU in the catalog; to see the Rig, Probe and Compare pages with cards, "
                "use a demo rig (you can switch back to this machine on the Rig page)."))
            self.action_button.setText(translate("FirstRun", "Use a demo rig"))
            self.action_button.setToolTip(translate(
                "FirstRun", "Show a simulated RTX 3090 + RTX 3060 rig on every page"))
        else:
            self.kind = "gpu"
            names = translate("Lists", ", ").join(dict.fromkeys(g.name for g in cards))
            self.message.setText(translate(
                "FirstRun", "Found {count} GPU(s): {names}. Plans now target it. Measure it "
                "on the Probe page, so that times use what this card really achieves rather "
                "than its spec sheet.").format(count=len(cards), names=names))
            self.action_button.setText(translate("FirstRun", "Open the Probe page"))
            self.action_button.setToolTip(translate(
                "FirstRun", "Go to the Probe page to measure this GPU (about 15 to 30 s)"))
        self.action_button.setAccessibleName(self.action_button.text())
        self.action_button.setAccessibleDescription(self.action_button.toolTip())
        self.message.setAccessibleName(self.message.text())
        self.setVisible(not self._presentation)

    def set_presentation(self, enabled: bool) -> None:
        """On a projector the strip stays hidden (the room goes to the page)."""
        self._presentation = bool(enabled)
        if enabled:
            self.hide()

    def _act(self) -> None:
        kind = self.kind
        self.hide()
        if kind == "no-gpu":
            self.demo_requested.emit()
        elif kind == "gpu":
            self.probe_requested.emit()


__all__ = ["FirstRunPanel"]
