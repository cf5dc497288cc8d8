"""vLLM's reserve and KV pool by hand; continuous batching; ExLlamaV2 and MLX weights."""

from __future__ import annotations

import math

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.engines import exllamav2, mlx, vllm
from gpuadvisor.core.engines.combine import requests_at_once
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.units import GiB

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()


def test_kv_pool_reproduces_a_published_vllm_start_up():
    # vLLM's log in kubernetes-sigs/gateway-api-inference-extension PR #550 (H100 80GB):
    # "total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB; model weights
    # take 12.55GiB; non_torch_memory takes 0.16GiB; PyTorch activation peak memory takes
    # 2.38GiB; the rest of the memory reserved for KV Cache is 56.18GiB" and
    # "# cuda blocks: 7191". 12.55 GiB of weights is Llama-2-7B in 16 bits, whose cache is
    # 2 x 32 layers x 4096 x 2 bytes = 512 KiB per token: a block of 16 tokens is 8 MiB.
    per_token = 2 * 32 * 4096 * 2
    kv, blocks, tokens = vllm.kv_pool(79.19 * GiB * 0.90, 12.55 * GiB, 2.38 * GiB,
                                      0.16 * GiB, 0.0, per_token)
    assert kv / GiB == pytest.approx(56.18, abs=0.005)
    assert blocks == 7191 == math.floor(56.18 * GiB / (16 * per_token))
    assert tokens == 7191 * 16


@pytest.mark.parametrize("version", [None, "0.21.0", "0.20.2"])
def test_vllm_takes_its_whole_reserve_and_splits_it(version):
    gpu = GPUS["a100-sxm-80gb"]
    plan_ = dict(task="infer", framework="vllm", micro_batch=32, seq_len=4096,
                 engine_version=version)
    result = estimate(MODELS["llama-3.1-8b"], Plan(**plan_), gpu)
    e = result.engine
    # the budget is 0.9 of what CUDA reports (the driver's 81,920 MiB less its reserve);
    # the CUDA context lives beside it
    budget = 0.9 * (81_920 - DRIVER_RESERVE_MIB) * 2**20
    assert gpu.usable_bytes == pytest.approx((81_920 - DRIVER_RESERVE_MIB) * 2**20)
    graphs = e.terms["cuda_graphs"]
    assert graphs > 0.2 * 2**30
    if version == "0.20.2":
        # before 0.21 the graphs are captured after the pool, beside the budget
        assert result.memory.total == pytest.approx(budget + e.terms["cuda_context"] + graphs)
        assert e.kv_cache == pytest.approx(
            budget - e.weights - e.activations - e.terms["non_torch"])
    else:
        # from 0.21 (and the current release) they are profiled and taken out of the budget
        assert result.memory.total == pytest.approx(budget + e.terms["cuda_context"])
        assert e.kv_cache == pytest.approx(
            budget - e.weights - e.activations - e.terms["non_torch"] - graphs)
    assert e.capacity_tokens == e.settings["kv_blocks"] * 16
    assert e.terms["kv_bytes_per_token"] == 2 * 32 * 1024 * 2  # 8 KV heads of 128, fp16
    assert result.assumptions["engine_gpu_memory_utilization_source"].startswith("default")
    assert result.fits


@pytest.mark.parametrize(("tp", "heads_per_rank"), [(1, 4), (2, 2), (4, 1), (8, 1)])
def test_with_fewer_kv_heads_than_ranks_each_rank_keeps_one_head(tp, heads_per_rank):
    # Qwen3-235B-A22B: 94 layers, 4 KV heads of 128. vLLM gives each rank
    # max(1, 4 // tp) heads (ModelConfig.get_num_kv_heads), so TP 8 keeps one head per rank,
    # as a published 8x L40S start-up shows: "Available KV cache memory: 10.64 GiB" for
    # "GPU KV cache size: 238,208 tokens" is 47,960 bytes per token, 94 x 2 x 128 x 2 =
    # 48,128 in bf16 (the rest is the block rounding).
    plan = Plan(task="infer", framework="vllm", quant="fp8", n_gpus=tp, seq_len=8192)
    e = estimate(MODELS["qwen3-235b-a22b"], plan, GPUS["h200-sxm"]).engine
    assert e.terms["kv_bytes_per_token"] == 94 * 2 * 128 * heads_per_rank * 2


