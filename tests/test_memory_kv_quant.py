"""llama.cpp's quantized KV cache types in the generic memory model: ggml's block layouts
(ggml/src/ggml-common.h: ``block_q8_0`` is an fp16 scale and 32 int8 = 34 bytes per 32
elements, ``block_q4_0`` an fp16 scale and 16 bytes of nibbles = 18 bytes per 32)."""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.estimate import estimate, sweep_fit_map
from gpuadvisor.core.kvcache import DTYPE_BYTES, kv_bytes_per_token, kv_cache_bytes
from gpuadvisor.core.memory import memory_breakdown
from gpuadvisor.core.plan import Plan

LLAMA = catalog.load_models()["llama-3.1-8b"]
GPUS = catalog.load_gpus()
#: 2 (K, V) x 32 layers x 8 KV heads x 128 (meta-llama/Llama-3.1-8B config.json).
ELEMENTS_PER_TOKEN = 65_536


@pytest.mark.parametrize(("kv", "block_bytes"), [("q8_0", 2 + 32), ("q4_0", 2 + 16)])
def test_quantized_kv_types_are_ggml_blocks_of_32(kv, block_bytes):
    assert DTYPE_BYTES[kv] == block_bytes / 32
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", kv_dtype=kv,
                seq_len=1000, micro_batch=2)
    # 1,000 prompt + 256 new tokens, 2 sequences.
    assert kv_cache_bytes(LLAMA, plan) == pytest.approx(
        ELEMENTS_PER_TOKEN * 1256 * 2 * block_bytes / 32)
    per_token = ELEMENTS_PER_TOKEN * block_bytes / 32  # 69,632 or 36,864 bytes
    assert kv_bytes_per_token(LLAMA, plan) == pytest.approx(per_token)
    # The same bytes per token as the llama.cpp engine reads for a step.
    engine = estimate(LLAMA, plan, GPUS["rtx-4090"]).engine
    assert engine.kv_bytes_per_token == pytest.approx(per_token)


def test_sweeps_without_a_gpu_size_a_quantized_cache():
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", kv_dtype="q8_0",
                seq_len=1000)
    grid = sweep_fit_map(LLAMA, plan, [1], [1000, 2000])
    for j, s in enumerate((1000, 2000)):
        generic = memory_breakdown(LLAMA, plan.with_changes(seq_len=s))
        assert generic.kv_cache == pytest.approx(ELEMENTS_PER_TOKEN * (s + 256) * 34 / 32)
        assert grid[0, j] == pytest.approx(generic.total)
