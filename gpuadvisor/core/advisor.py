"""The advice: use your own card, buy one (new or used), rent one, or use a cloud.

For one plan, every option is estimated with the same estimator as the Plan page:

- **own**: the user's rig as it is (the detected cards; electricity only);
- **buy-new / buy-used**: each buyable card, 1 to ``max_cards`` of them (hardware price plus
  electricity);
- **rent / cloud**: each offer, in whole instances (hours x instances x instance price).

Each option gets: whether the plan fits (if not as given, the levers of
:func:`gpuadvisor.core.fit.make_it_fit` that make it fit, e.g. QLoRA: then it fits only with
a changed plan, which :func:`rank` keeps apart unless changes are allowed), the GPUs, the
wall-clock time (scaling limited by the real interconnect, see below) and the money.
:func:`rank` orders them for the user's goal (cheapest or fastest, within a budget and/or a
deadline); :func:`pareto` marks the options no other beats on both time and cost;
:func:`break_even` says after how many such jobs owning a card beats renting.

Interconnect: several consumer cards without NVLink exchange gradients over PCIe, and with
peer-to-peer disabled by the GeForce driver the traffic goes GPU -> host memory -> GPU,
crossing the link twice; the estimate times them at half their PCIe rate
(:data:`~.estimate.HOST_BOUNCE_FACTOR`, one rule for every door). A rented instance's own
link (``Offer.interconnect``) replaces the card's: an A100 in a PCIe server has no NVLink
even though the SXM module does. Jobs larger than one instance cross the network
(``Assumptions.inter_node_gb_s``).

Electricity: ``TDP x load_fraction x GPUs x hours`` at the user's price per kWh;
``load_fraction`` (default 0.85) because training holds a card near, not at, its board
power limit for hours; host power is not counted.

Pure: no files, no Qt. Money in US dollars; the GUI converts for display.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from . import serving_load
from .advisor_break_even import BreakEven, best_break_even, break_even
from .advisor_types import Advice, Option, Suggestion
from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from .calibration import Measurement
from .engines.llamacpp_backends import plan_for_card
from .estimate import Estimate
from .fit import make_it_fit
from .gpu import GpuSpec
from .model import ModelSpec
from .offers import Offer, age_days, is_stale
from .plan import Plan
from .resolve import resolve
from .units import format_duration

#: Fraction of the board power (TDP) a card draws while training, on average.
DEFAULT_LOAD_FRACTION = 0.85
#: Default electricity price (USD per kWh) when the user has not set one.
DEFAULT_USD_PER_KWH = 0.15  # the settings default (gpuadvisor.workspace.settings)
GOALS = ("cheapest", "fastest")
OPTION_KINDS = ("own", "buy-new", "buy-used", "rent", "cloud")


# --------------------------------------------------------------------------- options
def options_for(gpus: Mapping[str, GpuSpec], offers: Iterable[Offer], *,
                own: Sequence[GpuSpec] = (), max_cards: int = 4) -> list[Option]:
    """Every option: the own rig (if any cards), each buy offer at 1, 2, 4 ... ``max_cards``
    cards (a unified-memory system once), and each rent/cloud offer (one instance;
    :func:`evaluate` rents more when needed). Offers of GPUs missing from ``gpus`` are
    skipped."""
    if max_cards < 1:
        raise ValueError(f"max_cards must be at least 1, got {max_cards}")
    options = own_options(own)
    counts = [n for n in (1, 2, 4, 8) if n <= max_cards]
    for offer in offers:
        gpu = gpus.get(offer.gpu_id)
        if gpu is None:
            continue
        if offer.is_buy:
            condition = "used" if offer.kind == "buy-used" else "new"
            # a unified-memory system (a Mac, a DGX Spark) is one computer: one per option
            for n in ([1] if gpu.unified_memory else counts):
                prefix = f"{n}x " if n > 1 else ""
                options.append(Option(f"{offer.kind}:{offer.id}:x{n}", offer.kind, gpu, n,
                                      offer, f"{prefix}{condition} {gpu.name}"))
        else:
            spot = " (spot)" if offer.spot else ""
            count = f"{offer.gpus_per_instance}x " if offer.gpus_per_instance > 1 else ""
            options.append(Option(f"offer:{offer.id}", offer.kind, gpu,
                                  offer.gpus_per_instance, offer,
                                  f"{offer.provider} {count}{gpu.name}{spot}"))
    return options


def rig_label(cards: Sequence[GpuSpec]) -> str:
    """Cards for people, largest first: "RTX 3090 + RTX 3060 12GB", "2x RTX 3090"."""
    counts: dict[str, int] = {}
    for card in sorted(cards, key=lambda g: (-g.memory_gib, g.name)):
        counts[card.name] = counts.get(card.name, 0) + 1
    return " + ".join(f"{n}x {name}" if n > 1 else name for name, n in counts.items())


def _weakest(cards: Sequence[GpuSpec]) -> GpuSpec:
    """The card a synchronous job on ``cards`` runs as: the slowest card's rates with the
    least memory and bandwidth of any of them, and their average board power (what the
    electricity of ``n x tdp`` then adds up to)."""
    slowest = min(cards, key=lambda g: (g.fp16_tensor_tflops, g.memory_gib))
    if all(card == slowest for card in cards):
        return slowest
    return replace(slowest, name=rig_label(cards),
                   memory_gib=min(g.memory_gib for g in cards),
                   memory_bandwidth_gb_s=min(g.memory_bandwidth_gb_s for g in cards),
                   tdp_w=sum(g.tdp_w for g in cards) / len(cards))


#: Most options made of the user's own cards (subsets of a large mixed rig are pruned).
MAX_OWN_OPTIONS = 12


def own_options(own: Sequence[GpuSpec]) -> list[Option]:
    """The user's rig as options: every card together (id ``own``) and each smaller set of
    its cards (``own:<n>x<gpu id>+...``): a mixed 3090 + 3060 rig is the 3090 alone, the 3060
    alone and both; identical cards are tried 1, 2, 4, ... at a time. Each set runs as its
    weakest card (:func:`_weakest`); the best sets (most memory, then speed) are kept when a
    large mixed rig has more than :data:`MAX_OWN_OPTIONS`."""
    if not own:
        return []
    kinds: list[tuple[GpuSpec, int]] = []
    for card in own:
        for k, (spec, n) in enumerate(kinds):
            if spec == card:
                kinds[k] = (spec, n + 1)
                break
        else:
            kinds.append((card, 1))

    def counts(n: int) -> list[int]:
        return sorted({0, n, *(c for c in (1, 2, 4, 8, 16, 32) if c < n)})

    sets: list[tuple[int, ...]] = [()]
    for _spec, n in kinds:
        sets = [(*prefix, c) for prefix in sets for c in counts(n)]
    full = tuple(n for _spec, n in kinds)
    options = []
    for chosen in sets:
        cards = [spec for (spec, _n), c in zip(kinds, chosen, strict=True) for _ in range(c)]
        if not cards:
            continue
        key = "+".join(f"{c}x{spec.id}" for (spec, _n), c in zip(kinds, chosen, strict=True)
                       if c)
        option_id = "own" if chosen == full else f"own:{key}"
        options.append(Option(option_id, "own", _weakest(cards), len(cards), None,
                              f"your {rig_label(cards)}"))
    # The whole rig (made last) first, then the larger sets, the best of them when many.
    rest = sorted(options[:-1], key=lambda o: (-o.gpu.memory_gib * o.n_gpus,
                                               -o.gpu.fp16_tensor_tflops * o.n_gpus))
    rest = sorted(rest[:MAX_OWN_OPTIONS - 1], key=lambda o: (-o.n_gpus, -o.gpu.memory_gib, o.id))
    return [options[-1], *rest]


def effective_gpu(option: Option) -> GpuSpec:
    """The card as the job sees it: the instance's link for rentals (consumer cards without
    a peer link are timed by the estimate itself, :data:`~.estimate.HOST_BOUNCE_FACTOR`)."""
    gpu = option.gpu
    link = option.offer.interconnect if option.offer is not None else None
    if link in ("pcie", "none") and gpu.p2p_link != "none":
        gpu = replace(gpu, p2p_link="none", p2p_bandwidth_gb_s=None)
    return gpu


# --------------------------------------------------------------------------- evaluation
@dataclass
class _Cache:
    results: dict = field(default_factory=dict)


def evaluate(model: ModelSpec, plan: Plan, option: Option, *,
             assumptions: Assumptions = DEFAULT_ASSUMPTIONS, usd_per_kwh: float =
             DEFAULT_USD_PER_KWH, load_fraction: float = DEFAULT_LOAD_FRACTION,
             today: date | None = None, measurements: Sequence[Measurement] = (),
             max_cards: int = 4, _cache: _Cache | None = None) -> Suggestion:
    """Estimate ``plan`` on ``option`` (see the module docstring for the money).

    The plan runs on the option's GPUs (data parallel; ZeRO as the plan says). When it does
    not fit, :func:`~.fit.make_it_fit` adds levers; a lever asking for more GPUs is taken
    for rentals (more instances) and for buying (up to ``max_cards``), not for the own rig.
    ``measurements`` (probe results) time the own rig only.
    """
    gpu = effective_gpu(option)
    key = (gpu, option.n_gpus, option.kind == "own")
    cache = _cache if _cache is not None else _Cache()
    if key not in cache.results:
        cache.results[key] = _fit(model, plan, gpu, option, assumptions, max_cards,
                                  measurements if option.kind == "own" else ())
    fits, run_plan, levers, result, served = cache.results[key]
    n = run_plan.n_gpus
    hours = float(result.time.seconds) / 3600.0
    instances = 1
    hardware = energy = rent = 0.0
    offer = option.offer
    if option.kind in ("rent", "cloud"):
        instances = math.ceil(n / offer.gpus_per_instance)
        rent = hours * instances * offer.instance_price_usd
    else:
        energy = gpu.tdp_w * load_fraction * n * hours / 1000.0 * usd_per_kwh
        if offer is not None:
            hardware = offer.price_usd * n
    age = age_days(offer, today) if offer is not None and today is not None else None
    stale = bool(offer is not None and today is not None and is_stale(offer, today))
    suggestion = Suggestion(
        option=option, fits=fits, plan=run_plan, levers=tuple(levers), n_gpus=n,
        instances=instances, hours=hours, gpu_hours=float(result.time.gpu_hours),
        hardware_usd=hardware, energy_usd=energy, rent_usd=rent,
        memory_bytes=float(result.memory.total), capacity_bytes=float(gpu.usable_bytes),
        price_age_days=age, stale=stale,
        tflops_per_gpu=float(result.time.achieved_tflops_per_gpu),
        efficiency=float(result.time.efficiency),
        time_source=str(result.assumptions.get("efficiency_source", "assumed")),
        bound=str(result.time.bound),
        **_speed(result, served))
    return replace(suggestion, why=explain(suggestion))


def _speed(result, served) -> dict:
    """The token speed an inference option is priced at: a serving plan's at its capacity
    (every user at reading speed: tokens/s in all, the first token at that load), else the
    estimate's batch."""
    point = served.point if served is not None else None
    if point is not None:
        return {"tokens_per_s": float(point.tokens_per_s_total),
                "prefill_seconds": float(point.first_token_s),
                "decode_tokens_per_s": float(point.tokens_per_s_total),
                "users": int(served.users)}
    return {"tokens_per_s": float(result.time.tokens_per_s),
            "prefill_seconds": float(result.time.prefill_seconds),
            "decode_tokens_per_s": float(result.time.decode_tokens_per_s)}


