"""Memory per GPU: Plan + ModelSpec -> a breakdown in bytes.

The breakdown has seven terms — weights, gradients, optimizer states (fp32 master weights
included), activations, logits/loss buffers, KV cache and overhead — plus the host (CPU) RAM
that offloading needs. Every constant comes from :class:`~.assumptions.Assumptions` or from a
formula documented where it is computed.

All functions are closed forms over the plan's numbers. ``micro_batch``, ``seq_len`` and
``n_gpus`` may be NumPy arrays (they broadcast), so one call evaluates a whole fit map or a
sweep over GPU counts; the categorical choices (task, precision, ...) are plain values.

``model`` is a :class:`~.model.ModelSpec` or its :class:`~.architecture.ModelShape`: each
function reads the shape (:func:`~.model.model_shape`, derived once per spec) and hands it on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import frameworks
from .architecture import BlockShape, ModelShape, ParamCounts
from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions, nccl_memory
from .kvcache import kv_cache_bytes
from .model import ModelLike, model_shape
from .plan import Plan
from .quant import QUANT_BYTES, quantized_weights, weight_quant

TERMS = ("weights", "gradients", "optimizer", "activations", "logits", "kv_cache", "overhead")


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes per GPU by term (floats, or arrays when the plan's numbers were arrays).

    Attributes:
        weights: model parameters resident on the GPU (16-bit copies, quantized base
            weights and LoRA adapters included).
        gradients: gradients of the trainable parameters.
        optimizer: optimizer states, fp32 master weights included.
        activations: tensors saved for the backward pass (training) or the live working set
            of one layer (inference).
        logits: logits and loss buffers of the output layer.
        kv_cache: attention key/value cache (inference).
        overhead: CUDA context, NCCL buffers, allocator reserve and framework buffers.
        cpu_bytes: host RAM needed for offloaded optimizer states/parameters and for
            checkpoints a framework offloads (Unsloth).
        context_bytes: the part of ``overhead`` that exists before any tensor (CUDA context
            + NCCL); ``total - context_bytes`` is what ``max_memory_reserved`` would show.
    """

    weights: float
    gradients: float
    optimizer: float
    activations: float
    logits: float
    kv_cache: float
    overhead: float
    cpu_bytes: float = 0.0
    context_bytes: float = 0.0

    @property
    def total(self) -> float:
        """Bytes per GPU: the sum of the seven terms."""
        return (self.weights + self.gradients + self.optimizer + self.activations
                + self.logits + self.kv_cache + self.overhead)

    @property
    def model_states(self) -> float:
        """Weights + gradients + optimizer states (what the ZeRO paper counts)."""
        return self.weights + self.gradients + self.optimizer

    def as_dict(self) -> dict[str, float]:
        """The seven terms by name, as plain floats (scalar breakdowns only)."""
        return {name: float(getattr(self, name)) for name in TERMS}


def param_counts(model: ModelLike) -> ParamCounts:
    """Parameter counts of ``model`` (its shape's :attr:`~.architecture.ModelShape.params`)."""
    return model_shape(model).params


def trainable_params(model: ModelLike, plan: Plan) -> int:
    """Parameters that receive gradients: all for full training, adapters for (Q)LoRA."""
    if plan.task == "infer":
        return 0
    m = model_shape(model)
    if plan.is_adapter:
        return m.lora_params(plan.effective_lora_rank, plan.lora_targets)
    return m.params.total


def mixed_style(plan: Plan, assumptions: Assumptions) -> str:
    """Resolve ``auto`` mixed precision: torch.amp without ZeRO, master weights with ZeRO."""
    if assumptions.mixed_style != "auto":
        return assumptions.mixed_style
    return "master" if plan.zero_stage >= 1 else "amp"


def activation_dtype_bytes(plan: Plan) -> float:
    """Bytes per saved activation element: 4 in fp32, 2 otherwise (fp8 keeps the residual
    stream, norms and attention in bf16; its linear layers' saved inputs are 1-byte, see
    :func:`_block_elements`)."""
    return 4.0 if plan.precision == "fp32" else 2.0


