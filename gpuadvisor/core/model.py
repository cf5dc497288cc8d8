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
  (RoPE, RMSNorm, gated MLP, grouped-query attention, tied or untied embeddings), MoE
  decoders (``n_experts`` > 1: total vs active parameters per token; shared experts, dense
  first layers), multi-head latent attention (DeepSeek), q/k norms, attention sinks, sliding
  or chunked attention on some layers, and a vision tower counted apart.
* ``encoder`` — BERT style (learned positions, token types, post-LayerNorm, pooler).
* ``opaque`` — models where architecture numbers are not the point (CNNs, diffusion UNets,
  speech models): a parameter count and forward FLOPs per sample, both from the literature.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields
from functools import lru_cache

from .architecture import LINEAR_GROUPS, BlockShape, ModelShape, ParamCounts
from .blocks import describe
from .hf_config import SUPPORTED_HF_MODEL_TYPES, checked_value, hf_spec_error, hf_spec_kwargs
from .limits import MODEL_BOUNDS, check
from .plan import QUANT, is_gguf_quant, is_quant
from .units import printable

KINDS = ("decoder", "encoder", "opaque")
MLP_KINDS = ("gelu", "gated")
NORM_KINDS = ("layernorm", "rmsnorm")
POSITION_KINDS = ("learned", "rope", "none")
ATTENTION_KINDS = ("gqa", "mla")
QK_NORM_KINDS = ("none", "head", "full")
#: Largest value an architecture number may take (a config beyond it is hostile or broken).
MAX_ARCH_NUMBER = 2**31 - 1
_COUNT_FIELDS = ("n_layers", "d_model", "n_heads", "n_kv_heads", "head_dim", "d_ff",
                 "vocab_size", "max_positions", "n_experts", "experts_per_token",
                 "type_vocab_size", "norms_per_layer", "q_lora_rank", "kv_lora_rank",
                 "qk_rope_head_dim", "v_head_dim", "sliding_window", "global_layers",
                 "moe_d_ff", "dense_layers", "shared_d_ff")


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
        attention: ``gqa`` (multi-head or grouped-query attention) or ``mla`` (DeepSeek's
            multi-head latent attention: ``head_dim`` is the query/key head size, nope +
            rope).
        q_lora_rank: MLA query compression rank (0 = queries projected directly).
        kv_lora_rank: MLA key/value latent width (what the cache keeps, with the rope key).
        qk_rope_head_dim: MLA rotary part of each query/key head (one shared rotary key).
        v_head_dim: value head size when it differs from ``head_dim`` (0 = head_dim).
        qk_norm: ``none``, ``head`` (a norm over each query and key head: Qwen3, Gemma 3)
            or ``full`` (over the whole query and key projections: OLMo 2).
        attention_sinks: one learned sink logit per head and layer (gpt-oss).
        sliding_window: tokens a windowed layer attends to and caches (sliding or chunked
            attention; 0 = every layer global).
        global_layers: with a window, how many layers still attend globally (the rest
            use the window; 0 = all windowed).
        moe_d_ff: inner size of a routed expert when it differs from ``d_ff`` (0 = d_ff;
            ``d_ff`` is then the dense layers' MLP).
        dense_layers: layers of an MoE model whose MLP is dense (DeepSeek's first layers,
            Qwen-MoE's ``mlp_only_layers``, Llama 4's interleaving).
        shared_d_ff: inner size of the always-on shared expert of each MoE layer (0 = none;
            several shared experts add up).
        shared_expert_gate: a sigmoid gate (h weights) scales the shared expert (Qwen-MoE).
        router_bias: the MoE router has a bias (gpt-oss).
        lm_head_bias: the LM head has a bias (Phi-2).
        vision_params: parameters of a vision tower and its projector, counted apart from
            the text model (resident in memory at 16-bit, no FLOPs per text token).
        quant: the quantization the checkpoint ships in (a Plan ``quant`` name; "" = none),
            used for inference when the plan names none.
        quant_bytes: bytes per quantized weight of the shipped quantization, scales
            included (0 = the generic figure for ``quant``).
        quant_groups: which block linears the shipped quantization covers, comma-separated
            ``attn``, ``mlp``, ``shared``, ``experts`` ("" = all); the rest stay 16-bit.
        weights_file_bytes: the exact bytes of the weights as a file stores them (a GGUF's
            tensors; 0 = unknown): inference holds these when the plan names no ``quant``.
        ollama_quant: the GGUF type of the model's default Ollama library tag ("" = none):
            what ``ollama run`` pulls, so an Ollama plan that names no ``quant`` runs it
            (the presets take it from catalog/serving.toml).
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
    attention: str = "gqa"
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    qk_norm: str = "none"
    attention_sinks: bool = False
    sliding_window: int = 0
    global_layers: int = 0
    moe_d_ff: int = 0
    dense_layers: int = 0
    shared_d_ff: int = 0
    shared_expert_gate: bool = False
    router_bias: bool = False
    lm_head_bias: bool = False
    vision_params: int = 0
    quant: str = ""
    quant_bytes: float = 0.0
    quant_groups: str = ""
    weights_file_bytes: int = 0
    ollama_quant: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        def bad(name: str, why: str) -> ValueError:
            return ValueError(f"model '{self.id}': field '{name}' {why}")

        if not self.id:
            raise ValueError("model: field 'id' must not be empty")
        # Names come from files (a config.json's _name_or_path, a GGUF's general.name, a
        # folder): every door prints them, so they hold no terminal escapes or line breaks.
        for name in ("id", "name"):
            value = getattr(self, name)
            if isinstance(value, str) and not value.isprintable():
                object.__setattr__(self, name, printable(value))
        # Physical ranges (core/limits.py): a layer count of 10**400 or a negative head size
        # is refused here, wherever the spec came from.
        for name, bound in MODEL_BOUNDS.items():
            value = getattr(self, name, None)
            if value is None or isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if self.kind == "opaque" and value == 0:
                continue  # models given by parameter count have no architecture numbers
            try:
                check(name, value, bound)
            except ValueError:
                raise bad(name, f"must be {bound.describe()}, got {value!r}") from None
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
        for name in _COUNT_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise bad(name, f"must be a whole number >= 0, got {value!r}")
            if value > MAX_ARCH_NUMBER:
                raise bad(name, f"must be at most {MAX_ARCH_NUMBER:,}")
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
        self._check_new_kinds(bad)

    def _check_new_kinds(self, bad) -> None:
        """Validate attention, windows, experts and shipped quantization (see the fields)."""
        if self.attention not in ATTENTION_KINDS:
            raise bad("attention", f"must be one of {', '.join(ATTENTION_KINDS)}")
        if self.qk_norm not in QK_NORM_KINDS:
            raise bad("qk_norm", f"must be one of {', '.join(QK_NORM_KINDS)}")
        if self.attention == "mla":
            if self.kv_lora_rank <= 0:
                raise bad("kv_lora_rank", "must be positive with latent attention (mla)")
            if not 0 < self.qk_rope_head_dim < self.head_dim:
                raise bad("qk_rope_head_dim",
                          f"must be between 1 and head_dim - 1 ({self.head_dim - 1})")
        if self.global_layers > self.n_layers:
            raise bad("global_layers", f"must be at most n_layers ({self.n_layers})")
        if self.n_experts > 1 and self.dense_layers >= self.n_layers:
            raise bad("dense_layers", f"must be below n_layers ({self.n_layers}) for an MoE")
        if self.vision_params < 0 or isinstance(self.vision_params, bool):
            raise bad("vision_params", "must be a whole number >= 0")
        if self.quant and (self.quant == "none" or not is_quant(self.quant)):
            raise bad("quant", f"must be one of {', '.join(QUANT[1:])} or exl2-<bits> "
                               "(or empty)")
        if self.ollama_quant and not is_gguf_quant(self.ollama_quant):
            raise bad("ollama_quant", "must be a GGUF file type (e.g. q4_k_m) or empty")
        file_bytes = self.weights_file_bytes
        if not isinstance(file_bytes, int) or isinstance(file_bytes, bool) or file_bytes < 0:
            raise bad("weights_file_bytes", "must be a whole number of bytes >= 0")
        if not (0.0 <= self.quant_bytes <= 4.0):
            raise bad("quant_bytes", f"must be between 0 and 4, got {self.quant_bytes!r}")
        unknown = set(filter(None, self.quant_groups.split(","))) - set(LINEAR_GROUPS)
        if unknown:
            raise bad("quant_groups", f"unknown group(s) {', '.join(sorted(unknown))}; "
                      f"known: {', '.join(LINEAR_GROUPS)}")

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


#: The derivation, cached per spec (specs are frozen and hashable); see :mod:`.blocks`.
_describe = lru_cache(maxsize=256)(describe)


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
def spec_from_hf_config(config: dict, model_id: str, name: str | None = None,
                        warnings: list[str] | None = None) -> ModelSpec:
    """Build a :class:`ModelSpec` from a Hugging Face ``config.json`` (already parsed).

    Supported ``model_type`` values: :data:`SUPPORTED_HF_MODEL_TYPES` (Llama, Mistral,
    Mixtral, Qwen2/2.5, Qwen2-MoE, Qwen3, Qwen3-MoE, Gemma 1/2/3, Phi-2, Phi-3/4, GPT-2,
    BERT, DeepSeek-V2/V3, gpt-oss, Llama 4, OLMo 2, Granite, Command R7B, StarCoder2,
    Qwen2.5-VL). The parameter counts equal what transformers builds on the meta device
    from the same file (tests/test_model_hf.py). A multimodal file is read as its text
    model, its vision tower counted in ``vision_params``; ``quantization_config`` fills
    ``quant``. An unknown ``model_type`` with the standard fields (hidden_size,
    num_hidden_layers, num_attention_heads, intermediate_size, vocab_size) is read as a
    Llama-style decoder, with a warning. Missing optional fields take the HF config class's
    default: ``num_key_value_heads`` -> ``num_attention_heads`` (multi-head attention),
    ``head_dim`` -> hidden / heads, GPT-2's ``n_inner`` -> ``4 * n_embd``,
    ``tie_word_embeddings`` -> the family's default. Fields that decide the parameter count
    are required.

    Args:
        config: the parsed config.json.
        model_id: id for the spec (e.g. the Hub repo name or the file's path).
        name: display name; defaults to ``model_id``.
        warnings: a list that receives what the user should know (also kept in the spec's
            ``extra["warnings"]``, which estimates repeat).

    Returns:
        The spec, with ``source`` naming the config's model_type.

    Raises:
        ValueError: one line: an unsupported model_type without the standard fields (naming
            the ones it lacks), a missing ``model_type``, a missing required field or one of
            the wrong type or size (named as in the file), or architecture numbers that do
            not fit together (e.g. heads not dividing hidden).
    """
    model_type, kwargs = hf_spec_kwargs(config)
    try:
        spec = ModelSpec(id=model_id, name=name or model_id, **kwargs)
    except ValueError as exc:
        raise hf_spec_error(model_type, exc, kwargs["extra"]["text_prefix"]) from exc
    if warnings is not None:
        warnings.extend(spec.extra.get("warnings", []))
    return spec


__all__ = [
    "ATTENTION_KINDS",
    "KINDS",
    "MAX_ARCH_NUMBER",
    "MLP_KINDS",
    "NORM_KINDS",
    "POSITION_KINDS",
    "QK_NORM_KINDS",
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
