"""The Compare page: every way to run the plan — your rig, a card to buy, a rental, a cloud —
with its time and cost, ranked for the user's goal, budget and deadline.

What it shows:

- the answer in one or two sentences (the best option for the goal, and the fastest when that
  is another one), or why nothing fits and the smallest change that would;
- time against cost of every fitting option (log axes, Pareto front, hover, click to select);
- a table of every option, sortable by any column and filtered by kind, vendor, memory,
  provider and spot/on-demand; prices older than 90 days are marked, the user's own prices
  (from their overrides file) say so;
- the selected option in detail, and owning against renting (break-even) for it;
- exports of the selected option: SkyPilot task, accelerate config, DeepSpeed config, launch
  script, and a report (HTML with the charts inside, or Markdown).

This module lays the regions out and wires them: the constraints box (``constraints``), the
table with its filters (``table``, ``filters``), the details and break-even (``details``),
the answer banner (``answer``); the words are in ``format``, the exports in ``exports``. The
advice (:func:`gpuadvisor.core.advisor.advise`) runs off the GUI thread (``advising``): each
request carries a generation and only the newest answer is shown. Requests are debounced and
made only while the page is shown: a plan edited on the Plan page is advised again when the
user comes back. Money is kept in US dollars and shown in the user's display currency at
their exchange rate (settings); the electricity price is theirs too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QWidget,
)

from gpuadvisor.core.advisor import GOALS, Advice, Suggestion, advise, pareto, rank
from gpuadvisor.core.apis import ApiOffer
from gpuadvisor.core.offers import Offer
from gpuadvisor.core.token_costs import TokenCost, TokenEconomics, is_inference
from gpuadvisor.userfiles import write_atomic
from gpuadvisor.workspace.settings import Settings, format_money

from . import catalogs, exports, showing, tokens
from . import format as fmt
from .advising import AdviceRequests
from .filters import Filters
from .layout import arrange, build_page, share_height
from .table import ID_ROLE


class ComparePage(QWidget):
    """Your rig, buy, rent or cloud: time and cost of each, for the current plan.

    Attributes:
        state: the shared plan.
        settings: the user's settings (display currency, exchange rates, electricity price;
            changed here, saved by the window).
        offers: the offers catalog in use (id -> Offer).
        apis: the hosted-API catalog in use (id -> ApiOffer; inference plans).
        economics: an inference plan's advice per million tokens
            (:class:`~gpuadvisor.core.token_costs.TokenEconomics`), or None.
        shown_rows: an inference plan's per-token rows the filters let through.
        catalog_problem: why the offers catalog could not be read ("" when it could).
        advice: the latest :class:`~gpuadvisor.core.advisor.Advice`, or None.
        shown: the suggestions the filters let through, in the table's ranking order.
        selected_id: the option selected in the table or chart (None: none).
        constraints, options, side: the regions (goal and limits; filters and table;
            details, break-even and exports).
        scatter, break_even_chart: the charts.
        table: the options table (``table.model()`` is the filter/sort ``proxy`` of
            ``model``).
        answer: the answer banner.
        export_buttons: kind -> button.
        last_error: the last problem shown to the user ("" when none).
    """

    status = Signal(str)
    go_to_plan = Signal()
    advice_ready = Signal()

    def __init__(self, state, settings: Settings | None = None, parent: QWidget | None = None,
                 *, offers: Mapping[str, Offer] | None = None, today: date | None = None,
                 own=None, apis: Mapping[str, ApiOffer] | None = None) -> None:
        """Build the page.

        Args:
            state: the shared :class:`~gpuadvisor.workspace.state.PlanState`.
            settings: the user's settings (default: defaults).
            parent: Qt parent.
            offers: the offers to compare (default: the offers catalog with the user's
                overrides; tests pass their own).
            today: the day prices are aged against (default: today).
            own: the user's cards as GpuSpecs (default: the cards the Rig page detected or
                simulated, from the plan state).
            apis: the hosted APIs to compare for inference plans (default: the API catalog
                with the user's overrides).
        """
        super().__init__(parent)
        self.setObjectName("comparePage")
        self.state = state
        self.settings = settings if settings is not None else Settings()
        self._today = today
        self._own_override = list(own) if own is not None else None
        self.catalog_problem = ""
        self.catalog_warnings: list[str] = []
        if offers is None:
            offers = self._load_offers()
        self.offers: dict[str, Offer] = dict(offers)
        self.apis: dict[str, ApiOffer] = dict(apis) if apis is not None else self._load_apis()
        self.advice: Advice | None = None
        self.advised_plan = None  # the plan the advice answers
        self.economics: TokenEconomics | None = None
        self.shown_rows: list[TokenCost] = []
        self.shown: list[Suggestion] = []
        self.selected_id: str | None = None
        self.last_error = ""
        self._budget_usd: float | None = None
        self._deadline_hours: float | None = None
        self._dirty = True
        self._presentation = False
        self._shared = False  # the splitter's shares are set when the page is first shown
        self._requests = AdviceRequests(self)
        self._requests.due.connect(self._start)
        self._requests.answered.connect(self._on_advice)
        self._requests.failed.connect(self._on_failure)
        self._build()
        self._connect()
        self._apply_money()
        state.changed.connect(self._on_plan_changed)
        state.detected_changed.connect(self._on_plan_changed)
        self._listening = True

    # ================================================================== layout and wiring
    def _build(self) -> None:
        build_page(self)

    def _connect(self) -> None:
        box = self.constraints
        self.plan_button.clicked.connect(self.go_to_plan)
        box.goal_combo.currentIndexChanged.connect(lambda _i: self._rerank())
        box.changes_check.toggled.connect(lambda _on: self._rerank())
        box.budget_spin.valueChanged.connect(self._on_budget)
        box.deadline_spin.valueChanged.connect(self._on_deadline)
        box.cards_spin.valueChanged.connect(lambda _v: self.schedule())
        box.power_spin.valueChanged.connect(self._on_power)
        box.currency_combo.currentIndexChanged.connect(self._on_currency)
        box.rate_spin.valueChanged.connect(self._on_rate)
        # Per-token inputs reprice the advice: arithmetic only, no estimate. They start from
        # the settings and are kept there for the next session.
        box.utilization_spin.setValue(round(self.settings.rental_utilization * 100))
        box.lifetime_spin.setValue(round(self.settings.card_lifetime_hours))
        box.utilization_spin.valueChanged.connect(self._on_utilization)
        box.lifetime_spin.valueChanged.connect(self._on_lifetime)
        self.scatter.point_clicked.connect(self.select)
        for kind, action in self.export_buttons.items():
            action.triggered.connect(lambda _c=False, k=kind: self.export(k))
        self.options.filter_bar.changed.connect(self._show)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current)

    def _fill_filter_choices(self) -> None:
        vendors = sorted({g.vendor for g in self.state.gpus.values()
                          if any(o.gpu_id == g.id for o in self.offers.values())})
        providers = sorted({o.provider for o in self.offers.values()}
                           | {a.provider for a in self.apis.values()})
        self.options.filter_bar.fill_choices(vendors, providers)

    # ================================================================== inputs
    def _load_offers(self) -> dict[str, Offer]:
        return catalogs.load_offers(self)

    def _load_apis(self) -> dict[str, ApiOffer]:
        return catalogs.load_apis(self)

    def today(self) -> date:
        """The day prices are aged against."""
        return self._today or date.today()

    @property
    def per_token(self) -> bool:
        """Whether the advice shown is an inference plan's, read per million tokens."""
        return self.advice is not None and is_inference(self.advised_plan or self.state.plan)

    @property
    def goal(self) -> str:
        """``cheapest`` or ``fastest``."""
        return self.constraints.goal_combo.currentData()

    def set_goal(self, goal: str) -> None:
        """Rank for ``goal`` (one of :data:`~gpuadvisor.core.advisor.GOALS`)."""
        if goal not in GOALS:
            raise ValueError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")
        combo = self.constraints.goal_combo
        combo.setCurrentIndex(combo.findData(goal))

    @property
    def allow_changes(self) -> bool:
        """Whether options that fit only with a change to the plan rank with the others."""
        return self.constraints.changes_check.isChecked()

    def set_allow_changes(self, allowed: bool) -> None:
        """Rank options that fit only with a lever with the others (True) or apart."""
        self.constraints.changes_check.setChecked(bool(allowed))

    @property
    def budget_usd(self) -> float | None:
        """The budget in US dollars (None: no limit)."""
        return self._budget_usd

    @property
    def deadline_hours(self) -> float | None:
        """The deadline in hours (None: no limit)."""
        return self._deadline_hours

    def set_budget(self, amount: float | None) -> None:
        """The budget in the display currency (None or 0: no limit)."""
        self.constraints.budget_spin.setValue(amount or 0.0)

    def set_deadline(self, hours: float | None) -> None:
        """The deadline in hours (None or 0: no limit)."""
        self.constraints.deadline_spin.setValue(hours or 0.0)

    def set_filters(self, **changes) -> None:
        """Change the filters (the widgets follow): ``kinds``, ``vendor``, ``min_vram_gb``,
        ``provider``, ``spot``, ``fits_only``, ``text``."""
        self.options.filter_bar.set_filters(**changes)
        self._show()

    def filters(self) -> Filters:
        """The filters as the widgets set them."""
        return self.options.filter_bar.filters()

    def own_rig(self) -> list:
        """The user's cards as GpuSpecs (detected or simulated on the Rig page)."""
        if self._own_override is not None:
            return list(self._own_override)
        specs = [self.state.detected_spec(key) for key in self.state.detected_gpus]
        return [s for s in specs if s is not None]

    # ================================================================== money
    def money(self, amount_usd: float, digits: int | None = None) -> str:
        """US dollars in the display currency."""
        return self.settings.format_money(amount_usd, digits)

    def _display_money(self, amount: float, digits: int | None = None) -> str:
        return format_money(amount, self.settings.currency, digits)

    def _apply_money(self) -> None:
        """Show the money inputs in the display currency (the USD values stay)."""
        self.constraints.show_money(self.settings, self._budget_usd)
        self._set_chart_money()

    def _set_chart_money(self) -> None:
        for chart in (self.scatter, self.break_even_chart):
            chart.set_money(self._display_money, self.settings.currency)

    def _on_budget(self, value: float) -> None:
        self._budget_usd = value / self.settings.rate() if value > 0 else None
        self._rerank()

    def _on_deadline(self, value: float) -> None:
        self._deadline_hours = value if value > 0 else None
        self._rerank()

    def _on_power(self, value: float) -> None:
        usd = value / self.settings.rate()
        if not 0 <= usd < 100:
            self._show_error(self.tr("Electricity price {value} is out of range").format(
                value=value))
            return
        self.settings.electricity_usd_per_kwh = usd
        self.schedule()

    def _on_utilization(self, percent: int) -> None:
        self.settings.rental_utilization = percent / 100.0
        self._rerank()

    def _on_lifetime(self, hours: int) -> None:
        self.settings.card_lifetime_hours = float(hours)
        self._rerank()

    def _on_currency(self, _index: int) -> None:
        self.settings.currency = self.constraints.currency_combo.currentData()
        self._apply_money()
        self._show()

    def _on_rate(self, value: float) -> None:
        code = self.settings.currency
        if code == "USD" or value <= 0:
            return
        self.settings.exchange_rates[code] = float(value)
        # The budget and the electricity price were typed in this currency: keep the typed
        # figures, so their dollar values follow the new rate.
        budget = self.constraints.budget_spin.value()
        self._budget_usd = budget / value if budget > 0 else None
        self.settings.electricity_usd_per_kwh = self.constraints.power_spin.value() / value
        self._set_chart_money()
        self.schedule()  # the power costs change with the electricity price in dollars

    # ================================================================== advising
    def _rerank(self) -> None:
        """Goal, budget and deadline only reorder the estimated options (and an inference
        plan's utilization and lifetime only reprice them): rank them again at once, without
        estimating anything anew."""
        self.constraints.update_summary()
        if self.advice is not None:
            self.advice = self._ranked(self.advice)
            self._show()

    def _ranked(self, advice: Advice) -> Advice:
        """``advice`` ranked for the goal, budget and deadline the inputs hold now."""
        goal, budget, deadline = self.goal, self._budget_usd, self._deadline_hours
        allow = self.allow_changes
        if (advice.goal, advice.budget_usd, advice.deadline_hours, advice.allow_changes) == (
                goal, budget, deadline, allow):
            return advice
        ranked = rank(advice.suggestions, goal, budget_usd=budget, deadline_hours=deadline,
                      allow_changes=allow)
        return replace(advice, suggestions=tuple(ranked), goal=goal, budget_usd=budget,
                       deadline_hours=deadline, allow_changes=allow,
                       pareto_ids=pareto(ranked, allow))

    @property
    def _generation(self) -> int:
        """The newest advice request's number."""
        return self._requests.generation

    def schedule(self) -> None:
        """Advise again shortly (debounced); only while the page is shown."""
        self._dirty = True
        if self.isVisible():
            self._requests.timer.start()

    def _on_plan_changed(self, *_args) -> None:
        self.schedule()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shared:
            self._shared = True
            self._share_height()
        if self._dirty and not self._requests.timer.isActive():
            self._requests.timer.start(0)

    def refresh(self) -> int:
        """Advise now (in the background); returns the request's generation."""
        self._requests.timer.stop()
        return self._start()

    def _start(self) -> int:
        self._dirty = False
        state = self.state
        model, plan, gpus = state.model, state.plan, state.gpus
        offers = list(self.offers.values())
        own = self.own_rig()
        goal, budget, deadline = self.goal, self._budget_usd, self._deadline_hours
        price = self.settings.electricity_usd_per_kwh
        assumptions, measurements = state.assumptions, state.measurements
        max_cards = self.constraints.cards_spin.value()
        today = self._today or date.today()
        allow = self.allow_changes
        self.advised_plan = plan

        def work() -> Advice:
            return advise(model, plan, gpus, offers, own=own, goal=goal, budget_usd=budget,
                          deadline_hours=deadline, assumptions=assumptions,
                          usd_per_kwh=price, today=today, measurements=measurements,
                          max_cards=max_cards, allow_changes=allow)

        self.answer.set_answer(self.tr("Working out every option…"), "busy")
        return self._requests.start(work)

    def _on_done(self, generation: int, kind: str, result, error) -> None:
        """An answer from the pool (dropped unless it is the newest request's)."""
        self._requests.deliver(generation, kind, result, error)

    def _on_failure(self, error) -> None:
        self.advice = None
        self._show_error(self.tr("Cannot compare this plan: {error}").format(error=error))
        self.advice_ready.emit()

    def _on_advice(self, result: Advice) -> None:
        self.advice = self._ranked(result)  # the inputs may have changed since it started
        self.last_error = ""
        self._show()
        self.advice_ready.emit()

    def flush(self, timeout_ms: int = 30000) -> None:
        """Advise now if due and wait for the answer (screenshots, tests)."""
        if self._requests.timer.isActive() or self._dirty:
            self.refresh()
        self._requests.wait(timeout_ms)
        QCoreApplication.processEvents()

    def shutdown(self) -> None:
        """Stop listening to the plan and wait for the advice in flight."""
        if self._listening:
            self._listening = False
            self.state.changed.disconnect(self._on_plan_changed)
            self.state.detected_changed.disconnect(self._on_plan_changed)
        self._requests.drop()
        self._requests.wait(30000)

    # ================================================================== showing
    def _show(self) -> None:
        """Table, chart, answer, details and break-even from the advice and the filters: a
        job's time and cost (:mod:`.showing`), or, for an inference plan, per million
        tokens (:mod:`.tokens`)."""
        self.plan_label.setText(fmt.plan_heading(self.state.plan, self.state.model,
                                                 short=self._presentation))
        if self.advice is None:
            return
        per_token = self.per_token
        self.constraints.set_per_token(per_token)
        self.options.filter_bar.show_api_kind(per_token)
        if per_token:
            tokens.show(self)
        else:
            self.economics, self.shown_rows = None, []
            self.scatter.set_per_token(False)
            self.break_even_chart.set_per_token(False)
            self._set_chart_money()
            showing.show_jobs(self)
        self.options.fit_columns()
        self.rig_note.setText(fmt.rig_note(self.state.lost_gpus, self.own_rig()))
        self.rig_note.setVisible(bool(self.rig_note.text()))

    def why(self, s: Suggestion) -> str:
        """One sentence for people, in the display currency."""
        return fmt.why(s, self.money, self.units)

    def arithmetic(self, s: Suggestion) -> list[str]:
        """How the time and each sum of money of a fitting option were made, one line each:
        the throughput the time rests on (and where its efficiency comes from), then the
        cards, the power (TDP x load x GPUs x hours x price per kWh) and the rent."""
        return fmt.computation_lines(s, self.money, self.settings.electricity_usd_per_kwh)

    def answer_text(self) -> str:
        """The answer banner's text."""
        return self.answer.text()

    def _show_error(self, text: str) -> None:
        self.last_error = text
        self.answer.set_answer(text, "none")
        self.status.emit(text)

    # ================================================================== selection
    def selected(self) -> Suggestion | None:
        """The selected suggestion, or None (also for a hosted API: see
        :meth:`selected_row`)."""
        if self.advice is None or self.selected_id is None:
            return None
        if self.per_token:
            row = tokens.selected_row(self)
            return row.suggestion if row is not None else None
        return next((s for s in self.advice.suggestions if s.option.id == self.selected_id),
                    None)

    def selected_row(self) -> TokenCost | None:
        """An inference plan's selected row (an option or a hosted API), or None."""
        return tokens.selected_row(self) if self.per_token else None

    def select(self, option_id: str) -> None:
        """Select an option (from the chart, the table or a test)."""
        if self.advice is None:
            return
        if self.per_token:
            known = {r.id for r in self.economics.rows} if self.economics else set()
        else:
            known = {s.option.id for s in self.advice.suggestions}
        if option_id not in known:
            return
        self.selected_id = option_id
        self.scatter.set_selected(option_id)
        self.options.select_row(option_id)
        self._show_selection()

    def _on_table_current(self, current, _previous) -> None:
        if not current.isValid():
            return
        option_id = current.siblingAtColumn(0).data(ID_ROLE)
        if option_id and option_id != self.selected_id:
            self.select(option_id)

    def table_ids(self) -> list[str]:
        """Option ids in the table's order (after filters and sorting)."""
        return self.options.ids()

    def table_text(self, row: int, column: str) -> str:
        """The text of a table cell (row in the table's order)."""
        return self.options.text(row, column)

    def _show_selection(self) -> None:
        row = self.selected_row()
        s = self.selected()
        self.side.enable_exports(s.option.kind if s is not None else None)
        if row is not None:
            tokens.show_selection(self, row)
        elif s is None:
            self.side.show_nothing()
        else:
            showing.show_job_selection(self, s)

    # ================================================================== exports
    def ask_save_path(self, kind: str, suggested: str) -> str | None:
        """Ask where to write an export (tests replace this)."""
        return exports.ask_save_path(self, kind, suggested)

    def export_text(self, kind: str, s: Suggestion, *, markdown: bool = False) -> str:
        """The export of ``kind`` for suggestion ``s``.

        Raises:
            ValueError: the plan cannot be written for that tool (e.g. DeepSpeed for
                inference), or the option does not fit.
        """
        return exports.export_text(kind, s, self.state.model,
                                   report=lambda: self._report(s, markdown=markdown),
                                   assumptions=self.state.assumptions)

    def _report(self, s: Suggestion, *, markdown: bool) -> str:
        charts = [(self.tr("Time against cost of every option"), self.scatter),
                  (self.tr("Owning against renting"), self.break_even_chart)]
        rows = self.shown or (self.advice.suggestions if self.advice else [])
        return exports.report_text(s, self.state, why=self.why(s), own=self.own_rig(),
                                   rows=rows, markdown=markdown, charts=charts)

    def export(self, kind: str, path: str | Path | None = None) -> bool:
        """Write the selected option's export of ``kind`` (asks where when no ``path``).

        Problems (nothing selected, a plan the tool cannot run, a file that cannot be
        written) are shown on the page and in the status bar; nothing is written then.
        """
        s = self.selected()
        if s is None:
            self._show_export_problem(self.tr("Select an option first."))
            return False
        if path is None:
            path = self.ask_save_path(kind, exports.suggested_name(kind, s))
            if not path:
                return False
        path = Path(path)
        try:
            text = self.export_text(kind, s, markdown=path.suffix.lower() == ".md")
            written = write_atomic(path, text)
        except ValueError as exc:
            self._show_export_problem(self.tr("Cannot export {kind}: {error}").format(
                kind=kind, error=exc))
            return False
        except OSError as exc:
            self._show_export_problem(self.tr("Cannot write {path}: {error}").format(
                path=path, error=exc.strerror or exc))
            return False
        self.last_error = ""
        self.break_even_label.setToolTip("")
        self.status.emit(self.tr("Wrote {path}").format(path=written))
        return True

    def _show_export_problem(self, text: str) -> None:
        self.last_error = text
        self.status.emit(text)

    # ================================================================== view options
    @property
    def units(self) -> str:
        """Memory in "GiB" or "GB" (the View setting)."""
        return self.settings.units

    def set_units(self, units: str) -> None:
        """Show memory in "GiB" or "GB" (the window's View setting)."""
        self.settings.units = units
        self.model.units = units
        self._show()

    def set_presentation(self, enabled: bool) -> None:
        """Large fonts and thick lines in the charts, which get most of the height; on a
        projector the inputs fold into a line and the details go to a tab."""
        self._presentation = enabled
        arrange(self, enabled)

    def _share_height(self) -> None:
        share_height(self)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._presentation:
            self._share_height()


__all__ = ["ComparePage"]