def _shard(n_gpus, stage_needed: int, plan: Plan):
    """Divisor for a model state sharded from ZeRO stage ``stage_needed`` on."""
    return n_gpus if plan.zero_stage >= stage_needed else 1


# --------------------------------------------------------------------------- model states
def weight_bytes(model: ModelLike, plan: Plan, assumptions: Assumptions, n_gpus=1):
    """Bytes of parameters resident on one GPU.

    * fp32: 4 bytes/param. pure bf16: 2. fp8: 2 (bf16 weights) + 1 (fp8 copy of block
      linears, Transformer Engine).
    * fp16/bf16 mixed, ``amp`` style: 4 (fp32 params) + 2 (autocast's 16-bit copy of every
      block linear and the LM head, alive through the backward pass) = 6 bytes/param;
      ``master`` style: 2 bytes/param (the fp32 master copy is counted with the optimizer).
    * (Q)LoRA / inference with a quantized base (:func:`weight_quant`: inference uses the
      checkpoint's own quantization unless the plan names one): the quantized block
      linears (:func:`quantized_weights`) at their bytes per weight, everything else
      (embeddings, norms, routers, LM head, modules the checkpoint left unquantized —
      bitsandbytes, GPTQ and MXFP4 leave these 16-bit) at 2 bytes (4 in fp32); LoRA
      adapters in fp32 (PEFT keeps them in fp32 for stability; torchtune in bf16:
      :func:`~.frameworks.adapter_param_bytes`).
    * Inference from a file whose tensor bytes are known (a GGUF: ``weights_file_bytes``)
      holds exactly those bytes, unless the plan names a quantization.
    * A vision tower (multimodal models) is loaded too: 2 bytes per parameter (4 in fp32),
      frozen, never quantized.
    * ZeRO-3 shards the parameters over the GPUs; parameter offload moves them to the CPU.
    """
    m = model_shape(model)
    counts = m.params
    total = counts.total
    vision = counts.vision * (4.0 if plan.precision == "fp32" else 2.0)
    if plan.task == "infer" and plan.quant is None and m.weights_file_bytes:
        return float(m.weights_file_bytes) + vision  # split over GPUs by memory_breakdown
    if plan.task in ("infer", "lora", "qlora"):
        base16 = 4.0 if plan.precision == "fp32" else (1.0 if plan.precision == "fp8" and
                                                       plan.task == "infer" else 2.0)
        quant = weight_quant(m, plan)
        if quant != "none":
            quantized, per_weight = quantized_weights(m, quant)
            base = quantized * per_weight + (total - quantized) * max(base16, 2.0)
        else:
            base = total * base16
        if vision:
            base = base + vision
        base = base + frameworks.kbit_upcast_weight_bytes(m, plan)  # PEFT's fp32 upcast
        adapters = (frameworks.adapter_param_bytes(plan) * trainable_params(m, plan)
                    if plan.is_adapter else 0.0)
        if plan.task == "infer":
            return base  # split over GPUs by memory_breakdown (tensor parallelism)
        if plan.offload == "params":
            return 0.0 * n_gpus
        # ZeRO-3 / FSDP shard frozen base weights too (how QLoRA + FSDP fits 70B on 2 GPUs).
        return (base + adapters) / _shard(n_gpus, 3, plan)
    if plan.precision == "fp32":
        per_param = 4.0
    elif plan.precision == "bf16-pure":
        per_param = 2.0
    elif plan.precision == "fp8":
        per_param = 2.0 + counts.linear_in_blocks / total
    elif mixed_style(plan, assumptions) == "amp":
        per_param = 4.0 + 2.0 * (counts.linear_in_blocks + m.head_matmul_params(plan.task)) / total
    else:
        per_param = 2.0
    resident = total * per_param / _shard(n_gpus, 3, plan)
    if vision:
        resident = resident + vision / _shard(n_gpus, 3, plan)
    if plan.offload == "params":
        resident = resident * 0.0
    return resident


