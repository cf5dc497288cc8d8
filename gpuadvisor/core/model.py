"""Model descriptions: architecture numbers -> parameter counts and a model's shape.

A :class:`ModelSpec` describes a network by the numbers that decide its memory and compute:
layers, widths, heads, vocabulary, MLP style, norms, biases, experts. Parameter counts are
derived, never typed in, so a preset can be checked against its published count.

:func:`model_shape` derives, once per spec (cached), the
:class:`~.architecture.ModelShape` that memory, compute and time work from: parameter
counts by group, one block's widths and weights, key/value elements per token, LoRA widths.
Specs come from catalog tables (:func:`spec_from_table`) or from a Hugging Face config.json
(:func:`spec_from_hf_config`, read by :mod:`.hf_config`).

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
import math
from dataclasses import dataclass, field, fields
from functools import lru_cache

from .architecture import BlockShape, ModelShape, ParamCounts
from .hf_config import SUPPORTED_HF_MODEL_TYPES, checked_value, hf_spec_error, hf_spec_kwargs

KINDS = ("decoder", "encoder", "opaque")
MLP_KINDS = ("gelu", "gated")
NORM_KINDS = ("layernorm", "rmsnorm")
POSITION_KINDS = ("learned", "rope", "none")


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
        """Parameter counts by group (see :class:`ParamCounts` and :func:`model_shape`)."""
        return model_shape(self).params

    def lora_params(self, rank: int, targets: str) -> int:
        """Trainable parameters of LoRA adapters: ``r * (d_in + d_out)`` per adapted matrix.

        Args:
            rank: LoRA rank r.
            targets: ``"qv"`` (query and value, PEFT's default for LLaMA), ``"attn"`` (q, k, v,
                output) or ``"all"`` (every linear layer in the blocks, as QLoRA does).

        Returns:
            Adapter parameters over all layers (all experts of an MoE when MLPs are adapted).
        """
        return model_shape(self).lora_params(rank, targets)


# ---------------------------------------------------------------------- the description
#: A model as memory, compute and estimate functions accept it: its spec or its shape.
ModelLike = ModelSpec | ModelShape


def model_shape(model: ModelLike) -> ModelShape:
    """The :class:`~.architecture.ModelShape` of ``model``, derived once per spec (cached).

    Memory, compute and estimate functions accept either a spec or its shape and call this
    first; they pass the shape on, so one estimate derives the model's sizes once.

    Args:
        model: a spec, or a shape (returned as it is).
    """
    if isinstance(model, ModelShape):
        return model
    return _describe(model)


def _block_shape(spec: ModelSpec) -> BlockShape:
    """One block's widths and parameters.

    Per block (h = d_model, q = n_heads*head_dim, k = n_kv_heads*head_dim, f = d_ff,
    E = n_experts):

    * attention weights: ``h*q`` (Q) + ``2*h*k`` (K, V) + ``q*h`` (output);
      biases ``q + 2k`` when ``qkv_bias``, ``h`` when ``out_bias``.
    * MLP weights: ``3*h*f`` gated, ``2*h*f`` otherwise, per expert; biases
      ``f + h`` (or ``2f + h`` gated) when ``mlp_bias``; MoE adds a router ``h*E``.
    * norms: ``norms_per_layer`` x (``2h`` LayerNorm, ``h`` RMSNorm).
    * LoRA widths ``d_in + d_out``: Q ``h + q``, K and V ``h + k`` each, output ``q + h``,
      each MLP matrix ``h + f`` (per expert).
    """
    h, f, q, k = spec.d_model, spec.d_ff, spec.q_dim, spec.kv_dim
    norm_size = 2 * h if spec.norm == "layernorm" else h
    attn_w = h * q + 2 * h * k + q * h
    attn_b = (q + 2 * k if spec.qkv_bias else 0) + (h if spec.out_bias else 0)
    n_mats = 3 if spec.mlp == "gated" else 2
    expert_w = n_mats * h * f
    expert_b = ((n_mats - 1) * f + h) if spec.mlp_bias else 0
    router = h * spec.n_experts if spec.is_moe else 0
    norms = spec.norms_per_layer * norm_size
    q_proj, kv_proj, o_proj = h + q, h + k, q + h
    attn_width = q_proj + 2 * kv_proj + o_proj
    return BlockShape(
        d_model=h,
        n_heads=spec.n_heads,
        q_dim=q,
        kv_dim=k,
        d_ff=f,
        mlp_matrices=n_mats,
        experts=spec.n_experts,
        experts_per_token=spec.experts_per_token,
        attention_weights=attn_w,
        expert_weights=expert_w,
        linear_weights=attn_w + spec.n_experts * expert_w,
        linear_weights_active=attn_w + spec.experts_per_token * expert_w,
        other_params=attn_b + spec.n_experts * expert_b + router + norms,
        other_params_active=attn_b + spec.experts_per_token * expert_b + router + norms,
        kv_elements_per_token=2 * k,
        lora_width_qv=q_proj + kv_proj,
        lora_width_attn=attn_width,
        lora_width_all=attn_width + spec.n_experts * n_mats * (h + f),
    )


def _params(spec: ModelSpec, block: BlockShape) -> ParamCounts:
    """Parameter counts: ``n_layers`` blocks plus what sits outside them.

    Outside blocks: token embedding ``V*h``, learned positions ``P*h``, token types ``T*h``,
    an embedding norm (BERT), a final norm, an untied LM head ``V*h``, and BERT's pooler
    ``h*h + h``.
    """
    h = spec.d_model
    norm_size = 2 * h if spec.norm == "layernorm" else h
    embedding = spec.vocab_size * h
    if spec.position == "learned":
        embedding += spec.max_positions * h
    embedding += spec.type_vocab_size * h
    lm_head = 0 if (spec.tied_embeddings or spec.kind == "encoder") else spec.vocab_size * h
    other_global = (norm_size if spec.final_norm else 0) + (
        norm_size if spec.embedding_norm else 0
    )
    if spec.pooler:
        other_global += h * h + h

    L = spec.n_layers
    linear = L * block.linear_weights
    linear_active = L * block.linear_weights_active
    other = L * block.other_params + other_global
    total = embedding + lm_head + linear + other
    active = embedding + lm_head + linear_active + L * block.other_params_active + other_global
    return ParamCounts(
        total=total,
        active=active,
        embedding=embedding,
        lm_head=lm_head,
        linear_in_blocks=linear,
        linear_in_blocks_active=linear_active,
        other=other,
    )


def _adafactor_state_elements(spec: ModelSpec, block: BlockShape, counts: ParamCounts) -> float:
    """Adafactor's factored second moment: rows + cols per matrix, full size per vector.

    Matrices: every block linear (``L x lora_width_all`` is exactly the sum of
    ``d_in + d_out`` over them), the embedding and an untied LM head (``V + h`` each).
    Vectors (norms, biases) keep a full second moment.
    """
    matrices = spec.n_layers * block.lora_width_all + (spec.vocab_size + spec.d_model)
    if counts.lm_head:
        matrices += spec.vocab_size + spec.d_model
    return float(matrices + counts.other)


@lru_cache(maxsize=256)
def _describe(spec: ModelSpec) -> ModelShape:
    """Derive the :class:`ModelShape` of a spec (cached: specs are frozen and hashable)."""
    dropout = spec.norm == "layernorm" and spec.mlp == "gelu"
    if spec.kind == "opaque":
        n = int(spec.params_override)
        return ModelShape(
            id=spec.id, kind=spec.kind, params=ParamCounts(n, n, 0, 0, n, n, 0), n_layers=0,
            d_model=0, vocab_size=0, block=None, output_matmul_params=0,
            kv_elements_per_token=0,
            # ~50 square-ish matrices; small either way
            adafactor_state_elements=2.0 * math.sqrt(n) * 50, dropout=dropout,
            flops_per_sample=spec.flops_per_sample,
            activation_bytes_per_sample=spec.activation_bytes_per_sample)
    block = _block_shape(spec)
    counts = _params(spec, block)
    return ModelShape(
        id=spec.id,
        kind=spec.kind,
        params=counts,
        n_layers=spec.n_layers,
        d_model=spec.d_model,
        vocab_size=spec.vocab_size,
        block=block,
        output_matmul_params=spec.vocab_size * spec.d_model,
        kv_elements_per_token=(spec.n_layers * block.kv_elements_per_token
                               if spec.kind == "decoder" else 0),
        adafactor_state_elements=_adafactor_state_elements(spec, block, counts),
        dropout=dropout,
    )


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
        kwargs[TABLE_ALIASES.get(key, key)] = checked_value(where, key, value, _TABLE_KEYS[key])
    if "name" not in kwargs:
        raise ValueError(f"{where}: missing field 'name'")
    return ModelSpec(id=model_id, **kwargs)


# ------------------------------------------------------------------ Hugging Face import
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
    model_type, kwargs = hf_spec_kwargs(config)
    try:
        return ModelSpec(id=model_id, name=name or model_id, **kwargs)
    except ValueError as exc:
        raise hf_spec_error(model_type, exc) from exc


__all__ = [
    "KINDS",
    "MLP_KINDS",
    "NORM_KINDS",
    "POSITION_KINDS",
    "SUPPORTED_HF_MODEL_TYPES",
    "TABLE_ALIASES",
    "BlockShape",
    "ModelLike",
    "ModelShape",
    "ModelSpec",
    "ParamCounts",
    "model_shape",
    "spec_from_hf_config",
    "spec_from_table",
]
