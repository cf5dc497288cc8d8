"""Work off the GUI thread: a relay that brings results back, and the job that runs there.

A page starts ``Job(relay, generation, kind, fn)`` on its ``QThreadPool``; the job always
emits ``relay.done(generation, kind, result, error)`` — ``error`` is the exception ``fn``
raised, or ``None`` — and, the relay living on the GUI thread, the page's slot runs there
(queued). The page tags each job with the generation of the inputs it was started for and
drops answers of an older generation, so a slow answer never overwrites a newer one.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, Signal


class Relay(QObject):
    """Lives on the GUI thread; a signal emitted from a pool thread reaches its slots queued."""

    done = Signal(int, str, object, object)  # generation, kind, result, error


class Job(QRunnable):
    """Runs ``fn`` on a pool thread and reports through ``relay`` (never raises)."""

    def __init__(self, relay: Relay, generation: int, kind: str, fn: Callable[[], object]):
        super().__init__()
        self._relay, self._generation, self._kind, self._fn = relay, generation, kind, fn

    def run(self) -> None:
        try:
            result, error = self._fn(), None
        except Exception as exc:  # delivered to the GUI thread and shown there
            result, error = None, exc
        self._relay.done.emit(self._generation, self._kind, result, error)


__all__ = ["Job", "Relay"]
