"""Quantized weights: bytes per weight of each quantization, and which weights a plan
quantizes (the plan's choice, else the quantization the checkpoint ships in).

:data:`QUANT_BYTES` is the generic figure per :data:`~.plan.QUANT` name; a checkpoint that
ships quantized (config.json ``quantization_config``, read by :mod:`.hf_extras`) carries its
own bytes per weight and the groups of block linears it covers in its
:class:`~.architecture.ModelShape`.
"""

from __future__ import annotations

from .gguf_quant import default_bytes_per_weight, gguf_file_bytes
from .model import ModelLike, model_shape
from .plan import GGUF_QUANTS, Plan, exl2_bits, is_gguf_quant


#: Bytes per quantized base weight, scales included.
#:   int8   LLM.int8 / GPTQ 8-bit: 1 byte + one fp32 scale per row (negligible).
#:   nf4    QLoRA NF4: 4 bits + one fp32 absmax per 64 weights = 0.5 + 4/64 bytes.
#:   nf4-dq NF4 with double quantization: absmax in 8 bits per 64 weights plus one fp32
#:          constant per 256 blocks = 0.5 + 1/64 + 4/(64*256) bytes (Dettmers et al. 2023,
#:          QLoRA, Sec. 3: 0.127 bits of constants per parameter instead of 0.5).
#:   int4/int3 GPTQ/AWQ-style: 4 or 3 bits + an fp16 scale and an fp16 zero point per group
#:          of 128 weights (the usual group size) = bits/8 + 4/128 bytes.
#:   mxfp4  OCP microscaling FP4 (gpt-oss's experts): 4-bit E2M1 values + one 8-bit E8M0
#:          scale per block of 32 = 0.5 + 1/32 bytes (4.25 bits; gpt-oss model card).
#:   nvfp4  NVIDIA's FP4 (Blackwell): 4-bit E2M1 values + one FP8 E4M3 scale per block of
#:          16 + one fp32 scale per tensor = 0.5 + 1/16 bytes (4.5 bits; NVIDIA Transformer
#:          Engine and TensorRT Model Optimizer docs, "NVFP4").
#:   fp8    e4m3 values + one fp32 scale per 128 x 128 block (DeepSeek-V3, Qwen3-FP8)
#:          = 1 + 4/16384 bytes.
#:   GGUF file types (``q4_k_m`` ...): the bytes per weight of the file type's default ggml
#:          type (Q4_K: 144 bytes per 256 weights = 4.5 bits); the exact mixture of a file is
#:          :func:`quantized_weights` (:mod:`.gguf_quant`).
#:   exl2 / exl2-<bits>: ExLlamaV2 at that mean rate, scales included (convert.py ``-b``;
#:          default 4.125, turboderp/exllamav2 convert.py @09227a7).
#: A checkpoint that ships quantized may say better (its group size): ModelShape's
#: ``shipped_quant_bytes``.
class _QuantBytes(dict):
    """The table, answering ``exl2-<bits>`` names too (``bits / 8``) on ``[]`` look-ups."""

    def __missing__(self, key: str) -> float:
        bits = exl2_bits(key) if isinstance(key, str) else None
        if bits is None:
            raise KeyError(key)
        return bits / 8.0


QUANT_BYTES = _QuantBytes({
    "int8": 1.0,
    "nf4": 0.5 + 4 / 64,
    "nf4-dq": 0.5 + 1 / 64 + 4 / (64 * 256),
    "int4": 0.5 + 4 / 128,
    "int3": 0.375 + 4 / 128,
    "mxfp4": 0.5 + 1 / 32,
    "nvfp4": 0.5 + 1 / 16,
    "fp8": 1.0 + 4 / (128 * 128),
    **{name: default_bytes_per_weight(name) for name in GGUF_QUANTS},
    "exl2": 4.125 / 8.0,
})


def weight_quant(model: ModelLike, plan: Plan) -> str:
    """The base-weight quantization a plan runs: the plan's, else the checkpoint's.

    A plan that names a ``quant`` gets it (``none`` = 16-bit weights). Otherwise inference
    uses the quantization the checkpoint ships in (gpt-oss's MXFP4 experts, DeepSeek-V3's
    FP8), and QLoRA its default NF4; training tasks train 16-bit weights.
    """
    if plan.quant is None and plan.task == "infer":
        shipped = model_shape(model).shipped_quant
        if shipped:
            return shipped
    return plan.effective_quant


def quantized_weights(model: ModelLike, quant: str) -> tuple[int, float]:
    """``(weights quantized, bytes per quantized weight)`` for ``quant`` on ``model``.

    Every block linear (``linear_in_blocks``) at :data:`QUANT_BYTES`, except:

    * the quantization the checkpoint ships in: only the groups it covers (gpt-oss: the
      routed experts), at its own bytes per weight (its group or block size);
    * a GGUF file type: a GGUF file stores every tensor (embeddings, head and norms too) in
      its mixture, so *every* parameter counts, at the file's mean bytes per parameter
      (:func:`~.gguf_quant.gguf_file_bytes` / parameters): their product is the
      file's tensor bytes exactly;
    * EXL2: the block linears at the rate's ``bits / 8`` (the head at 6 bits and the
      embeddings in host RAM are the exllamav2 engine's business).
    """
    m = model_shape(model)
    if is_gguf_quant(quant) and m.blocks and m.params.total:
        return m.params.total, gguf_file_bytes(m, quant) / m.params.total
    if quant == m.shipped_quant and m.blocks:
        per_weight = m.shipped_quant_bytes or QUANT_BYTES[quant]
        return m.linear_in_groups(m.shipped_quant_groups), per_weight
    return m.params.linear_in_blocks, QUANT_BYTES[quant]


__all__ = ["QUANT_BYTES", "exl2_bits", "quantized_weights", "weight_quant"]