def test_latent_attention_keeps_its_whole_latent_on_every_rank():
    # DeepSeek-V3: 61 layers of a 512-wide latent + a 64-wide rotary key, one copy per rank
    # whatever the TP degree (vLLM's get_num_kv_heads is 1 for MLA).
    shape = model_shape(MODELS["deepseek-v3"])
    for tp in (1, 8):
        assert vllm.kv_elements_per_rank(shape, tp) == 61 * (512 + 64)


def test_vllm_refuses_when_one_sequence_does_not_fit():
    result = estimate(MODELS["llama-3.1-8b"],
                      Plan(task="infer", framework="vllm", seq_len=1_000_000),
                      GPUS["rtx-4090"])
    assert result.fits is False and result.verdict == "does not fit"
    assert "would not start" in result.engine.refuses


def test_the_verdict_is_whether_every_request_runs_at_once_not_the_reserves_share():
    # Llama 3.1 8B in 16 bits keeps 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB
    # per token. On a 3090 vLLM takes 0.9 of the card whatever the plan (over 90% of it
    # with the CUDA context beside): that share says nothing. What does: 8 requests of
    # 4,096 + 256 tokens fit its pool at once, 16 do not (the rest wait), one of 1M tokens
    # does not fit at all (vLLM refuses to start).
    gpu = GPUS["rtx-3090"]
    per_token = 2 * 32 * 8 * 128 * 2

    def run(users, seq=4096):
        return estimate(MODELS["llama-3.1-8b"],
                        Plan(task="infer", framework="vllm", micro_batch=users, seq_len=seq,
                             new_tokens=256), gpu)

    few, many = run(8), run(16)
    assert few.engine.kv_bytes_per_token == many.engine.kv_bytes_per_token == per_token
    # (the pools differ a little: the CUDA graphs are captured up to max_num_seqs)
    for result in (few, many):
        pool = result.engine.capacity_tokens
        assert pool == result.engine.kv_cache // (16 * per_token) * 16
    assert few.engine.capacity_tokens >= 8 * 4352 and pool < 16 * 4352
    assert few.memory.total > 0.9 * few.capacity_bytes  # the reserve: "tight" by share
    assert (few.verdict, few.fits, few.engine.tight) == ("fits", True, None)
    assert (many.verdict, many.fits) == ("tight", True)
    assert many.engine.tight.startswith(f"vLLM's KV pool holds {pool // 4352:,} full")
    assert run(1, seq=1_000_000).verdict == "does not fit"


def test_the_fit_map_of_a_vllm_plan_holds_what_its_requests_need_at_once():
    # Each cell: the reserve less its KV pool, plus b sequences of s + 256 tokens in whole
    # blocks of 16 at 128 KiB a token; its verdict is whether they run at once (fits),
    # some wait (tight), or one does not fit the pool (vLLM would not start).
    from gpuadvisor.core.estimate import sweep_fit_grid

    gpu = GPUS["rtx-3090"]
    model = MODELS["llama-3.1-8b"]
    plan = Plan(task="infer", framework="vllm", micro_batch=16, seq_len=4096, new_tokens=256)
    per_token = 2 * 32 * 8 * 128 * 2
    mbs, seqs = [1, 16, 64], [1000, 4096, 60_000]
    total, verdicts = sweep_fit_grid(model, plan, mbs, seqs, gpu=gpu)
    for i, b in enumerate(mbs):
        for j, s in enumerate(seqs):
            cell = estimate(model, plan.with_changes(micro_batch=b, seq_len=s), gpu)
            length = math.ceil((s + 256) / 16) * 16
            need = cell.memory.total - cell.engine.kv_cache + b * length * per_token
            assert total[i, j] == pytest.approx(need)
            pool = cell.engine.capacity_tokens
            want = ("does not fit" if s + 256 > pool else
                    "fits" if b * (s + 256) <= pool else "tight")
            assert verdicts[i, j] == want == cell.verdict, (b, s)
    assert set(verdicts.ravel()) == {"fits", "tight", "does not fit"}
    # A plan on an engine without a reserve (llama.cpp) has no verdicts of its own.
    assert sweep_fit_grid(model, plan.with_changes(framework="llama.cpp"), mbs, seqs,
                          gpu=gpu)[1] is None