def gradient_bytes(model: ModelLike, plan: Plan, assumptions: Assumptions, n_gpus=1):
    """Bytes of gradients on one GPU, for trainable parameters only.

    fp32 gradients (4 bytes) in fp32 training, for ``amp`` mixed precision (gradients take
    the fp32 parameters' dtype) and for LoRA adapters (their own dtype:
    :func:`~.frameworks.adapter_param_bytes`); 2 bytes with ``master`` mixed precision, fp8
    and pure bf16. ZeRO-2 and -3 shard gradients over the GPUs.
    """
    n = trainable_params(model, plan)
    if n == 0:
        return 0.0 * n_gpus
    if plan.is_adapter:
        per_param = frameworks.adapter_param_bytes(plan)
    elif plan.precision == "fp32":
        per_param = 4.0
    elif plan.precision in ("bf16-pure", "fp8"):
        per_param = 2.0
    else:
        per_param = 4.0 if mixed_style(plan, assumptions) == "amp" else 2.0
    return n * per_param / _shard(n_gpus, 2, plan)


def adafactor_state_elements(model: ModelLike) -> float:
    """Adafactor's factored second moment: rows + cols per matrix, full size per vector.

    Matrices: every block linear (``lora_params(1, 'all')`` is exactly the sum of
    ``d_in + d_out`` over them), the embedding and an untied LM head (``V + h`` each).
    Vectors (norms, biases) keep a full second moment. No first moment (HF's default
    ``beta1=None``). Opaque models: ~50 square-ish matrices (small either way). Derived
    once per model, with its shape.
    """
    return model_shape(model).adafactor_state_elements


def optimizer_bytes(model: ModelLike, plan: Plan, assumptions: Assumptions, n_gpus=1):
    """Bytes of optimizer state on one GPU (fp32 master weights included).

    States per trainable parameter (fp32 unless noted): AdamW two moments = 8 bytes; 8-bit
    AdamW (bitsandbytes) two 8-bit moments = 2 bytes; SGD momentum = 4; Lion one momentum = 4;
    Adafactor factored (see :func:`adafactor_state_elements`). Pure bf16 keeps 32-bit-state
    optimizers' states in bf16 (half), as do bf16 adapters
    (:func:`~.frameworks.adapter_state_scale`). ``master`` mixed precision and fp8 add the
    fp32 master copy: 4 bytes/param (ZeRO paper: K = 12 for Adam = 4 master + 4 + 4).
    ZeRO-1..3 shard the states; optimizer offload moves them to the CPU.
    """
    m = model_shape(model)
    n = trainable_params(m, plan)
    if n == 0:
        return 0.0 * n_gpus
    state_scale = 0.5 if (plan.precision == "bf16-pure" and not plan.is_adapter) else 1.0
    if plan.is_adapter:
        state_scale = frameworks.adapter_state_scale(plan)
    if plan.optimizer == "adamw":
        states = 8.0 * n * state_scale
    elif plan.optimizer == "adamw8bit":
        states = 2.0 * n
    elif plan.optimizer in ("sgd", "lion"):
        states = 4.0 * n * state_scale
    else:  # adafactor
        elements = n if plan.is_adapter else m.adafactor_state_elements
        states = 4.0 * min(float(n), elements) * state_scale
    master = 0.0
    if not plan.is_adapter and (
        plan.precision == "fp8"
        or (plan.precision in ("fp16", "bf16") and mixed_style(plan, assumptions) == "master")
    ):
        master = 4.0 * n
    on_gpu = (states + master) / _shard(n_gpus, 1, plan)
    if plan.offload != "none":
        on_gpu = on_gpu * 0.0
    return on_gpu


def cpu_offload_bytes(model: ModelLike, plan: Plan, assumptions: Assumptions):
    """Host RAM for offloaded states: optimizer (+ master) and, with params offload, weights.

    DeepSpeed keeps offloaded optimizer states, fp32 master weights and a gradient copy on
    the CPU: 4 (master) + optimizer states + 4 (fp32 gradients) bytes per trainable param,
    plus, with parameter offload, the parameters as the GPU would hold them
    (:func:`weight_bytes` unsharded: 16-bit for a full fine-tune, the quantized base of a
    QLoRA). Not sharded: one node holds the shards of all its GPUs.
    """
    if plan.offload == "none" or plan.task == "infer":
        return 0.0
    m = model_shape(model)
    single = plan.with_changes(offload="none", zero_stage=0)
    states = optimizer_bytes(m, single, assumptions.with_overrides({"mixed_style": "master"}))
    n = trainable_params(m, plan)
    extra = 4.0 * n
    if plan.offload == "params":
        extra += weight_bytes(m, plan.with_changes(offload="none"), assumptions, 1)
    return float(states + extra)


