"""The plan check of an inference plan, app side: plan -> worker options, measured vs
estimated decode speed (Qt-free, no torch).

The worker's ``decodecheck`` probe (``kernels/decodecheck.py``) builds the planned decoder
at depth 1 and 2 with random weights in the plan's format, prefills part of the prompt and
times greedy decode steps with the KV cache growing around the plan's mean context, then
extrapolates to the full depth; the ``decode`` probe times the GEMV of the same weight
format (the kernel's ceiling). This module says what to build
(:func:`decode_options_for`, :func:`probe_options`), which estimate to hold it against
(:func:`estimate_for`) and puts the two side by side (:func:`compare`, as a
:class:`~gpuadvisor.probes.plancheck.PlanCheckComparison` that
:func:`~gpuadvisor.probes.plancheck.format_comparison` prints). :func:`check_probe_options`
and :func:`check_compare` choose between this and the training plan check by the plan's
task. ``gpuadvisor probe --plan FILE`` is the command line over both.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from gpuadvisor.core.calibration import measured_format
from gpuadvisor.core.estimate import REFERENCE_GPU_ID, Estimate
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import PRECISION_LABELS, Plan
from gpuadvisor.core.quant import weight_quant
from gpuadvisor.core.resolve import resolve
from gpuadvisor.core.units import format_duration

from . import plancheck
from .plancheck import ComparisonRow, PlanCheckComparison, add_row
from .protocol import Result
from .runner import ProbeRun

if TYPE_CHECKING:  # a type only: the probes sit below the workspace
    from gpuadvisor.workspace.planfile import PlanDocument

#: The probes ``probe --plan`` runs for an inference plan, in order.
PLAN_PROBES = ("decodecheck", "decode")
#: Depths the decode check builds; the full depth is extrapolated from them.
DEPTHS = (1, 2)


# --------------------------------------------------------------------------- options
def weights_format(model: ModelSpec, plan: Plan) -> str:
    """The weight format the decode check builds for ``plan``: ``fp32``/``fp16``/``bf16``
    for unquantized weights at the plan's precision (``fp8`` weights: one byte, built as
    ``int8``), else the measured format standing for the plan's (or the checkpoint's)
    quantization (:func:`~gpuadvisor.core.calibration.measured_format`)."""
    quant = weight_quant(model, plan)
    if quant in (None, "", "none"):
        return {"fp8": "int8"}.get(plan.precision, plan.precision)
    return measured_format(quant)


def decode_options_for(model: ModelSpec, plan: Plan) -> dict[str, Any]:
    """The ``decodecheck`` probe's options for an inference ``plan`` on ``model``.

    Raises:
        ValueError: a plan that is not inference or runs on several GPUs, or a model the
            decode check cannot build (given by parameter count only, an encoder, a
            mixture of experts, latent attention).
    """
    what = f"model {model.id!r}"
    if plan.task != "infer":
        raise ValueError(f"task {plan.task}: the decode check times inference; training "
                         "plans are checked by training steps")
    if plan.n_gpus > 1:
        raise ValueError(f"n_gpus {plan.n_gpus}: the decode check measures one GPU holding "
                         "the whole model; set n_gpus to 1")
    if model.kind == "opaque":
        raise ValueError(f"{what} is given by parameter count and FLOPs only (kind opaque): "
                         "the decode check builds decoders from their architecture numbers")
    if model.kind != "decoder":
        raise ValueError(f"{what} is an {model.kind}: the decode check builds decoders "
                         "(causal attention, a KV cache and an LM head)")
    if model.is_moe:
        raise ValueError(f"{what} is a mixture of experts ({model.n_experts} experts, "
                         f"{model.experts_per_token} per token): the decode check builds "
                         "dense decoders only")
    if model.kv_lora_rank:
        raise ValueError(f"{what} uses latent attention (kv_lora_rank "
                         f"{model.kv_lora_rank}): the decode check builds grouped-query "
                         "attention only")
    options: dict[str, Any] = {
        "hidden": model.d_model, "heads": model.n_heads, "kv_heads": model.n_kv_heads,
        "head_dim": model.head_dim, "ffn": model.d_ff, "gated": model.mlp == "gated",
        "norm": model.norm, "vocab": model.vocab_size, "layers_full": model.n_layers,
        "seq": plan.seq_len, "new_tokens": plan.new_tokens, "micro_batch": plan.micro_batch,
        "weights": weights_format(model, plan), "depths": list(DEPTHS),
    }
    if plan.kv_dtype is not None:
        options["kv_dtype"] = plan.kv_dtype
    return options


def probe_options(model: ModelSpec, plan: Plan) -> dict[str, dict[str, Any]]:
    """Options per probe for ``probe --plan`` of an inference plan: ``decodecheck`` at the
    plan's shape and ``decode`` timing the GEMV of its weight format (fp16 for fp32)."""
    options = decode_options_for(model, plan)
    gemv = options["weights"] if options["weights"] != "fp32" else "fp16"
    return {"decodecheck": options, "decode": {"formats": [gemv]}}


