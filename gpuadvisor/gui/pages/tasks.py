"""A page's work off the GUI thread: a small pool whose jobs answer on the GUI thread.

The Rig and Probe pages detect, check interpreters, open hardware backends and take live
readings here. Each job delivers ``result`` or ``error`` through a relay QObject that lives on
the GUI thread (Picard's ``run_task``, see :mod:`gpuadvisor.gui.background`), tagged with the
generation the page started it for, so the page can drop an answer older than its inputs.
The pool belongs to the page: :meth:`PageTasks.drain` (on closing) waits for every job and
delivers what is still queued, so no job outlives the page.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QThreadPool

from gpuadvisor.gui.background import Job, Relay

#: ``done(generation, kind, result, error)``, called on the GUI thread.
DoneSlot = Callable[[int, str, object, object], None]


class PageTasks(QObject):
    """A page-owned ``QThreadPool`` and the relay that brings its answers back.

    Attributes:
        pool: the pool (tests check that nothing is left running on it).
        relay: the GUI-thread object whose ``done`` signal carries each answer.
    """

    def __init__(self, parent: QObject, done: DoneSlot, threads: int = 2) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self.relay = Relay(self)
        self.relay.done.connect(done)

    def start(self, generation: int, kind: str, fn: Callable[[], object]) -> None:
        """Run ``fn`` on the pool; its answer comes back as ``done(generation, kind, ...)``."""
        self.pool.start(Job(self.relay, generation, kind, fn))

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Block until the jobs end and deliver their answers (screenshots, tests)."""
        done = self.pool.waitForDone(timeout_ms)
        QCoreApplication.sendPostedEvents(self.relay)
        QCoreApplication.processEvents()
        return done

    def drain(self) -> None:
        """Wait for every job and deliver the answers still queued (the page is closing)."""
        self.pool.waitForDone()
        QCoreApplication.sendPostedEvents(self.relay)


__all__ = ["PageTasks"]
