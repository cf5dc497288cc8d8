"""What every probe shares: the protocol channel, stop requests, errors, and timing.

Part of the probe worker (:mod:`gpuadvisor.probes.worker`, which re-exports these names
as the ``kit`` the kernels use). Like the worker it needs only the standard library and
the ``torch`` handed to it, runs on Python 3.8+, and never imports torch or gpuadvisor:
run by path, the worker imports it from its own folder.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

PROTOCOL_VERSION = 1  # must equal gpuadvisor.probes.protocol.PROTOCOL_VERSION (tested)

MiB = 1 << 20
GiB = 1 << 30
#: Timed batches :func:`bench` takes at least.
MIN_BATCHES = 3


# --------------------------------------------------------------------------- the channel
class Channel:
    """Writes protocol lines to the real stdout; everything else written to fd 1 (by Python
    or by C code) goes to stderr instead."""

    def __init__(self) -> None:
        try:
            sys.stdout.flush()
            fd = os.dup(sys.stdout.fileno())
            os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
            self._out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
            sys.stdout = sys.stderr
        except (OSError, ValueError, AttributeError):  # no real file descriptors: share stdout
            self._out = sys.stdout

    def send(self, message: dict) -> None:
        self._out.write(json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n")
        self._out.flush()

    def progress(self, probe: str, fraction: float, message: str) -> None:
        self.send({"type": "progress", "probe": probe,
                   "fraction": round(min(max(fraction, 0.0), 1.0), 4), "message": message})

    def error(self, probe: str | None, kind: str, message: str) -> None:
        self.send({"type": "error", "probe": probe, "kind": kind, "message": message})


#: Set when the app asks for a graceful stop (a line ``stop`` on stdin): long probes
#: (burn-in) end early and still report what they measured.
STOP = threading.Event()


def listen_for_stop(stream=None) -> None:
    """Watch stdin on a daemon thread; a line ``stop`` sets :data:`STOP`."""
    stream = stream if stream is not None else sys.stdin

    def watch():
        try:
            for line in stream:
                if line.strip().lower() == "stop":
                    STOP.set()
        except (OSError, ValueError):
            pass

    if stream is not None:
        threading.Thread(target=watch, daemon=True, name="stop-listener").start()


def stop_requested() -> bool:
    """Whether the app asked this worker to stop (see :data:`STOP`)."""
    return STOP.is_set()


class ProbeFailed(Exception):
    """A probe that cannot give a result; ``kind`` is the protocol error kind."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind




def is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return "out of memory" in text or "can't allocate memory" in text


# --------------------------------------------------------------------------- timing
def sig(value: float, digits: int = 4) -> float:
    """``value`` to ``digits`` significant figures (a tiny rate must not round to zero)."""
    return float(f"{value:.{digits}g}")


def bench(fn, sync, budget_s: float, max_batches: int):
    """Time ``fn`` in batches of back-to-back calls between device syncs.

    Warm-up: one call, one timed call (to size the batches) and one untimed batch. Then up to
    ``max_batches`` batches, at least MIN_BATCHES, until ``budget_s`` is spent.

    Returns:
        ``(seconds_per_call, reps_per_batch, warmup_calls)``: one entry per timed batch.
    """
    fn()
    sync()
    start = time.perf_counter()
    fn()
    sync()
    single_s = max(time.perf_counter() - start, 1e-7)
    reps = max(1, min(100_000, int(budget_s / (max_batches + 1) / single_s)))
    for _ in range(reps):
        fn()
    sync()
    times = []
    end = time.perf_counter() + budget_s
    for i in range(max_batches):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        times.append((time.perf_counter() - start) / reps)
        if i + 1 >= MIN_BATCHES and time.perf_counter() > end:
            break
    return times, reps, 2 + reps


def one_call_s(fn, sync) -> float:
    fn()
    sync()
    start = time.perf_counter()
    fn()
    sync()
    return max(time.perf_counter() - start, 1e-9)
