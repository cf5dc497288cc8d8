"""What memory, compute and time need to know about a model, derived once.

A :class:`~.model.ModelSpec` holds the numbers a model card gives (layers, widths, heads,
MLP style, experts, ...). Every estimate needs the same sizes derived from them: parameter
counts by group, the weights of one block's attention and MLP, the key/value elements cached
per token, the widths LoRA adapters get, the state Adafactor keeps. :class:`ModelShape` is that
description: a frozen record computed once per spec by :func:`gpuadvisor.core.model.model_shape`
(cached) and passed to :mod:`.memory`, :mod:`.compute` and :mod:`.estimate`, so one estimate
derives nothing twice.

This module holds the records only (no derivation, nothing of ours imported): the formulas
that fill them live beside the spec in :mod:`.model`, the formulas that use them in
:mod:`.memory` and :mod:`.compute`.

Every block of a model is alike today (:attr:`ModelShape.block`, repeated ``n_layers``
times). Stacks that mix block kinds (dense and MoE layers, sliding-window and global
attention) will describe each kind with its own :class:`BlockShape`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: LoRA target sets (see :meth:`ModelShape.lora_params`).
LORA_TARGET_SETS = ("qv", "attn", "all")


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
class BlockShape:
    """One transformer block: its widths and its parameters by group.

    Notation: h = ``d_model``, q = ``q_dim``, k = ``kv_dim``, f = ``d_ff``, E = ``experts``.

    Attributes:
        d_model: hidden size h (the block's input and output width).
        n_heads: query heads a.
        q_dim: query projection width, a x head_dim.
        kv_dim: width of each of the key and value projections, kv_heads x head_dim.
        d_ff: MLP inner size f (of one expert for MoE).
        mlp_matrices: matrices of one MLP: 3 gated (SwiGLU/GeGLU), 2 otherwise.
        experts: expert MLPs stored in the block (1 = dense).
        experts_per_token: expert MLPs each token passes through (top-k; 1 = dense).
        attention_weights: ``h q + 2 h k + q h`` (Q, K, V and output projections).
        expert_weights: ``mlp_matrices x h f``, one expert.
        linear_weights: ``attention_weights + E x expert_weights`` (what quantization and
            LoRA act on).
        linear_weights_active: the same with the k experts a token uses.
        other_params: biases, norms and the MoE router, all experts.
        other_params_active: the same with the k experts a token uses.
        kv_elements_per_token: key and value elements an inference cache keeps per token
            (``2 k``).
        lora_width_qv: ``sum(d_in + d_out)`` over the query and value projections.
        lora_width_attn: the same over Q, K, V and output.
        lora_width_all: the same over every linear layer of the block, all experts.
    """

    d_model: int
    n_heads: int
    q_dim: int
    kv_dim: int
    d_ff: int
    mlp_matrices: int
    experts: int
    experts_per_token: int
    attention_weights: int
    expert_weights: int
    linear_weights: int
    linear_weights_active: int
    other_params: int
    other_params_active: int
    kv_elements_per_token: int
    lora_width_qv: int
    lora_width_attn: int
    lora_width_all: int

    @property
    def gated_mlp(self) -> bool:
        """True for gated MLPs (three matrices: gate, up, down)."""
        return self.mlp_matrices == 3

    def lora_width(self, targets: str) -> int:
        """``sum(d_in + d_out)`` over the matrices LoRA adapts for ``targets``.

        Raises:
            ValueError: ``targets`` is not one of :data:`LORA_TARGET_SETS`.
        """
        if targets == "qv":
            return self.lora_width_qv
        if targets == "attn":
            return self.lora_width_attn
        if targets == "all":
            return self.lora_width_all
        raise ValueError(f"lora_targets must be one of qv, attn, all; got {targets!r}")


@dataclass(frozen=True)
class ModelShape:
    """A model as memory, compute and time see it (derived once from its ModelSpec).

    Attributes:
        id: the spec's id.
        kind: ``decoder``, ``encoder`` or ``opaque``.
        params: parameter counts by group.
        n_layers: transformer blocks L (0 for opaque models).
        d_model: hidden size h (0 for opaque models).
        vocab_size: token vocabulary V (0 for opaque models).
        block: the repeated block (``None`` for opaque models).
        output_matmul_params: ``V x h``: the output projection as a matmul (tied or not),
            when the model has a token output (0 for opaque models).
        kv_elements_per_token: key and value elements an inference cache keeps per token
            and sequence over all layers (``2 L k`` for decoders, 0 otherwise).
        adafactor_state_elements: elements of Adafactor's factored second moment (see
            :func:`gpuadvisor.core.memory.adafactor_state_elements`).
        dropout: trains with dropout (classic LayerNorm/GELU models: GPT-2, BERT).
        flops_per_sample: forward FLOPs per sample (opaque models; 0 otherwise).
        activation_bytes_per_sample: published training activations per sample at 16-bit
            (opaque models; 0 = unknown).
    """

    id: str
    kind: str
    params: ParamCounts
    n_layers: int
    d_model: int
    vocab_size: int
    block: BlockShape | None
    output_matmul_params: int
    kv_elements_per_token: int
    adafactor_state_elements: float
    dropout: bool
    flops_per_sample: float = 0.0
    activation_bytes_per_sample: float = 0.0

    @property
    def is_opaque(self) -> bool:
        """True for models described by parameter count and FLOPs only."""
        return self.kind == "opaque"

    def head_matmul_params(self, task: str) -> int:
        """Output-projection weights multiplied per token for ``task``.

        ``V x h`` for decoders and for encoders pre-trained with masked-LM; none for
        encoders fine-tuned with a classification head and for opaque models.
        """
        if self.kind == "decoder" or (self.kind == "encoder" and task == "pretrain"):
            return self.output_matmul_params
        return 0

    def lora_params(self, rank: int, targets: str) -> int:
        """Trainable parameters of LoRA adapters: ``r x sum(d_in + d_out)`` per block.

        Args:
            rank: LoRA rank r.
            targets: ``"qv"`` (query and value, PEFT's default for LLaMA), ``"attn"`` (q, k,
                v, output) or ``"all"`` (every linear layer in the blocks, as QLoRA does).

        Returns:
            Adapter parameters over all layers (all experts of an MoE when MLPs are adapted).
            Opaque models have no matrix shapes: square adapters on 1% of the weights.

        Raises:
            ValueError: unknown ``targets``.
        """
        if self.block is None:
            return int(rank * 2 * max(1.0, (self.params.total * 0.01) ** 0.5))
        return rank * self.block.lora_width(targets) * self.n_layers


__all__ = ["LORA_TARGET_SETS", "BlockShape", "ModelShape", "ParamCounts"]
