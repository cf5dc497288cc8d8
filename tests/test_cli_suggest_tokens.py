"""``gpuadvisor suggest`` on an inference plan answers per token: the table, the break-even in
tokens, and the JSON keys (the existing ones kept)."""

from __future__ import annotations

import json

import pytest

from gpuadvisor import catalog
from gpuadvisor.cli import main

PLAN = ["--model", "llama-3.1-8b", "--task", "infer", "--seq", "512", "--new-tokens", "256"]


def run_json(capsys, *extra) -> dict:
    assert main(["suggest", *PLAN, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keeps_its_keys_and_gains_the_per_token_ones(capsys):
    data = run_json(capsys, "--simulate", "rtx-3090", "--electricity", "0.30")
    for key in ("goal", "budget_usd", "deadline_hours", "electricity_usd_per_kwh", "rig",
                "nothing_fits", "best", "suggestions", "break_even", "per_token"):
        assert key in data
    own = next(r for r in data["suggestions"] if r["kind"] == "own")
    for key in ("id", "kind", "label", "gpu", "gpus", "fits", "levers", "hours", "cost_usd",
                "why", "tokens_per_s", "ttft_s", "usd_per_mtok", "break_even_mtok"):
        assert key in own
    per = data["per_token"]
    assert per["assumptions"] == {"lifetime_hours": 10_000.0, "utilization": 0.5,
                                  "usd_per_kwh": 0.30, "load_fraction": 0.85}
    assert (per["prompt_tokens"], per["new_tokens"]) == (512, 256)
    kinds = {r["kind"] for r in per["rows"]}
    assert {"own", "buy-used", "rent", "api"} <= kinds
    # The own RTX 3090 is paid for: 350 W x 0.85 / 1000 x $0.30 / (tokens/s x 3600) x 1e6;
    # with wear, the cheapest used 3090 of the offers catalog / 10,000 h on top.
    used = min(o.price_usd for o in catalog.load_offers().values()
               if o.gpu_id == "rtx-3090" and o.kind == "buy-used")
    row = next(r for r in per["rows"] if r["id"] == "own")
    power = 350 * 0.85 / 1000 * 0.30
    assert row["usd_per_mtok"] == pytest.approx(power / (row["tokens_per_s"] * 3600) * 1e6)
    assert row["wear_usd_per_mtok"] == pytest.approx(
        (power + used / 10_000) / (row["tokens_per_s"] * 3600) * 1e6)
    assert own["usd_per_mtok"] == row["usd_per_mtok"] and own["ttft_s"] > 0
    # where the own card's price comes from: the cheapest used 3090's seller and date
    cheapest = min((o for o in catalog.load_offers().values()
                    if o.gpu_id == "rtx-3090" and o.kind == "buy-used"),
                   key=lambda o: o.price_usd)
    assert row["hardware_priced_as"] == [{"seller": cheapest.provider,
                                          "as_of": cheapest.as_of}]
    assert row["hardware_unpriced"] == []
    api = next(r for r in per["rows"] if r["kind"] == "api")
    a = api["api"]
    assert api["usd_per_mtok"] == pytest.approx(a["output_usd_per_mtok"]
                                                 + a["input_usd_per_mtok"] * 512 / 256)
    assert a["blended_usd_per_mtok"] == pytest.approx(
        (a["input_usd_per_mtok"] * 512 + a["output_usd_per_mtok"] * 256) / 768)
    assert per["apis_for_model"] >= 3 and per["no_api"] is None


def test_utilization_and_lifetime_are_settable_and_change_the_prices(capsys):
    half = run_json(capsys, "--no-rig")
    quarter = run_json(capsys, "--no-rig", "--utilization", "0.25",
                       "--assume", "lifetime_hours=5000")
    assert quarter["per_token"]["assumptions"]["utilization"] == 0.25
    assert quarter["per_token"]["assumptions"]["lifetime_hours"] == 5000
    by_id = {r["id"]: r for r in half["per_token"]["rows"]}
    rent = next(r for r in quarter["per_token"]["rows"]
                if r["kind"] == "rent" and r["usd_per_mtok"] is not None)
    # Half the busy hours: twice the price of every generated token.
    assert rent["usd_per_mtok"] == pytest.approx(2 * by_id[rent["id"]]["usd_per_mtok"])
    buy = next(r for r in quarter["per_token"]["rows"]
               if r["kind"] == "buy-used" and r["usd_per_mtok"] is not None)
    tokens_h = buy["tokens_per_s"] * 3600
    before = by_id[buy["id"]]["usd_per_mtok"]
    # The card's price over 5,000 h instead of 10,000: its share per token doubles.
    card_share = buy["hardware_usd"] / 10_000 / tokens_h * 1e6
    assert buy["usd_per_mtok"] == pytest.approx(before + card_share)


def test_break_even_is_cards_over_the_price_margin(capsys):
    data = run_json(capsys, "--no-rig", "--micro-batch", "32")
    even = data["per_token"]["break_even"]
    rows = {r["id"]: r for r in data["per_token"]["rows"]}
    assert rows[even["other"]]["kind"] == "api"
    owned = rows[even["own"]]
    assert even["mtok"] == pytest.approx(owned["hardware_usd"] / (
        rows[even["other"]]["usd_per_mtok"] - owned["energy_usd_per_mtok"]))
    assert even["tokens"] == pytest.approx(even["mtok"] * 1e6)


def test_the_table_reads_per_token_and_never_says_zero_dollars(capsys):
    assert main(["suggest", *PLAN, "--simulate", "rtx-3090", "--limit", "40"]) == 0
    out = capsys.readouterr().out
    assert "Per million generated tokens (512 prompt : 256 new tokens a request" in out
    assert "$/Mtok" in out and "1st token" in out and " api " in out
    assert "$0.00" not in out
    assert "Break-even: " in out


def test_a_model_no_api_lists_is_said(capsys):
    assert main(["suggest", "--model", "qwen3-8b", "--task", "infer", "--no-rig"]) == 0
    assert "No API in the catalog lists Qwen3 8B." in capsys.readouterr().out


def test_per_token_flags_on_a_training_plan_are_a_clear_error(capsys):
    assert main(["suggest", "--model", "llama-3.1-8b", "--task", "qlora", "--no-rig",
                 "--utilization", "0.3"]) == 2
    assert "per-token prices are for inference plans" in capsys.readouterr().err


@pytest.mark.parametrize(("flag", "said"), [
    (["--utilization", "0"], "argument --utilization: must be in (0, 1], got 0"),
    (["--utilization", "1.5"], "argument --utilization: must be in (0, 1], got 1.5"),
    (["--lifetime-hours", "-5"], "argument --lifetime-hours: must be a positive number"),
    (["--assume", "utilization=2"], "--assume: utilization must be in (0, 1]"),
    (["--assume", "lifetime_hours=0.1"], "--assume: lifetime_hours must be between 1 and")])
def test_bad_per_token_assumptions_are_named(capsys, flag, said):
    assert main(["suggest", *PLAN, "--no-rig", *flag]) == 2
    assert said in capsys.readouterr().err
