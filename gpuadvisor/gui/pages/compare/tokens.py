"""What the Compare page shows for an inference plan, per million generated tokens
(:func:`gpuadvisor.core.token_costs.token_economics`): every option and the hosted APIs
that serve the model in one table, the options' time and money for a million tokens on the
chart (the cheapest API as a line), the answer, the selected row's details and owning
against paying per token in millions of tokens. The economics are arithmetic over the advice
(no estimate), so a change of utilization or lifetime redraws at once. Functions of the page.
"""

from __future__ import annotations

from datetime import date

from gpuadvisor.core.apis import API_KIND
from gpuadvisor.core.offers import STALE_AFTER_DAYS
from gpuadvisor.core.token_costs import (
    OWNED,
    PAY_AS_YOU_GO,
    TokenAssumptions,
    TokenCost,
    TokenEconomics,
    cheapest_pay_as_you_go,
    token_break_even,
    token_economics,
    token_pareto,
)
from gpuadvisor.gui.charts.compare_charts import Point
from gpuadvisor.gui.widgets.wrap import keep_cjk_words
from gpuadvisor.workspace.settings import format_money

from . import format_tokens as tok

translate = tok.translate


def assumptions(page) -> TokenAssumptions:
    """The per-token assumptions as the page's inputs set them."""
    box = page.constraints
    return TokenAssumptions(lifetime_hours=float(box.lifetime_spin.value()),
                            utilization=box.utilization_spin.value() / 100.0,
                            usd_per_kwh=page.settings.electricity_usd_per_kwh)


def economics(page) -> TokenEconomics:
    """The advice per million tokens, for the goal and the inputs the page holds now."""
    advice, state = page.advice, page.state
    return token_economics(state.model, page.advised_plan or state.plan, advice.suggestions,
                           page.apis.values(), page.offers.values(),
                           assumptions=assumptions(page), goal=page.goal,
                           own=page.own_rig(), allow_changes=advice.allow_changes,
                           known_model_ids=list(state.models))


def small_display_money(page):
    """Display-currency amounts (already converted) with two significant figures."""
    currency = page.settings.currency
    return lambda amount: tok.small_money(
        lambda value, digits=None: format_money(value, currency, digits), amount)


def show(page) -> None:
    """Table, chart, answer, details and break-even per million tokens."""
    econ = page.economics = economics(page)
    allow = page.advice.allow_changes
    f = page.filters()
    page.proxy.filters = f
    rows = [r for r in econ.rows if f.accepts(r)]
    page.shown_rows = rows
    page.shown = [r.suggestion for r in rows if r.suggestion is not None]
    front = token_pareto(rows, allow)
    page.model.units = page.units
    page.model.today = page.today()
    page.model.set_rows(econ.rows, page.money, front,
                        lambda r: tok.why_tokens(r, page.money, page.units))
    rate = page.settings.rate()
    points = [Point(r.id, tok.row_label(r), r.kind, r.seconds_per_mtok / 3600.0,
                    r.usd_per_mtok * rate, r.suggestion.n_gpus, True,
                    changed=not r.counts(allow))
              for r in rows if r.fits and r.tokens_per_s and r.usd_per_mtok]
    if page.selected_id not in {r.id for r in rows}:
        best = next((r for r in rows if r.counts(allow) and r.usd_per_mtok is not None),
                    next((r for r in rows if r.fits), None))
        page.selected_id = best.id if best else None
    api = min((r for r in rows if r.kind == API_KIND), key=lambda r: r.usd_per_mtok,
              default=None)
    page.scatter.set_money(small_display_money(page), page.settings.currency)
    page.scatter.set_per_token(True, api.usd_per_mtok * rate if api else None,
                               tok.row_label(api) if api else "")
    page.scatter.set_data(points, sorted(front), selected=page.selected_id)
    text, state = tok.answer(econ, rows, page.money, page.state.model.name, allow)
    prefix = f"{page.catalog_problem}\n" if page.catalog_problem and not page.offers else ""
    best = next((r for r in rows if r.counts(allow) and r.usd_per_mtok is not None), None)
    page.answer.set_answer(prefix + text, state, best.suggestion if best else None,
                           price_note=_api_note(best, page.today()))
    page.options.select_row(page.selected_id)
    page._show_selection()
    page.options.count_label.setText(tok.count_text(
        rows, len(econ.rows), econ, page.settings.currency, rate, page.catalog_warnings))


def _api_note(best: TokenCost | None, today: date) -> str | None:
    """The banner's "prices as of" line when the best row is an API with an old price
    (None: the banner's own rule for a hardware option)."""
    if best is None or best.api is None:
        return None
    _seen, stale = tok.price_seen(best.api.as_of, best.api.user, today)
    if not stale:
        return ""
    days = (today - date.fromisoformat(best.api.as_of)).days
    return translate("ComparePage", "Prices as of {date} ({days} days ago, older than "
                     "{limit}): check the current price before you rent or buy.").format(
        date=best.api.as_of, days=days, limit=STALE_AFTER_DAYS)


def selected_row(page) -> TokenCost | None:
    """The selected per-token row, or None."""
    if page.economics is None or page.selected_id is None:
        return None
    return page.economics.row(page.selected_id)


def show_selection(page, row: TokenCost) -> None:
    """The selected row's details and owning against paying per token."""
    econ = page.economics
    page.details.setText(keep_cjk_words(
        tok.details_html(row, page.money, econ, page.units, page.today())))
    rows = page.shown_rows
    allow = page.advice.allow_changes
    owned = other = None
    if row.kind in OWNED and row.energy_usd_per_mtok is not None:
        owned, other = row, cheapest_pay_as_you_go(rows, allow)
    elif row.kind in PAY_AS_YOU_GO and row.usd_per_mtok is not None:
        other = row
        owned = _soonest([r for r in rows if r.kind in ("buy-new", "buy-used")
                          and r.counts(allow) and r.energy_usd_per_mtok is not None], other,
                         econ.assumptions.lifetime_hours)
    else:
        other = cheapest_pay_as_you_go(rows, allow)
        buys = [r for r in rows if r.kind in ("buy-new", "buy-used") and r.counts(allow)
                and r.energy_usd_per_mtok is not None]
        owned = _soonest(buys, other, econ.assumptions.lifetime_hours) if other else None
    side = page.side
    side.break_even_title.setText(tok.break_even_title(owned, other, row.kind))
    if owned is None or other is None:
        side.show_no_break_even(*tok.no_break_even_texts())
        return
    even = token_break_even(owned, other, econ.assumptions.lifetime_hours)
    rate = page.settings.rate()
    page.break_even_chart.set_per_token(True)
    page.break_even_chart.set_data(
        hardware=even.hardware_usd * rate, own_per_job=even.own_usd_per_mtok * rate,
        rent_per_job=even.other_usd_per_mtok * rate, jobs=even.mtok,
        own_label=tok.row_label(owned), rent_label=tok.row_label(other))
    side.show_break_even_text(tok.break_even_text(owned, other, even, page.money,
                                                  econ.assumptions.lifetime_hours))


def _soonest(owned: list[TokenCost], other: TokenCost, lifetime_hours: float):
    """The owned row that pays off after the fewest tokens against ``other`` (the cheapest
    per token all told when none does)."""
    def key(r: TokenCost):
        even = token_break_even(r, other, lifetime_hours)
        return (even.mtok is None, even.mtok or 0.0, r.usd_per_mtok, r.id)

    return min(owned, key=key, default=None)


__all__ = ["assumptions", "economics", "selected_row", "show", "show_selection",
           "small_display_money"]