#: Host RAM a desktop is assumed to have for CPU offload when the option says nothing:
#: 64 GiB (two 32 GB DIMMs, the common enthusiast build for local training).
DESKTOP_HOST_RAM_BYTES = 64 * 2**30
#: Host RAM per GPU of a rented or cloud instance: about 120 GiB (RunPod's single H100 SXM
#: pod lists 125 GB; AWS p4d.24xlarge has 1,152 GiB for 8 GPUs = 144 GiB each).
INSTANCE_HOST_RAM_PER_GPU_BYTES = 120 * 2**30


def host_ram_for(option: Option) -> float:
    """Host RAM CPU offload may use on ``option``: a desktop's for the own rig and bought
    cards, an instance's per GPU for rentals and clouds."""
    if option.kind in ("rent", "cloud"):
        return float(INSTANCE_HOST_RAM_PER_GPU_BYTES * option.n_gpus)
    return float(DESKTOP_HOST_RAM_BYTES)


def _fit(model, plan, gpu, option, assumptions, max_cards, measurements):
    """``(fits, plan as run, lever titles, estimate)`` for ``plan`` on ``option``'s GPUs.

    The plan runs on the option's GPUs as :func:`~.resolve.resolve` lays it out (every door's
    estimate). When it does not fit, :func:`~.fit.make_it_fit` searches the combinations of
    levers (checkpointing, ZeRO-3, CPU offload, 8-bit optimizer, QLoRA, a smaller
    micro-batch, ...) for the fastest that fits; more GPUs only where the option can have
    them (rentals of multi-GPU instances up to 16, buying up to ``max_cards``, never the own
    rig). The estimate returned is the one of the plan as it will run.
    """
    base = plan_for_card(plan.with_changes(n_gpus=option.n_gpus), gpu)
    measured = list(measurements) or None

    def timed(m, p, g, a):
        return resolve(m, p, g, a, measurement=measured)

    if option.kind == "own" or (option.offer is not None
                                and option.offer.gpus_per_instance == 1
                                and option.kind in ("rent", "cloud")):
        max_gpus = option.n_gpus
    elif option.kind in ("buy-new", "buy-used"):
        max_gpus = max(option.n_gpus, max_cards)
    else:
        max_gpus = 16
    advice = make_it_fit(model, base, gpu, assumptions, timed=timed, max_gpus=max_gpus,
                         host_ram_bytes=host_ram_for(option))
    if advice.fits:
        return (True, advice.plan, [s.title for s in advice.steps], advice.result,
                _served(advice.result, assumptions, measured))
    return False, base, [s.title for s in advice.steps], advice.result, None


