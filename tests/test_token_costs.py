"""Inference plans priced per million generated tokens: a rental at a utilization, the own
rig and a card to buy (power + price over a lifetime), hosted APIs (output + the prompt's
share), and the break-even in tokens, each checked against sums done by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.advisor import Option, Suggestion, advise
from gpuadvisor.core.apis import ApiOffer
from gpuadvisor.core.offers import Offer
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.token_costs import (
    TokenAssumptions,
    api_cost,
    card_price,
    hardware_cost,
    own_cards,
    rank_tokens,
    short_model_name,
    token_break_even,
    token_economics,
    token_pareto,
)

GPUS = catalog.load_gpus()
MODELS = catalog.load_models()
PLAN = Plan(task="infer", precision="bf16", seq_len=512, new_tokens=256)
USED_3090 = Offer("used-3090", "buy-used", "rtx-3090", "eBay sold", 700.0, "2026-11-01", "t")
NEW_3090 = Offer("new-3090", "buy-new", "rtx-3090", "Newegg", 1100.0, "2026-11-01", "t")
RENT_H100 = Offer("rp-h100", "rent", "h100-sxm", "RunPod", 2.0, "2026-11-20", "t",
                  instance="1x H100")
API = ApiOffer("api-8b", "Example", "llama-3.1-8b", "meta-llama/Meta-Llama-3.1-8B-Instruct",
               0.20, 0.60, "2026-11-30", "https://example.com")


def suggestion(option: Option, *, tokens_per_s: float = 50.0, hardware_usd: float = 0.0,
               fits: bool = True, levers=()) -> Suggestion:
    return Suggestion(option=option, fits=fits, plan=PLAN, levers=tuple(levers), n_gpus=1,
                      instances=1, hours=1.0, gpu_hours=1.0, hardware_usd=hardware_usd,
                      energy_usd=0.0, rent_usd=0.0, memory_bytes=1.0, capacity_bytes=2.0,
                      price_age_days=None, stale=False, tokens_per_s=tokens_per_s,
                      prefill_seconds=0.2, decode_tokens_per_s=55.0)


def own_3090() -> Suggestion:
    gpu = GPUS["rtx-3090"]
    return suggestion(Option("own", "own", gpu, 1, None, f"your {gpu.name}"))


def used_3090() -> Suggestion:
    option = Option("buy-used:used-3090:x1", "buy-used", GPUS["rtx-3090"], 1, USED_3090,
                    "used RTX 3090")
    return suggestion(option, hardware_usd=700.0)


def rented_h100(tokens_per_s: float = 100.0) -> Suggestion:
    option = Option("offer:rp-h100", "rent", GPUS["h100-sxm"], 1, RENT_H100, "RunPod H100")
    return suggestion(option, tokens_per_s=tokens_per_s)


ASSUMED = TokenAssumptions(lifetime_hours=10_000, utilization=0.5, usd_per_kwh=0.30,
                           load_fraction=0.85)


def test_a_rental_costs_its_hourly_price_over_the_tokens_of_its_busy_hours():
    row = hardware_cost(rented_h100(100.0), ASSUMED)
    # $2.00/h / (100 tokens/s x 3600 s x 0.5) x 1e6 = 2 / 180,000 x 1e6 = $11.11 per Mtok.
    assert row.usd_per_mtok == pytest.approx(11.1111, rel=1e-4)
    assert row.usd_per_hour == pytest.approx(2.0) and row.ttft_s == pytest.approx(0.2)
    busy = hardware_cost(rented_h100(100.0), replace(ASSUMED, utilization=1.0))
    assert busy.usd_per_mtok == pytest.approx(2 / 360_000 * 1e6)


def test_the_own_rig_costs_its_power_and_says_what_wear_would_add():
    assert GPUS["rtx-3090"].tdp_w == 350
    row = hardware_cost(own_3090(), ASSUMED, offers=[USED_3090, NEW_3090])
    # Power: 350 W x 0.85 x 1 GPU / 1000 x $0.30/kWh = $0.08925 per hour; the card is paid
    # for. 50 tokens/s = 180,000 tokens an hour: 0.08925 / 180,000 x 1e6 = $0.4958.
    assert row.usd_per_hour == pytest.approx(0.08925)
    assert row.usd_per_mtok == pytest.approx(0.08925 / 0.18, rel=1e-9)
    assert row.energy_usd_per_mtok == pytest.approx(0.08925 / 0.18, rel=1e-9)
    # Wear: the catalog's cheapest used 3090, $700 / 10,000 h = $0.07 per hour on top:
    # (0.08925 + 0.07) / 180,000 x 1e6 = $0.8847.
    assert row.wear_usd_per_mtok == pytest.approx(0.15925 / 0.18, rel=1e-9)
    assert row.hardware_usd == 700.0
    assert row.hardware_sources == (("eBay sold", "2026-11-01"),)
    assert row.hardware_unpriced == ()


def test_a_card_to_buy_is_priced_the_same_way_with_its_own_price():
    row = hardware_cost(used_3090(), replace(ASSUMED, lifetime_hours=5_000))
    # (0.08925 + 700 / 5,000) / 180,000 x 1e6 = 0.22925 / 0.18 = $1.2736.
    assert row.usd_per_mtok == pytest.approx(0.22925 / 0.18, rel=1e-9)


def test_an_api_costs_output_plus_the_prompts_share_and_a_blended_price():
    row = api_cost(API, prompt_tokens=512, new_tokens=256)
    # $0.60 per output Mtok + $0.20 x 512 / 256 input tokens per output token = $1.00.
    assert row.usd_per_mtok == pytest.approx(1.0)
    # (0.20 x 512 + 0.60 x 256) / 768 = 256 / 768 = $0.3333 per Mtok of either kind.
    assert row.blended_usd_per_mtok == pytest.approx(1 / 3)
    assert row.tokens_per_s is None and row.ttft_s is None and row.kind == "api"


def test_break_even_of_a_card_against_an_api_by_hand():
    owned = hardware_cost(used_3090(), ASSUMED)
    other = api_cost(API, 512, 256)
    even = token_break_even(owned, other, ASSUMED.lifetime_hours)
    # $700 / ($1.00 - $0.49583 power per Mtok) = 1,388.4 million tokens; at 50 tokens/s
    # that is 1,388.4e6 / 50 / 3600 = 7,713 hours of generating, within the 10,000 h.
    power = 0.08925 / 0.18
    assert even.mtok == pytest.approx(700 / (1.0 - power), rel=1e-9)
    assert even.hours == pytest.approx(700 / (1.0 - power) * 1e6 / 50 / 3600, rel=1e-9)
    assert not even.beyond_lifetime
    own, api = even.cost_curves([0.0, even.mtok])
    assert own[0] == 700 and api[0] == 0 and own[1] == pytest.approx(api[1])


def test_no_break_even_when_the_api_is_cheaper_than_the_power():
    owned = hardware_cost(used_3090(), ASSUMED)
    cheap = api_cost(replace(API, input_usd_per_mtok=0.02, output_usd_per_mtok=0.03), 512, 256)
    even = token_break_even(owned, cheap)
    assert even.mtok is None and even.hours is None


def test_cards_already_owned_are_cheaper_from_the_first_token_when_power_is():
    owned = hardware_cost(own_3090(), ASSUMED, offers=[USED_3090])
    even = token_break_even(owned, api_cost(API, 512, 256))
    assert even.mtok == 0.0 and even.hardware_usd == 0.0


def test_break_even_refuses_pairs_that_make_no_sense():
    with pytest.raises(ValueError, match="own or bought"):
        token_break_even(hardware_cost(rented_h100(), ASSUMED), api_cost(API, 512, 256))
    with pytest.raises(ValueError, match="rental or an API"):
        token_break_even(hardware_cost(used_3090(), ASSUMED), hardware_cost(own_3090(),
                                                                            ASSUMED))


def test_an_option_that_does_not_fit_has_no_price():
    row = hardware_cost(replace(used_3090(), fits=False), ASSUMED)
    assert row.usd_per_mtok is None and not row.fits


def test_assumptions_are_checked_by_name():
    for bad, match in (({"utilization": 0.0}, "utilization"), ({"utilization": 1.5},
                       "utilization"), ({"lifetime_hours": 0.5}, "lifetime_hours"),
                       ({"usd_per_kwh": -1.0}, "usd_per_kwh"),
                       ({"lifetime_hours": float("nan")}, "lifetime_hours")):
        with pytest.raises(ValueError, match=match):
            TokenAssumptions(**bad)


def test_ranking_and_pareto():
    rows = [hardware_cost(used_3090(), ASSUMED), hardware_cost(rented_h100(400.0), ASSUMED),
            api_cost(API, 512, 256)]
    cheapest = [r.kind for r in rank_tokens(rows, "cheapest")]
    # used 3090 (0.08925 + 0.07) / 0.18 = $0.88; API $1.00; H100 2 / (400 x 1800) x 1e6 =
    # $2.78.
    assert cheapest == ["buy-used", "api", "rent"]
    assert [r.kind for r in rank_tokens(rows, "fastest")] == ["rent", "buy-used", "api"]
    # The H100 is faster, the 3090 cheaper: both on the front; the API has no speed.
    assert token_pareto(rows) == {"offer:rp-h100", "buy-used:used-3090:x1"}


def test_own_cards_of_a_subset_and_their_price():
    rig = [GPUS["rtx-3090"], GPUS["rtx-3090"], GPUS["rtx-3060-12gb"]]
    assert own_cards("own", 3, rig[0], rig) == ["rtx-3090", "rtx-3090", "rtx-3060-12gb"]
    assert own_cards("own:2xrtx-3090", 2, rig[0], rig) == ["rtx-3090", "rtx-3090"]
    assert card_price("rtx-3090", [NEW_3090, USED_3090]) is USED_3090
    assert card_price("rtx-3090", [NEW_3090]) is NEW_3090
    assert card_price("rtx-4090", [NEW_3090]) is None


def test_short_model_names():
    assert short_model_name("meta-llama/llama-3.1-8b-instruct/fp-16") == (
        "llama-3.1-8b-instruct (fp-16)")
    assert short_model_name("accounts/fireworks/models/gpt-oss-120b") == "gpt-oss-120b"


def test_the_advice_of_a_real_plan_priced_per_token():
    model = MODELS["llama-3.1-8b"]
    advice = advise(model, PLAN, GPUS, [USED_3090, RENT_H100], own=[GPUS["rtx-3090"]])
    econ = token_economics(model, PLAN, advice.suggestions, [API], [USED_3090, RENT_H100],
                           assumptions=ASSUMED, own=[GPUS["rtx-3090"]],
                           known_model_ids=list(MODELS))
    own = econ.row("own")
    s = own.suggestion
    assert s.tokens_per_s > 0 and s.prefill_seconds > 0
    power = 350 * 0.85 / 1000 * 0.30
    # Own cards are paid for: power alone; with wear, the used price over 10,000 h on top.
    assert own.usd_per_mtok == pytest.approx(power / (s.tokens_per_s * 3600) * 1e6)
    assert own.wear_usd_per_mtok == pytest.approx((power + 700 / 10_000)
                                                  / (s.tokens_per_s * 3600) * 1e6)
    assert own.ttft_s == s.prefill_seconds
    rent = econ.row("offer:rp-h100")
    assert rent.usd_per_mtok == pytest.approx(2.0 / (rent.tokens_per_s * 3600 * 0.5) * 1e6)
    assert econ.row("api:api-8b").usd_per_mtok == pytest.approx(1.0)
    assert econ.api_count == 1 and econ.no_api == ""
    # The card to buy against the cheapest pay-as-you-go option (the API at $1.00).
    best = econ.best
    assert best.owned_id == "buy-used:used-3090:x1" and best.other_id == "api:api-8b"
    energy = econ.row(best.owned_id).energy_usd_per_mtok
    assert best.mtok == pytest.approx(700 / (1.0 - energy))


def test_a_model_no_api_lists_says_so():
    model = MODELS["qwen3-8b"]
    advice = advise(model, PLAN, GPUS, [USED_3090])
    econ = token_economics(model, PLAN, advice.suggestions, [API], [USED_3090],
                           known_model_ids=list(MODELS))
    assert econ.api_count == 0 and econ.no_api == "No API in the catalog lists Qwen3 8B."
    with pytest.raises(ValueError, match="inference plans"):
        token_economics(model, Plan(task="lora"), advice.suggestions)


def test_own_cards_the_catalog_has_no_price_for_are_named():
    row = hardware_cost(own_3090(), ASSUMED, offers=[])
    assert row.hardware_usd == 0.0
    assert row.hardware_sources == () and row.hardware_unpriced == ("rtx-3090",)