def check_probe_options(model: ModelSpec, plan: Plan) -> dict[str, dict[str, Any]]:
    """The plan check's options for any plan: this module's for inference, the training
    plan check's (:func:`gpuadvisor.probes.plancheck.probe_options`) otherwise."""
    if plan.task == "infer":
        return probe_options(model, plan)
    return plancheck.probe_options(model, plan)


def check_probes(options: Mapping[str, Any]) -> list[str]:
    """The probes to run for :func:`check_probe_options`'s options, in order."""
    return [p for p in (*plancheck.PLAN_PROBES, *PLAN_PROBES) if p in options]


# --------------------------------------------------------------------------- estimate
def estimate_for(document: PlanDocument, run: ProbeRun | None = None) -> Estimate:
    """The estimate to hold an inference check against: on the catalog GPU matching the
    device measured, else the plan file's GPU, else none (time on the reference GPU);
    catalog bandwidth x efficiency and the file's overrides, not earlier probe
    measurements (the check tests the estimator itself)."""
    from gpuadvisor import catalog

    gpus = catalog.load_gpus()
    gpu_id = None
    if run is not None:
        measured = run.result("decodecheck")
        device_id = measured.conditions.get("device") if measured is not None else None
        gpu_id = plancheck.matched_gpu_id(run.hello, device_id, gpus)
    gpu_id = gpu_id or document.gpu_id
    gpu = gpus.get(gpu_id) if gpu_id else None
    return resolve(document.model, document.plan, gpu, document.assumptions,
                   reference_gpu=gpus[REFERENCE_GPU_ID])


def check_compare(run: ProbeRun, document: PlanDocument) -> PlanCheckComparison:
    """Measured vs estimated for any plan check run (inference or training)."""
    if document.plan.task == "infer":
        return compare(run, estimate_for(document, run))
    return plancheck.compare(run, plancheck.estimate_for(document, run))


# --------------------------------------------------------------------------- comparison
def plan_text(plan: Plan, weights: str) -> str:
    """An inference plan in a few words: ``inference, bf16, q4 weights, batch 1, 2048-token
    prompt + 256 new``."""
    return (f"inference, {PRECISION_LABELS[plan.precision]}, {weights} weights, batch "
            f"{plan.micro_batch}, {plan.seq_len}-token prompt + {plan.new_tokens} new")


def _parts(run_result) -> tuple[dict, dict | None]:
    """``(decodecheck, decode or None)`` as ``{"figures", "units", "conditions"}``."""
    def as_dict(result):
        if result is None:
            return None
        return {"figures": dict(result.figures), "units": dict(result.units),
                "conditions": dict(result.conditions)}

    if isinstance(run_result, ProbeRun):
        check = run_result.result("decodecheck")
        if check is None:
            why = "; ".join(f"{e.kind}: {e.message}" for e in run_result.errors
                            if e.probe in ("decodecheck", None)) or "no result"
            raise ValueError(f"the decode check gave no result ({why})")
        return as_dict(check), as_dict(run_result.result("decode"))
    if isinstance(run_result, Result) and run_result.probe == "decodecheck":
        return as_dict(run_result), None
    if isinstance(run_result, Mapping) and isinstance(run_result.get("figures"), Mapping):
        return dict(run_result), None
    raise ValueError("compare needs a ProbeRun, a decodecheck Result or its figures")