def _served(result, assumptions, measured):
    """A serving plan's capacity on the option (:func:`~.serving_load.capacity`, resolved
    as the option's estimate was), or None for a plan that serves one batch."""
    if not serving_load.serves_many(result):
        return None
    try:
        return serving_load.capacity(result, assumptions=assumptions, measurement=measured)
    except (ArithmeticError, ValueError):
        return None


def explain(s: Suggestion) -> str:
    """One sentence for people: what it takes, how long, how much."""
    name = s.option.label
    if not s.fits:
        over = s.memory_bytes / 2**30
        have = s.capacity_bytes / 2**30
        return (f"{name}: does not fit ({over:.1f} GiB per GPU needed, {have:.0f} GiB "
                f"available) even with {', '.join(s.levers) or 'every lever'}")
    with_levers = f" with {_join(s.levers)}" if s.levers else ""
    took = format_duration(s.hours * 3600.0)
    if s.option.kind == "own":
        return f"{name} finishes in {took}{with_levers} for {_usd(s.energy_usd)} of power"
    if s.option.kind in ("buy-new", "buy-used"):
        return (f"{name} ({_usd(s.hardware_usd)}) finishes in {took}{with_levers}, plus "
                f"{_usd(s.energy_usd)} of power")
    instances = f" on {s.instances} instances" if s.instances > 1 else ""
    return (f"renting {name} costs {_usd(s.rent_usd)} and takes {took}{instances}"
            f"{with_levers}")


