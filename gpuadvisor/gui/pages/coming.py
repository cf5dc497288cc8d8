"""Pages whose issues have not landed yet (Compare): what each will do, and what works now."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget


class ComingPage(QWidget):
    """A page that says what it will show, and offers the way back to the Plan page."""

    go_to_plan = Signal()

    def __init__(self, title: str, summary: str, points: list[str], meanwhile: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("comingPage")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(48, 40, 48, 40)
        # A column of readable width; word-wrapped labels get their height from it.
        column = QWidget(self)
        column.setMaximumWidth(900)
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(14)
        self.title = QLabel(title, column)
        self.title.setProperty("role", "pageTitle")
        badge = QLabel(self.tr("Coming soon"), column)
        badge.setProperty("role", "badge")
        badge.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.summary = QLabel(summary, column)
        self.summary.setWordWrap(True)
        self.points = QLabel(
            "<ul>" + "".join(f"<li>{_esc(p)}</li>" for p in points) + "</ul>", column)
        self.points.setTextFormat(Qt.TextFormat.RichText)
        self.points.setWordWrap(True)
        self.meanwhile = QLabel(meanwhile, column)
        self.meanwhile.setWordWrap(True)
        self.meanwhile.setProperty("role", "note")
        self.button = QPushButton(self.tr("Go to the Plan page"), column)
        self.button.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.button.clicked.connect(self.go_to_plan)
        for widget in (self.title, badge, self.summary, self.points, self.meanwhile,
                       self.button):
            layout.addWidget(widget)
        outer.addWidget(column)
        outer.addStretch(1)

    def text(self) -> str:
        """Everything the page says, as plain text (for tests and the clipboard)."""
        return "\n".join(w.text() for w in (self.title, self.summary, self.points, self.meanwhile))


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Texts(QObject):
    """Holds the pages' texts so ``self.tr`` gives them one translation context."""

    def rig(self) -> tuple[str, str, list[str], str]:
        return (
            self.tr("Rig"),
            self.tr("What is in this machine, and what it can do on paper."),
            [
                self.tr("The GPUs detected (or a simulated demo rig): VRAM total and free, "
                        "driver and CUDA versions, compute capability."),
                self.tr("PCIe generation and width now vs the maximum, NVLink, power limit, "
                        "temperature, clocks and throttle reasons."),
                self.tr("The matching catalog entry and its theoretical peaks; one click "
                        "makes a detected GPU the Plan page's target."),
            ],
            self.tr("Meanwhile, pick your GPU from the catalog on the Plan page."),
        )

    def compare(self) -> tuple[str, str, list[str], str]:
        return (
            self.tr("Compare"),
            self.tr("Every way to run the plan: your rig, buying a GPU, renting, or the "
                    "cloud."),
            [
                self.tr("Time vs cost for every option (hover for details, click to "
                        "select), with the best ones highlighted."),
                self.tr("A table ranked by your goal: cheapest, fastest, or within a budget "
                        "or deadline; buy-vs-rent break-even."),
                self.tr("Exports: SkyPilot task YAML, accelerate/DeepSpeed config, and a "
                        "report."),
            ],
            self.tr("Meanwhile, try other GPUs and GPU counts on the Plan page."),
        )


def coming_pages(parent: QWidget | None = None) -> dict[str, ComingPage]:
    """The Rig and Compare placeholder pages, by name."""
    texts = _Texts()
    return {name: ComingPage(*getattr(texts, name)(), parent=parent)
            for name in ("rig", "compare")}
