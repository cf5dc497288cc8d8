"""Hugging Face transformers (``model.generate``): the estimator's generic inference model.

Memory is :func:`gpuadvisor.core.memory.memory_breakdown` (16-bit or bitsandbytes/GPTQ
weights, a KV cache of the compute dtype, one block's working set, the CUDA context and the
caching allocator's reserve) and decode time is ``bytes / (bandwidth x
bandwidth_efficiency)`` with ``compute`` as the floor (:func:`gpuadvisor.core.compute.
inference_time` without an engine's :class:`~.base.DecodeCost`). This module only names the
settings that model assumes, for the estimate's ``engine`` record.
"""

from __future__ import annotations

from gpuadvisor.core.assumptions import Assumptions
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


__all__ = ["settings"]
