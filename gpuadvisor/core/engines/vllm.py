"""vLLM (``vllm serve``): a memory reserve carved into paged KV blocks, continuous batching.

Memory (vLLM's start-up sequence, as its log prints it: "the current vLLM instance can use
total_gpu_memory (79.22GiB) x gpu_memory_utilization (0.90) = 71.29GiB; model weights take
...; non_torch_memory takes ...; PyTorch activation peak memory takes ...; the rest of the
memory reserved for KV Cache is ..." - vllm-project/vllm PR #12126, issue #10517):

* budget per GPU = ``gpu_memory_utilization`` (default 0.9) x the total CUDA reports
  (:attr:`GpuSpec.usable_bytes`: 23.58 GiB on an RTX 3090, 79.22 GiB on an H100, not the
  nominal 24 and 80). The CUDA context exists before vLLM's first snapshot and stays
  outside the budget, in the share ``gpu_memory_utilization`` leaves.
* weights: the checkpoint's bytes (quantized as the plan says), over
  ``--tensor-parallel-size`` x ``--pipeline-parallel-size`` GPUs (pipeline stages hold
  whole layers; the split is taken as even).
* non-torch memory: what grows outside PyTorch's allocator while vLLM loads and profiles
  (``Assumptions.vllm_non_torch_bytes``, 0.2 GiB from its logs; a log you give
  ``check-log`` replaces it).
* activation peak: the larger of the profiling forward pass of ``max_num_batched_tokens``
  tokens (the residual stream and the MLP's gate/up/activation tensors at 2 bytes) and the
  sampler run after it, once the forward's tensors are freed. vLLM profiles the sampler
  with top-p and top-k on (``SamplingParams(top_p=0.99, top_k=vocab - 1)``), so for
  ``max_num_seqs`` rows of the vocabulary it holds, in ``_apply_top_k_top_p``
  (model_executor/layers/sampler.py): the fp32 logits (4 bytes), their sort (4) and sort
  indices (int64, 8), the top-k mask (1), the sorted probabilities (4) and their cumulative
  sum (4), the top-p mask (1), the inverse indices (8) and the logits gathered back (4): 38
  bytes per element. On the logs: 0.91 GiB for Phi-4 at 2,048 tokens (logged 0.94), 1.16
  GiB for Llama 3 8B at 8,192 (1.26), the forward's 2.02 GiB for Qwen2.5 1.5B at 32,768
  (2.02). The pass's size depends on the release: V1 (0.8 on) always schedules in chunks,
  so it is the token budget (``--max-num-batched-tokens``; ``vllm serve``'s default 2,048,
  8,192 on GPUs of 70 GiB or more other than A100 - ``EngineArgs.get_batch_defaults``,
  vllm/engine/arg_utils.py). V0 (before 0.8) turns chunked prefill on only past 32,768
  tokens of context (512-token chunks); otherwise its budget is ``max(max_model_len,
  2048)``, so a long context is profiled whole (RTX 3090, Llama 3.1 8B, 20,000 tokens:
  2.07 GiB, vllm#10517; T4, Qwen2.5 1.5B, 32,768 tokens: 2.02 GiB).
  With tensor parallelism the forward's tensors are split over the ranks, the sampler's
  are not: the vocabulary-parallel head's logits are gathered (``LogitsProcessor``'s
  ``_gather_logits``) and the whole vocabulary is sampled, so a rank holds the larger of
  its share of the forward and the whole sampler. 8 x L40S, Qwen3-235B-A22B FP8, TP 8:
  1.4 GiB of peak activation logged, 256 rows x 151,936 entries x 38 bytes = 1.38 GiB.
* KV cache: ``budget - weights - non-torch - activation peak``, in blocks of 16 tokens
  (``--block-size`` default 16): ``blocks = floor(left / (16 x bytes per token))``. vLLM
  prints the pool as "GPU KV cache size: N tokens" and "Maximum concurrency for
  max_model_len tokens per request: N/max_model_len x". It refuses to start when one
  sequence of ``max_model_len`` tokens does not fit; fewer than ``max_num_seqs`` such
  sequences means requests wait (the estimate warns).
* CUDA graphs (none with ``--enforce-eager``): before 0.21 captured after the KV pool is
  allocated ("Graph capturing finished in 13 secs, took 0.27 GiB" follows the KV lines), from
  the share the budget leaves; from 0.21 profiled first and taken out of the KV budget
  (:data:`GRAPHS_IN_BUDGET_RELEASE`). Either way: decode graphs for batch sizes up to
  ``min(512, max_num_seqs)`` share one pool holding the largest batch's activations, plus
  0.2 GiB of graph state (Llama-3.2-1B: "took 0.21 GiB", vllm PR #11349; Qwen2.5-1.5B on a
  T4: 0.17 GiB).

Decode: one step serves every running sequence (continuous batching): the weights are read
once per step and each sequence's KV once, so a step costs ``max(bytes / bandwidth, b x
FLOPs / achieved)`` - memory-bound at small batches, compute-bound past the crossover - plus
the per-step kernels of a CUDA-graph launch (per layer: fused add+RMS norm, one QKV
projection, rotary, cache write, attention, output projection, fused add+RMS norm, one
gate/up projection, SiLU-and-multiply, down projection: 10 kernels, 4 reading weights; with
``--enforce-eager`` the same kernels launched one by one, each at the GPU class's stream
launch gap) and
the host's step work (scheduling, input preparation, sampling: 1 ms, assumed).
"""

