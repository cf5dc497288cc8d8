"""Hugging Face ``config.json`` -> the keyword arguments of a ModelSpec.

:func:`gpuadvisor.core.model.spec_from_hf_config` builds the spec from what
:func:`hf_spec_kwargs` reads here; a ModelSpec validation error is re-worded in the file's own
key names by :func:`hf_spec_error`. One :class:`_HfFamily` per supported ``model_type`` says
which config.json keys carry the architecture numbers and which style fields (MLP, norms,
biases, tying, experts) the family implies. Nothing here imports ModelSpec, so the model
module can offer this import without a cycle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "str": "a string",
    "dict": "a table",
}


def checked_value(where: str, key: str, value: object, type_name: str) -> object:
    """Return ``value`` if it has the type a field needs (ints widen to float).

    Shared by config.json fields and catalog tables (:func:`~.model.spec_from_table`).

    Raises:
        ValueError: naming ``where`` and the field when the type is wrong.
    """
    is_bool = isinstance(value, bool)
    if type_name == "bool":
        ok = is_bool
    elif type_name == "int":
        ok = isinstance(value, int) and not is_bool
    elif type_name == "float":
        ok = isinstance(value, int | float) and not is_bool
        value = float(value) if ok else value
    else:
        ok = isinstance(value, str if type_name == "str" else dict)
    if not ok:
        raise ValueError(f"{where}: field '{key}' must be {_TYPE_WORDS[type_name]}, got {value!r}")
    return value


@dataclass(frozen=True)
class _HfFamily:
    """How one Hugging Face ``model_type`` maps onto ModelSpec.

    Attributes:
        family: display family for the spec.
        keys: ModelSpec field -> config.json key, for the integer architecture numbers.
        tie_default: ``tie_word_embeddings`` when config.json omits it (the HF config class's
            default).
        qkv_bias: q/k/v projections always carry biases (Qwen2).
        attention_bias_key: reads ``attention_bias`` (biases on q, k, v and output).
        mlp_bias_key: reads ``mlp_bias`` (biases on the MLP matrices).
        norms_per_layer: norm layers per block.
        moe: reads ``num_local_experts`` and ``num_experts_per_tok``.
    """

    family: str
    keys: dict[str, str]
    tie_default: bool = False
    qkv_bias: bool = False
    attention_bias_key: bool = False
    mlp_bias_key: bool = False
    norms_per_layer: int = 2
    moe: bool = False


_LLAMA_KEYS = {
    "n_layers": "num_hidden_layers",
    "d_model": "hidden_size",
    "n_heads": "num_attention_heads",
    "n_kv_heads": "num_key_value_heads",
    "head_dim": "head_dim",
    "d_ff": "intermediate_size",
    "vocab_size": "vocab_size",
    "max_positions": "max_position_embeddings",
}
_GPT2_KEYS = {
    "n_layers": "n_layer",
    "d_model": "n_embd",
    "n_heads": "n_head",
    "d_ff": "n_inner",
    "vocab_size": "vocab_size",
    "max_positions": "n_positions",
}
_BERT_KEYS = {
    "n_layers": "num_hidden_layers",
    "d_model": "hidden_size",
    "n_heads": "num_attention_heads",
    "d_ff": "intermediate_size",
    "vocab_size": "vocab_size",
    "max_positions": "max_position_embeddings",
    "type_vocab_size": "type_vocab_size",
}
# Keys a config.json may leave out (or set to null): the HF config classes then derive
# them (MHA when no KV heads, hidden/heads per head, 4*n_embd for GPT-2's MLP).
_HF_OPTIONAL_KEYS = ("num_key_value_heads", "head_dim", "n_inner")
_GPT2_STYLE = {
    "mlp": "gelu",
    "norm": "layernorm",
    "position": "learned",
    "qkv_bias": True,
    "out_bias": True,
    "mlp_bias": True,
}
_BERT_STYLE = _GPT2_STYLE | {
    "kind": "encoder",
    "final_norm": False,
    "pooler": True,
    "embedding_norm": True,
}

_HF_FAMILIES = {
    "llama": _HfFamily("Llama", _LLAMA_KEYS, attention_bias_key=True, mlp_bias_key=True),
    "mistral": _HfFamily("Mistral", _LLAMA_KEYS),
    "mixtral": _HfFamily("Mixtral", _LLAMA_KEYS, moe=True),
    "qwen2": _HfFamily("Qwen2", _LLAMA_KEYS, qkv_bias=True),
    "gemma2": _HfFamily(
        "Gemma 2", _LLAMA_KEYS, tie_default=True, attention_bias_key=True, norms_per_layer=4
    ),
    "phi3": _HfFamily("Phi-3", _LLAMA_KEYS),
    "gpt2": _HfFamily("GPT-2", _GPT2_KEYS, tie_default=True),
    "bert": _HfFamily("BERT", _BERT_KEYS),
}
SUPPORTED_HF_MODEL_TYPES = tuple(_HF_FAMILIES)


def _hf_value(config: dict, key: str, type_name: str, where: str, default: object = None) -> object:
    """Read one config.json field: typed, or ``default`` when absent or null.

    Raises:
        ValueError: when the field is missing and has no default, or has the wrong type.
    """
    value = config.get(key)
    if value is None:
        if default is None:
            raise ValueError(f"{where}: missing field '{key}'")
        return default
    return checked_value(where, key, value, type_name)


def _hf_numbers(config: dict, fam: _HfFamily, where: str) -> dict[str, object]:
    """The integer architecture numbers of a config.json, keyed by ModelSpec field."""
    numbers = {
        field_name: _hf_value(config, key, "int", where, 0 if key in _HF_OPTIONAL_KEYS else None)
        for field_name, key in fam.keys.items()
    }
    if fam.keys["d_ff"] == "n_inner" and not numbers["d_ff"]:
        numbers["d_ff"] = 4 * numbers["d_model"]  # GPT2Config: n_inner None -> 4 * n_embd
    return numbers


def _hf_decoder_style(model_type: str, config: dict, fam: _HfFamily, where: str) -> dict:
    """ModelSpec style fields (MLP, norm, positions, biases, tying, experts) of a config.json."""
    if model_type == "bert":
        return dict(_BERT_STYLE)  # the LM head is not part of BertModel: tying is moot
    tied = _hf_value(config, "tie_word_embeddings", "bool", where, fam.tie_default)
    if model_type == "gpt2":
        return _GPT2_STYLE | {"tied_embeddings": tied}
    attn_bias = fam.attention_bias_key and _hf_value(config, "attention_bias", "bool", where, False)
    style: dict[str, object] = {
        "tied_embeddings": tied,
        "qkv_bias": fam.qkv_bias or attn_bias,
        "out_bias": attn_bias,
        "mlp_bias": fam.mlp_bias_key and _hf_value(config, "mlp_bias", "bool", where, False),
        "norms_per_layer": fam.norms_per_layer,
    }
    if fam.moe:
        style["n_experts"] = _hf_value(config, "num_local_experts", "int", where)
        style["experts_per_token"] = _hf_value(config, "num_experts_per_tok", "int", where)
    return style


def hf_spec_kwargs(config: dict) -> tuple[str, dict[str, object]]:
    """The ``model_type`` of a parsed config.json and its ModelSpec keyword arguments.

    The arguments are everything but ``id`` and ``name``: architecture numbers, style fields,
    ``family`` and ``source``.

    Raises:
        ValueError: not a JSON object, a missing or unsupported ``model_type`` (listing the
            supported ones), or a missing or wrongly typed field (named as in the file).
    """
    if not isinstance(config, dict):
        raise ValueError(f"config.json: must be a JSON object, got {type(config).__name__}")
    model_type = config.get("model_type")
    supported = ", ".join(SUPPORTED_HF_MODEL_TYPES)
    if model_type is None:
        raise ValueError(f"config.json: missing field 'model_type' (supported: {supported})")
    if model_type not in _HF_FAMILIES:
        raise ValueError(
            f"config.json: unsupported model_type {model_type!r} (supported: {supported})"
        )
    fam = _HF_FAMILIES[model_type]
    where = _where(model_type)
    kwargs = _hf_numbers(config, fam, where) | _hf_decoder_style(model_type, config, fam, where)
    kwargs["family"] = fam.family
    kwargs["source"] = f"Hugging Face config.json (model_type '{model_type}')"
    return model_type, kwargs


def _where(model_type: str) -> str:
    return f"config.json (model_type '{model_type}')"


def hf_spec_error(model_type: str, exc: ValueError) -> ValueError:
    """Re-word a ModelSpec validation error in config.json's own key names."""
    message = str(exc).split(": ", 1)[-1]
    for field_name, key in _HF_FAMILIES[model_type].keys.items():
        message = re.sub(rf"\b{field_name}\b", key, message)
    return ValueError(f"{_where(model_type)}: {message}")


__all__ = ["SUPPORTED_HF_MODEL_TYPES", "checked_value", "hf_spec_error", "hf_spec_kwargs"]
