"""``framework = auto`` by platform: Apple GPUs serve on MLX, other GPUs keep the generic
model; sweeps over a catalog that mixes both evaluate each GPU on its own engine.

Llama 3.1 8B by hand (meta-llama/Llama-3.1-8B config.json: vocab 128,256, hidden 4,096, 32
layers, MLP 14,336, 8 KV heads of 128): per layer q and o 4096^2 each, k and v 4096 x 1024
each, the gated MLP 3 x 4096 x 14336, two norms of 4096 = 218,112,000; 32 layers, the
untied embedding and head (128,256 x 4,096 each) and the final norm: 8,030,261,248
parameters. Its cache holds 2 x 32 x 8 x 128 = 65,536 elements per token.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.engines import sweep as engine_sweep
from gpuadvisor.core.engines.select import engine_for, runs_on_engine
from gpuadvisor.core.estimate import estimate, sweep_fit_map
from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.core.memory import memory_breakdown
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()
LLAMA = MODELS["llama-3.1-8b"]
SHAPE = model_shape(LLAMA)
PARAMS = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) \
    + 2 * 128256 * 4096 + 4096
KV_ELEMENTS_PER_TOKEN = 2 * 32 * 8 * 128
#: An inference plan naming no engine: 1,000 prompt tokens, 256 new ones (the default).
INFER = Plan(task="infer", seq_len=1000)


def mlx_total_by_hand(micro_batch: int, seq_len: int, new_tokens: int = 256) -> int:
    """mlx-lm's memory for unquantized Llama 3.1 8B (engines/mlx.py's terms): 2 bytes per
    weight; an fp16 cache grown in steps of 256 tokens; one layer's working set of the
    prompt chunk (at most 2,048 tokens: the residual, q, k, v, o at 4,096 and the MLP's
    three 14,336-wide tensors, 2 bytes each) and the last token's fp32 logits."""
    weights = PARAMS * 2
    cells = -(-(seq_len + new_tokens) // 256) * 256
    kv = KV_ELEMENTS_PER_TOKEN * cells * micro_batch * 2
    chunk = min(2048, seq_len) * micro_batch
    working = chunk * (4 * 4096 + 3 * 14336) * 2 + micro_batch * 128256 * 4
    return weights + kv + working


def test_the_hand_count_is_the_catalog_model():
    assert PARAMS == 8_030_261_248 == SHAPE.params.total


# --------------------------------------------------------------------------- engine_for
def test_an_apple_m2_max_plan_runs_on_mlx_and_says_why():
    result = estimate(LLAMA, INFER, GPUS["m2-max"])
    assert result.engine_name == "mlx"
    assert result.assumptions["engine"] == "mlx"
    assert result.assumptions["engine_source"] == "auto: Apple GPU: MLX"
    # 1,256 tokens -> 1,280 cells; 1,000-token chunk: 16,060,522,496 + 167,772,160 +
    # 119,297,024 bytes.
    assert mlx_total_by_hand(1, 1000) == 16_347_591_680
    assert result.memory.total == pytest.approx(16_347_591_680)
    # MLX fits in the share of unified memory macOS lets the GPU wire (75% of 96 GiB).
    assert result.capacity_bytes == pytest.approx(0.75 * 96 * 2**30)


def test_an_rtx_4090_plan_keeps_hugging_face_transformers():
    result = estimate(LLAMA, INFER, GPUS["rtx-4090"])
    assert result.engine_name == "transformers"
    assert result.engine is None
    assert result.assumptions["engine_source"] == "auto: Hugging Face transformers"
    assert result.memory.total == memory_breakdown(LLAMA, INFER).total
    # the driver reports 24,564 MiB (nvidia-smi), less its own reserve
    assert result.capacity_bytes == (24_564 - DRIVER_RESERVE_MIB) * 2**20


@pytest.mark.parametrize(("quant", "engine"), [
    (None, "mlx"), ("none", "mlx"), ("int3", "mlx"), ("int4", "mlx"), ("int8", "mlx"),
    ("q4_k_m", "llama.cpp"), ("q8_0", "llama.cpp"), ("exl2-4.65", "exllamav2"),
    ("nf4", "transformers"), ("fp8", "transformers"),
])
def test_an_apple_gpu_picks_by_the_weights_format(quant, engine):
    name, why = engine_for(INFER.with_changes(quant=quant), SHAPE, GPUS["m2-max"])
    assert name == engine
    if engine == "llama.cpp":
        assert why == f"auto: {quant} is a GGUF file type"
    if engine == "transformers":
        assert why == (f"auto: Apple GPU, {quant} (not an mlx-lm format): "
                       "Hugging Face transformers")


def test_other_gpus_and_no_gpu_keep_todays_rule():
    for gpu in (None, GPUS["rtx-4090"], GPUS["a100-sxm-80gb"]):
        assert engine_for(INFER, SHAPE, gpu) == ("transformers",
                                                 "auto: Hugging Face transformers")
        assert engine_for(INFER.with_changes(quant="int4"), SHAPE, gpu)[0] == "transformers"
        assert not runs_on_engine(INFER, SHAPE, gpu)
    assert runs_on_engine(INFER, SHAPE, GPUS["m2-max"])
    assert not runs_on_engine(Plan(task="qlora"), SHAPE, GPUS["m2-max"])


def test_an_apple_gpu_keeps_the_generic_model_where_mlx_does_not_serve():
    fp32 = INFER.with_changes(precision="fp32")
    assert engine_for(fp32, SHAPE, GPUS["m2-max"]) == (
        "transformers", "auto: Apple GPU, fp32 (MLX serves 16-bit models): Hugging Face "
                        "transformers")
    bert = MODELS["bert-base-uncased"]
    plan = Plan(task="infer", seq_len=128)
    assert engine_for(plan, model_shape(bert), GPUS["m2-max"])[0] == "transformers"
    assert estimate(bert, plan, GPUS["m2-max"]).memory.total == \
        memory_breakdown(bert, plan).total


def test_a_named_engine_is_used_as_named_on_an_apple_gpu():
    plan = INFER.with_changes(framework="transformers")
    assert engine_for(plan, SHAPE, GPUS["m2-max"]) == ("transformers", "plan")
    assert estimate(LLAMA, plan, GPUS["m2-max"]).engine_name == "transformers"


# --------------------------------------------------------------------------- sweeps
def test_fit_map_on_an_apple_gpu_is_mlxs_memory():
    grid = sweep_fit_map(LLAMA, INFER, [1, 2], [1000, 4000], gpu=GPUS["m2-max"])
    for i, b in enumerate((1, 2)):
        for j, s in enumerate((1000, 4000)):
            assert grid[i, j] == pytest.approx(mlx_total_by_hand(b, s))
    generic = sweep_fit_map(LLAMA, INFER, [1], [1000])
    assert generic[0, 0] == pytest.approx(memory_breakdown(LLAMA, INFER).total)
    assert generic[0, 0] != pytest.approx(grid[0, 0])


def test_along_counts_the_wired_share_on_an_apple_gpu():
    # 75% of 96 GiB = 77,309,411,328 bytes. Solving mlx_total_by_hand for the sequence:
    # past 2,048 prompt tokens every 256 cells add 65,536 x 256 x 2 = 33,554,432 bytes.
    share = 0.75 * 96 * 2**30
    seqs = np.array([2048, 400_000, 500_000])
    parts, fits = engine_sweep.along(SHAPE, INFER, GPUS["m2-max"], A, "seq_len", seqs)
    totals = [mlx_total_by_hand(1, int(s)) for s in seqs]
    np.testing.assert_allclose(parts.total, totals)
    np.testing.assert_allclose(parts.kv_cache,
                               [KV_ELEMENTS_PER_TOKEN * 2 * -(-(s + 256) // 256) * 256
                                for s in seqs])
    assert totals[2] < GPUS["m2-max"].memory_bytes  # fits the memory, not the wired share
    assert list(fits) == [t <= share for t in totals] == [True, True, False]


def test_along_says_a_vllm_pool_without_room_for_one_sequence_does_not_fit():
    plan = Plan(task="infer", framework="vllm", seq_len=4096)
    gpu = GPUS["a100-sxm-80gb"]
    parts, fits = engine_sweep.along(SHAPE, plan, gpu, A, "seq_len", [4096, 2_000_000])
    # vLLM takes its whole reserve (0.9 of the card) whatever the sequence: the same bytes,
    # but 2,000,000 tokens (x 131,072 bytes = 262 GB of cache) cannot fit one sequence.
    assert parts.total[0] == pytest.approx(parts.total[1])
    assert parts.total[0] <= gpu.usable_bytes
    assert list(fits) == [True, False]
    with pytest.raises(ValueError, match="axis"):
        engine_sweep.along(SHAPE, plan, gpu, A, "n_gpus", [1])


