"""Advice off the GUI thread for the Compare page: requests debounced, run one at a time on
a pool the page owns, and only the newest request's answer delivered.

Each request carries a generation; :meth:`AdviceRequests.deliver` drops an answer of an
older one (napari's histogram does the same), so a slow answer never overwrites a newer one.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from gpuadvisor.gui.background import Job, Relay

#: Milliseconds between the last change and the new advice (typing a budget, a slider).
DEBOUNCE_MS = 150


class AdviceRequests(QObject):
    """Debounced background requests for advice, newest answer wins.

    Signals:
        due: the debounce ran out: the owner should :meth:`start` a request now.
        answered(result): the newest request's result.
        failed(error): the newest request's exception.

    Attributes:
        generation: the newest request's number.
        pool: the thread pool the work runs on (one thread).
        timer: the debounce timer.
    """

    due = Signal()
    answered = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.generation = 0
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._relay = Relay(self)
        self._relay.done.connect(self.deliver)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(debounce_ms)
        self.timer.timeout.connect(self.due)

    def start(self, work: Callable[[], object]) -> int:
        """Run ``work`` on the pool as the newest request; returns its generation."""
        self.generation += 1
        self.pool.start(Job(self._relay, self.generation, "advice", work))
        return self.generation

    def deliver(self, generation: int, _kind: str, result, error) -> None:
        """An answer from the pool: passed on when it is the newest request's."""
        if generation != self.generation:
            return  # a newer request is on its way
        if error is not None:
            self.failed.emit(error)
        else:
            self.answered.emit(result)

    def drop(self) -> None:
        """Stop the debounce; whatever is in flight is no longer wanted."""
        self.timer.stop()
        self.generation += 1

    def wait(self, timeout_ms: int = 30000) -> None:
        """Wait for the request in flight to finish (its answer comes queued)."""
        self.pool.waitForDone(timeout_ms)


__all__ = ["DEBOUNCE_MS", "AdviceRequests"]
