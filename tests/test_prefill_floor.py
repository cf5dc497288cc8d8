"""A prompt's prefill is never shorter than one read of the weights per forward pass: a
short chat turn on a card with little bandwidth is weight-read bound, a long prompt stays
compute bound."""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.compute import flops_per_token
from gpuadvisor.core.engines.prompt_rates import MMQ_FLOP_PER_SM_CLOCK
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.plan import Plan

MODELS, GPUS = catalog.load_models(), catalog.load_gpus()
QWEN = MODELS["qwen2.5-7b"]


def prefill(seq, gpu="l4", **fields):
    plan = Plan(task="infer", framework="transformers", seq_len=seq, new_tokens=16,
                precision="fp16", **fields)
    return estimate(QWEN, plan, GPUS[gpu]), plan


def test_a_short_prompt_on_an_l4_takes_one_read_of_its_weights():
    e, plan = prefill(40)
    gpu = GPUS["l4"]
    read = e.memory.weights / (gpu.memory_bandwidth_gb_s * 1e9 * A.bandwidth_efficiency)
    compute = 40 * flops_per_token(QWEN, plan).forward / (
        gpu.fp16_tensor_tflops * 1e12 * A.efficiency_infer_prefill)
    # 15.2 GB of fp16 weights at 300 GB/s x 0.8: about 64 ms; the matmuls take ~10 ms
    assert compute < read / 4
    assert e.time.prefill_seconds == pytest.approx(read, rel=1e-9)


def test_a_long_prompt_stays_compute_bound():
    e, plan = prefill(4096)
    gpu = GPUS["l4"]
    compute = 4096 * flops_per_token(QWEN, plan).forward / (
        gpu.fp16_tensor_tflops * 1e12 * A.efficiency_infer_prefill)
    assert e.time.prefill_seconds == pytest.approx(compute, rel=1e-9)


def test_each_prompt_pass_of_an_engine_reads_the_weights_again():
    # llama.cpp takes a prompt in n_ubatch = 512 token passes: on a card with little
    # bandwidth for its compute, three short passes cost three reads.
    gpu = GPUS["l4"]
    plan = Plan(task="infer", framework="llama.cpp", quant="q8_0", seq_len=1100,
                new_tokens=16)
    e = estimate(QWEN, plan, gpu)
    per_token = flops_per_token(QWEN, plan).forward
    # Q8_0 on an Ada card: llama.cpp's MMQ with int8 mma (prompt_rates), per SM per clock;
    # SMs x clock is the fp32 rate over 2 x 128 lanes.
    achieved = MMQ_FLOP_PER_SM_CLOCK * gpu.fp32_tflops * 1e12 / 256
    bw = gpu.memory_bandwidth_gb_s * 1e9 * e.engine.decode.bandwidth_efficiency
    read = e.engine.weights / bw
    expected = sum(max(t * per_token / achieved, read) for t in (512, 512, 76))
    assert e.time.prefill_seconds == pytest.approx(expected, rel=1e-9)
