"""vLLM (``vllm serve``): a memory reserve carved into paged KV blocks, continuous batching.

Memory (vLLM's start-up sequence, as its log prints it - vllm-project/vllm issue #12330 and
kubernetes-sigs/gateway-api-inference-extension PR #550 quote it: "the current vLLM instance
can use total_gpu_memory x gpu_memory_utilization; model weights take ...; non_torch_memory
takes ...; PyTorch activation peak memory takes ...; the rest of the memory reserved for KV
Cache is ..."):

* budget per GPU = ``gpu_memory_utilization`` (default 0.9) x the GPU's memory.
* weights: the checkpoint's bytes (quantized as the plan says), split over
  ``--tensor-parallel-size`` GPUs.
* non-torch memory: the CUDA context, and NCCL's buffers with several GPUs (the
  estimator's ``cuda_context_bytes`` and ``nccl_bytes``).
* activation peak: the profiling forward pass of ``max_num_batched_tokens`` tokens (the
  scheduler's budget: 2,048 for ``vllm serve``, 8,192 on GPUs of 70 GiB or more other than
  A100 - ``EngineArgs.get_batch_defaults``, vllm/engine/arg_utils.py): the residual stream
  and the MLP's gate/up/activation tensors of that many tokens at 2 bytes, plus the
  sampler's fp32 logits for ``max_num_seqs`` sequences, held twice (logits and
  probabilities).
* CUDA graphs: decode graphs for batch sizes up to ``min(512, max_num_seqs)`` share one
  memory pool holding the largest batch's activations, plus a fixed 0.2 GiB of graph state
  (Llama-3.2-1B: "Graph capturing finished in 14 secs, took 0.21 GiB", vllm PR #11349).
* KV cache: everything left, in blocks of 16 tokens (``--block-size`` default 16):
  ``blocks = floor(left / (16 x bytes per token))``. vLLM refuses to start when one sequence
  of ``max_model_len`` tokens does not fit; fewer than ``max_num_seqs`` such sequences fit
  means requests wait (the estimate warns).

Decode: one step serves every running sequence (continuous batching): the weights are read
once per step and each sequence's KV once, so a step costs ``max(bytes / bandwidth, b x
FLOPs / achieved)`` - memory-bound at small batches, compute-bound past the crossover - plus
the per-step kernels of a CUDA-graph launch (per layer: fused add+RMS norm, one QKV
projection, rotary, cache write, attention, output projection, fused add+RMS norm, one
gate/up projection, SiLU-and-multiply, down projection: 10 kernels, 4 reading weights) and
the host's step work (scheduling, input preparation, sampling: 1 ms, assumed).
"""

from __future__ import annotations

import math

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines.base import DecodeCost, EngineResult, gpu_class
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.memory import kv_dtype_bytes, weight_bytes
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


def max_num_batched_tokens(gpu: GpuSpec) -> int:
    """vLLM's default token budget per step for ``vllm serve`` on ``gpu``."""
    large = gpu.memory_bytes >= 70 * GiB and "a100" not in gpu.id
    return BATCHED_TOKENS_LARGE if large else BATCHED_TOKENS_SMALL


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


def activation_peak(model: ModelShape, tokens: int, seqs: int) -> float:
    """The profiling pass's activation peak (see the module docstring), bytes."""
    blk = model.block
    f = blk.d_ff * max(blk.experts_per_token, 1) + blk.shared_d_ff if blk else 4 * model.d_model
    stream = tokens * (4 * model.d_model + 3 * f) * 2.0
    sampler = seqs * model.vocab_size * 4.0 * 2
    return stream + sampler


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
    tp = plan.n_gpus
    defaults: dict = {}
    util = plan.gpu_memory_utilization
    if util is None:
        util = DEFAULT_GPU_MEMORY_UTILIZATION
        defaults["gpu_memory_utilization"] = "vLLM's default 0.9"
    seqs = plan.micro_batch
    max_len = plan.seq_len + plan.new_tokens
    budget = util * gpu.memory_bytes
    weights = weight_bytes(model, plan, assumptions, 1) / tp
    non_torch = assumptions.cuda_context_bytes + (assumptions.nccl_bytes if tp > 1 else 0.0)
    batched = max_num_batched_tokens(gpu)
    defaults["max_num_batched_tokens"] = f"vllm serve's default on {gpu.name}"
    act = activation_peak(model, batched, seqs) / tp
    capture = min(MAX_CAPTURE, seqs)
    blk = model.block
    graphs = CUDA_GRAPH_FIXED_BYTES + capture * (4 * model.d_model + 3 * blk.d_ff) * 2.0 / tp
    per_token = model.kv_elements_per_token * kv_dtype_bytes(plan) / tp
    kv, blocks, capacity = kv_pool(budget, weights, act, non_torch, graphs, per_token)
    warnings: list[str] = []
    refuses = None
    if capacity < max_len:
        refuses = (f"vLLM would not start: its KV pool holds {capacity:,} tokens, one "
                   f"sequence of max_model_len {max_len:,} needs more (lower --max-model-len, "
                   "raise --gpu-memory-utilization, use fp8 KV)")
        warnings.append(refuses)
    elif capacity < seqs * max_len:
        warnings.append(f"vLLM's KV pool holds {capacity // max_len:,} full sequences of "
                        f"{max_len:,} tokens at once, fewer than max_num_seqs {seqs}: the rest "
                        "wait")
    gc = gpu_class(gpu)
    layers = model.n_layers
    kv_type = "fp8" if plan.kv_dtype == "fp8" else "auto"
    if plan.kv_dtype is None:
        defaults["kv_cache_dtype"] = "auto (the model's dtype)"
    settings = {"gpu_memory_utilization": util, "block_size": BLOCK_SIZE,
                "max_num_seqs": seqs, "max_model_len": max_len,
                "max_num_batched_tokens": batched, "tensor_parallel_size": tp,
                "kv_cache_dtype": kv_type, "kv_blocks": blocks, "cuda_graph_max_batch": capture}
    decode = DecodeCost(
        bandwidth_efficiency=gc.read_fraction,
        kernels_per_step=KERNELS_PER_LAYER * layers + 4,
        kernel_gap_s=gc.graph_gap_s,
        weight_kernels_per_step=WEIGHT_KERNELS_PER_LAYER * layers + 1,
        dram_latency_s=gc.dram_latency_s,
        host_s=HOST_S_PER_STEP,
        source=f"{gc.name}: {gc.source}; 10 kernels per layer (vLLM's fused decode graph); "
               "host 1 ms per step (assumed)",
    )
    terms = {"budget": budget, "activation_peak": act, "non_torch": non_torch,
             "cuda_graphs": graphs, "kv_pool": kv, "kv_bytes_per_token": per_token,
             "unused_reserve": gpu.memory_bytes - budget}
    flags = {"max_model_len": max_len, "gpu_memory_utilization": util,
             "max_num_seqs": seqs, "kv_cache_dtype": kv_type, "tensor_parallel_size": tp}
    return EngineResult(
        engine="vllm",
        weights=weights,
        activations=act,
        logits=0.0,
        kv_cache=kv,
        overhead=non_torch + graphs,
        context=non_torch,
        decode=decode,
        terms=terms,
        settings=settings,
        defaults=defaults,
        flags=flags,
        capacity_tokens=capacity,
        kv_bytes_per_token=per_token,
        refuses=refuses,
        split="tensor",
        warnings=warnings,
    )


__all__ = ["BLOCK_SIZE", "DEFAULT_GPU_MEMORY_UTILIZATION", "activation_peak", "evaluate",
           "kv_pool", "max_num_batched_tokens"]
