"""Sweeps of an inference plan that runs on an engine (llama.cpp, Ollama, vLLM, ExLlamaV2,
MLX): the engine is evaluated at each point, since its memory terms are not closed forms
over arrays (a GGUF mixture per layer, vLLM's reserve, Ollama's context by VRAM).

:func:`gpuadvisor.core.estimate.sweep_fit_map` calls these for such plans, and the Plan
page's memory curves call :func:`along`; an engine evaluation takes tens of microseconds
(the GGUF tensor list is cached per model and file type). The engine can depend on the GPU
(``auto`` runs Apple GPUs on MLX, :func:`~.select.engine_for`).
"""

from __future__ import annotations

import numpy as np

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines.combine import engine_view
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.memory import TERMS, MemoryBreakdown
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.verdict import engine_verdict

#: The plan fields :func:`along` sweeps.
AXES = ("micro_batch", "seq_len")


def placed(shape: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions) -> Plan:
    """``plan`` with the layer placement its engine chose for it written in: llama.cpp's
    ``--fit`` and Ollama move layers (and experts) to host RAM until the rest fits, so a
    swept point left to place its own layers always fits (the longest context that "fit" a
    3090 was the sweep's 4M-token bound). Each point is the plan as priced, one knob moved,
    its layers where the engine put them (``-ngl``, ``--n-cpu-moe``). Other plans as
    they are."""
    if plan.gpu_layers is not None:
        return plan
    try:
        result = engine_view(shape, plan, gpu, assumptions).result
    except ValueError:
        return plan
    settings = result.settings if result is not None else {}
    if "n_gpu_layers" not in settings:
        return plan
    return plan.with_changes(gpu_layers=int(settings["n_gpu_layers"]),
                             n_cpu_moe=int(settings.get("n_cpu_moe") or 0))


def fit_grid(shape: ModelShape, plan: Plan, gpu: GpuSpec, micro_batches, seq_lens,
             assumptions: Assumptions) -> tuple[np.ndarray, np.ndarray | None]:
    """Bytes per GPU on a micro-batch x sequence-length grid (rows: micro-batch), the
    layers where the engine put them for the plan (:func:`placed`), and each cell's verdict
    on an engine that reserves a set share of the card (vLLM; None elsewhere).

    vLLM takes the same reservation at every cell, which says nothing about the cell: there
    a cell holds what its requests need to run at once (the reservation less its KV pool,
    plus ``micro-batch`` sequences of the cell's length and the new tokens, in whole
    blocks), and its verdict is :func:`~..verdict.engine_verdict`'s (fits: all at once;
    tight: some wait; does not fit: vLLM would not start).
    """
    plan = placed(shape, plan, gpu, assumptions)
    rows = np.atleast_1d(np.asarray(micro_batches, dtype=int))
    cols = np.atleast_1d(np.asarray(seq_lens, dtype=int))
    out = np.empty((rows.size, cols.size))
    verdicts = None
    for i, b in enumerate(rows):
        for j, s in enumerate(cols):
            point = plan.with_changes(micro_batch=int(b), seq_len=int(s))
            view = engine_view(shape, point, gpu, assumptions)
            out[i, j] = view.memory.total
            result = view.result
            if result is None or not result.budget:
                continue
            if verdicts is None:
                verdicts = np.full(out.shape, "", dtype=object)
            block = int(result.settings.get("block_size") or 1)
            length = -(-(int(s) + point.new_tokens) // block) * block
            out[i, j] += b * length * result.kv_bytes_per_token - result.kv_cache
            verdicts[i, j] = engine_verdict(result, view.memory.total,
                                            gpu.usable_bytes * result.capacity_fraction)
    return out, verdicts


def fit_map(shape: ModelShape, plan: Plan, gpu: GpuSpec, micro_batches, seq_lens,
            assumptions: Assumptions) -> np.ndarray:
    """The bytes of :func:`fit_grid`."""
    return fit_grid(shape, plan, gpu, micro_batches, seq_lens, assumptions)[0]


def along(shape: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions, axis: str,
          values) -> tuple[MemoryBreakdown, np.ndarray]:
    """The engine's memory with ``axis`` (``micro_batch`` or ``seq_len``) at each of
    ``values``, the rest of ``plan`` as is (its layers where the engine put them,
    :func:`placed`), and whether each point fits ``gpu``.

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
    plan = placed(shape, plan, gpu, assumptions)
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
        fits[k] = memory.total <= gpu.usable_bytes * result.capacity_fraction \
            and not result.refuses
    shape_ = np.shape(values)
    return (MemoryBreakdown(**{name: a.reshape(shape_) for name, a in terms.items()}),
            fits.reshape(shape_))


__all__ = ["AXES", "along", "fit_grid", "fit_map", "placed"]
