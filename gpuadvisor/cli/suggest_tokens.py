"""``gpuadvisor suggest`` for an inference plan: every option and hosted API per million
generated tokens (:mod:`gpuadvisor.core.token_costs`), as a table, a break-even sentence and
JSON keys."""

from __future__ import annotations

import argparse
import math

from .args import InputError, fraction, positive_float, tell_catalog_warnings

#: ``--assume`` names that set the per-token assumptions (the rest go to the estimator).
TOKEN_ASSUMPTIONS = ("lifetime_hours", "utilization")


def add_arguments(sug: argparse.ArgumentParser) -> None:
    """The per-token assumptions' flags (inference plans)."""
    from gpuadvisor.core.token_costs import DEFAULT_LIFETIME_HOURS, DEFAULT_UTILIZATION

    sug.add_argument("--lifetime-hours", type=positive_float("--lifetime-hours", 1e6),
                     metavar="HOURS", default=None,
                     help="inference: hours a card serves before it is written off; its "
                          f"price is spread over them (default {DEFAULT_LIFETIME_HOURS:,.0f}: "
                          "about 3 years at 9 hours a day); also --assume lifetime_hours=H")
    sug.add_argument("--utilization", type=fraction, metavar="FRACTION", default=None,
                     help="inference: share of rented hours spent generating (default "
                          f"{DEFAULT_UTILIZATION:g}); also --assume utilization=F")


def split_assumptions(pairs) -> tuple[dict, dict]:
    """``--assume`` pairs split into the per-token ones and the estimator's."""
    tokens, rest = {}, {}
    for name, value in pairs:
        (tokens if name in TOKEN_ASSUMPTIONS else rest)[name] = value
    return tokens, rest


def token_assumptions(args: argparse.Namespace, assumed: dict, usd_per_kwh: float):
    """The per-token assumptions from the flags, ``--assume`` and the electricity price."""
    from gpuadvisor.core.token_costs import TokenAssumptions

    values = {"usd_per_kwh": usd_per_kwh}
    for name, value in assumed.items():
        try:
            values[name] = float(value)
        except ValueError:
            raise InputError(f"--assume: {name}: not a number: {value!r}") from None
    if args.lifetime_hours is not None:
        values["lifetime_hours"] = args.lifetime_hours
    if args.utilization is not None:
        values["utilization"] = args.utilization
    try:
        return TokenAssumptions(**values)
    except ValueError as exc:
        raise InputError(f"--assume: {exc}") from None


def economics(model, plan, advice, assumptions, own, goal: str):
    """The plan's per-token economics: the advice's options and the APIs serving the model."""
    from gpuadvisor import catalog
    from gpuadvisor.core.token_costs import token_economics

    warnings: list[str] = []
    try:
        apis = catalog.load_apis(warnings=warnings)
        offers = catalog.load_offers()
    except catalog.CatalogError as exc:
        raise InputError(f"apis catalog: {exc}") from None
    tell_catalog_warnings(warnings, "gpuadvisor suggest")
    return token_economics(model, plan, advice.suggestions, apis.values(), offers.values(),
                           assumptions=assumptions, goal=goal, own=own,
                           allow_changes=advice.allow_changes,
                           known_model_ids=list(catalog.load_models()))


def small_money(money, usd: float | None) -> str:
    """Dollars with two significant figures when under ten (``$0.0042``, ``$0.17``), never
    ``$0.00`` for an amount above zero."""
    from gpuadvisor.core.token_costs import SMALLEST_SHOWN_USD, money_digits

    if usd is None or not math.isfinite(usd):
        return "—"
    if usd == 0:
        return money(0.0, 0)
    if abs(usd) < SMALLEST_SHOWN_USD:
        return "< " + money(SMALLEST_SHOWN_USD, 4)
    return money(usd, money_digits(usd))


def _tokens(mtok: float) -> str:
    """Millions of tokens as a count: ``4.61B tokens``, ``350M tokens``."""
    from gpuadvisor.core.units import format_count

    return f"{format_count(mtok * 1e6)} tokens"


def pays_off(row) -> str:
    """The break-even column: when owning this beats paying per token."""
    even = row.break_even
    if even is None:
        return ""
    if even.mtok is None:
        return "never"
    if even.mtok == 0:
        return "from the first token"
    text = f"after {_tokens(even.mtok)}"
    return text + " (past its lifetime)" if even.beyond_lifetime else text


def table(econ, money, limit: int) -> str:
    """The ranked rows: option, kind, tokens/s, time to first token, $/Mtok, break-even."""
    from gpuadvisor.core.units import format_duration

    a = econ.assumptions
    lines = [f"Per million generated tokens ({econ.prompt_tokens:,} prompt : "
             f"{econ.new_tokens:,} new tokens a request, each token with its share of the "
             f"prompt; rentals at {a.utilization:.0%} utilization; cards over "
             f"{a.lifetime_hours:,.0f} h; power at {money(a.usd_per_kwh, 3)}/kWh); "
             f"{econ.goal} first. A vLLM or llama-server plan is priced at the users it "
             "serves at once, each at reading speed or more ('users'); others at the "
             "plan's batch"]
    head = (f"    {'#':>2}  {'option':<44}{'kind':<10}{'users':>6}{'tok/s':>8}{'1st token':>11}"
            f"{'$/Mtok':>10}  pays off vs the cheapest per-token option")
    lines += [head, "    " + "-" * (len(head) - 4)]
    shown = econ.rows[:limit]
    for n, r in enumerate(shown, start=1):
        speed = f"{r.tokens_per_s:,.1f}" if r.tokens_per_s else "—"
        first = format_duration(r.ttft_s) if r.ttft_s is not None else "—"
        price = small_money(money, r.usd_per_mtok) if r.fits else "does not fit"
        users = str(r.suggestion.users) if r.suggestion and r.suggestion.users else "—"
        lines.append(f"    {n:>2}  {r.label[:43]:<44}{r.kind:<10}{users:>6}{speed:>8}"
                     f"{first:>11}{price:>10}  {pays_off(r)}")
    if len(econ.rows) > limit:
        lines.append(f"  ... {len(econ.rows) - limit} more (--limit N, or --json)")
    if econ.no_api:
        lines.append(econ.no_api)
    return "\n".join(lines)


