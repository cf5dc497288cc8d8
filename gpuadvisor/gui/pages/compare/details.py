"""The Compare page's side of the chart: the selected option in detail and the export
buttons; and owning against renting (chart and sentence) as a box the page shows in a tab
beside the time-cost chart. The page fills them and connects the buttons."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QMenu,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .token_charts import TokensBreakEvenChart

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: Export kinds of the buttons, in order.
EXPORT_KINDS = ("skypilot", "accelerate", "deepspeed", "launch", "megatron", "report")


def fit_label_height(label: QLabel) -> None:
    """Reserve the height a word-wrapped label needs at its width (a layout gives it one
    line otherwise, and the next widget covers the rest)."""
    width = label.width() if label.width() > 50 else 400
    label.setMinimumHeight(max(label.heightForWidth(width), label.fontMetrics().height()))


class DetailsPanel(QWidget):
    """Details, break-even and exports of the selected option.

    Attributes:
        details: the selected option in words (rich text, links open in the browser).
        break_even_chart: cumulative cost of owning and renting by jobs.
        break_even_label: when owning pays off, in words.
        export_button: "Export the selected option" with a menu of the exports.
        export_buttons: export kind -> the menu's action.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        # The details scroll when long (a price's notes), so the chart keeps its room.
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumHeight(70)
        self.details = QLabel(scroll)
        self.details.setObjectName("compareDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setOpenExternalLinks(True)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        scroll.setWidget(self.details)
        self.break_even_chart = TokensBreakEvenChart(self)
        self.break_even_chart.setMinimumHeight(120)
        # Which pair the break-even weighs (the selection decides), in words.
        self.break_even_title = QLabel(self)
        self.break_even_title.setObjectName("breakEvenTitle")
        self.break_even_title.setProperty("role", "subheading")
        self.break_even_title.setWordWrap(True)
        # The break-even (its title, chart and sentence) is a box of its own: the page
        # shows it in a tab beside the time-cost chart, where it has the chart's height.
        self.break_even_box = QWidget()
        self.break_even_box.setObjectName("breakEvenBox")
        box_layout = QVBoxLayout(self.break_even_box)
        box_layout.setContentsMargins(0, 4, 0, 0)
        box_layout.setSpacing(2)
        box_layout.addWidget(self.break_even_title)
        self.break_even_chart.setParent(self.break_even_box)
        box_layout.addWidget(self.break_even_chart, 1)
        self.break_even_label = QLabel(self.break_even_box)
        self.break_even_label.setWordWrap(True)
        box_layout.addWidget(self.break_even_label)
        layout.addWidget(scroll, 1)
        layout.addWidget(self._build_exports(), 0, Qt.AlignmentFlag.AlignLeft)

    def _build_exports(self) -> QToolButton:
        # One button and a menu: five buttons take two rows the chart needs on a laptop.
        self.export_button = QToolButton(self)
        self.export_button.setObjectName("exportButton")
        self.export_button.setToolTip(translate(
            "ComparePage", "Write the selected option as a SkyPilot task, an accelerate or "
            "DeepSpeed config, a launch script, a Megatron-LM launch or a report"))
        self.export_button.setText(translate("ComparePage", "Export the selected option"))
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        menu = QMenu(self.export_button)
        self.export_button.setMenu(menu)
        texts = {"skypilot": translate("ComparePage", "SkyPilot task…"),
                 "accelerate": translate("ComparePage", "accelerate config…"),
                 "deepspeed": translate("ComparePage", "DeepSpeed config…"),
                 "launch": translate("ComparePage", "Launch script…"),
                 "megatron": translate("ComparePage", "Megatron-LM launch…"),
                 "report": translate("ComparePage", "Report…")}
        tips = {"skypilot": translate("ComparePage", "A SkyPilot task YAML that rents this "
                                      "option (rent and cloud options)"),
                "accelerate": translate("ComparePage", "A Hugging Face accelerate config for "
                                        "this plan"),
                "deepspeed": translate("ComparePage", "A DeepSpeed ZeRO config for this plan"),
                "launch": translate("ComparePage", "The torchrun line that starts the "
                                    "training"),
                "megatron": translate("ComparePage", "Megatron-LM's training script with "
                                      "this estimate's layout: tensor and pipeline "
                                      "parallelism as priced (full fine-tunes and "
                                      "pre-training)"),
                "report": translate("ComparePage", "The plan, the options and these charts as "
                                    "one HTML file (or Markdown: end the name with .md)")}
        self.export_buttons: dict[str, QAction] = {}
        for kind in EXPORT_KINDS:
            action = QAction(texts[kind], menu)
            action.setToolTip(tips[kind])
            action.setStatusTip(tips[kind])
            menu.addAction(action)
            self.export_buttons[kind] = action
        menu.setToolTipsVisible(True)
        return self.export_button

    def enable_exports(self, kind: str | None) -> None:
        """Enable the exports an option of ``kind`` has (None: nothing selected): a SkyPilot
        task only rents, so it needs a rent or cloud option."""
        for export, button in self.export_buttons.items():
            button.setEnabled(kind is not None and (
                export != "skypilot" or kind in ("rent", "cloud")))
        self.export_button.setEnabled(kind is not None)

    def show_nothing(self) -> None:
        """Nothing selected: say how to select, clear the break-even."""
        self.details.setText(translate("ComparePage",
                                       "Select an option in the chart or the table."))
        self.break_even_chart.clear()
        self.break_even_label.setText("")
        self.break_even_title.setText("")

    def show_no_break_even(self, note: str, text: str) -> None:
        """No card and rental to compare: ``note`` on the chart, ``text`` under it."""
        self.break_even_chart.clear(note)
        self.break_even_label.setText(text)

    def show_break_even_text(self, text: str) -> None:
        """The break-even sentence under the chart (its layout gives it the height its
        width needs)."""
        self.break_even_label.setText(text)


__all__ = ["EXPORT_KINDS", "DetailsPanel", "fit_label_height"]