from __future__ import annotations

import math

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines.base import DecodeCost, EngineResult, gpu_class, read_fraction, release
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.kvcache import kv_dtype_bytes
from gpuadvisor.core.memory import weight_bytes
from gpuadvisor.core.phrase import Phrase
from gpuadvisor.core.plan import Plan, exl2_bits
from gpuadvisor.core.units import GiB

DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
BLOCK_SIZE = 16
#: ``vllm serve``'s scheduler token budget (arg_utils.py ``get_batch_defaults``).
BATCHED_TOKENS_SMALL = 2048
BATCHED_TOKENS_LARGE = 8192
MAX_CAPTURE = 512
CUDA_GRAPH_FIXED_BYTES = 0.2 * GiB
HOST_S_PER_STEP = 1.0e-3
KERNELS_PER_LAYER = 10
WEIGHT_KERNELS_PER_LAYER = 4


#: The first release whose engine is V1 by default (vLLM 0.8.0 release notes: "V1 is now
#: the default engine").
V1_RELEASE = (0, 8)
#: V0's context length past which chunked prefill is on by default, and its chunk budget
#: (vllm/engine/arg_utils.py of 0.5-0.7: ``max_model_len > 32K`` enables it;
#: ``SchedulerConfig`` then defaults ``max_num_batched_tokens`` to 512).
V0_CHUNKED_FROM = 32_768
V0_CHUNKED_TOKENS = 512
#: The first release that takes its CUDA-graph memory out of the KV budget by default: it
#: profiles the graphs before sizing the pool ("CUDA graph memory profiling is enabled
#: (default since v0.21.0). The current --gpu-memory-utilization=0.8200 is equivalent to
#: --gpu-memory-utilization=0.8048 without CUDA graph memory profiling", a 0.27.1 log in
#: gpustack/runner PR #251; introduced by vllm-project/vllm PR #30515). Earlier releases
#: capture the graphs after the pool, beside the budget.
GRAPHS_IN_BUDGET_RELEASE = (0, 21)


def graphs_in_budget(plan: Plan) -> bool:
    """Whether the plan's vLLM release sizes its KV pool after its CUDA graphs (from
    :data:`GRAPHS_IN_BUDGET_RELEASE`; the current release when none is named)."""
    rel = release(plan.engine_version)
    return rel is None or rel >= GRAPHS_IN_BUDGET_RELEASE


def max_num_batched_tokens(gpu: GpuSpec) -> int:
    """vLLM's default token budget per step for ``vllm serve`` on ``gpu`` (V1)."""
    large = gpu.memory_bytes >= 70 * GiB and "a100" not in gpu.id
    return BATCHED_TOKENS_LARGE if large else BATCHED_TOKENS_SMALL


