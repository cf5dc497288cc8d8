"""The advice (gpuadvisor.core.advisor): money, ranking, Pareto front and break-even.

Time and memory come from the estimator (tested on its own); these tests check what the
advisor adds, against hand arithmetic: rent = hours x instances x price per instance-hour,
electricity = TDP x 0.85 x GPUs x hours / 1000 x USD/kWh, break-even = hardware / (rent per
job - electricity per job), the ranking rules and the Pareto front.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.advisor import (
    Option,
    Suggestion,
    advise,
    best_break_even,
    break_even,
    effective_gpu,
    evaluate,
    options_for,
    own_options,
    pareto,
    rank,
)
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.offers import Offer
from gpuadvisor.core.plan import Plan

TODAY = date(2026, 12, 2)
GPUS = catalog.load_gpus()
MODELS = catalog.load_models()
LLAMA_8B = MODELS["llama-3.1-8b"]
QLORA = Plan(task="qlora", checkpointing="full", seq_len=2048, dataset_tokens=2e7)

USED_3090 = Offer("used-3090", "buy-used", "rtx-3090", "used market", 700.0, "2026-11-01", "t")
RUNPOD_H100 = Offer("rp-h100", "rent", "h100-sxm", "RunPod", 2.69, "2026-11-20", "t")
AWS_P4DE = Offer("aws-p4de", "cloud", "a100-sxm-80gb", "AWS", 5.12, "2026-06-01", "t",
                 gpus_per_instance=8, interconnect="sxm")


def option(offer: Offer, n: int | None = None) -> Option:
    gpu = GPUS[offer.gpu_id]
    n = n or (1 if offer.is_buy else offer.gpus_per_instance)
    kind_id = f"{offer.kind}:{offer.id}:x{n}" if offer.is_buy else f"offer:{offer.id}"
    return Option(kind_id, offer.kind, gpu, n, offer, offer.id)


def test_rent_costs_hours_times_the_price():
    s = evaluate(LLAMA_8B, QLORA, option(RUNPOD_H100), today=TODAY)
    hours = float(estimate(LLAMA_8B, QLORA, GPUS["h100-sxm"]).time.seconds) / 3600
    assert s.fits and s.levers == ()
    assert s.hours == pytest.approx(hours)
    assert s.rent_usd == pytest.approx(hours * 2.69)
    assert s.energy_usd == 0 and s.hardware_usd == 0
    assert s.cost_usd == pytest.approx(hours * 2.69)
    assert s.price_age_days == 12 and not s.stale
    assert s.why.startswith("renting rp-h100 costs $")


def test_buying_costs_the_cards_plus_electricity():
    s = evaluate(LLAMA_8B, QLORA, option(USED_3090, 2), usd_per_kwh=0.30, today=TODAY)
    assert s.fits and s.n_gpus == 2
    # RTX 3090: 350 W board power (catalog, NVIDIA spec); 2 cards at 85% load.
    assert s.energy_usd == pytest.approx(350 * 0.85 * 2 * s.hours / 1000 * 0.30)
    assert s.hardware_usd == 1400.0
    assert s.cost_usd == pytest.approx(1400.0 + s.energy_usd)


def test_a_job_larger_than_an_instance_rents_several():
    # Llama-3.1-70B full fine-tune in bf16 with AdamW: ~16 B/param of model states
    # (1.1 TB) cannot fit 8 x 80 GB even sharded; the levers decide. Force the GPU count
    # instead: a 16-GPU plan on 8-GPU instances rents 2 of them.
    plan = Plan(task="full", precision="bf16", checkpointing="full", zero_stage=3,
                n_gpus=16, seq_len=2048, dataset_tokens=1e8)
    s = evaluate(MODELS["llama-3.1-70b"], plan, replace(option(AWS_P4DE), n_gpus=16),
                 today=TODAY)
    assert s.n_gpus == 16 and s.instances == 2
    assert s.rent_usd == pytest.approx(s.hours * 2 * 8 * 5.12)
    assert s.stale and s.price_age_days == 184  # 2026-06-01 -> 2026-12-02


def test_consumer_cards_without_a_peer_link_share_pcie_via_host_memory():
    rtx = effective_gpu(option(USED_3090, 2))
    # RTX 3090: NVLink bridge exists (catalog p2p_link), so the link stays.
    assert rtx.interconnect_bandwidth_gb_s == GPUS["rtx-3090"].interconnect_bandwidth_gb_s
    new_4090 = Offer("n4090", "buy-new", "rtx-4090", "shop", 1800.0, "2026-11-01", "t")
    rtx4090 = effective_gpu(option(new_4090, 2))
    # No NVLink on the 4090: PCIe 4.0 x16 = 31.5 GB/s, crossed twice -> 15.75 GB/s. The rule
    # is the estimate's (every door's), so the card itself keeps its PCIe rate.
    assert rtx4090.interconnect_bandwidth_gb_s == pytest.approx(16 * 1.969)
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
    from gpuadvisor.core.estimate import _link

    assert _link(rtx4090, DEFAULT_ASSUMPTIONS) == pytest.approx(16 * 1.969 / 2)
    assert _link(a100_pcie := GPUS["a100-pcie-80gb"], DEFAULT_ASSUMPTIONS) == pytest.approx(
        a100_pcie.interconnect_bandwidth_gb_s)  # a datacenter card's P2P is not bounced
    pcie_box = replace(AWS_P4DE, interconnect="pcie")
    a100 = effective_gpu(option(pcie_box))
    assert a100.p2p_link == "none"  # an SXM module's NVLink is not there in a PCIe server
    assert a100.interconnect_bandwidth_gb_s == pytest.approx(16 * 1.969)


def test_a_single_gpu_rental_does_not_stretch_into_a_cluster():
    plan = Plan(task="full", precision="bf16", seq_len=2048, dataset_tokens=1e8)
    # QLoRA of a 70B model fits one 80 GB H100 (~40 GB of NF4 weights + activations).
    s = evaluate(MODELS["llama-3.1-70b"], plan, option(RUNPOD_H100), today=TODAY)
    assert s.fits and s.n_gpus == 1 and "QLoRA" in s.levers
    # 405B in NF4 is ~200 GB of weights alone: it needs several GPUs, which a single-GPU
    # rental is not; the 8-GPU instance is the one to take.
    big = MODELS["llama-3.1-405b"]
    single = evaluate(big, plan, option(RUNPOD_H100), today=TODAY)
    assert not single.fits and single.n_gpus == 1
    assert single.why.startswith("rp-h100: does not fit")
    eight = evaluate(big, plan, option(AWS_P4DE), today=TODAY)
    assert eight.fits and eight.n_gpus >= 8


# --------------------------------------------------------------------------- ranking
def fake(id_, cost, hours, fits=True) -> Suggestion:
    gpu = GPUS["rtx-4090"]
    return Suggestion(option=Option(id_, "rent", gpu, 1, None, id_), fits=fits,
                      plan=QLORA, levers=(), n_gpus=1, instances=1, hours=hours,
                      gpu_hours=hours, hardware_usd=0.0, energy_usd=0.0, rent_usd=cost,
                      memory_bytes=1.0, capacity_bytes=2.0, price_age_days=0, stale=False)


def test_rank_by_goal_budget_and_deadline():
    a, b, c, d = fake("a", 10, 20), fake("b", 30, 5), fake("c", 50, 2), fake("x", 1, 1, False)
    far = replace(fake("far", 1, 1, False), memory_bytes=10.0)  # 10/2 vs x's 1/2 of capacity
    assert [s.option.id for s in rank([far, d], "cheapest")] == ["x", "far"]
    assert [s.option.id for s in rank([c, d, b, a], "cheapest")] == ["a", "b", "c", "x"]
    assert [s.option.id for s in rank([c, d, b, a], "fastest")] == ["c", "b", "a", "x"]
    # Budget 40 and deadline 10 h: only b is acceptable; a (too slow), c (too dear) follow.
    ranked = rank([a, b, c, d], "cheapest", budget_usd=40, deadline_hours=10)
    assert [s.option.id for s in ranked] == ["b", "a", "c", "x"]
    assert ranked[0].acceptable and not ranked[1].within_deadline
    assert not ranked[2].within_budget
    with pytest.raises(ValueError, match="goal"):
        rank([a], "prettiest")
    with pytest.raises(ValueError, match="budget"):
        rank([a], budget_usd=-5)


def test_costs_equal_to_the_cent_are_a_tie_the_faster_option_wins():
    """One RTX 3090 for 3.59 h and two for 1.80 h draw the same power: $0.1603 and $0.1607,
    both written "$0.16". The cheaper by a fraction of a cent is not "the cheapest": the one
    done in half the time is."""
    one, two = fake("one", 0.1603, 3.59), fake("two", 0.1607, 1.80)
    assert [s.option.id for s in rank([one, two], "cheapest")] == ["two", "one"]
    # nor is it on the front of best trade-offs: the faster one at the same cost beats it
    assert pareto([one, two]) == {"two"}
    # a cent apart is a difference
    assert [s.option.id for s in rank([fake("one", 0.15, 3.59), two], "cheapest")] == \
        ["one", "two"]


def test_pareto_front_keeps_only_undominated_fitting_options():
    options = [fake("a", 10, 20), fake("b", 30, 5), fake("c", 50, 2), fake("d", 40, 6),
               fake("e", 10, 25), fake("x", 1, 1, False)]
    # d is beaten by b (cheaper and faster); e by a; x does not fit.
    assert pareto(options) == {"a", "b", "c"}


def test_break_even_after_hardware_over_the_per_job_saving():
    owned = replace(fake("own", 0, 12.0), hardware_usd=700.0, energy_usd=0.61, rent_usd=0.0)
    rented = fake("rent", 2.33, 0.9)
    result = break_even(owned, rented)
    assert result.jobs == pytest.approx(700 / (2.33 - 0.61))  # 406.98 jobs
    assert result.hours == pytest.approx(700 / (2.33 - 0.61) * 12.0)
    own, rent = result.cost_curves([0, 100, 1000])
    assert own == pytest.approx([700, 761, 1310]) and rent == pytest.approx([0, 233, 2330])
    cheap_rent = fake("rent", 0.5, 0.9)  # renting costs less than the power: never
    assert break_even(owned, cheap_rent).jobs is None


def bought(id_, hardware, energy, hours, fits=True) -> Suggestion:
    s = fake(id_, 0.0, hours, fits)
    return replace(s, option=replace(s.option, kind="buy-used"), hardware_usd=hardware,
                   energy_usd=energy)


def test_best_break_even_takes_the_cheapest_card_and_rental_unless_one_is_picked():
    cards = [bought("3090", 700.0, 0.61, 12.0), bought("4090", 1600.0, 0.40, 8.0),
             bought("5090", 10.0, 0.1, 1.0, fits=False)]
    rentals = [fake("a100", 2.33, 0.9), fake("h100", 3.10, 0.5), fake("tiny", 0.1, 1, False)]
    owned, rented, result = best_break_even([*rentals, *cards])
    # The 5090 and "tiny" do not fit; cheapest fitting: the $700.61 card, the $2.33 rental.
    assert (owned.option.id, rented.option.id) == ("3090", "a100")
    assert result.jobs == pytest.approx(700 / (2.33 - 0.61))
    # The user picked the H100 rental: the card stays the cheapest one.
    _owned, rented, result = best_break_even([*rentals, *cards], rented=rentals[1])
    assert rented.option.id == "h100"
    assert result.jobs == pytest.approx(700 / (3.10 - 0.61))  # 281.1 jobs
    owned, _rented, result = best_break_even([*rentals, *cards], owned=cards[1])
    assert result.jobs == pytest.approx(1600 / (2.33 - 0.40))  # 829.0 jobs
    assert best_break_even(rentals) is None  # nothing to buy
    assert best_break_even([*rentals, *cards], owned=cards[2]) is None  # picked one won't fit


# --------------------------------------------------------------------------- advise
def test_advise_ranks_every_option_and_the_own_rig_costs_only_power():
    own = [GPUS["rtx-3060-12gb"]]
    # 512 tokens: Hugging Face + PEFT QLoRA of an 8B model fits 12 GB up to ~932 tokens
    # (Unsloth's published table, benchmarks/calibration/frameworks.json).
    advice = advise(LLAMA_8B, QLORA.with_changes(seq_len=512), GPUS,
                    [USED_3090, RUNPOD_H100, AWS_P4DE], own=own, today=TODAY, usd_per_kwh=0.20,
                    max_cards=2)
    ids = [s.option.id for s in advice.suggestions]
    assert set(ids) == {"own", "buy-used:used-3090:x1", "buy-used:used-3090:x2",
                        "offer:rp-h100", "offer:aws-p4de"}
    mine = next(s for s in advice.suggestions if s.option.id == "own")
    # RTX 3060 12GB: 170 W board power.
    assert mine.energy_usd == pytest.approx(170 * 0.85 * mine.hours / 1000 * 0.20)
    assert mine.hardware_usd == 0 and mine.rent_usd == 0
    costs = [s.cost_usd for s in advice.suggestions if s.acceptable]
    assert costs == sorted(costs)
    assert advice.best.option.id == "own"  # a card you have costs only power
    assert "own" in advice.pareto_ids and advice.nothing_fits is None


def test_a_plan_that_fits_nowhere_says_so_and_names_the_closest():
    plan = Plan(task="full", precision="fp32", seq_len=4096, dataset_tokens=1e8)
    advice = advise(MODELS["llama-3.1-405b"], plan, GPUS, [USED_3090],
                    own=[GPUS["rtx-3060-12gb"]], today=TODAY, max_cards=2)
    assert not any(s.fits for s in advice.suggestions)
    assert advice.best is None
    assert advice.nothing_fits.startswith("Nothing fits this plan. The closest is ")
    assert "GiB per GPU needed" in advice.nothing_fits


# --------------------------------------------------------------------------- the plan as asked
FULL_BF16 = Plan(task="full", precision="bf16", checkpointing="full", seq_len=2048,
                 dataset_tokens=2e7)


def test_a_full_fine_tune_stays_full_unless_changes_are_allowed():
    # Llama 3.1 8B, full fine-tune in bf16 with AdamW: ~16 B per parameter of model states
    # (~120 GiB) fits no single 24 GB card; the 3090 takes it only as LoRA/QLoRA.
    offers = [USED_3090, RUNPOD_H100, AWS_P4DE]
    advice = advise(LLAMA_8B, FULL_BF16, GPUS, offers, today=TODAY, allow_changes=False)
    changed = [s for s in advice.suggestions if s.fits and s.levers]
    asked = [s for s in advice.suggestions if s.as_asked]
    assert changed and asked
    assert advice.fit_as_asked == len(asked)
    assert advice.fit_with_changes == len(changed)
    # The best answer runs the plan as given: still a full fine-tune.
    assert advice.best.as_asked and advice.best.plan.task == "full"
    # Every option that fits as asked ranks before every option that needs a change.
    order = [s.option.id for s in advice.suggestions if s.fits]
    assert order[:len(asked)] == [s.option.id for s in asked]
    # The Pareto front and the break-even take only the plan as asked.
    assert advice.pareto_ids <= {s.option.id for s in asked}
    pair = best_break_even(advice.suggestions, allow_changes=False)
    assert pair is None or all(s.as_asked for s in pair[:2])
    # With changes allowed the cheaper LoRA/QLoRA runs count too (the old behaviour).
    free = advise(LLAMA_8B, FULL_BF16, GPUS, offers, today=TODAY, allow_changes=True)
    assert free.best.levers and free.best.cost_usd < advice.best.cost_usd


def test_nothing_fitting_as_asked_leaves_no_best_but_says_what_would():
    advice = advise(LLAMA_8B, FULL_BF16, GPUS, [USED_3090], own=[GPUS["rtx-3060-12gb"]],
                    today=TODAY, max_cards=1, allow_changes=False)
    assert advice.fit_as_asked == 0 and advice.fit_with_changes > 0
    assert advice.best is None
    assert all(s.levers for s in advice.suggestions if s.fits)


# --------------------------------------------------------------------------- mixed rigs
def test_each_set_of_a_mixed_rigs_cards_is_an_option_and_the_3090_alone_wins():
    rig = [GPUS["rtx-3060-12gb"], GPUS["rtx-3090"]]
    options = own_options(rig)
    assert [o.id for o in options] == ["own", "own:1xrtx-3090", "own:1xrtx-3060-12gb"]
    both = options[0]
    # Named as the cards are, largest first; sized and timed as the weaker card.
    assert both.label == f"your {GPUS['rtx-3090'].name} + {GPUS['rtx-3060-12gb'].name}"
    assert both.n_gpus == 2 and both.gpu.memory_gib == GPUS["rtx-3060-12gb"].memory_gib
    assert both.gpu.fp16_tensor_tflops == GPUS["rtx-3060-12gb"].fp16_tensor_tflops
    # Power: the two boards' average, so that 2 x TDP is their sum (350 W + 170 W).
    assert both.gpu.tdp_w * 2 == pytest.approx(350 + 170)
    for goal in ("cheapest", "fastest"):
        advice = advise(LLAMA_8B, QLORA, GPUS, [], own=rig, goal=goal, today=TODAY,
                        allow_changes=False)
        # A one-GPU job on the 3090 beats both cards (held back to the 3060's pace) and
        # the 3060 alone.
        assert advice.best.option.id == "own:1xrtx-3090", goal
        hours = {s.option.id: s.hours for s in advice.suggestions}
        assert hours["own:1xrtx-3090"] < hours["own"] < hours["own:1xrtx-3060-12gb"]


def test_identical_cards_are_tried_in_powers_of_two():
    options = own_options([GPUS["rtx-3090"]] * 3)
    assert [(o.id, o.n_gpus) for o in options] == [
        ("own", 3), ("own:2xrtx-3090", 2), ("own:1xrtx-3090", 1)]
    assert options[0].label == f"your 3x {GPUS['rtx-3090'].name}"
    assert own_options([]) == []


def test_a_unified_memory_system_is_bought_once():
    """A DGX Spark (or a Mac) is a whole computer: one per option, where a card comes 1, 2
    and 4 at a time."""
    gpus = catalog.load_gpus()
    offers = catalog.load_offers()
    spark = [o for o in options_for(gpus, [offers["new-dgx-spark"]], max_cards=4)]
    assert [o.n_gpus for o in spark] == [1]
    cards = [o for o in options_for(gpus, [offers["new-rtx-5090"]], max_cards=4)]
    assert [o.n_gpus for o in cards] == [1, 2, 4]
