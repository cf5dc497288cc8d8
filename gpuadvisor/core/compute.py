"""Compute and time of training: FLOPs per token, achieved throughput, multi-GPU scaling
(inference's prefill and decode: :mod:`.inference_time`).

Conventions: one multiply-add = 2 FLOPs; "per token" means per token of the training data
(or of the prompt, for inference prefill). Throughput figures are per GPU unless named
``..._job``. Functions accept NumPy arrays for the GPU figures (peak, bandwidth,
interconnect) and for ``n_gpus`` so a whole catalog sweep is one call. ``model`` is a
:class:`~.model.ModelSpec` or its :class:`~.architecture.ModelShape` (derived once per spec by
:func:`~.model.model_shape` and handed on).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import framework_speed
from .architecture import ModelShape
from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from .datasets import DATASETS, DEFAULT_FINETUNE_DATASET, Job, job_of
from .memory import mixed_style, trainable_params, weight_bytes
from .model import ModelLike, model_shape
from .plan import Plan

#: Fine-tuning data set when the plan gives none: 52,002 instruction samples (the size of
#: the Stanford Alpaca data set, github.com/tatsu-lab/stanford_alpaca), one epoch.
DEFAULT_FINETUNE_SAMPLES = 52_002
#: Pre-training tokens per parameter when the plan gives none: 20 (compute-optimal,
#: Hoffmann et al. 2022, "Training Compute-Optimal Large Language Models").
CHINCHILLA_TOKENS_PER_PARAM = 20.0


@dataclass(frozen=True)
class FlopsPerToken:
    """FLOPs per token of the plan, split into parts.

    Attributes:
        forward: one forward pass (matmuls + attention).
        matmul_forward: the weight-matmul part of ``forward`` (2 x active matmul params).
        attention_forward: the attention score/value part of ``forward``.
        train: per training token: forward, backward and recomputation (0 for inference).
    """

    forward: float
    matmul_forward: float
    attention_forward: float
    train: float


def matmul_params(model: ModelLike, plan: Plan) -> float:
    """Parameters multiplied per token: active block linears plus the output projection.

    Embedding lookups cost no FLOPs; the LM head (tied or not) is a ``V x h`` matmul for
    decoders and masked-LM pre-training; classification heads are negligible.
    """
    m = model_shape(model)
    counts = m.params
    if m.kind == "opaque":
        return float(counts.total)
    return float(counts.linear_in_blocks_active + m.head_matmul_params(plan.task))


def attention_flops_per_token(model: ModelLike, plan: Plan, s=None):
    """Forward FLOPs per token of the attention products ``QK^T`` and ``P V``.

    Each is ``s x q`` multiply-adds per token per layer (q = heads x head_dim), so
    ``4 L s q`` FLOPs for the full square (the PaLM/Chinchilla convention); with a value
    head of its own size (latent attention) ``2 L s (q + v)``. Causal decoders with
    FlashAttention skip the masked half (x 0.5); eager kernels compute it all. A layer with
    a window of w tokens attends to ``min(position, w)`` keys: on average ``s/2`` while
    ``s <= w`` and ``w - w^2 / 2s`` beyond (FlashAttention skips the rest; eager kernels
    still compute the masked square).
    """
    s = plan.seq_len if s is None else s
    m = model_shape(model)
    causal_skip = 0.5 if (m.kind == "decoder" and plan.attention == "flash") else 1.0
    return _attention_flops(m, s, causal_skip)


def _window_span(s, window: int, causal_skip: float, decode: bool):
    """Keys a query of a windowed layer attends to on average (None: the full square)."""
    if decode:
        return np.minimum(s, window) if np.ndim(s) else min(s, window)
    if causal_skip >= 1.0:
        return None
    if np.ndim(s):
        s = np.asarray(s, dtype=float)
        return np.where(s <= window, s * causal_skip, window - window * window / (2.0 * s))
    return s * causal_skip if s <= window else window - window * window / (2.0 * s)


def _attention_flops(m: ModelShape, s, causal_skip: float, decode: bool = False):
    """Attention FLOPs per token over every block kind (0 for opaque models).

    ``4 count s q x causal_skip`` for global layers (``2 count s (q + v)`` when the value
    head differs); windowed layers use :func:`_window_span` keys per query.
    """
    if m.kind == "opaque":
        return 0.0 * s
    total = None
    for blk, count in m.blocks:
        span = _window_span(s, blk.window, causal_skip, decode) if blk.window else None
        v = blk.v_dim or blk.q_dim
        if span is not None:
            term = 2.0 * count * span * (blk.q_dim + v)
        elif v == blk.q_dim:
            term = 4.0 * count * s * blk.q_dim * causal_skip
        else:
            term = 2.0 * count * s * (blk.q_dim + v) * causal_skip
        total = term if total is None else total + term
    return total


def flops_per_token(model: ModelLike, plan: Plan, s=None) -> FlopsPerToken:
    """FLOPs per token for the plan.

    * forward = ``2 x matmul params + attention``.
    * full training: backward = 2 x forward (input and weight gradients), so 3 x forward.
    * LoRA/QLoRA: frozen weights need no weight gradient: ``4 x matmul + 3 x attention``
      plus ``6 x`` the adapter parameters.
    * full recomputation adds a forward (of the recomputed layers' share, with
      ``recompute_layers``); selective recomputation adds the attention part.
    * opaque models: forward = the published FLOPs per sample / tokens per sample (1).
    """
    m = model_shape(model)
    if m.kind == "opaque":
        fwd = float(m.flops_per_sample)
        train = 0.0
        if plan.is_training:
            train = (2.0 if plan.is_adapter else 3.0) * fwd
            if plan.checkpointing == "full":
                train += fwd
        return FlopsPerToken(fwd, fwd, 0.0, train)
    mm = 2.0 * matmul_params(m, plan)
    attn = attention_flops_per_token(m, plan, s)
    fwd = mm + attn
    if not plan.is_training:
        return FlopsPerToken(fwd, mm, attn, 0.0 * fwd)
    if plan.is_adapter:
        adapters = 2.0 * trainable_params(m, plan)
        train = 2.0 * mm + 3.0 * attn + 3.0 * adapters
        recompute_mm = mm + adapters
    else:
        train = 3.0 * fwd
        recompute_mm = mm
    if plan.checkpointing == "full":
        share = plan.recomputed_layers(m.n_layers) / max(m.n_layers, 1)
        train = train + share * (recompute_mm + attn)
    elif plan.checkpointing == "selective":
        train = train + attn
    return FlopsPerToken(fwd, mm, attn, train)


def training_job(model: ModelLike, plan: Plan) -> Job:
    """The tokens the plan's job processes and the sequence its steps are timed at
    (:mod:`.datasets`):

    - ``dataset_tokens``: as given, in sequences of ``seq_len``;
    - ``dataset_samples`` without a data set: each sample counted at ``seq_len`` tokens
      (the samples' lengths are unknown: the most they can hold);
    - a data set (``dataset``, or Alpaca for a fine-tune that names none): its samples
      (or ``dataset_samples`` of them) at their measured lengths, padded per micro-batch
      or packed (``packing``);
    - a pre-training plan with none: 20 tokens per parameter (Chinchilla);
    - opaque models count samples, not tokens.
    """
    m = model_shape(model)
    seq = float(plan.seq_len)
    if plan.dataset_tokens is not None:
        return Job(float(plan.dataset_tokens), seq, "plan",
                   f"{plan.dataset_tokens:,.0f} tokens (given)")
    if m.kind == "opaque":
        samples = DEFAULT_FINETUNE_SAMPLES if plan.dataset_samples is None \
            else plan.dataset_samples
        return Job(samples * plan.epochs, seq, "plan" if plan.dataset_samples else "assumed",
                   f"{samples:,.0f} samples x {plan.epochs:g} epoch(s)")
    if plan.dataset is None and plan.dataset_samples is not None:
        return Job(plan.dataset_samples * plan.epochs * seq, seq, "plan",
                   f"{plan.dataset_samples:,.0f} samples x {plan.epochs:g} epoch(s), each "
                   f"counted at --seq {plan.seq_len:,} tokens (name a --dataset, or give "
                   "--tokens, for the samples' real lengths)",
                   samples=float(plan.dataset_samples), per_sample=seq)
    if plan.dataset is None and plan.task == "pretrain":
        tokens = CHINCHILLA_TOKENS_PER_PARAM * m.params.total
        return Job(tokens, seq, "assumed", f"{tokens / 1e9:.3g}B tokens: 20 per parameter "
                   "(compute-optimal, Hoffmann et al. 2022)")
    dataset = DATASETS[plan.dataset or DEFAULT_FINETUNE_DATASET]
    return job_of(dataset, vocab_size=m.vocab_size, family=m.id, seq_len=plan.seq_len,
                  micro_batch=plan.micro_batch, epochs=plan.epochs, packing=plan.packing,
                  samples=plan.dataset_samples, origin="plan" if plan.dataset else "assumed")


def dataset_tokens(model: ModelLike, plan: Plan) -> tuple[float, str]:
    """Training tokens (samples for opaque models) and where the figure came from."""
    job = training_job(model, plan)
    return job.tokens, job.origin


def time_plan(model: ModelLike, plan: Plan) -> Plan:
    """The plan as its steps are timed: a data set padded per micro-batch runs sequences of
    its padded length, not ``seq_len`` (memory is still sized at ``seq_len``, where the
    batch of the longest samples peaks). The job's tokens become ``dataset_tokens``."""
    if not plan.is_training:
        return plan
    job = training_job(model, plan)
    seq = max(1, round(job.seq))
    if seq == plan.seq_len and plan.dataset is None and not plan.packing:
        return plan
    # Whole sequences of the rounded length, as many as the job has (the tokens move by
    # under half a token per sample).
    return plan.with_changes(seq_len=seq, dataset_tokens=job.tokens * seq / job.seq,
                             dataset_samples=None, dataset=None, packing=False, epochs=1.0)


def peak_dtype(plan: Plan) -> str:
    """Which of the GPU's peak rates the plan's matmuls run at."""
    return {"fp32": "fp32", "fp16": "fp16", "bf16": "bf16", "bf16-pure": "bf16",
            "fp8": "fp8"}[plan.precision]


def default_efficiency(plan: Plan, assumptions: Assumptions) -> float:
    """Fraction of peak the plan achieves when it gives none (see Assumptions)."""
    if plan.efficiency is not None:
        return plan.efficiency
    if plan.task == "infer":
        return assumptions.efficiency_infer_prefill
    if plan.precision == "fp8":
        return assumptions.efficiency_fp8
    return assumptions.efficiency_train


def comm_bytes_per_step(model: ModelLike, plan: Plan, assumptions: Assumptions, n_gpus):
    """Bytes each GPU sends per optimizer step for data-parallel training.

    Ring collectives move ``(N-1)/N`` of the buffer per GPU per reduce-scatter or
    all-gather (an all-reduce is one of each):

    * DDP and ZeRO-1: one gradient all-reduce per optimizer step (``no_sync`` during
      accumulation): ``2 (N-1)/N x gradient bytes``.
    * ZeRO-2: gradients reduce-scattered every micro-step, parameters all-gathered once
      per step: ``(N-1)/N x (grad_accum x grad bytes + param bytes)``.
    * ZeRO-3 / FSDP: per micro-step an all-gather in the forward and one in the backward
      plus a reduce-scatter of gradients: ``3 (N-1)/N x grad_accum x`` 16-bit parameters.
    * LoRA/QLoRA: an all-reduce of the (fp32) adapter gradients, plus with ZeRO-3 the two
      all-gathers of the frozen (possibly quantized) base per micro-step.

    Gradients travel in 16-bit (fp32 for fp32 training and amp-style mixed precision).
    """
    m = model_shape(model)
    n = np.asarray(n_gpus, dtype=float)
    share = (n - 1.0) / n
    trainable = trainable_params(m, plan)
    grad_width = 4.0 if plan.precision == "fp32" else 2.0
    if plan.is_adapter or (
        plan.precision in ("fp16", "bf16") and mixed_style(plan, assumptions) == "amp"
    ):
        grad_width = 4.0  # LoRA adapters and amp-style parameters are fp32
    grad = trainable * grad_width
    params16 = m.params.total * 2.0
    if plan.is_adapter:
        gathers = 0.0
        if plan.zero_stage == 3:  # frozen base gathered in the forward and the backward
            gathers = 2.0 * share * plan.grad_accum * weight_bytes(m, plan, assumptions, 1)
        return 2.0 * share * grad + gathers
    if plan.zero_stage <= 1:
        return 2.0 * share * grad
    if plan.zero_stage == 2:
        return share * (plan.grad_accum * grad + params16)
    return 3.0 * share * plan.grad_accum * params16


@dataclass(frozen=True)
class DecodeStep:
    """The parts of one inference decode step of ``micro_batch`` sequences, seconds, so a
    step that also carries prompt tokens can be timed from the same terms (serving many
    users: :mod:`.serving_load`).

    Attributes:
        memory_s: the step's reads: the weights it uses, every sequence's KV cache, the
            weights kept in host memory.
        weights_s: of which the weights (on the GPU and in host memory): what a further
            forward pass in the same step reads again.
        compute_s: the step's matmuls and attention at the engine's achieved rate.
        fixed_s: what does not depend on bytes or FLOPs (kernel gaps, DRAM latencies, host
            work, sampling; 0 without an engine).
        prompt_token_s: matmul seconds of one prompt token at the prompt's achieved rate
            (its forward FLOPs at the prompt's length over that rate).
        host_floor_s: host work a pipelined loop does while the GPU runs the step before
            (:attr:`.engines.base.DecodeCost.pipelined_host_s`): a forward pass lasts at
            least this long (0: nothing overlaps).
    """

    memory_s: float
    weights_s: float
    compute_s: float
    fixed_s: float
    prompt_token_s: float
    host_floor_s: float = 0.0

    def seconds(self) -> float:
        """The step alone: ``max(max(memory, compute) + fixed, host floor)``."""
        return self.mixed(0.0)

    def added_to(self, prompt_tokens: float) -> float:
        """What the step's decodes add to a forward pass of ``prompt_tokens`` prompt tokens
        run beside them: ``max(memory, compute + prompt x per token) - max(weights, prompt
        x per token)`` (their KV reads and matmuls; the weights are read either way)."""
        matmuls = prompt_tokens * self.prompt_token_s
        return max(self.memory_s, self.compute_s + matmuls) - max(self.weights_s, matmuls)

    def mixed(self, prompt_tokens: float, passes: float = 1.0) -> float:
        """The step carrying ``prompt_tokens`` prompt tokens besides its decodes, in
        ``passes`` forward passes (each reads the weights again and pays the fixed
        work): ``max(memory + (passes - 1) x weights, compute + prompt x per token) +
        passes x fixed``, no shorter than ``passes x host floor``. A memory-bound decode
        step takes prompt tokens for the price of their matmuls beyond its reads
        (Sarathi-Serve's piggybacked prefill chunks, Agrawal et al., OSDI 2024)."""
        passes = max(float(passes), 1.0)
        return np.maximum(self.on_gpu(prompt_tokens, passes), passes * self.host_floor_s)

    def on_gpu(self, prompt_tokens: float = 0.0, passes: float = 1.0) -> float:
        """The GPU's part of :meth:`mixed` (without the host floor): ``max(memory +
        (passes - 1) x weights, compute + prompt x per token) + passes x fixed`` (arrays
        where the parts are)."""
        passes = max(float(passes), 1.0)
        return (np.maximum(self.memory_s + (passes - 1.0) * self.weights_s,
                           self.compute_s + prompt_tokens * self.prompt_token_s)
                + passes * self.fixed_s)


@dataclass(frozen=True)
class TimeEstimate:
    """How long the plan takes.

    Attributes:
        seconds: wall-clock time of the whole job.
        gpu_hours: seconds x GPUs / 3600.
        tokens_per_s: tokens (samples for opaque models; generated tokens for inference)
            per second for the whole job, all GPUs together.
        tokens_per_s_per_gpu: the same per GPU.
        steps: optimizer steps (inference: batches).
        step_seconds: one optimizer step (inference: one batch, prefill + decode).
        compute_seconds_per_step: the matmul part of a step.
        comm_seconds_per_step: communication left exposed after overlap.
        flops_total: FLOPs of the whole job.
        achieved_tflops_per_gpu: peak x efficiency used.
        efficiency: the efficiency used.
        interconnect_gb_s: per-direction GPU-to-GPU bandwidth used.
        prefill_seconds, decode_tokens_per_s: inference only (0 otherwise).
        decode_step: inference: the parts of one decode step (:class:`DecodeStep`; None
            otherwise).
        bound: what limits speed: "compute", "communication", "memory bandwidth" or (a
            decode step shorter than the host's overlapped round) "host".
    """

    seconds: float
    gpu_hours: float
    tokens_per_s: float
    tokens_per_s_per_gpu: float
    steps: float
    step_seconds: float
    compute_seconds_per_step: float
    comm_seconds_per_step: float
    flops_total: float
    achieved_tflops_per_gpu: float
    efficiency: float
    interconnect_gb_s: float
    prefill_seconds: float = 0.0
    decode_tokens_per_s: float = 0.0
    bound: str = "compute"
    decode_step: DecodeStep | None = None


def interconnect_gb_s(interconnect, n_gpus, assumptions: Assumptions):
    """Per-direction GPU-to-GPU bandwidth: the node's link, or the network across nodes."""
    n = np.asarray(n_gpus)
    return np.where(n > assumptions.gpus_per_node,
                    np.minimum(interconnect, assumptions.inter_node_gb_s), interconnect)


def training_time(
    model: ModelLike,
    plan: Plan,
    *,
    peak_tflops,
    interconnect_gb_s_,
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS,
    n_gpus=None,
    efficiency: float | None = None,
    bandwidth_gb_s=None,
    host_link_gb_s=None,
    host_ram_gb_s=None,
    compute_seconds=None,
) -> TimeEstimate:
    """Time to train on the plan's data set.

    ``compute_seconds``: one GPU's step as the kernel model times it
    (:func:`~.parallel.insitu.plan_kernel_seconds`); it is the step's compute, and the
    efficiency reported is derived from it (``train FLOPs x dequantization factor / (peak x
    seconds)``, so typing that efficiency back gives the same time). Without it, compute is
    the step's FLOPs over ``peak x efficiency``.

    With CPU offload the step also carries :func:`offload_seconds_per_step` (the transfers
    over ``host_link_gb_s`` and the optimizer step on the CPU at ``host_ram_gb_s``).

    ``step = compute + max(0, comm - overlap x compute)`` where compute is the step's FLOPs
    per GPU over ``peak x efficiency`` (x the QLoRA dequantization factor), changed by the
    plan's fine-tuning framework (:func:`~.framework_speed.step_seconds`: fused kernels' saved
    memory passes at ``bandwidth_gb_s``, offloaded checkpoints over ``host_link_gb_s``; with
    no bandwidth given the framework changes nothing), and comm is
    :func:`comm_bytes_per_step` over the interconnect. Steps = tokens / (global batch x
    sequence). Array inputs broadcast.
    """
    n = plan.n_gpus if n_gpus is None else n_gpus
    m = model_shape(model)
    per_token = flops_per_token(m, plan)
    tokens, _ = dataset_tokens(m, plan)
    tokens_per_micro = plan.micro_batch * (1 if m.kind == "opaque" else plan.seq_len)
    step_flops = per_token.train * tokens_per_micro * plan.grad_accum
    dequant = 1.0
    if plan.task == "qlora" or (plan.is_adapter and plan.effective_quant != "none"):
        dequant = assumptions.qlora_dequant_overhead
    peak = np.asarray(peak_tflops, dtype=float) * 1e12
    if compute_seconds is not None:
        compute = np.asarray(compute_seconds, dtype=float)
        eff = step_flops * dequant / (peak * compute)
    else:
        eff = default_efficiency(plan, assumptions) if efficiency is None else efficiency
        compute = step_flops * dequant / (peak * eff)
    achieved = peak * eff
    if m.kind != "opaque":
        compute = framework_speed.step_seconds(m, plan, compute, achieved,
                                          bandwidth_gb_s=bandwidth_gb_s,
                                          host_link_gb_s=host_link_gb_s,
                                          bandwidth_efficiency=assumptions.bandwidth_efficiency)
    if plan.offload != "none":
        compute = compute + offload_seconds_per_step(
            m, plan, assumptions, n, compute,
            host_link_gb_s=framework_speed.DEFAULT_HOST_LINK_GB_S if host_link_gb_s is None
            else host_link_gb_s,
            host_ram_gb_s=CPU_ADAM_HOST_GB_S if host_ram_gb_s is None else host_ram_gb_s)
    link = interconnect_gb_s(interconnect_gb_s_, n, assumptions)
    comm_bytes = comm_bytes_per_step(m, plan, assumptions, n)
    comm = np.where(np.asarray(n) > 1, comm_bytes / (np.asarray(link) * 1e9), 0.0)
    exposed = np.maximum(0.0, comm - assumptions.comm_overlap * compute)
    step = compute + exposed
    steps = tokens / (tokens_per_micro * plan.grad_accum * np.asarray(n, dtype=float))
    seconds = steps * step
    job_rate = tokens / seconds
    bound = np.where(exposed > 0.25 * compute, "communication", "compute")
    return _time_estimate(
        seconds=seconds,
        gpu_hours=seconds * np.asarray(n) / 3600.0,
        tokens_per_s=job_rate,
        tokens_per_s_per_gpu=job_rate / np.asarray(n),
        steps=steps,
        step_seconds=step,
        compute_seconds_per_step=compute,
        comm_seconds_per_step=exposed,
        flops_total=per_token.train * tokens,
        achieved_tflops_per_gpu=achieved / 1e12,
        efficiency=eff,
        interconnect_gb_s=link,
        bound=bound,
    )


#: Bytes the CPU optimizer streams per parameter in one Adam step: fp32 parameter, gradient,
#: first and second moment read (16) and parameter and moments written (12)
#: (DeepSpeedCPUAdam updates fp32 states in place; ZeRO-Offload, Ren et al. 2021,
#: arXiv:2101.06840, section 4.1).
CPU_ADAM_BYTES_PER_PARAM = 28.0
#: Host RAM bandwidth the CPU optimizer reaches when nothing is measured: dual-channel
#: DDR4-3200 (2 x 25.6 GB/s peak) at about 80% (STREAM-like streaming of a desktop).
CPU_ADAM_HOST_GB_S = 40.0


def offload_seconds_per_step(model: ModelLike, plan: Plan, assumptions: Assumptions, n_gpus,
                             compute_s, *, host_link_gb_s, host_ram_gb_s):
    """What CPU offload adds to a training step (seconds), per GPU.

    Terms (P_t = trainable parameters, shard = ``n_gpus``; 16-bit gradients and parameters
    travel, 4 bytes in fp32):

    * optimizer offload (ZeRO-Offload, Ren et al. 2021, arXiv:2101.06840): the gradient
      shard goes to the host (``P_t/n x e``) while the backward pass runs, the CPU runs Adam
      over its shard (``P_t/n x`` :data:`CPU_ADAM_BYTES_PER_PARAM` at ``host_ram_gb_s``),
      and the updated 16-bit parameters come back (``P_t/n x e``) before the next step;
    * parameter offload (ZeRO-Infinity, Rajbhandari et al. 2021, arXiv:2104.07857): every
      forward and backward pass of each micro-batch fetches this rank's parameter shard from
      host RAM (``2 x grad_accum x`` its resident weight bytes), prefetched while the
      previous layers compute.

    Transfers that overlap compute (gradients, prefetched parameters) cost only what
    outlasts ``compute_s``; the CPU update and the parameters' return are serial.
    """
    m = model_shape(model)
    e = 4.0 if plan.precision == "fp32" else 2.0
    shard = trainable_params(m, plan) / float(n_gpus)
    link = np.asarray(host_link_gb_s, dtype=float) * 1e9
    grads = shard * e / link
    back = shard * e / link
    cpu = shard * CPU_ADAM_BYTES_PER_PARAM / (np.asarray(host_ram_gb_s, dtype=float) * 1e9)
    fetch = 0.0
    if plan.offload == "params":
        resident = weight_bytes(m, plan.with_changes(offload="none"), assumptions, n_gpus)
        fetch = 2.0 * plan.grad_accum * resident / link
    overlapped = np.maximum(0.0, grads + fetch - compute_s)
    return overlapped + back + cpu


def _time_estimate(**values) -> TimeEstimate:
    """A :class:`TimeEstimate` whose 0-d arrays and NumPy scalars are plain floats/strings
    (so scalar estimates are plain values; array sweeps keep their arrays)."""
    for name, value in values.items():
        values[name] = _plain(value)
    step = values.get("decode_step")
    if step is not None:
        values["decode_step"] = DecodeStep(**{k: _plain(v) for k, v in vars(step).items()})
    return TimeEstimate(**values)


def _plain(value):
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return value.item()
    return value
