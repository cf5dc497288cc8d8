"""``gpuadvisor suggest``: every option ranked, with money computed as documented."""

from __future__ import annotations

import json

import pytest

from gpuadvisor import catalog
from gpuadvisor.cli import main

PLAN = ["--model", "llama-3.1-8b", "--task", "qlora", "--checkpointing", "full",
        "--tokens", "20M"]


def run_json(capsys, *extra) -> dict:
    assert main(["suggest", *PLAN, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_suggest_json_ranks_options_and_prices_them_as_documented(capsys):
    # 256 tokens fit the 11.4 GiB CUDA can allocate on a 12 GB card with Hugging Face +
    # PEFT (512 are 110 MiB over: prepare_model_for_kbit_training's fp32 embedding and head)
    data = run_json(capsys, "--simulate", "rtx-3060-12gb", "--electricity", "0.30",
                    "--seq", "256")
    rows = data["suggestions"]
    offers = catalog.load_offers()
    rentals = [r for r in rows if r["kind"] in ("rent", "cloud") and r["fits"]]
    assert len(rentals) >= 40
    for r in rentals[:10]:
        offer = offers[r["offer"]["id"]]
        per_instance = offer.price_usd * offer.gpus_per_instance
        assert r["cost_usd"] == pytest.approx(r["hours"] * r["instances"] * per_instance)
    own = next(r for r in rows if r["kind"] == "own")
    # RTX 3060 12GB board power 170 W, 85% load, at $0.30/kWh.
    assert own["cost_usd"] == pytest.approx(170 * 0.85 * own["hours"] / 1000 * 0.30)
    buy = next(r for r in rows if r["kind"] == "buy-used" and r["gpus"] == 2 and r["fits"])
    assert buy["hardware_usd"] == pytest.approx(2 * offers[buy["offer"]["id"]].price_usd)
    fitting = [r["cost_usd"] for r in rows if r["fits"]]
    assert fitting == sorted(fitting)  # cheapest first
    assert data["best"] == "own" and data["electricity_usd_per_kwh"] == 0.30
    be = data["break_even"]
    assert be["jobs"] == pytest.approx(
        be["hardware_usd"] / (be["rent_per_job_usd"] - be["own_per_job_usd"]))


def test_budget_and_deadline_mark_the_options_outside_them(capsys):
    data = run_json(capsys, "--no-rig", "--budget", "2", "--deadline", "1", "--goal",
                    "fastest")
    rows = [r for r in data["suggestions"] if r["fits"]]
    for r in rows:
        assert r["within_budget"] == (r["cost_usd"] <= 2)
        assert r["within_deadline"] == (r["hours"] <= 1)
    acceptable = [r for r in rows if r["within_budget"] and r["within_deadline"]]
    assert acceptable and data["best"] == acceptable[0]["id"]
    hours = [r["hours"] for r in acceptable]
    assert hours == sorted(hours)  # fastest first among the acceptable


def test_a_plan_that_fits_nowhere_says_so(capsys):
    # 131072-token sequences of a 405B model: even one checkpointed sequence's layer
    # inputs (126 layers x 131072 x 16384 x 2 bytes = 541 GB) exceed any GPU.
    assert main(["suggest", "--model", "llama-3.1-405b", "--task", "full", "--seq", "131072",
                 "--tokens", "1B", "--no-rig", "--max-cards", "1"]) == 0
    out = capsys.readouterr().out
    assert "Nothing fits this plan. The closest is" in out


def test_bad_budget_is_a_clear_error(capsys):
    assert main(["suggest", *PLAN, "--budget", "-3"]) == 2
    assert "argument --budget: must be a positive number, got -3" in capsys.readouterr().err


def test_the_plan_is_taken_as_asked_unless_changes_are_allowed(capsys):
    argv = ["suggest", "--model", "llama-3.1-8b", "--task", "full", "--tokens", "20M",
            "--no-rig", "--json"]
    assert main(argv) == 0
    asked = json.loads(capsys.readouterr().out)
    best = next(r for r in asked["suggestions"] if r["id"] == asked["best"])
    assert best["levers"] == []  # a full fine-tune is answered as a full fine-tune
    # Options that need a change come after every one that fits as asked.
    kinds = [bool(r["levers"]) for r in asked["suggestions"] if r["fits"]]
    assert kinds == sorted(kinds)
    assert main([*argv, "--allow-changes"]) == 0
    allowed = json.loads(capsys.readouterr().out)
    first = next(r for r in allowed["suggestions"] if r["id"] == allowed["best"])
    assert first["cost_usd"] <= best["cost_usd"]  # LoRA/QLoRA may now win on cost
