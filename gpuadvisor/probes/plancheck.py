"""The plan check, app side: a plan -> worker options, and measured vs estimated (Qt-free).

The worker's ``plancheck`` probe (``kernels/step.py``) builds the planned model itself at
depth 1 and 2 (embedding, blocks, final norm, LM head, loss), takes a few training steps at
each, and extrapolates step time and peak memory linearly to the plan's full depth. This
module says what to build (:func:`options_for`, :func:`probe_options`), which estimate to
hold it against (:func:`estimate_for`), puts the two side by side (:func:`compare`) and
formats that for people (:func:`format_comparison`). ``gpuadvisor probe --plan FILE`` is the
command line over it. No torch here: the probes run in the worker subprocess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from gpuadvisor.core.estimate import REFERENCE_GPU_ID, Estimate
from gpuadvisor.core.memory import uses_dropout
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import PRECISION_LABELS, TASK_LABELS, Plan
from gpuadvisor.core.resolve import resolve
from gpuadvisor.core.units import format_bytes, format_duration

from .protocol import Hello, Result
from .runner import ProbeRun

if TYPE_CHECKING:  # a type only: the probes sit below the workspace
    from gpuadvisor.workspace.planfile import PlanDocument

#: The probes ``probe --plan`` runs, in order.
PLAN_PROBES = ("plancheck", "step")
#: Depths the plan check builds; the full depth is extrapolated from them.
DEPTHS = (1, 2)
#: Dropout for models that train with it (GPT-2/BERT style), as the estimate assumes.
DROPOUT = 0.1


# --------------------------------------------------------------------------- options
def options_for(model: ModelSpec, plan: Plan) -> dict[str, Any]:
    """The ``plancheck`` probe's options for ``plan`` on ``model``.

    Every architecture number the parameter count depends on is passed (hidden size,
    heads, KV heads, head size, MLP kind and size, norms, positions, biases, tying,
    vocabulary, depth), with the plan's micro-batch, sequence, precision, optimizer,
    checkpointing, attention kernel and task (LoRA rank and targets). Plan choices the
    worker knows but cannot run (fp8, 8-bit AdamW, QLoRA's 4-bit base) are passed on: the
    probe reports them as ``unsupported``, naming why.

    Raises:
        ValueError: a model the plan check cannot build (opaque models, given by parameter
            count only; encoders; mixture-of-experts; decoders with BERT-style extras), or a
            plan it does not run: inference, several GPUs, ZeRO or offloading (it measures
            one GPU doing the whole step), or a sequence longer than learned positions.
    """
    _check_model(model)
    _check_plan(model, plan)
    options: dict[str, Any] = {
        "hidden": model.d_model,
        "heads": model.n_heads,
        "kv_heads": model.n_kv_heads,
        "head_dim": model.head_dim,
        "ffn": model.d_ff,
        "gated": model.mlp == "gated",
        "norm": model.norm,
        "norms_per_layer": model.norms_per_layer,
        "position": model.position,
        "qkv_bias": model.qkv_bias,
        "out_bias": model.out_bias,
        "mlp_bias": model.mlp_bias,
        "final_norm": model.final_norm,
        "tie_embeddings": model.tied_embeddings,
        "vocab": model.vocab_size,
        "layers_full": model.n_layers,
        "depths": list(DEPTHS),
        "dropout": DROPOUT if uses_dropout(model) else 0.0,
        "seq": plan.seq_len,
        "micro_batch": plan.micro_batch,
        "precision": plan.precision,
        "optimizer": plan.optimizer,
        "checkpointing": plan.checkpointing,
        "attention": plan.attention,
        "task": "full" if plan.task == "pretrain" else plan.task,
    }
    if model.position == "learned":
        options["max_positions"] = model.max_positions
    if plan.is_adapter:
        options["lora_rank"] = plan.effective_lora_rank
        options["lora_targets"] = plan.lora_targets
        options["quant"] = plan.effective_quant
    return options


def _check_model(model: ModelSpec) -> None:
    what = f"model {model.id!r}"
    if model.kind == "opaque":
        raise ValueError(f"{what} is given by parameter count and FLOPs only (kind opaque): "
                         "the plan check builds transformer decoders from their architecture "
                         "numbers, so it cannot build this one")
    if model.kind == "encoder":
        raise ValueError(f"{what} is an encoder (BERT style): the plan check builds decoders "
                         "only (causal attention and an LM head)")
    if model.is_moe:
        raise ValueError(f"{what} is a mixture of experts ({model.n_experts} experts, "
                         f"{model.experts_per_token} per token): the plan check builds dense "
                         "decoders only (experts and routing are not built)")
    if model.type_vocab_size or model.pooler or model.embedding_norm:
        raise ValueError(f"{what} has token types, a pooler or an embedding norm: the plan "
                         "check does not build those")
    if model.norms_per_layer not in (2, 4):
        raise ValueError(f"{what} has {model.norms_per_layer} norms per layer: the plan "
                         "check builds 2 (pre-norm) or 4 (Gemma-2 style)")


def _check_plan(model: ModelSpec, plan: Plan) -> None:
    if plan.task == "infer":
        raise ValueError("task infer: the plan check times training steps; inference plans "
                         "are not measured")
    if plan.n_gpus > 1:
        raise ValueError(f"n_gpus {plan.n_gpus}: the plan check measures one GPU doing the "
                         "whole step; set n_gpus to 1 to check what one GPU holds")
    if plan.zero_stage:
        raise ValueError(f"zero_stage {plan.zero_stage}: ZeRO shards over several GPUs; the "
                         "plan check measures one GPU without it (set zero_stage 0)")
    if plan.offload != "none":
        raise ValueError(f"offload {plan.offload}: offloading needs DeepSpeed, which the plan "
                         "check does not use (set offload none)")
    if model.position == "learned" and plan.seq_len > model.max_positions:
        raise ValueError(f"seq_len {plan.seq_len} exceeds {model.name}'s "
                         f"{model.max_positions} learned positions")


def step_options_for(model: ModelSpec, plan: Plan) -> dict[str, Any] | None:
    """The ``step`` probe's options at the plan's block shape, or ``None`` for LoRA/QLoRA
    plans (the step probe trains whole blocks, so it would not time the plan's steps)."""
    options = options_for(model, plan)
    if plan.is_adapter:
        return None
    keep = ("hidden", "heads", "kv_heads", "head_dim", "ffn", "gated", "norm",
            "norms_per_layer", "qkv_bias", "out_bias", "mlp_bias", "dropout", "seq",
            "micro_batch", "precision", "optimizer", "checkpointing", "attention")
    step = {name: options[name] for name in keep}
    step["position"] = "rope" if model.position == "rope" else "none"
    return step


def probe_options(model: ModelSpec, plan: Plan) -> dict[str, dict[str, Any]]:
    """Options per probe for ``probe --plan``: ``plancheck`` always, ``step`` at the plan's
    shape unless the plan trains adapters (see :func:`step_options_for`)."""
    options = {"plancheck": options_for(model, plan)}
    step = step_options_for(model, plan)
    if step is not None:
        options["step"] = step
    return options


# --------------------------------------------------------------------------- estimate
def estimate_for(document: PlanDocument, run: ProbeRun | None = None) -> Estimate:
    """The estimate to hold a plan check against.

    The GPU is the catalog entry matching the device ``run`` measured on, else the plan
    file's GPU, else none (memory only; time on the reference GPU). The estimate uses the
    catalog peak x efficiency and the file's assumption overrides, not earlier probe
    measurements: the check tests the estimator itself.
    """
    from gpuadvisor import catalog

    gpus = catalog.load_gpus()
    gpu_id = None
    if run is not None:
        measured = run.result("plancheck") or run.result("step")
        device_id = measured.conditions.get("device") if measured is not None else None
        gpu_id = matched_gpu_id(run.hello, device_id, gpus)
    gpu_id = gpu_id or document.gpu_id
    gpu = gpus.get(gpu_id) if gpu_id else None
    return resolve(document.model, document.plan, gpu, document.assumptions,
                   reference_gpu=gpus[REFERENCE_GPU_ID])


def matched_gpu_id(hello: Hello | None, device_id: str | None, gpus=None) -> str | None:
    """The catalog id of the GPU the worker measured on, or ``None`` (CPU, unmatched)."""
    if hello is None or device_id is None:
        return None
    device = next((d for d in hello.devices if d.get("id") == device_id), None)
    if device is None or device.get("type") == "cpu":
        return None
    from gpuadvisor.hardware.match import match_gpu

    memory = device.get("memory_total_bytes")
    try:
        return match_gpu(str(device.get("name", "")),
                         int(memory) if isinstance(memory, int | float) else None, gpus)
    except Exception:  # a broken user catalog must not lose the measurement
        return None


# --------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class ComparisonRow:
    """One figure, measured and estimated.

    Attributes:
        name: key (``peak_allocated_bytes``, ``step_s``, ...).
        label: short words for people.
        unit: ``bytes``, ``s``, ``tokens/s`` or ``TFLOPS``.
        measured: from the probe (extrapolated to full depth where it says so).
        estimated: from the estimate, counted the same way (see :func:`compare`).
        diff_pct: ``100 x (measured - estimated) / estimated``; ``None`` when the estimate
            is zero or either value is missing.
    """

    name: str
    label: str
    unit: str
    measured: float | None
    estimated: float | None
    diff_pct: float | None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "unit": self.unit, "measured": self.measured,
                "estimated": self.estimated, "diff_pct": self.diff_pct}


@dataclass(frozen=True)
class PlanCheckComparison:
    """The plan check's measurements next to the estimate.

    Attributes:
        model_id, model_name: the model.
        plan_text: the plan in a few words (task, precision, batch shape).
        device_id, device_name: where it was measured.
        estimate_gpu_id: the catalog GPU the estimate's time is for.
        memory_measured: whether peak memory was measured (CUDA/ROCm/XPU only).
        layers_full: the plan's depth; depths: the depths measured.
        rows: figure by figure, in display order.
        summary: one sentence for people.
        notes: what to know (conditions, mismatches, measurement notes).
    """

    model_id: str
    model_name: str
    plan_text: str
    device_id: str
    device_name: str
    estimate_gpu_id: str
    memory_measured: bool
    layers_full: int
    depths: tuple[int, ...]
    rows: tuple[ComparisonRow, ...]
    summary: str
    notes: tuple[str, ...] = field(default=())

    def row(self, name: str) -> ComparisonRow | None:
        """The row called ``name``, or ``None``."""
        return next((r for r in self.rows if r.name == name), None)

    def to_json(self) -> dict[str, Any]:
        """The ``probe --plan --json`` comparison object."""
        return {"model": self.model_id, "model_name": self.model_name, "plan": self.plan_text,
                "device": self.device_id, "device_name": self.device_name,
                "estimate_gpu": self.estimate_gpu_id, "memory_measured": self.memory_measured,
                "layers_full": self.layers_full, "depths": list(self.depths),
                "rows": {r.name: r.to_json() for r in self.rows}, "summary": self.summary,
                "notes": list(self.notes)}


def add_row(rows: list, name: str, label: str, unit: str, measured, estimated) -> None:
    """Append a :class:`ComparisonRow` to ``rows``, unless a side is missing (None)."""
    if measured is None or estimated is None:
        return
    rows.append(ComparisonRow(name, label, unit, float(measured), float(estimated),
                              percent_difference(measured, estimated)))


def percent_difference(measured: float | None, estimated: float | None) -> float | None:
    """``100 x (measured - estimated) / estimated``; ``None`` if it cannot be formed."""
    if measured is None or estimated is None or not estimated:
        return None
    value = 100.0 * (measured - estimated) / estimated
    return value if math.isfinite(value) else None


def plan_text(plan: Plan) -> str:
    """A plan in a few words: ``full fine-tune, bf16 mixed, micro-batch 1 x 2048 tokens``."""
    text = (f"{TASK_LABELS[plan.task]}, {PRECISION_LABELS[plan.precision]}, {plan.optimizer}, "
            f"micro-batch {plan.micro_batch} x {plan.seq_len} tokens")
    if plan.grad_accum > 1:
        text += f", grad-accum {plan.grad_accum}"
    if plan.checkpointing != "none":
        text += f", {plan.checkpointing} checkpointing"
    if plan.is_adapter:
        text += f", rank {plan.effective_lora_rank} ({plan.lora_targets})"
    return text


def _results(run_result) -> tuple[dict, dict | None]:
    """``(plancheck, step or None)`` as ``{"figures", "units", "conditions"}`` dicts."""
    def as_dict(result):
        if result is None:
            return None
        if isinstance(result, Result):
            return {"figures": dict(result.figures), "units": dict(result.units),
                    "conditions": dict(result.conditions)}
        return result

    if isinstance(run_result, ProbeRun):
        check = run_result.result("plancheck")
        if check is None:
            why = "; ".join(f"{e.kind}: {e.message}" for e in run_result.errors
                            if e.probe in ("plancheck", None)) or "no result"
            raise ValueError(f"the plan check gave no result ({why})")
        return as_dict(check), as_dict(run_result.result("step"))
    if isinstance(run_result, Result):
        if run_result.probe != "plancheck":
            raise ValueError(f"expected a plancheck result, got {run_result.probe!r}")
        return as_dict(run_result), None
    if isinstance(run_result, Mapping) and isinstance(run_result.get("figures"), Mapping):
        return dict(run_result), None
    raise ValueError("compare needs a ProbeRun, a plancheck Result or its figures/conditions")


def compare(run_result, estimate: Estimate) -> PlanCheckComparison:
    """Put a plan check's measurements next to ``estimate``.

    Args:
        run_result: the :class:`ProbeRun` of ``probe --plan`` (its ``plancheck`` result and,
            when present, its ``step`` result), a ``plancheck`` :class:`Result`, or that
            result's ``{"figures", "units", "conditions"}``.
        estimate: the estimate of the same model and plan (see :func:`estimate_for`).

    Rows (``diff_pct`` = measured vs estimated, positive when the measurement is larger):

    * ``peak_allocated_bytes``: ``torch.cuda.max_memory_allocated`` at full depth vs the
      estimate's tensor terms: weights + gradients + optimizer + activations + logits +
      kv_cache, i.e. its total minus ``overhead`` (the CUDA context, which torch does not
      count as allocated, and the allocator's reserve, which it counts as reserved).
    * ``peak_reserved_bytes``: ``max_memory_reserved`` (the caching allocator's pool) vs the
      estimate's total minus ``context_bytes`` (tensors + allocator reserve).
    * ``gpu_memory_bytes``: measured reserved + the estimate's assumed CUDA context vs the
      estimate's total: what decides whether the plan fits.
    * ``step_s``: one optimizer step: ``grad_accum x`` the measured forward+backward of one
      micro-batch + one optimizer step, vs the estimate's ``time.step_seconds``.
    * ``job_s``: the measured step x the estimate's number of steps vs ``time.seconds``.
    * ``tokens_per_s``: tokens per optimizer step / measured step vs ``time.tokens_per_s``.
    * ``achieved_tflops``: the estimate's training FLOPs per step / measured step vs its
      ``achieved_tflops_per_gpu`` (catalog peak x efficiency).
    * ``step_achieved_tflops``: the ``step`` probe's blocks-only achieved TFLOPS (same FLOP
      convention) vs the same estimate, when the step probe ran.

    Memory rows appear only where the probe measured memory (CUDA/ROCm/XPU).

    Raises:
        ValueError: there is no ``plancheck`` result to compare.
    """
    check, step = _results(run_result)
    figures, conditions = check["figures"], check.get("conditions", {})
    plan, memory, time = estimate.plan, estimate.memory, estimate.time
    notes: list[str] = []
    rows: list[ComparisonRow] = []

    add = partial(add_row, rows)

    allocated = figures.get("peak_allocated_bytes_full")
    reserved = figures.get("peak_reserved_bytes_full")
    tensors = memory.total - memory.overhead
    add("peak_allocated_bytes", "peak memory: tensors", "bytes", allocated, tensors)
    add("peak_reserved_bytes", "peak memory: allocator pool", "bytes", reserved,
        memory.total - memory.context_bytes)
    if reserved is not None:
        add("gpu_memory_bytes", "GPU memory with CUDA context", "bytes",
            reserved + memory.context_bytes, memory.total)
    measured_step = _measured_step_s(figures, plan.grad_accum)
    tokens_per_step = plan.micro_batch * plan.seq_len * plan.grad_accum
    add("step_s", "optimizer step", "s", measured_step, time.step_seconds)
    if measured_step is not None:
        add("job_s", "whole job", "s", measured_step * time.steps, time.seconds)
        add("tokens_per_s", "tokens per second", "tokens/s", tokens_per_step / measured_step,
            time.tokens_per_s)
        add("achieved_tflops", "achieved TFLOPS, whole model", "TFLOPS",
            estimate.flops.train * tokens_per_step / measured_step / 1e12,
            time.achieved_tflops_per_gpu)
    if step is not None and step.get("figures", {}).get("achieved_tflops"):
        add("step_achieved_tflops", "achieved TFLOPS, blocks (step probe)", "TFLOPS",
            step["figures"]["achieved_tflops"], time.achieved_tflops_per_gpu)

    memory_measured = bool(conditions.get("memory_measured", allocated is not None))
    if not memory_measured:
        notes.append(conditions.get("memory_note") or "peak memory was not measured")
    notes.extend(_consistency_notes(conditions, estimate))
    notes.extend(str(n) for n in conditions.get("notes", []) or [])
    device_id = str(conditions.get("device", "?"))
    device_name = str(conditions.get("device_name", device_id))
    if device_id == "cpu":
        notes.append(f"measured on the CPU, while the estimate times a {estimate.time_gpu.name}"
                     ": the time difference says little about that GPU")
    layers = int(conditions.get("layers_full", estimate.model.n_layers))
    depths = tuple(int(d) for d in conditions.get("depths", DEPTHS))
    notes.append(f"measured at depths {depths[0]} and {depths[1]} and extrapolated linearly "
                 f"to {layers} layers")
    rows_tuple = tuple(rows)
    return PlanCheckComparison(
        model_id=estimate.model.id, model_name=estimate.model.name, plan_text=plan_text(plan),
        device_id=device_id, device_name=device_name, estimate_gpu_id=estimate.time_gpu.id,
        memory_measured=memory_measured, layers_full=layers, depths=depths, rows=rows_tuple,
        summary=_summary(rows_tuple, estimate, device_name, device_id), notes=tuple(notes))


def _measured_step_s(figures: Mapping, grad_accum: int) -> float | None:
    """One optimizer step from the per-micro-batch figures: ``grad_accum x forward+backward
    + optimizer`` (``grad_accum x step`` when the split is missing)."""
    forward_backward = figures.get("forward_backward_s_full")
    optimizer = figures.get("optimizer_s_full")
    if forward_backward is not None and optimizer is not None:
        return grad_accum * forward_backward + optimizer
    step = figures.get("step_s_full")
    return None if step is None else grad_accum * step


def _consistency_notes(conditions: Mapping, estimate: Estimate) -> list[str]:
    """Where what was built differs from what the estimate counts."""
    notes = []
    built = conditions.get("params_full")
    counted = estimate.params.total
    if isinstance(built, int | float) and int(built) != counted:
        notes.append(f"the model built has {int(built):,} parameters, the estimate counts "
                     f"{counted:,}")
    if estimate.assumptions.get("mixed_style") == "master":
        notes.append("the estimate assumes master-weight mixed precision (16-bit weights, "
                     "fp32 master copy); the probe uses torch.autocast (fp32 weights)")
    return notes


def _summary(rows: tuple[ComparisonRow, ...], estimate: Estimate, device_name: str,
             device_id: str) -> str:
    by_name = {r.name: r for r in rows}
    where = "the CPU" if device_id == "cpu" else device_name
    parts = []
    allocated = by_name.get("peak_allocated_bytes")
    if allocated is not None:
        text = (f"the plan peaked at {format_bytes(allocated.measured, 'GiB', 2)} of tensors "
                f"against an estimated {format_bytes(allocated.estimated, 'GiB', 2)} "
                f"({_pct(allocated.diff_pct)})")
        gpu = by_name.get("gpu_memory_bytes")
        if gpu is not None and estimate.capacity_bytes:
            fits = gpu.measured <= estimate.capacity_bytes
            text += (f", so with the CUDA context it needs about "
                     f"{format_bytes(gpu.measured, 'GiB', 1)} of the "
                     f"{format_bytes(estimate.capacity_bytes, 'GiB', 0)} "
                     f"{'it has' if fits else 'it has: it does not fit'}")
        parts.append(text)
    step = by_name.get("step_s")
    job = by_name.get("job_s")
    if step is not None:
        text = (f"an optimizer step took {_seconds(step.measured)} against an estimated "
                f"{_seconds(step.estimated)} ({_pct(step.diff_pct)})")
        if job is not None:
            text += (f", so the whole job would take {_seconds(job.measured)} instead "
                     f"of {_seconds(job.estimated)}")
        parts.append(text)
    if not parts:
        return f"On {where} the plan check measured nothing to compare."
    return f"On {where}, " + "; ".join(parts) + "."


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.0f}%"


