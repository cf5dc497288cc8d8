"""Hugging Face transformers (``model.generate``): the estimator's generic inference model.

Memory is :func:`gpuadvisor.core.memory.memory_breakdown` (16-bit or bitsandbytes/GPTQ
weights, a KV cache of the compute dtype, one block's working set, the CUDA context and the
caching allocator's reserve) and decode time is ``bytes / (bandwidth x
bandwidth_efficiency)`` with ``compute`` as the floor (:func:`gpuadvisor.core.compute.
inference_time` without an engine's :class:`~.base.DecodeCost`). This module names the
settings that model assumes, for the estimate's ``engine`` record, and holds its decode
time (:func:`generic_time`), which :func:`gpuadvisor.core.estimate.estimate` uses.
"""

from __future__ import annotations

import numpy as np

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.compute import TimeEstimate
from gpuadvisor.core.inference_time import inference_time
from gpuadvisor.core.kvcache import kv_bytes_per_token, kv_cache_bytes
from gpuadvisor.core.plan import Plan


def settings(plan: Plan, assumptions: Assumptions) -> tuple[dict, dict]:
    """``(settings, defaults)`` of a transformers plan: the KV dtype, the attention kernel
    and the bandwidth efficiency its time uses."""
    kv = plan.kv_dtype or ("fp32" if plan.precision == "fp32" else "fp16")
    used = {"kv_cache_dtype": kv, "attention": plan.attention,
            "bandwidth_efficiency": assumptions.bandwidth_efficiency,
            "cache": "DynamicCache (grows with the tokens)"}
    defaults = {}
    if plan.kv_dtype is None:
        defaults["kv_cache_dtype"] = "the compute dtype"
    return used, defaults


def kv_read_bytes_per_token(shape: ModelShape, plan: Plan, n_gpus):
    """KV-cache bytes one decode step reads per token of context and sequence on each GPU:
    the cache of one sequence at one token (:func:`~gpuadvisor.core.kvcache.kv_cache_bytes`
    at ``b = s = 1``, which holds ``1 + new_tokens`` tokens) over those tokens, split over
    ``n_gpus`` (a number or an array); a windowed model's all-global figure
    (:func:`~gpuadvisor.core.kvcache.kv_bytes_per_token`: the time model caps its windows);
    0 for a model without a KV cache."""
    n = np.asarray(n_gpus, dtype=float) if np.ndim(n_gpus) else float(n_gpus)
    if shape.kind != "decoder":
        return 0.0 * n
    if shape.windowed:
        return kv_bytes_per_token(shape, plan) / n
    return kv_cache_bytes(shape, plan, 1, 1) / (1 + plan.new_tokens) / n


def generic_time(shape: ModelShape, plan: Plan, *, peak_tflops, bandwidth_gb_s,
                 weights_bytes, n_gpus, assumptions: Assumptions) -> TimeEstimate:
    """The generic inference time: :func:`~gpuadvisor.core.inference_time.inference_time` with the
    resident weights ``weights_bytes`` and :func:`kv_read_bytes_per_token` at ``n_gpus``
    (numbers, or arrays that broadcast: GPUs as rows, counts as columns)."""
    return inference_time(shape, plan, peak_tflops=peak_tflops, bandwidth_gb_s=bandwidth_gb_s,
                          resident_bytes=weights_bytes,
                          kv_bytes_per_token=kv_read_bytes_per_token(shape, plan, n_gpus),
                          assumptions=assumptions)


__all__ = ["generic_time", "kv_read_bytes_per_token", "settings"]