def _join(items: Sequence[str]) -> str:
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _usd(value: float) -> str:
    return f"${value:.2f}" if value < 10 else f"${value:,.0f}"


# --------------------------------------------------------------------------- ranking
def rank(suggestions: Iterable[Suggestion], goal: str = "cheapest", *,
         budget_usd: float | None = None, deadline_hours: float | None = None,
         allow_changes: bool = True) -> list[Suggestion]:
    """Order for ``goal``: acceptable options (fit, within budget and deadline) first, by
    cost (cheapest: to the cent, the resolution every door writes a cost at, so two options
    that both cost "$0.16" are a tie) or hours (fastest), ties broken by the other (of two
    cards at the same cost, the one done sooner); then the ones over budget
    or past the deadline; then the ones that do not fit, nearest to fitting first (memory
    needed over memory available).

    Without ``allow_changes`` the plan is taken as asked: options that fit only with levers
    (a full fine-tune run as QLoRA, ...) are ranked apart, after every option that fits
    the plan as it is, and before those that do not fit at all."""
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")
    for name, value in (("budget_usd", budget_usd), ("deadline_hours", deadline_hours)):
        if value is not None and not value > 0:
            raise ValueError(f"{name} must be positive, got {value}")
    marked = [replace(s, within_budget=budget_usd is None or s.cost_usd <= budget_usd,
                      within_deadline=deadline_hours is None or s.hours <= deadline_hours)
              for s in suggestions]

    def key(s: Suggestion):
        if not s.fits:  # nearest to fitting first
            return (2, True, s.memory_bytes / s.capacity_bytes, 0.0, s.option.id)
        primary = ((round(s.cost_usd, 2), s.hours) if goal == "cheapest"
                   else (s.hours, s.cost_usd))
        return (0 if s.counts(allow_changes) else 1, not s.acceptable, *primary, s.option.id)

    return sorted(marked, key=key)