def chunked_prefill(plan: Plan, max_len: int) -> bool:
    """Whether the plan's vLLM release schedules prompts in chunks beside the running
    decodes (one step holds both, up to the token budget): V1 always (its scheduler
    fills a step with the running requests' tokens first, then waiting prompts' chunks);
    V0 only past :data:`V0_CHUNKED_FROM` tokens of context, else a prompt runs in a step of
    its own while the decodes wait."""
    rel = release(plan.engine_version)
    return rel is None or rel >= V1_RELEASE or max_len > V0_CHUNKED_FROM


def profile_tokens(plan: Plan, gpu: GpuSpec, max_len: int) -> tuple[int, str]:
    """``(tokens, why)``: the size of vLLM's profiling pass (see the module docstring)."""
    if plan.max_num_batched_tokens is not None:
        return plan.max_num_batched_tokens, "plan"
    rel = release(plan.engine_version)
    if rel is not None and rel < V1_RELEASE:
        if max_len > V0_CHUNKED_FROM:
            return V0_CHUNKED_TOKENS, Phrase(
                "vLLM {release} (V0): chunked prefill past {past} tokens, in {chunk}-token "
                "chunks", release=plan.engine_version, past=f"{V0_CHUNKED_FROM:,}",
                chunk=V0_CHUNKED_TOKENS)
        return max(max_len, BATCHED_TOKENS_SMALL), Phrase(
            "vLLM {release} (V0) without chunked prefill: max(max_model_len, {small})",
            release=plan.engine_version, small=f"{BATCHED_TOKENS_SMALL:,}")
    return max_num_batched_tokens(gpu), Phrase("vllm serve's default on {gpu}", gpu=gpu.name)


def kv_pool(budget_bytes: float, weights: float, activation: float, non_torch: float,
            graphs: float, bytes_per_token: float, block_size: int = BLOCK_SIZE):
    """``(KV bytes, blocks, tokens)`` vLLM reserves: what the budget leaves after weights,
    activation peak, non-torch memory and CUDA graphs, in whole blocks of ``block_size``
    tokens (``blocks = floor(left / (block_size x bytes_per_token))``)."""
    left = budget_bytes - weights - activation - non_torch - graphs
    if left <= 0 or bytes_per_token <= 0:
        return max(left, 0.0), 0, 0
    blocks = math.floor(left / (block_size * bytes_per_token))
    return left, blocks, blocks * block_size


