"""Helpers of :class:`gpuadvisor.workspace.state.PlanState` that need none of its state: breakdowns
as arrays for the charts, the largest value that fits, the parallel layout of a multi-GPU
plan, and reading a ``config.json``. Qt-free."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from gpuadvisor.core.engines import sweep as engine_sweep
from gpuadvisor.core.engines.select import runs_on_engine
from gpuadvisor.core.estimate import sweep_fit_grid
from gpuadvisor.core.fit_search import (
    MAX_MICRO_BATCH_SEARCH,
    MAX_SEQ_SEARCH,
    largest_true,
    largest_true_bisect,
)
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.memory import TERMS, MemoryBreakdown, memory_breakdown
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.parallel.search import layout_memory_along
from gpuadvisor.localmodels.resolve import MAX_CONFIG_BYTES as MAX_CONFIG_JSON_BYTES

"""config.json files larger than this are refused unread (real ones are a few kB)."""

#: Sweeps and estimates the state keeps for plans asked for again.
RESULTS_KEPT = 64


def full_breakdown(mb: MemoryBreakdown, shape: tuple[int, ...]) -> MemoryBreakdown:
    """A breakdown whose every term is a float array of ``shape`` (scalars broadcast)."""
    names = (*TERMS, "cpu_bytes", "context_bytes")
    arrays = {name: np.broadcast_to(np.asarray(getattr(mb, name), dtype=float), shape).copy()
              for name in names}
    return MemoryBreakdown(**arrays)


def model_id_for_file(path: Path) -> str:
    """``config`` files are named after their folder (the Hub layout); others by their stem."""
    if path.stem.lower() == "config" and path.parent.name:
        return path.parent.name
    return path.stem or "custom-model"


def read_config_json(file: Path) -> dict:
    """A config.json as a dict; problems raise ``ValueError`` naming the file. The command
    line's reader (:func:`gpuadvisor.localmodels.resolve.read_config_json`): one size limit
    and one strict parser (no NaN, no 5,000-digit numbers, bounded nesting) for every door.
    """
    from gpuadvisor.localmodels.resolve import read_config_json as read

    return read(Path(file))


class PlanSweeps:
    """The charts' sweeps of the shared plan: the plan swept over one knob, delegated to
    core with array arguments. A collaborator of :class:`gpuadvisor.workspace.state.PlanState`
    (``state.sweeps``), reading only its public face: ``snapshot``, ``gpu``,
    ``reference_gpu``, ``capacity_bytes`` and ``estimate``. A sweep over a knob does not
    depend on the plan's own value of it, so a slider moving that knob finds its result kept.

    An inference plan on an engine (llama.cpp, vLLM, MLX on an Apple GPU, ...) is swept
    with the engine's memory on the GPU its estimate uses (the target, else the reference
    GPU): the fit map through :func:`~gpuadvisor.core.estimate.sweep_fit_grid`, the curves
    and the largest fitting values through :func:`gpuadvisor.core.engines.sweep.along`
    (which also counts the share of memory the engine may fill and a refusal to start).
    A multi-GPU training plan is swept in the layout its estimate chose (the VRAM bar's).
    Other plans keep the closed-form arrays."""

    def __init__(self, state) -> None:
        self._state = state
        self._results: dict = {}

    def forget(self) -> None:
        """Drop the kept results (the rig or the measurements changed)."""
        self._results.clear()

    @property
    def _snap(self):
        return self._state.snapshot

    def fit_map(self, micro_batches, seq_lens) -> np.ndarray:
        """Bytes per GPU on a micro-batch (rows) x sequence-length (columns) grid."""
        return self.fit_grid(micro_batches, seq_lens)[0]

    def fit_grid(self, micro_batches, seq_lens) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`fit_map`'s bytes, and each cell's verdict where the bytes alone do not say
        it (vLLM: :func:`~gpuadvisor.core.estimate.sweep_fit_grid`; None elsewhere)."""
        snap = self._snap
        # The grid does not depend on the plan's own micro-batch or sequence length: a
        # slider moving either finds it here.
        key = self._sweep_key("fit_map", micro_batch=1, seq_len=1)
        if key is not None:
            key += (tuple(np.ravel(micro_batches)), tuple(np.ravel(seq_lens)))
        laid = self._laid_out()
        if laid is not None:
            layout, per_node = laid
            b = np.asarray(micro_batches, dtype=float)[:, None]
            s = np.asarray(seq_lens, dtype=float)[None, :]
            kept = self._kept(key, lambda: (np.broadcast_to(layout_memory_along(
                snap.model, snap.plan, snap.assumptions, layout, per_node, micro_batch=b,
                seq_len=s)[0], (b.shape[0], s.shape[1])).copy(), None))
        else:
            gpu = self._engine_gpu()
            kept = self._kept(key, lambda: sweep_fit_grid(
                snap.model, snap.plan, micro_batches, seq_lens, snap.assumptions, gpu=gpu))
        total, verdicts = kept  # copies: the kept arrays stay as computed
        return np.array(total, dtype=float), None if verdicts is None else verdicts.copy()

    def breakdown_vs_micro_batch(self, values) -> MemoryBreakdown:
        """Memory by term for each micro-batch in ``values`` (every term an array)."""
        b = np.asarray(values, dtype=float)
        return self._breakdown(b.shape, micro_batch=b)

    def breakdown_vs_seq(self, values) -> MemoryBreakdown:
        """Memory by term for each sequence length in ``values`` (every term an array)."""
        s = np.asarray(values, dtype=float)
        return self._breakdown(s.shape, seq_len=s)

    def memory_vs_micro_batch(self, values) -> np.ndarray:
        """Bytes per GPU for each micro-batch in ``values`` (the rest of the plan as is)."""
        return self.breakdown_vs_micro_batch(values).total

    def memory_vs_seq(self, values) -> np.ndarray:
        """Bytes per GPU for each sequence length in ``values`` (the rest of the plan as is);
        for a server that takes its share of the card whatever the plan (vLLM), what the
        plan's requests need to run at once, as the fit map's row for them says."""
        queued = self._queued_seq(values)
        if queued is not None:
            return queued[0]
        return self.breakdown_vs_seq(values).total

    def queued(self) -> bool:
        """Whether the plan's memory is a server's share of the card, its requests waiting
        for room rather than running out of memory (vLLM: its engine reserves a budget):
        the charts then say so."""
        engine = getattr(self._state.estimate, "engine", None)
        return bool(engine is not None and engine.budget) and self._engine_gpu() is not None

    def _queued_seq(self, values) -> tuple[np.ndarray, np.ndarray] | None:
        """A vLLM plan's row of the fit map along ``values`` (:meth:`fit_grid` for the plan's
        requests): what they need at once at each length, and whether all of them run at
        once there (the map's "fits"); None for a plan whose memory is its own."""
        if not self.queued():
            return None
        s = [int(v) for v in np.ravel(values)]
        totals, verdicts = self.fit_grid([self._snap.plan.micro_batch], s)
        if verdicts is None:
            return None
        shape = np.shape(values)
        return totals[0].reshape(shape), (verdicts[0] == "fits").reshape(shape)

    def _breakdown(self, shape: tuple[int, ...], **overrides) -> MemoryBreakdown:
        snap = self._snap
        laid = self._laid_out()
        if laid is not None:
            layout, per_node = laid
            _, terms = layout_memory_along(snap.model, snap.plan, snap.assumptions, layout,
                                           per_node, **overrides)
            context = self._state.estimate.memory.context_bytes
            return MemoryBreakdown(
                **{name: np.broadcast_to(np.asarray(terms[name], dtype=float), shape).copy()
                   for name in TERMS}, context_bytes=context)
        gpu = self._engine_gpu()
        if gpu is not None:
            return self._along(gpu, overrides)[0]
        mb = memory_breakdown(snap.model, snap.plan, snap.assumptions, **overrides)
        return full_breakdown(mb, shape)

    def _laid_out(self):
        """``(layout, gpus per node)`` of a training plan the estimate timed in a parallel
        layout (several GPUs): the charts then show that layout's memory per GPU, as the
        bar does (:func:`~gpuadvisor.core.parallel.search.layout_memory_along`); None for the
        flat memory model (one GPU, inference, or no layout)."""
        snap = self._snap
        if not snap.plan.is_training or snap.plan.n_gpus <= 1:
            return None
        found = getattr(self._state.estimate, "layout", None)
        if found is None:
            return None
        return found.chosen.layout, found.gpus_per_node

    def _engine_gpu(self) -> GpuSpec | None:
        """The GPU an inference plan's engine is evaluated on (the target, else the
        reference GPU, as in the estimate); None when the plan's memory is the generic
        model (every training plan)."""
        snap = self._snap
        if snap.plan.task != "infer":
            return None
        gpu = self._state.gpu or self._state.reference_gpu
        if gpu is None or not runs_on_engine(snap.plan, model_shape(snap.model), gpu):
            return None
        return gpu

    def _along(self, gpu: GpuSpec, overrides: dict) -> tuple[MemoryBreakdown, np.ndarray]:
        """The engine's breakdown and fits along the one plan field in ``overrides``."""
        snap = self._snap
        (axis, values), = overrides.items()
        return engine_sweep.along(model_shape(snap.model), snap.plan, gpu, snap.assumptions,
                                  axis, values)

    def largest_fitting_micro_batch(self, limit: int = MAX_MICRO_BATCH_SEARCH) -> int | None:
        """The largest micro-batch that fits the GPU with the rest of the plan as is.

        Returns:
            None without a GPU; 0 when even micro-batch 1 does not fit; at most ``limit``.
        """
        key = self._sweep_key("largest_mb", micro_batch=1)
        return self._kept(key and (*key, limit),
                          lambda: self._largest("micro_batch", limit))

    def largest_fitting_seq(self, limit: int = MAX_SEQ_SEARCH) -> int | None:
        """The longest sequence that fits the GPU with the rest of the plan as is.

        Not capped at the model's context length (the estimate warns beyond it).

        Returns:
            None without a GPU; 0 when even 1 token does not fit; at most ``limit``.
        """
        key = self._sweep_key("largest_seq", seq_len=1)
        return self._kept(key and (*key, limit),
                          lambda: self._largest("seq_len", limit))

    def serving(self):
        """How many users the plan serves at once (:func:`gpuadvisor.core.serving_load.
        capacity`, resolved with the estimate's own inputs), or None for a plan that does
        not serve many or does not fit."""
        from gpuadvisor.core import serving_load

        state = self._state
        result = state.estimate
        if not serving_load.serves_many(result) or result.fits is False:
            return None
        key = ("serving", result.model, result.plan, result.gpu,
               self._snap.assumptions, tuple(state.measurements))
        assumptions, options = state.resolve_inputs(result.plan, result.gpu)
        try:
            hash(key)
        except TypeError:
            key = None
        try:
            return self._kept(key, lambda: serving_load.capacity(
                result, assumptions=assumptions, **options))
        except (ArithmeticError, ValueError):
            return None

    def _sweep_key(self, name: str, **neutral) -> tuple | None:
        """What a sweep over the ``neutral`` fields depends on: the plan without them, the
        model, the assumptions, the GPU's memory, the GPU an engine is evaluated on and the
        parallel layout of a multi-GPU training plan (None when it cannot be a key)."""
        snap = self._snap
        laid = self._laid_out()
        if laid is not None:  # the layout chosen for the plan's own micro-batch
            laid = (replace(laid[0], micro_batch=1), laid[1])
        try:
            key = (name, snap.model, replace(snap.plan, **neutral), snap.assumptions,
                   self._state.capacity_bytes, self._engine_gpu(), laid)
            hash(key)
        except (TypeError, ValueError):
            return None
        return key

    def _kept(self, key, compute):
        """``compute()``, kept under ``key`` among the recent results (not kept: None)."""
        if key is None:
            return compute()
        if key not in self._results:
            if len(self._results) >= RESULTS_KEPT:
                self._results.pop(next(iter(self._results)))
            self._results[key] = compute()
        return self._results[key]

    def _largest(self, axis: str, limit: int) -> int | None:
        capacity = self._state.capacity_bytes
        if capacity is None:
            return None
        gpu = self._engine_gpu()
        if gpu is not None and axis == "seq_len" and self.queued():
            # vLLM: the longest prompt at which all the plan's requests run at once (the
            # curve it is drawn on, and the fit map's green)
            return largest_true_bisect(lambda xs: self._queued_seq(xs)[1], max(1, int(limit)))
        if gpu is not None:
            return largest_true_bisect(lambda xs: self._along(gpu, {axis: xs})[1],
                                       max(1, int(limit)))
        totals = self.memory_vs_micro_batch if axis == "micro_batch" else self.memory_vs_seq
        return largest_true(lambda xs: totals(xs) <= capacity, max(1, int(limit)))


__all__ = ["MAX_CONFIG_JSON_BYTES", "MAX_MICRO_BATCH_SEARCH", "MAX_SEQ_SEARCH", "RESULTS_KEPT",
           "PlanSweeps", "full_breakdown", "largest_true", "largest_true_bisect",
           "model_id_for_file",
           "read_config_json"]