# --------------------------------------------------------------------------- activations
def _block_elements(blk: BlockShape | ModelLike, plan: Plan, b, s, attention: str,
                    masks: bool, fused_mlp: bool = False):
    """Saved elements of one transformer block for the backward pass, plus fixed-size bytes.

    ``blk`` is one kind of block, or a model (its most common kind).

    Returns ``(elements, extra_bytes)``: elements are multiplied by the activation dtype's size;
    extra bytes are 1-byte dropout masks and the fp32 log-sum-exp of flash kernels.

    Derivation (b = micro-batch, s = sequence, h = d_model, a = heads, q = a x head_dim,
    k = kv_heads x head_dim, f = d_ff; counts are elements of 2- or 4-byte activations,
    "masks" are 1-byte dropout masks):

    Attention
      * norm input, kept by the norm for its backward ......................  s b h
      * q/k/v projection input (the norm's output) ..........................  s b h
      * eager kernel: Q and K for Q K^T (K expanded to all heads) ...........  2 s b q
        eager kernel: V for probs @ V (expanded) ............................  s b q
        eager kernel: softmax output ........................................  a s^2 b
        eager kernel with dropout: dropout output (+ a s^2 b mask bytes) ....  a s^2 b
        flash kernel: Q, K, V un-expanded ......................  s b (q + 2k)
        flash kernel: fp32 log-sum-exp per head and token ......  4 a s b bytes
      * output projection input ..............................................  s b q
      * dropout on the attention output: mask bytes ..........................  s b h
    MLP
      * norm input, MLP input ...............................................  2 s b h
      * GELU MLP: up output (GELU input), GELU output (down input) ..........  2 s b f
        gated MLP: gate out, up out, act(gate), product (down input) ........  4 s b f
      * dropout on the MLP output: mask bytes ................................  s b h

    For a GPT block (q = k = h, f = 4h, dropout, eager) at 2 bytes per element this is
    ``2 (6 + 10) sbh + 2 sbh (masks) + (2 + 2 + 1) a s^2 b = sbh (34 + 5 a s / h)``, the
    formula of Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
    Transformer Models", eq. 1); with FlashAttention the ``5as/h`` term goes.

    ``attention`` says which attention tensors stay: ``scores`` (eager, no recompute),
    ``flash``, or ``recompute`` (eager with selective recomputation: Q, K, V are kept and the
    scores are rebuilt in the backward pass). MoE blocks route each token to k experts, so the
    per-expert MLP tensors count k times; a shared expert adds the MLP tensors of its own
    width for every token.

    With LoRA/QLoRA, a frozen linear layer saves nothing for its own backward (only its
    weight is needed for the input gradient), so a matmul input is kept only when an adapter
    is attached there; each adapter adds its ``s b r`` intermediate.

    ``fused_mlp``: a fused SwiGLU saves only its input (gate and up outputs) and rebuilds
    ``act(gate)`` in its backward pass, ``2 s b f`` instead of ``3 s b f`` (Megatron-Core
    ``megatron/core/fusions/fused_bias_swiglu.py``, ``SwiGLUFunction`` saves ``input``).

    Under fp8 (Transformer Engine) the inputs the linear layers save for their weight
    gradients (q/k/v, output projection, MLP input and down projection) are their 1-byte
    fp8 casts, returned in the extra bytes; FlashAttention still keeps its 16-bit output.
    """
    if not isinstance(blk, BlockShape):
        blk = model_shape(blk).block
    h, q, k, f, a = blk.d_model, blk.q_dim, blk.kv_dim, blk.d_ff, blk.n_heads
    adapter = plan.is_adapter
    targets = plan.lora_targets
    keep_out_in = (not adapter) or targets in ("attn", "all")
    keep_mlp_in = (not adapter) or targets == "all"

    sb = b * s
    routed = sb * blk.experts_per_token  # MoE: each token passes through k experts
    elems = sb * h  # attention norm input
    extra = 0.0 * sb
    # Inputs saved by the block's linear layers for their weight gradients (q/k/v, output
    # projection, MLP in and down): 16-bit, or 1 byte under fp8 (below).
    lin = sb * h  # q/k/v input: every LoRA target set adapts a projection of it
    if attention == "scores":
        elems = elems + sb * 3 * q + a * s * s * b * (2 if masks else 1)
    elif attention == "recompute":
        elems = elems + sb * 3 * q
    else:
        elems = elems + sb * (q + 2 * k)
        extra = extra + 4.0 * a * sb
    lin = lin + (sb * q if keep_out_in else 0)
    elems = elems + sb * h
    lin = lin + (routed * h if keep_mlp_in else 0)
    gated = 2 if fused_mlp else 3
    elems = elems + routed * f * (gated if blk.gated_mlp else 1)
    lin = lin + (routed * f if keep_mlp_in else 0)
    shared = blk.shared_d_ff
    if shared:
        elems = elems + sb * shared * (gated if blk.gated_mlp else 1)
        lin = lin + ((sb * h + sb * shared) if keep_mlp_in else 0)
    if plan.precision == "fp8" and not adapter:
        # Transformer Engine's fp8 linears save their input as the fp8 cast they multiplied
        # (columnwise data, 1 byte; the row-wise copy is discarded), not the 16-bit tensor:
        # transformer_engine/pytorch/module/linear.py at NVIDIA/TransformerEngine@d0067d0d
        # (``inputmat.update_usage(rowwise_usage=False, columnwise_usage=True)``, saved when
        # ``backward_needs_input = weight.requires_grad``). The attention output stays
        # 16-bit as FlashAttention's own saved output beside the projection's fp8 copy.
        extra = extra + 1.0 * lin
        if attention == "flash" and keep_out_in:
            elems = elems + sb * q
    else:
        elems = elems + lin
    if adapter:
        per_token = {"qv": 2, "attn": 4,
                     "all": 4 + blk.mlp_matrices * (blk.experts_per_token
                                                    + (1 if shared else 0))}[targets]
        elems = elems + sb * plan.effective_lora_rank * per_token
    if masks:
        extra = extra + 2 * sb * h + (a * s * s * b if attention == "scores" else 0)
    return elems, extra


