"""``gpuadvisor suggest``: your own cards, cards to buy, rentals and clouds, ranked."""

from __future__ import annotations

import argparse
import sys

from . import suggest_tokens
from .args import (
    MAX_HOURS,
    InputError,
    json_text,
    load_gpu,
    load_model,
    non_negative_float,
    positive_float,
    positive_int,
    tell_catalog_warnings,
)
from .estimate import checked_plan, stored_measurement


def add_parser(verbs, est: argparse.ArgumentParser) -> None:
    """``suggest <estimate's plan flags> ...``: own rig, buy, rent or cloud, ranked."""
    sug = verbs.add_parser(
        "suggest", parents=[est], add_help=False, conflict_handler="resolve",
        help="what to do: use your card, buy one, rent one or use a cloud, with costs",
        description="Estimate the plan on your own GPUs (detected), on cards to buy (1 to "
                    "--max-cards of them) and on every rent/cloud offer of the offers "
                    "catalog, then rank them: time, money (rent = hours x price; buy = "
                    "cards + electricity; your own = electricity), and the levers each "
                    "needs to fit. --gpu is ignored: every card is considered.")
    sug.add_argument("--goal", choices=("cheapest", "fastest"), default="cheapest",
                     help="rank by money or by time (default: cheapest)")
    sug.add_argument("--budget", type=positive_float("--budget"), metavar="USD",
                     help="most you want to spend on this job, in US dollars")
    sug.add_argument("--deadline", type=positive_float("--deadline", MAX_HOURS), metavar="HOURS",
                     help="the job must finish within this many hours")
    sug.add_argument("--max-cards", type=positive_int, default=4,
                     help="buy at most this many cards of one kind (default 4)")
    sug.add_argument("--electricity", type=non_negative_float("--electricity", 100.0),
                     metavar="USD_PER_KWH",
                     help="electricity price (default: the settings' price, 0.15)")
    sug.add_argument("--simulate", metavar="SPEC",
                     help="use a simulated rig as your own GPUs (e.g. '2x rtx-3090')")
    sug.add_argument("--no-rig", action="store_true",
                     help="do not look for local GPUs (buy/rent/cloud options only)")
    sug.add_argument("--limit", type=positive_int, default=15,
                     help="rows to show (default 15; --json has them all)")
    sug.add_argument("--break-even", action="store_true",
                     help="also show after how many such jobs buying the best card beats "
                          "renting the cheapest rental that fits (inference: after how many "
                          "tokens it beats the cheapest API or rental)")
    sug.add_argument("--allow-changes", action="store_true",
                     help="rank options that fit only with a change to the plan (LoRA instead "
                          "of a full fine-tune, QLoRA, ZeRO-3, CPU offload) together with "
                          "those that fit as asked (default: the plan as asked first, the "
                          "changed ones after, each naming its change)")
    suggest_tokens.add_arguments(sug)


def _own_rig(args: argparse.Namespace, gpus) -> tuple[list, str]:
    """The user's own cards as catalog specs, and a note on where they come from."""
    if args.no_rig:
        if args.simulate is not None:
            raise InputError("--simulate: a simulated rig is your own GPUs; leave out --no-rig")
        return [], "no rig (--no-rig)"
    from gpuadvisor.core.gpu import with_reported_memory
    from gpuadvisor.hardware.detect import detect

    try:
        found = detect(args.simulate, probe_torch=False)
    except ValueError as exc:
        if args.simulate is not None:  # the user's rig spec: bad input, as in detect
            raise InputError(str(exc) if str(exc).startswith("--simulate")
                             else f"--simulate: {exc}") from None
        return [], f"no rig (detection failed: {exc})"
    except Exception as exc:  # detection must never stop the advice
        return [], f"no rig (detection failed: {exc})"
    own, unmatched = [], []
    for info in found.training_gpus:
        spec = gpus.get(info.catalog_id) if info.catalog_id else None
        if spec is None or not info.memory_total_bytes:
            unmatched.append(info.name)
            continue
        own.append(with_reported_memory(spec, info.memory_total_bytes,
                                        "this machine's driver (NVML)",
                                        ecc_enabled=info.ecc_enabled))
    where = "simulated" if args.simulate else "detected"
    note = (f"your rig ({where}): {', '.join(g.name for g in own)}" if own
            else f"no GPU {where}")
    if unmatched:
        note += f"; not in the catalog: {', '.join(unmatched)}"
    return own, note


