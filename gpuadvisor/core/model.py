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

from dataclasses import dataclass, field

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