def _score_bytes(m: ModelShape, b, s, e: float, masks: bool):
    """One layer's eager attention scores: softmax output (+ dropout output and mask)."""
    per = e * (2 if masks else 1) + (1 if masks else 0)
    return m.block.n_heads * s * s * b * per


def uses_dropout(model: ModelLike) -> bool:
    """Classic LayerNorm/GELU models (GPT-2, BERT) train with dropout; LLaMA-style do not."""
    return model_shape(model).dropout


def activation_bytes(model: ModelLike, plan: Plan, assumptions: Assumptions, b=None, s=None,
                     *, fused_mlp: bool = False):
    """Activation memory of one micro-batch on one GPU (``fused_mlp``: a fused SwiGLU, see
    :func:`_block_elements`).

    Training, no checkpointing: ``L x`` the block's saved tensors (:func:`_block_elements`)
    plus the embedding output and the final norm's input (``2 s b h``). Selective
    recomputation drops the attention-score terms of every layer but the one being
    back-propagated (Korthikanti's ``34 sbh`` per layer); with FlashAttention there are no
    scores to drop, so selective changes nothing. Full
    recomputation keeps each block's input (``s b h`` per layer; Korthikanti's ``2sbh`` at
    2 bytes) and, during the backward pass, one block's full set being recomputed; with
    ``recompute_layers`` N only the first N blocks are recomputed and the others keep their
    whole set (Megatron-LM's ``--recompute-method block``).

    Inference: only a working set is alive — one block's tensors for the prompt (a bound).
    Opaque models use their published per-sample activations scaled by micro-batch.
    """
    b = plan.micro_batch if b is None else b
    s = plan.seq_len if s is None else s
    e = activation_dtype_bytes(plan)
    m = model_shape(model)
    if m.kind == "opaque":
        if plan.recompute_layers is not None:
            raise ValueError(f"recompute_layers: {m.id} is given by its size, without layers "
                             "to recompute")
        per_sample = m.activation_bytes_per_sample * (e / 2.0)
        keep = assumptions.opaque_checkpoint_keep if plan.checkpointing == "full" else 1.0
        if plan.task == "infer":
            keep = 0.1
        return per_sample * b * keep + 0 * s
    masks = plan.is_training and m.dropout
    eager = plan.attention == "eager"
    kind = "flash"
    if eager:
        kind = "scores" if plan.checkpointing == "none" else "recompute"
    if plan.task == "infer":
        live, live_extra = _largest_block(m, plan, b, s, "scores" if eager else "flash", False)
        return live * e + live_extra
    outside = 2 * b * s * m.d_model * e
    if plan.checkpointing == "full":
        full_block, full_extra = _largest_block(
            m, plan, b, s, "scores" if eager else "flash", masks, fused_mlp)
        recomputed = plan.recomputed_layers(m.n_layers)
        kept = recomputed * b * s * m.d_model * e + full_block * e + full_extra + outside
        if recomputed == m.n_layers:
            return kept
        # Partial recomputation (Megatron's block method): the first layers are recomputed,
        # the rest keep every saved tensor, as without checkpointing.
        left = recomputed
        for blk, count in m.blocks:
            skip = min(left, count)
            left -= skip
            if count - skip:
                block, block_extra = _block_elements(blk, plan, b, s,
                                                     "scores" if eager else "flash", masks,
                                                     fused_mlp)
                kept = kept + (count - skip) * (block * e + block_extra)
        return kept
    total = None
    for blk, count in m.blocks:
        block, block_extra = _block_elements(blk, plan, b, s, kind, masks, fused_mlp)
        term = count * (block * e + block_extra)
        total = term if total is None else total + term
    total = total + outside
    if kind == "recompute":
        # The layer being back-propagated rebuilds its scores: one layer's worth is live.
        total = total + _score_bytes(m, b, s, e, masks)
    return total