def compare(run_result, estimate: Estimate) -> PlanCheckComparison:
    """Put a decode check's measurements next to ``estimate`` (of the same inference plan).

    Rows (``diff_pct`` positive when the measurement is larger):

    * ``decode_tokens_per_s``: ``micro_batch / decode_step_s_full`` vs the estimate's
      ``time.decode_tokens_per_s`` (both at the mean context ``seq + new_tokens / 2``);
    * ``prefill_s``: the prompt's prefill (scaled from the tokens measured) vs
      ``time.prefill_seconds``;
    * ``decode_gb_s``: the bytes a step reads / the step's time vs the bandwidth the
      estimate assumes (``memory_bandwidth_gb_s x bandwidth_efficiency``);
    * ``gemv_gb_s``: the decode probe's GEMV of the same format (the kernel's ceiling on
      this device), when it ran, vs the same assumption.

    Raises:
        ValueError: there is no ``decodecheck`` result to compare.
    """
    check, gemv = _parts(run_result)
    figures, conditions = check["figures"], check.get("conditions", {})
    plan, time, used = estimate.plan, estimate.time, estimate.assumptions
    rows: list[ComparisonRow] = []

    add = partial(add_row, rows)

    assumed_gb_s = None
    if isinstance(used.get("memory_bandwidth_gb_s"), int | float):
        assumed_gb_s = float(used["memory_bandwidth_gb_s"]) * float(
            used.get("bandwidth_efficiency", 1.0))
    add("decode_tokens_per_s", "decode tokens per second", "tokens/s",
        figures.get("tokens_per_s_full"), time.decode_tokens_per_s or None)
    add("prefill_s", "prefill of the prompt", "s", figures.get("prefill_s_full"),
        time.prefill_seconds or None)
    add("decode_gb_s", "bandwidth a decode step reached", "GB/s",
        figures.get("achieved_gb_s_full"), assumed_gb_s)
    weights = str(conditions.get("weights", "?"))
    fmt = weights if weights != "fp32" else "fp16"
    gemv_gb_s = None if gemv is None else gemv["figures"].get(f"{fmt}_gb_s")
    add("gemv_gb_s", f"{fmt} GEMV bandwidth (decode probe)", "GB/s", gemv_gb_s, assumed_gb_s)
    notes = _notes(figures, conditions, estimate, gemv_gb_s)
    device_id = str(conditions.get("device", "?"))
    device_name = str(conditions.get("device_name", device_id))
    layers = int(conditions.get("layers_full", estimate.model.n_layers))
    depths = tuple(int(d) for d in conditions.get("depths", DEPTHS))
    rows_tuple = tuple(rows)
    return PlanCheckComparison(
        model_id=estimate.model.id, model_name=estimate.model.name,
        plan_text=plan_text(plan, weights), device_id=device_id, device_name=device_name,
        estimate_gpu_id=estimate.time_gpu.id, memory_measured=False, layers_full=layers,
        depths=depths, rows=rows_tuple,
        summary=_summary(rows_tuple, device_name, device_id, plan), notes=tuple(notes))


def _notes(figures: Mapping, conditions: Mapping, estimate: Estimate,
           gemv_gb_s: float | None) -> list[str]:
    notes = []
    device_id = str(conditions.get("device", "?"))
    if device_id == "cpu":
        notes.append(f"measured on the CPU, while the estimate times a "
                     f"{estimate.time_gpu.name}: the difference says little about that GPU")
    loop = figures.get("achieved_gb_s_full")
    if loop and gemv_gb_s:
        notes.append(f"the decode loop reached {100 * loop / gemv_gb_s:.0f}% of the GEMV "
                     "bandwidth: the rest goes to attention, norms and launching each "
                     "operation")
    per_token = figures.get("bytes_per_token_full")
    if per_token:
        notes.append(f"a decode step reads {per_token / 2**30:.2f} GiB (weights, KV cache at "
                     f"{conditions.get('context', '?')} tokens of context, LM head)")
    built = conditions.get("weights")
    quant = weight_quant(estimate.model, estimate.plan)
    if built and quant not in ("none", built):
        notes.append(f"the plan's weights are {quant}; the check built {built}, the "
                     "measured format standing for them (its bytes per weight may differ)")
    notes.extend(str(n) for n in conditions.get("notes", []) or [])
    layers = conditions.get("layers_full", estimate.model.n_layers)
    depths = conditions.get("depths", list(DEPTHS))
    notes.append(f"measured at depths {depths[0]} and {depths[1]} and extrapolated linearly "
                 f"to {layers} layers; {conditions.get('decode_tokens', '?')} decode steps "
                 f"timed, {conditions.get('prefill_tokens', '?')} prompt tokens prefilled")
    return notes


def _summary(rows: tuple[ComparisonRow, ...], device_name: str, device_id: str,
             plan: Plan) -> str:
    by_name = {r.name: r for r in rows}
    where = "the CPU" if device_id == "cpu" else device_name
    parts = []
    speed = by_name.get("decode_tokens_per_s")
    if speed is not None:
        parts.append(f"decoding ran at {speed.measured:,.1f} tokens/s against an estimated "
                     f"{speed.estimated:,.1f} ({_pct(speed.diff_pct)})")
    prefill = by_name.get("prefill_s")
    if prefill is not None:
        parts.append(f"the {plan.seq_len}-token prompt took {_seconds(prefill.measured)} "
                     f"against {_seconds(prefill.estimated)} ({_pct(prefill.diff_pct)})")
    if not parts:
        return f"On {where} the decode check measured nothing to compare."
    return f"On {where}, " + "; ".join(parts) + "."


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.0f}%"


def _seconds(value: float) -> str:
    return f"{value:.3g} s" if value < 90 else format_duration(value)


__all__ = ["DEPTHS", "PLAN_PROBES", "check_compare", "check_probe_options", "check_probes",
           "compare", "decode_options_for", "estimate_for", "plan_text", "probe_options",
           "weights_format"]
