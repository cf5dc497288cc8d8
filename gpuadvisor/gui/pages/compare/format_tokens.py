"""The Compare page's words for an inference plan, read per million generated tokens
(:mod:`gpuadvisor.core.token_costs`): row names and cells, sentences, details and the
break-even, translated in the page's context ("ComparePage"). No widgets here.

Money comes in as ``money(usd, digits=None)`` (the display currency); amounts under ten are
written with two significant figures (:func:`small_money`), so no cost above zero reads
"$0.00".
"""

from __future__ import annotations

from datetime import date
from html import escape

from PySide6.QtCore import QCoreApplication

from gpuadvisor.core.offers import STALE_AFTER_DAYS, parse_day
from gpuadvisor.core.token_costs import (
    SMALLEST_SHOWN_USD,
    TokenBreakEven,
    TokenCost,
    TokenEconomics,
    money_digits,
)
from gpuadvisor.gui import data_words
from gpuadvisor.gui.charts.compare_charts import kind_labels
from gpuadvisor.gui.numbers import count, duration, sig

from .format import full_stop, offer_lines, option_label, why

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


def small_money(money, usd: float | None) -> str:
    """Dollars in the display currency with two significant figures under ten (``$0.034``,
    ``$0.17``), "< $0.0001" below that, "—" when unknown: never "$0.00" for a cost."""
    if usd is None:
        return "—"
    if usd == 0:
        return money(0.0, 0)
    if abs(usd) < SMALLEST_SHOWN_USD:
        return "< " + money(SMALLEST_SHOWN_USD, 4)
    return money(usd, money_digits(usd))


def kind_name(kind: str, short: bool = False) -> str:
    """An option kind for people, "hosted API" (``short``: "API") included."""
    if kind == "api":
        return (translate("ComparePage", "API") if short
                else translate("ComparePage", "hosted API"))
    return kind_labels().get(kind, kind)


def row_label(row: TokenCost) -> str:
    """A row's name: the option's (translated) or the API's provider and model."""
    if row.suggestion is not None:
        return option_label(row.suggestion.option)
    return row.label


def speed(row: TokenCost) -> str:
    """Tokens per second, three figures ("—" for an API: its speed is not modelled)."""
    return sig(row.tokens_per_s) if row.tokens_per_s else "—"


def first_token(row: TokenCost) -> str:
    """The time to the first token ("—" for an API)."""
    return duration(row.ttft_s) if row.ttft_s is not None else "—"


def tokens(mtok: float) -> str:
    """Millions of tokens as a count of tokens: ``1.39B tokens``."""
    return translate("ComparePage", "{n} tokens").format(n=count(mtok * 1e6))


def pays_off(row: TokenCost) -> str:
    """After how many tokens owning this row's cards beats paying per token ("" when not
    owned): ``4.61B tokens``, "⚠" before it when that is past the cards' lifetime."""
    even = row.break_even
    if even is None:
        return ""
    if even.mtok is None:
        return translate("ComparePage", "never")
    if even.mtok == 0:
        return translate("ComparePage", "from the first token")
    return ("⚠ " if even.beyond_lifetime else "") + tokens(even.mtok)


def pays_off_tip(row: TokenCost) -> str:
    """The break-even column's tooltip: against what, and the lifetime."""
    even = row.break_even
    if even is None:
        return ""
    text = translate("ComparePage", "Owning beats paying per token for the cheapest API (or "
                     "rental) after this many generated tokens.")
    if even.beyond_lifetime:
        text += " " + translate("ComparePage", "⚠: that is past the card lifetime you set.")
    return text


def api_price(row: TokenCost, money) -> str:
    """An API's price per million input and output tokens, short: ``$0.020 / $0.030 per
    M`` (the cell's tooltip says which is which)."""
    a = row.api
    return translate("ComparePage", "{inp} / {out} per M").format(
        inp=small_money(money, a.input_usd_per_mtok), out=small_money(money, a.output_usd_per_mtok))


def price_seen(as_of: str, user: bool, today: date | None) -> tuple[str, bool]:
    """(when the price was seen, whether it is stale) for an API row's date column."""
    if user:
        return translate("ComparePage", "{date} (your price)").format(date=as_of), False
    if today is None:
        return as_of, False
    days = (today - parse_day(as_of)).days
    stale = days > STALE_AFTER_DAYS
    return translate("ComparePage", "{mark}{days} days ago").format(
        mark="⚠ " if stale else "", days=days), stale