def _largest_block(m: ModelShape, plan: Plan, b, s, attention: str, masks: bool,
                   fused_mlp: bool = False):
    """Elements and extra bytes of the block kind with the most saved elements (one block's
    working set: inference, or the block recomputed under full checkpointing)."""
    best = None
    for blk, _ in m.blocks:
        found = _block_elements(blk, plan, b, s, attention, masks, fused_mlp)
        if best is None:
            best = found
        else:
            bigger = np.asarray(found[0]) > np.asarray(best[0])
            best = (np.where(bigger, found[0], best[0]), np.where(bigger, found[1], best[1]))
    return best


def logits_bytes(model: ModelLike, plan: Plan, b=None, s=None):
    """Output-layer buffers: logits and the loss's fp32 copies.

    Decoders (and encoders pre-trained with masked-LM) compute logits for every position:
    ``b s V`` elements kept as 16-bit logits, an fp32 upcast for the loss, and the fp32
    log-softmax saved for the backward pass: ``b s V (2 + 4 + 4)`` bytes (``(4 + 4)`` in
    fp32). Encoders fine-tuned for classification have a negligible head. Inference keeps
    the last position's logits only (``b V`` in fp32).
    """
    b = plan.micro_batch if b is None else b
    s = plan.seq_len if s is None else s
    m = model_shape(model)
    if m.kind == "opaque" or (m.kind == "encoder" and plan.task != "pretrain"):
        return 0.0 * b * s
    if plan.task == "infer":
        return b * m.vocab_size * 4.0 + 0 * s
    per_element = 8.0 if plan.precision == "fp32" else 10.0
    return b * s * m.vocab_size * per_element