def test_requests_the_pool_cannot_hold_at_once_run_in_waves():
    # 16 requests of 4,096 + 256 tokens on a 3090: the pool holds 10 whole ones at once, so
    # the job is a wave of 10 and a wave of 6, each a prompt pass and 256 decode steps (the
    # step's cost does not depend on the pool, so each wave is the plan of that many).
    gpu, model = GPUS["rtx-3090"], MODELS["llama-3.1-8b"]
    plan = Plan(task="infer", framework="vllm", micro_batch=16, seq_len=4096, new_tokens=256)
    result = estimate(model, plan, gpu)
    held = result.engine.capacity_tokens // 4352
    assert held == 10
    ten = estimate(model, plan.with_changes(micro_batch=10), gpu).time
    six = estimate(model, plan.with_changes(micro_batch=6), gpu).time
    assert result.time.seconds == pytest.approx(ten.seconds + six.seconds)
    assert result.time.prefill_seconds == pytest.approx(ten.prefill_seconds
                                                        + six.prefill_seconds)
    assert result.time.tokens_per_s == pytest.approx(16 * 256 / result.time.seconds)
    assert result.time.decode_tokens_per_s == pytest.approx(ten.decode_tokens_per_s)
    # all at once when they fit: 8 requests are one wave
    eight = estimate(model, plan.with_changes(micro_batch=8), gpu)
    assert eight.engine.capacity_tokens >= 8 * 4352
    assert requests_at_once(eight.engine, eight.plan) is None
    assert requests_at_once(result.engine, result.plan) == 10


def test_a_lower_utilization_shrinks_the_pool_by_the_difference():
    gpu = GPUS["h100-sxm"]
    hi = vllm.evaluate(model_shape(MODELS["llama-3.1-8b"]),
                       Plan(task="infer", framework="vllm", gpu_memory_utilization=0.9),
                       gpu, A)
    lo = vllm.evaluate(model_shape(MODELS["llama-3.1-8b"]),
                       Plan(task="infer", framework="vllm", gpu_memory_utilization=0.5),
                       gpu, A)
    # 0.4 of the 79.22 GiB CUDA reports on an H100 (vLLM's "total_gpu_memory (79.22GiB)")
    assert hi.kv_cache - lo.kv_cache == pytest.approx(0.4 * 79.22 * GiB, rel=1e-4)


def test_continuous_batching_shares_each_weight_read():
    gpu = GPUS["h100-sxm"]
    one = estimate(MODELS["llama-3.1-8b"], Plan(task="infer", framework="vllm",
                                                 micro_batch=1, seq_len=512), gpu)
    many = estimate(MODELS["llama-3.1-8b"], Plan(task="infer", framework="vllm",
                                                  micro_batch=64, seq_len=512), gpu)
    # 64 sequences per step read the weights once: far more tokens/s in all ...
    assert many.time.decode_tokens_per_s > 20 * one.time.decode_tokens_per_s
    # ... but each sequence is a little slower (its KV and its share of compute)
    assert many.time.decode_tokens_per_s / 64 < one.time.decode_tokens_per_s
    huge = estimate(MODELS["llama-3.1-8b"], Plan(task="infer", framework="vllm",
                                                  micro_batch=4096, seq_len=16,
                                                  new_tokens=16), gpu)
    assert huge.time.bound == "compute"  # past the crossover the matmuls dominate


