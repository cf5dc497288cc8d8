"""The Compare page's layout: its regions built and placed, and how they move on a projector
(the inputs fold into a line, the selected option's details go to a tab beside the table,
and the charts take the whole width). The time-cost chart and the break-even are tabs of
one place, so each has the whole chart height."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
)

from . import format as fmt
from .answer import AnswerBanner
from .constraints import ConstraintsBox
from .details import DetailsPanel
from .table import OptionsPanel
from .token_charts import OptionsChart

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

def build_page(page) -> None:
    """Lay the page out (its widgets become its attributes, as the page documents)."""
    outer = QVBoxLayout(page)
    outer.setContentsMargins(16, 12, 16, 8)
    outer.setSpacing(8)

    head = QHBoxLayout()
    title = QLabel(translate("ComparePage", "Compare"), page)
    title.setProperty("role", "pageTitle")
    page.plan_label = QLabel(page)
    page.plan_label.setWordWrap(True)
    page.plan_button = QPushButton(translate("ComparePage", "Change the plan"), page)
    page.plan_button.setToolTip(translate("ComparePage", "Go to the Plan page: every option "
                                          "here is timed and priced for that plan"))
    head.addWidget(title)
    head.addSpacing(12)
    head.addWidget(page.plan_label, 1)
    head.addWidget(page.plan_button)
    outer.addLayout(head)

    page.constraints = ConstraintsBox(page.settings.currency, page)
    page.power_spin = page.constraints.power_spin
    outer.addWidget(page.constraints)

    page.answer = AnswerBanner(page)
    outer.addWidget(page.answer)
    # A card of the rig fell off the bus: the rig compared is the one present now.
    page.rig_note = QLabel(page)
    page.rig_note.setObjectName("compareRigNote")
    page.rig_note.setProperty("role", "warning")
    page.rig_note.setWordWrap(True)
    page.rig_note.hide()
    outer.addWidget(page.rig_note)

    page.splitter = split = QSplitter(Qt.Orientation.Vertical, page)
    split.setChildrenCollapsible(False)
    top = QSplitter(Qt.Orientation.Horizontal, split)
    top.setChildrenCollapsible(False)
    # The time-cost chart and the break-even share one place, as tabs: each gets the
    # whole chart height (on a laptop the break-even under the details had a third of it).
    page.chart_tabs = QTabWidget(top)
    page.chart_tabs.setObjectName("compareChartTabs")
    page.chart_tabs.setDocumentMode(True)
    page.scatter = OptionsChart(page.chart_tabs)
    page.scatter.setMinimumSize(300, 180)
    page.chart_tabs.addTab(page.scatter, translate("ComparePage", "Time and cost"))
    page.side = DetailsPanel()
    page.chart_tabs.addTab(page.side.break_even_box,
                           translate("ComparePage", "Owning against renting"))
    top.addWidget(page.chart_tabs)
    page.details = page.side.details
    page.break_even_chart = page.side.break_even_chart
    page.break_even_label = page.side.break_even_label
    page.export_buttons = page.side.export_buttons
    # The details scroll where the page is short: the chart keeps its room.
    side = QScrollArea(top)
    side.setWidgetResizable(True)
    side.setFrameShape(QFrame.Shape.NoFrame)
    side.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    side.setWidget(page.side)
    side.setMinimumWidth(260)
    page.side_scroll, page.top = side, top
    top.addWidget(side)
    top.setStretchFactor(0, 3)
    top.setStretchFactor(1, 2)
    split.addWidget(top)
    # The table below; on a projector the selected option's details and break-even
    # are a second tab there, and the chart takes the whole width.
    page.bottom_tabs = QTabWidget(split)
    page.bottom_tabs.setTabBarAutoHide(True)
    page.bottom_tabs.setDocumentMode(True)
    page.options = OptionsPanel()
    page.table, page.model, page.proxy = (page.options.table, page.options.model,
                                          page.options.proxy)
    page._fill_filter_choices()
    page.bottom_tabs.addTab(page.options, translate("ComparePage", "Options"))
    split.addWidget(page.bottom_tabs)
    split.setStretchFactor(0, 1)
    split.setStretchFactor(1, 1)
    outer.addWidget(split, 1)


def arrange(page, enabled: bool) -> None:
    """Large fonts and thick lines in the charts, which get most of the height."""
    page.scatter.set_presentation(enabled)
    page.break_even_chart.set_presentation(enabled)
    page._presentation = enabled
    # On a projector: the answer, the chart and the top of the table; the filters keep
    # their values, out of sight.
    page.options.filter_bar.setVisible(not enabled)
    page.constraints.setTitle("" if enabled else translate("ComparePage", "What matters to you"))
    page.constraints.set_foldable(enabled)
    # On a projector the table and the selected option become tabs beside the charts:
    # each then has the whole height (a laptop's 768 pixels hold a readable chart or
    # a dozen rows of the table at a projector's font, not both).
    side, tabs = page.side_scroll, page.chart_tabs
    if enabled and tabs.indexOf(page.options) < 0:
        page.bottom_tabs.removeTab(page.bottom_tabs.indexOf(page.options))
        tabs.addTab(page.options, translate("ComparePage", "Options"))
        tabs.addTab(side, translate("ComparePage", "Selected option"))
        page.bottom_tabs.hide()
    elif not enabled and tabs.indexOf(page.options) >= 0:
        if tabs.currentIndex() > 1:
            tabs.setCurrentIndex(0)
        tabs.removeTab(tabs.indexOf(side))
        tabs.removeTab(tabs.indexOf(page.options))
        page.bottom_tabs.addTab(page.options, translate("ComparePage", "Options"))
        page.bottom_tabs.show()
        page.top.insertWidget(1, side)
        side.show()
    page.plan_label.setText(fmt.plan_heading(page.state.plan, page.state.model,
                                             short=enabled))
    page._share_height()


def share_height(page) -> None:
    """Charts above, table below: half each on the desktop; on a projector the table is a
    tab beside the charts, which take the whole height."""
    total = sum(page.splitter.sizes()) or 900
    bottom = 0 if page._presentation else total // 2  # on a projector: tabs, see arrange
    page.splitter.setSizes([total - bottom, bottom])
    if page.top.count() > 1:  # the charts and the selected option's details: 3 to 2
        width = sum(page.top.sizes()) or 1000
        page.top.setSizes([width * 3 // 5, width - width * 3 // 5])


__all__ = ["arrange", "build_page", "share_height"]
