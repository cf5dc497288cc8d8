"""The plan an export writes: the estimate's own, with its layout, or the fastest one the
tool can run.

Every door that exports (the command line's ``export``, the Compare page) asks this, so a
DeepSpeed config, an accelerate config, a launch line or a SkyPilot task runs the plan that
was priced: the ZeRO stage, micro-batch, accumulation and global batch of the layout
:func:`gpuadvisor.core.resolve.resolve` chose, and its hybrid sharding. These tools run data
parallelism and ZeRO/FSDP only; when the estimate's layout uses tensor, pipeline, context or
expert parallelism, the export is the fastest data-parallel layout instead, with its own
memory and time, and a note saying so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from gpuadvisor.core.estimate import Estimate
from gpuadvisor.core.parallel.layout import Layout
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.resolve import hybrid_shard, model_parallel, run_plan
from gpuadvisor.core.units import format_bytes, format_duration

#: Exports whose tool runs data parallel and ZeRO/FSDP only, and their names for people.
DATA_PARALLEL_TOOLS = {"deepspeed": "DeepSpeed", "accelerate": "accelerate",
                       "launch": "the launch line", "skypilot": "the SkyPilot task"}


@dataclass(frozen=True)
class RunnablePlan:
    """What an export writes.

    Attributes:
        plan: the plan as it will run (layout written in).
        estimate: the estimate of that plan (memory per GPU, time).
        hybrid_group: GPUs a ZeRO/FSDP shard spans when the layout shards inside nodes
            only (None for plain sharding).
        note: why the export is not the estimate's own layout (None when it is).
    """

    plan: Plan
    estimate: Estimate
    hybrid_group: int | None = None
    note: str | None = None


def runnable_plan(result: Estimate, kind: str,
                  resolve_with: Callable[..., Estimate], *, backend: str = "deepspeed"
                  ) -> RunnablePlan:
    """The plan export ``kind`` writes for the estimate ``result``.

    ``resolve_with(**plan_changes)`` resolves the same plan with some fields changed (the
    door's own options: measurement, layout settings); it is asked only when the tool
    cannot run ``result``'s layout. DeepSpeed and the launch line run data parallelism and
    ZeRO: tensor, pipeline, context and expert parallelism are pinned to 1. accelerate with
    the ``fsdp`` backend (FSDP2 and its N-D parallelism config) also runs tensor and context
    parallelism, and has no ZeRO-1: a ZeRO-1 layout becomes ZeRO-2.
    """
    notes = []
    if result.plan.recompute_layers is not None and kind in DATA_PARALLEL_TOOLS:
        # Hugging Face's gradient checkpointing (what these tools' scripts turn on)
        # recomputes every layer: less memory than the priced plan, more time.
        priced_with = resolve_with

        def resolve_with(**changes):  # every layout below recomputes every layer too
            return priced_with(**{"recompute_layers": None, **changes})

        result = resolve_with()
        notes.append(f"{DATA_PARALLEL_TOOLS[kind]} recomputes every layer (partial "
                     "recomputation is Megatron-LM's and NeMo's): this export runs full "
                     f"recomputation, {format_bytes(result.memory.total)} per GPU, "
                     f"{format_duration(result.time.seconds)}")
    runs = {"tp", "cp"} if (kind == "accelerate" and backend == "fsdp") else set()
    degrees = {k: v for k, v in model_parallel(result).items() if k not in runs}
    if degrees and kind in DATA_PARALLEL_TOOLS:
        pins = {name: 1 for name in ("tp", "pp", "cp", "ep") if name not in runs}
        named = " x ".join(f"{k.upper()} {v}" for k, v in degrees.items())
        tool = DATA_PARALLEL_TOOLS[kind]
        others = ("accelerate with --backend fsdp (FSDP2), Megatron-LM, NeMo or torchtitan"
                  if set(degrees) <= {"tp", "cp"} else "Megatron-LM, NeMo or torchtitan")
        hint = ("; 'gpuadvisor export megatron' writes it for Megatron-LM"
                if not result.plan.is_adapter else "")
        flat, changed = _fastest_that_fits(result, resolve_with, pins)
        if flat.fits is False and result.fits is not False:
            raise ValueError(
                f"layout: the estimate's fastest layout uses {named}, which {tool} cannot "
                f"run, and no layout it can run fits: the nearest needs "
                f"{format_bytes(flat.memory.total)} per GPU of "
                f"{format_bytes(flat.capacity_bytes, digits=0)}; the priced layout "
                f"({format_bytes(result.memory.total)} per GPU, "
                f"{format_duration(result.time.seconds)}) runs with {others}{hint}")
        notes.append(f"the estimate's fastest layout uses {named}, which {tool} cannot run "
                     f"({others} can{hint}); this export runs the fastest layout it can instead"
                     + (f" ({', '.join(changed)})" if changed else "")
                     + f": {format_bytes(flat.memory.total)} per GPU, "
                     f"{format_duration(flat.time.seconds)}")
        result = flat
    chosen = result.layout.chosen.layout if result.layout is not None else None
    zero = chosen.zero if chosen is not None else None
    if runs and (zero == 1 or (zero == 0 and chosen.cp > 1)):
        plan = run_plan(result)
        result = resolve_with(zero_stage=2, tp=plan.tp, cp=plan.cp, pp=plan.pp, ep=plan.ep)
        why = ("FSDP has no ZeRO-1" if zero == 1 else
               "accelerate runs context parallelism under FSDP2 only")
        notes.append(f"{why}: ZeRO-2 (reshard_after_forward false) instead, "
                     f"{format_bytes(result.memory.total)} per GPU, "
                     f"{format_duration(result.time.seconds)}")
    chosen = result.layout.chosen.layout if result.layout is not None else None
    if (hybrid_shard(result) and chosen is not None and chosen.zero != 3
            and kind in DATA_PARALLEL_TOOLS and not runs):
        # DeepSpeed shards inside nodes only at ZeRO-3 (ZeRO++ zero_hpz_partition_size);
        # FSDP2's hybrid mesh runs the other stages too.
        plan = run_plan(result)
        result = resolve_with(zero_stage=3, tp=plan.tp, cp=plan.cp, pp=plan.pp, ep=plan.ep)
        notes.append(f"DeepSpeed shards inside nodes only at ZeRO-3 "
                     f"(zero_hpz_partition_size): ZeRO-3 instead of ZeRO-{chosen.zero}, "
                     f"{format_bytes(result.memory.total)} per GPU, "
                     f"{format_duration(result.time.seconds)}")
    group = result.layout.gpus_per_node if hybrid_shard(result) else None
    return RunnablePlan(run_plan(result), result, group, "; ".join(notes) or None)


def chosen_layout(result: Estimate) -> Layout:
    """The layout ``result`` was timed with: the chosen one, or for a plan without a layout
    search (one GPU, ``--layout off``) its GPUs as data-parallel replicas."""
    if result.layout is not None:
        return result.layout.chosen.layout
    plan = result.plan
    return Layout(dp=plan.n_gpus, zero=plan.zero_stage if plan.n_gpus > 1 else 0,
                  micro_batch=plan.micro_batch, grad_accum=plan.grad_accum)


def packed_steps(result: Estimate, layout: Layout) -> int:
    """Optimizer steps that train ``result``'s tokens packed into full sequences (how
    Megatron-LM's GPT data sets feed them): the job's tokens over ``global batch x seq``;
    the estimate's own steps when it counts no tokens. A last partial step still runs."""
    tokens = result.assumptions.get("dataset_tokens")
    if not tokens:
        return max(1, math.ceil(result.time.steps - 1e-9))
    per_step = layout.global_batch * result.plan.seq_len
    return max(1, math.ceil(float(tokens) / per_step - 1e-9))


#: Checkpointing levels, least recomputation first.
_CHECKPOINTING = ("none", "selective", "full")
#: Offload levels, fastest first.
_OFFLOAD = ("none", "optimizer", "params")


def _fastest_that_fits(result: Estimate, resolve_with: Callable[..., Estimate],
                       pins: dict) -> tuple[Estimate, list[str]]:
    """The fastest data-parallel plan (``pins`` pinning the model-parallel degrees to 1)
    that trains what ``result`` trains: the same global batch, model, task, optimizer and
    precision, with the levers that change only memory and speed: more recomputation, a
    smaller micro-batch with more accumulation, and CPU offload (tried only when nothing
    fits without it). Returns the estimate and the changes made, in words; when nothing
    fits, the estimate that needs least memory."""
    plan = result.plan
    batch = result.layout.global_batch if result.layout is not None else None
    base = {**pins, "vpp": None, "layout_global_batch": batch}
    micro_batches = sorted({m for m in (plan.micro_batch, 4, 2, 1) if m <= plan.micro_batch},
                           reverse=True)
    start = _CHECKPOINTING.index(plan.checkpointing) if plan.checkpointing in \
        _CHECKPOINTING else 0
    tried: list[tuple[Estimate, list[str]]] = []
    for offload in _OFFLOAD[_OFFLOAD.index(plan.offload):]:
        fits = []
        for checkpointing in _CHECKPOINTING[start:]:
            for micro in micro_batches:
                changes = {**base, "micro_batch": micro, "checkpointing": checkpointing,
                           "offload": offload}
                if offload == "params":
                    changes["zero_stage"] = 3
                elif offload == "optimizer":
                    changes["zero_stage"] = max(plan.zero_stage, 2)
                try:
                    found = resolve_with(**changes)
                except ValueError:
                    continue  # no layout holds the global batch at this micro-batch
                words = [w for w, changed in (
                    (f"micro-batch {micro}", micro != plan.micro_batch),
                    (f"{checkpointing} checkpointing", checkpointing != plan.checkpointing),
                    (f"{offload} offload to CPU", offload != plan.offload)) if changed]
                tried.append((found, words))
                if found.fits is not False:
                    fits.append((found, words))
        if fits:
            return min(fits, key=lambda pair: pair[0].time.seconds)
    if not tried:
        return resolve_with(**base), []
    return min(tried, key=lambda pair: pair[0].memory.total)


__all__ = ["DATA_PARALLEL_TOOLS", "RunnablePlan", "chosen_layout", "packed_steps",
           "runnable_plan"]
