"""The ``gpuadvisor estimate`` command line that reproduces an exported plan's estimate.

Every export that can hold a comment starts with it, so the file and the numbers it was
priced at stay together: run the line and the same memory per GPU and time come back. The
plan given is the plan as it will run (:func:`gpuadvisor.core.resolve.run_plan`), so its
layout is pinned (``--tp``, ``--pp``, ``--zero``, ``--global-batch``, ...) and the line
reproduces the layout the export writes, not a new search.
"""

from __future__ import annotations

from gpuadvisor.core.plan import Plan

from .quoting import shell_word

#: Plan fields that are flags of ``estimate`` with the same meaning, and the flag.
_FLAGS = (
    ("task", "--task"), ("precision", "--precision"), ("optimizer", "--optimizer"),
    ("micro_batch", "--micro-batch"), ("grad_accum", "--grad-accum"), ("seq_len", "--seq"),
    ("checkpointing", "--checkpointing"), ("attention", "--attention"),
    ("lora_rank", "--lora-rank"), ("lora_targets", "--lora-targets"), ("quant", "--quant"),
    ("n_gpus", "--gpus"), ("offload", "--offload"), ("new_tokens", "--new-tokens"),
    ("kv_dtype", "--kv-dtype"), ("efficiency", "--efficiency"), ("framework", "--framework"),
    ("gpu_layers", "--gpu-layers"), ("n_cpu_moe", "--n-cpu-moe"),
    ("gpu_memory_utilization", "--gpu-memory-utilization"), ("num_ctx", "--num-ctx"),
    ("tp", "--tp"), ("pp", "--pp"), ("vpp", "--vpp"), ("cp", "--cp"), ("ep", "--ep"),
    ("layout_global_batch", "--global-batch"),
    ("max_num_batched_tokens", "--max-num-batched-tokens"),
    ("engine_version", "--engine-version"), ("backend", "--backend"),
    ("recompute_layers", "--recompute-layers"),
)
#: What a plan field holds when the flag is left out (the line stays short).
_DEFAULTS = {"precision": "bf16", "optimizer": "adamw", "micro_batch": 1, "grad_accum": 1,
             "attention": "flash", "lora_targets": "all", "n_gpus": 1, "offload": "none",
             "new_tokens": 256, "framework": "auto", "n_cpu_moe": 0}


def _number(value) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value == int(value) and abs(value) < 1e15 else repr(value)
    return str(value)


def estimate_command(model_ref: str, plan: Plan, gpu_id: str | None = None, *,
                     hybrid_shard: bool = False) -> str:
    """``gpuadvisor estimate ...`` for ``plan`` on ``gpu_id``, every word shell-quoted.

    ``model_ref`` is what ``--model`` was given (a preset id or a path). Training plans
    carry their data set (``--tokens``, or ``--samples``/``--epochs``) and their ZeRO stage
    (``--zero``, given even at 0 so the line pins it). ``hybrid_shard``: the layout shards
    inside nodes and replicates across them (``--hybrid-shard``).
    """
    words = ["gpuadvisor", "estimate", "--model", model_ref]
    if gpu_id:
        words += ["--gpu", gpu_id]
    for name, flag in _FLAGS:
        value = getattr(plan, name)
        if value is None or _DEFAULTS.get(name) == value:
            continue
        if name == "lora_targets" and not plan.is_adapter:
            continue
        if name == "checkpointing" and not plan.is_training:
            continue
        words += [flag, _number(value)]
    if plan.is_training:
        words += ["--zero", str(plan.zero_stage)]
        if hybrid_shard:
            words.append("--hybrid-shard")
        if plan.dataset_tokens is not None:
            words += ["--tokens", _number(plan.dataset_tokens)]
        else:
            if plan.dataset is not None:
                words += ["--dataset", plan.dataset]
            if plan.dataset_samples is not None:
                words += ["--samples", _number(plan.dataset_samples)]
            if plan.dataset is not None or plan.dataset_samples is not None:
                words += ["--epochs", _number(plan.epochs)]
        if plan.packing:
            words.append("--packing")
    if plan.enforce_eager:
        words.append("--enforce-eager")
    return " ".join(shell_word(word) for word in words)


__all__ = ["estimate_command"]
