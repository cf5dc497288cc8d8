"""Model descriptions: architecture numbers -> parameter counts.

A :class:`ModelSpec` describes a network by the numbers that decide its memory and compute:
layers, widths, heads, vocabulary, MLP style, norms, biases, experts. Parameter counts are
derived, never typed in, so a preset can be checked against its published count.

Three kinds of model are described:

* ``decoder`` — GPT-2 style (learned positions, LayerNorm, biases, GELU MLP) and LLaMA style
  (RoPE, RMSNorm, gated MLP, grouped-query attention, tied or untied embeddings), and MoE
  decoders (``n_experts`` > 1: total vs active parameters per token).
* ``encoder`` — BERT style (learned positions, token types, post-LayerNorm, pooler).
* ``opaque`` — models where architecture numbers are not the point (CNNs, diffusion UNets,
  speech models): a parameter count and forward FLOPs per sample, both from the literature.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, fields

KINDS = ("decoder", "encoder", "opaque")
MLP_KINDS = ("gelu", "gated")
NORM_KINDS = ("layernorm", "rmsnorm")
POSITION_KINDS = ("learned", "rope", "none")


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts of a model, split the way memory and compute need them.

    Attributes:
        total: every parameter stored in memory.
        active: parameters touched per token (== total for dense models; MoE: shared + k experts).
        embedding: token (and position/type) embedding tables.
        lm_head: output projection when untied from the embedding (0 when tied or absent).
        linear_in_blocks: weights of the linear layers inside transformer blocks (what
            quantization and LoRA act on), all experts included.
        linear_in_blocks_active: the same, counting only the experts used per token.
        other: norms, biases, routers, pooler, anything not in the groups above.
    """

    total: int
    active: int
    embedding: int
    lm_head: int
    linear_in_blocks: int
    linear_in_blocks_active: int
    other: int