def why_tokens(row: TokenCost, money, units: str = "GiB") -> str:
    """One sentence about a row, per million generated tokens."""
    name = row_label(row)
    if row.api is not None:
        return translate("ComparePage", "{name}: {price} per million generated tokens ({inp} "
                         "per million in, {out} per million out)").format(
            name=name, price=small_money(money, row.usd_per_mtok),
            inp=small_money(money, row.api.input_usd_per_mtok),
            out=small_money(money, row.api.output_usd_per_mtok))
    s = row.suggestion
    if not row.fits:
        return why(s, money, units)
    levers = (translate("ComparePage", " with {levers}").format(
        levers=data_words.lever_names(s.levers)) if s.levers else "")
    return translate("ComparePage", "{name}: {price} per million generated tokens, {speed} "
                     "tokens/s, first token after {ttft}{levers}").format(
        name=name, price=small_money(money, row.usd_per_mtok), speed=speed(row),
        ttft=first_token(row), levers=levers)


def cost_lines(row: TokenCost, money, econ: TokenEconomics) -> list[str]:
    """How a row's price per million tokens was made, one line each."""
    a = econ.assumptions
    if row.api is not None:
        api = row.api
        return [
            translate("ComparePage", "Per generated token with its share of the prompt "
                      "({prompt}:{new}): {out} + {inp} × {prompt} ÷ {new} = {price} per "
                      "million").format(
                out=small_money(money, api.output_usd_per_mtok),
                inp=small_money(money, api.input_usd_per_mtok), prompt=econ.prompt_tokens,
                new=econ.new_tokens, price=small_money(money, row.usd_per_mtok)),
            translate("ComparePage", "Blended, input and output tokens together: {price} "
                      "per million").format(price=small_money(money, row.blended_usd_per_mtok)),
            translate("ComparePage", "Its speed is the provider's: not estimated here.")]
    if not row.fits or row.tokens_per_s is None:
        return []
    s = row.suggestion
    per_hour = f"{row.tokens_per_s * 3600:,.0f}"
    if s.users:
        lines = [translate("ComparePage", "Speed: {speed} tokens/s ({per_hour} an hour) "
                           "serving {users} users at once, as many as stay at reading speed "
                           "or more (a server's load, not the plan's {asked} request(s)); "
                           "the first token after {ttft} at that load").format(
            speed=speed(row), per_hour=per_hour, users=s.users, ttft=first_token(row),
            asked=s.plan.micro_batch)]
    else:
        lines = [translate("ComparePage", "Speed: {speed} tokens/s ({per_hour} an hour), "
                           "the first token after {ttft} (prefilling {prompt} prompt tokens × "
                           "{batch})").format(speed=speed(row), per_hour=per_hour,
                                              ttft=first_token(row), prompt=econ.prompt_tokens,
                                              batch=s.plan.micro_batch)]
    if row.kind in ("rent", "cloud"):
        lines.append(translate(
            "ComparePage", "{price}/h ÷ ({per_hour} tokens × {util:.0%} busy) = {result} per "
            "million tokens").format(price=small_money(money, row.usd_per_hour),
                                     per_hour=per_hour, util=a.utilization,
                                     result=small_money(money, row.usd_per_mtok)))
        return lines
    power_h = row.energy_usd_per_mtok * row.tokens_per_s * 3600 / 1e6
    lines.append(translate(
        "ComparePage", "Power: {tdp:,.0f} W × {load:.0%} × {gpus} GPU(s) × {kwh}/kWh = "
        "{power}/h").format(tdp=s.option.gpu.tdp_w, load=a.load_fraction, gpus=s.n_gpus,
                            kwh=money(a.usd_per_kwh, 3),  # as the training details
                            power=small_money(money, power_h)))
    if row.hardware_usd > 0 and row.kind == "own":
        # paid for already: their wear is shown, not added (the row's price is the power)
        lines.append(translate("ComparePage", "Cards: yours already, not counted; wearing "
                               "them out would add {price} ÷ {hours:,.0f} h = {per_hour}/h "
                               "({wear} per million tokens with the power)").format(
            price=money(row.hardware_usd), hours=a.lifetime_hours,
            per_hour=small_money(money, row.hardware_usd / a.lifetime_hours),
            wear=small_money(money, row.wear_usd_per_mtok)))
    elif row.hardware_usd > 0:
        lines.append(translate("ComparePage", "Cards: {price} ÷ {hours:,.0f} h = {per_hour}/h"
                               ).format(price=money(row.hardware_usd), hours=a.lifetime_hours,
                                        per_hour=small_money(money,
                                                             row.hardware_usd / a.lifetime_hours)))
    elif row.kind == "own":
        lines.append(translate("ComparePage", "Cards: no price in the offers catalog for "
                               "them, so power alone"))
    lines.append(translate("ComparePage", "{hourly}/h ÷ {per_hour} tokens = {result} per "
                           "million tokens").format(hourly=small_money(money, row.usd_per_hour),
                                                    per_hour=per_hour,
                                                    result=small_money(money, row.usd_per_mtok)))
    return lines