def command(args: argparse.Namespace) -> int:
    """``suggest``: the ranked options as a table (and the break-even), or one JSON object."""
    from datetime import UTC, datetime

    from gpuadvisor import catalog
    from gpuadvisor.core.advisor import advise, best_break_even
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
    from gpuadvisor.report import advice_table
    from gpuadvisor.workspace.settings import load_settings

    model = load_model(args.model)
    _gpu, gpus = load_gpu(None)
    token_assumed, assumed = suggest_tokens.split_assumptions(args.assume)
    plan = checked_plan(args, model)
    try:
        assumptions = DEFAULT_ASSUMPTIONS.with_overrides(assumed)
    except ValueError as exc:
        raise InputError(f"plan: {exc}") from None
    warnings: list[str] = []
    try:
        offers = catalog.load_offers(warnings=warnings)
    except catalog.CatalogError as exc:
        raise InputError(f"offers catalog: {exc}") from None
    tell_catalog_warnings(warnings, "gpuadvisor suggest")
    settings, problem = load_settings()
    if problem:
        print(f"gpuadvisor suggest: {problem}", file=sys.stderr)
    price = args.electricity if args.electricity is not None else settings.electricity_usd_per_kwh
    own, rig_note = _own_rig(args, gpus)
    measurements = []
    for card in {g.id for g in own}:
        measurements += stored_measurement(gpus[card], plan) or []
    today = datetime.now(UTC).date()
    try:
        advice = advise(model, plan, gpus, offers.values(), own=own, goal=args.goal,
                        budget_usd=args.budget, deadline_hours=args.deadline,
                        assumptions=assumptions, usd_per_kwh=price, today=today,
                        measurements=measurements, max_cards=args.max_cards,
                        allow_changes=args.allow_changes)
    except ValueError as exc:
        raise InputError(f"suggest: {exc}") from None
    even = best_break_even(advice.suggestions) if args.break_even or args.json else None
    econ = None
    if plan.task == "infer":
        econ = suggest_tokens.economics(
            model, plan, advice, suggest_tokens.token_assumptions(args, token_assumed, price),
            own, args.goal)
    elif token_assumed or args.lifetime_hours is not None or args.utilization is not None:
        raise InputError("--lifetime-hours, --utilization: per-token prices are for "
                         "inference plans (--task infer)")
    if args.json:
        data = _advice_json(advice, rig_note, price, even)
        if econ is not None:
            for row in data["suggestions"]:
                row.update(suggest_tokens.suggestion_keys(econ, row["id"]))
            data["per_token"] = suggest_tokens.economics_json(econ)
        print(json_text(data))
        return 0
    print(f"{model.name}: {_plan_summary(plan)}; {rig_note}; electricity ${price:g}/kWh")
    if econ is not None:
        print(suggest_tokens.table(econ, settings.format_money, args.limit))
        print(suggest_tokens.break_even_text(econ, settings.format_money))
        return 0
    print(advice_table(advice, limit=args.limit, money=settings.format_money))
    if even is not None:
        print(_break_even_text(even, settings.format_money))
    return 0


def _break_even_text(even, money) -> str:
    """After how many jobs buying beats renting (a blank line first), or that it never does.

    The sentence is the Compare page's (:func:`gpuadvisor.explain.break_even_sentence`), in
    English.
    """
    from gpuadvisor.explain import break_even_sentence

    owned, rented, result = even
    return "\nBreak-even: " + break_even_sentence(owned.option.label, rented.option.label,
                                                  result, money=money)


def _plan_summary(plan) -> str:
    from gpuadvisor.core.plan import TASK_LABELS

    return (f"{TASK_LABELS.get(plan.task, plan.task)}, {plan.precision}, micro-batch "
            f"{plan.micro_batch} x {plan.seq_len} tokens")


def _advice_json(advice, rig_note: str, price: float, even) -> dict:
    rows = []
    for s in advice.suggestions:
        offer = s.option.offer
        rows.append({
            "id": s.option.id, "kind": s.option.kind, "label": s.option.label,
            "gpu": s.option.gpu.id, "fits": s.fits, "gpus": s.n_gpus,
            "instances": s.instances, "hours": s.hours, "gpu_hours": s.gpu_hours,
            "cost_usd": s.cost_usd, "hardware_usd": s.hardware_usd,
            "energy_usd": s.energy_usd, "rent_usd": s.rent_usd, "levers": list(s.levers),
            "memory_bytes": s.memory_bytes, "capacity_bytes": s.capacity_bytes,
            "within_budget": s.within_budget, "within_deadline": s.within_deadline,
            "pareto": s.option.id in advice.pareto_ids, "why": s.why,
            "offer": None if offer is None else {
                "id": offer.id, "provider": offer.provider, "price_usd": offer.price_usd,
                "as_of": offer.as_of, "source": offer.source, "spot": offer.spot,
                "user": offer.user, "age_days": s.price_age_days, "stale": s.stale},
        })
    data = {"goal": advice.goal, "budget_usd": advice.budget_usd,
            "deadline_hours": advice.deadline_hours, "electricity_usd_per_kwh": price,
            "rig": rig_note, "nothing_fits": advice.nothing_fits,
            "best": advice.best.option.id if advice.best else None, "suggestions": rows}
    if even is not None:
        owned, rented, result = even
        data["break_even"] = {"buy": owned.option.id, "rent": rented.option.id,
                              "jobs": result.jobs, "hours": result.hours,
                              "hardware_usd": result.hardware_usd,
                              "own_per_job_usd": result.own_per_job_usd,
                              "rent_per_job_usd": result.rent_per_job_usd}
    return data
