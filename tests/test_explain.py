"""The sentences that explain a suggestion's sums (gpuadvisor.explain), in English and
without Qt: the arithmetic they show is the advisor's, written out (hours x instances x
price per hour, TDP x 0.85 load x GPUs x hours = kWh x price, cards ÷ (rent − power))."""

from __future__ import annotations

import subprocess
import sys
from datetime import date

import pytest

from gpuadvisor import catalog, explain
from gpuadvisor.core.advisor import BreakEven, Option, evaluate
from gpuadvisor.core.offers import Offer
from gpuadvisor.core.plan import Plan

TODAY = date(2026, 12, 2)
GPUS = catalog.load_gpus()
LLAMA_8B = catalog.load_models()["llama-3.1-8b"]
QLORA = Plan(task="qlora", checkpointing="full", seq_len=2048, dataset_tokens=2e7)
RUNPOD_H100 = Offer("rp-h100", "rent", "h100-sxm", "RunPod", 2.69, "2026-11-20", "t")
USED_3090 = Offer("used-3090", "buy-used", "rtx-3090", "used market", 700.0, "2026-11-01", "t")


def _option(offer: Offer) -> Option:
    kind_id = f"{offer.kind}:{offer.id}:x1" if offer.is_buy else f"offer:{offer.id}"
    return Option(kind_id, offer.kind, GPUS[offer.gpu_id], 1, offer, offer.id)


def test_explain_imports_without_qt():
    code = ("import sys, gpuadvisor.explain; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.strip() == "[]"


def test_a_rental_shows_its_time_and_rent_arithmetic():
    s = evaluate(LLAMA_8B, QLORA, _option(RUNPOD_H100), today=TODAY)
    lines = explain.computation_lines(s, usd_per_kwh=0.15)
    assert lines[0].startswith(f"Time: 1 GPU(s) at {s.tflops_per_gpu:,.0f} TFLOPS each (")
    assert lines[0].endswith(f"; {s.gpu_hours:,.1f} GPU-hours")
    # Rent: hours x 1 instance x $2.69 an hour; no cards, no power (the rent includes it).
    assert lines[1:] == [f"Rent: {s.hours:,.1f} h × 1 instance(s) × $2.69/h = "
                         f"${s.rent_usd:,.2f}"]


def test_a_card_to_buy_shows_the_cards_and_the_power():
    s = evaluate(LLAMA_8B, QLORA, _option(USED_3090), today=TODAY, usd_per_kwh=0.2)
    lines = explain.computation_lines(s, usd_per_kwh=0.2, source="assumed", bound="compute")
    assert f"({s.efficiency:.0%} of peak, assumed), limited by compute; " in lines[0]
    assert lines[1] == "Cards: 1 × $700.00 = $700.00"
    tdp = GPUS["rtx-3090"].tdp_w
    kwh = tdp * 0.85 * s.hours / 1000
    assert lines[2] == (f"Power: {tdp:,.0f} W × 85% load × 1 GPU(s) × {s.hours:,.1f} h = "
                        f"{kwh:,.1f} kWh × $0.200/kWh = ${s.energy_usd:,.2f}")
    assert s.energy_usd == pytest.approx(kwh * 0.2)


def test_break_even_shows_its_division():
    # $700 of cards; a rented job costs $5.00, the power for the owned one $1.50:
    # 700 / (5.00 - 1.50) = 200 jobs.
    result = BreakEven(jobs=200.0, hours=2000.0, own_per_job_usd=1.5, rent_per_job_usd=5.0,
                       hardware_usd=700.0)
    text = explain.break_even_sentence("used RTX 3090", "RunPod H100", result)
    assert text.startswith("used RTX 3090 ($700.00) beats renting RunPod H100 after 200 such "
                           "jobs (")
    assert text.endswith("Cards ÷ (rent − power per job): $700.00 ÷ ($5.00 − $1.50).")
    few = BreakEven(jobs=3.14, hours=30.0, own_per_job_usd=1.0, rent_per_job_usd=2.0,
                    hardware_usd=3.14)
    assert "after 3.1 such jobs" in explain.break_even_sentence("a", "b", few)


def test_break_even_never_comes_when_renting_costs_no_more_than_the_power():
    result = BreakEven(jobs=None, hours=None, own_per_job_usd=2.0, rent_per_job_usd=1.0,
                       hardware_usd=700.0)
    assert explain.break_even_sentence("used RTX 3090", "RunPod H100", result) == (
        "Renting RunPod H100 costs no more per job than the power for used RTX 3090: buying "
        "never pays off on price alone.")


def test_every_template_goes_through_translate():
    result = BreakEven(jobs=None, hours=None, own_per_job_usd=2.0, rent_per_job_usd=1.0,
                       hardware_usd=700.0)
    seen = []
    text = explain.break_even_sentence("own", "rent", result,
                                       translate=lambda t: seen.append(t) or "» " + t)
    assert seen == [explain.NEVER_PAYS_OFF]
    assert text.startswith("» Renting rent costs")
