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

from collections.abc import Callable
from dataclasses import dataclass

from gpuadvisor.core.estimate import Estimate
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
    runs = {"tp", "cp"} if (kind == "accelerate" and backend == "fsdp") else set()
    degrees = {k: v for k, v in model_parallel(result).items() if k not in runs}
    if degrees and kind in DATA_PARALLEL_TOOLS:
        pins = {name: 1 for name in ("tp", "pp", "cp", "ep") if name not in runs}
        flat = resolve_with(**pins, vpp=None)
        named = " x ".join(f"{k.upper()} {v}" for k, v in degrees.items())
        fit = "" if flat.fits is not False else " — it does not fit"
        tool = DATA_PARALLEL_TOOLS[kind]
        others = ("accelerate with --backend fsdp (FSDP2), Megatron-LM, NeMo or torchtitan"
                  if set(degrees) <= {"tp", "cp"} else "Megatron-LM, NeMo or torchtitan")
        notes.append(f"the estimate's fastest layout uses {named}, which {tool} cannot run "
                     f"({others} can); this export runs the fastest layout it can instead: "
                     f"{format_bytes(flat.memory.total)} per GPU, "
                     f"{format_duration(flat.time.seconds)}{fit}")
        result = flat
    zero = result.layout.chosen.layout.zero if result.layout is not None else None
    if runs and zero == 1:
        plan = run_plan(result)
        result = resolve_with(zero_stage=2, tp=plan.tp, cp=plan.cp, pp=plan.pp, ep=plan.ep)
        notes.append(f"FSDP has no ZeRO-1: ZeRO-2 (reshard_after_forward false) instead, "
                     f"{format_bytes(result.memory.total)} per GPU, "
                     f"{format_duration(result.time.seconds)}")
    group = result.layout.gpus_per_node if hybrid_shard(result) else None
    return RunnablePlan(run_plan(result), result, group, "; ".join(notes) or None)


__all__ = ["DATA_PARALLEL_TOOLS", "RunnablePlan", "runnable_plan"]
