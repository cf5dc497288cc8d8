"""Sweeps of an inference plan that runs on an engine (llama.cpp, Ollama, vLLM, ExLlamaV2,
MLX): the engine is evaluated at each point, since its memory terms are not closed forms
over arrays (a GGUF mixture per layer, vLLM's reserve, Ollama's context by VRAM).

:func:`gpuadvisor.core.estimate.sweep_fit_map` and :func:`~gpuadvisor.core.estimate.
sweep_gpus` call these for such plans, and the Plan page's memory curves call
:func:`along`; an engine evaluation takes tens of microseconds (the GGUF tensor list is
cached per model and file type). The engine can depend on the GPU (``auto`` runs Apple GPUs
on MLX, :func:`~.select.engine_for`): a sweep over GPUs gives the rows whose engine is
``transformers`` the generic model (:func:`.transformers.gpus_counts`).
"""

from __future__ import annotations

import numpy as np

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines import transformers
from gpuadvisor.core.engines.combine import engine_time, engine_view
from gpuadvisor.core.engines.select import engine_for
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.memory import TERMS, MemoryBreakdown
from gpuadvisor.core.plan import Plan

#: The plan fields :func:`along` sweeps.
AXES = ("micro_batch", "seq_len")


def fit_map(shape: ModelShape, plan: Plan, gpu: GpuSpec, micro_batches, seq_lens,
            assumptions: Assumptions) -> np.ndarray:
    """Bytes per GPU on a micro-batch x sequence-length grid (rows: micro-batch)."""
    rows = np.atleast_1d(np.asarray(micro_batches, dtype=int))
    cols = np.atleast_1d(np.asarray(seq_lens, dtype=int))
    out = np.empty((rows.size, cols.size))
    for i, b in enumerate(rows):
        for j, s in enumerate(cols):
            view = engine_view(shape, plan.with_changes(micro_batch=int(b), seq_len=int(s)),
                               gpu, assumptions)
            out[i, j] = view.memory.total
    return out


def along(shape: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions, axis: str,
          values) -> tuple[MemoryBreakdown, np.ndarray]:
    """The engine's memory with ``axis`` (``micro_batch`` or ``seq_len``) at each of
    ``values``, the rest of ``plan`` as is, and whether each point fits ``gpu``.

    Returns:
        ``(breakdown, fits)``: a breakdown whose every term is an array of ``values``' shape,
        and a boolean array: the point's total within the share of the GPU's memory the
        engine may fill (:attr:`~.base.EngineResult.capacity_fraction`) and not refused
        (vLLM without room for one sequence). A point the engine rejects (ValueError) has
        NaN bytes and does not fit.

    Raises:
        ValueError: ``axis`` is not one of :data:`AXES`.
    """
    if axis not in AXES:
        raise ValueError(f"axis must be one of {', '.join(AXES)}, got {axis!r}")
    flat = np.asarray(values, dtype=float).ravel()
    names = (*TERMS, "cpu_bytes", "context_bytes")
    terms = {name: np.full(flat.shape, np.nan) for name in names}
    fits = np.zeros(flat.shape, dtype=bool)
    for k, value in enumerate(flat):
        try:
            view = engine_view(shape, plan.with_changes(**{axis: int(value)}), gpu,
                               assumptions)
        except ValueError:
            continue
        memory, result = view.memory, view.result
        if memory is None:  # transformers: not an engine sweep
            raise ValueError(f"{view.name} has no engine memory terms: use memory_breakdown")
        for name in names:
            terms[name][k] = getattr(memory, name)
        fits[k] = memory.total <= gpu.memory_bytes * result.capacity_fraction \
            and not result.refuses
    shape_ = np.shape(values)
    return (MemoryBreakdown(**{name: a.reshape(shape_) for name, a in terms.items()}),
            fits.reshape(shape_))


def gpus_counts(shape: ModelShape, plan: Plan, gpus: list[GpuSpec], counts,
                assumptions: Assumptions):
    """``(per_gpu_bytes, fits, seconds)`` of ``plan`` on each GPU (rows) at each count
    (columns). ``per_gpu_bytes`` is the first GPU's (the sweep's contract: one row of
    memory per count); ``fits`` and ``seconds`` are each GPU's own. A count the engine
    refuses (e.g. more layers split than the model has) is a miss with infinite time.
    GPUs whose engine is ``transformers`` (an NVIDIA card beside Apple ones under
    ``auto``) get the generic model's rows, all at once."""
    counts = [int(c) for c in np.atleast_1d(counts)]
    fits = np.zeros((len(gpus), len(counts)), dtype=bool)
    seconds = np.full((len(gpus), len(counts)), np.inf)
    per_gpu = np.full(len(counts), np.nan)
    generic = [i for i, gpu in enumerate(gpus)
               if engine_for(plan, shape, gpu)[0] == "transformers"]
    if generic:
        mem, ok, time = transformers.gpus_counts(shape, plan, [gpus[i] for i in generic],
                                                 counts, assumptions)
        fits[generic], seconds[generic] = ok, time
        if generic[0] == 0:
            per_gpu[:] = mem
    skip = set(generic)
    variants: list[Plan | None] = []
    for n in counts:  # once per count, not per GPU: a plan validates itself
        try:
            variants.append(plan.with_changes(n_gpus=n))
        except ValueError:
            variants.append(None)
    for i, gpu in enumerate(gpus):
        if i in skip:
            continue
        for j, variant in enumerate(variants):
            if variant is None:
                continue
            if gpu.unified_memory and j > 0 and variants[0] is not None:
                # A single-chip system (Apple) runs one GPU; more of them are hypothetical
                # (the estimate warns) and its engine answers as for one: repeat that answer.
                fits[i, j], seconds[i, j] = fits[i, 0], seconds[i, 0]
                if i == 0:
                    per_gpu[j] = per_gpu[0]
                continue
            try:
                view = engine_view(shape, variant, gpu, assumptions)
            except ValueError:
                continue
            result, memory = view.result, view.memory
            if i == 0:
                per_gpu[j] = memory.total
            capacity = gpu.memory_bytes * result.capacity_fraction
            fits[i, j] = memory.total <= capacity and not result.refuses
            seconds[i, j] = engine_time(
                shape, variant, result, peak_tflops=_peak(gpu, plan),
                bandwidth_gb_s=gpu.memory_bandwidth_gb_s, measured_bandwidth=False,
                assumptions=assumptions).seconds
    return per_gpu, fits, seconds


def _peak(gpu: GpuSpec, plan: Plan) -> float:
    """The prefill peak: the plan's 16-bit rate, else fp16, else fp32."""
    dtype = "fp32" if plan.precision == "fp32" else "bf16"
    return float(gpu.peak_tflops(dtype) or gpu.peak_tflops("fp16") or gpu.fp32_tflops)


__all__ = ["AXES", "along", "fit_map", "gpus_counts"]
