"""An engine's record combined into the estimate's memory breakdown, time and assumptions.

:func:`gpuadvisor.core.estimate.estimate` calls :func:`engine_view` for inference plans: the
engine (:func:`~.select.engine_for`) is evaluated on the time GPU, its terms become the
seven-term :class:`~gpuadvisor.core.memory.MemoryBreakdown` (gradients and optimizer states
are 0), and its :class:`~.base.DecodeCost` goes to
:func:`~gpuadvisor.core.inference_time.inference_time`. ``transformers`` keeps the generic model.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.compute import TimeEstimate
from gpuadvisor.core.engines.base import EngineResult
from gpuadvisor.core.engines.select import engine_for, evaluate_engine
from gpuadvisor.core.engines.transformers import settings as transformers_settings
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.inference_time import inference_time
from gpuadvisor.core.memory import MemoryBreakdown
from gpuadvisor.core.phrase import Phrase
from gpuadvisor.core.plan import Plan


@dataclass(frozen=True)
class EngineView:
    """What the estimate takes from the engine.

    Attributes:
        name: the engine.
        why: why it was chosen (``plan``, or the ``auto`` rule).
        result: its record (None for transformers: the generic model).
        memory: the breakdown per GPU (None for transformers).
    """

    name: str
    why: str
    result: EngineResult | None
    memory: MemoryBreakdown | None


def engine_view(shape: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions, *,
                host_bandwidth_gb_s: float | None = None,
                host_source: str = "measured") -> EngineView:
    """The engine of an inference plan evaluated on ``gpu``.

    Raises:
        ValueError: what the engine refuses (names the field).
    """
    name, why = engine_for(plan, shape, gpu)
    result = evaluate_engine(name, shape, plan, gpu, assumptions,
                             host_bandwidth_gb_s=host_bandwidth_gb_s, host_source=host_source)
    if result is None:
        return EngineView(name, why, None, None)
    memory = MemoryBreakdown(
        weights=float(result.weights), gradients=0.0, optimizer=0.0,
        activations=float(result.activations), logits=float(result.logits),
        kv_cache=float(result.kv_cache), overhead=float(result.overhead),
        cpu_bytes=float(result.host_bytes), context_bytes=float(result.context))
    return EngineView(name, why, result, memory)


def engine_time(shape: ModelShape, plan: Plan, result: EngineResult, *, peak_tflops: float,
                bandwidth_gb_s: float, measured_bandwidth: bool,
                assumptions: Assumptions) -> TimeEstimate:
    """The plan's time on the engine: :func:`inference_time` with its decode terms.

    The weights a step reads are each GPU's share with tensor parallelism (the GPUs read at
    once) and all of them with a layer split (the GPUs take turns); likewise the KV cache.
    A measured bandwidth is already an achieved rate: the engine's streaming fraction is
    then 1. ``result.kv_bytes_per_token`` is already what one step reads (per GPU, or all of
    them with a layer split).
    """
    n = plan.n_gpus
    together = n if result.split == "layer" else 1
    decode = result.decode
    if decode is not None and measured_bandwidth:
        decode = replace(decode, bandwidth_efficiency=1.0)

    def timed(sequences: int) -> TimeEstimate:
        return inference_time(
            shape, plan.with_changes(micro_batch=sequences, dataset_samples=None)
            if sequences != plan.micro_batch else plan,
            peak_tflops=peak_tflops, bandwidth_gb_s=bandwidth_gb_s,
            resident_bytes=result.weights * together,
            expert_bytes=None if result.expert_weights is None else
            result.expert_weights * together,
            kv_bytes_per_token=result.kv_bytes_per_token,
            assumptions=assumptions, decode=decode)

    held = requests_at_once(result, plan)
    if held is None:
        return timed(plan.micro_batch)
    # vLLM's pool runs ``held`` whole requests at once: the plan's requests go in waves of
    # that many (the rest wait), each wave a prompt pass and its decode steps.
    full, rest = divmod(plan.micro_batch, held)
    wave = timed(held)
    last = timed(rest) if rest else None
    batch = full * wave.step_seconds + (last.step_seconds if last else 0.0)
    prefill = full * wave.prefill_seconds + (last.prefill_seconds if last else 0.0)
    flops = full * wave.flops_total + (last.flops_total if last else 0.0)
    batches = 1.0
    if plan.dataset_samples is not None:
        batches = float(np.ceil(plan.dataset_samples * plan.epochs / plan.micro_batch))
    seconds = batches * batch
    tokens = batches * plan.micro_batch * plan.new_tokens
    return replace(wave, seconds=seconds, gpu_hours=seconds * n / 3600.0,
                   tokens_per_s=tokens / seconds, tokens_per_s_per_gpu=tokens / seconds / n,
                   steps=batches, step_seconds=batch, compute_seconds_per_step=prefill,
                   prefill_seconds=prefill, flops_total=batches * flops)


def requests_held(result: EngineResult, plan: Plan) -> int | None:
    """Whole requests of ``seq_len + new_tokens`` tokens an engine that reserves its share
    of the card (vLLM) runs at once, at most the plan's ``micro_batch`` (0 when it would not
    start); None for an engine without such a pool."""
    if not result.budget:
        return None
    if result.refuses or not result.capacity_tokens:
        return 0
    length = plan.seq_len + plan.new_tokens
    block = int(result.settings.get("block_size") or 1)
    blocks = int(result.settings.get("kv_blocks") or result.capacity_tokens // block)
    # whole blocks a request (vLLM gives each ceil(tokens / block) of them)
    held = blocks // -(-length // block) if length else plan.micro_batch
    return min(plan.micro_batch, held)


def requests_at_once(result: EngineResult, plan: Plan) -> int | None:
    """Whole requests an engine that reserves its share of the card (vLLM) runs at once,
    when its KV pool holds fewer than the plan's ``micro_batch`` (``max_num_seqs``) of
    ``seq_len + new_tokens`` tokens; None when all run at once (or the engine has no
    pool, or it would not start)."""
    held = requests_held(result, plan)
    return held if held and held < plan.micro_batch else None


def with_prompt_scale(view: EngineView | None, assumptions: Assumptions, scale: float,
                      why: str) -> tuple[EngineView | None, Assumptions]:
    """The engine view and time assumptions with the prompt's matmul rate times ``scale``
    (a probe's measured matmul over the rate published for the card's model: this card as
    it runs, a laptop's power limit or a factory overclock): the engine's own prompt-kernel
    rate when it has one (:mod:`.prompt_rates`), the default prefill efficiency otherwise
    (at most 1)."""
    assumptions = replace(assumptions, efficiency_infer_prefill=min(
        1.0, assumptions.efficiency_infer_prefill * scale))
    result = view.result if view is not None else None
    if result is not None and result.decode is not None and result.decode.prompt is not None:
        d = result.decode
        d = replace(d, prompt=d.prompt.scaled(scale, why))
        view = replace(view, result=replace(result, decode=d))
    return view, assumptions


def engine_assumptions(view: EngineView, plan: Plan, assumptions: Assumptions,
                       measured_bandwidth: bool = False) -> dict:
    """The engine and every engine default used, for the estimate's ``assumptions``: the
    engine's settings by name, and ``<name>_source`` saying which came from its defaults."""
    used: dict[str, object] = {"engine": view.name, "engine_source": view.why}
    if view.result is None:
        settings, defaults = transformers_settings(plan, assumptions)
    else:
        settings, defaults = view.result.settings, view.result.defaults
        decode = view.result.decode
        if decode is not None:
            used["bandwidth_efficiency"] = 1.0 if measured_bandwidth else \
                decode.bandwidth_efficiency
            used["engine_bandwidth_efficiency"] = decode.bandwidth_efficiency
            if decode.kernel_read_gb_s:
                used["engine_kernel_read_gb_s"] = round(decode.kernel_read_gb_s, 1)
            used["engine_kernels_per_token"] = decode.kernels_per_step
            used["engine_kernel_gap_s"] = decode.kernel_gap_s
            used["engine_dram_latency_s"] = decode.dram_latency_s
            used["engine_host_s_per_token"] = decode.host_s
            if decode.pipelined_host_s:
                used["engine_overlapped_host_s_per_token"] = decode.pipelined_host_s
            used["engine_sampling_s_per_token"] = decode.sampling_s
            used["engine_decode_source"] = decode.source
            if decode.prompt is not None and plan.efficiency is None:
                for name in ("tflops", "source", "kernel", "fraction", "peak", "cited"):
                    used[f"engine_prefill_{name}"] = getattr(decode.prompt, name)
    for key, value in settings.items():
        used[f"engine_{key}"] = value
    for key, why in defaults.items():
        used[f"engine_{key}_source"] = Phrase("default: {why}", why=why)
    return used


__all__ = [
    "EngineView",
    "engine_assumptions",
    "engine_time",
    "engine_view",
    "requests_at_once",
    "requests_held",
    "with_prompt_scale",
]
