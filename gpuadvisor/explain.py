"""Sentences that explain a suggestion's sums: how its time and each sum of money were
made, and after how many jobs owning a card beats renting one.

The Compare page shows them translated; the terminal can print them as they are. Each
function takes ``money`` (US dollars, and optionally the digits, to text in the reader's
currency) and ``translate`` (an English template to the reader's language; the identity by
default). Nothing here imports Qt: the templates are marked with :func:`QT_TRANSLATE_NOOP`
under the Compare page's translation context, and the app passes Qt's translation in.
"""

from __future__ import annotations

from collections.abc import Callable

from .core.advisor import DEFAULT_LOAD_FRACTION, BreakEven, Suggestion
from .core.units import format_duration

#: US dollars (and optionally the digits after the point) to text for people.
Money = Callable[..., str]
#: An English template to the reader's language.
Translate = Callable[[str], str]

#: Translation context of the templates (the Compare page, which shows them).
CONTEXT = "ComparePage"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for Qt's translation catalog without importing Qt (returns it unchanged)."""
    return text


TIME = QT_TRANSLATE_NOOP(
    "ComparePage",
    "Time: {gpus} GPU(s) at {tflops:,.0f} TFLOPS each ({efficiency:.0%} of peak, {source}), "
    "limited by {bound}; {gpu_hours:,.1f} GPU-hours")
CARDS = QT_TRANSLATE_NOOP("ComparePage", "Cards: {n} × {price} = {total}")
POWER = QT_TRANSLATE_NOOP(
    "ComparePage",
    "Power: {tdp:,.0f} W × {load:.0%} load × {gpus} GPU(s) × {hours} = {kwh:,.1f} kWh × "
    "{price}/kWh = {total}")
RENT = QT_TRANSLATE_NOOP(
    "ComparePage", "Rent: {hours} × {instances} instance(s) × {price}/h = {total}")
NEVER_PAYS_OFF = QT_TRANSLATE_NOOP(
    "ComparePage",
    "Renting {rent} costs no more per job than the power for {own}: buying never pays off "
    "on price alone.")
PAYS_OFF = QT_TRANSLATE_NOOP(
    "ComparePage",
    "{own} ({price}) beats renting {rent} after {jobs} such jobs ({hours} of training on it).")
PAYS_OFF_SUM = QT_TRANSLATE_NOOP(
    "ComparePage", "Cards ÷ (rent − power per job): {price} ÷ ({rent} − {power}).")

#: Every template above, for checks that a translation catalog covers them.
TEMPLATES = (TIME, CARDS, POWER, RENT, NEVER_PAYS_OFF, PAYS_OFF, PAYS_OFF_SUM)


def _same(text: str) -> str:
    return text


def _dollars(amount_usd: float, digits: int | None = None) -> str:
    return f"${amount_usd:,.{2 if digits is None else digits}f}"


def computation_lines(s: Suggestion, *, usd_per_kwh: float, money: Money = _dollars,
                      translate: Translate = _same, source: str | None = None,
                      bound: str | None = None,
                      hours_text: Callable[[float], str] | None = None) -> list[str]:
    """How the time and each sum of money of a fitting suggestion were made, one line each.

    The throughput the time rests on (TFLOPS per GPU, its share of the peak and where that
    efficiency comes from, what limits it), then, where they apply, the cards (count x price),
    the power (TDP x load x GPUs x hours = kWh, x price per kWh) and the rent (hours x
    instances x instance price per hour).

    Args:
        s: the suggestion (it must fit: an unfit one has no time).
        usd_per_kwh: the electricity price the power was costed at, US dollars per kWh.
        money: US dollars to text; called as ``money(usd)`` and ``money(usd, digits)``.
        translate: the templates to the reader's language.
        source: where the efficiency comes from, for people (default: ``s.time_source``).
        bound: what limits the speed, for people (default: ``s.bound``).
        hours_text: hours to text in the reader's language (default ``"3.6 h"``).
    """
    hours = f"{s.hours:,.1f} h" if hours_text is None else hours_text(s.hours)
    lines = [translate(TIME).format(
        gpus=s.n_gpus, tflops=s.tflops_per_gpu, efficiency=s.efficiency,
        source=s.time_source if source is None else source,
        bound=s.bound if bound is None else bound, gpu_hours=s.gpu_hours)]
    offer = s.option.offer
    if s.hardware_usd and offer is not None:
        lines.append(translate(CARDS).format(
            n=s.n_gpus, price=money(offer.price_usd), total=money(s.hardware_usd)))
    if s.option.kind in ("own", "buy-new", "buy-used"):
        kwh = s.option.gpu.tdp_w * DEFAULT_LOAD_FRACTION * s.n_gpus * s.hours / 1000.0
        lines.append(translate(POWER).format(
            tdp=s.option.gpu.tdp_w, load=DEFAULT_LOAD_FRACTION, gpus=s.n_gpus, hours=hours,
            kwh=kwh, price=money(usd_per_kwh, 3), total=money(s.energy_usd)))
    if s.rent_usd and offer is not None:
        lines.append(translate(RENT).format(
            hours=hours, instances=s.instances, price=money(offer.instance_price_usd, 2),
            total=money(s.rent_usd)))
    return lines


def break_even_sentence(own: str, rent: str, result: BreakEven, *, money: Money = _dollars,
                        translate: Translate = _same) -> str:
    """When buying the cards named ``own`` beats renting ``rent``, with its arithmetic
    (cards ÷ (rent − power per job)), or that it never does.

    Args:
        own: the cards to buy, as the reader knows them (an option's label).
        rent: the rental, likewise.
        result: :func:`gpuadvisor.core.advisor.break_even` of the two.
        money: US dollars to text.
        translate: the templates to the reader's language.
    """
    if result.jobs is None:
        return translate(NEVER_PAYS_OFF).format(rent=rent, own=own)
    jobs = f"{result.jobs:,.0f}" if result.jobs >= 10 else f"{result.jobs:.1f}"
    text = translate(PAYS_OFF).format(
        own=own, price=money(result.hardware_usd), rent=rent, jobs=jobs,
        hours=format_duration(result.hours * 3600.0))
    return text + " " + translate(PAYS_OFF_SUM).format(
        price=money(result.hardware_usd), rent=money(result.rent_per_job_usd),
        power=money(result.own_per_job_usd))


__all__ = ["CONTEXT", "TEMPLATES", "break_even_sentence", "computation_lines"]
