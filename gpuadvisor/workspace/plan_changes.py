"""A change to the shared plan: the knock-on changes that keep it valid, and whom to blame.

:func:`couple_plan_changes` completes what the user asked for (a task switch clears the LoRA
rank, ZeRO 0 turns offload off, ...), :func:`plan_for_model` adjusts a plan to a newly chosen
model, and :func:`error_field` names the field a rejected change is reported on. Used by
:class:`gpuadvisor.workspace.state.PlanState`; Qt-free like it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuadvisor.core.layout_pins import layout_pin_problem
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import (
    INFER_ENGINES,
    LAYOUT_PINS,
    QUANTIZED_KV,
    TRAIN_FRAMEWORKS,
    Plan,
)
from gpuadvisor.workspace.planfile import plan_field_in_message

_ADAPTER_TASKS = ("lora", "qlora")


def couple_plan_changes(plan: Plan, changes: Mapping[str, Any]) -> dict:
    """``changes`` plus the knock-on changes that keep the plan valid.

    A field the caller names explicitly is never overridden (a contradiction the caller asks
    for is reported by validation instead). The couplings:

    * ``task`` leaves lora/qlora -> ``lora_rank`` is cleared (rank only exists for adapters).
    * ``task`` becomes pretrain/full/lora -> a quantized ``quant`` is cleared (quantized weights
      cannot be trained; a frozen quantized base is qlora).
    * ``task`` becomes qlora with ``quant == "none"`` -> ``quant`` is cleared (default nf4-dq).
    * ``zero_stage`` set to 0 -> ``offload`` becomes ``none`` (offload needs ZeRO); set to 1
      or 2 with ``offload == "params"`` -> ``offload`` becomes ``optimizer`` (parameter
      offload needs ZeRO-3; optimizer offload works with ZeRO 1-2).
    * ``offload`` set to ``optimizer`` with ZeRO 0 -> ``zero_stage`` 2; set to ``params`` ->
      ``zero_stage`` 3 (the lowest stage that supports it).
    * ``dataset_tokens`` set -> ``dataset_samples`` cleared, and the other way round (the
      data set is given one way or the other).
    * ``task`` crosses between training and inference -> ``framework`` back to ``auto`` (a
      fine-tuning framework does not serve, an engine does not train); llama.cpp's
      ``gpu_layers``/``n_cpu_moe``/``backend``, vLLM's ``gpu_memory_utilization`` and a quantized KV
      cache are cleared when the framework no longer has them.
    * a pinned layout (``tp``, ``pp``, ``vpp``, ``cp``, ``ep``, ``layout_global_batch``) is
      cleared when the plan becomes inference or one GPU, and the degrees are cleared when
      a new GPU count (or another pin) leaves them impossible (see
      :func:`~gpuadvisor.core.layout_pins.layout_pin_problem`); ``pp`` set free or to 1 frees
      ``vpp`` (virtual stages interleave a pipeline).

    Args:
        plan: the current plan.
        changes: plan field -> new value, as the user asked.

    Returns:
        A new dict of changes to pass to :meth:`Plan.with_changes`.
    """
    out = dict(changes)
    merged = plan.to_dict() | out

    def follow(name: str, value: Any) -> None:
        if name not in changes and merged[name] != value:
            out[name] = merged[name] = value

    _couple_task(merged, follow)
    _couple_sharding(merged, changes, follow)
    _couple_layout(merged, changes, follow)
    if "dataset_tokens" in changes and merged["dataset_tokens"] is not None:
        follow("dataset_samples", None)
    if "dataset_samples" in changes and merged["dataset_samples"] is not None:
        follow("dataset_tokens", None)
    return out


def _couple_task(merged: dict, follow) -> None:
    task = merged["task"]
    if task not in _ADAPTER_TASKS and merged["lora_rank"] is not None:
        follow("lora_rank", None)
    if task in ("pretrain", "full", "lora") and merged["quant"] not in (None, "none"):
        follow("quant", None)
    if task == "qlora" and merged["quant"] == "none":
        follow("quant", None)
    _couple_framework(merged, follow)


def _couple_framework(merged: dict, follow) -> None:
    """Training frameworks and inference engines apart: a task switch across the two sets the
    framework back to automatic; an engine's own settings leave with it."""
    infer = merged["task"] == "infer"
    framework = merged["framework"]
    if (infer and framework in TRAIN_FRAMEWORKS) or (
            not infer and framework in INFER_ENGINES):
        follow("framework", "auto")
        framework = "auto"
    llama = infer and framework in ("auto", "llama.cpp", "ollama")
    if not llama:
        follow("gpu_layers", None)
        follow("n_cpu_moe", 0)
        follow("backend", None)
    if not (infer and framework in ("auto", "vllm")):
        follow("gpu_memory_utilization", None)
    if merged["kv_dtype"] in QUANTIZED_KV and not (
            infer and framework in ("llama.cpp", "ollama", "exllamav2")):
        follow("kv_dtype", None)


