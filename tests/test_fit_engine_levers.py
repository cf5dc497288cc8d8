"""Levers of a llama.cpp plan: a Q4_K_M file, a q8_0 KV cache, layers left in host RAM."""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.fit import levers
from gpuadvisor.core.plan import Plan

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()


def test_the_most_layers_that_fit_stay_on_the_gpu():
    model, gpu = MODELS["llama-3.1-70b"], GPUS["rtx-4090"]
    # every layer asked on the GPU (-ngl 81; left unset, llama.cpp --fit would place them)
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", seq_len=4096,
                gpu_layers=81)
    assert not estimate(model, plan, gpu).fits  # ~40 GB of Q4_K_M on a 24 GB card
    [lever] = [lv for lv in levers(model, plan, gpu) if lv.id == "gpu_layers"]
    n = lever.changes["gpu_layers"]
    # Checked against the estimate itself: n layers fit, one more does not.
    assert estimate(model, plan.with_changes(gpu_layers=n), gpu).fits
    assert not estimate(model, plan.with_changes(gpu_layers=n + 1), gpu).fits
    assert 0 < n < model.n_layers and lever.fits
    assert f"-ngl {n}" in lever.detail


def test_a_16_bit_gguf_is_offered_q4_k_m_and_a_q8_0_cache():
    model, gpu = MODELS["llama-3.1-8b"], GPUS["rtx-4060-ti-16gb"]
    plan = Plan(task="infer", framework="llama.cpp", quant="f16", seq_len=32768,
                attention="eager")
    by_id = {lv.id: lv for lv in levers(model, plan, gpu)}
    assert by_id["quantize"].changes == {"quant": "q4_k_m"}
    # llama.cpp quantizes the V cache only with flash attention: the lever turns it on.
    assert by_id["kv_8bit"].changes == {"kv_dtype": "q8_0", "attention": "flash"}
    assert by_id["quantize"].after_bytes < by_id["quantize"].before_bytes


def test_a_plan_that_fits_gets_no_layer_lever():
    model, gpu = MODELS["llama-3.1-8b"], GPUS["rtx-4090"]
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m")
    assert estimate(model, plan, gpu).fits
    assert "gpu_layers" not in {lv.id for lv in levers(model, plan, gpu)}


@pytest.mark.parametrize("framework", ["llama.cpp", "ollama"])
def test_no_lever_names_a_type_the_engine_cannot_load(framework):
    model, gpu = MODELS["qwen3-32b"], GPUS["rtx-3060-12gb"]
    plan = Plan(task="infer", framework=framework, quant="q8_0")
    for lever in levers(model, plan, gpu):
        estimate(model, lever.plan, gpu)  # raises on a plan the engine refuses


def test_a_single_chip_system_is_not_offered_more_gpus():
    # An Apple GPU is one chip with its memory: "2 GPUs" is not a lever there.
    from gpuadvisor import catalog
    from gpuadvisor.core.fit import levers
    from gpuadvisor.core.plan import Plan

    models, gpus = catalog.load_models(), catalog.load_gpus()
    mac = gpus["m2-max"]
    assert mac.unified_memory
    found = levers(models["llama-3.1-70b"], Plan(task="infer", seq_len=4096), mac)
    assert all(lever.id != "more_gpus" for lever in found)
    cuda = levers(models["llama-3.1-70b"], Plan(task="infer", seq_len=4096), gpus["rtx-4090"])
    assert any(lever.id == "more_gpus" for lever in cuda)


def test_a_vllm_plans_levers_are_what_lets_more_requests_run_at_once():
    # vLLM takes 0.9 of the card whatever the plan, so no lever moves its memory; what a
    # lever moves is how many whole requests its KV pool holds at once. 16 requests of
    # 4,096 + 256 tokens of Llama 3.1 8B on a 3090 (128 KiB a token at 16 bits): 10 at once.
    # An fp8 cache halves the bytes a token keeps (the pool holds twice the tokens);
    # int4 weights leave the pool the ~11 GiB the weights give back; TP 2 gives each card
    # half the weights and half of each token's cache. Each runs all 16 at once.
    model, gpu = MODELS["llama-3.1-8b"], GPUS["rtx-3090"]
    plan = Plan(task="infer", framework="vllm", micro_batch=16, seq_len=4096, new_tokens=256)
    base = estimate(model, plan, gpu)
    held = base.engine.capacity_tokens // 4352
    assert held == 10 and base.verdict == "tight"
    found = {lv.id: lv for lv in levers(model, plan, gpu)}
    assert set(found) == {"quantize", "kv_8bit", "more_gpus"}  # not "fewer sequences"
    for lever in found.values():
        after = estimate(model, lever.plan, gpu)
        assert lever.requests_before == 10
        assert lever.requests_after == min(16, after.engine.capacity_tokens // 4352) == 16
        assert lever.fits and after.verdict == "fits"
    fp8 = estimate(model, found["kv_8bit"].plan, gpu).engine
    assert fp8.kv_bytes_per_token == base.engine.kv_bytes_per_token / 2
    # a plan whose requests all run at once: nothing to gain but more GPUs
    eight = plan.with_changes(micro_batch=8)
    assert [lv.id for lv in levers(model, eight, gpu)] == ["more_gpus"]
