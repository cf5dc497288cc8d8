"""The training job from the data set as it is: measured sample lengths, padded per
micro-batch or packed (gpuadvisor/core/datasets.py).

The expected longest of ``b`` samples is computed from the length distribution's quantiles;
it is checked against an independent count: the padded lengths of random micro-batches of
the real Alpaca samples (benchmarks/calibration/alpaca_tokens/results.json, our own count).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gpuadvisor.catalog import load_gpus, load_models
from gpuadvisor.core.compute import time_plan, training_job
from gpuadvisor.core.datasets import (
    ALPACA,
    CODE_ALPACA_2K,
    DATASETS,
    GSM8K,
    LIMA,
    LengthStats,
    tokenizer_family,
)
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.resolve import resolve
from tests.cli_run import run_cli

CALIBRATION = Path(__file__).parents[1] / "benchmarks" / "calibration"
COUNT = json.loads((CALIBRATION / "alpaca_tokens" / "results.json").read_text())
GSM8K_COUNT = json.loads((CALIBRATION / "gsm8k_tokens" / "results.json").read_text())
#: the data sets counted the same way (METHOD.md and results.json in each folder)
COUNTED = {
    "code-alpaca-2k": (CODE_ALPACA_2K, json.loads(
        (CALIBRATION / "code_alpaca_2k_tokens" / "results.json").read_text())),
    "lima": (LIMA, json.loads((CALIBRATION / "lima_tokens" / "results.json").read_text())),
}
MODELS, GPUS = load_models(), load_gpus()


_cli = run_cli


@pytest.mark.parametrize("family", ["llama", "mistral", "gpt2"])
@pytest.mark.parametrize("batch", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("cap", [None, 512])
def test_the_padded_length_matches_random_batches_of_the_real_samples(family, batch, cap):
    measured = COUNT[family]["padding"]["none" if cap is None else str(cap)][str(batch)]
    got = ALPACA.lengths[family].expected_longest(batch, cap)
    assert got == pytest.approx(measured["per_sample"], rel=0.05)


@pytest.mark.parametrize("family", ["llama", "mistral", "gpt2"])
@pytest.mark.parametrize("batch", [1, 2, 4, 8, 16])
def test_gsm8k_padded_lengths_match_its_random_batches(family, batch):
    measured = GSM8K_COUNT[family]["padding"]["none"][str(batch)]["per_sample"]
    assert GSM8K.lengths[family].expected_longest(batch) == pytest.approx(measured, rel=0.05)
    assert GSM8K.lengths[family].mean == pytest.approx(GSM8K_COUNT[family]["full"]["mean"],
                                                       abs=0.01)



@pytest.mark.parametrize("dataset_id", sorted(COUNTED))
@pytest.mark.parametrize("family", ["llama", "mistral", "gpt2"])
@pytest.mark.parametrize("batch", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("cap", [None, 512, 2048])
def test_more_data_sets_padded_lengths_match_their_random_batches(dataset_id, family, batch,
                                                                  cap):
    spec, count = COUNTED[dataset_id]
    measured = count[family]["padding"]["none" if cap is None else str(cap)][str(batch)]
    got = spec.lengths[family].expected_longest(batch, cap)
    assert got == pytest.approx(measured["per_sample"], rel=0.05)


@pytest.mark.parametrize("dataset_id", sorted(COUNTED))
def test_more_data_sets_are_their_counted_stats(dataset_id):
    spec, count = COUNTED[dataset_id]
    assert DATASETS[dataset_id] is spec and spec.kind == "finetune"
    assert spec.samples == count["llama"]["full"]["n"]
    for family in ("llama", "mistral", "gpt2"):
        stats, full = spec.lengths[family], count[family]["full"]
        assert full["n"] == spec.samples
        assert stats.mean == pytest.approx(full["mean"], abs=0.01)
        points = dict(stats.quantiles)
        for share, key in ((0.0, "min"), (0.10, "p10"), (0.25, "p25"), (0.50, "p50"),
                           (0.75, "p75"), (0.90, "p90"), (0.95, "p95"), (0.99, "p99"),
                           (1.0, "max")):
            assert points[share] == pytest.approx(full[key], abs=0.01)
        assert points[1.0 - full["gt512"]] == 512.0
        if full["gt1024"] > 0:
            assert points[1.0 - full["gt1024"]] == 1024.0


def test_the_cli_takes_the_more_data_sets():
    flags = ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-3090",
             "--no-measured"]
    for dataset_id, words in (("code-alpaca-2k", "Code Alpaca 2k, 2,017 samples"),
                              ("lima", "LIMA, 1,029 samples")):
        code, out, _ = _cli("estimate", *flags, "--dataset", dataset_id)
        assert code == 0 and words in out

def test_the_stats_are_the_counted_ones():
    for family in ("llama", "mistral", "gpt2"):
        stats, full = ALPACA.lengths[family], COUNT[family]["full"]
        assert stats.mean == pytest.approx(full["mean"], abs=0.01)
        points = dict((u, t) for u, t in stats.quantiles)
        assert points[0.0] == full["min"] and points[1.0] == full["max"]
        assert points[0.5] == full["p50"] and points[0.99] == full["p99"]
        assert points[1.0 - full["gt512"]] == 512.0


def test_the_longest_of_b_by_hand():
    # every sample 100 tokens: the longest of any batch is 100, cut at 60 it is 60
    flat = LengthStats(100.0, ((0.0, 100.0), (1.0, 100.0)), "test")
    assert flat.expected_longest(8) == pytest.approx(100.0)
    assert flat.expected_longest(8, 60) == pytest.approx(60.0)
    # lengths log-linear from 100 to 400 (Q(u) = 100 * 4**u): E[max of 2] = int_0^1 2u Q(u)
    # du = 200 * [4^u (u/ln4 - 1/ln4^2)]_0^1 = 200 * (4/ln4 - 4/ln4^2 + 1/ln4^2)
    ln4 = math.log(4.0)
    expected = 200.0 * (4.0 * (1 / ln4 - 1 / ln4 ** 2) + 1 / ln4 ** 2)
    ramp = LengthStats(216.4, ((0.0, 100.0), (1.0, 400.0)), "test")
    assert ramp.expected_longest(2) == pytest.approx(expected, rel=1e-4)


def test_the_tokenizer_family():
    assert tokenizer_family(50_257, "gpt2") == "gpt2"
    assert tokenizer_family(32_000, "mistral-7b") == "mistral"
    assert tokenizer_family(32_000, "llama-2-7b") == "llama"
    assert tokenizer_family(128_256, "llama-3.1-8b") == "llama"


def test_the_default_fine_tune_is_alpaca_padded_per_micro_batch():
    """QLoRA of Llama 3.1 8B on an RTX 3090 with the app's defaults: 52,002 samples of
    Alpaca at their padded length, not 52,002 x 2,048 tokens (7-10x too long before)."""
    model, gpu = MODELS["llama-3.1-8b"], GPUS["rtx-3090"]
    for micro in (1, 4):
        plan = Plan(task="qlora", micro_batch=micro, checkpointing="full")
        job = training_job(model, plan)
        per = ALPACA.lengths["llama"].expected_longest(micro, 2048)
        assert job.tokens == pytest.approx(52_002 * per)
        assert job.seq == pytest.approx(per)
        assert job.origin == "assumed" and "Alpaca" in job.text
        result = resolve(model, plan, gpu)
        assert result.assumptions["dataset_tokens"] == pytest.approx(job.tokens)
        timed = time_plan(model, plan)
        assert timed.seq_len == round(per)
        # one optimizer step per micro-batch of samples: 52,002 / micro steps
        assert float(result.time.steps) == pytest.approx(52_002 / micro, rel=1e-9)
    # far fewer tokens than every sample at --seq
    assert job.tokens < 52_002 * 2048 / 7


def test_memory_is_sized_at_seq_whatever_the_data_set():
    model, gpu = MODELS["llama-3.1-8b"], GPUS["rtx-4090"]
    base = Plan(task="lora", micro_batch=4, checkpointing="full")
    padded = resolve(model, base, gpu)
    packed = resolve(model, base.with_changes(packing=True), gpu)
    full = resolve(model, base.with_changes(dataset_samples=52_002), gpu)
    assert padded.memory.total == packed.memory.total == full.memory.total
    assert padded.time.seconds < full.time.seconds
    # packing: every token real, sequences of --seq
    job = training_job(model, base.with_changes(packing=True))
    assert job.tokens == pytest.approx(52_002 * ALPACA.lengths["llama"].mean_cut(2048))
    assert job.seq == 2048


def test_samples_without_a_data_set_count_seq_and_with_one_their_lengths():
    model = MODELS["llama-3.1-8b"]
    plan = Plan(task="lora", dataset_samples=10_000, epochs=2.0)
    assert training_job(model, plan).tokens == 10_000 * 2 * 2048
    part = plan.with_changes(dataset="alpaca")
    per = ALPACA.lengths["llama"].expected_longest(1, 2048)
    assert training_job(model, part).tokens == pytest.approx(10_000 * 2 * per)


def test_a_pretraining_corpus_is_its_tokens():
    model = MODELS["llama-3.2-1b"]
    job = training_job(model, Plan(task="pretrain", dataset="fineweb-edu-10bt", epochs=2.0))
    assert job.tokens == pytest.approx(2 * 10e9) and job.seq == 2048
    assert "FineWeb-Edu" in job.text


def test_the_cli_names_the_data_set_and_reproduces_it():
    flags = ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-3090",
             "--no-measured"]
    code, out, _ = _cli("estimate", *flags)
    assert code == 0
    assert "data          " in out and "Alpaca, 52,002 samples" \
        in out
    code, out, _ = _cli("estimate", *flags, "--json")
    default = json.loads(out)
    code, out, _ = _cli("estimate", *flags, "--dataset", "alpaca", "--packing", "--json")
    packed = json.loads(out)
    assert packed["assumptions"]["dataset_tokens_source"] == "plan"
    assert packed["time"]["seconds"] != default["time"]["seconds"]
    code, text, _ = _cli("export", "launch", *flags, "--dataset", "alpaca", "--packing")
    assert "--dataset alpaca" in text and "--packing" in text


def test_bad_data_set_flags_name_the_flag():
    flags = ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-3090"]
    code, _, err = _cli("estimate", *flags, "--dataset", "alpaca", "--tokens", "1M")
    assert code == 2 and "--dataset: give --dataset or --tokens, not both" in err
    code, _, err = _cli("estimate", *flags, "--dataset", "no-such")
    assert code == 2 and "--dataset" in err
    with pytest.raises(ValueError, match="dataset must be one of"):
        Plan(task="lora", dataset="no-such")


def test_a_fine_tuning_set_known_by_its_mean_is_its_tokens_packed():
    """SlimOrca: 517,982 conversations x 408 Llama 3.1 tokens (sara-nl/LLM-finetune README's
    table); UltraChat 200k: the 1,090 steps x 128 sequences x 2,048 tokens zephyr-7b-sft-full
    packed it into; OpenHermes 2.5: 1,001,551 rows, 391.5M Gemma 4 tokens. None publishes
    a length distribution: the job is their tokens,
    packed, also when the plan pads (and it says so)."""
    model = MODELS["llama-3.1-8b"]
    for dataset_id, tokens, samples in (("slimorca", 517_982 * 408, 517_982),
                                        ("ultrachat-200k", 1_090 * 128 * 2_048, 207_865),
                                        # HRM-Text's count of every row, Gemma 4's template
                                        ("openhermes-2.5", 391.5e6, 1_001_551)):
        padded = training_job(model, Plan(task="qlora", dataset=dataset_id, seq_len=4096,
                                          micro_batch=4, epochs=2.0))
        packed = training_job(model, Plan(task="qlora", dataset=dataset_id, seq_len=4096,
                                          micro_batch=4, epochs=2.0, packing=True))
        for job in (padded, packed):
            assert job.tokens == pytest.approx(2 * tokens)
            assert job.packed and job.seq == 4096 and job.samples == samples
            assert job.per_sample == pytest.approx(tokens / samples)
        assert "cannot be counted" in padded.text and "cannot be counted" not in packed.text
    assert DATASETS["ultrachat-200k"].tokens / 207_865 == pytest.approx(1374.6, abs=0.1)
    assert DATASETS["slimorca"].tokenizer.startswith("Llama 3.1")
    assert DATASETS["openhermes-2.5"].tokenizer.startswith("Gemma 4")


def test_the_cli_times_slimorca_from_its_tokens():
    flags = ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-3090",
             "--no-measured", "--json"]
    code, out, _ = _cli("estimate", *flags, "--dataset", "slimorca", "--packing")
    assert code == 0
    data = json.loads(out)
    assert data["assumptions"]["dataset_tokens"] == pytest.approx(517_982 * 408)
    assert data["assumptions"]["dataset_tokens_source"] == "plan"
