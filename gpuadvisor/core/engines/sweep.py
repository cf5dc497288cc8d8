"""Sweeps of an inference plan that runs on an engine (llama.cpp, Ollama, vLLM, ExLlamaV2,
MLX): the engine is evaluated at each point, since its memory terms are not closed forms
over arrays (a GGUF mixture per layer, vLLM's reserve, Ollama's context by VRAM).

:func:`gpuadvisor.core.estimate.sweep_fit_map` and :func:`~gpuadvisor.core.estimate.
sweep_gpus` call these for such plans; an engine evaluation takes tens of microseconds (the
GGUF tensor list is cached per model and file type).
"""

from __future__ import annotations

import numpy as np

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines.combine import engine_time, engine_view
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan


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


def gpus_counts(shape: ModelShape, plan: Plan, gpus: list[GpuSpec], counts,
                assumptions: Assumptions):
    """``(per_gpu_bytes, fits, seconds)`` of ``plan`` on each GPU (rows) at each count
    (columns). ``per_gpu_bytes`` is the first GPU's (the sweep's contract: one row of
    memory per count); ``fits`` and ``seconds`` are each GPU's own. A count the engine
    refuses (e.g. more layers split than the model has) is a miss with infinite time."""
    counts = [int(c) for c in np.atleast_1d(counts)]
    fits = np.zeros((len(gpus), len(counts)), dtype=bool)
    seconds = np.full((len(gpus), len(counts)), np.inf)
    per_gpu = np.full(len(counts), np.nan)
    for i, gpu in enumerate(gpus):
        for j, n in enumerate(counts):
            try:
                variant = plan.with_changes(n_gpus=n)
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


__all__ = ["fit_map", "gpus_counts"]
