"""Hugging Face ``config.json`` -> the keyword arguments of a ModelSpec.

:func:`gpuadvisor.core.model.spec_from_hf_config` builds the spec from what
:func:`hf_spec_kwargs` reads here; a ModelSpec validation error is re-worded in the file's own
key names by :func:`hf_spec_error`. The families (which keys carry which numbers, and the
style each ``model_type`` implies) live in :mod:`.hf_families`; a vision tower and shipped
quantization in :mod:`.hf_extras`. A multimodal file (``text_config`` + ``vision_config``)
is read as its text model, with the vision tower counted apart. An unknown ``model_type``
whose fields are the standard ones is read as a Llama-style decoder, with a warning.
Nothing here imports ModelSpec, so the model module can offer this import without a cycle.

:func:`hf_config_from_bytes` parses a file's bytes with a size limit, for callers that read
config.json themselves (core does no I/O).
"""

from __future__ import annotations

import json
import re

from .hf_extras import shipped_quant, vision_params
from .hf_families import EXTRA_NAMES, FAMILIES, GENERIC, HfFamily, text_kwargs
from .hf_read import Reader, checked_value
from .limits import MAX_CONFIG_JSON_BYTES

SUPPORTED_HF_MODEL_TYPES = tuple(sorted(FAMILIES))
#: The fields an unknown model_type needs to be read as a standard (Llama-style) decoder.
STANDARD_FIELDS = ("hidden_size", "num_hidden_layers", "num_attention_heads",
                   "intermediate_size", "vocab_size")
#: Largest config.json accepted (real ones are a few kB; the largest, with per-layer
#: lists, stay under 100 kB).
MAX_CONFIG_BYTES = MAX_CONFIG_JSON_BYTES


def hf_config_from_bytes(data: bytes, name: str = "config.json") -> dict:
    """Parse a config.json's bytes into a dict, refusing what cannot be one.

    Raises:
        ValueError: one line naming ``name``: too large (over :data:`MAX_CONFIG_BYTES`), not
            UTF-8, not JSON (with the line), nested too deep, or not a JSON object.
    """
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"{name}: {len(data) / 1e6:.1f} MB is too large for a config.json "
                         f"(at most {MAX_CONFIG_BYTES // (1024 * 1024)} MiB)")
    try:
        config = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except ValueError:  # an integer literal of thousands of digits
        raise ValueError(f"{name}: holds a number too large to read") from None
    except RecursionError:
        raise ValueError(f"{name}: nested too deeply to be a config.json") from None
    if not isinstance(config, dict):
        raise ValueError(f"{name}: must hold a JSON object, got {type(config).__name__}")
    return config


def _where(model_type: str) -> str:
    return f"config.json (model_type '{model_type}')"


def _unknown_family(config: dict, model_type: str) -> HfFamily:
    """The generic family for an unknown model_type, or an error naming what it lacks."""
    table = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    lacking = [key for key in STANDARD_FIELDS if table.get(key) is None]
    supported = ", ".join(SUPPORTED_HF_MODEL_TYPES)
    if lacking:
        raise ValueError(
            f"config.json: unsupported model_type {model_type!r} (supported: {supported}); "
            f"to read it as a standard decoder it needs {', '.join(lacking)}")
    return GENERIC


def hf_spec_kwargs(config: dict) -> tuple[str, dict[str, object]]:
    """The ``model_type`` of a parsed config.json and its ModelSpec keyword arguments.

    The arguments are everything but ``id`` and ``name``: architecture numbers, style fields,
    vision parameters, shipped quantization, ``family``, ``source`` and ``extra`` (with
    ``warnings``: things the user should know, e.g. an unknown model_type read anyway).

    Raises:
        ValueError: not a JSON object, a missing ``model_type``, an unknown one without the
            standard fields (naming the ones it lacks), or a missing, wrongly typed or
            out-of-range field (named as in the file).
    """
    if not isinstance(config, dict):
        raise ValueError(f"config.json: must be a JSON object, got {type(config).__name__}")
    model_type = config.get("model_type")
    supported = ", ".join(SUPPORTED_HF_MODEL_TYPES)
    if model_type is None:
        raise ValueError(f"config.json: missing field 'model_type' (supported: {supported})")
    if not isinstance(model_type, str):
        raise ValueError(f"config.json: field 'model_type' must be a string, got "
                         f"{type(model_type).__name__}")
    warnings: list[str] = []
    fam = FAMILIES.get(model_type) or _unknown_family(config, model_type[:60])
    if fam is GENERIC:
        warnings.append(f"unknown model_type {model_type[:60]!r}: read as a Llama-style decoder "
                        "(gated MLP, RMSNorm, RoPE); check its parameter count")
    where = _where(model_type[:60])
    top = Reader(config, where)
    text = top
    text_fam, text_type = fam, model_type
    nested = top.table("text_config")
    if fam.text_type or (fam is GENERIC and nested is not None):
        if nested is None and fam.text_type:
            nested = Reader({}, where, "text_config.") if fam.text_type == "gemma3_text" else top
        text = nested
        text_type = fam.text_type or model_type
        text_fam = FAMILIES.get(fam.text_type, GENERIC)
    if top.has("tie_word_embeddings"):
        tied = top.bool("tie_word_embeddings", False)
    else:
        tied = text.bool("tie_word_embeddings", fam.tie_default or text_fam.tie_default)
    kwargs = text_kwargs(text_type, text, text_fam, tied)
    if text is not top:
        kwargs["vision_params"] = vision_params(model_type, top, kwargs["d_model"], warnings)
    kwargs |= shipped_quant(top, warnings)
    kwargs["family"] = fam.family if fam is not GENERIC else model_type[:60]
    kwargs["source"] = f"Hugging Face config.json (model_type '{model_type[:60]}')"
    kwargs["extra"] = {"warnings": warnings, "hf_model_type": model_type[:60],
                       "text_prefix": text.prefix}
    return model_type, kwargs


def hf_spec_error(model_type: str, exc: ValueError, prefix: str = "") -> ValueError:
    """Re-word a ModelSpec validation error in config.json's own key names."""
    message = str(exc).split(": ", 1)[-1]
    fam = FAMILIES.get(model_type, GENERIC)
    text_fam = FAMILIES.get(fam.text_type, fam)
    names = dict(EXTRA_NAMES) | text_fam.keys
    if text_fam.moe in ("mixtral", "llama4"):
        names["n_experts"] = "num_local_experts"
    if text_fam.moe == "deepseek":
        names |= {"n_experts": "n_routed_experts", "shared_d_ff": "n_shared_experts"}
    elif text_fam.moe == "qwen":
        names["dense_layers"] = "mlp_only_layers"
    elif text_fam.moe == "llama4":
        names |= {"dense_layers": "moe_layers", "d_ff": "intermediate_size_mlp",
                  "moe_d_ff": "intermediate_size", "shared_d_ff": "intermediate_size"}
    for field_name, key in names.items():
        message = re.sub(rf"\b{field_name}\b", f"{prefix}{key}", message)
    return ValueError(f"{_where(model_type[:60])}: {message}")


__all__ = ["MAX_CONFIG_BYTES", "STANDARD_FIELDS", "SUPPORTED_HF_MODEL_TYPES", "checked_value",
           "hf_config_from_bytes", "hf_spec_error", "hf_spec_kwargs"]
