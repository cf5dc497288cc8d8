"""What a generated token costs: inference plans priced per million output tokens.

A job of inference costs fractions of a cent, so for an inference plan the advice is read per
token: for each option (:class:`~gpuadvisor.core.advisor.Suggestion`) and each hosted API
(:class:`~gpuadvisor.core.apis.ApiOffer`), US dollars per million generated tokens, the tokens
per second and the time to the first token. Each money figure is an hourly cost over the
tokens made in that hour:

- **cards to buy**: ``(power + cards / lifetime) / tokens per hour``. Power is the
  advisor's (``board power x load fraction x GPUs x price per kWh``, see
  :mod:`gpuadvisor.core.advisor`); the cards' price is spread over the hours the user expects
  them to serve (:attr:`TokenAssumptions.lifetime_hours`).
- **own rig**: ``power / tokens per hour``: the cards are already paid for, so a token costs
  what the power does (the same rule the break-even uses: the price is paid once). What
  wearing them out would add (the same cards' price in the offers catalog, cheapest used else
  new, over the lifetime) is given apart, :attr:`TokenCost.wear_usd_per_mtok`.
- **rent / cloud**: ``instances x instance price / (tokens/s x 3600 x utilization)``: a rented
  GPU is paid for every hour, busy or not, and :attr:`TokenAssumptions.utilization` is the
  share of those hours spent generating.
- **API**: the provider's prices, with each generated token carrying its share of the
  prompt: ``output + input x prompt / new`` (:meth:`ApiOffer.usd_per_mtok_output`), so the
  figure compares with the hardware's, whose tokens per second include prefilling the
  prompt. The blended price per million tokens of either kind at ``prompt:new`` is given too.

Tokens per second are the estimate's whole-job figure (``time.tokens_per_s``: the batch's
generated tokens over prefill plus decode), and the time to the first token is the batch's
prefill (``time.prefill_seconds``). An API's own speed is not modelled (None).

Break-even (:func:`token_break_even`): buying a card beats paying per token after
``cards / (pay-as-you-go $/Mtok - own power $/Mtok)`` million tokens (the card's price is
paid once, so only power counts per token); never when the pay-as-you-go price is no higher
than the power alone.

Pure: no files, no Qt. Money in US dollars.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace

from .advisor import DEFAULT_LOAD_FRACTION, DEFAULT_USD_PER_KWH, GOALS
from .advisor_types import Suggestion
from .apis import API_KIND, ApiOffer, apis_for
from .gpu import GpuSpec
from .model import ModelSpec
from .offers import Offer
from .plan import Plan

#: Hours a card is expected to serve before it is worn out or replaced: about three years
#: at nine hours a day (3 x 365 x 9 = 9,855).
DEFAULT_LIFETIME_HOURS = 10_000.0
#: Share of rented hours spent generating: a rented GPU is paid for while it waits for
#: requests, and a hobbyist's traffic comes in bursts.
DEFAULT_UTILIZATION = 0.5
PAY_AS_YOU_GO = ("rent", "cloud", API_KIND)
OWNED = ("own", "buy-new", "buy-used")


@dataclass(frozen=True)
class TokenAssumptions:
    """The assumptions behind the per-token money, each stated and settable.

    Attributes:
        lifetime_hours: hours a card serves before it is written off (its price is spread
            over them); default :data:`DEFAULT_LIFETIME_HOURS`.
        utilization: share of rented hours spent generating, in (0, 1]; default
            :data:`DEFAULT_UTILIZATION`.
        usd_per_kwh: electricity price, US dollars per kWh (the user's setting).
        load_fraction: share of the board power drawn while serving (the advisor's).
    """

    lifetime_hours: float = DEFAULT_LIFETIME_HOURS
    utilization: float = DEFAULT_UTILIZATION
    usd_per_kwh: float = DEFAULT_USD_PER_KWH
    load_fraction: float = DEFAULT_LOAD_FRACTION

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or not math.isfinite(value)):
                raise ValueError(f"{f.name} must be a finite number, got {value!r}")
        if not 1.0 <= self.lifetime_hours <= 1e6:
            raise ValueError(f"lifetime_hours must be between 1 and 1,000,000 hours, got "
                             f"{self.lifetime_hours:g}")
        if not 0.0 < self.utilization <= 1.0:
            raise ValueError(f"utilization must be in (0, 1] (a share of the rented hours), "
                             f"got {self.utilization:g}")
        if not 0.0 <= self.usd_per_kwh < 100.0:
            raise ValueError(f"usd_per_kwh must be in [0, 100), got {self.usd_per_kwh:g}")
        if not 0.0 < self.load_fraction <= 1.0:
            raise ValueError(f"load_fraction must be in (0, 1], got {self.load_fraction:g}")

    def as_dict(self) -> dict[str, float]:
        """Name -> value, for display and JSON."""
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class TokenBreakEven:
    """Owning cards against paying per token.

    Attributes:
        owned_id, other_id: the option owned (own or to buy) and the pay-as-you-go one (a
            rental or an API).
        mtok: millions of generated tokens after which owning has cost less in total (0:
            cheaper from the first token, the cards being yours already; ``None``: never).
        hours: the same on the owned cards' clock, or ``None``.
        hardware_usd: what owning costs up front (0 for cards already yours).
        own_usd_per_mtok: the owned cards' power per million tokens.
        other_usd_per_mtok: the pay-as-you-go price per million tokens.
        beyond_lifetime: it pays off only after more hours than the cards' lifetime.
    """

    owned_id: str
    other_id: str
    mtok: float | None
    hours: float | None
    hardware_usd: float
    own_usd_per_mtok: float
    other_usd_per_mtok: float
    beyond_lifetime: bool = False

    def cost_curves(self, mtok: Sequence[float]) -> tuple[list[float], list[float]]:
        """Cumulative cost of owning and of paying per token after each million tokens."""
        own = [self.hardware_usd + m * self.own_usd_per_mtok for m in mtok]
        other = [m * self.other_usd_per_mtok for m in mtok]
        return own, other


@dataclass(frozen=True)
class TokenCost:
    """One option (or API) priced per million generated tokens.

    Attributes:
        id: the option's id, or ``api:<offer id>``.
        kind: own, buy-new, buy-used, rent, cloud or api.
        label: a short name for people.
        fits: the plan fits (APIs: always).
        as_asked: fits the plan as asked, without a lever (APIs: always).
        usd_per_mtok: US dollars per million generated tokens (None when it does not fit).
        tokens_per_s: generated tokens per second of the whole job (None: an API's own
            speed is not modelled, or it does not fit).
        decode_tokens_per_s: generated tokens per second while decoding, the batch together.
        ttft_s: seconds to the first token: the batch's prefill (None for APIs).
        usd_per_hour: what an hour costs (own/buy: power + cards over the lifetime;
            rent/cloud: the instances), None for APIs.
        energy_usd_per_mtok: own/buy: the power alone per million tokens.
        wear_usd_per_mtok: own/buy: power plus the cards' price over their lifetime (for
            cards to buy this is ``usd_per_mtok``; for your own, what wearing them out adds).
        hardware_usd: own/buy: the cards' price (own: at the catalog's price for them; 0
            when unknown).
        hardware_sources: own: the (seller, date) of each catalog price the cards are
            priced at (each door words them: the Compare page's details, suggest --json).
        hardware_unpriced: own: the cards the catalog has no price for.
        blended_usd_per_mtok: API: the price per million tokens of either kind at the
            plan's prompt:new ratio.
        break_even: own/buy: against the cheapest pay-as-you-go option (None: none).
        suggestion: the hardware option behind it (None for APIs).
        api: the API offer behind it (None for hardware).
    """

    id: str
    kind: str
    label: str
    fits: bool
    as_asked: bool
    usd_per_mtok: float | None
    tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    ttft_s: float | None = None
    usd_per_hour: float | None = None
    energy_usd_per_mtok: float | None = None
    wear_usd_per_mtok: float | None = None
    hardware_usd: float = 0.0
    hardware_sources: tuple[tuple[str, str], ...] = ()
    hardware_unpriced: tuple[str, ...] = ()
    blended_usd_per_mtok: float | None = None
    break_even: TokenBreakEven | None = None
    suggestion: Suggestion | None = None
    api: ApiOffer | None = None

    @property
    def seconds_per_mtok(self) -> float | None:
        """Seconds to generate a million tokens (None when the speed is unknown)."""
        return 1e6 / self.tokens_per_s if self.tokens_per_s else None

    def counts(self, allow_changes: bool) -> bool:
        """Fits as asked, or with a lever when changes are allowed."""
        return self.as_asked or (allow_changes and self.fits)


@dataclass(frozen=True)
class TokenEconomics:
    """:func:`token_economics`'s answer.

    Attributes:
        rows: every option and API, ranked for the goal.
        assumptions: the assumptions used.
        prompt_tokens, new_tokens: the plan's prompt and generated tokens per request (the
            APIs' input:output ratio).
        goal: what the ranking used.
        api_count: APIs in the catalog that serve the model.
        no_api: a sentence when none does ("" otherwise).
        best: the pair that pays off soonest (a card to buy against the cheapest
            pay-as-you-go option), or None.
    """

    rows: tuple[TokenCost, ...]
    assumptions: TokenAssumptions
    prompt_tokens: int
    new_tokens: int
    goal: str = "cheapest"
    api_count: int = 0
    no_api: str = ""
    best: TokenBreakEven | None = None

    def row(self, row_id: str) -> TokenCost | None:
        """The row with ``row_id``, or None."""
        return next((r for r in self.rows if r.id == row_id), None)


#: Below this many dollars an amount is written "less than" it (:func:`money_digits`).
SMALLEST_SHOWN_USD = 1e-4


def money_digits(amount: float) -> int | None:
    """Decimals that show ``amount`` with two significant figures, so that nothing above zero
    reads as zero (``0.0042`` -> 4, ``0.17`` -> 2); None from 10 up (the usual whole
    amounts) and at most 4 (below :data:`SMALLEST_SHOWN_USD` write "less than" that)."""
    if not math.isfinite(amount) or amount == 0 or abs(amount) >= 10:
        return None
    return min(4, max(2, 1 - math.floor(math.log10(abs(amount)))))


def is_inference(plan: Plan) -> bool:
    """Whether the plan is priced per token (an inference plan)."""
    return plan.task == "infer"


def card_price(gpu_id: str, offers: Iterable[Offer]) -> Offer | None:
    """The offer that prices a card of ``gpu_id``: the cheapest used one, else the cheapest
    new one; None when the catalog sells none."""
    buys = [o for o in offers if o.gpu_id == gpu_id and o.is_buy]
    used = [o for o in buys if o.kind == "buy-used"]
    pool = used or buys
    return min(pool, key=lambda o: (o.price_usd, o.id)) if pool else None


def own_cards(option_id: str, n_gpus: int, gpu: GpuSpec,
              rig: Sequence[GpuSpec]) -> list[str]:
    """The GPU ids of an own option's cards: the whole rig (``own``), a subset
    (``own:2xrtx-3090+1xrtx-3060-12gb``), or ``n_gpus`` of ``gpu`` when the rig is not
    given."""
    if option_id == "own" and rig:
        return [g.id for g in rig]
    if option_id.startswith("own:"):
        cards: list[str] = []
        for part in option_id.removeprefix("own:").split("+"):
            count, _x, gpu_id = part.partition("x")
            if count.isdigit() and gpu_id:
                cards += [gpu_id] * int(count)
        if cards:
            return cards
    return [gpu.id] * n_gpus


def _own_hardware(s: Suggestion, offers: Sequence[Offer], rig: Sequence[GpuSpec]
                  ) -> tuple[float, tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The own cards' price: the total, the (seller, date) of each price used, and the
    cards the catalog has no price for."""
    total, priced, missing = 0.0, [], []
    for gpu_id in own_cards(s.option.id, s.n_gpus, s.option.gpu, rig):
        offer = card_price(gpu_id, offers)
        if offer is None:
            missing.append(gpu_id)
            continue
        total += offer.price_usd
        priced.append((offer.provider, offer.as_of))
    return total, tuple(dict.fromkeys(priced)), tuple(sorted(set(missing)))


def hardware_cost(s: Suggestion, assumptions: TokenAssumptions, offers: Sequence[Offer] = (),
                  rig: Sequence[GpuSpec] = ()) -> TokenCost:
    """One estimated option priced per million generated tokens (see the module docstring).

    Raises:
        ValueError: ``s`` is not an inference plan's suggestion.
    """
    if not is_inference(s.plan):
        raise ValueError("per-token prices are for inference plans (task 'infer')")
    kind = s.option.kind
    base = dict(id=s.option.id, kind=kind, label=s.option.label, fits=s.fits,
                as_asked=s.as_asked, suggestion=s)
    if not s.fits or not s.tokens_per_s > 0:
        return TokenCost(usd_per_mtok=None, **base)
    tokens_per_h = s.tokens_per_s * 3600.0
    speed = dict(tokens_per_s=s.tokens_per_s, decode_tokens_per_s=s.decode_tokens_per_s,
                 ttft_s=s.prefill_seconds)
    if kind in ("rent", "cloud"):
        per_hour = s.instances * s.option.offer.instance_price_usd
        per_mtok = per_hour / (tokens_per_h * assumptions.utilization) * 1e6
        return TokenCost(usd_per_mtok=per_mtok, usd_per_hour=per_hour, **speed, **base)
    power_per_h = (s.option.gpu.tdp_w * assumptions.load_fraction * s.n_gpus / 1000.0
                   * assumptions.usd_per_kwh)
    sources, unpriced = (), ()
    if kind == "own":
        hardware, sources, unpriced = _own_hardware(s, offers, rig)
    else:
        hardware = s.hardware_usd
    with_wear = power_per_h + hardware / assumptions.lifetime_hours
    per_hour = power_per_h if kind == "own" else with_wear  # own cards are paid for
    return TokenCost(usd_per_mtok=per_hour / tokens_per_h * 1e6, usd_per_hour=per_hour,
                     energy_usd_per_mtok=power_per_h / tokens_per_h * 1e6,
                     wear_usd_per_mtok=with_wear / tokens_per_h * 1e6,
                     hardware_usd=hardware, hardware_sources=sources,
                     hardware_unpriced=unpriced, **speed, **base)


_QUANT_PART = re.compile(r"^(?:fp|bf|int|mxfp|nvfp)-?\d+$", re.IGNORECASE)


def short_model_name(name: str) -> str:
    """A provider's model name without its organisation or path: the last part that is not
    a number format, the format after it in brackets
    (``"meta-llama/llama-3.1-8b-instruct/fp-16"`` -> ``"llama-3.1-8b-instruct (fp-16)"``)."""
    parts = [p for p in name.split("/") if p]
    if not parts:
        return name
    quant = [p for p in parts if _QUANT_PART.match(p)]
    names = [p for p in parts if not _QUANT_PART.match(p)] or parts
    return names[-1] + (f" ({quant[-1]})" if quant and names[-1] != quant[-1] else "")


def api_cost(offer: ApiOffer, prompt_tokens: int, new_tokens: int) -> TokenCost:
    """An API offer priced per million generated tokens with their prompts' share."""
    return TokenCost(
        id=f"api:{offer.id}", kind=API_KIND,
        label=f"{offer.provider} {short_model_name(offer.model_name)}",
        fits=True, as_asked=True,
        usd_per_mtok=offer.usd_per_mtok_output(prompt_tokens, new_tokens),
        blended_usd_per_mtok=offer.blended_usd_per_mtok(prompt_tokens, new_tokens), api=offer)


def token_break_even(owned: TokenCost, other: TokenCost,
                     lifetime_hours: float = DEFAULT_LIFETIME_HOURS) -> TokenBreakEven:
    """After how many million tokens owning ``owned`` beats paying ``other`` per token:
    ``cards / (other $/Mtok - power $/Mtok)`` when that margin is positive (0 for cards
    already owned), else never.

    Raises:
        ValueError: ``owned`` is not an own or bought option that fits, or ``other`` is
            not a fitting rental or API.
    """
    if owned.kind not in OWNED or owned.energy_usd_per_mtok is None:
        raise ValueError("break-even needs an own or bought option that fits")
    if other.kind not in PAY_AS_YOU_GO or other.usd_per_mtok is None:
        raise ValueError("break-even needs a rental or an API that fits")
    hardware = 0.0 if owned.kind == "own" else owned.hardware_usd
    margin = other.usd_per_mtok - owned.energy_usd_per_mtok
    if margin <= 0:
        return TokenBreakEven(owned.id, other.id, None, None, hardware,
                              owned.energy_usd_per_mtok, other.usd_per_mtok)
    mtok = hardware / margin
    hours = mtok * 1e6 / owned.tokens_per_s / 3600.0
    return TokenBreakEven(owned.id, other.id, mtok, hours, hardware,
                          owned.energy_usd_per_mtok, other.usd_per_mtok,
                          beyond_lifetime=hours > lifetime_hours)


def rank_tokens(rows: Iterable[TokenCost], goal: str = "cheapest",
                allow_changes: bool = True) -> list[TokenCost]:
    """Options that answer the plan first (fitting as asked, or with levers when changes
    are allowed), by dollars per million tokens (cheapest) or tokens per second (fastest;
    APIs, whose speed is unknown, after the hardware); then those fitting only with a
    change; then those that do not fit."""
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")

    def key(r: TokenCost):
        group = 0 if r.counts(allow_changes) else 1 if r.fits else 2
        price = r.usd_per_mtok if r.usd_per_mtok is not None else math.inf
        speed = -(r.tokens_per_s or 0.0)
        if goal == "cheapest":
            return (group, price, speed, r.id)
        return (group, r.tokens_per_s is None, speed, price, r.id)

    return sorted(rows, key=key)


def token_pareto(rows: Iterable[TokenCost], allow_changes: bool = True) -> frozenset[str]:
    """Ids of rows with a known speed that no other beats on both seconds per million tokens
    and dollars per million tokens."""
    pool = [r for r in rows if r.counts(allow_changes) and r.tokens_per_s
            and r.usd_per_mtok is not None]
    front = set()
    for r in pool:
        t, c = r.seconds_per_mtok, r.usd_per_mtok
        if not any(o.seconds_per_mtok <= t and o.usd_per_mtok <= c
                   and (o.seconds_per_mtok < t or o.usd_per_mtok < c) for o in pool):
            front.add(r.id)
    return frozenset(front)


def cheapest_pay_as_you_go(rows: Iterable[TokenCost],
                           allow_changes: bool = True) -> TokenCost | None:
    """The cheapest API that serves the model, else the cheapest fitting rental."""
    pool = [r for r in rows if r.kind in PAY_AS_YOU_GO and r.counts(allow_changes)
            and r.usd_per_mtok is not None]
    apis = [r for r in pool if r.kind == API_KIND]
    return min(apis or pool, key=lambda r: (r.usd_per_mtok, r.id), default=None)


def token_economics(model: ModelSpec, plan: Plan, suggestions: Iterable[Suggestion],
                    apis: Iterable[ApiOffer] = (), offers: Iterable[Offer] = (), *,
                    assumptions: TokenAssumptions | None = None, goal: str = "cheapest",
                    own: Sequence[GpuSpec] = (), allow_changes: bool = True,
                    known_model_ids: Sequence[str] = ()) -> TokenEconomics:
    """Every option of an inference plan and every API serving its model, per token.

    ``suggestions`` are the advice's (:func:`~gpuadvisor.core.advisor.advise`); ``offers``
    price the own cards; ``known_model_ids`` are the preset ids (a preset matches APIs by
    id only, see :func:`~gpuadvisor.core.apis.apis_for`). Each own or bought option gets its
    break-even against the cheapest pay-as-you-go option (:func:`cheapest_pay_as_you_go`);
    :attr:`TokenEconomics.best` is the card to buy that pays off soonest.

    Raises:
        ValueError: not an inference plan, or a bad goal.
    """
    if not is_inference(plan):
        raise ValueError("per-token prices are for inference plans (task 'infer')")
    assumptions = assumptions or TokenAssumptions()
    offers = list(offers)
    prompt, new = plan.seq_len, plan.new_tokens
    rows = [hardware_cost(s, assumptions, offers, own) for s in suggestions]
    served = apis_for(model.id, apis, model.name, known_model_ids)
    rows += [api_cost(a, prompt, new) for a in served]
    other = cheapest_pay_as_you_go(rows, allow_changes)
    priced = []
    for r in rows:
        if other is not None and r.kind in OWNED and r.energy_usd_per_mtok is not None:
            r = replace(r, break_even=token_break_even(r, other, assumptions.lifetime_hours))
        priced.append(r)
    buys = [r.break_even for r in priced if r.kind in ("buy-new", "buy-used")
            and r.break_even is not None and r.counts(allow_changes)]
    # The card that pays off after the fewest tokens; when none ever does, the one that
    # costs least per token all told (power and its price over its lifetime).
    all_in = {r.id: r.usd_per_mtok for r in priced}
    best = min(buys, key=lambda b: (b.mtok is None, b.mtok or 0.0, all_in[b.owned_id],
                                    b.owned_id), default=None)
    no_api = "" if served else f"No API in the catalog lists {model.name}."
    return TokenEconomics(tuple(rank_tokens(priced, goal, allow_changes)), assumptions,
                          prompt, new, goal, len(served), no_api, best)


def economics_by_id(economics: TokenEconomics) -> Mapping[str, TokenCost]:
    """The rows by id."""
    return {r.id: r for r in economics.rows}


__all__ = [
    "DEFAULT_LIFETIME_HOURS",
    "DEFAULT_UTILIZATION",
    "OWNED",
    "PAY_AS_YOU_GO",
    "SMALLEST_SHOWN_USD",
    "TokenAssumptions",
    "TokenBreakEven",
    "TokenCost",
    "TokenEconomics",
    "api_cost",
    "card_price",
    "cheapest_pay_as_you_go",
    "economics_by_id",
    "hardware_cost",
    "is_inference",
    "money_digits",
    "own_cards",
    "rank_tokens",
    "short_model_name",
    "token_break_even",
    "token_economics",
    "token_pareto",
]