def overhead_bytes(model: ModelLike, plan: Plan, assumptions: Assumptions, tensors, n_gpus=1):
    """CUDA context, NCCL buffers, allocator reserve, DDP buckets and ZeRO-3 gathers.

    * CUDA context: ``cuda_context_bytes``; NCCL: :func:`~.assumptions.nccl_memory` when
      more than one GPU.
    * allocator reserve: ``allocator_reserve_fraction`` x tensor memory.
    * PyTorch DDP (no ZeRO, several GPUs) keeps gradients in separate communication
      buckets by default (``gradient_as_bucket_view=False``): one more gradient copy.
    * ZeRO-3 gathers full 16-bit parameters of the running block and prefetches the next:
      ``2 x 2 bytes x`` one block's parameters.
    """
    m = model_shape(model)
    multi = np.asarray(n_gpus) > 1
    context = assumptions.cuda_context_bytes + nccl_memory(assumptions, n_gpus)
    reserve = assumptions.allocator_reserve_fraction * tensors
    extra = 0.0
    if plan.is_training and plan.zero_stage == 0:
        grads = gradient_bytes(m, plan, assumptions, 1)
        extra = np.where(multi, grads, 0.0)
    if plan.zero_stage == 3 and plan.is_training and m.kind != "opaque":
        per_block = m.params.linear_in_blocks / m.n_layers
        width = QUANT_BYTES.get(plan.effective_quant, 4.0 if plan.precision == "fp32" else 2.0)
        extra = extra + np.where(multi, 2 * width * per_block, 0.0)
    return context + reserve + extra, context


def memory_breakdown(
    model: ModelLike,
    plan: Plan,
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS,
    *,
    micro_batch=None,
    seq_len=None,
    n_gpus=None,
) -> MemoryBreakdown:
    """Memory per GPU for ``plan`` on ``model``, term by term.

    Args:
        model: the architecture (a spec or its shape).
        plan: the plan (its micro_batch, seq_len and n_gpus unless overridden).
        assumptions: overridable constants.
        micro_batch: override, scalar or array (broadcasts with the others).
        seq_len: override, scalar or array.
        n_gpus: override, scalar or array.

    Returns:
        A :class:`MemoryBreakdown`; terms are floats for scalar inputs, arrays otherwise.
    """
    b = plan.micro_batch if micro_batch is None else micro_batch
    s = plan.seq_len if seq_len is None else seq_len
    n = plan.n_gpus if n_gpus is None else n_gpus
    m = model_shape(model)
    plan = frameworks.costed_plan(plan)  # torchtune: 16-bit plans in pure bf16
    weights = weight_bytes(m, plan, assumptions, n)
    grads = gradient_bytes(m, plan, assumptions, n)
    opt = optimizer_bytes(m, plan, assumptions, n)
    acts = activation_bytes(m, plan, assumptions, b, s)
    logits = logits_bytes(m, plan, b, s)
    kv = kv_cache_bytes(m, plan, b, s)
    host = 0.0
    buffers = 0.0
    if plan.is_training and m.kind != "opaque":
        # The framework's terms (loss buffers, offloaded checkpoints, fused kernels, the
        # backward working set, the dequantization buffer): see .frameworks.
        e = activation_dtype_bytes(plan)
        acts, host = frameworks.training_activations(m, plan, b, s, e, acts)
        logits = frameworks.loss_bytes(m, plan, b, s, logits)
        buffers = frameworks.dequant_buffer_bytes(m, plan)
    if plan.task == "infer":
        # Several GPUs serving one model split weights and KV cache (tensor parallelism).
        weights = weights / np.asarray(n, dtype=float)
        kv = kv / np.asarray(n, dtype=float)
    tensors = weights + grads + opt + acts + logits + kv + buffers
    overhead, context = overhead_bytes(m, plan, assumptions, tensors, n)
    overhead = overhead + buffers
    host = host + cpu_offload_bytes(m, plan, assumptions)
    scalar = all(np.ndim(x) == 0 for x in (b, s, n))
    values = [weights, grads, opt, acts, logits, kv, overhead, context, host]
    if scalar:
        values = [float(v) for v in values]
    weights, grads, opt, acts, logits, kv, overhead, context, host = values
    return MemoryBreakdown(
        weights=weights,
        gradients=grads,
        optimizer=opt,
        activations=acts,
        logits=logits,
        kv_cache=kv,
        overhead=overhead,
        cpu_bytes=host,
        context_bytes=context,
    )
