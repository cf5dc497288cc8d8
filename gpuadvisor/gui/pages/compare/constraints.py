"""The Compare page's "What matters to you" box: goal, budget, deadline, cards to buy at
most, electricity price, currency and exchange rate. The page connects its widgets."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.token_costs import DEFAULT_LIFETIME_HOURS, DEFAULT_UTILIZATION
from gpuadvisor.core.units import CURRENCY_SYMBOLS
from gpuadvisor.gui.widgets.flow import FlowLayout
from gpuadvisor.workspace.settings import CURRENCIES, Settings

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


class ConstraintsBox(QGroupBox):
    """The user's goal and limits, and the money settings they are read in.

    Attributes:
        goal_combo: ``cheapest`` or ``fastest`` (item data).
        budget_spin: the budget in the display currency (0: no limit).
        deadline_spin: the deadline in hours (0: no limit).
        cards_spin: most cards to buy.
        power_spin: electricity per kWh in the display currency.
        currency_combo: the display currency (item data: its code).
        rate_spin, rate_label: units of the display currency per US dollar (hidden for USD).
        changes_check: "Allow changes to the plan": off, options that fit only with a lever
            (LoRA instead of a full fine-tune, ...) are ranked apart and never named best.
        utilization_spin: inference plans: percent of rented hours spent generating.
        lifetime_spin: inference plans: hours a card serves (its price is spread over them).
        pairs: field name -> the label-and-field item of the flow (shown or hidden by the
            kind of plan: a job's budget and deadline, or the per-token inputs).
    """

    def __init__(self, currency: str, parent: QWidget | None = None) -> None:
        super().__init__(translate("ComparePage", "What matters to you"), parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        # Folded (a projector): one line that says what the ranking uses; a click unfolds it.
        self.fold_button = QToolButton(self)
        self.fold_button.setObjectName("constraintsFold")
        self.fold_button.setToolTip(translate("ComparePage", "Show or hide what the ranking "
                                              "uses: goal, budget, deadline, prices"))
        self.fold_button.setCheckable(True)
        self.fold_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.fold_button.setAutoRaise(True)
        self.fold_button.toggled.connect(self._on_fold_toggled)
        self.fold_button.hide()
        outer.addWidget(self.fold_button)
        self.fields = QWidget(self)
        outer.addWidget(self.fields)
        # Label beside each field, the pairs wrapping onto a second line where the window is
        # narrow (a laptop in presentation mode): never wider than the window.
        flow = FlowLayout(self.fields, spacing=16, line_spacing=4)
        flow.setContentsMargins(8, 4, 8, 4)
        self.goal_combo = QComboBox(self)
        self.goal_combo.setToolTip(translate("ComparePage", "Rank the options cheapest first "
                                             "or fastest first"))
        for goal, text in (("cheapest", translate("ComparePage", "Cheapest")),
                           ("fastest", translate("ComparePage", "Fastest"))):
            self.goal_combo.addItem(text, goal)

        self.budget_spin = QDoubleSpinBox(self)
        self.budget_spin.setRange(0.0, 1e9)
        self.budget_spin.setDecimals(0)
        self.budget_spin.setSingleStep(10.0)
        self.budget_spin.setSpecialValueText(translate("ComparePage", "no limit"))
        self.budget_spin.setToolTip(translate("ComparePage", "Most you want to spend on this "
                                              "job, in your currency (0: no limit)"))

        self.deadline_spin = QDoubleSpinBox(self)
        self.deadline_spin.setRange(0.0, 1e6)
        self.deadline_spin.setDecimals(1)
        self.deadline_spin.setSuffix(translate("ComparePage", " h"))
        self.deadline_spin.setSpecialValueText(translate("ComparePage", "no limit"))
        self.deadline_spin.setToolTip(translate("ComparePage", "Wall-clock hours the job may "
                                                "take (0: no limit)"))

        self.cards_spin = QSpinBox(self)
        self.cards_spin.setRange(1, 8)
        self.cards_spin.setValue(4)
        self.cards_spin.setToolTip(translate("ComparePage", "Most cards you would buy (1, 2, 4 "
                                             "or 8 are tried)"))

        self.power_spin = QDoubleSpinBox(self)
        self.power_spin.setRange(0.0, 1000.0)
        self.power_spin.setDecimals(3)
        self.power_spin.setSingleStep(0.01)
        self.power_spin.setToolTip(translate("ComparePage", "Your electricity price per kWh, "
                                             "in your currency: it prices running your rig or "
                                             "a bought card"))

        self.currency_combo = QComboBox(self)
        self.currency_combo.setToolTip(translate("ComparePage", "The currency every price "
                                                 "is shown in (at the exchange rate you set)"))
        for code in CURRENCIES:
            self.currency_combo.addItem(code, code)
        self.currency_combo.setCurrentIndex(CURRENCIES.index(currency))
        self.rate_spin = QDoubleSpinBox(self)
        self.rate_spin.setRange(0.0001, 1e6)
        self.rate_spin.setDecimals(4)
        self.rate_spin.setToolTip(translate("ComparePage", "Your exchange rate: units of your "
                                            "currency per US dollar (the catalog's prices are "
                                            "in USD)"))

        self.utilization_spin = QSpinBox(self)
        self.utilization_spin.setRange(1, 100)
        self.utilization_spin.setValue(round(DEFAULT_UTILIZATION * 100))
        self.utilization_spin.setSuffix("%")  # "50%", as the sentences under the table
        self.utilization_spin.setToolTip(translate(
            "ComparePage", "Inference: the share of the hours you rent that the GPU spends "
            "generating (a rented GPU is paid for while it waits for requests); default "
            "{pct}%").format(pct=round(DEFAULT_UTILIZATION * 100)))
        self.lifetime_spin = QSpinBox(self)
        self.lifetime_spin.setRange(100, 100_000)
        self.lifetime_spin.setSingleStep(1000)
        self.lifetime_spin.setValue(round(DEFAULT_LIFETIME_HOURS))
        self.lifetime_spin.setSuffix(translate("ComparePage", " h"))
        self.lifetime_spin.setGroupSeparatorShown(True)  # "10,000 h", as the footer says it
        self.lifetime_spin.setToolTip(translate(
            "ComparePage", "Inference: the hours a card serves before you write it off; its "
            "price is spread over them (default {hours:,} h: about three years at nine hours "
            "a day)").format(hours=round(DEFAULT_LIFETIME_HOURS)))

        pairs = [("goal", translate("ComparePage", "Goal"), self.goal_combo),
                 ("budget", translate("ComparePage", "Budget"), self.budget_spin),
                 ("deadline", translate("ComparePage", "Deadline"), self.deadline_spin),
                 ("utilization", translate("ComparePage", "Rentals busy"),
                  self.utilization_spin),
                 ("lifetime", translate("ComparePage", "Card lifetime"), self.lifetime_spin),
                 ("cards", translate("ComparePage", "Cards to buy, at most"), self.cards_spin),
                 ("power", translate("ComparePage", "Electricity per kWh"), self.power_spin),
                 ("currency", translate("ComparePage", "Currency"), self.currency_combo)]
        self.pairs: dict[str, QWidget] = {}
        for name, text, widget in pairs:
            self.pairs[name] = self._pair(QLabel(text), widget)
            flow.addWidget(self.pairs[name])
        self.rate_label = QLabel(self)
        self._rate_pair = self._pair(self.rate_label, self.rate_spin)
        flow.addWidget(self._rate_pair)
        self.changes_check = QCheckBox(translate("ComparePage", "Allow changes to the plan"),
                                       self)
        self.changes_check.setToolTip(translate(
            "ComparePage", "Off: the plan is compared as you set it, and options that fit "
            "only with a change (LoRA instead of a full fine-tune, QLoRA, ZeRO-3, CPU "
            "offload, ...) are listed apart, each with its change. On: they are ranked with "
            "the others."))
        flow.addWidget(self.changes_check)
        self.per_token = False
        for name in ("utilization", "lifetime"):
            self.pairs[name].hide()
        policy = self.fields.sizePolicy()
        policy.setHeightForWidth(True)  # the flow's lines depend on the width
        self.fields.setSizePolicy(policy)

    def set_per_token(self, enabled: bool) -> None:
        """An inference plan (per million tokens): the rentals' utilization and the cards'
        lifetime instead of a job's budget and deadline."""
        for name in ("budget", "deadline"):
            self.pairs[name].setVisible(not enabled)
        for name in ("utilization", "lifetime"):
            self.pairs[name].setVisible(enabled)
        self.per_token = enabled
        self.update_summary()

    def set_foldable(self, foldable: bool) -> None:
        """Presentation mode: the inputs fold into one line (folded at first)."""
        self.fold_button.setVisible(foldable)
        self.fold_button.setChecked(False)
        self.fields.setVisible(not foldable)
        self.update_summary()

    def _on_fold_toggled(self, unfolded: bool) -> None:
        self.fields.setVisible(unfolded)
        self.update_summary()

    def update_summary(self) -> None:
        """The folded line: the goal and the limits the ranking uses, in words."""
        goal = self.goal_combo.currentText()
        budget = self.budget_spin.text() if self.budget_spin.value() > 0 else translate(
            "ComparePage", "no limit")
        deadline = self.deadline_spin.text() if self.deadline_spin.value() > 0 else translate(
            "ComparePage", "no limit")
        plan = (translate("ComparePage", "changes to the plan allowed")
                if self.changes_check.isChecked()
                else translate("ComparePage", "the plan as asked"))
        arrow = "▾" if self.fold_button.isChecked() else "▸"
        if getattr(self, "per_token", False):
            self.fold_button.setText(translate(
                "ComparePage", "{arrow} What matters to you: {goal}; rentals busy {util}; "
                "cards over {hours}; {plan}").format(
                arrow=arrow, goal=goal, util=self.utilization_spin.text(),
                hours=self.lifetime_spin.text(), plan=plan))
            return
        self.fold_button.setText(translate(
            "ComparePage", "{arrow} What matters to you: {goal}; budget: {budget}; deadline: "
            "{deadline}; {plan}").format(arrow=arrow, goal=goal, budget=budget,
                                        deadline=deadline, plan=plan))

    def _pair(self, label: QLabel, widget: QWidget) -> QWidget:
        """A label and its field side by side, as one item of the flow."""
        pair = QWidget(self)
        row = QHBoxLayout(pair)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        label.setParent(pair)
        widget.setParent(pair)
        label.setBuddy(widget)
        row.addWidget(label)
        row.addWidget(widget)
        return pair

    def show_money(self, settings: Settings, budget_usd: float | None) -> None:
        """Show the budget, the electricity price and the rate in the display currency
        (without signals: the dollar values they came from stay as they are)."""
        rate = settings.rate()
        code = settings.currency
        spins = (self.budget_spin, self.power_spin, self.rate_spin)
        for spin in spins:
            spin.blockSignals(True)
        # the symbol every amount on the page is written with ("$0.150", as the details'
        # "$0.15/kWh"); a currency without one by its code
        prefix = CURRENCY_SYMBOLS.get(code) or f"{code} "
        self.budget_spin.setPrefix(prefix)
        self.budget_spin.setValue(budget_usd * rate if budget_usd else 0.0)
        self.power_spin.setPrefix(prefix)
        self.power_spin.setValue(settings.electricity_usd_per_kwh * rate)
        self.rate_spin.setValue(rate)
        for spin in spins:
            spin.blockSignals(False)
        usd = code == "USD"
        self.rate_spin.setVisible(not usd)
        self.rate_label.setVisible(not usd)
        self._rate_pair.setVisible(not usd)
        self.rate_label.setText(translate("ComparePage", "{code} per US dollar").format(
            code=code))


__all__ = ["ConstraintsBox"]
