"""What the Compare page shows for a training plan (a job's time and cost): the table, the
chart, the answer, the selected option's details and the break-even in jobs. An inference
plan reads per million tokens instead (:mod:`.tokens`). Functions of the page, which calls
them from its ``_show`` and ``_show_selection``."""

from __future__ import annotations

from gpuadvisor.core.advisor import Suggestion, best_break_even, pareto
from gpuadvisor.gui.charts.compare_charts import Point
from gpuadvisor.gui.widgets.wrap import keep_cjk_words

from . import format as fmt


def show_jobs(page) -> None:
    """Table, chart, answer, details and break-even from the advice and the filters."""
    advice = page.advice
    f = page.filters()
    page.proxy.filters = f
    allow = advice.allow_changes
    page.shown = [s for s in advice.suggestions if f.accepts(s)]
    front = pareto(page.shown, allow)
    page.model.units = page.units
    page.model.set_rows(advice.suggestions, page.money, front, page.why)
    rate = page.settings.rate()
    points = [Point(s.option.id, fmt.option_label(s.option), s.option.kind, s.hours,
                    s.cost_usd * rate, s.n_gpus, s.acceptable,
                    changed=not s.counts(allow))
              for s in page.shown if s.fits]
    ids = {s.option.id for s in page.shown}
    if page.selected_id not in ids:
        best = next((s for s in page.shown if s.acceptable and s.counts(allow)),
                    next((s for s in page.shown if s.fits), None))
        page.selected_id = best.option.id if best else None
    page.scatter.set_data(points, sorted(front), selected=page.selected_id,
                          budget=page.budget_usd * rate if page.budget_usd else None,
                          deadline_hours=page.deadline_hours)
    prefix = f"{page.catalog_problem}\n" if page.catalog_problem and not page.offers else ""
    page.answer.set_answer(*fmt.answer(
        advice, page.shown, page.money, budget_usd=page.budget_usd,
        deadline_hours=page.deadline_hours, prefix=prefix, units=page.units))
    page.options.select_row(page.selected_id)
    page._show_selection()
    page.options.count_label.setText(fmt.count_text(
        page.shown, len(advice.suggestions), page.settings.currency, rate,
        page.catalog_warnings))


def show_job_selection(page, s: Suggestion) -> None:
    """The selected option's details and its break-even in jobs."""
    # Chinese words and "GPU·时" kept whole where the narrow pane wraps
    page.details.setText(keep_cjk_words(fmt.details_html(
        s, page.money, page.settings.electricity_usd_per_kwh, page.units)))
    # The selected option is one side when it can be: a card to buy against the cheapest
    # rental, or the selected rental against the card that beats it soonest; with your
    # own rig selected, the best pair. The pair is said in words above the chart.
    kind = s.option.kind
    allow = page.advice.allow_changes if page.advice is not None else True
    if kind in ("buy-new", "buy-used"):
        pair = best_break_even(page.shown, owned=s, allow_changes=allow)
    elif kind in ("rent", "cloud"):
        pair = best_break_even(page.shown, rented=s, allow_changes=allow)
    else:
        pair = best_break_even(page.shown, allow_changes=allow)
    if pair is None:
        page.side.show_no_break_even(*fmt.no_break_even_texts())
        page.side.break_even_title.setText(fmt.break_even_title(None, None, kind))
        return
    owned, rented, result = pair
    page.side.break_even_title.setText(fmt.break_even_title(owned, rented, kind))
    rate = page.settings.rate()
    page.break_even_chart.set_data(
        hardware=result.hardware_usd * rate, own_per_job=result.own_per_job_usd * rate,
        rent_per_job=result.rent_per_job_usd * rate, jobs=result.jobs,
        own_label=fmt.option_label(owned.option),
        rent_label=fmt.option_label(rented.option))
    page.side.show_break_even_text(fmt.break_even_text(owned, rented, result, page.money))


__all__ = ["show_job_selection", "show_jobs"]
