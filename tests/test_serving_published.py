"""Serving under load against published load tests (benchmarks/calibration/
serving_loadtests.json, each row with its source): the total output tokens/s of dense-model
vLLM runs at 1 to 64 requests in flight, within 20% and closer than the naive calculator
(every user at the card's bandwidth over the weights)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import serving_accuracy as B
from gpuadvisor import catalog
from gpuadvisor.core.resolve import resolve
from gpuadvisor.core.serving_load import load_point

ROWS = {r["id"]: r for r in json.loads(
    (Path(__file__).resolve().parents[1] / "benchmarks/calibration/serving_loadtests.json")
    .read_text())["rows"]}
MODELS, GPUS = catalog.load_models(), catalog.load_gpus()

#: Closed-loop sweeps of dense models: ree2raz/inference-bench @6219100 results/summary.csv
#: (Qwen2.5-7B fp16, vLLM 0.8.5 on an L4 at 1/4/16/32/64 requests, 128 tokens out) and
#: results/v2_a100_vllm_fp16.jsonl (vLLM 0.20.1 on an A100 40GB at 1/16/64); the vLLM blog
#: "State of FP8 KV-Cache" (2026-04-22) Table 4 (Llama 3.1 8B on one H100, 8 requests of
#: ~20k tokens in, ~2k out, BF16 and FP8 KV cache).
DENSE = ("SLT012", "SLT013", "SLT014", "SLT015", "SLT016", "SLT017", "SLT018", "SLT019",
         "SLT033", "SLT034")


@pytest.mark.parametrize("row_id", DENSE)
def test_total_tokens_per_second_of_a_published_load_test(row_id):
    row = ROWS[row_id]
    model_id, gpu_id, (plan, _), burst, why = B._row_plan(row)
    assert why is None and not burst
    model, gpu = MODELS[model_id], GPUS[gpu_id]
    base = resolve(model, plan, gpu)
    users = int(row["concurrency"])
    ours = load_point(base, users).tokens_per_s_total
    published = row["output_tokens_per_s"]
    naive = users * gpu.memory_bandwidth_gb_s * 1e9 / base.memory.weights
    assert ours == pytest.approx(published, rel=0.20)
    assert abs(ours / published - 1) < abs(naive / published - 1)


def test_the_plan_of_a_row_is_the_one_the_test_ran():
    # SLT034: Llama 3.1 8B, ~20k in / ~2k out, FP8 KV cache (--kv-cache-dtype fp8)
    model_id, gpu_id, (plan, bounded), burst, why = B._row_plan(ROWS["SLT034"])
    assert (model_id, gpu_id, why, burst, bounded) == ("llama-3.1-8b", "h100-sxm", None,
                                                       False, False)
    assert (plan.framework, plan.seq_len, plan.new_tokens, plan.kv_dtype) == \
        ("vllm", 20000, 2000, "fp8")
    # SLT020-028 sent every request at once with gpu_memory_utilization 0.5
    _, _, (plan, _), burst, _ = B._row_plan(ROWS["SLT020"])
    assert burst and plan.gpu_memory_utilization == 0.5
    # llama-server rows: the GGUF type from the row
    _, _, (plan, _), _, _ = B._row_plan(ROWS["SLT004"])
    assert (plan.framework, plan.quant) == ("llama.cpp", "q4_k_m")