def test_exllamav2_weights_by_hand():
    m = model_shape(MODELS["llama-3.1-8b"])
    r = exllamav2.evaluate(m, Plan(task="infer", framework="exllamav2", quant="exl2-4.65"),
                           GPUS["rtx-3090"], A)
    p = m.params
    norms = p.total - p.linear_in_blocks - p.embedding - p.lm_head
    head = 128256 * 4096
    assert r.weights == pytest.approx(p.linear_in_blocks * 4.65 / 8 + head * 6 / 8
                                      + norms * 2)
    assert r.host_bytes == 128256 * 4096 * 2  # embeddings in system RAM
    assert r.kv_cache == pytest.approx(2 * 32 * 1024 * 2 * (2048 + 256))


def test_mlx_int4_is_four_and_a_half_bits_with_the_embedding():
    m = model_shape(MODELS["llama-3.1-8b"])
    r = mlx.evaluate(m, Plan(task="infer", framework="mlx", quant="int4"), GPUS["m2-max"], A)
    p = m.params
    quantized = p.linear_in_blocks + p.embedding + p.lm_head
    assert r.weights == pytest.approx(quantized * 4.5 / 8 + (p.total - quantized) * 2)
    with pytest.raises(ValueError, match="Apple silicon"):
        mlx.evaluate(m, Plan(task="infer", framework="mlx"), GPUS["rtx-4090"], A)


def test_the_profiling_peak_is_the_forward_or_the_sampler_whichever_is_larger():
    # The sampler's top-p/top-k pass holds 38 bytes per logit (vllm sampler.py
    # _apply_top_k_top_p: logits 4, sort 4 + int64 indices 8, masks 1 + 1, probabilities 4,
    # cumulative sum 4, inverse indices 8, gathered logits 4), after the forward is freed.
    m = model_shape(MODELS["llama-3.1-8b"])
    sampler = 256 * 128_256 * 38
    stream_8k = 8192 * (4 * 4096 + 3 * 14_336) * 2
    assert stream_8k < sampler
    assert vllm.activation_peak(m, 8192, 256) == sampler
    # vLLM 0.6.5 on an H100 logged "PyTorch activation peak memory 1.26GiB" (PR #10511)
    assert sampler / GiB == pytest.approx(1.26, rel=0.1)
    stream_20k = 20_000 * (4 * 4096 + 3 * 14_336) * 2
    assert vllm.activation_peak(m, 20_000, 256) == stream_20k
    # 0.6.4 on an RTX 3090 at 20,000 tokens: peak_torch 17.06 - weights 14.9888 GiB
    assert stream_20k / GiB == pytest.approx(17.06 - 14.9888, rel=0.1)


def test_enforce_eager_launches_each_kernel_on_its_own():
    """Without CUDA graphs (``--enforce-eager``) a decode step's kernels are launched one
    by one: each costs the GPU class's stream launch gap (H100: the nvidia-hbm class's 2.53
    us, gpu-benches' small-kernel sweep) instead of the graph's 1.30 us; the 10 kernels a
    layer and the 4 of the head stay."""
    shape = model_shape(MODELS["llama-3.1-8b"])
    plan = Plan(task="infer", framework="vllm", seq_len=1024, new_tokens=256)
    graphed = vllm.evaluate(shape, plan, GPUS["h100-sxm"], A).decode
    eager = vllm.evaluate(shape, plan.with_changes(enforce_eager=True), GPUS["h100-sxm"],
                          A).decode
    assert graphed.kernels_per_step == eager.kernels_per_step == 10 * 32 + 4
    assert graphed.kernel_gap_s == pytest.approx(1.30e-6)
    assert eager.kernel_gap_s == pytest.approx(2.53e-6)
    assert eager.fixed_s - graphed.fixed_s == pytest.approx(324 * (2.53e-6 - 1.30e-6))
