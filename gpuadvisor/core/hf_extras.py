"""What a config.json says beyond the text model: a vision tower and shipped quantization.

:func:`vision_params` counts a multimodal model's vision tower and projector (kept apart
from the text model's counts) for the towers transformers builds for Gemma 3 (SigLIP),
Llama 4 and Qwen2.5-VL, and estimates any other ViT-style ``vision_config`` with a warning.
:func:`shipped_quant` reads ``quantization_config`` into the ModelSpec fields ``quant``,
``quant_bytes`` and ``quant_groups``. Nothing here imports ModelSpec.
"""

from __future__ import annotations

from .hf_read import Reader


def _siglip(v: Reader, text_hidden: int) -> int:
    """SigLIP vision tower (transformers SiglipVisionModel) + Gemma 3's projector.

    h = hidden_size, f = intermediate_size, p = patch_size, C = channels, n = (image/p)^2:
    patch conv ``h C p^2 + h``, positions ``n h``, per layer two LayerNorms ``4h``, q/k/v/out
    with biases ``4 (h^2 + h)``, MLP ``2 h f + f + h``; the post LayerNorm ``2h``; the
    attention-pooling head when ``vision_use_head`` (probe ``h``, attention ``4 h^2 + 4h``,
    LayerNorm ``2h``, MLP ``2 h f + f + h``). Projector: ``h x text hidden`` + an RMSNorm
    ``h``.
    """
    h = v.int("hidden_size", 768, minimum=1)
    f = v.int("intermediate_size", 3072)
    layers = v.int("num_hidden_layers", 12)
    p = v.int("patch_size", 16, minimum=1)
    image = v.int("image_size", 224)
    channels = v.int("num_channels", 3)
    n = (image // p) ** 2
    total = h * channels * p * p + h + n * h + 2 * h
    total += layers * (4 * h + 4 * (h * h + h) + 2 * h * f + f + h)
    if v.bool("vision_use_head", True):
        total += h + 4 * h * h + 4 * h + 2 * h + 2 * h * f + f + h
    return total + h * text_hidden + h


def _llama4_vision(v: Reader, text_hidden: int) -> int:
    """Llama 4's vision encoder, pixel-shuffle adapter and projector (transformers).

    h, f, p, C, n = (image/p)^2 as for SigLIP: class embedding ``h``, positions
    ``(n + 1) h``, patch projection ``h C p^2``, pre/post LayerNorms ``4h``, per layer
    ``4 (h^2 + h) + 2 h f + f + h + 4h``; the adapter MLP ``f d_in + d_out^2`` (no biases;
    d_in/d_out = projector_input_dim/output_dim); the projector ``d_vis x text hidden``.
    """
    h = v.int("hidden_size", 768, minimum=1)
    f = v.int("intermediate_size", 5632)
    layers = v.int("num_hidden_layers", 34)
    p = v.int("patch_size", 14, minimum=1)
    image = v.int("image_size", 448)
    channels = v.int("num_channels", 3)
    d_in = v.int("projector_input_dim", 4096)
    d_out = v.int("projector_output_dim", 4096)
    d_vis = v.int("vision_output_dim", 7680)
    n = (image // p) ** 2
    total = h + (n + 1) * h + h * channels * p * p + 4 * h
    total += layers * (4 * (h * h + h) + 2 * h * f + f + h + 4 * h)
    total += f * d_in + d_out * d_out
    return total + d_vis * text_hidden


def _qwen25_vision(v: Reader) -> int:
    """Qwen2.5-VL's vision tower and patch merger (transformers).

    h = hidden_size, f = intermediate_size, m = spatial_merge_size, t = temporal_patch_size:
    patch conv ``h C t p^2`` (no bias), per block two RMSNorms ``2h``, fused qkv
    ``3 h^2 + 3h``, output ``h^2 + h``, gated MLP with biases ``3 h f + 2 f + h``; merger
    RMSNorm ``h`` and MLP ``(h m^2)^2 + h m^2 + o h m^2 + o`` (o = out_hidden_size).
    """
    h = v.int("hidden_size", 1280, minimum=1)
    f = v.int("intermediate_size", 3420)
    layers = v.first_int(("depth", "num_hidden_layers"), 32)
    p = v.int("patch_size", 14, minimum=1)
    t = v.int("temporal_patch_size", 2)
    channels = v.first_int(("in_channels", "in_chans"), 3)
    m = v.int("spatial_merge_size", 2)
    out = v.int("out_hidden_size", 3584)
    merged = h * m * m
    total = h * channels * t * p * p
    total += layers * (2 * h + 3 * h * h + 3 * h + h * h + h + 3 * h * f + 2 * f + h)
    return total + h + merged * merged + merged + out * merged + out


def _generic_vision(v: Reader, text_hidden: int) -> int:
    """A ViT-style tower from its widths (an estimate: embeddings and adapters vary).

    Per layer ``4 h^2 + 2 h f`` plus biases and two LayerNorms, a patch projection and a
    linear projector to the text width.
    """
    h = v.int("hidden_size", minimum=1)
    f = v.int("intermediate_size", 4 * h)
    layers = v.first_int(("num_hidden_layers", "depth"))
    p = v.int("patch_size", 14, minimum=1)
    per_layer = 4 * (h * h + h) + 2 * h * f + f + h + 4 * h
    return layers * per_layer + 3 * p * p * h + h * text_hidden


def vision_params(model_type: str, top: Reader, text_hidden: int,
                  warnings: list[str]) -> int:
    """Parameters of the vision tower and projector of a multimodal config (0 without one).

    Args:
        model_type: the file's model_type (``gemma3``, ``llama4``, ``qwen2_5_vl``, ...).
        top: the whole file.
        text_hidden: the text model's hidden size (the projector's output).
        warnings: where an estimate (an unknown tower) is reported.
    """
    v = top.table("vision_config")
    if v is None:
        return 0
    if model_type == "gemma3":
        return _siglip(v, text_hidden)
    if model_type == "llama4":
        return _llama4_vision(v, text_hidden)
    if model_type == "qwen2_5_vl":
        return _qwen25_vision(v)
    if not v.has("hidden_size"):
        warnings.append("vision_config not recognised: its parameters are not counted")
        return 0
    warnings.append(f"vision tower of model_type {model_type!r} estimated from its widths "
                    "(ViT layout); the text model's counts are exact")
    return _generic_vision(v, text_hidden)


# ------------------------------------------------------------------------ quantization
#: Bytes per weight of MXFP4: 4-bit values and one 8-bit (E8M0) scale per 32 = 4.25 bits.
MXFP4_BYTES = 0.5 + 1 / 32


def _nvfp4_bytes(q: Reader, key: str = "group_size") -> float:
    """NVFP4: 4-bit E2M1 values + one FP8 E4M3 scale per group (16; the per-tensor fp32
    scale is negligible)."""
    group = q.int(key, 16, minimum=1)
    return 0.5 + 1.0 / group


def _fp8_bytes(q: Reader) -> float:
    """FP8 e4m3 weights and one fp32 scale per block (128 x 128 in DeepSeek/Qwen3-FP8)."""
    block = q.list("weight_block_size", item="int")
    if block:
        if len(block) != 2 or min(block) <= 0:
            raise ValueError(f"{q.where}: field '{q.name('weight_block_size')}' must be two "
                             "positive sizes")
        return 1.0 + 4.0 / (block[0] * block[1])
    return 1.0  # one scale per tensor or per row: negligible


def _groups_left(not_converted: list[str]) -> str:
    """The linear groups a quantization covers, after ``modules_to_not_convert``."""
    skipped = set()
    for module in not_converted:
        if "self_attn" in module or module.endswith(("attn", "attention")):
            skipped.add("attn")
        if "shared_expert" in module:
            skipped.add("shared")
        elif "experts" in module:
            skipped.add("experts")
        elif module.endswith(("mlp", "feed_forward")):
            skipped |= {"mlp", "shared", "experts"}
    if not skipped:
        return ""
    if skipped >= {"attn", "mlp", "shared", "experts"}:
        return "none"
    return ",".join(g for g in ("attn", "mlp", "shared", "experts") if g not in skipped)


def shipped_quant(top: Reader, warnings: list[str]) -> dict[str, object]:
    """ModelSpec ``quant``, ``quant_bytes`` and ``quant_groups`` from ``quantization_config``.

    * ``mxfp4`` (gpt-oss): 4-bit values + an 8-bit scale per 32 weights (4.25 bits).
    * ``fp8`` (DeepSeek-V3, Qwen3-FP8): e4m3 weights + an fp32 scale per
      ``weight_block_size`` block.
    * ``gptq`` / ``awq``: ``bits`` per weight + an fp16 scale and a ``bits``-wide zero point
      per ``group_size`` weights (``group_size`` -1: one per row, negligible).
    * ``bitsandbytes``: NF4/FP4 4-bit (double quantization when set) or LLM.int8.
    * ``modelopt`` (NVIDIA TensorRT Model Optimizer checkpoints): ``quant_algo`` ``NVFP4``
      (4-bit values + an FP8 scale per ``group_size`` 16 weights) or ``FP8`` (one scale per
      tensor); ``exclude_modules`` stay 16-bit.
    * ``compressed-tensors`` with ``format`` ``nvfp4-pack-quantized`` (llm-compressor's
      NVFP4); ``ignore`` stays 16-bit.

    Linear layers named in ``modules_to_not_convert`` stay 16-bit; embeddings, the LM
    head, norms and routers always do. An unknown method is reported and ignored.
    """
    q = top.table("quantization_config")
    if q is None:
        return {}
    method = q.str("quant_method", "").lower()
    skip = q.list("modules_to_not_convert", item="str") or []
    if method == "mxfp4":
        out = {"quant": "mxfp4", "quant_bytes": MXFP4_BYTES}
    elif method == "fp8":
        out = {"quant": "fp8", "quant_bytes": _fp8_bytes(q)}
    elif method in ("gptq", "awq"):
        bits = q.int("bits", 4, minimum=1)
        name = {8: "int8", 4: "int4", 3: "int3"}.get(bits)
        if name is None:
            warnings.append(f"quantization_config: {bits}-bit {method} is not modelled; "
                            "weights counted at 16-bit")
            return {}
        group = q.int("group_size", 128, minimum=-1)
        per_group = (2.0 + bits / 8.0) / group if group > 0 else 0.0
        out = {"quant": name, "quant_bytes": bits / 8.0 + per_group}
    elif method == "modelopt":
        algo = q.str("quant_algo", "").upper()
        skip = q.list("exclude_modules", item="str") or skip
        if algo == "NVFP4":
            out = {"quant": "nvfp4", "quant_bytes": _nvfp4_bytes(q)}
        elif algo == "FP8":
            out = {"quant": "fp8", "quant_bytes": 1.0}
        else:
            warnings.append(f"quantization_config: modelopt quant_algo {algo or '(none)'!r} "
                            "is not modelled; weights counted at 16-bit")
            return {}
    elif method == "compressed-tensors" and q.str("format", "") == "nvfp4-pack-quantized":
        skip = q.list("ignore", item="str") or skip
        out = {"quant": "nvfp4", "quant_bytes": 0.5 + 1 / 16}
    elif method == "bitsandbytes":
        skip = skip or q.list("llm_int8_skip_modules", item="str") or []
        if q.bool("load_in_4bit", False):
            double = q.bool("bnb_4bit_use_double_quant", False)
            out = {"quant": "nf4-dq" if double else "nf4"}
        elif q.bool("load_in_8bit", False):
            out = {"quant": "int8"}
        else:
            return {}
    else:
        warnings.append(f"quantization_config: quant_method {method!r} is not modelled; "
                        "weights counted at 16-bit")
        return {}
    groups = _groups_left(skip)
    if groups == "none":
        return {}  # every block linear left unquantized
    if groups:
        out["quant_groups"] = groups
    return out


__all__ = ["MXFP4_BYTES", "shipped_quant", "vision_params"]
