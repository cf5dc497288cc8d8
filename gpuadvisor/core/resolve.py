"""The one entry point: a plan on a GPU -> the one estimate every door shows.

Every door (``estimate``, ``suggest``, each ``export`` and the report, the Plan page with its
fit map, curves and levers, the Compare page, sweeps, the self-test) asks :func:`resolve`
and renders what it returns. None of them decides a layout, a ZeRO stage or a fallback of
its own: the rules live here, each under one name.

- :func:`layout_wanted`: whether the parallel-layout model times the plan (training of a
  layered model without CPU offload, on several GPUs or with pinned degrees; not with
  ``mode="off"``). Flat data parallel is just ``tp = pp = cp = 1``.
- :func:`layout_request`: what the plan pins. The micro-batch is the plan's (the user's
  memory knob, and what ``per_device_train_batch_size`` / DeepSpeed's
  ``train_micro_batch_size_per_gpu`` will say); the ZeRO stage is pinned when the plan names
  one (``zero_stage > 0``) or the caller says stage 0 is meant; hybrid sharding is asked for,
  never chosen (it trades memory for speed).
- :func:`run_plan`: the plan as it will run, with the chosen layout written into it (ZeRO
  stage, micro-batch, accumulation, degrees, global batch): what exports write.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from .compute import TimeEstimate, dataset_tokens, time_plan
from .estimate import Estimate, estimate, timing_dtype, verdict_for
from .memory import MemoryBreakdown
from .parallel.plan_time import LayoutEstimate, LayoutRequest, layout_estimate
from .parallel.search import Constraints
from .plan import MODEL_PARALLEL_FRAMEWORKS, Plan, default_checkpointing

#: Layout modes a door may ask for: ``auto`` searches the free degrees, ``manual`` uses the
#: pinned ones (the rest 1), ``off`` keeps the flat data-parallel model with the plan's ZeRO.
LAYOUT_MODES = ("auto", "manual", "off")


@dataclass(frozen=True)
class LayoutSettings:
    """How several GPUs are laid out, beyond what the plan itself pins.

    Attributes:
        mode: one of :data:`LAYOUT_MODES`.
        zero_pinned: the plan's ZeRO stage is a pin even when it is 0 (``--zero 0``); by
            default stage 0 leaves the stage to the search.
        hybrid_shard: shard inside a node, replicate across nodes (asked for, not chosen).
        gpus_per_node: GPUs per node (None: 8, or the job's count when smaller).
        network: network class between nodes (None: the GPU class's usual one).
        kernels: ``eager`` or ``fused`` elementwise kernels; None: the plan's framework's
            own (:func:`framework_kernels`).
    """

    mode: str = "auto"
    zero_pinned: bool = False
    hybrid_shard: bool = False
    gpus_per_node: int | None = None
    network: str | None = None
    kernels: str | None = None

    def __post_init__(self) -> None:
        if self.mode not in LAYOUT_MODES:
            raise ValueError(f"layout: expected one of {', '.join(LAYOUT_MODES)}, "
                             f"got {self.mode!r}")


DEFAULT_LAYOUT = LayoutSettings()


def framework_kernels(plan: Plan) -> str:
    """The elementwise kernels the plan's training framework runs: ``fused`` for Megatron
    (Megatron-Core's fused layer norm and bias-activation kernels, Transformer Engine's
    fused RMSNorm/SwiGLU and rotary kernels, the masked-softmax fusion: ``--kernels fused``),
    ``eager`` PyTorch for the Hugging Face path and the others (each operation its own
    kernel; Unsloth's fused kernels are timed by :mod:`.framework_speed`)."""
    return "fused" if plan.effective_framework in MODEL_PARALLEL_FRAMEWORKS else "eager"


def layout_wanted(model, plan: Plan, settings: LayoutSettings = DEFAULT_LAYOUT) -> bool:
    """Whether the layout model times ``plan``: a training plan it can time
    (:func:`layout_applies`) on several GPUs, or with a pinned degree,
    manual mode or hybrid sharding; never with ``mode="off"``."""
    if settings.mode == "off" or layout_applies(model, plan) is not None:
        return False
    return (plan.n_gpus > 1 or bool(plan.layout_pins) or settings.mode == "manual"
            or settings.hybrid_shard)


def layout_request(plan: Plan, settings: LayoutSettings = DEFAULT_LAYOUT) -> LayoutRequest:
    """The layout request ``plan`` makes (see the module docstring for what is pinned)."""
    zero = plan.zero_stage if (plan.zero_stage or settings.zero_pinned) else None
    degrees = dict(plan.layout_pins)
    if plan.is_training and plan.effective_framework not in MODEL_PARALLEL_FRAMEWORKS:
        # Hugging Face (DeepSpeed, FSDP), Unsloth, torchtune and Axolotl run data
        # parallelism with ZeRO/FSDP: the search lays out only what they can run (a pinned
        # tensor or context degree runs under accelerate's FSDP2).
        degrees = {k: degrees.get(k) or 1 for k in ("tp", "pp", "vpp", "cp", "ep")}
    pins = Constraints(zero=zero, micro_batch=plan.micro_batch,
                       hybrid_shard=bool(settings.hybrid_shard), **degrees)
    return LayoutRequest(mode="manual" if settings.mode == "manual" else "auto",
                         constraints=pins, global_batch=plan.layout_global_batch,
                         gpus_per_node=settings.gpus_per_node, network=settings.network,
                         kernels=settings.kernels or framework_kernels(plan),
                         kernels_source="given" if settings.kernels else
                         f"the {plan.effective_framework} framework's own")


def resolve(model, plan: Plan, gpu=None, assumptions: Assumptions = DEFAULT_ASSUMPTIONS, *,
            settings: LayoutSettings = DEFAULT_LAYOUT, strict: bool = False,
            **estimate_options) -> Estimate:
    """The one estimate of ``plan`` on ``gpu``: memory per GPU, fit and time, laid out over
    the plan's GPUs when :func:`layout_wanted` says so.

    ``estimate_options`` go to :func:`~.estimate.estimate` (``measurement``,
    ``reference_gpu``, ``host_bandwidth_gb_s``, ...).

    When no layout holds the plan's global batch, ``strict`` raises ``ValueError`` (starting
    ``layout:``); otherwise the flat estimate is returned with that warning.
    """
    result = _with_defaults(estimate(model, plan, gpu, assumptions, **estimate_options))
    if not layout_wanted(model, plan, settings):
        return result
    try:
        return with_layout(result, assumptions, layout_request(plan, settings))
    except (ArithmeticError, ValueError) as exc:
        warning = f"layout: {exc}"
        if plan.layout_pins:
            named = ", ".join(f"{k.upper()} {v}" for k, v in plan.layout_pins.items())
            warning += f" (pinned: {named})"
        if strict:
            raise ValueError(warning) from None
        return replace(result, warnings=[*result.warnings, warning])


def _with_defaults(result: Estimate) -> Estimate:
    """The estimate with the framework's own defaults named in its assumptions (the
    checkpointing a plan gets when it sets none, and where that default is set)."""
    plan = result.plan
    if not plan.is_training:
        return result
    value, source = default_checkpointing(plan.task, plan.framework, plan.layout_pins)
    return replace(result, assumptions={**result.assumptions,
                                        "checkpointing_default": f"{value} ({source})"})


def run_plan(result: Estimate) -> Plan:
    """The plan as it will run: the estimate's plan with its chosen layout written in
    (ZeRO stage, micro-batch, accumulation, TP/PP/VPP/CP/EP and the global batch). A plan
    without a layout runs as given."""
    plan = result.plan
    layout = getattr(result, "layout", None)
    if layout is None:
        return plan
    lay = layout.chosen.layout
    changes = dict(zero_stage=lay.zero, micro_batch=lay.micro_batch, grad_accum=lay.grad_accum,
                   tp=lay.tp, pp=lay.pp, vpp=lay.vpp, cp=lay.cp, ep=lay.ep,
                   layout_global_batch=int(layout.global_batch))
    return plan.with_changes(**changes)


def hybrid_shard(result: Estimate) -> bool:
    """Whether the estimate's chosen layout shards inside nodes only (FSDP HYBRID_SHARD)."""
    layout = getattr(result, "layout", None)
    return bool(layout is not None and layout.chosen.layout.hybrid_shard)


def model_parallel(result: Estimate) -> dict[str, int]:
    """The chosen layout's model-parallel degrees above 1 (``{"tp": 2}``); empty for data
    parallel alone."""
    layout = getattr(result, "layout", None)
    if layout is None:
        return {}
    lay = layout.chosen.layout
    return {name: getattr(lay, name) for name in ("tp", "pp", "cp", "ep")
            if getattr(lay, name) > 1}


# ------------------------------------------------------------- a layout on an estimate
def apply_layout(estimate: Estimate, layout: LayoutEstimate) -> Estimate:
    """The :class:`~.estimate.Estimate` with its time and memory per GPU taken
    from ``layout`` (the fit verdict follows the layout's memory).

    ``time``: seconds, GPU-hours, tokens/s, steps and step seconds of the layout (its MFU
    is ``layout.chosen.mfu``); ``efficiency`` and ``achieved_tflops_per_gpu`` stay the
    single GPU's (the rate the layout is anchored to); ``compute_seconds_per_step`` is compute +
    memory-bound work and ``comm_seconds_per_step`` the exposed communication; ``bound``
    the largest part. ``memory``: the layout's terms on its busiest GPU.
    """
    chosen = layout.chosen
    parts = chosen.parts
    step = chosen.step_seconds
    comm = parts.tp_comm + parts.cp_comm + parts.ep_comm + parts.pp_comm + parts.dp_comm
    time = TimeEstimate(
        seconds=layout.seconds, gpu_hours=layout.gpu_hours, tokens_per_s=layout.tokens_per_s,
        tokens_per_s_per_gpu=layout.tokens_per_s / layout.n_gpus, steps=layout.steps,
        step_seconds=step, compute_seconds_per_step=parts.compute + parts.memory_bound,
        comm_seconds_per_step=comm, flops_total=estimate.time.flops_total,
        achieved_tflops_per_gpu=estimate.time.achieved_tflops_per_gpu,
        efficiency=estimate.time.efficiency, interconnect_gb_s=layout.intra.busbw_gb_s,
        bound=_bound(parts))
    terms = chosen.memory
    memory = MemoryBreakdown(
        weights=terms["weights"], gradients=terms["gradients"], optimizer=terms["optimizer"],
        activations=terms["activations"], logits=terms["logits"],
        kv_cache=terms["kv_cache"], overhead=terms["overhead"],
        context_bytes=estimate.memory.context_bytes)
    capacity = estimate.capacity_bytes
    fits = None if capacity is None else bool(memory.total <= capacity)
    verdict = estimate.verdict if capacity is None else verdict_for(memory.total, capacity)
    return replace(estimate, time=time, memory=memory, fits=fits, verdict=verdict,
                   layout=layout, assumptions={**estimate.assumptions,
                                               "kernels": layout.kernels,
                                               "kernels_source": layout.kernels_source})


def _bound(parts) -> str:
    """What limits the step: the largest of compute, memory-bound work, communication and
    the pipeline bubble."""
    shares = {"compute": parts.compute, "memory bandwidth": parts.memory_bound,
              "communication": parts.tp_comm + parts.cp_comm + parts.ep_comm
              + parts.pp_comm + parts.dp_comm, "pipeline bubble": parts.pp_bubble}
    return max(shares, key=shares.get)


def layout_applies(model, plan: Plan) -> str | None:
    """Why the layout model cannot time ``plan`` (``None`` when it can).

    It times training of transformer models (not models given by parameter count), without
    CPU offload (whose transfers it does not model) and without an efficiency the plan sets
    itself (which the flat model honours).
    """
    if not plan.is_training:
        return "inference is timed by prefill and decode"
    if getattr(model, "kind", "decoder") == "opaque":
        return "a model given by parameter count has no layers to split"
    if plan.offload != "none":
        return "CPU offload is timed by the flat model"
    if plan.efficiency is not None:
        return "the plan gives its own efficiency"
    return None


def with_layout(estimate: Estimate, assumptions: Assumptions,
                request: LayoutRequest | None = None, *, anchored: bool = True) -> Estimate:
    """``estimate`` timed (and its memory per GPU sized) by the best or pinned layout.

    ``anchored`` (default): the GPU's own work per token is the single-GPU estimate's (the
    card's achievable rate: the assumed efficiency, or the probe's measurement; see
    :func:`anchored_rates`), so one GPU and several are timed on one scale; the layouts add
    their communication and bubble to it. ``anchored=False`` uses the published kernel
    rates as they are (an upper bound for well-tuned code).

    Returns ``estimate`` unchanged when :func:`layout_applies` says no.

    Raises:
        ValueError: no layout of the plan's GPUs holds the global batch.
    """
    request = request or LayoutRequest()
    model, plan = estimate.model, estimate.plan
    if layout_applies(model, plan) is not None:
        return estimate
    gpu = estimate.time_gpu
    timed = time_plan(model, plan)  # steps at the data set's sequences; memory at seq_len
    tokens, _ = dataset_tokens(model, timed)
    t = estimate.time
    per_gpu_tokens = plan.micro_batch * timed.seq_len * plan.grad_accum
    anchor = float(t.compute_seconds_per_step) / per_gpu_tokens if anchored else None
    found = layout_estimate(
        model, plan, gpu, assumptions, dtype=timing_dtype(gpu, plan), tokens=tokens,
        request=request, matmul_tflops=estimate.assumptions.get("measured_matmul_tflops"),
        anchor_seconds_per_token=anchor, timed=timed)
    if found is None:
        batch = request.global_batch or plan.micro_batch * plan.grad_accum * plan.n_gpus
        why = "it must divide over the data-parallel ranks"
        pins = request.constraints
        if (pins.vpp or 1) > 1 and pins.pp:
            why += (f", and with VPP {pins.vpp} each rank's micro-batches must be a multiple "
                    f"of PP {pins.pp}: Megatron-LM interleaves them in groups of PP")
        raise ValueError(f"no layout of {plan.n_gpus} GPUs holds a global batch of {batch} "
                         f"sequences ({why})")
    return apply_layout(estimate, found)


__all__ = ["DEFAULT_LAYOUT", "LAYOUT_MODES", "LayoutSettings", "apply_layout", "hybrid_shard",
           "layout_applies", "layout_request", "layout_wanted", "model_parallel", "resolve",
           "run_plan", "with_layout"]