def break_even_text(econ, money) -> str:
    """The card to buy that pays off soonest against paying per token, in a sentence."""
    even = econ.best
    if even is None:
        return ""
    owned, other = econ.row(even.owned_id), econ.row(even.other_id)
    if even.mtok is None:
        return (f"\nBreak-even: {other.label} costs {small_money(money, other.usd_per_mtok)} "
                f"per million tokens, no more than the power for {owned.label} "
                f"({small_money(money, even.own_usd_per_mtok)}): buying never pays off on "
                "price alone.")
    lifetime = (f", longer than the {econ.assumptions.lifetime_hours:,.0f} h lifetime"
                if even.beyond_lifetime else "")
    return (f"\nBreak-even: after {_tokens(even.mtok)}, a {owned.label} "
            f"({money(even.hardware_usd)}) beats {other.label} ({even.hours:,.0f} h of "
            f"generating on it{lifetime}). Cards / (per-token price - power): "
            f"{money(even.hardware_usd)} / ({small_money(money, even.other_usd_per_mtok)} - "
            f"{small_money(money, even.own_usd_per_mtok)}) per million tokens.")


def _break_even_json(even) -> dict | None:
    if even is None:
        return None
    return {"own": even.owned_id, "other": even.other_id, "mtok": even.mtok,
            "tokens": None if even.mtok is None else even.mtok * 1e6, "hours": even.hours,
            "hardware_usd": even.hardware_usd, "own_usd_per_mtok": even.own_usd_per_mtok,
            "other_usd_per_mtok": even.other_usd_per_mtok,
            "beyond_lifetime": even.beyond_lifetime}


def row_json(r) -> dict:
    """One per-token row for ``--json``."""
    data = {"id": r.id, "kind": r.kind, "label": r.label, "fits": r.fits,
            "as_asked": r.as_asked, "usd_per_mtok": r.usd_per_mtok,
            "tokens_per_s": r.tokens_per_s, "decode_tokens_per_s": r.decode_tokens_per_s,
            "ttft_s": r.ttft_s, "users": r.suggestion.users if r.suggestion else None,
            "usd_per_hour": r.usd_per_hour,
            "energy_usd_per_mtok": r.energy_usd_per_mtok,
            "wear_usd_per_mtok": r.wear_usd_per_mtok, "hardware_usd": r.hardware_usd,
            # your own cards: the catalog prices they are priced at, and those it lacks
            "hardware_priced_as": [{"seller": seller, "as_of": as_of}
                                   for seller, as_of in r.hardware_sources],
            "hardware_unpriced": list(r.hardware_unpriced),
            "break_even": _break_even_json(r.break_even)}
    if r.api is not None:
        a = r.api
        data["api"] = {"id": a.id, "provider": a.provider, "model": a.model,
                       "model_name": a.model_name, "input_usd_per_mtok": a.input_usd_per_mtok,
                       "output_usd_per_mtok": a.output_usd_per_mtok,
                       "blended_usd_per_mtok": r.blended_usd_per_mtok, "as_of": a.as_of,
                       "source": a.source, "user": a.user}
    return data


def economics_json(econ) -> dict:
    """The ``per_token`` object of ``suggest --json``."""
    return {"assumptions": econ.assumptions.as_dict(),
            "prompt_tokens": econ.prompt_tokens, "new_tokens": econ.new_tokens,
            "unit": "USD per million generated tokens, each with its share of the prompt",
            "apis_for_model": econ.api_count, "no_api": econ.no_api or None,
            "break_even": _break_even_json(econ.best),
            "rows": [row_json(r) for r in econ.rows]}


def suggestion_keys(econ, option_id: str) -> dict:
    """The per-token keys a suggestion's JSON gains (inference plans)."""
    r = econ.row(option_id)
    if r is None:
        return {}
    return {"tokens_per_s": r.tokens_per_s, "ttft_s": r.ttft_s,
            "users": r.suggestion.users if r.suggestion else None,
            "usd_per_mtok": r.usd_per_mtok, "energy_usd_per_mtok": r.energy_usd_per_mtok,
            "wear_usd_per_mtok": r.wear_usd_per_mtok,
            "break_even_mtok": r.break_even.mtok if r.break_even else None}


__all__ = ["TOKEN_ASSUMPTIONS", "add_arguments", "break_even_text", "economics",
           "economics_json", "pays_off", "row_json", "small_money", "split_assumptions",
           "suggestion_keys", "table", "token_assumptions"]