def _couple_sharding(merged: dict, changes: Mapping[str, Any], follow) -> None:
    if "zero_stage" in changes:
        if merged["zero_stage"] == 0 and merged["offload"] != "none":
            follow("offload", "none")
        elif merged["zero_stage"] in (1, 2) and merged["offload"] == "params":
            follow("offload", "optimizer")
    if "offload" in changes:
        if merged["offload"] == "optimizer" and merged["zero_stage"] == 0:
            follow("zero_stage", 2)
        elif merged["offload"] == "params" and merged["zero_stage"] != 3:
            follow("zero_stage", 3)


def _couple_layout(merged: dict, changes: Mapping[str, Any], follow) -> None:
    """Pins leave with the GPUs that held them; a pipeline's virtual stages with it."""
    if "pp" in changes and (merged["pp"] or 1) == 1 and merged["vpp"] not in (None, 1):
        follow("vpp", None)
    if merged["task"] == "infer" or merged["n_gpus"] == 1:
        for name in (*LAYOUT_PINS, "layout_global_batch"):
            follow(name, None)
        return
    if not set(changes) & {"n_gpus", "task", *LAYOUT_PINS}:
        return
    try:
        problem = layout_pin_problem(Plan.from_dict(merged))
    except (TypeError, ValueError):
        return  # the change itself is invalid: validation says so
    if problem is not None:
        # Degrees the user did not just set give way (a new GPU count frees them all).
        for name in LAYOUT_PINS:
            follow(name, None)


def plan_for_model(plan: Plan, model: ModelSpec) -> Plan:
    """``plan`` adjusted so that ``model`` can run it.

    Models described by parameter count only (``kind == "opaque"``: CNNs, diffusion UNets)
    are measured in samples, so a data set given in tokens is dropped (the estimate then
    reports its default data set), and a pinned layout too (no layers to split); a pinned
    expert-parallel degree is dropped for a model without experts. Everything else,
    ``seq_len`` included, is kept: a sequence longer than the model's context is reported as
    a warning on the estimate.
    """
    if model.kind == "opaque" and plan.dataset_tokens is not None:
        plan = plan.with_changes(dataset_tokens=None)
    if model.kind == "opaque" and (plan.layout_pins or plan.layout_global_batch):
        # No layers to split: the layout model does not time it.
        plan = plan.with_changes(**dict.fromkeys((*LAYOUT_PINS, "layout_global_batch")))
    elif plan.ep is not None and not _is_moe(model):
        plan = plan.with_changes(ep=None)  # experts to split only in a mixture of experts
    return plan


def _is_moe(model: ModelSpec) -> bool:
    """Whether ``model`` is a mixture of experts (more than one expert per MoE layer)."""
    return int(getattr(model, "n_experts", 0) or 0) > 1


def error_field(message: str, changes: Mapping[str, Any]) -> str:
    """The field to blame for a rejected plan change: a changed field the message names,
    else the only changed field, else any plan field the message names, else ``"plan"``
    (see :meth:`gpuadvisor.workspace.state.PlanState.update`)."""
    named = plan_field_in_message(message, prefer=changes)
    if named in changes:
        return named
    if len(changes) == 1:
        return next(iter(changes))
    return named or "plan"


__all__ = ["couple_plan_changes", "error_field", "plan_for_model"]
