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
                  data_parallel: Callable[[], Estimate]) -> RunnablePlan:
    """The plan export ``kind`` writes for the estimate ``result``.

    ``data_parallel()`` resolves the same plan with tensor, pipeline, context and expert
    parallelism pinned to 1 (:func:`gpuadvisor.core.resolve.resolve_data_parallel` with the
    door's own options); it is asked only when ``result``'s layout needs them.
    """
    note = None
    degrees = model_parallel(result)
    if degrees and kind in DATA_PARALLEL_TOOLS:
        flat = data_parallel()
        named = " x ".join(f"{k.upper()} {v}" for k, v in degrees.items())
        fit = "" if flat.fits is not False else " — it does not fit"
        note = (f"the estimate's fastest layout uses {named}, which "
                f"{DATA_PARALLEL_TOOLS[kind]} cannot run (Megatron-LM, NeMo or torchtitan "
                f"can); this export runs the fastest data-parallel layout instead: "
                f"{format_bytes(flat.memory.total)} per GPU, "
                f"{format_duration(flat.time.seconds)}{fit}")
        result = flat
    group = result.layout.gpus_per_node if hybrid_shard(result) else None
    return RunnablePlan(run_plan(result), result, group, note)


__all__ = ["DATA_PARALLEL_TOOLS", "RunnablePlan", "runnable_plan"]
