"""Time of one optimizer step of a transformer under a parallel layout, term by term.

For one pipeline stage and one micro-batch of ``b`` sequences of ``s`` tokens, each GPU
works on ``t = b s / cp`` tokens (context parallel splits the sequence) and
``L / pp`` blocks. The step is built from parts, each computed from the work it does:

* **compute**: every linear layer's forward, input-gradient and weight-gradient GEMMs
  (:mod:`.gemm`: roofline + tile quantization on the shapes the layout produces: ``N`` or
  ``K`` divided by ``tp``, MoE experts seeing ``t k ep / E`` tokens each, LoRA's thin rank),
  plus the attention kernel (``4 t s q / tp`` FLOPs forward, halved for causal FlashAttention,
  twice that backward) at the fraction of peak FlashAttention reaches.
* **memory-bound work**: norms, residual adds, activation functions, rotary embeddings,
  dropout, the loss's softmax over the vocabulary, QLoRA's dequantization and the
  optimizer's update, each as bytes read + written over the achieved memory bandwidth.
* **tp_comm**: Megatron tensor parallelism issues, per block and micro-batch, two all-reduces
  forward and two backward over ``b s h / cp`` activations (with sequence parallelism, an
  all-gather + reduce-scatter pair in place of each: the same volume; Korthikanti et al.
  2022, §4.2.2). Not overlapped.
* **cp_comm**: ring attention passes K and V around ``cp`` ranks (``cp - 1`` hops forward,
  twice backward), overlapped with the attention kernel; only the excess shows.
* **ep_comm**: MoE dispatch and combine all-to-alls (two forward, two backward per MoE
  block) of ``t k h`` elements over the ``ep`` group. Not overlapped.
* **pp_bubble**: ``(p - 1) / (m v)`` of the pipeline's useful time
  (:func:`.layout.bubble_fraction`); **pp_comm**: activations and their gradients sent
  between stages, ``2 m v`` transfers per step of ``b s h / (cp tp)`` elements (the
  scatter/gather optimization with SP).
* **dp_comm**: gradient/parameter traffic of the data-parallel group, by ZeRO stage (see
  :func:`dp_comm_seconds`), minus what overlaps with the backward pass.

Step = ``(m + (p-1)/v) x micro-stage time + pp_comm + dp_comm + optimizer``. Every function
accepts NumPy arrays for the layout's degrees so a layout search is one vectorised call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuadvisor.core.frameworks import loss_bytes_per_vocab, loss_recomputes_logits

from . import collectives as coll
from .gemm import gemm_seconds, training_gemm_seconds
from .layout import expert_tp

#: PyTorch DDP's default gradient bucket: 25 MiB (``bucket_cap_mb=25``, torch.nn.parallel.
#: DistributedDataParallel docs). The last bucket's all-reduce cannot overlap the backward.
DDP_BUCKET_BYTES = 25 * 2**20


@dataclass(frozen=True)
class GpuRates:
    """Achievable rates of one GPU for the step model.

    Attributes:
        peak_flops: datasheet dense matrix peak for the plan's dtype, FLOP/s.
        matmul_fraction: fraction of the peak large GEMMs reach (measured or published).
        attention_fraction: fraction of the peak the fused attention kernel reaches.
        bandwidth_b_s: achieved memory bandwidth, bytes/s (datasheet x achieved fraction).
        kernel_launch_s: host-side cost of one kernel launch in eager mode; a block's
            kernels cannot finish faster than their launches.
        comm_sm_share: share of the GPU's SMs NCCL's kernels hold while a collective runs;
            compute that overlaps communication runs on the rest (NCCL takes whole SMs and
            never shares them: 16 on a DGX-class node, nvidia/nccl#689; insitu.json INT*).
        head_fraction: fraction of ``peak_flops`` the output layer's GEMMs reach when they
            run in another precision than the blocks (fp8 blocks, 16-bit head); ``None``:
            ``matmul_fraction``.
    """

    peak_flops: float
    matmul_fraction: float
    attention_fraction: float
    bandwidth_b_s: float
    kernel_launch_s: float = 0.0
    comm_sm_share: float = 0.0
    head_fraction: float | None = None


@dataclass(frozen=True)
class GroupLinks:
    """Bus bandwidth (GB/s) and per-hop latency (s) of each communication group of a layout.

    Arrays broadcast with the layout arrays. ``pp`` is the point-to-point link between
    neighbouring stages.
    """

    tp_busbw: object
    tp_latency: object
    cp_busbw: object
    cp_latency: object
    ep_busbw: object
    ep_latency: object
    dp_busbw: object
    dp_latency: object
    pp_busbw: object
    pp_latency: object
    cross_busbw: object = None  # hybrid sharding: the replica (across-node) group
    cross_latency: object = 0.0


@dataclass(frozen=True)
class StepParts:
    """Seconds per optimizer step, by part (arrays when the layout is an array).

    ``compute`` and ``memory_bound`` are summed over all micro-batches of the step;
    ``pp_bubble`` is the pipeline's idle time; the ``*_comm`` parts are what stays exposed
    after overlap. ``step`` is their sum. ``flops_per_gpu`` is the model FLOPs one GPU does
    per step (6N-style, no recomputation) and ``hardware_flops_per_gpu`` includes
    recomputation (blocks, and the head's logits under Cut Cross-Entropy); MFU and HFU divide
    them by ``step x peak``.
    """

    compute: object
    memory_bound: object
    tp_comm: object
    cp_comm: object
    ep_comm: object
    pp_bubble: object
    pp_comm: object
    dp_comm: object
    optimizer: object
    step: object
    flops_per_gpu: object
    hardware_flops_per_gpu: object

    def as_dict(self) -> dict:
        """Parts as plain floats (``breakdown_seconds_per_step`` in the JSON)."""
        keys = ("compute", "memory_bound", "tp_comm", "cp_comm", "ep_comm", "pp_bubble",
                "pp_comm", "dp_comm", "optimizer")
        return {key: float(np.asarray(getattr(self, key))) for key in keys}


@dataclass(frozen=True)
class StepShape:
    """The numbers of a transformer the step model needs (from a ModelSpec).

    Attributes:
        n_layers, d_model, q_dim, kv_dim, d_ff, vocab: sizes (``d_ff`` per expert).
        mlp_mats: matrices in one MLP (3 gated, 2 plain).
        n_experts, top_k: routed experts per MoE block and experts per token (1, 1 dense).
        causal: a decoder (FlashAttention skips the masked half).
        rope: rotary position embeddings applied to q and k.
        dropout: trains with dropout (GPT-2/BERT style).
        head: an LM head over the vocabulary runs per token (decoders, MLM pre-training).
        block_params: parameters of one block outside the experts (attention, norms, router).
        expert_params: parameters of one block's routed experts (all of them).
        outside_params: embeddings and LM head (what sits outside the blocks).
        trainable_params: parameters that receive gradients (all, or the LoRA adapters).
        adapter_rank: LoRA rank (0 without adapters); adapter_mats: adapted matrices per block.
        frozen_bytes_per_param: bytes per frozen base weight read by dequantization (QLoRA
            4-bit: ~0.5; 0 when the base is not quantized).
        rmsnorm: the blocks normalise with RMSNorm (else LayerNorm).
        loss: how the loss over the vocabulary runs, a key of
            :data:`~gpuadvisor.core.frameworks.LOSS_BYTES_PER_VOCAB` (the plan's framework's
            own; a PyTorch loss runs ``fused`` under fused kernels, :func:`~gpuadvisor.core.
            frameworks.step_loss`).
    """

    n_layers: int
    d_model: int
    q_dim: int
    kv_dim: int
    d_ff: int
    vocab: int
    mlp_mats: int
    n_experts: int
    top_k: int
    causal: bool
    rope: bool
    dropout: bool
    head: bool
    block_params: float
    expert_params: float
    outside_params: float
    trainable_params: float
    adapter_rank: int = 0
    adapter_mats: int = 0
    frozen_bytes_per_param: float = 0.0
    rmsnorm: bool = True
    loss: str = "upcast"


def _block_linears(shape: StepShape, tokens, tp, ep, trainable: bool, rates: GpuRates, e,
                   etp=None):
    """Forward and backward seconds of one block's linear layers for ``tokens`` tokens.

    Experts split over ``etp`` tensor-parallel ranks (default ``tp``); with ``etp`` 1 each
    expert is whole and its rank sees the tokens of its own sequence-parallel share
    (``tokens / tp`` of the tensor-parallel group's), gathered over its ``ep`` group."""
    etp = tp if etp is None else etp
    h, q, k, f = shape.d_model, shape.q_dim, shape.kv_dim, shape.d_ff
    gpu = {"peak_flops": rates.peak_flops, "matmul_fraction": rates.matmul_fraction,
           "bandwidth_b_s": rates.bandwidth_b_s, "element_bytes": e}
    fwd = 0.0
    bwd = 0.0
    for n, kk in (((q + 2 * k) / tp, h), (h, q / tp)):  # q/k/v projection, output projection
        a, b = training_gemm_seconds(tokens, n, kk, trainable=trainable, **gpu)
        fwd, bwd = fwd + a, bwd + b
    up = (shape.mlp_mats - 1) * f / tp  # gate and up fused (gated), or the single up matrix
    if shape.n_experts > 1:
        experts_here = shape.n_experts / ep
        # tokens per local expert (the expert group's tokens, k of E experts each)
        routed = tokens * etp / tp * shape.top_k * ep / shape.n_experts
        up_e = (shape.mlp_mats - 1) * f / etp
        a1, b1 = training_gemm_seconds(routed, up_e, h, trainable=trainable, **gpu)
        a2, b2 = training_gemm_seconds(routed, h, f / etp, trainable=trainable, **gpu)
        fwd = fwd + experts_here * (a1 + a2)
        bwd = bwd + experts_here * (b1 + b2)
    else:
        a1, b1 = training_gemm_seconds(tokens, up, h, trainable=trainable, **gpu)
        a2, b2 = training_gemm_seconds(tokens, h, f / tp, trainable=trainable, **gpu)
        fwd, bwd = fwd + a1 + a2, bwd + b1 + b2
    if shape.adapter_rank:  # each adapted matrix: [t, d] @ [d, r] then [t, r] @ [r, d']
        r = shape.adapter_rank
        a1, b1 = training_gemm_seconds(tokens, r, h, **gpu)
        a2, b2 = training_gemm_seconds(tokens, h / tp, r, **gpu)
        fwd = fwd + shape.adapter_mats * (a1 + a2)
        bwd = bwd + shape.adapter_mats * (b1 + b2)
    return fwd, bwd


def _attention_seconds(shape: StepShape, tokens, seq, tp, rates: GpuRates, flash: bool, e):
    """Forward and backward seconds of one block's attention products (QK^T, PV, softmax).

    Flash: ``4 t s q / tp`` FLOPs forward (x 1/2 causal), twice that backward, at the
    kernel's achieved fraction of peak. Eager: the two batched GEMMs per head through the
    roofline, plus the softmax reading and writing the ``s x s`` scores.
    """
    flops = 4.0 * tokens * seq * shape.q_dim / tp
    if flash:
        if shape.causal:
            flops = flops / 2.0
        t = flops / (rates.peak_flops * rates.attention_fraction)
        return t, 2.0 * t
    heads = shape.q_dim / tp / 128.0  # a head of 128: the GEMM count only scales the total
    per_head_dim = shape.q_dim / tp / np.maximum(heads, 1.0)
    gpu = {"peak_flops": rates.peak_flops, "matmul_fraction": rates.matmul_fraction,
           "bandwidth_b_s": rates.bandwidth_b_s, "element_bytes": e}
    batches = tokens / seq * heads
    fwd = 2.0 * gemm_seconds(seq, seq, per_head_dim, count=batches, **gpu)
    softmax = batches * seq * seq * 2.0 * e / rates.bandwidth_b_s
    return fwd + softmax, 2.0 * fwd + 2.0 * softmax


def elementwise_bytes_per_token(shape: StepShape, tp, sequence_parallel, e, kernels="fused"):
    """Bytes one block's memory-bound kernels move per token in the forward pass.

    Fused kernels (Megatron/Transformer Engine, llm.c, ``torch.compile``), ``e`` bytes per
    element:

    * two norms, each reading and writing ``h``: ``4 h e``;
    * two residual adds, each reading ``2 h`` and writing ``h``: ``6 h e``;
    * activation: gated reads gate and up (``2 f``) and writes ``f``: ``3 f e``; plain reads
      and writes ``f``: ``2 f e`` (per routed expert: x top-k);
    * rotary embeddings read and write q and k: ``2 (q + k) e``;
    * dropout (three sites): read and write ``h`` plus a 1-byte mask: ``3 (2 h e + h)``.

    Eager PyTorch under autocast (Hugging Face modules, plain ``nn.Module`` code) runs each
    operation as its own kernel, counted here op by op from the modules' code, in bytes:

    * RMSNorm (Llama-style, e.g. transformers' ``LlamaRMSNorm``): upcast to fp32 (read 2h,
      write 4h), square (4h, 4h), mean (4h), scale (4h, 4h), cast back (4h, 2h), times the
      weight (2h, 2h): ``36 h`` per norm. LayerNorm is one native kernel, but autocast runs
      it in fp32: cast in (2h, 4h), norm (4h, 4h), cast out for the next matmul (4h, 2h):
      ``20 h``;
    * rotary embeddings: ``q cos``, ``rotate_half`` (negate half, concatenate), ``sin``
      product and the sum, each reading and writing q (and k): ``20 (q + k)``;
    * gated activation ``act(gate) * up``: (2f, 2f) then (4f, 2f): ``10 f``; plain
      activation one kernel: ``4 f``;
    * the attention output's transpose to contiguous memory: ``4 q``;
    * residual adds and dropout as above.

    Tensor parallelism splits the feature-wise kernels (activation, rotary) by ``tp``; with
    sequence parallelism the token-wise ones (norms, residual adds, dropout) too, otherwise
    every TP rank repeats them (Korthikanti et al. 2022, §4.2.2).
    """
    h, q, k, f = shape.d_model, shape.q_dim, shape.kv_dim, shape.d_ff
    residual = 6.0 * h * e
    dropout = 3.0 * (2.0 * h * e + h) if shape.dropout else 0.0
    if kernels == "eager":
        norms = 2.0 * (36.0 * h if shape.rmsnorm else 20.0 * h)
        tokenwise = norms + residual + dropout
        act = (10.0 if shape.mlp_mats == 3 else 4.0) * f * shape.top_k
        featurewise = act + (20.0 * (q + k) if shape.rope else 0.0) + 4.0 * q
    else:
        tokenwise = 4.0 * h * e + residual + dropout
        act = (3.0 if shape.mlp_mats == 3 else 2.0) * f * e * shape.top_k
        featurewise = act + (2.0 * (q + k) * e if shape.rope else 0.0)
    tp = np.asarray(tp, dtype=float)
    split = np.where(np.asarray(sequence_parallel) & (tp > 1), tp, 1.0)
    return tokenwise / split + featurewise / tp


def loss_bytes_per_token(shape: StepShape, tp, kernels: str = "eager"):
    """Bytes the loss over the vocabulary moves per token (forward + backward): the bytes
    per vocabulary entry of the way it runs (:func:`~gpuadvisor.core.frameworks.
    loss_bytes_per_vocab`: 40 for the eager upcast, 52 Megatron's, 6 fused, 0 for Cut
    Cross-Entropy) times ``V``, split over ``tp`` ranks (vocabulary-parallel head).
    """
    if not shape.head:
        return 0.0
    return (loss_bytes_per_vocab(shape.loss, kernels) * shape.vocab
            / np.asarray(tp, dtype=float))


def fp8_cast_bytes_per_token(shape: StepShape, tp):
    """Bytes per token one block's fp8 casts move (forward + backward), Transformer Engine's
    recipe: every linear's 16-bit input is cast to fp8 with its transpose (for the weight
    gradient) in one fused kernel, reading 2 and writing 1 + 1 bytes per element; in the
    backward the output gradient likewise. The weights' casts happen once per optimizer
    step (cached across micro-batches) and are left out. Linears: q/k/v (in ``h``, out
    ``q + 2 kv``), output (``q``, ``h``), up/gate (``h``, ``(mats - 1) f``), down (``f``,
    ``h``); the feature-wise dimensions split over ``tp``, the ``h`` ones too with sequence
    parallelism (the inputs are gathered after the cast).
    """
    h, q, k, f = shape.d_model, shape.q_dim, shape.kv_dim, shape.d_ff
    up = (shape.mlp_mats - 1) * f
    inputs = h + q + h + f * shape.top_k
    outputs = (q + 2 * k) + h + (up + h) * shape.top_k
    return 4.0 * (inputs + outputs) / np.asarray(tp, dtype=float)


def blocks_per_stage(n_layers: int, pp):
    """Blocks on the busiest pipeline stage: ``ceil(L / p)`` (stages may be uneven)."""
    return np.ceil(n_layers / np.asarray(pp, dtype=float))


def local_params(shape: StepShape, tp, pp, ep, etp=None):
    """Parameters held by the busiest GPU before ZeRO sharding.

    ``L/pp`` blocks, each with its attention/norm part split over ``tp`` and its experts over
    ``etp x ep`` (``etp``: default ``tp``); the embedding and LM head split over ``tp``
    (vocabulary-parallel) and, with a pipeline, only the larger of the two on one stage
    (first or last).
    """
    tp = np.asarray(tp, dtype=float)
    pp = np.asarray(pp, dtype=float)
    etp = tp if etp is None else np.asarray(etp, dtype=float)
    blocks = blocks_per_stage(shape.n_layers, pp) * (shape.block_params / tp
                                    + shape.expert_params / (etp * np.asarray(ep, dtype=float)))
    outside = np.where(pp > 1, shape.outside_params / 2.0, shape.outside_params) / tp
    return blocks + outside


def dp_comm_seconds(*, zero, grad_bytes, param16_bytes, dp, shard, grad_accum, backward_s,
                    forward_s, links: GroupLinks, hybrid, layers_per_stage):
    """Exposed and overlapped data-parallel communication per optimizer step (seconds).

    Returns ``(exposed, overlapped)``: the traffic left on the critical path, and the part
    that runs while the GPU computes (which slows that compute: see :func:`step_parts`).

    ``grad_bytes`` / ``param16_bytes`` are this GPU's model-parallel share before sharding;
    ``backward_s`` / ``forward_s`` one micro-batch's compute on this GPU, which the traffic
    can hide behind.

    * DDP, ZeRO-1: one all-reduce of the gradients per optimizer step (no sync during
      accumulation), bucketed and overlapped with the last micro-batch's backward; the last
      bucket (25 MiB) always shows: ``max(AR(G) - backward, AR(bucket))``.
    * ZeRO-2: a reduce-scatter of the gradients each micro-batch, overlapped with its
      backward, and an all-gather of the updated 16-bit parameters after the step (exposed).
    * ZeRO-3/FSDP: each micro-batch all-gathers the 16-bit parameters in the forward and
      again in the backward and reduce-scatters gradients, prefetched one block ahead:
      ``max(0, AG - forward) + max(0, AG + RS - backward) + AG(one block)``.
    * Hybrid sharding runs these over the ``shard`` ranks in a node and adds, per step, an
      all-reduce of each rank's ``1/shard`` gradient share across the ``dp / shard`` replicas.
    """
    zero = np.asarray(zero)
    bw, lat = links.dp_busbw, links.dp_latency
    n = np.asarray(shard, dtype=float)
    ar = coll.all_reduce_s(grad_bytes, n, bw, lat)
    bucket = coll.all_reduce_s(np.minimum(grad_bytes, DDP_BUCKET_BYTES), n, bw, lat)
    ddp = np.maximum(ar - backward_s, bucket)
    rs = coll.reduce_scatter_s(grad_bytes, n, bw, lat)
    ag = coll.all_gather_s(param16_bytes, n, bw, lat)
    zero2 = grad_accum * np.maximum(0.0, rs - backward_s) + ag
    one_block = coll.all_gather_s(param16_bytes / np.maximum(layers_per_stage, 1.0), n, bw, lat)
    zero3 = grad_accum * (np.maximum(0.0, ag - forward_s)
                          + np.maximum(0.0, ag + rs - backward_s) + one_block)
    exposed = np.where(zero >= 3, zero3, np.where(zero == 2, zero2, ddp))
    exposed = np.where(n > 1, exposed, 0.0)
    hidden = np.where(
        zero >= 3, grad_accum * (np.minimum(ag, forward_s) + np.minimum(ag + rs, backward_s)),
        np.where(zero == 2, grad_accum * np.minimum(rs, backward_s), np.minimum(ar, backward_s)))
    hidden = np.where(n > 1, hidden, 0.0)
    replicas = np.asarray(dp, dtype=float) / n
    cross_bw = links.cross_busbw if links.cross_busbw is not None else bw
    cross = coll.all_reduce_s(grad_bytes / n, replicas, cross_bw, links.cross_latency)
    cross_on = np.asarray(hybrid) & (zero >= 1) & (replicas > 1)
    cross_exposed = np.where(cross_on, np.maximum(cross - backward_s, 0.0), 0.0)
    cross_hidden = np.where(cross_on, np.minimum(cross, backward_s), 0.0)
    return exposed + cross_exposed, hidden + cross_hidden


#: Kernels one block launches per micro-batch in eager PyTorch: about 12 forward (two norms,
#: q/k/v, rotary, attention, output projection, two residual adds, up, activation, down,
#: dropout/bias) and twice that backward. Counted from the block's operations above; fused
#: kernels lower it, which only matters when the block's work is shorter than its launches.
KERNELS_PER_BLOCK = 36


def step_parts(shape: StepShape, *, seq, micro_batch, grad_accum, tp, pp, vpp, cp, ep, dp,
               zero, shard, hybrid, sequence_parallel, rates: GpuRates, links: GroupLinks,
               activation_bytes=2.0, matmul_bytes=2.0, flash=True, recompute="none",
               recompute_share=1.0, optimizer_bytes_per_param=16.0, grad_bytes_per_param=2.0,
               param_bytes_per_param=2.0, kernels="fused") -> StepParts:
    """Seconds per optimizer step of the busiest GPU, by part (see the module docstring).

    Args:
        shape: the model's numbers (:class:`StepShape`).
        seq, micro_batch, grad_accum: sequence length, sequences per micro-batch, micro-
            batches per step (per data-parallel replica).
        tp, pp, vpp, cp, ep, dp, zero, shard, hybrid, sequence_parallel: the layout
            (arrays broadcast); ``shard`` is the ZeRO group size (``dp``, or the ranks in a
            node with hybrid sharding).
        rates, links: the GPU's achievable rates and each group's bus bandwidth.
        activation_bytes: bytes per activation element (2 in 16-bit, 4 in fp32).
        matmul_bytes: bytes per GEMM input element (1 with fp8 inputs).
        flash: fused attention kernel (else eager).
        recompute: ``none``, ``selective`` (attention recomputed) or ``full`` (the block's
            forward runs again in the backward).
        recompute_share: with ``full``, the share of the blocks recomputed (partial
            recomputation, ``Plan.recompute_layers``; 1 = all).
        optimizer_bytes_per_param: bytes the optimizer update reads and writes per trainable
            parameter (AdamW with fp32 master weights: read and write master, m, v = 24,
            read the gradient, write the 16-bit copy; see :func:`optimizer_traffic_bytes`).
        grad_bytes_per_param, param_bytes_per_param: widths on the wire for gradients and
            gathered parameters.
        kernels: ``fused`` or ``eager`` elementwise kernels
            (:func:`elementwise_bytes_per_token`).

    Communication that overlaps compute still costs: NCCL holds ``rates.comm_sm_share`` of
    the SMs meanwhile, so the overlapped compute takes that share longer; it is charged to
    the communication that caused it (``dp_comm``, ``cp_comm``).
    """
    e = activation_bytes
    tp_ = np.asarray(tp, dtype=float)
    pp_ = np.asarray(pp, dtype=float)
    cp_ = np.asarray(cp, dtype=float)
    ep_ = np.asarray(ep, dtype=float)
    mb = np.asarray(micro_batch, dtype=float)
    m = np.asarray(grad_accum, dtype=float)
    tokens = mb * seq / cp_
    trainable = shape.adapter_rank == 0
    etp_ = expert_tp(tp_, dp, cp_, ep_).astype(float)

    lin_f, lin_b = _block_linears(shape, tokens, tp_, ep_, trainable, rates, matmul_bytes,
                                  etp_)
    att_f, att_b = _attention_seconds(shape, tokens, seq, tp_, rates, flash, e)
    # The share of a block's forward run again: the recomputed blocks' share under full
    # checkpointing (every term below that grows with recomputation scales with it).
    again = recompute_share if recompute == "full" else 0.0
    recompute_f = att_f if recompute == "selective" else again * (lin_f + att_f)
    block_compute = lin_f + lin_b + att_f + att_b + recompute_f

    elem = elementwise_bytes_per_token(shape, tp_, sequence_parallel, e, kernels) * tokens
    block_memory = (elem * (3.0 + again)) / rates.bandwidth_b_s
    if matmul_bytes == 1.0:  # fp8 linears: Transformer Engine's cast-transpose kernels
        casts = fp8_cast_bytes_per_token(shape, tp_) * tokens
        block_memory = block_memory + casts * (1.0 + 0.5 * again) / rates.bandwidth_b_s
    if shape.frozen_bytes_per_param:
        # QLoRA: each use of a frozen weight dequantizes it: read the packed weight, write the
        # 16-bit copy the GEMM then reads (forward, input gradient, and a recomputed forward).
        uses = 2.0 + again
        per_block = (shape.block_params / tp_ + shape.expert_params / (etp_ * ep_))
        block_memory = block_memory + uses * per_block * (
            shape.frozen_bytes_per_param + 2.0) / rates.bandwidth_b_s

    # Tensor parallel: 2 collectives forward + 2 backward of the block's activations
    # (an all-reduce, or with SP an all-gather + reduce-scatter: the same volume).
    act_bytes = tokens * shape.d_model * e
    tp_one = coll.all_reduce_s(act_bytes, tp_, links.tp_busbw, links.tp_latency)
    tp_block = (4.0 + 2.0 * again) * tp_one
    # Context parallel: K and V of the local chunk travel cp-1 hops forward, twice backward,
    # hidden behind the attention kernel.
    kv_bytes = tokens * 2.0 * shape.kv_dim / tp_ * e
    cp_hops = (cp_ - 1.0) * coll.send_recv_s(kv_bytes, links.cp_busbw, links.cp_latency)
    cp_block = np.maximum(0.0, cp_hops - att_f) + np.maximum(0.0, 2.0 * cp_hops - att_b)
    cp_hidden = np.minimum(cp_hops, att_f) + np.minimum(2.0 * cp_hops, att_b)
    cp_block = cp_block + rates.comm_sm_share * cp_hidden
    # Expert parallel: dispatch + combine, forward and backward.
    if shape.n_experts > 1:
        a2a_bytes = tokens * etp_ / tp_ * shape.top_k * shape.d_model * e
        ep_block = 4.0 * coll.all_to_all_s(a2a_bytes, ep_, links.ep_busbw, links.ep_latency)
    else:
        ep_block = 0.0 * tokens

    blocks_here = blocks_per_stage(shape.n_layers, pp_)
    launch = KERNELS_PER_BLOCK * rates.kernel_launch_s
    per_block = np.maximum(block_compute + block_memory, launch)
    head_f = head_b = 0.0
    loss = 0.0
    if shape.head:
        head_fraction = rates.head_fraction or rates.matmul_fraction
        gpu = {"peak_flops": rates.peak_flops, "matmul_fraction": head_fraction,
               "bandwidth_b_s": rates.bandwidth_b_s,
               "element_bytes": e if rates.head_fraction else matmul_bytes}
        head_f, head_b = training_gemm_seconds(tokens, shape.vocab / tp_, shape.d_model,
                                               trainable=trainable, **gpu)
        if loss_recomputes_logits(shape.loss):
            head_b = head_b + head_f  # Cut Cross-Entropy rebuilds the logits backward
        loss = loss_bytes_per_token(shape, tp_, kernels) * tokens / rates.bandwidth_b_s
    micro_compute = blocks_here * (block_compute) + head_f + head_b
    micro_memory = blocks_here * (per_block - block_compute) + loss
    micro_comm = blocks_here * (tp_block + cp_block + ep_block)
    micro = micro_compute + micro_memory + micro_comm

    bubble_slots = np.where(pp_ > 1, (pp_ - 1.0) / np.asarray(vpp, dtype=float), 0.0)
    pp_bubble = bubble_slots * micro
    p2p_bytes = tokens * shape.d_model * e / np.where(np.asarray(sequence_parallel), tp_, 1.0)
    pp_comm = np.where(pp_ > 1, 2.0 * m * np.asarray(vpp, dtype=float)
                       * coll.send_recv_s(p2p_bytes, links.pp_busbw, links.pp_latency), 0.0)

    params_here = local_params(shape, tp_, pp_, ep_, etp_)
    trainable_here = (params_here if trainable
                      else shape.trainable_params / (tp_ * pp_))
    forward_s = blocks_here * (lin_f + att_f) + head_f
    backward_s = blocks_here * (lin_b + att_b) + head_b
    dp_comm, dp_hidden = dp_comm_seconds(
        zero=zero, grad_bytes=trainable_here * grad_bytes_per_param,
        param16_bytes=params_here * param_bytes_per_param if trainable
        else 0.0 * params_here,
        dp=dp, shard=shard, grad_accum=m, backward_s=backward_s, forward_s=forward_s,
        links=links, hybrid=hybrid, layers_per_stage=blocks_here)
    dp_comm = dp_comm + rates.comm_sm_share * dp_hidden
    sharded = np.where(np.asarray(zero) >= 1, np.asarray(shard, dtype=float), 1.0)
    optimizer = trainable_here / sharded * optimizer_bytes_per_param / rates.bandwidth_b_s

    # Model FLOPs per GPU per step: 2 x forward GEMM work (x3 with weight gradients).
    flops_token = _model_flops_per_token(shape, seq, flash, trainable)
    flops_gpu = flops_token * tokens * m / (tp_ * pp_)
    hw_extra = again / 3.0
    # Cut Cross-Entropy's second forward GEMM of the head (2 h V a token) is hardware work
    head_again = (2.0 * shape.d_model * shape.vocab * tokens * m / (tp_ * pp_)
                  if shape.head and loss_recomputes_logits(shape.loss) else 0.0)
    step = m * micro + pp_bubble + pp_comm + dp_comm + optimizer
    return StepParts(
        compute=m * micro_compute, memory_bound=m * micro_memory,
        tp_comm=m * blocks_here * tp_block, cp_comm=m * blocks_here * cp_block,
        ep_comm=m * blocks_here * ep_block, pp_bubble=pp_bubble, pp_comm=pp_comm,
        dp_comm=dp_comm, optimizer=optimizer, step=step, flops_per_gpu=flops_gpu,
        hardware_flops_per_gpu=flops_gpu * (1.0 + hw_extra) + head_again)


def _model_flops_per_token(shape: StepShape, seq, flash: bool, trainable: bool) -> float:
    """Model FLOPs per token for one training step: ``(6 or 4) x active matmul params +
    3 x attention`` (the 6N convention of Kaplan et al. 2020 / PaLM's MFU)."""
    h, q, k, f = shape.d_model, shape.q_dim, shape.kv_dim, shape.d_ff
    attn_lin = h * (q + 2 * k) + q * h
    mlp = shape.mlp_mats * h * f * shape.top_k
    matmul = shape.n_layers * (attn_lin + mlp) + (shape.vocab * h if shape.head else 0)
    attention = 4.0 * shape.n_layers * seq * q * (0.5 if (flash and shape.causal) else 1.0)
    factor = 6.0 if trainable else 4.0
    return factor * matmul + 3.0 * attention


def optimizer_traffic_bytes(optimizer: str, master_fp32: bool, grad_bytes: float) -> float:
    """Bytes the optimizer update reads and writes per trainable parameter.

    AdamW: read + write the fp32 weight (8), m (8) and v (8), read the gradient; with
    mixed precision also write the 16-bit working copy (2). 8-bit AdamW keeps m and v in 1
    byte each (4 instead of 16). SGD with momentum: weight and momentum (16). Lion: one
    moment (16). Adafactor: weight plus factored second moments (~8 + a little).
    """
    weight = 8.0 if master_fp32 else 4.0
    states = {"adamw": 16.0, "adamw8bit": 4.0, "sgd": 8.0, "lion": 8.0, "adafactor": 2.0}
    return weight + states.get(optimizer, 16.0) + grad_bytes + (2.0 if master_fp32 else 0.0)
