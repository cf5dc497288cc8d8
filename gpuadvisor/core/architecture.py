"""What memory, compute and time need to know about a model, derived once.

A :class:`~.model.ModelSpec` holds the numbers a model card gives (layers, widths, heads,
MLP style, experts, ...). Every estimate needs the same sizes derived from them: parameter
counts by group, the weights of each block's attention and MLP, the key/value elements cached
per token, the widths LoRA adapters get, the state Adafactor keeps. :class:`ModelShape` is that
description: a frozen record computed once per spec by :func:`gpuadvisor.core.model.model_shape`
(cached) and passed to :mod:`.memory`, :mod:`.compute` and :mod:`.estimate`, so one estimate
derives nothing twice.

A stack may mix block kinds: dense and mixture-of-experts MLPs (DeepSeek's first dense
layers, Qwen-MoE's ``mlp_only_layers``, Llama 4's interleaved MoE layers) and global and
windowed attention (Gemma 3's five local layers per global one, gpt-oss's alternating
``layer_types``, Llama 4's chunked attention). :attr:`ModelShape.blocks` lists each kind of
:class:`BlockShape` with how many layers have it. Every estimate is a sum over layers of an
attention term and an MLP term, so the kinds' counts are all that matters, not their order.

This module holds the records only (no derivation, nothing of ours imported): the formulas
that fill them live in :mod:`.blocks`, the formulas that use them in :mod:`.memory` and
:mod:`.compute`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: LoRA target sets (see :meth:`ModelShape.lora_params`).
LORA_TARGET_SETS = ("qv", "attn", "all")
#: Groups of block linears a quantization may cover (see :meth:`BlockShape.linear_group`):
#: attention projections, dense MLPs, shared experts, routed experts.
LINEAR_GROUPS = ("attn", "mlp", "shared", "experts")


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts of a model, split the way memory and compute need them.

    Attributes:
        total: every parameter of the (text) model stored in memory.
        active: for a mixture of experts, the parameters a token's compute multiplies: the
            LM head, attention, norms, routers, dense MLPs, shared experts and k of the E
            routed experts per layer; not the input embedding table, which a token only
            looks a row up in (OpenAI's convention: gpt-oss-20b 3.61B active). For a dense
            model, the total.
        embedding: token (and position/type) embedding tables.
        lm_head: output projection when untied from the embedding (0 when tied or absent),
            its bias included.
        linear_in_blocks: weights of the linear layers inside transformer blocks (what
            quantization and LoRA act on), all experts included.
        linear_in_blocks_active: the same, counting only the experts used per token.
        other: norms, biases, routers, pooler, anything not in the groups above.
        vision: parameters of a vision tower and its projector (multimodal models), counted
            apart: not in ``total`` nor ``active``.
    """

    total: int
    active: int
    embedding: int
    lm_head: int
    linear_in_blocks: int
    linear_in_blocks_active: int
    other: int
    vision: int = 0


