"""The shared plan every GUI page reads and writes, as a Qt-free model with psygnal signals.

:class:`PlanState` holds one model, one :class:`~gpuadvisor.core.plan.Plan`, an optional GPU
and the user's assumption overrides. Every change goes through one method that validates it
with core, recomputes the :class:`~gpuadvisor.core.estimate.Estimate` and emits ``changed``
with it; a rejected change emits ``error(field, message)`` and leaves everything as it was.
Nothing here raises to the GUI on bad input (only :meth:`PlanState.from_dict` raises, for
files). Views never compute estimates: the chart helpers delegate to core.

Knock-on changes that keep a plan valid: :mod:`.plan_changes`; detected cards offered as
targets: :mod:`.rig`; undo and redo (levers and model loads included): :mod:`.history`.

This module imports no Qt, so it is tested without a display.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from psygnal import Signal

from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from gpuadvisor.core.calibration import Measurement
from gpuadvisor.core.engines.llamacpp_backends import plan_for_card
from gpuadvisor.core.estimate import REFERENCE_GPU_ID, Estimate
from gpuadvisor.core.fit import Lever
from gpuadvisor.core.fit import levers as core_levers
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.layout_pins import layout_pin_problem
from gpuadvisor.core.model import ModelSpec, spec_from_hf_config
from gpuadvisor.core.plan import LAYOUT_PINS, Plan, default_checkpointing
from gpuadvisor.core.resolve import resolve
from gpuadvisor.probes.observed import observed_assumptions, with_observations
from gpuadvisor.workspace.history import History, Undoable
from gpuadvisor.workspace.plan_changes import couple_plan_changes, error_field, plan_for_model
from gpuadvisor.workspace.planfile import (
    PLAN_FIELDS,
    PlanFileError,
    did_you_mean,
    parse_plan_dict,
    plan_dict,
)
from gpuadvisor.workspace.rig import DETECTED_PREFIX, DetectedRig
from gpuadvisor.workspace.sweeps import (
    MAX_CONFIG_JSON_BYTES,
    MAX_MICRO_BATCH_SEARCH,
    MAX_SEQ_SEARCH,
    RESULTS_KEPT,
    PlanSweeps,
    model_id_for_file,
    read_config_json,
)

DEFAULT_MODEL_ID = "llama-3.1-8b"
"""Model preset of a new plan."""

DEFAULT_GPU_ID = "rtx-4090"
"""GPU of a new plan."""

DEFAULT_PLAN = Plan(task="qlora", checkpointing=default_checkpointing("qlora")[0])
"""Plan of a new session: QLoRA with the framework's default checkpointing (Hugging Face:
full), as the command line's defaults give it."""

_ASSUMPTION_NAMES = frozenset(f.name for f in fields(Assumptions))




@dataclass(frozen=True)
class _Snapshot:
    """Everything the user chose; replaced as a whole on each accepted change."""

    model: ModelSpec
    preset_id: str | None
    plan: Plan
    gpu_id: str | None
    overrides: dict = field(default_factory=dict)
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS


# --------------------------------------------------------------------------- the state
class PlanState(Undoable):
    """One shared plan: model, plan, GPU and assumptions, with its current estimate.

    Signals:
        changed(Estimate): after every accepted change, with the new estimate.
        error(str, str): (field, message) when a change is rejected; the state is unchanged.
            ``field`` is a plan field name, ``"model"``, ``"gpu"``, an assumption name,
            ``"assumptions"`` or ``"plan"``.
        history_changed(): what Undo and Redo would do, or whether the plan is modified,
            changed.
    """

    changed = Signal(object)
    error = Signal(str, str)
    detected_changed = Signal()
    history_changed = Signal()

    def __init__(
        self,
        models: dict[str, ModelSpec] | None = None,
        gpus: dict[str, GpuSpec] | None = None,
    ) -> None:
        """Start with the default plan (Llama-3.1-8B, QLoRA, full checkpointing, RTX 4090)
        over ``models`` and ``gpus`` by id (default: the shipped catalog); ValueError when
        ``models`` is empty."""
        if models is None or gpus is None:
            from gpuadvisor import catalog

            models = catalog.load_models() if models is None else models
            gpus = catalog.load_gpus() if gpus is None else gpus
        if not models:
            raise ValueError("PlanState needs at least one model preset")
        self._models = dict(models)
        self._gpus = dict(gpus)
        self._reference_gpu = self._gpus.get(REFERENCE_GPU_ID) or next(
            iter(self._gpus.values()), None)
        preset = DEFAULT_MODEL_ID if DEFAULT_MODEL_ID in self._models else next(iter(self._models))
        gpu_id = DEFAULT_GPU_ID if DEFAULT_GPU_ID in self._gpus else None
        model = self._models[preset]
        self._snap = _Snapshot(model, preset, plan_for_model(DEFAULT_PLAN, model), gpu_id)
        self._rig = DetectedRig(self._gpus, self._reference_gpu)
        # Whether the target is a detected card the state chose (it then follows the plan's
        # GPU count: the best card for one GPU), rather than one the user picked.
        self._auto_target = False
        self._gpu_chosen = False  # a card named by the user or a plan file: cards found keep it
        self._measurements: list[Measurement] = []
        self._observations: list[dict] = []  # what engine logs showed (check-log)
        self._results: dict = {}  # recent estimates by inputs (see _compute)
        #: The charts' sweeps of this plan (a collaborator reading the public face).
        self.sweeps = PlanSweeps(self)
        self._estimate = self._compute(self._snap)
        self._levers: list[Lever] | None = None
        self._history = History()

    # ------------------------------------------------------------------ read-only views
    @property
    def models(self) -> Mapping[str, ModelSpec]:
        """Model presets by id (read-only)."""
        return MappingProxyType(self._models)

    @property
    def gpus(self) -> Mapping[str, GpuSpec]:
        """GPUs by catalog id (read-only)."""
        return MappingProxyType(self._gpus)

    @property
    def model(self) -> ModelSpec:
        """The model (a preset or a custom spec)."""
        return self._snap.model

    @property
    def model_id(self) -> str:
        """The preset id, or the custom spec's id."""
        return self._snap.preset_id or self._snap.model.id

    @property
    def is_custom_model(self) -> bool:
        """True when the model is not one of :attr:`models` (config.json or typed in)."""
        return self._snap.preset_id is None

    @property
    def plan(self) -> Plan:
        """The plan."""
        return self._snap.plan

    @property
    def gpu(self) -> GpuSpec | None:
        """The GPU, or None when none is chosen (a detected card's spec for ``detected:``)."""
        return self._spec_for(self._snap.gpu_id)

    def _spec_for(self, gpu_id: str | None) -> GpuSpec | None:
        if gpu_id is None:
            return None
        spec = self._rig.spec(gpu_id)
        return spec if spec is not None else self._gpus[gpu_id]

    @property
    def detected_gpus(self) -> Mapping[str, Any]:
        """Detected training cards usable as targets: ``detected:<index>`` -> GpuInfo."""
        return MappingProxyType(self._rig.cards)

    @property
    def detected_gpu(self):
        """The detected card (GpuInfo) the plan targets, or None for a catalog GPU."""
        return self._rig.card(self._snap.gpu_id)

    @property
    def lost_gpus(self) -> tuple:
        """Cards the last reading of the rig found lost (GpuInfo): left out of the rig."""
        return self._rig.lost

    def detected_spec(self, gpu_id: str) -> GpuSpec | None:
        """The spec used for a detected card (driver memory; catalog or reference peaks)."""
        return self._rig.spec(gpu_id)

    def set_detected(self, gpus) -> bool:
        """Offer the cards of this machine (or a demo rig) as target GPUs.

        Each training card whose memory is known becomes ``detected:<index>``. Its fit uses
        the memory the driver reports (total; free is shown alongside by the views); its
        time uses the matched catalog entry's peaks, or the reference GPU's peaks for an
        unmatched card (``detected_spec(...).notes`` says so). The target follows the cards
        as :meth:`DetectedRig.retarget` says (the card the plan sizes for, unless the user or
        a plan file named one). A card that fell off the bus leaves the rig
        (:attr:`lost_gpus` names it).

        Args:
            gpus: ``GpuInfo`` records (lost and integrated cards are skipped).

        Returns:
            True when the state is consistent (``changed`` emitted if the target changed).
        """
        old_ids = self._rig.ids
        self._rig.offer(gpus)
        self._levers = None
        self._results.clear()
        self.sweeps.forget()
        self.detected_changed.emit()
        current = self._snap.gpu_id
        choice = self._rig.retarget(
            current, old_ids, self._snap.plan.n_gpus, auto=self._auto_target,
            chosen=self._gpu_chosen,
            default_id=DEFAULT_GPU_ID if DEFAULT_GPU_ID in self._gpus else None)
        if choice is not None:
            target, self._auto_target = choice
            if target != current or current in old_ids:
                # Same id, new card behind it: recompute even when the snapshot is equal.
                snap = self._on_gpu(replace(self._snap, gpu_id=target))
                try:
                    result = self._compute(snap)
                except (ArithmeticError, ValueError) as exc:
                    self.error.emit("gpu", str(exc))
                    return False
                self._install(snap, result)
        return True

    @property
    def gpu_id(self) -> str | None:
        """The GPU's catalog id, or None."""
        return self._snap.gpu_id

    @property
    def assumptions(self) -> Assumptions:
        """The assumptions in use (defaults with the user's overrides)."""
        return self._snap.assumptions

    @property
    def assumption_overrides(self) -> dict:
        """Assumption name -> value for the ones the user set (a copy)."""
        return dict(self._snap.overrides)

    @property
    def estimate(self) -> Estimate:
        """The estimate for the current state (computed once per change)."""
        return self._estimate

    @property
    def warnings(self) -> list[str]:
        """The current estimate's warnings (context length, missing bf16 units, ...)."""
        return list(self._estimate.warnings)

    @property
    def snapshot(self) -> _Snapshot:
        """Everything the user chose, as one frozen record (model, plan, GPU id,
        assumptions)."""
        return self._snap

    @property
    def reference_gpu(self) -> GpuSpec | None:
        """The GPU an estimate without a target is timed on."""
        return self._reference_gpu

    @property
    def capacity_bytes(self) -> float | None:
        """The memory the plan may use on the GPU in bytes (the estimate's: an Apple GPU's
        wired share under MLX or llama.cpp), or None without a GPU."""
        if self.gpu is None:
            return None
        capacity = self.estimate.capacity_bytes
        return float(self.gpu.usable_bytes) if capacity is None else float(capacity)

    # ------------------------------------------------------------------ changes
    def update(self, **plan_changes: Any) -> bool:
        """Change plan fields (validated by :meth:`Plan.with_changes`).

        Knock-on changes keep a combo switch from ever getting stuck; see
        :func:`couple_plan_changes` (e.g. task qlora -> full clears ``lora_rank`` and
        ``quant``; ZeRO 0 resets ``offload`` to none).

        On a rejected change ``error(field, message)`` is emitted, where ``field`` is a
        changed field the message names, else the only changed field, else any plan field
        the message names, else ``"plan"``.

        Returns:
            True when accepted (``changed`` was emitted unless nothing changed).
        """
        return self._update(plan_changes, next(iter(plan_changes)) if len(plan_changes) == 1
                            else "plan")

    def _update(self, plan_changes: Mapping[str, Any], what: Any) -> bool:
        unknown = sorted(set(plan_changes) - set(PLAN_FIELDS))
        if unknown:
            self.error.emit("plan", f"unknown plan field(s): {', '.join(unknown)}")
            return False
        try:
            plan = self.plan.with_changes(**couple_plan_changes(self.plan, plan_changes))
            problem = layout_pin_problem(plan)
            if problem is not None:
                raise ValueError(problem)
        except (TypeError, ValueError) as exc:
            self.error.emit(error_field(str(exc), plan_changes), str(exc))
            return False
        snap = replace(self._snap, plan=plan)
        if self._auto_target and plan.n_gpus != self.plan.n_gpus:
            # The state chose the card: it follows the GPU count (one GPU: the best card;
            # several: the weakest of those used).
            snap = self._on_gpu(replace(snap, gpu_id=self._rig.target_id(plan.n_gpus)
                                        or snap.gpu_id))
        return self._commit(snap, error_field, plan_changes, what=what)

    def pin_layout(self, **pins: int | None) -> bool:
        """Pin parallel degrees of a multi-GPU training plan (``tp=2``; None frees one for
        the layout search) and ``layout_global_batch``; one undo step, named ``layout``.

        Pins the GPU count cannot hold are refused with ``error(field, message)``.
        """
        unknown = sorted(set(pins) - {*LAYOUT_PINS, "layout_global_batch"})
        if unknown:
            self.error.emit("plan", f"not a layout degree: {', '.join(unknown)}")
            return False
        return self._update(pins, "layout") if pins else True

    def pin_chosen_layout(self) -> bool:
        """Pin the degrees of the layout the search chose for the estimate now shown (the
        expert-parallel degree only for a mixture of experts); False when no layout times
        the plan."""
        layout = getattr(self._estimate, "layout", None)
        if layout is None:
            self.error.emit("tp", "no parallel layout times this plan")
            return False
        chosen = layout.chosen.layout
        pins = {name: getattr(chosen, name) for name in LAYOUT_PINS}
        if int(getattr(self.model, "n_experts", 1) or 1) <= 1:
            pins["ep"] = None
        return self.pin_layout(**pins)

    def unpin_layout(self) -> bool:
        """Free every degree for the layout search again (one undo step, ``layout``)."""
        return self.pin_layout(**dict.fromkeys(LAYOUT_PINS))

    def set_efficiency(self, value: float | None) -> bool:
        """Set the achieved fraction of peak (``plan.efficiency``; None = the default)."""
        return self.update(efficiency=value)

    def set_model(self, model: str | ModelSpec) -> bool:
        """Switch to a preset (by id) or a custom :class:`ModelSpec`.

        A spec equal to the preset of the same id counts as that preset. The plan is kept
        (see :func:`plan_for_model` for the one adjustment); errors go to ``error("model")``.
        """
        if isinstance(model, str):
            if model not in self._models:
                hint = did_you_mean(model, self._models)
                self.error.emit("model", f"unknown model preset {model!r}{hint}")
                return False
            spec, preset = self._models[model], model
        elif isinstance(model, ModelSpec):
            spec = model
            preset = model.id if self._models.get(model.id) == model else None
        else:
            self.error.emit("model", f"expected a preset id or a ModelSpec, not {model!r}")
            return False
        snap = replace(self._snap, model=spec, preset_id=preset,
                       plan=plan_for_model(self.plan, spec))
        return self._commit(snap, "model", what="model")

    def load_config_json(self, path: str | Path) -> bool:
        """Use a local Hugging Face ``config.json`` as the model (never touches the network).

        The model's id is the folder's name for files called ``config.json`` (the Hub
        layout), the file's stem otherwise. Problems (missing file, bad JSON, unsupported
        architecture) go to ``error("model", message)`` with the file named.
        """
        file = Path(path)
        try:
            config = read_config_json(file)
            model_id = model_id_for_file(file)
            spec = spec_from_hf_config(config, model_id=model_id, name=model_id)
        except ValueError as exc:
            message = str(exc)
            if str(file) not in message:
                message = f"{file}: {message}"
            self.error.emit("model", message)
            return False
        return self.set_model(spec)

    def set_gpu(self, gpu_id: str | None) -> bool:
        """Choose a catalog GPU, or None for memory only (time on the reference GPU)."""
        if gpu_id is not None and gpu_id not in self._gpus and gpu_id not in self._rig:
            self.error.emit("gpu", f"unknown GPU {gpu_id!r}{did_you_mean(str(gpu_id), self._gpus)}")
            return False
        # The user's pick: kept as the plan changes and when this machine's cards are found.
        done = self._commit(self._on_gpu(replace(self._snap, gpu_id=gpu_id)), "gpu",
                            what="gpu", auto=False)
        self._gpu_chosen = self._gpu_chosen or done
        return done

    def _on_gpu(self, snap: _Snapshot) -> _Snapshot:
        """``snap`` with a llama.cpp backend the new GPU cannot run (CUDA on an AMD card)
        set back to the card's own."""
        plan = plan_for_card(snap.plan, self._spec_for(snap.gpu_id))
        return snap if plan is snap.plan else replace(snap, plan=plan)

    def set_assumption(self, name: str, value: Any) -> bool:
        """Override one assumption (None removes the override: back to the default).

        Validated by :meth:`Assumptions.with_overrides`; errors go to ``error(name)`` (or
        ``error("assumptions")`` for an unknown name).
        """
        overrides = dict(self._snap.overrides)
        if value is None:
            overrides.pop(name, None)
        else:
            overrides[name] = value
        try:
            assumptions = DEFAULT_ASSUMPTIONS.with_overrides(overrides)
        except (TypeError, ValueError) as exc:
            where = name if name in _ASSUMPTION_NAMES else "assumptions"
            self.error.emit(where, f"{name}: {exc}" if name not in str(exc) else str(exc))
            return False
        clean = {key: getattr(assumptions, key) for key in overrides}
        return self._commit(replace(self._snap, overrides=clean, assumptions=assumptions),
                            name, what=name)

    def reset_assumptions(self) -> bool:  # drop every assumption override
        return self._commit(replace(self._snap, overrides={}, assumptions=DEFAULT_ASSUMPTIONS),
                            "assumptions", what="assumptions")

    # ------------------------------------------------------------------ commit
    def resolve_inputs(self, plan: Plan, gpu: GpuSpec | None, assumptions=None) -> tuple:
        """``(assumptions, options)`` :func:`resolve` takes for ``plan`` on ``gpu`` here: the
        overrides, what logs showed (vLLM's non-torch memory), the reference GPU and the
        probe's measurements of ``gpu`` (the serving curve resolves with them too)."""
        assumptions = self._snap.assumptions if assumptions is None else assumptions
        if gpu is not None and plan.framework == "vllm":
            assumptions, _ = observed_assumptions(assumptions, self._observations, gpu.id,
                                                  "vllm")
        measured = None if gpu is None else (
            [m for m in self._measurements if m.gpu_id == gpu.id] or None)
        return assumptions, {"reference_gpu": self._reference_gpu, "measurement": measured}

    def _compute(self, snap: _Snapshot) -> Estimate:
        gpu = self._spec_for(snap.gpu_id)
        assumptions, options = self.resolve_inputs(snap.plan, gpu, snap.assumptions)
        measured = options["measurement"]
        # Recent answers are kept: a slider moved back and forth asks for the same plans,
        # and a multi-GPU plan's layout search takes a few milliseconds.
        try:
            key = (snap.model, snap.plan, gpu, assumptions, tuple(measured or ()))
            hash(key)
        except TypeError:  # a custom model with unhashable extras
            key = None
        if key is not None and key in self._results:
            return self._results[key]
        result = resolve(snap.model, snap.plan, gpu, assumptions, **options)
        if key is not None:
            if len(self._results) >= RESULTS_KEPT:
                self._results.pop(next(iter(self._results)))
            self._results[key] = result
        return result

    # ------------------------------------------------------------------ measurements
    @property
    def measurements(self) -> tuple[Measurement, ...]:
        """Probe measurements the estimate may use (each names its catalog GPU)."""
        return tuple(self._measurements)

    def set_measurements(self, measurements, observations=None) -> None:
        """Use these probe measurements (from the probe history) for time, and what engine
        logs showed about the cards (``check-log``) for memory. Only measurements naming a
        catalog GPU (``gpu_id``) are kept: the estimate uses those of the GPU the plan
        targets (a training step at the plan's dtype before a matmul one; bandwidth for
        decoding). Emits ``changed`` when the estimate changes."""
        kept = [m for m in measurements if m.gpu_id is not None]
        seen = list(observations) if observations is not None else self._observations
        if kept == self._measurements and seen == self._observations:
            return
        self._measurements, self._observations = kept, seen
        self._gpus.update(with_observations(self._gpus, seen))  # the rig reads the same dict
        self._results.clear()
        self.sweeps.forget()
        result = self._compute(self._snap)
        self._install(self._snap, result)

    def _commit(self, snap: _Snapshot, blame, changes: Mapping[str, Any] | None = None, *,
                what: Any = None, auto: bool | None = None) -> bool:
        """Install ``snap`` if core can estimate it; else emit ``error`` and keep the old one.

        ``blame`` is the field name, or a function (message, changes) -> field name. An
        accepted change is recorded for undo as ``what`` (see ``history.Change``); ``auto`` is
        whether the target GPU is the state's own choice afterwards (None: as before).
        """
        if snap == self._snap:
            return True
        try:
            result = self._compute(snap)
        except (ArithmeticError, ValueError) as exc:
            where = blame(str(exc), changes or {}) if callable(blame) else blame
            self.error.emit(where, str(exc))
            return False
        before, auto_before = self._snap, self._auto_target
        if auto is not None:
            self._auto_target = auto
        self._history.record(what, before, snap, auto_before, self._auto_target)
        self._install(snap, result)
        self.history_changed.emit()
        return True

    def _install(self, snap: _Snapshot, result: Estimate) -> None:
        self._snap = snap
        self._estimate = result
        self._levers = None
        self.changed.emit(result)

    def levers_ready(self) -> bool:
        """Whether :meth:`levers` is known for this plan (no estimate to run)."""
        return self._levers is not None or self.gpu is None

    def levers(self) -> list[Lever]:
        """What would make the plan fit the GPU, cheapest first ([] without a GPU)."""
        gpu = self.gpu
        if gpu is None:
            return []
        if self._levers is None:
            snap = self._snap
            # Each lever is resolved as the page's own estimate: same measurement, same
            # reference GPU (so a lever's "before" is the time shown).
            measured = [m for m in self._measurements if m.gpu_id == gpu.id] or None
            self._levers = core_levers(
                snap.model, snap.plan, gpu, snap.assumptions,
                timed=lambda m, p, g, a: resolve(m, p, g, a, reference_gpu=self._reference_gpu,
                                                 measurement=measured))
        return list(self._levers)

    def apply_lever(self, lever: Lever) -> bool:
        """Apply a lever's changes to the current plan (with the usual couplings); one undo
        step, named by the lever."""
        return self._update(lever.changes, lever)

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """The state as plan-file data (see :mod:`gpuadvisor.workspace.planfile`)."""
        snap = self._snap
        # plan files name catalog GPUs: a detected card is saved as its catalog match
        gpu_id = self._rig.catalog_id(snap.gpu_id) if snap.gpu_id in self._rig else snap.gpu_id
        return plan_dict(snap.model, snap.preset_id, snap.plan, gpu_id, snap.overrides)

    def from_dict(self, data: dict) -> None:
        """Replace the whole state with plan-file data and emit ``changed``. The undo
        history starts again (a plan file is a new document), unmodified.

        Raises:
            PlanFileError: the data is invalid (the message names the key); the state is
                then unchanged and nothing is emitted.
        """
        doc = parse_plan_dict(data, models=self._models, gpus=self._gpus)
        snap = _Snapshot(doc.model, doc.preset_id, doc.plan, doc.gpu_id,
                         dict(doc.assumption_overrides), doc.assumptions)
        try:
            result = self._compute(snap)
        except (ArithmeticError, ValueError) as exc:
            raise PlanFileError(None, f"plan: {exc}") from None
        self._history.clear()
        # The file's card is priced, as `estimate --plan FILE` does, whatever cards are found.
        self._auto_target = False
        self._gpu_chosen = doc.gpu_id is not None
        if snap != self._snap:
            self._install(snap, result)
        self.history_changed.emit()


__all__ = [
    "DEFAULT_GPU_ID",
    "DEFAULT_MODEL_ID",
    "DEFAULT_PLAN",
    "DETECTED_PREFIX",
    "MAX_CONFIG_JSON_BYTES",
    "MAX_MICRO_BATCH_SEARCH",
    "MAX_SEQ_SEARCH",
    "PlanFileError",
    "PlanState",
    "couple_plan_changes",
    "plan_for_model",
]
