"""One estimate: memory, compute and time for a plan on a model and (optionally) a GPU.

:func:`estimate` is what the CLI, the GUI and the exports call; it returns an
:class:`Estimate` record with every figure and every assumption behind it. :func:`sweep_fit_map`
evaluates many variations of a plan at once with array arithmetic (the
GUI redraws them on every slider move).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions, nccl_memory
from .calibration import Measurement, achieved_tflops, select
from .compute import (
    FlopsPerToken,
    TimeEstimate,
    default_efficiency,
    flops_per_token,
    peak_dtype,
    time_plan,
    training_job,
    training_time,
)
from .engines import sweep as engine_sweep
from .engines.base import EngineResult, host_memory
from .engines.combine import (
    engine_assumptions,
    engine_time,
    engine_view,
    with_prompt_scale,
)
from .engines.select import runs_on_engine
from .engines.transformers import generic_time
from .gpu import GpuSpec
from .memory import (
    TERMS,
    MemoryBreakdown,
    memory_breakdown,
    mixed_style,
    trainable_params,
    weight_quant,
)
from .model import ModelShape, ModelSpec, ParamCounts, model_shape
from .parallel.insitu import plan_kernel_seconds
from .parallel.rates import kernel_fractions
from .plan import Plan
from .verdict import engine_verdict, verdict_for

#: GPU used for time estimates when the plan names none (reported in assumptions).
REFERENCE_GPU_ID = "a100-sxm-80gb"


@dataclass(frozen=True)
class Estimate:
    """Everything known about a plan: parameters, memory, FLOPs, time and assumptions.

    Attributes:
        model, plan, gpu: the inputs (gpu may be None: memory only, no fit verdict).
        params: parameter counts of the model.
        params_trainable: parameters that receive gradients.
        memory: bytes per GPU by term.
        capacity_bytes: the GPU's memory (None without a GPU).
        fits: whether ``memory.total <= capacity`` (None without a GPU).
        verdict: "fits", "tight", "does not fit" or "no GPU chosen".
        flops: FLOPs per token.
        time: the time estimate (on ``time_gpu``).
        time_gpu: the GPU whose peak the time uses (the plan's GPU or the reference).
        assumptions: name -> value for every default used.
        warnings: things the user should know (no bf16 units, ...).
        layout: the parallel layout the time and memory come from
            (:class:`~.parallel.plan_time.LayoutEstimate`), or ``None`` for the single-GPU /
            flat data-parallel model.
        engine_name: the inference engine the estimate models (``None`` for training).
        engine: that engine's record (:class:`~.engines.base.EngineResult`; ``None`` for
            transformers, whose memory and time are the generic model).
    """

    model: ModelSpec
    plan: Plan
    gpu: GpuSpec | None
    params: ParamCounts
    params_trainable: int
    memory: MemoryBreakdown
    capacity_bytes: float | None
    fits: bool | None
    verdict: str
    flops: FlopsPerToken
    time: TimeEstimate
    time_gpu: GpuSpec
    assumptions: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    layout: object | None = None
    engine_name: str | None = None
    engine: EngineResult | None = None

    @property
    def headroom_bytes(self) -> float | None:
        """Capacity minus need (negative when it does not fit)."""
        if self.capacity_bytes is None:
            return None
        return self.capacity_bytes - self.memory.total

    def to_json(self) -> dict:
        """The record as JSON-ready data, keys as in the CLI contract (DESIGN.md §3)."""
        memory = {
            "per_gpu_bytes": self.memory.total,
            "breakdown": self.memory.as_dict(),
            "cpu_offload_bytes": self.memory.cpu_bytes,
            "context_bytes": self.memory.context_bytes,
        }
        if self.gpu is not None:
            memory.update(fits=self.fits, verdict=self.verdict,
                          capacity_bytes=self.capacity_bytes, gpu=self.gpu.id,
                          headroom_bytes=self.headroom_bytes)
        time = {k: v for k, v in asdict(self.time).items()
                if k not in ("flops_total",)}
        time["gpu"] = self.time_gpu.id
        if self.layout is not None:
            time["model"] = "layout"
            time.update(self.layout.to_json())
        data = {
            "model": self.model.id,
            "plan": self.plan.to_dict(),
            "params_total": self.params.total,
            "params_active": self.params.active,
            "params_vision": self.params.vision,
            "params_trainable": self.params_trainable,
            "memory": memory,
            "compute": {
                "flops_total": self.time.flops_total,
                "flops_per_token_forward": self.flops.forward,
                "flops_per_token_train": self.flops.train,
            },
            "time": time,
            "assumptions": self.assumptions,
            "warnings": list(self.warnings),
        }
        if self.engine_name is not None:
            data["engine"] = (self.engine.to_json() if self.engine is not None
                              else {"name": self.engine_name})
        return data


#: Inference engines whose kernels compute in fp16 (see :func:`estimate`).
FP16_ENGINES = ("llama.cpp", "ollama", "exllamav2")


def timing_peak(gpu: GpuSpec, plan: Plan, warnings: list[str] | None = None
                ) -> tuple[float, str]:
    """The one rule for the peak a plan is timed at: ``(TFLOPS, dtype)``, the GPU's dense
    peak at the plan's precision; fp8 on a card without fp8 units falls back to its 16-bit
    rate, bf16 on a card without bf16 units to its fp32 rate (emulated), each with a warning
    appended to ``warnings``."""
    warnings = [] if warnings is None else warnings
    dtype = peak_dtype(plan)
    value = gpu.peak_tflops(dtype)
    if value is None and dtype == "fp8":
        warnings.append(f"{gpu.name} has no fp8 matrix units: timed at its 16-bit rate")
        dtype = "bf16" if gpu.peak_tflops("bf16") else "fp16"
        value = gpu.peak_tflops(dtype)
    if value is None and dtype == "bf16":
        warnings.append(
            f"{gpu.name} has no bf16 matrix units: bf16 runs emulated at about its fp32 rate; "
            "use fp16 mixed precision on this card"
        )
        dtype = "fp32"
        value = gpu.peak_tflops("fp32")
    return float(value), dtype


def timing_dtype(gpu: GpuSpec, plan: Plan) -> str:
    """The dtype whose peak times ``plan`` on ``gpu`` (after the fp8/bf16 fallbacks); a
    :class:`Measurement` is used only when its dtype equals this."""
    return timing_peak(gpu, plan)[1]


def measurement_problem(measurement: Measurement, gpu: GpuSpec, plan: Plan,
                        dtype: str) -> str | None:
    """Why ``measurement`` cannot time ``plan`` on ``gpu`` at ``dtype``; None when it can."""
    if measurement.gpu_id is not None and measurement.gpu_id != gpu.id:
        return f"measured on {measurement.gpu_id}, not {gpu.id}"
    if measurement.kind == "bandwidth":
        if plan.task != "infer":
            return "a bandwidth measurement times decoding (inference) only"
        return None
    if not plan.is_training and measurement.kind != "matmul":
        return "a training step's rate times training; a prompt is timed from a matmul"
    if plan.efficiency is not None:
        return "the plan gives its own efficiency"
    if measurement.dtype != dtype:
        return f"measured {measurement.dtype}, the plan runs at {dtype}"
    return None


def _pick_measurements(measurement, gpu: GpuSpec, plan: Plan, dtype: str):
    """``(compute, bandwidth, note)``: the measurements that apply, and why none does."""
    if measurement is None:
        return None, None, None
    if isinstance(measurement, Measurement):
        problem = measurement_problem(measurement, gpu, plan, dtype)
        if problem is not None:
            return None, None, problem
        if measurement.kind == "bandwidth":
            return None, measurement, None
        return measurement, None, None
    pool = list(measurement)
    compute, bandwidth = select(pool, gpu.id, dtype)
    notes = []
    if compute is not None and (problem := measurement_problem(compute, gpu, plan, dtype)):
        compute = None
        notes.append(problem)
    if bandwidth is not None and measurement_problem(bandwidth, gpu, plan, dtype):
        bandwidth = None
    if compute is None and not notes and plan.is_training and pool:
        notes.append(f"nothing measured at {dtype} on {gpu.id}")
    return compute, bandwidth, "; ".join(notes) or None


#: Peer traffic of consumer cards without a peer link crosses PCIe twice: the GeForce driver
#: disables peer-to-peer, so it goes GPU -> host memory -> GPU (the flat model's link).
HOST_BOUNCE_FACTOR = 0.5


def _link(gpu: GpuSpec, assumptions: Assumptions) -> float:
    """GPU-to-GPU bandwidth (GB/s per direction) of the flat data-parallel model: the peer
    link, or PCIe, at :data:`HOST_BOUNCE_FACTOR` for consumer cards without a peer link."""
    link = gpu.interconnect_bandwidth_gb_s
    if not link:
        return float(assumptions.inter_node_gb_s)
    if gpu.p2p_link == "none" and gpu.segment == "consumer":
        return float(link) * HOST_BOUNCE_FACTOR
    return float(link)


def context_warning(model: ModelSpec, plan: Plan) -> str | None:
    """A warning when the plan's tokens per sequence exceed the model's trained context."""
    limit = model.max_positions
    tokens = plan.seq_len + (plan.new_tokens if plan.task == "infer" else 0)
    if model.kind == "opaque" or limit <= 0 or tokens <= limit:
        return None
    if model.position == "learned":
        why = f"its position table has {limit} entries, so it cannot run longer sequences"
    else:
        why = "it was not trained for longer sequences (quality may drop)"
    return f"{tokens} tokens per sequence exceed {model.name}'s context of {limit}: {why}"


def _assumptions_used(model: ModelShape, plan, assumptions, gpu, time_gpu, peak_kind, peak,
                      measured: Measurement | None = None, measured_note: str | None = None,
                      measured_bandwidth: Measurement | None = None,
                      kernel: tuple[float | None, str | None] = (None, None),
                      prompt_scale: float | None = None,
                      prompt_efficiency: float | None = None) -> dict:
    used: dict[str, object] = {}
    if plan.is_adapter:
        if plan.lora_rank is None:
            used["lora_rank"] = plan.effective_lora_rank
        used["lora_targets"] = plan.lora_targets
        used["lora_adapter_dtype"] = "fp32"
    if plan.is_training:  # the fine-tuning framework and each default it brings
        from .frameworks import framework_assumptions

        used.update(framework_assumptions(model, plan))
    quant = weight_quant(model, plan)
    if plan.task == "infer" and plan.quant is None and model.weights_file_bytes:
        used["weights_bytes"] = model.weights_file_bytes
        used["weights_source"] = "the file's tensors, as stored"
    elif plan.quant is None and quant != "none":
        used["quant"] = quant
        if quant != plan.effective_quant:
            used["quant_source"] = "as shipped (config.json quantization_config)"
    if plan.precision in ("fp16", "bf16") and plan.is_training and not plan.is_adapter:
        used["mixed_style"] = mixed_style(plan, assumptions)
    if plan.is_training:
        job = training_job(model, plan)
        used["dataset_tokens"] = job.tokens
        used["dataset_tokens_source"] = job.origin
        used["dataset"] = job.text
    if plan.task == "infer" and plan.kv_dtype is None and model.kind == "decoder":
        used["kv_dtype"] = "fp32" if plan.precision == "fp32" else "fp16"
    used["activation_bytes_per_element"] = 4 if plan.precision == "fp32" else 2
    if plan.is_training and model.kind != "opaque":
        used["dropout_masks"] = model.dropout
        if model.kind == "encoder" and plan.task != "pretrain":
            used["head"] = "classification (logits negligible)"
    used["efficiency"] = default_efficiency(plan, assumptions)
    used["efficiency_source"] = "plan" if plan.efficiency is not None else "assumed"
    if kernel[1] is not None:  # still assumed: kernel rates x the in-situ factor
        used["efficiency"] = kernel[0]
        used["efficiency_basis"] = kernel[1]
        used["insitu_factor"] = assumptions.insitu_factor
    if prompt_efficiency is not None:  # an inference plan's matmuls, as timed
        used["efficiency"] = prompt_efficiency
    if measured is not None:
        used["efficiency_source"] = f"measured {measured.date}"
        used["measured_kind"] = measured.kind
        used["measured_dtype"] = measured.dtype
        used["measured_at"] = measured.when
        used["measured_source"] = measured.source
    if measured is not None and prompt_scale is not None:  # an inference plan's prompt
        used["measured_matmul_tflops"] = measured.achieved_tflops
        used["prompt_rate_scale"] = prompt_scale
    elif measured is not None:
        kernel_timed = kernel[1] is not None and measured.kind == "matmul"
        achieved = kernel[0] * peak if kernel_timed else achieved_tflops(measured, assumptions)
        used["efficiency"] = achieved / peak
        if measured.kind == "step":
            used["measured_step_tflops"] = measured.achieved_tflops
            if measured.shape:
                used["measured_shape"] = measured.shape
        else:
            used["measured_matmul_tflops"] = measured.achieved_tflops
            if not kernel_timed:
                used["matmul_to_step"] = assumptions.matmul_to_step
        used["achieved_tflops"] = achieved
    elif measured_note is not None:
        used["measured_ignored"] = measured_note
    used["cuda_context_bytes"] = assumptions.cuda_context_bytes
    used["allocator_reserve_fraction"] = assumptions.allocator_reserve_fraction
    if gpu is not None:
        used["gpu_memory_usable"] = f"{gpu.usable_bytes / 2**30:.2f} GiB ({gpu.usable_source})"
    if plan.task == "infer" and plan.framework == "vllm":
        used["vllm_non_torch_bytes"] = assumptions.vllm_non_torch_bytes
        if assumptions.vllm_non_torch_bytes != DEFAULT_ASSUMPTIONS.vllm_non_torch_bytes:
            used["vllm_non_torch_source"] = "given (--assume) or observed (check-log)"
    if plan.n_gpus > 1:
        used["nccl_bytes"] = float(nccl_memory(assumptions, plan.n_gpus))
        used["comm_overlap"] = assumptions.comm_overlap
        used["interconnect_gb_s"] = _link(time_gpu, assumptions)
        if plan.n_gpus > assumptions.gpus_per_node:
            used["inter_node_gb_s"] = assumptions.inter_node_gb_s
            used["gpus_per_node"] = assumptions.gpus_per_node
    if plan.task == "qlora" or (plan.is_adapter and plan.effective_quant != "none"):
        used["qlora_dequant_overhead"] = assumptions.qlora_dequant_overhead
    if plan.task == "infer" and measured_bandwidth is not None:
        used["bandwidth_efficiency"] = 1.0
        used["memory_bandwidth_gb_s"] = measured_bandwidth.bandwidth_gb_s
        used["bandwidth_source"] = f"measured {measured_bandwidth.date}"
        used["measured_bandwidth_source"] = measured_bandwidth.source
    elif plan.task == "infer":
        used["bandwidth_efficiency"] = assumptions.bandwidth_efficiency
        used["memory_bandwidth_gb_s"] = time_gpu.memory_bandwidth_gb_s
        used["bandwidth_source"] = f"catalog: {time_gpu.id}"
    if gpu is None:
        used["time_gpu"] = f"{REFERENCE_GPU_ID} (reference: no GPU chosen)"
    used["peak_tflops"] = peak
    used["peak_tflops_dtype"] = peak_kind
    used["peak_tflops_source"] = f"catalog: {time_gpu.id}"
    return used


def estimate(
    model: ModelSpec,
    plan: Plan,
    gpu: GpuSpec | None = None,
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS,
    *,
    reference_gpu: GpuSpec | None = None,
    measurement: Measurement | Iterable[Measurement] | None = None,
    host_bandwidth_gb_s: float | None = None,
    host_bandwidth_source: str = "measured",
) -> Estimate:
    """Estimate memory per GPU, FLOPs and time for ``plan`` on ``model``.

    The model's :class:`~.architecture.ModelShape` is read once (:func:`~.model.model_shape`,
    cached per spec) and handed to the memory, FLOPs and time functions.

    Args:
        model: the architecture.
        plan: what to run.
        gpu: the GPU to check the fit against and time on (None: memory only, time on
            ``reference_gpu``).
        assumptions: overridable constants.
        reference_gpu: GPU for the time estimate when ``gpu`` is None (required then).
        measurement: what a probe measured on the time GPU: one :class:`Measurement` or
            several (then :func:`~.calibration.select` picks: a training-step measurement
            at the plan's dtype, else a matmul one, and the newest bandwidth). For a
            training plan without its own efficiency, whose timing dtype
            (:func:`timing_dtype`) equals the measurement's (and whose GPU is its
            ``gpu_id`` when that is set), the time uses the measured achieved TFLOPS: a
            ``step`` measurement as is, a ``matmul`` one times
            ``assumptions.matmul_to_step`` (a large matmul overstates a whole step). For an
            inference plan, a ``bandwidth`` measurement replaces ``catalog bandwidth x
            bandwidth_efficiency`` in the decode time (a measured copy rate is already an
            achieved rate). ``assumptions`` then says ``efficiency_source`` /
            ``bandwidth_source: "measured <date>"``; the peak stays the catalog's. A
            measurement that does not apply is ignored and ``assumptions`` says why
            (``measured_ignored``).
        host_bandwidth_gb_s: host RAM bandwidth for layers an inference engine keeps on the
            CPU (a host-memory probe's result, or the user's figure); None = assumed from
            the GPU's segment (:func:`~.engines.base.host_memory`).
        host_bandwidth_source: where ``host_bandwidth_gb_s`` comes from, for ``assumptions``.

    Inference plans run on an engine (:func:`~.engines.select.engine_for`: the plan's
    ``framework``, or by the weights' format and the time GPU's platform: an Apple GPU
    serves on MLX): llama.cpp, Ollama, vLLM, ExLlamaV2 and MLX bring their own memory terms
    and decode costs (:mod:`.engines.combine`); transformers keeps the generic model.
    ``engine`` and ``engine_name`` say which, and ``assumptions`` lists every engine default
    used (``engine_source``: why that engine).

    Raises:
        ValueError: neither ``gpu`` nor ``reference_gpu`` given, or a plan the model cannot
            run (e.g. KV cache for an encoder).
    """
    time_gpu = gpu or reference_gpu
    if time_gpu is None:
        raise ValueError("estimate needs a gpu or a reference_gpu for the time estimate")
    warnings: list[str] = []
    if model.kind == "opaque" and plan.dataset_tokens is not None:
        raise ValueError(
            f"{model.name} is measured in samples ({model.sample_unit}): give dataset_samples"
        )
    if model.kind == "opaque" and model.activation_bytes_per_sample == 0 and plan.is_training:
        warnings.append(f"no published activation size for {model.name}: activations not counted")
    if plan.n_gpus > 1 and time_gpu.unified_memory:
        warnings.append(f"{time_gpu.name} is a single-chip system: several GPUs are hypothetical")
    if (warning := context_warning(model, plan)) is not None:
        warnings.append(warning)
    warnings.extend(w for w in model.extra.get("warnings", ()) if w not in warnings)
    shape = model_shape(model)  # derived once per spec; everything below reads it
    view = None
    if plan.task == "infer":
        view = engine_view(shape, plan, time_gpu, assumptions,
                           host_bandwidth_gb_s=host_bandwidth_gb_s,
                           host_source=host_bandwidth_source)
    if view is not None and view.memory is not None:
        memory = view.memory
        warnings.extend(view.result.warnings)
    else:
        memory = memory_breakdown(shape, plan, assumptions)
    # Memory is sized at the plan's sequence length; its steps are timed at the sequences
    # its data set makes (padded per micro-batch), on the job's tokens (compute.time_plan).
    timed = time_plan(shape, plan)
    flops = flops_per_token(shape, timed)
    # GGUF and EXL2 engines compute in fp16 whatever the plan's precision says (ggml's and
    # ExLlamaV2's kernels take fp16 activations; neither has a bf16 path on Turing or older),
    # so a card without bf16 units is not timed at its fp32 rate for them.
    fp16_engine = view is not None and view.name in FP16_ENGINES and plan.precision != "fp32"
    timed_as = replace(plan, precision="fp16") if fp16_engine else plan
    if (view is not None and view.name == "vllm" and weight_quant(shape, plan) == "fp8"
            and time_gpu.peak_tflops("fp8")):
        # vLLM's FP8 is W8A8 on cards with fp8 units (compute capability 8.9 on: Ada,
        # Hopper, Blackwell): the prompt's GEMMs run at the fp8 rate. Older cards run FP8
        # Marlin, weight-only (W8A16), at the 16-bit rate (vLLM docs, features/quantization/
        # fp8.md "FP8 W8A8").
        timed_as = replace(plan, precision="fp8")
    peak, peak_kind = timing_peak(time_gpu, timed_as, warnings)
    efficiency = None
    measured, measured_bandwidth, measured_note = _pick_measurements(
        measurement, time_gpu, plan, peak_kind)
    kernel_seconds = kernel_note = None
    if measured is None or measured.kind == "matmul":
        # The step is timed from its kernels (a measured matmul replaces the published
        # matmul fraction); the efficiency shown is derived from that time.
        kernel_seconds, kernel_note = plan_kernel_seconds(
            model, shape, timed, time_gpu, peak_kind, assumptions,
            matmul_tflops=measured.achieved_tflops if measured is not None else None)
    if measured is not None and kernel_seconds is None and plan.is_training:
        efficiency = achieved_tflops(measured, assumptions) / peak
    bandwidth_gb_s = time_gpu.memory_bandwidth_gb_s
    time_assumptions = assumptions
    if measured_bandwidth is not None:
        bandwidth_gb_s = measured_bandwidth.bandwidth_gb_s
        time_assumptions = replace(assumptions, bandwidth_efficiency=1.0)
    prompt_scale = None
    if plan.task == "infer" and measured is not None:
        # A measured matmul on this card: its prompt runs at the published prompt rate
        # times how this card's GEMMs compare with the rate published for its model.
        published = kernel_fractions(time_gpu.id).matmul
        prompt_scale = float(measured.achieved_tflops) / (peak * published)
        view, time_assumptions = with_prompt_scale(
            view, time_assumptions, prompt_scale,
            f"this card's measured {peak_kind} matmul ({measured.achieved_tflops:.1f} TFLOPS, "
            f"{measured.date}) over the published {published:.2f} x {peak:.1f}")
    if view is not None and view.result is not None:
        time = engine_time(shape, plan, view.result, peak_tflops=peak,
                           bandwidth_gb_s=bandwidth_gb_s,
                           measured_bandwidth=measured_bandwidth is not None,
                           assumptions=time_assumptions)
    elif plan.task == "infer":
        time = generic_time(shape, plan, peak_tflops=peak, bandwidth_gb_s=bandwidth_gb_s,
                            weights_bytes=memory.weights, n_gpus=plan.n_gpus,
                            assumptions=time_assumptions)
    else:
        # The framework's speed terms (memory passes its kernels remove, offload traffic)
        # need the card's memory bandwidth and its host link.
        time = training_time(shape, timed, peak_tflops=peak,
                             interconnect_gb_s_=_link(time_gpu, assumptions),
                             assumptions=assumptions, efficiency=efficiency,
                             bandwidth_gb_s=time_gpu.memory_bandwidth_gb_s,
                             host_link_gb_s=time_gpu.pcie_bandwidth_gb_s,
                             host_ram_gb_s=(host_memory(time_gpu, host_bandwidth_gb_s)
                                            .bandwidth_gb_s if plan.offload != "none"
                                            else None),
                             compute_seconds=kernel_seconds)
        if kernel_seconds is not None:
            efficiency = float(time.efficiency)
    capacity = float(gpu.usable_bytes) if gpu is not None else None
    engine = view.result if view is not None else None
    if capacity is not None and engine is not None:
        capacity *= engine.capacity_fraction  # Apple: the share the GPU may wire
    fits = None if capacity is None else bool(memory.total <= capacity)
    verdict = "no GPU chosen" if capacity is None else verdict_for(memory.total, capacity)
    if capacity is not None and engine is not None:
        verdict = engine_verdict(engine, memory.total, capacity)
        fits = verdict != "does not fit"
    if not np.isfinite(time.seconds):
        warnings.append("time could not be estimated (zero throughput)")
    return Estimate(
        model=model,
        plan=plan,
        gpu=gpu,
        params=shape.params,
        params_trainable=trainable_params(shape, plan),
        memory=memory,
        capacity_bytes=capacity,
        fits=fits,
        verdict=verdict,
        flops=flops,
        time=time,
        time_gpu=time_gpu,
        assumptions=_assumptions_used(
            shape, plan, assumptions, gpu, time_gpu, peak_kind, peak,
            measured=measured, measured_note=measured_note,
            measured_bandwidth=measured_bandwidth, kernel=(efficiency, kernel_note),
            prompt_scale=prompt_scale,
            prompt_efficiency=(float(np.asarray(time.efficiency)) if plan.task == "infer"
                               and plan.efficiency is None else None),
        ) | (engine_assumptions(view, plan, assumptions, measured_bandwidth is not None)
             if view is not None else {}),
        warnings=warnings,
        engine_name=view.name if view is not None else None,
        engine=engine,
    )


def sweep_fit_grid(model: ModelSpec, plan: Plan, micro_batches, seq_lens,
                   assumptions: Assumptions = DEFAULT_ASSUMPTIONS, *,
                   gpu: GpuSpec | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Bytes per GPU on a micro-batch x sequence-length grid (rows: micro-batch), and each
    cell's verdict where the memory alone does not say it (None elsewhere).

    An inference plan on an engine (llama.cpp, vLLM, ...; which one may depend on ``gpu``:
    :func:`.engines.select.engine_for`) is evaluated point by point on ``gpu``
    (:func:`.engines.sweep.fit_grid`: on vLLM a cell holds what its requests need to run
    at once, and its verdict is :func:`engine_verdict`'s); without a GPU it gets the
    generic model.
    """
    shape = model_shape(model)
    if gpu is not None and runs_on_engine(plan, shape, gpu):
        return engine_sweep.fit_grid(shape, plan, gpu, micro_batches, seq_lens, assumptions)
    b = np.asarray(micro_batches, dtype=float)[:, None]
    s = np.asarray(seq_lens, dtype=float)[None, :]
    return np.broadcast_to(
        memory_breakdown(model_shape(model), plan, assumptions, micro_batch=b, seq_len=s).total,
        (b.shape[0], s.shape[1]),
    ), None


def sweep_fit_map(model: ModelSpec, plan: Plan, micro_batches, seq_lens,
                  assumptions: Assumptions = DEFAULT_ASSUMPTIONS, *,
                  gpu: GpuSpec | None = None) -> np.ndarray:
    """The bytes of :func:`sweep_fit_grid`."""
    return sweep_fit_grid(model, plan, micro_batches, seq_lens, assumptions, gpu=gpu)[0]


__all__ = ["HOST_BOUNCE_FACTOR", "TERMS", "Estimate", "Measurement", "engine_verdict",
           "estimate", "measurement_problem", "sweep_fit_grid", "sweep_fit_map",
           "timing_dtype", "timing_peak", "verdict_for"]
