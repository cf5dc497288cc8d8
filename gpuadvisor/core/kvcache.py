"""The KV cache an inference plan keeps: its elements' bytes by type and its size.

Engines with their own allocation rules (:mod:`.engines`) size their caches from these;
:mod:`.memory` adds the cache to the memory of a plan served by Hugging Face transformers.
"""

from __future__ import annotations

from .model import ModelLike, model_shape
from .plan import Plan

#: Bytes per element of each dtype. ``q8_0`` and ``q4_0`` are llama.cpp's quantized KV
#: cache (``-ctk/-ctv``; ExLlamaV2's Q8/Q4 cache is sized alike), ggml's blocks of 32
#: elements with one fp16 scale (ggml/src/ggml-common.h ``block_q8_0``: 2 + 32 bytes,
#: ``block_q4_0``: 2 + 16 bytes): a plan may name them only with those engines, which size
#: the cache themselves; the generic model sizes them alike where it meets such a plan (a
#: sweep without a GPU).
DTYPE_BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0,
               "q8_0": 34 / 32, "q4_0": 18 / 32}


def kv_dtype_bytes(plan: Plan) -> float:
    """Bytes per cached key/value element: ``kv_dtype`` or the compute dtype (2; 4 in fp32)."""
    dtype = plan.kv_dtype or ("fp32" if plan.precision == "fp32" else "fp16")
    return DTYPE_BYTES[dtype]


def kv_cache_bytes(model: ModelLike, plan: Plan, b=None, s=None):
    """KV cache for inference: ``2 (K and V) x L x kv_heads x head_dim x tokens x b`` x dtype.

    The first three factors are the shape's
    :attr:`~.architecture.ModelShape.kv_elements_per_token` (multi-head latent attention
    caches ``kv_lora_rank + qk_rope_head_dim`` per layer instead of ``2 k``).

    Tokens = prompt (``seq_len``) + generated (``new_tokens``); a layer with a sliding or
    chunked window keeps at most its window (:meth:`~.architecture.ModelShape.kv_elements_at`).
    The dtype is ``kv_dtype`` or the compute dtype (2 bytes; 4 in fp32).
    """
    b = plan.micro_batch if b is None else b
    s = plan.seq_len if s is None else s
    m = model_shape(model)
    if plan.task != "infer" or m.kind != "decoder":
        return 0.0 * b * s
    dtype = plan.kv_dtype or ("fp32" if plan.precision == "fp32" else "fp16")
    tokens = s + plan.new_tokens
    if m.windowed:
        return m.kv_elements_at(tokens) * b * DTYPE_BYTES[dtype]
    return float(m.kv_elements_per_token) * tokens * b * DTYPE_BYTES[dtype]


def kv_bytes_per_token(model: ModelLike, plan: Plan) -> float:
    """Cache bytes per token and sequence as if every layer attended globally (0 unless a
    decoder is served); :func:`~.inference_time.inference_time` caps windowed layers itself."""
    m = model_shape(model)
    if plan.task != "infer" or m.kind != "decoder":
        return 0.0
    return float(m.kv_elements_per_token) * kv_dtype_bytes(plan)


__all__ = ["DTYPE_BYTES", "kv_bytes_per_token", "kv_cache_bytes", "kv_dtype_bytes"]