def _seconds(value: float) -> str:
    return f"{value:.3g} s" if value < 90 else format_duration(value)


def _value(row: ComparisonRow, value: float | None, units: str) -> str:
    if value is None:
        return "n/a"
    if row.unit == "bytes":
        return format_bytes(value, units, 2)
    if row.unit == "s":
        return _seconds(value)
    if row.unit == "tokens/s":
        return f"{value:,.0f} tokens/s"
    return f"{value:.3g} {row.unit}"


def format_comparison(comparison: PlanCheckComparison, units: str = "GiB") -> str:
    """The comparison as a table for people (``units``: ``GiB`` or ``GB``)."""
    lines = [f"Plan check: {comparison.model_name} — {comparison.plan_text}",
             f"Measured on {comparison.device_name} ({comparison.device_id}); estimate for "
             f"{comparison.estimate_gpu_id}",
             ""]
    cells = [(row.label, _value(row, row.measured, units), _value(row, row.estimated, units),
              _pct(row.diff_pct)) for row in comparison.rows]
    width = max([len(c[0]) for c in cells] + [10])
    value_width = max([len(c[i]) for c in cells for i in (1, 2)] + [10])
    lines.append(f"  {'':<{width}}  {'measured':>{value_width}}  {'estimated':>{value_width}}"
                 f"  {'difference':>10}")
    for label, measured, estimated, pct in cells:
        lines.append(f"  {label:<{width}}  {measured:>{value_width}}  "
                     f"{estimated:>{value_width}}  {pct:>10}")
    lines += ["", comparison.summary]
    if comparison.notes:
        lines.append("Notes:")
        lines += [f"  - {note}" for note in comparison.notes]
    return "\n".join(lines)


__all__ = ["DEPTHS", "PLAN_PROBES", "ComparisonRow", "PlanCheckComparison", "compare",
           "estimate_for", "format_comparison", "matched_gpu_id", "options_for",
           "percent_difference", "plan_text", "probe_options", "step_options_for"]