@dataclass(frozen=True)
class BlockShape:
    """One kind of transformer block: its widths and its parameters by group.

    Notation: h = ``d_model``, q = ``q_dim``, k = ``kv_dim``, f = ``d_ff``, E = ``experts``.

    Attributes:
        d_model: hidden size h (the block's input and output width).
        n_heads: query heads a.
        q_dim: query width, a x (query/key head size).
        kv_dim: width of each of the key and value tensors attention reads, kv_heads x head
            size (multi-head latent attention: a x head size, after the up-projection).
        d_ff: MLP inner size f (of one routed expert in an MoE block).
        mlp_matrices: matrices of one MLP: 3 gated (SwiGLU/GeGLU), 2 otherwise.
        experts: routed expert MLPs stored in the block (1 = a dense MLP).
        experts_per_token: routed expert MLPs each token passes through (top-k; 1 = dense).
        attention_weights: the attention projections' weights (``h q + 2 h k + q h`` for
            grouped-query attention; the down/up projections for latent attention).
        expert_weights: ``mlp_matrices x h f``, one expert (the dense MLP when E = 1).
        linear_weights: ``attention_weights + E x expert_weights + shared_weights`` (what
            quantization and LoRA act on).
        linear_weights_active: the same with the k experts a token uses.
        other_params: biases, norms, q/k norms, attention sinks and the MoE router, all
            experts.
        other_params_active: the same with the k experts a token uses.
        kv_elements_per_token: elements an inference cache keeps per token: ``2 k`` for
            grouped-query attention, ``kv_lora_rank + qk_rope_head_dim`` (the compressed
            latent and the shared rotary key) for multi-head latent attention.
        lora_width_qv: ``sum(d_in + d_out)`` over the query and value projections.
        lora_width_attn: the same over every attention projection.
        lora_width_all: the same over every linear layer of the block, all experts.
        v_dim: width attention's values have, a x (value head size) (== q_dim unless the
            value head differs, as in latent attention).
        shared_d_ff: inner size of the always-on shared expert MLP (0 = none).
        shared_weights: its weights, ``mlp_matrices x h x shared_d_ff``.
        window: tokens a windowed layer attends to and caches (sliding or chunked
            attention; 0 = global attention over the whole sequence).
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
    v_dim: int = 0
    shared_d_ff: int = 0
    shared_weights: int = 0
    window: int = 0

    @property
    def gated_mlp(self) -> bool:
        """True for gated MLPs (three matrices: gate, up, down)."""
        return self.mlp_matrices == 3

    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts block."""
        return self.experts > 1

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

    def linear_group(self, group: str) -> int:
        """Weights of one group of the block's linears (see :data:`LINEAR_GROUPS`).

        ``attn``: the attention projections; ``mlp``: a dense block's MLP; ``shared``: the
        shared expert; ``experts``: all routed experts of an MoE block.
        """
        if group == "attn":
            return self.attention_weights
        if group == "mlp":
            return 0 if self.is_moe else self.expert_weights
        if group == "shared":
            return self.shared_weights
        if group == "experts":
            return self.experts * self.expert_weights if self.is_moe else 0
        raise ValueError(f"linear group must be one of {', '.join(LINEAR_GROUPS)}; got {group!r}")


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
        block: the most common kind of block (``None`` for opaque models); every block when
            all are alike. Attention widths (heads, q, k) are the same in every kind.
        output_matmul_params: ``V x h``: the output projection as a matmul (tied or not),
            when the model has a token output (0 for opaque models).
        kv_elements_per_token: key and value elements an inference cache keeps per token
            and sequence over all layers, as if every layer attended globally (``2 L k`` for
            grouped-query decoders, 0 for encoders); windowed layers keep at most their
            window (see :meth:`kv_elements_at`).
        adafactor_state_elements: elements of Adafactor's factored second moment (see
            :func:`gpuadvisor.core.memory.adafactor_state_elements`).
        dropout: trains with dropout (classic LayerNorm/GELU models: GPT-2, BERT).
        flops_per_sample: forward FLOPs per sample (opaque models; 0 otherwise).
        activation_bytes_per_sample: published training activations per sample at 16-bit
            (opaque models; 0 = unknown).
        blocks: each kind of block with its number of layers (counts sum to ``n_layers``).
        shipped_quant: the quantization the checkpoint ships in (a :data:`~.plan.QUANT`
            name; "" = 16-bit weights).
        shipped_quant_bytes: bytes per quantized weight of that quantization, scales
            included (0 = the generic figure of :data:`~.memory.QUANT_BYTES`).
        shipped_quant_groups: which :data:`LINEAR_GROUPS` the shipped quantization covers.
        weights_file_bytes: the weights' exact bytes as a file stores them (GGUF; 0 =
            unknown), held by inference plans that name no quantization.
        windowed: some layers attend over a window (sliding or chunked attention).
        has_moe: some layers are mixtures of experts.
        max_positions: the context the model was trained for (0: unknown).
        ollama_quant: the GGUF type of the default Ollama tag ("" = none).
        gguf_fused_qkv: a GGUF of the model stores each layer's query, key and value
            projections as one ``attn_qkv`` tensor (Phi-3/Phi-4, GPT-2, GPT-NeoX, BLOOM,
            MPT, Falcon: the checkpoints hold them fused), which llama.cpp's file types
            quantize by a rule of its own.
        reply_header_tokens: tokens a reply opens with before its first text, which a
            streaming client is not shown (gpt-oss's harmony channel header: 3).
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
    blocks: tuple[tuple[BlockShape, int], ...] = ()
    shipped_quant: str = ""
    shipped_quant_bytes: float = 0.0
    shipped_quant_groups: tuple[str, ...] = LINEAR_GROUPS
    weights_file_bytes: int = 0
    windowed: bool = False
    has_moe: bool = False
    max_positions: int = 0
    ollama_quant: str = ""
    gguf_fused_qkv: bool = False
    reply_header_tokens: int = 0

    @property
    def is_opaque(self) -> bool:
        """True for models described by parameter count and FLOPs only."""
        return self.kind == "opaque"

    def kv_elements_at(self, tokens):
        """Cached key/value elements per sequence holding ``tokens`` tokens, all layers.

        ``sum over block kinds of count x kv_elements_per_token x min(tokens, window)``
        (global layers keep every token). ``tokens`` may be an array. Decoders only (0 for
        encoders and opaque models).
        """
        if self.kind != "decoder":
            return 0.0 * np.asarray(tokens)
        total = 0.0
        for block, count in self.blocks:
            kept = tokens if not block.window else np.minimum(tokens, block.window)
            total = total + float(count * block.kv_elements_per_token) * kept
        return total

    def linear_in_groups(self, groups: tuple[str, ...]) -> int:
        """Block linear weights over all layers that belong to ``groups``."""
        return sum(count * sum(block.linear_group(g) for g in groups)
                   for block, count in self.blocks)

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
        if len(self.blocks) == 1:
            return rank * self.block.lora_width(targets) * self.n_layers
        return rank * sum(block.lora_width(targets) * count for block, count in self.blocks)


__all__ = ["LINEAR_GROUPS", "LORA_TARGET_SETS", "BlockShape", "ModelShape", "ParamCounts"]
