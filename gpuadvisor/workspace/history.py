"""Undo and redo for the shared plan: the changes the user made, as (before, after) pairs.

:class:`History` keeps the user's accepted changes of :class:`gpuadvisor.workspace.state.PlanState`
(a field, a model, a GPU, an assumption, a "Make it fit" lever) as the state's snapshots
before and after each one. Snapshots are immutable, so a change costs one small record, not
a copy of the plan. Turning one knob several times in a row (a spin box's arrows held down,
a slider dragged) within :data:`MERGE_S` is one step. The history also knows whether the plan
differs from what was last saved or opened (:attr:`History.modified`): undoing back to the
saved point makes it unmodified again.

Changes the state makes by itself (the detected card it targets, new measurements) are not
the user's: they are not recorded, and undoing a change leaves them in place
(:func:`reverted`). Qt-free.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

#: Changes of the same field closer together than this (seconds) are one undo step.
MERGE_S = 1.0
#: Undo steps kept; the oldest are forgotten.
MAX_STEPS = 200


@dataclass(frozen=True)
class Change:
    """One undo step.

    Attributes:
        what: what the user changed: a plan field name, ``"model"``, ``"gpu"``, an
            assumption name, ``"assumptions"`` (reset), ``"plan"`` (several fields), or
            the :class:`~gpuadvisor.core.fit.Lever` applied.
        before, after: the state's snapshots around the change.
        auto_before, auto_after: whether the target GPU was the state's own choice then.
        at_s: when it was made (the history's clock), for merging.
    """

    what: Any
    before: Any
    after: Any
    auto_before: bool = False
    auto_after: bool = False
    at_s: float = 0.0


def reverted(current, source, target):
    """``current`` with the fields that differ between ``source`` and ``target`` (snapshots
    of the same dataclass) taken from ``target``; the others stay as they are now.

    Undo is ``reverted(now, change.after, change.before)``, redo the other way round: a field
    the change did not touch (the GPU the state chose after detecting the rig) keeps its
    present value.
    """
    values = {}
    for f in fields(current):
        was, will = getattr(source, f.name), getattr(target, f.name)
        values[f.name] = will if was != will else getattr(current, f.name)
    return type(current)(**values)


class History:
    """The user's changes, for undo and redo, and the point last saved.

    ``record`` after each accepted change; ``undo_step``/``redo_step`` give the step to
    apply, and ``undone``/``redone`` move it once applied (a step the state cannot apply
    stays where it is).
    """

    def __init__(self, *, merge_s: float = MERGE_S, limit: int = MAX_STEPS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._undo: list[Change] = []
        self._redo: list[Change] = []
        self._merge_s = merge_s
        self._limit = limit
        self._clock = clock
        # len(self._undo) when the plan was last saved or opened; None: that point is gone.
        self._saved: int | None = 0

    # ------------------------------------------------------------------ reading
    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_step(self) -> Change | None:
        """The change Undo would take back (None when there is none)."""
        return self._undo[-1] if self._undo else None

    def redo_step(self) -> Change | None:
        """The change Redo would make again (None when there is none)."""
        return self._redo[-1] if self._redo else None

    @property
    def modified(self) -> bool:
        """Whether the plan differs from the one last saved or opened."""
        return self._saved != len(self._undo)

    def __len__(self) -> int:
        return len(self._undo)

    # ------------------------------------------------------------------ changing
    def record(self, what: Any, before, after, auto_before: bool = False,
               auto_after: bool = False) -> None:
        """Remember an accepted change (``before != after``); Redo is forgotten.

        A change of the same plan field as the last step, within ``merge_s`` of it, with
        nothing saved or undone in between, extends that step; a step that comes back to
        where it started is dropped.
        """
        now = self._clock()
        if self._redo:
            self._redo.clear()
            if self._saved is not None and self._saved > len(self._undo):
                self._saved = None
        last = self._undo[-1] if self._undo else None
        if (last is not None and isinstance(what, str) and what == last.what
                and now - last.at_s <= self._merge_s and self._saved != len(self._undo)):
            self._undo.pop()
            if last.before == after:
                return
            self._undo.append(Change(what, last.before, after, last.auto_before, auto_after,
                                     now))
            return
        self._undo.append(Change(what, before, after, auto_before, auto_after, now))
        if len(self._undo) > self._limit:
            del self._undo[0]
            self._saved = None if not self._saved else self._saved - 1

    def undone(self) -> None:
        """The step :meth:`undo_step` named was taken back."""
        self._redo.append(self._undo.pop())

    def redone(self) -> None:
        """The step :meth:`redo_step` named was made again."""
        # Not merged with the step before it: Undo takes back exactly what Redo made.
        change = self._redo.pop()
        self._undo.append(Change(change.what, change.before, change.after, change.auto_before,
                                 change.auto_after, float("-inf")))

    def mark_saved(self) -> None:
        """The plan as it is now was saved (or opened): it is not modified."""
        self._saved = len(self._undo)
        if self._undo:  # the next change starts a step of its own
            last = self._undo[-1]
            self._undo[-1] = Change(last.what, last.before, last.after, last.auto_before,
                                    last.auto_after, float("-inf"))

    def clear(self) -> None:
        """Forget every step (a plan file replaced the plan); unmodified."""
        self._undo.clear()
        self._redo.clear()
        self._saved = 0


class Undoable:
    """Undo and redo of :class:`gpuadvisor.workspace.state.PlanState` (mixed into it, which provides
    ``_history``, ``_snap``, ``_gpus``, ``_rig``, ``_auto_target``, ``_compute``,
    ``_install`` and the ``error``/``history_changed`` signals)."""

    @property
    def can_undo(self) -> bool:
        """Whether there is a change to undo."""
        return self._history.can_undo

    @property
    def can_redo(self) -> bool:
        """Whether there is an undone change to make again."""
        return self._history.can_redo

    @property
    def undo_what(self) -> Any:
        """What Undo would take back: a plan field name, ``"model"``, ``"gpu"``, an
        assumption name, ``"assumptions"``, ``"plan"`` or a Lever (None: nothing)."""
        step = self._history.undo_step()
        return None if step is None else step.what

    @property
    def redo_what(self) -> Any:
        """What Redo would make again (as :attr:`undo_what`; None: nothing)."""
        step = self._history.redo_step()
        return None if step is None else step.what

    @property
    def modified(self) -> bool:
        """Whether the user changed the plan since it was last saved or opened (undoing
        back to that point makes it unmodified)."""
        return self._history.modified

    def mark_saved(self) -> None:
        """The plan as it is now was saved: it is no longer modified."""
        self._history.mark_saved()
        self.history_changed.emit()

    def undo(self) -> bool:
        """Take back the last change (fields it did not touch, such as the GPU the state
        chose after detecting the rig, stay). Emits ``changed``; False when there is none
        or the old plan no longer estimates (``error("plan", ...)``)."""
        step = self._history.undo_step()
        if step is None:
            return False
        return self._step(reverted(self._snap, step.after, step.before), step.auto_before,
                          self._history.undone)

    def redo(self) -> bool:
        """Make the last undone change again (as :meth:`undo`, the other way)."""
        step = self._history.redo_step()
        if step is None:
            return False
        return self._step(reverted(self._snap, step.before, step.after), step.auto_after,
                          self._history.redone)

    def _step(self, snap, auto: bool, moved) -> bool:
        if snap.gpu_id is not None and snap.gpu_id not in self._gpus and snap.gpu_id not in (
                self._rig):
            # A detected card that has left the rig since: the state's present target.
            snap = replace(snap, gpu_id=self._snap.gpu_id)
        try:
            result = self._compute(snap)
        except (ArithmeticError, ValueError) as exc:
            self.error.emit("plan", str(exc))
            return False
        moved()
        self._auto_target = auto
        if snap != self._snap:
            self._install(snap, result)
        self.history_changed.emit()
        return True


__all__ = ["MAX_STEPS", "MERGE_S", "Change", "History", "Undoable", "reverted"]