def details_html(row: TokenCost, money, econ: TokenEconomics, units: str = "GiB",
                 today: date | None = None) -> str:
    """The selected row in detail (rich text): name and kind, its sentence, how its price per
    million tokens was made, the price with where and when it was seen."""
    lines = [f"<b>{escape(row_label(row))}</b> — {escape(kind_name(row.kind))}",
             escape(full_stop(why_tokens(row, money, units)))]
    lines += [escape(line) for line in cost_lines(row, money, econ)]
    if row.suggestion is not None:
        if row.kind == "own" and row.hardware_sources:
            lines.append(escape(translate("ComparePage", "Their wear is priced as the same "
                                          "cards bought: the catalog's {prices}").format(
                prices=translate("Lists", ", ").join(
                    translate("ComparePage", "{seller} price of {date}").format(
                        seller=data_words.seller(seller), date=as_of)
                    for seller, as_of in row.hardware_sources))))
        if row.kind == "own" and row.hardware_unpriced:
            lines.append(escape(translate("ComparePage", "The catalog has no price for: "
                                          "{cards}").format(
                cards=translate("Lists", ", ").join(row.hardware_unpriced))))
        lines += offer_lines(row.suggestion, money)
        return "<br>".join(lines)
    api = row.api
    seen, stale = price_seen(api.as_of, api.user, today)
    if stale:
        seen += " — " + translate("ComparePage", "older than {days} days: check it").format(
            days=STALE_AFTER_DAYS)
    lines.append(escape(f"{api.model_name}" + (f" · {api.quant}" if api.quant else "")))
    source = escape(api.source)
    url = api.source.split(" ", 1)[0].rstrip(":")
    if url.startswith(("https://", "http://")):
        source = f'<a href="{escape(url)}">{escape(url)}</a>{escape(api.source[len(url):])}'
    lines.append(f"{escape(seen)}; {translate('ComparePage', 'source')}: {source}")
    if api.notes:
        lines.append(f"<i>{escape(api.notes)}</i>")
    return "<br>".join(lines)


def answer(econ: TokenEconomics, shown: list[TokenCost], money, model_name: str,
           allow_changes: bool) -> tuple[str, str]:
    """The banner for an inference plan: the best row for the goal per million tokens, your
    rig's figure, the fastest (or cheapest) when another, and when no API lists the model."""
    rows = [r for r in shown if r.counts(allow_changes) and r.usd_per_mtok is not None]
    if not rows:
        text = translate("ComparePage", "None of the options shown runs this plan: widen the "
                         "filters, or “Make it fit” on the Plan page.")
        return text + _no_api(econ, model_name), "none"
    best = rows[0]
    goal = (translate("ComparePage", "cheapest per token") if econ.goal == "cheapest"
            else translate("ComparePage", "fastest"))
    text = translate("ComparePage", "Best ({goal}): {why}.").format(
        goal=goal, why=why_tokens(best, money))
    other_goal = "fastest" if econ.goal == "cheapest" else "cheapest"
    if other_goal == "fastest":
        timed = [r for r in rows if r.tokens_per_s]
        other = max(timed, key=lambda r: r.tokens_per_s) if timed else None
        label = translate("ComparePage", "Fastest")
    else:
        other = min(rows, key=lambda r: r.usd_per_mtok)
        label = translate("ComparePage", "Cheapest")
    if other is not None and other.id != best.id:
        text += " " + translate("ComparePage", "{label}: {why}.").format(
            label=label, why=why_tokens(other, money))
    own = next((r for r in rows if r.kind == "own"), None)
    if own is not None and own.id not in (best.id, other.id if other else None):
        text += " " + translate("ComparePage", "Yours: {why}.").format(why=why_tokens(own, money))
    return text + _no_api(econ, model_name), "ok"


def _no_api(econ: TokenEconomics, model_name: str) -> str:
    if econ.api_count:
        return ""
    return " " + translate("ComparePage", "No API in the catalog lists {model}.").format(
        model=model_name)