def blocks_per_sequence(length: int, block_size: int = BLOCK_SIZE) -> int:
    """KV blocks one request of ``length`` tokens takes: whole blocks (vLLM's KV cache
    manager gives a request ``ceil(tokens / block_size)`` blocks)."""
    return -(-int(length) // block_size)


def sequences_held(blocks: int, length: int, block_size: int = BLOCK_SIZE) -> int:
    """Whole requests of ``length`` tokens a pool of ``blocks`` runs at once."""
    return int(blocks) // max(blocks_per_sequence(length, block_size), 1)


#: Bytes per vocabulary entry and sequence the sampler's top-p/top-k pass holds.
SAMPLER_BYTES_PER_LOGIT = 4 + 4 + 8 + 1 + 4 + 4 + 1 + 8 + 4


def kv_elements_per_rank(model: ModelShape, tp: int) -> float:
    """Cache elements per token one tensor-parallel rank keeps over all layers. Grouped-query
    attention splits its KV heads over the ranks, but every rank keeps at least one: with
    fewer heads than ranks, heads are copied (``max(1, total_num_kv_heads // tp)``, vLLM
    ``ModelConfig.get_num_kv_heads``): Qwen3-235B's 4 KV heads at TP 8 keep one head per
    rank, twice the even split. Latent attention keeps its whole latent on every rank (the
    same method returns 1 for MLA)."""
    tp = max(int(tp), 1)
    blocks = model.blocks or ((model.block, model.n_layers),)
    total = 0.0
    for blk, count in blocks:
        if blk is None or blk.kv_elements_per_token <= 0:
            continue
        if blk.kv_elements_per_token == 2 * blk.kv_dim and blk.n_heads > 0:
            head_dim = blk.q_dim // blk.n_heads
            heads = blk.kv_dim // head_dim if head_dim else 0
            if heads > 0 and heads * head_dim == blk.kv_dim:
                total += count * 2 * head_dim * max(1, heads // tp)
                continue
            total += count * blk.kv_elements_per_token / tp
        else:  # latent attention: the compressed latent and the rotary key, whole
            total += count * blk.kv_elements_per_token
    return total


def activation_peak(model: ModelShape, tokens: int, seqs: int, tp: int = 1) -> float:
    """The profiling pass's activation peak on one of ``tp`` ranks (see the module
    docstring), bytes: the larger of the rank's share of the forward's stream and the
    sampler's working set (whole on every rank)."""
    blk = model.block
    f = blk.d_ff * max(blk.experts_per_token, 1) + blk.shared_d_ff if blk else 4 * model.d_model
    stream = tokens * (4 * model.d_model + 3 * f) * 2.0
    sampler = seqs * model.vocab_size * float(SAMPLER_BYTES_PER_LOGIT)
    return max(stream / max(int(tp), 1), sampler)


def evaluate(model: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions
             ) -> EngineResult:
    """vLLM serving ``plan`` on ``gpu`` (x ``plan.n_gpus`` tensor-parallel): the reserve,
    its parts and the KV pool; ``plan.micro_batch`` is ``max_num_seqs``."""
    if model.kind != "decoder" or model.block is None:
        raise ValueError(f"vLLM serves decoder language models; {model.id} is not one")
    if plan.kv_dtype not in (None, "fp16", "bf16", "fp8"):
        raise ValueError(f"kv_dtype {plan.kv_dtype}: vLLM caches in the model's dtype or fp8")
    if exl2_bits(str(plan.quant)) is not None:
        raise ValueError(f"quant {plan.quant}: vLLM does not load EXL2 (use exllamav2, or "
                         "int4 for GPTQ/AWQ)")
    pp = plan.pp or 1
    if plan.n_gpus % pp:
        raise ValueError(f"pp {pp} does not divide the plan's {plan.n_gpus} GPUs")
    tp = plan.n_gpus // pp
    defaults: dict = {}
    util = plan.gpu_memory_utilization
    if util is None:
        util = DEFAULT_GPU_MEMORY_UTILIZATION
        defaults["gpu_memory_utilization"] = "vLLM's default 0.9"
    seqs = plan.micro_batch
    max_len = plan.seq_len + plan.new_tokens
    total = float(gpu.usable_bytes)
    budget = util * total
    weights = weight_bytes(model, plan, assumptions, 1) / (tp * pp)
    non_torch = assumptions.vllm_non_torch_bytes
    context = assumptions.cuda_context_bytes
    batched, why = profile_tokens(plan, gpu, max_len)
    if why != "plan":
        defaults["max_num_batched_tokens"] = why
    act = activation_peak(model, batched, seqs, tp)
    capture = 0 if plan.enforce_eager else min(MAX_CAPTURE, seqs)
    blk = model.block
    graphs = 0.0 if plan.enforce_eager else (
        CUDA_GRAPH_FIXED_BYTES + capture * (4 * model.d_model + 3 * blk.d_ff) * 2.0 / tp)
    per_token = kv_elements_per_rank(model, tp) * kv_dtype_bytes(plan) / pp
    in_budget = graphs_in_budget(plan)
    kv, blocks, capacity = kv_pool(budget, weights, act, non_torch,
                                   graphs if in_budget else 0.0, per_token)
    warnings: list[str] = []
    refuses = tight = None
    if capacity < max_len:
        refuses = (f"vLLM would not start: its KV pool holds {capacity:,} tokens, one "
                   f"sequence of max_model_len {max_len:,} needs more (lower --max-model-len, "
                   "raise --gpu-memory-utilization, use fp8 KV)")
        warnings.append(refuses)
    elif budget + context + (0.0 if in_budget else graphs) > total:
        tight = (f"vLLM: gpu_memory_utilization {util:g} leaves "
                 f"{(total - budget) / GiB:.2f} GiB beside its budget, less than the CUDA "
                 f"context and graphs need ({(context + graphs) / GiB:.2f} GiB): it may "
                 "run out of memory capturing graphs (lower it, or --enforce-eager)")
        warnings.append(tight)
    if refuses is None and blocks < seqs * blocks_per_sequence(max_len):
        tight = (f"vLLM's KV pool holds {sequences_held(blocks, max_len):,} full sequences of "
                 f"{max_len:,} tokens at once, fewer than max_num_seqs {seqs}: the rest wait")
        warnings.append(tight)
    gc = gpu_class(gpu)
    layers = model.n_layers
    kv_type = "fp8" if plan.kv_dtype == "fp8" else "auto"
    if plan.kv_dtype is None:
        defaults["kv_cache_dtype"] = "auto (the model's dtype)"
    settings = {"gpu_memory_utilization": util, "block_size": BLOCK_SIZE,
                "max_num_seqs": seqs, "max_model_len": max_len,
                "max_num_batched_tokens": batched,
                "chunked_prefill": chunked_prefill(plan, max_len), "tensor_parallel_size": tp,
                "pipeline_parallel_size": pp, "enforce_eager": plan.enforce_eager,
                "kv_cache_dtype": kv_type, "kv_blocks": blocks, "cuda_graph_max_batch": capture,
                "kv_cache_tokens": capacity,
                "max_concurrency": round(capacity / max_len, 2) if max_len else 0.0,
                "total_gpu_memory": total, "total_gpu_memory_source": gpu.usable_source,
                "engine_version": plan.engine_version or "current (V1)"}
    read_share, read_source = read_fraction(gpu)
    decode = DecodeCost(
        bandwidth_efficiency=read_share,
        kernels_per_step=KERNELS_PER_LAYER * layers + 4,
        # --enforce-eager captures no graph: each kernel is launched on its own
        kernel_gap_s=gc.stream_gap_s if plan.enforce_eager else gc.graph_gap_s,
        weight_kernels_per_step=WEIGHT_KERNELS_PER_LAYER * layers + 1,
        dram_latency_s=gc.dram_latency_s,
        host_s=HOST_S_PER_STEP,
        ubatch_tokens=batched,  # a prompt is scheduled in chunks of the token budget
        source=f"{read_source}; 10 kernels per layer (vLLM's fused decode graph"
               f"{', launched one by one: --enforce-eager' if plan.enforce_eager else ''}); "
               "host 1 ms per step (assumed)",
    )
    terms = {"budget": budget, "activation_peak": act, "non_torch": non_torch,
             "cuda_graphs": graphs, "cuda_context": context, "kv_pool": kv,
             "kv_bytes_per_token": per_token, "total_gpu_memory": total,
             "unused_reserve": max(total - budget - context - (0.0 if in_budget else graphs),
                                   0.0)}
    flags = {"max_model_len": max_len, "gpu_memory_utilization": util,
             "max_num_seqs": seqs, "kv_cache_dtype": kv_type, "tensor_parallel_size": tp,
             "pipeline_parallel_size": pp, "max_num_batched_tokens": plan.max_num_batched_tokens,
             "enforce_eager": plan.enforce_eager}
    return EngineResult(
        engine="vllm",
        weights=weights,
        activations=act,
        logits=0.0,
        kv_cache=kv,
        overhead=non_torch + graphs + context,
        context=context,
        decode=decode,
        terms=terms,
        settings=settings,
        defaults=defaults,
        flags=flags,
        capacity_tokens=capacity,
        kv_bytes_per_token=per_token,
        refuses=refuses,
        budget=True,
        tight=tight,
        split="tensor",
        warnings=warnings,
    )


__all__ = ["BLOCK_SIZE", "DEFAULT_GPU_MEMORY_UTILIZATION", "V1_RELEASE", "activation_peak",
           "blocks_per_sequence", "chunked_prefill", "evaluate", "kv_elements_per_rank",
           "kv_pool", "max_num_batched_tokens", "profile_tokens", "release", "sequences_held"]