@dataclass(frozen=True)
class ModelSpec:
    """Architecture numbers of a model.

    Attributes:
        id: catalog key, e.g. ``"llama-3.1-8b"``.
        name: display name.
        kind: ``decoder``, ``encoder`` or ``opaque``.
        n_layers: transformer blocks (L).
        d_model: hidden size (h).
        n_heads: attention heads (a).
        n_kv_heads: key/value heads (GQA; == n_heads for multi-head attention).
        head_dim: size of one head; defaults to d_model // n_heads (Gemma-2 differs).
        d_ff: MLP inner size (per expert for MoE).
        vocab_size: token vocabulary (V).
        max_positions: context length the model was trained for; for learned positions this is
            the size of the position table.
        mlp: ``gelu`` (two matrices) or ``gated`` (SwiGLU/GeGLU: three matrices).
        norm: ``layernorm`` (weight + bias) or ``rmsnorm`` (weight only).
        norms_per_layer: norm layers per block (2 usually; Gemma-2 has 4).
        position: ``learned`` (a table of max_positions x d_model), ``rope`` or ``none``.
        tied_embeddings: output projection shares the input embedding matrix.
        qkv_bias: biases on the q/k/v projections (GPT-2, BERT, Qwen2).
        out_bias: bias on the attention output projection (GPT-2, BERT).
        mlp_bias: biases on the MLP matrices (GPT-2, BERT).
        final_norm: a norm after the last block (decoders; BERT has none).
        n_experts: MoE experts per block (1 = dense).
        experts_per_token: experts each token is routed to (top-k).
        type_vocab_size: BERT token-type embeddings (0 elsewhere).
        pooler: BERT pooler (d x d + d).
        embedding_norm: a norm right after the embeddings (BERT).
        params_override: parameter count for ``opaque`` models.
        flops_per_sample: forward FLOPs per sample for ``opaque`` models (2 x multiply-adds).
        sample_unit: what one sample is for ``opaque`` models ("224x224 image", ...).
        activation_bytes_per_sample: training activations per sample for ``opaque`` models
            at 16-bit, when published (0 = unknown, estimated from params).
        published_params: the count the model's authors publish (for tests and display).
        source: where the architecture numbers and published count come from.
        family: model family for grouping and display (e.g. ``"Llama 3.1"``).
        extra: free-form details a catalog entry may carry (not compared or hashed).
    """

    id: str
    name: str
    kind: str = "decoder"
    n_layers: int = 0
    d_model: int = 0
    n_heads: int = 0
    n_kv_heads: int = 0
    head_dim: int = 0
    d_ff: int = 0
    vocab_size: int = 0
    max_positions: int = 0
    mlp: str = "gated"
    norm: str = "rmsnorm"
    norms_per_layer: int = 2
    position: str = "rope"
    tied_embeddings: bool = False
    qkv_bias: bool = False
    out_bias: bool = False
    mlp_bias: bool = False
    final_norm: bool = True
    n_experts: int = 1
    experts_per_token: int = 1
    type_vocab_size: int = 0
    pooler: bool = False
    embedding_norm: bool = False
    params_override: int = 0
    flops_per_sample: float = 0.0
    sample_unit: str = ""
    activation_bytes_per_sample: float = 0.0
    published_params: int = 0
    source: str = ""
    family: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        def bad(name: str, why: str) -> ValueError:
            return ValueError(f"model '{self.id}': field '{name}' {why}")

        if not self.id:
            raise ValueError("model: field 'id' must not be empty")
        if self.kind not in KINDS:
            raise bad("kind", f"must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind == "opaque":
            if self.params_override <= 0:
                raise bad("params", "must be a positive parameter count for an opaque model")
            if self.flops_per_sample <= 0:
                raise bad("flops_per_sample", "must be positive for an opaque model")
            return
        for name in ("n_layers", "d_model", "n_heads", "d_ff", "vocab_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise bad(name, f"must be a positive integer, got {value!r}")
        if self.n_kv_heads == 0:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        if self.head_dim == 0:
            if self.d_model % self.n_heads:
                raise bad("n_heads", f"must divide d_model ({self.d_model}) or give head_dim")
            object.__setattr__(self, "head_dim", self.d_model // self.n_heads)
        if self.n_kv_heads <= 0 or self.n_heads % self.n_kv_heads:
            raise bad("n_kv_heads", f"must divide n_heads ({self.n_heads}), got {self.n_kv_heads}")
        if self.mlp not in MLP_KINDS:
            raise bad("mlp", f"must be one of {', '.join(MLP_KINDS)}, got {self.mlp!r}")
        if self.norm not in NORM_KINDS:
            raise bad("norm", f"must be one of {', '.join(NORM_KINDS)}, got {self.norm!r}")
        if self.position not in POSITION_KINDS:
            raise bad("position", f"must be one of {', '.join(POSITION_KINDS)}")
        if self.position == "learned" and self.max_positions <= 0:
            raise bad("max_positions", "must be positive with learned positions")
        if self.n_experts < 1:
            raise bad("n_experts", "must be >= 1")
        if not 1 <= self.experts_per_token <= self.n_experts:
            raise bad("experts_per_token", f"must be between 1 and n_experts ({self.n_experts})")

    # ------------------------------------------------------------------ derived numbers
    @property
    def is_moe(self) -> bool:
        """True for mixture-of-experts models."""
        return self.n_experts > 1

    @property
    def q_dim(self) -> int:
        """Width of the query projection output: n_heads x head_dim."""
        return self.n_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of each of the key and value projections: n_kv_heads x head_dim."""
        return self.n_kv_heads * self.head_dim

    def params(self) -> ParamCounts:
        """Count parameters from the architecture numbers.

        Per block (h = d_model, q = n_heads*head_dim, k = n_kv_heads*head_dim, f = d_ff):

        * attention weights: ``h*q`` (Q) + ``2*h*k`` (K, V) + ``q*h`` (output);
          biases ``q + 2k`` when ``qkv_bias``, ``h`` when ``out_bias``.
        * MLP weights: ``3*h*f`` gated, ``2*h*f`` otherwise, per expert; biases
          ``f + h`` (or ``2f + h`` gated) when ``mlp_bias``; MoE adds a router ``h*E``.
        * norms: ``norms_per_layer`` x (``2h`` LayerNorm, ``h`` RMSNorm).

        Outside blocks: token embedding ``V*h``, learned positions ``P*h``, token types
        ``T*h``, an embedding norm (BERT), a final norm, an untied LM head ``V*h``, and
        BERT's pooler ``h*h + h``.

        Returns:
            The counts, split by group (see :class:`ParamCounts`).
        """
        if self.kind == "opaque":
            n = int(self.params_override)
            return ParamCounts(n, n, 0, 0, n, n, 0)
        h, f, q, k = self.d_model, self.d_ff, self.q_dim, self.kv_dim
        norm_size = 2 * h if self.norm == "layernorm" else h

        attn_w = h * q + 2 * h * k + q * h
        attn_b = (q + 2 * k if self.qkv_bias else 0) + (h if self.out_bias else 0)
        n_mats = 3 if self.mlp == "gated" else 2
        expert_w = n_mats * h * f
        expert_b = ((n_mats - 1) * f + h) if self.mlp_bias else 0
        router = h * self.n_experts if self.is_moe else 0
        norms = self.norms_per_layer * norm_size

        linear_layer = attn_w + self.n_experts * expert_w
        linear_layer_active = attn_w + self.experts_per_token * expert_w
        other_layer = attn_b + self.n_experts * expert_b + router + norms
        other_layer_active = attn_b + self.experts_per_token * expert_b + router + norms

        embedding = self.vocab_size * h
        if self.position == "learned":
            embedding += self.max_positions * h
        embedding += self.type_vocab_size * h
        lm_head = 0 if (self.tied_embeddings or self.kind == "encoder") else self.vocab_size * h
        other_global = (norm_size if self.final_norm else 0) + (
            norm_size if self.embedding_norm else 0
        )
        if self.pooler:
            other_global += h * h + h

        L = self.n_layers
        linear = L * linear_layer
        linear_active = L * linear_layer_active
        other = L * other_layer + other_global
        total = embedding + lm_head + linear + other
        active = embedding + lm_head + linear_active + L * other_layer_active + other_global
        return ParamCounts(
            total=total,
            active=active,
            embedding=embedding,
            lm_head=lm_head,
            linear_in_blocks=linear,
            linear_in_blocks_active=linear_active,
            other=other,
        )

    def lora_params(self, rank: int, targets: str) -> int:
        """Trainable parameters of LoRA adapters: ``r * (d_in + d_out)`` per adapted matrix.

        Args:
            rank: LoRA rank r.
            targets: ``"qv"`` (query and value, PEFT's default for LLaMA), ``"attn"`` (q, k, v,
                output) or ``"all"`` (every linear layer in the blocks, as QLoRA does).

        Returns:
            Adapter parameters over all layers (all experts of an MoE when MLPs are adapted).
        """
        if self.kind == "opaque":
            # No matrix shapes: approximate with square d x d adapters on 1% of weights.
            return int(rank * 2 * max(1.0, (self.params_override * 0.01) ** 0.5))
        h, f, q, k = self.d_model, self.d_ff, self.q_dim, self.kv_dim
        q_proj = h + q
        k_proj = v_proj = h + k
        o_proj = q + h
        if targets == "qv":
            per_layer = q_proj + v_proj
        elif targets == "attn":
            per_layer = q_proj + k_proj + v_proj + o_proj
        elif targets == "all":
            n_mats = 3 if self.mlp == "gated" else 2
            per_layer = q_proj + k_proj + v_proj + o_proj + self.n_experts * n_mats * (h + f)
        else:
            raise ValueError(f"lora_targets must be one of qv, attn, all; got {targets!r}")
        return rank * per_layer * self.n_layers


# ---------------------------------------------------------------------- catalog tables
# A models.toml table uses ModelSpec's field names, except ``params`` (the parameter count
# of an opaque model), which fills ``params_override``. The table's key is the model's id.
TABLE_ALIASES = {"params": "params_override"}
_SPEC_FIELD_TYPES = {f.name: f.type for f in fields(ModelSpec)}
_TABLE_KEYS = {
    name: kind
    for name, kind in _SPEC_FIELD_TYPES.items()
    if name != "id" and name not in TABLE_ALIASES.values()
} | {alias: _SPEC_FIELD_TYPES[name] for alias, name in TABLE_ALIASES.items()}
_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "str": "a string",
    "dict": "a table",
}


def _checked(where: str, key: str, value: object, type_name: str) -> object:
    """Return ``value`` if it has the type a field needs (ints widen to float).

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


def _unknown_key_error(where: str, key: str, value: object) -> ValueError:
    """A ValueError for an unknown table key, with a did-you-mean from difflib."""
    close = difflib.get_close_matches(key, sorted(_TABLE_KEYS), n=1)
    if key in TABLE_ALIASES.values():
        close = [k for k, v in TABLE_ALIASES.items() if v == key]
    hint = f"; did you mean '{close[0]}'?" if close else ""
    if isinstance(value, dict):
        hint += ' (a dot in an unquoted table name nests tables: quote ids like ["a-1.5b"])'
    return ValueError(f"{where}: unknown key '{key}'{hint}")


def spec_from_table(model_id: str, table: dict) -> ModelSpec:
    """Build a :class:`ModelSpec` from one ``models.toml`` table.

    Args:
        model_id: the table's key, which becomes ``ModelSpec.id``.
        table: the table's keys and values, as ``tomllib`` parsed them. Keys are ModelSpec
            field names, except ``params`` for ``params_override``; ``id`` may repeat the key.

    Returns:
        The validated spec.

    Raises:
        ValueError: for an unknown key (with a close match when there is one), a value of the
            wrong type, a missing ``name``, or numbers ModelSpec rejects; the message names
            the model and the field.
    """
    where = f"model '{model_id}'"
    if not isinstance(table, dict):
        raise ValueError(f"{where}: must be a table, got {type(table).__name__}")
    kwargs: dict[str, object] = {}
    for key, value in table.items():
        if key == "id":
            if value != model_id:
                raise ValueError(f"{where}: field 'id' ({value!r}) differs from the table key")
            continue
        if key not in _TABLE_KEYS:
            raise _unknown_key_error(where, key, value)
        kwargs[TABLE_ALIASES.get(key, key)] = _checked(where, key, value, _TABLE_KEYS[key])
    if "name" not in kwargs:
        raise ValueError(f"{where}: missing field 'name'")
    return ModelSpec(id=model_id, **kwargs)


# ------------------------------------------------------------------ Hugging Face import
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
    return _checked(where, key, value, type_name)


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


def _hf_spec_error(where: str, fam: _HfFamily, exc: ValueError) -> ValueError:
    """Re-word a ModelSpec validation error in config.json's own key names."""
    message = str(exc).split(": ", 1)[-1]
    for field_name, key in fam.keys.items():
        message = re.sub(rf"\b{field_name}\b", key, message)
    return ValueError(f"{where}: {message}")


def spec_from_hf_config(config: dict, model_id: str, name: str | None = None) -> ModelSpec:
    """Build a :class:`ModelSpec` from a Hugging Face ``config.json`` (already parsed).

    Supported ``model_type`` values: llama, mistral, mixtral, qwen2, gemma2, phi3, gpt2, bert.
    Missing optional fields take the HF config class's default: ``num_key_value_heads`` ->
    ``num_attention_heads`` (multi-head attention), ``head_dim`` -> hidden / heads, GPT-2's
    ``n_inner`` -> ``4 * n_embd``, ``tie_word_embeddings`` -> True for gpt2 and gemma2, False
    for the others. Fields that decide the parameter count are required.

    Args:
        config: the parsed config.json.
        model_id: id for the spec (e.g. the Hub repo name or the file's path).
        name: display name; defaults to ``model_id``.

    Returns:
        The spec, with ``source`` naming the config's model_type.

    Raises:
        ValueError: for an unsupported or missing ``model_type`` (listing the supported
            ones), a missing required field or one of the wrong type (named as in the file),
            or architecture numbers that do not fit together (e.g. heads not dividing hidden).
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
    where = f"config.json (model_type '{model_type}')"
    kwargs = _hf_numbers(config, fam, where) | _hf_decoder_style(model_type, config, fam, where)
    try:
        return ModelSpec(
            id=model_id,
            name=name or model_id,
            family=fam.family,
            source=f"Hugging Face config.json (model_type '{model_type}')",
            **kwargs,
        )
    except ValueError as exc:
        raise _hf_spec_error(where, fam, exc) from exc