def count_text(shown: list[TokenCost], total: int, econ: TokenEconomics, currency: str,
               rate: float, warnings: list[str]) -> str:
    """The note under the table: what is shown, the unit and the assumptions."""
    fitting = sum(1 for r in shown if r.as_asked and r.kind != "api")
    changed = sum(1 for r in shown if r.kind != "api" and not r.as_asked
                  and r.suggestion is not None and r.suggestion.fits)
    apis = sum(1 for r in shown if r.kind == "api")
    a = econ.assumptions
    text = translate("ComparePage", "{shown} of {total} options shown; {fitting} fit the plan "
                     "as asked").format(shown=len(shown), total=total, fitting=fitting)
    if changed:  # the hollow marks (the counts add up to what is shown)
        text += translate("ComparePage", ", {changed} more only with a change to the "
                          "plan").format(changed=changed)
    text += translate("ComparePage", "; {apis} hosted APIs").format(apis=apis)
    text += translate("ComparePage", ". Costs per million generated tokens, each with its "
                      "share of the prompt ({prompt}:{new}); rentals busy {util:.0%} of the "
                      "time, cards over {hours:,.0f} h. ★ = best trade-off (Pareto front)."
                      ).format(prompt=econ.prompt_tokens, new=econ.new_tokens,
                               util=a.utilization, hours=a.lifetime_hours)
    if currency != "USD":  # said only when the page converts
        text += " " + translate("ComparePage", "Prices in {code} at {rate} per USD.").format(
            code=currency, rate=f"{rate:g}")
    if warnings:
        text += " " + " ".join(warnings)
    return text


def break_even_title(owned: TokenCost | None, other: TokenCost | None, kind: str) -> str:
    """Which pair the break-even weighs, in words."""
    if owned is None or other is None:
        return translate("ComparePage", "Owning against paying per token")
    own, per_token = row_label(owned), row_label(other)
    if kind in ("buy-new", "buy-used", "own"):
        text = translate("ComparePage", "{own} (selected) against {other}, the cheapest per "
                         "token")
    elif kind in ("rent", "cloud", "api"):
        text = translate("ComparePage", "{other} (selected) against buying {own}, the card "
                         "that pays off soonest")
    else:
        text = translate("ComparePage", "Buying {own} against {other}")
    return text.format(own=own, other=per_token)


def break_even_text(owned: TokenCost, other: TokenCost, even: TokenBreakEven, money,
                    lifetime_hours: float) -> str:
    """When owning beats paying per token, with its arithmetic."""
    own, per_token = row_label(owned), row_label(other)
    if even.mtok is None:
        return translate("ComparePage", "{other} costs {price} per million tokens, no more "
                         "than the power for {own} ({power}): owning never pays off on price "
                         "alone.").format(other=per_token,
                                          price=small_money(money, even.other_usd_per_mtok),
                                          own=own, power=small_money(money, even.own_usd_per_mtok))
    if even.mtok == 0:
        return translate("ComparePage", "{own} is yours already and its power ({power} per "
                         "million tokens) costs less than {other} ({price}): cheaper from the "
                         "first token.").format(own=own,
                                                power=small_money(money, even.own_usd_per_mtok),
                                                other=per_token,
                                                price=small_money(money, even.other_usd_per_mtok))
    text = translate("ComparePage", "After {tokens}, {own} ({price}) beats {other} ({hours} of "
                     "generating on it).").format(
        tokens=tokens(even.mtok), own=own, price=money(even.hardware_usd), other=per_token,
        hours=duration(even.hours * 3600.0))
    if even.beyond_lifetime:
        text += " " + translate("ComparePage", "That is longer than the {hours:,.0f} h "
                                "lifetime you set.").format(hours=lifetime_hours)
    return text + " " + translate(
        "ComparePage", "Cards ÷ (price per token − power per token): {price} ÷ ({other} − "
        "{power}) per million.").format(price=money(even.hardware_usd),
                                        other=small_money(money, even.other_usd_per_mtok),
                                        power=small_money(money, even.own_usd_per_mtok))


def no_break_even_texts() -> tuple[str, str]:
    """(the chart's note, the sentence) when there is no owned option and per-token option."""
    return (translate("ComparePage", "No card and per-token option to compare"),
            translate("ComparePage", "Break-even needs a card (yours or to buy) and an API or "
                      "rental among the options shown."))


__all__ = ["answer", "api_price", "break_even_text", "break_even_title", "cost_lines",
           "count_text", "details_html", "first_token", "kind_name", "no_break_even_texts",
           "pays_off", "pays_off_tip", "price_seen", "row_label", "small_money", "speed", "tokens",
           "why_tokens"]