def pareto(suggestions: Iterable[Suggestion], allow_changes: bool = True) -> frozenset[str]:
    """Ids of fitting options no other fitting option beats on both hours and cost (only
    options that fit as asked take part unless ``allow_changes``); costs to the cent, as
    :func:`rank` takes them."""
    fitting = [s for s in suggestions if s.counts(allow_changes)]
    front = set()
    for s in fitting:
        cost = round(s.cost_usd, 2)
        dominated = any(o.hours <= s.hours and round(o.cost_usd, 2) <= cost
                        and (o.hours < s.hours or round(o.cost_usd, 2) < cost)
                        for o in fitting)
        if not dominated:
            front.add(s.option.id)
    return frozenset(front)


def advise(model: ModelSpec, plan: Plan, gpus: Mapping[str, GpuSpec], offers: Iterable[Offer],
           *, own: Sequence[GpuSpec] = (), goal: str = "cheapest",
           budget_usd: float | None = None, deadline_hours: float | None = None,
           assumptions: Assumptions = DEFAULT_ASSUMPTIONS,
           usd_per_kwh: float = DEFAULT_USD_PER_KWH, today: date | None = None,
           measurements: Sequence[Measurement] = (), max_cards: int = 4,
           allow_changes: bool = True) -> Advice:
    """Every option for ``plan``, estimated and ranked (see the module docstring).

    ``allow_changes=False`` takes the plan as asked: options that need levers are ranked
    apart and never named best (see :func:`rank`).

    Raises:
        ValueError: a bad goal, budget or deadline, a negative electricity price, or a plan
            the model cannot run.
    """
    if not usd_per_kwh >= 0:
        raise ValueError(f"usd_per_kwh must be zero or more, got {usd_per_kwh}")
    cache = _Cache()
    suggestions = [evaluate(model, plan, option, assumptions=assumptions,
                            usd_per_kwh=usd_per_kwh, today=today, measurements=measurements,
                            max_cards=max_cards, _cache=cache)
                   for option in options_for(gpus, offers, own=own, max_cards=max_cards)]
    ranked = rank(suggestions, goal, budget_usd=budget_usd, deadline_hours=deadline_hours,
                  allow_changes=allow_changes)
    return Advice(tuple(ranked), goal, budget_usd, deadline_hours,
                  pareto(ranked, allow_changes),
                  nothing_fits=_nothing_fits(model, plan, ranked, assumptions),
                  allow_changes=allow_changes)


def _nothing_fits(model, plan, ranked: Sequence[Suggestion], assumptions) -> str | None:
    if any(s.fits for s in ranked):
        return None
    if not ranked:
        return "No options to compare: the offers catalog is empty and no GPU was detected."
    closest = min(ranked, key=lambda s: s.memory_bytes / s.capacity_bytes)
    gpu = effective_gpu(closest.option)
    advice = make_it_fit(model, plan.with_changes(n_gpus=closest.option.n_gpus), gpu,
                         assumptions, max_gpus=max(closest.option.n_gpus, 16))
    need = closest.memory_bytes / 2**30
    have = closest.capacity_bytes / 2**30
    if advice.fits:
        change = f"{_join([s.detail for s in advice.steps])} would make it fit"
    else:
        change = ("even every lever is not enough: a shorter sequence, a smaller model or "
                  "more GPUs than any offer has")
    return (f"Nothing fits this plan. The closest is {closest.option.label}: {need:.1f} GiB "
            f"per GPU needed, {have:.0f} GiB available; {change}.")


def estimate_of(model: ModelSpec, suggestion: Suggestion,
                assumptions: Assumptions = DEFAULT_ASSUMPTIONS) -> Estimate:
    """The full estimate behind a suggestion (for details and exports)."""
    return resolve(model, suggestion.plan, effective_gpu(suggestion.option), assumptions)


__all__ = ["DEFAULT_LOAD_FRACTION", "DEFAULT_USD_PER_KWH", "GOALS",
           "MAX_OWN_OPTIONS", "OPTION_KINDS", "Advice", "BreakEven", "Option", "Suggestion",
           "advise", "best_break_even", "break_even", "effective_gpu", "estimate_of",
           "evaluate", "explain", "options_for", "own_options", "pareto", "rank",
           "rig_label"]
