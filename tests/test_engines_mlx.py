"""mlx-lm's decode step by hand: the GPU's reads, dispatches and latencies, with the host's
round (graph building and the command buffer's trip back) overlapped, as ``generate_step``
queues token n+1 with ``mx.async_eval`` before it waits on token n.

Shapes (Hugging Face config.json): Llama 3.1 8B 32 layers, 8 KV heads of 128; Qwen3-0.6B 28
layers; Qwen3-30B-A3B 48 layers, every one a 128-expert block.
"""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.compute import DecodeStep
from gpuadvisor.core.engines import mlx
from gpuadvisor.core.engines.base import GPU_CLASSES
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()
APPLE = GPU_CLASSES["apple"]


def test_a_large_model_decodes_at_its_gpu_step_with_the_host_round_hidden():
    gpu = GPUS["m2-max"]  # 400 GB/s
    plan = Plan(task="infer", framework="mlx", seq_len=1000, new_tokens=256)
    result = estimate(MODELS["llama-3.1-8b"], plan, gpu)
    weights = result.engine.weights
    # the cache read at the mean context, 1,000 + 256 / 2 tokens, K and V of 32 x 8 x 128
    # elements at 2 bytes
    kv_read = 2 * 32 * 8 * 128 * 2 * (1000 + 128)
    reads = (weights + kv_read) / (400e9 * APPLE.read_fraction)
    kernels = 15 * 32 + 3
    weight_kernels = 7 * 32 + 1
    gpu_step = reads + kernels * APPLE.stream_gap_s + weight_kernels * APPLE.dram_latency_s
    # 16 GB of weights take ~47 ms: the host's 0.5 ms + the command buffer's 2.5 ms run
    # beside it and add nothing
    assert gpu_step > 0.04
    assert 1 / result.time.decode_tokens_per_s == pytest.approx(gpu_step, rel=1e-9)
    assert result.engine.decode.pipelined_host_s == pytest.approx(0.5e-3 + 2.5e-3)
    assert result.engine.decode.host_s == 0.0
    assert result.time.bound == "memory bandwidth"


def test_a_small_model_decodes_at_the_hosts_round():
    gpu = GPUS["m4-max"]  # 546 GB/s
    plan = Plan(task="infer", framework="mlx", quant="int4", seq_len=16, new_tokens=128)
    result = estimate(MODELS["qwen3-0.6b"], plan, gpu)
    step = result.time.decode_step
    gpu_step = max(step.memory_s, step.compute_s) + step.fixed_s
    # ~0.4 GB of 4.5-bit weights and 28 x 15 + 3 dispatches: under 3 ms on the GPU, so the
    # host's round (0.5 ms of graph + 2.5 ms for the command buffer) sets the pace
    assert gpu_step < 3.0e-3
    assert result.time.decode_tokens_per_s == pytest.approx(1 / 3.0e-3, rel=1e-9)
    assert step.seconds() == pytest.approx(3.0e-3, rel=1e-9)
    assert result.time.bound == "host"
    assert result.assumptions["engine_overlapped_host_s_per_token"] == pytest.approx(3.0e-3)


def test_a_mixture_of_experts_block_dispatches_eight_more_kernels():
    shape = model_shape(MODELS["qwen3-30b-a3b"])
    r = mlx.evaluate(shape, Plan(task="infer", framework="mlx", quant="int4"), GPUS["m4-max"], A)
    # per layer 15 + 8 (router matmul, softmax, argpartition, take_along_axis, sum, divide,
    # weighting, sum over experts); 3 for the embedding, final norm and head
    assert r.decode.kernels_per_step == 48 * (15 + 8) + 3
    # 7 weight-reading kernels a layer plus the router's, and the head
    assert r.decode.weight_kernels_per_step == 48 * (7 + 1) + 1
    dense = mlx.evaluate(model_shape(MODELS["qwen3-4b"]), Plan(task="infer", framework="mlx"),
                         GPUS["m4-max"], A)
    assert dense.decode.kernels_per_step == 36 * 15 + 3


def test_a_host_floor_bounds_a_step_from_below_pass_by_pass():
    step = DecodeStep(memory_s=1.0e-3, weights_s=0.8e-3, compute_s=0.2e-3, fixed_s=0.5e-3,
                      prompt_token_s=1.0e-5, host_floor_s=3.0e-3)
    assert step.seconds() == pytest.approx(3.0e-3)  # GPU 1.5 ms < the host's 3 ms
    # two passes carrying 400 prompt tokens: the GPU's max(1.8, 4.2) + 2 x 0.5 = 5.2 ms,
    # the host's two rounds 6 ms
    assert step.mixed(400, passes=2) == pytest.approx(6.0e-3)
    # without a floor the GPU's time stands
    bare = DecodeStep(memory_s=1.0e-3, weights_s=0.8e-3, compute_s=0.2e-3, fixed_s=0.5e-3,
                      prompt_token_s=1.0e-5)
    assert bare.mixed(400, passes=2) == pytest.approx(5.2e-3)
