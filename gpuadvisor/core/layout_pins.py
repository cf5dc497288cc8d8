"""Pinned parallel layouts: whether a plan's pinned degrees (``tp``, ``pp``, ``vpp``, ``cp``,
``ep``, the global batch) can be laid out on its GPUs by its framework, said as the problem
naming the field. A plan is valid without this check (a copy on one GPU, as the layout
model makes, stays valid); every door that takes pins from a person asks it.
"""

from __future__ import annotations

from .limits import MAX_BATCH
from .plan import MODEL_PARALLEL_FRAMEWORKS, PINNABLE_DEGREES, Plan


def layout_pin_problem(plan: Plan) -> str | None:
    """What is wrong with ``plan``'s pinned layout on its GPU count, naming the field, or
    None when the pins can be laid out.

    Tensor, pipeline and context parallel ranks multiply (with the data-parallel replicas)
    to the GPU count, ``tp x pp x cp x dp = n_gpus``; expert parallel reuses the data- and
    context-parallel ranks, so ``ep`` divides ``n_gpus / (tp x pp)`` (Megatron-LM's rank
    layout; :mod:`gpuadvisor.core.parallel.layout`). Pins are for training plans.
    """
    pins = plan.layout_pins
    if not pins and plan.layout_global_batch is None:
        return None
    if not plan.is_training:
        if plan.framework == "vllm" and set(pins) == {"pp"} \
                and plan.layout_global_batch is None:
            # vLLM's --pipeline-parallel-size: stages of whole layers, TP inside each
            return (f"pp {plan.pp} does not divide n_gpus {plan.n_gpus}"
                    if plan.n_gpus % plan.pp else None)
        name = next(iter(pins), "layout_global_batch")
        return (f"{name} pins a training layout; inference plans have none"
                + (" (vLLM takes --pp)" if name != "pp" else ""))
    framework = plan.effective_framework
    allowed = PINNABLE_DEGREES.get(framework, ())
    parallel = [k for k in ("tp", "pp", "vpp", "cp", "ep")
                if (pins.get(k) or 1) > 1 and k not in allowed]
    if parallel and framework not in MODEL_PARALLEL_FRAMEWORKS:
        runs = (" (tensor and context parallelism with accelerate's FSDP2 when pinned)"
                if allowed else "")
        return (f"{parallel[0]}: framework {framework} runs data parallelism (DeepSpeed or "
                f"FSDP){runs}; pipeline, expert and the other model-parallel layouts run in "
                "Megatron-LM / NeMo (framework megatron)"
                + (", which trains 16-bit or fp8 bases, not QLoRA's 4-bit one"
                   if plan.task == "qlora" else ""))
    n = plan.n_gpus
    for name in ("tp", "pp", "cp", "ep"):
        value = pins.get(name)
        if value is not None and n % value:
            return f"{name} {value} does not divide n_gpus {n}"
    product = (plan.tp or 1) * (plan.pp or 1) * (plan.cp or 1)
    if n % product:
        named = " x ".join(f"{k} {v}" for k, v in pins.items() if k in ("tp", "pp", "cp"))
        return f"{named} = {product} GPUs per replica does not divide n_gpus {n}"
    if plan.ep is not None and (n // (plan.pp or 1)) % plan.ep:
        rest = n // (plan.pp or 1)
        return (f"ep {plan.ep} must divide the tensor-, data- and context-parallel ranks, "
                f"n_gpus / pp = {rest}")
    batch = plan.layout_global_batch
    if batch is not None and batch > MAX_BATCH * plan.micro_batch * n:
        # even one data-parallel rank per GPU would need more accumulation steps than a
        # plan holds
        return (f"layout_global_batch {batch:,} needs more than {MAX_BATCH:,} accumulation "
                f"steps of micro-batch {plan.micro_batch} on {n} GPUs")
    return None


__all__ = ["layout_pin_problem"]
