"""The Compare page's words: option names, prices, one-sentence answers, details and
break-even, translated in the page's context ("ComparePage"). No widgets here.

Money comes in as a ``money(usd, digits=None)`` callable that writes US dollars in the
user's display currency (``Settings.format_money``). The sentences the terminal shares —
how a suggestion's sums were made and the break-even — are built by
:mod:`gpuadvisor.explain`; this module passes them Qt's translation.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from gpuadvisor import explain
from gpuadvisor.core.advisor import Advice, BreakEven, Suggestion
from gpuadvisor.core.offers import STALE_AFTER_DAYS, Offer
from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui import data_words
from gpuadvisor.gui.charts.compare_charts import kind_labels
from gpuadvisor.gui.numbers import duration
from gpuadvisor.gui.widgets.labels import (
    BOUNDS,
    PRECISIONS,
    TASKS,
    label,
    quant_label,
    source_label,
)
from gpuadvisor.gui.widgets.summary import plan_line
from gpuadvisor.gui.widgets.wrap import cjk_words

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: The templates of :mod:`gpuadvisor.explain`, marked again where lupdate looks for texts
#: (gpuadvisor/gui and gpuadvisor/hardware). tests/test_explain.py checks that the two agree.
EXPLAIN_TEMPLATES = (
    QT_TRANSLATE_NOOP(
        "ComparePage",
        "Time: {gpus} GPU(s) at {tflops:,.0f} TFLOPS each ({efficiency:.0%} of peak, "
        "{source}), limited by {bound}; {gpu_hours:,.1f} GPU-hours"),
    QT_TRANSLATE_NOOP("ComparePage", "Cards: {n} × {price} = {total}"),
    QT_TRANSLATE_NOOP(
        "ComparePage",
        "Power: {tdp:,.0f} W × {load:.0%} load × {gpus} GPU(s) × {hours} = {kwh:,.1f} kWh "
        "× {price}/kWh = {total}"),
    QT_TRANSLATE_NOOP(
        "ComparePage", "Rent: {hours} × {instances} instance(s) × {price}/h = {total}"),
    QT_TRANSLATE_NOOP(
        "ComparePage",
        "Renting {rent} costs no more per job than the power for {own}: buying never pays "
        "off on price alone."),
    QT_TRANSLATE_NOOP(
        "ComparePage",
        "{own} ({price}) beats renting {rent} after {jobs} such jobs ({hours} of training on "
        "it)."),
    QT_TRANSLATE_NOOP(
        "ComparePage", "Cards ÷ (rent − power per job): {price} ÷ ({rent} − {power})."),
)


def _explain_tr(text: str) -> str:
    return translate(explain.CONTEXT, text)


#: Words a table cell leaves out of a GPU's name (the maker and its brand; the model and
#: its variant stay): "NVIDIA GeForce RTX 3060 12GB" is "RTX 3060 12GB" there.
MAKER_WORDS = ("NVIDIA ", "GeForce ", "AMD ", "Radeon ", "Intel ")


def short_gpu_name(name: str) -> str:
    """``name`` without the maker's words, for a narrow cell (the full name stays in its
    tooltip)."""
    short = name
    for word in MAKER_WORDS:
        short = short.replace(word, "")
    return short.strip() or name


def option_label(option, *, short: bool = False) -> str:
    """An option's name for people, translated (the core's label, in English, otherwise);
    ``short``: the GPU named without its maker (:func:`short_gpu_name`), for the table."""
    gpu = short_gpu_name(option.gpu.name) if short else option.gpu.name
    offer = option.offer
    if option.kind == "own":
        cards = option.label.removeprefix("your ")
        return translate("ComparePage", "your {cards}").format(
            cards=short_gpu_name(cards) if short else cards)
    if option.kind in ("buy-new", "buy-used"):
        used = option.kind == "buy-used"
        if option.n_gpus > 1:
            text = (translate("ComparePage", "{n}x used {gpu}") if used
                    else translate("ComparePage", "{n}x new {gpu}"))
        else:
            text = (translate("ComparePage", "used {gpu}") if used
                    else translate("ComparePage", "new {gpu}"))
        return text.format(n=option.n_gpus, gpu=gpu)
    count = f"{offer.gpus_per_instance}x " if offer.gpus_per_instance > 1 else ""
    name = f"{offer.provider} {count}{gpu}"
    return translate("ComparePage", "{name} (spot)").format(name=name) if offer.spot else name


def price_text(offer: Offer | None, money) -> str:
    """An offer's price: per card to buy, per GPU-hour to rent ("" for the user's rig)."""
    if offer is None:
        return ""
    if offer.is_buy:
        return translate("ComparePage", "{price} per card").format(
            price=money(offer.price_usd))
    return translate("ComparePage", "{price}/GPU-h").format(price=money(offer.price_usd, 2))


def plan_heading(plan, model, *, short: bool = False) -> str:
    """The plan in one rich-text line above the page: model, task, precision, shape (without
    the shape when ``short``: a projector)."""
    # A quantized model served is its weights' format ("Q4_K_M (GGUF)"), not the compute
    # precision beside it (a projector's heading said "bf16 mixed" of a Q4_K_M plan).
    quantized = plan.task == "infer" and plan.effective_quant != "none"
    precision = (quant_label(plan.effective_quant) if quantized
                 else label(PRECISIONS, plan.precision))
    if short:
        return translate("ComparePage", "<b>{model}</b>, {task}, {precision}").format(
            model=escape(model.name), task=label(TASKS, plan.task), precision=precision)
    # a run of Chinese characters stays whole: the line breaks at its spaces and "·", not
    # inside a word ("双重量" / "化")
    return cjk_words(translate("ComparePage", "<b>{model}</b>, {task}, {precision} · {line}")
                     .format(model=model.name, task=label(TASKS, plan.task),
                             precision=precision, line=plan_line(plan, model)))


def why(s: Suggestion, money, units: str = "GiB") -> str:
    """One sentence for people about an option, in the display currency, memory in ``units``
    (GiB or GB, the View setting)."""
    took = duration(s.hours * 3600.0)
    levers = (translate("ComparePage", " with {levers}").format(
        levers=data_words.lever_names(s.levers)) if s.levers else "")
    name = option_label(s.option)
    if not s.fits:
        return translate("ComparePage", "{name} does not fit: {need} per GPU needed, {have} "
                         "available").format(name=name, need=format_bytes(s.memory_bytes, units),
                                              have=format_bytes(s.capacity_bytes, units))
    if s.option.kind == "own":
        return translate("ComparePage", "{name} finishes in {time}{levers} for {power} of "
                         "power").format(name=name, time=took, levers=levers,
                                         power=money(s.energy_usd))
    if s.option.kind in ("buy-new", "buy-used"):
        return translate("ComparePage", "{name} ({price}) finishes in {time}{levers}, plus "
                         "{power} of power").format(name=name, price=money(s.hardware_usd),
                                                    time=took, levers=levers,
                                                    power=money(s.energy_usd))
    instances = (translate("ComparePage", " on {n} instances").format(n=s.instances)
                 if s.instances > 1 else "")
    return translate("ComparePage", "renting {name} costs {cost} and takes "
                     "{time}{instances}{levers}").format(
        name=name, cost=money(s.rent_usd), time=took, instances=instances, levers=levers)


def full_stop(sentence: str) -> str:
    """``sentence`` ended as the reader's language ends one ("." in English, "。" in
    Chinese)."""
    return translate("ComparePage", "{sentence}.").format(sentence=sentence)


def computation_lines(s: Suggestion, money, usd_per_kwh: float) -> list[str]:
    """How the time and each sum of money of a fitting option were made, one line each
    (see :func:`gpuadvisor.explain.computation_lines`), translated."""
    return explain.computation_lines(
        s, usd_per_kwh=usd_per_kwh, money=money, translate=_explain_tr,
        source=source_label(s.time_source), bound=label(BOUNDS, s.bound),
        hours_text=lambda hours: translate("Numbers", "{n} h").format(n=f"{hours:,.1f}"))


def details_html(s: Suggestion, money, usd_per_kwh: float, units: str = "GiB") -> str:
    """The selected option in detail (rich text): name and kind, its sentence, how its sums
    were made, its price with where and when it was seen."""
    lines = [f"<b>{escape(option_label(s.option))}</b> — "
             f"{escape(kind_labels().get(s.option.kind, s.option.kind))}",
             escape(full_stop(why(s, money, units)))]
    if s.fits:
        lines += [escape(line) for line in computation_lines(s, money, usd_per_kwh)]
    lines += offer_lines(s, money)
    return "<br>".join(lines)


def offer_lines(s: Suggestion, money) -> list[str]:
    """An option's price in rich-text lines: price, instance, region, spot; when and where
    it was seen (a link), its age, and its notes (none for the user's rig)."""
    offer = s.option.offer
    if offer is None:
        return []
    lines = []
    price = [price_text(offer, money)]
    if offer.instance:
        price.append(offer.instance)
    if offer.region:
        price.append(data_words.region(offer.region))
    if offer.spot:
        price.append(translate("ComparePage", "spot: may be interrupted"))
    lines.append(escape(" · ".join(price)))
    if offer.user:
        seen = translate("ComparePage", "your price, {date}").format(date=offer.as_of)
    else:
        seen = translate("ComparePage", "price seen {date}").format(date=offer.as_of)
        if s.price_age_days is not None:
            seen += " " + translate("ComparePage", "({days} days ago)").format(
                days=s.price_age_days)
    if s.stale:
        seen = "⚠ " + seen + " — " + translate(
            "ComparePage", "older than {days} days: check it").format(days=STALE_AFTER_DAYS)
    if offer.estimate:
        seen += " — " + translate("ComparePage", "an estimate")
    source = escape(offer.source)
    if offer.source.startswith(("https://", "http://")):
        source = f'<a href="{escape(offer.source)}">{source}</a>'
    lines.append(f"{escape(seen)}; {translate('ComparePage', 'source')}: {source}")
    if offer.notes:
        lines.append(f"<i>{escape(offer.notes)}</i>")
    return lines


def break_even_text(owned: Suggestion, rented: Suggestion, result: BreakEven, money) -> str:
    """When buying ``owned`` beats renting ``rented``, with its arithmetic, translated: the
    terminal's sentence (:func:`gpuadvisor.explain.break_even_sentence`), with its time in
    the reader's words ("239 天")."""
    own, rent = option_label(owned.option), option_label(rented.option)
    if result.jobs is None:
        return explain.break_even_sentence(own, rent, result, money=money,
                                           translate=_explain_tr)
    jobs = f"{result.jobs:,.0f}" if result.jobs >= 10 else f"{result.jobs:.1f}"
    text = _explain_tr(explain.PAYS_OFF).format(
        own=own, price=money(result.hardware_usd), rent=rent, jobs=jobs,
        hours=duration(result.hours * 3600.0))
    return text + " " + _explain_tr(explain.PAYS_OFF_SUM).format(
        price=money(result.hardware_usd), rent=money(result.rent_per_job_usd),
        power=money(result.own_per_job_usd))


def rig_note(lost, own) -> str:
    """What the page says when cards of the rig fell off the bus ("" when none did): the
    rig compared is the one present now."""
    if not lost:
        return ""
    gone = translate("Lists", ", ").join(translate("ComparePage", "GPU {index} ({name})").format(
        index=info.index, name=info.name) for info in lost)
    if own:
        from gpuadvisor.core.advisor import rig_label

        return translate("ComparePage", "⚠ Lost from the rig: {gone}. Your rig is compared as "
                         "it is now: {rig}.").format(gone=gone, rig=rig_label(own))
    return translate("ComparePage", "⚠ Lost from the rig: {gone}. No card of your rig is left "
                     "to compare.").format(gone=gone)


def break_even_title(owned: Suggestion | None, rented: Suggestion | None, kind: str) -> str:
    """Which pair the break-even weighs and why, in words (the selection decides it)."""
    if owned is None or rented is None:
        return translate("ComparePage", "Owning against renting")
    own, rent = option_label(owned.option), option_label(rented.option)
    if kind in ("buy-new", "buy-used"):
        text = translate("ComparePage", "Buying {own} (selected) against renting {rent}, the "
                         "cheapest rental")
    elif kind in ("rent", "cloud"):
        text = translate("ComparePage", "Renting {rent} (selected) against buying {own}, the "
                         "card that pays off soonest")
    else:
        text = translate("ComparePage", "Buying {own} against renting {rent}: the pair that "
                         "pays off soonest (select a card or a rental to weigh it)")
    return text.format(own=own, rent=rent)


def no_break_even_texts() -> tuple[str, str]:
    """(the chart's note, the sentence) when there is no card and rental to compare."""
    return (translate("ComparePage", "No card to buy and rental to compare"),
            translate("ComparePage", "Break-even needs a card to buy and a rental that both "
                      "fit the plan among the options shown."))


def answer(advice: Advice, shown: list[Suggestion], money, *, budget_usd: float | None,
           deadline_hours: float | None, prefix: str = "",
           units: str = "GiB") -> tuple[str, str]:
    """The answer banner: ``(text, state)``, state ``ok`` or ``none``.

    The best option shown for the goal (and the best for the other goal when that is
    another option); or why nothing shown fits or meets the budget and deadline, naming
    the closest. ``prefix`` comes first (why the offers catalog is missing).
    """
    if advice.nothing_fits and not any(s.fits for s in advice.suggestions):
        if not advice.suggestions:
            return prefix + translate("ComparePage", "No options to compare: the offers "
                                      "catalog is empty and no GPU was detected."), "none"
        closest = min(advice.suggestions, key=lambda s: s.memory_bytes / s.capacity_bytes)
        return prefix + translate(
            "ComparePage", "Nothing fits this plan. The closest is {name}: {need} per GPU "
            "needed, {have} available; “Make it fit” on the Plan page says what would.").format(
                name=option_label(closest.option),
                need=format_bytes(closest.memory_bytes, units),
                have=format_bytes(closest.capacity_bytes, units)), "none"
    allow = advice.allow_changes
    best = next((s for s in shown if s.acceptable and s.counts(allow)), None)
    if best is None and not any(s.as_asked for s in shown):
        changed = next((s for s in shown if s.acceptable), None)
        if changed is not None:
            # Nothing runs the plan as it is: say so, and what a change would buy.
            return prefix + translate(
                "ComparePage", "Nothing shown runs this plan as it is. With a change to the "
                "plan: {why}. Tick “Allow changes to the plan” to rank such options with the "
                "others.").format(why=why(changed, money, units)), "none"
    if best is None:
        fitting = [s for s in shown if s.fits and s.counts(allow)]
        if not fitting:
            return prefix + translate(
                "ComparePage", "None of the options shown fits this plan: widen the "
                "filters."), "none"
        limits = []
        if budget_usd is not None:
            limits.append(translate("ComparePage", "the budget of {budget}").format(
                budget=money(budget_usd)))
        if deadline_hours is not None:
            limits.append(translate("ComparePage", "the deadline of {time}").format(
                time=duration(deadline_hours * 3600.0)))
        closest = fitting[0]
        return prefix + translate("ComparePage", "Nothing shown meets {limits}. Closest: "
                                  "{why}.").format(
            limits=translate("ComparePage", " and ").join(limits),
            why=why(closest, money, units)), "none"
    goal = (translate("ComparePage", "cheapest") if advice.goal == "cheapest"
            else translate("ComparePage", "fastest"))
    text = translate("ComparePage", "Best ({goal}): {why}.").format(goal=goal,
                                                                    why=why(best, money, units))
    other_goal = "fastest" if advice.goal == "cheapest" else "cheapest"
    acceptable = [s for s in shown if s.acceptable and s.counts(allow)]
    key = ((lambda s: (s.hours, s.cost_usd)) if other_goal == "fastest"
           else (lambda s: (s.cost_usd, s.hours)))
    other = min(acceptable, key=key)
    if other.option.id != best.option.id:
        name = (translate("ComparePage", "Fastest") if other_goal == "fastest"
                else translate("ComparePage", "Cheapest"))
        text += " " + translate("ComparePage", "{label}: {why}.").format(
            label=name, why=why(other, money, units))
    return prefix + text, "ok"


def count_text(shown: list[Suggestion], total: int, currency: str, rate: float,
               warnings: list[str]) -> str:
    """The note under the table: how many options are shown, how many fit the plan as asked
    and how many only with a change to it, the currency."""
    fitting = sum(1 for s in shown if s.as_asked)
    changed = sum(1 for s in shown if s.fits and not s.as_asked)
    text = translate("ComparePage", "{shown} of {total} options shown; {fitting} fit the plan "
                     "as asked").format(shown=len(shown), total=total, fitting=fitting)
    if changed:
        text += translate("ComparePage", ", {changed} more only with a change to the "
                          "plan").format(changed=changed)
    text += translate("ComparePage", ". ★ = best trade-off (Pareto front).")
    if currency != "USD":  # said only when the page converts
        text += " " + translate("ComparePage", "Prices in {code} at {rate} per USD.").format(
            code=currency, rate=f"{rate:g}")
    if warnings:
        text += " " + " ".join(warnings)
    return text


__all__ = ["EXPLAIN_TEMPLATES", "answer", "break_even_text", "break_even_title",
           "computation_lines", "count_text", "details_html", "no_break_even_texts",
           "offer_lines", "option_label", "plan_heading", "price_text", "rig_note", "why"]
