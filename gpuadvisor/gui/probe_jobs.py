"""Probe runs for the GUI: a queue of worker subprocesses driven by ``QProcess``.

The Qt-free :func:`gpuadvisor.probes.runner.run_probes` blocks its caller (the CLI); the GUI
needs the same worker, the same protocol and the same outcomes without blocking the event
loop, so :class:`ProbeQueue` runs the worker in a ``QProcess``, one job at a time, parses its
stdout line by line as it arrives and reports through typed signals. Every way a worker can
misbehave ends in ``finished(job, run)`` with a :class:`gpuadvisor.probes.runner.ProbeRun`
(the runner's own record, so ``history.record(run)`` works unchanged) whose errors say what
happened, with the same kinds as the runner:

==================  ===============================================================
kind                when
==================  ===============================================================
``start-failed``    the interpreter could not be started (``QProcess.FailedToStart``)
``timeout``         no exit within the job's ``timeout_s`` (a QTimer): stopped
``crash``           killed by a signal (segfault, out-of-memory killer)
``nonzero-exit``    exited with a status other than 0
``protocol``        a line that is not a protocol message (or too long, or out of order):
                    the worker is stopped at once
``incomplete``      exited 0 without ``done`` or without answering a probe
``cancelled``       :meth:`ProbeQueue.cancel`: terminated (killed at once on Windows, or
                    after the job's ``grace_s``); the run still reports "cancelled"
==================  ===============================================================

Nothing here blocks for long: waits are timers, and a worker that survives even a kill is
left behind (reported, never waited for) rather than hanging the window. The worker runs in
a process group of its own (:func:`start_in_own_group`: a new session on POSIX, a new
process group and a job object on Windows); stopping it ends the whole group, and so does
its exit, so nothing it started outlives the job.
:meth:`ProbeQueue.stop` asks for a graceful stop instead (a ``stop`` line on the worker's
stdin): a long probe (burn-in) ends early and still reports what it measured.

:func:`check_python` and :func:`discover_interpreters` are the blocking, Qt-free checks of
candidate interpreters; the page runs them on a thread pool.
"""

from __future__ import annotations

import collections
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from gpuadvisor.probes import interpreters, runner
from gpuadvisor.probes.procgroup import WorkerGroup
from gpuadvisor.probes.protocol import (
    MAX_LINE_BYTES,
    Done,
    Error,
    Hello,
    Progress,
    ProtocolError,
    Result,
    parse_line,
)
from gpuadvisor.probes.runner import GRACE_S, WORKER_SCRIPT, ProbeRun

from .worker_process import CREATE_NO_WINDOW, hide_console, start_in_own_group

#: Seconds a worker that ignored even a kill is given before the run is ended without it.
KILL_WAIT_S = 5.0
#: Lines of the worker's stderr kept for messages.
STDERR_TAIL_LINES = 40
_STDERR_LINE_BYTES = 64_000


@dataclass(frozen=True)
class ProbeJob:
    """One worker run: which probes, in which interpreter, on which device, how long.

    Attributes:
        probes: probe names (:data:`gpuadvisor.probes.runner.PROBES`); may be empty only
            with ``hello_only``.
        python: the interpreter that runs the worker (one with torch).
        device: ``None``/``"auto"``, ``"cpu"``, an index, or a torch name (``"cuda:1"``).
        quick: the quick suite (seconds) or the full one.
        timeout_s: wall-clock limit for the whole run.
        options: per-probe options (``{"burnin": {"duration_s": 600}}``).
        extra_args: more worker arguments (tests: ``--mode`` of the fake worker).
        worker: the worker script.
        grace_s: seconds a terminated worker gets before it is killed.
        hello_only: only the handshake (versions, devices).
        kind: what the page asked for (``quick``, ``full``, ``burnin``, ``plancheck``, ...);
            the queue does not read it.
    """

    probes: tuple[str, ...]
    python: str = sys.executable
    device: str | None = None
    quick: bool = True
    timeout_s: float = 600.0
    options: Mapping[str, Mapping[str, Any]] | None = None
    extra_args: tuple[str, ...] = ()
    worker: str = str(WORKER_SCRIPT)
    grace_s: float = GRACE_S
    hello_only: bool = False
    kind: str = "probe"

    def __post_init__(self) -> None:
        object.__setattr__(self, "probes", tuple(self.probes))
        object.__setattr__(self, "extra_args", tuple(self.extra_args))
        object.__setattr__(self, "worker", os.fspath(self.worker))
        object.__setattr__(self, "python", os.fspath(self.python))
        if not self.probes and not self.hello_only:
            raise ValueError("probes: name at least one probe")
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s: must be positive, got {self.timeout_s}")
        if self.grace_s < 0:
            raise ValueError(f"grace_s: must be >= 0, got {self.grace_s}")

    def command(self) -> list[str]:
        """The worker's command line (as :func:`runner.worker_command` builds it)."""
        extra = (*self.extra_args, "--hello-only") if self.hello_only else self.extra_args
        options = {k: dict(v) for k, v in self.options.items()} if self.options else None
        return runner.worker_command(self.probes, python=self.python, device=self.device,
                                     quick=self.quick, worker=self.worker, extra_args=extra,
                                     options=options)


@dataclass
class _Running:
    """What one running job has said so far (owned by the queue, GUI thread only)."""

    job: ProbeJob
    process: QProcess
    command: tuple[str, ...]
    started: float = field(default_factory=time.monotonic)
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    stderr_tail: collections.deque = field(
        default_factory=lambda: collections.deque(maxlen=STDERR_TAIL_LINES))
    hello: Hello | None = None
    results: list[Result] = field(default_factory=list)
    errors: list[Error] = field(default_factory=list)
    done: bool = False
    stdout_closed: bool = False
    #: (kind, message) of the runner's own error; set once, and output is ignored after it.
    failure: tuple[str, str] | None = None
    stop_sent: bool = False
    #: The worker's process group, once it has started.
    group: WorkerGroup | None = None

    def end_group(self, *, kill: bool) -> None:
        """Signal the worker's group: terminate, or kill (nothing before it started)."""
        if self.group is not None:
            if kill:
                self.group.kill()
            else:
                self.group.terminate()


class ProbeQueue(QObject):
    """Runs :class:`ProbeJob` s one at a time in worker subprocesses.

    Signals (all on the GUI thread, in protocol order):
        started(ProbeJob): a job's worker is being started.
        hello(Hello): the worker's handshake.
        progress(str, float, str): probe, fraction in [0, 1], message.
        result(Result): one probe's measurements.
        error(Error): a probe failed (the worker's error, or the queue's: timeout, crash...).
        finished(ProbeJob, ProbeRun): the job ended; ``run.status`` is ``ok``, ``error``
            or ``cancelled``. Emitted exactly once per started job.
        idle(): no job runs and none is waiting.
    """

    started = Signal(object)
    hello = Signal(object)
    progress = Signal(str, float, str)
    result = Signal(object)
    error = Signal(object)
    finished = Signal(object, object)
    idle = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending: collections.deque[ProbeJob] = collections.deque()
        self._run: _Running | None = None
        #: Workers that outlived a kill: kept referenced (never destroyed while running,
        #: which would block), and killed again on shutdown.
        self._orphans: list[QProcess] = []
        # One timer per purpose, owned by the queue and stopped whenever a job ends, so
        # none outlives the job it was started for.
        self._deadline = self._timer(self._on_deadline)
        self._grace = self._timer(self._on_grace_over)
        self._kill_wait = self._timer(self._on_kill_wait_over)

    def _timer(self, slot: Callable[[], None]) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(slot)
        return timer

    # ------------------------------------------------------------------ public API
    @property
    def busy(self) -> bool:
        """A job runs (or is being stopped)."""
        return self._run is not None

    @property
    def current(self) -> ProbeJob | None:
        """The job running now, or ``None``."""
        return self._run.job if self._run is not None else None

    @property
    def pending(self) -> tuple[ProbeJob, ...]:
        """Jobs waiting their turn."""
        return tuple(self._pending)

    def process_id(self) -> int | None:
        """The running worker's process id (tests), or ``None``."""
        if self._run is None:
            return None
        return int(self._run.process.processId()) or None

    def submit(self, job: ProbeJob) -> None:
        """Queue ``job``; it starts at once when nothing else runs."""
        self._pending.append(job)
        if self._run is None:
            self._start_next()

    def cancel(self) -> bool:
        """Cancel the running job (it reports ``cancelled``) and drop the waiting ones.

        Returns:
            Whether a job was running.
        """
        self._pending.clear()
        run = self._run
        if run is None:
            return False
        self._fail(run, "cancelled", "cancelled by the user")
        return True

    def stop(self) -> bool:
        """Ask the running worker to stop gracefully (a ``stop`` line on its stdin): a long
        probe ends early and reports what it measured. Returns whether it was asked."""
        run = self._run
        if run is None or run.failure is not None or run.stop_sent:
            return False
        run.stop_sent = True
        if run.process.state() == QProcess.ProcessState.NotRunning:
            return False
        run.process.write(b"stop\n")
        return True

    def shutdown(self, wait_s: float = 2.0) -> None:
        """Cancel everything and make sure no worker outlives the window (closing).

        The one place that waits: at most ``wait_s`` for a terminated worker, then it is
        killed. ``finished`` is still emitted for the running job.
        """
        self._pending.clear()
        run = self._run
        if run is not None:
            if run.failure is None:
                run.failure = ("cancelled", "cancelled: the window was closed")
            process = run.process
            if process.state() != QProcess.ProcessState.NotRunning:
                run.end_group(kill=sys.platform == "win32")
                if sys.platform == "win32":
                    process.kill()
                else:
                    process.terminate()
                if not process.waitForFinished(int(wait_s * 1000)):
                    run.end_group(kill=True)
                    process.kill()
                    process.waitForFinished(int(wait_s * 1000))
            if self._run is run:  # waitForFinished may already have finished it
                self._finish(run, exit_code=None, crashed=False)
        for process in self._orphans:
            process.kill()
            process.waitForFinished(100)
        self._orphans = [p for p in self._orphans
                         if p.state() != QProcess.ProcessState.NotRunning]
        for timer in (self._deadline, self._grace, self._kill_wait):
            timer.stop()

    # ------------------------------------------------------------------ starting
    def _start_next(self) -> None:
        if not self._pending:
            self.idle.emit()
            return
        job = self._pending.popleft()
        command = job.command()
        process = QProcess(self)
        # The same environment as the CLI's runner: a frozen app's own library path removed.
        env = QProcessEnvironment()
        for name, value in runner.child_env().items():
            env.insert(name, value)
        process.setProcessEnvironment(env)
        process.setProgram(command[0])
        process.setArguments(command[1:])
        start_in_own_group(process)
        run = _Running(job=job, process=process, command=tuple(command))
        self._run = run
        # Each slot checks that its run is still the current one: a stopped worker's late
        # output or exit must not leak into the next job.
        process.readyReadStandardOutput.connect(lambda: self._on_stdout(run))
        process.readyReadStandardError.connect(lambda: self._on_stderr(run))
        process.readChannelFinished.connect(lambda: self._on_stdout_closed(run))
        process.started.connect(lambda: self._on_started(run))
        process.errorOccurred.connect(lambda error: self._on_process_error(run, error))
        process.finished.connect(lambda code, status: self._on_exit(run, code, status))
        self._deadline.start(int(job.timeout_s * 1000))
        self.started.emit(job)
        process.start()

    def _on_started(self, run: _Running) -> None:
        # The group (on Windows: the job object) exists from here on; the pid is its id.
        run.group = WorkerGroup(int(run.process.processId()) or None)

    # ------------------------------------------------------------------ reading
    def _on_stdout(self, run: _Running) -> None:
        if run is not self._run:
            return
        run.stdout += bytes(run.process.readAllStandardOutput().data())
        self._parse_lines(run)

    def _parse_lines(self, run: _Running, *, final: bool = False) -> None:
        buffer = run.stdout
        while run.failure is None:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > MAX_LINE_BYTES:
                    self._fail(run, "protocol", "the worker broke the protocol: line longer "
                               f"than {MAX_LINE_BYTES} bytes")
                elif final and buffer:
                    line = bytes(buffer)
                    buffer.clear()
                    self._handle_line(run, line)
                break
            line = bytes(buffer[:end + 1])
            del buffer[:end + 1]
            self._handle_line(run, line)
        if run.failure is not None:
            buffer.clear()

    def _handle_line(self, run: _Running, line: bytes) -> None:
        try:
            message = parse_line(line)
            check_order(message, run.hello, run.done)
        except ProtocolError as exc:
            self._fail(run, "protocol", f"the worker broke the protocol: {exc}")
            return
        if isinstance(message, Hello):
            run.hello = message
            self.hello.emit(message)
        elif isinstance(message, Progress):
            self.progress.emit(message.probe, message.fraction, message.message)
        elif isinstance(message, Result):
            run.results.append(message)
            self.result.emit(message)
        elif isinstance(message, Error):
            run.errors.append(message)
            self.error.emit(message)
        elif isinstance(message, Done):
            run.done = True

    def _on_stderr(self, run: _Running) -> None:
        run.stderr += bytes(run.process.readAllStandardError().data())
        self._split_stderr(run)

    def _split_stderr(self, run: _Running, *, final: bool = False) -> None:
        buffer = run.stderr
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > _STDERR_LINE_BYTES or (final and buffer):
                    run.stderr_tail.append(bytes(buffer[:_STDERR_LINE_BYTES]).decode(
                        "utf-8", errors="replace"))
                    buffer.clear()
                return
            run.stderr_tail.append(bytes(buffer[:end + 1]).decode("utf-8", errors="replace"))
            del buffer[:end + 1]

    def _on_stdout_closed(self, run: _Running) -> None:
        run.stdout_closed = True

    # ------------------------------------------------------------------ failing and stopping
    def _fail(self, run: _Running, kind: str, message: str) -> None:
        """Record the queue's own error (the first one wins) and stop the worker."""
        if run.failure is not None:
            return
        run.failure = (kind, message)
        self._deadline.stop()
        process = run.process
        if process.state() == QProcess.ProcessState.NotRunning:
            if run is self._run and not self._kill_wait.isActive():
                # Nothing to wait for (it never started, or has just exited).
                self._finish(run, exit_code=None, crashed=False)
            return
        if sys.platform == "win32" or run.job.grace_s == 0:
            run.end_group(kill=True)
            process.kill()  # terminate() only posts WM_CLOSE, which a console worker ignores
            self._kill_wait.start(int(KILL_WAIT_S * 1000))
        else:
            run.end_group(kill=False)
            process.terminate()
            self._grace.start(int(run.job.grace_s * 1000))

    def _on_deadline(self) -> None:
        run = self._run
        if run is None:
            return
        if run.stdout_closed and run.hello is not None:
            message = (f"the worker closed its output but did not exit within "
                       f"{run.job.timeout_s:g} s")
        else:
            message = runner.timeout_message(run.job.timeout_s, run.hello, run.done)
        self._fail(run, "timeout", message)

    def _on_grace_over(self) -> None:
        run = self._run
        if run is None:
            return
        run.end_group(kill=True)
        run.process.kill()
        self._kill_wait.start(int(KILL_WAIT_S * 1000))

    def _on_kill_wait_over(self) -> None:
        run = self._run
        if run is None:
            return
        # Unkillable for now (stuck in the kernel): never wait for it; keep the object
        # alive (destroying a running QProcess blocks) and end the run without it.
        self._orphans.append(run.process)
        run.stderr_tail.append(f"the worker (pid {run.process.processId()}) did not exit "
                               "after a kill; left behind\n")
        self._finish(run, exit_code=None, crashed=False)

    def _on_process_error(self, run: _Running, error: QProcess.ProcessError) -> None:
        if run is not self._run or error != QProcess.ProcessError.FailedToStart:
            return  # crashes come with finished(); write errors mean it has exited
        message = f"could not start {run.command[0]}: {run.process.errorString()}"
        if run.failure is None:
            run.failure = ("start-failed", message)
        self._finish(run, exit_code=None, crashed=False)

    def _on_exit(self, run: _Running, exit_code: int, status: QProcess.ExitStatus) -> None:
        if run is not self._run:
            return
        # QProcess has drained the pipes before finished(); read what is left.
        run.stdout += bytes(run.process.readAllStandardOutput().data())
        run.stderr += bytes(run.process.readAllStandardError().data())
        if run.failure is None:
            self._parse_lines(run, final=True)
        self._finish(run, exit_code=exit_code,
                     crashed=status == QProcess.ExitStatus.CrashExit)

    # ------------------------------------------------------------------ finishing
    def _finish(self, run: _Running, *, exit_code: int | None, crashed: bool) -> None:
        if run is not self._run:
            return
        self._run = None
        for timer in (self._deadline, self._grace, self._kill_wait):
            timer.stop()
        # Whatever the worker started ends with the job (and no longer holds its pipes).
        run.end_group(kill=True)
        if run.group is not None:
            run.group.close()
        self._split_stderr(run, final=True)
        stderr_text = "".join(run.stderr_tail)
        job = run.job
        failure = run.failure
        returncode: int | None = exit_code
        if crashed and exit_code is not None and sys.platform != "win32":
            returncode = -exit_code  # the signal, as subprocess reports it
        if failure is None and exit_code is not None and (crashed or exit_code != 0):
            if crashed and sys.platform == "win32":
                failure = ("crash", f"the worker crashed (exit code {exit_code:#x})")
            else:
                failure = runner.exit_failure(returncode, stderr_text)
        if failure is None and not run.done:
            failure = ("incomplete", "the worker exited without finishing (no 'done' message)")
        answered = {r.probe for r in run.results} | {e.probe for e in run.errors}
        if failure is None and not set(job.probes) <= answered:
            missing = ", ".join(p for p in job.probes if p not in answered)
            failure = ("incomplete", f"the worker finished without answering: {missing}")
        if failure is not None:
            kind, text = failure
            added = [Error(p, kind, text) for p in job.probes if p not in answered]
            if not added:
                added = [Error(None, kind, text)]
            for error in added:
                run.errors.append(error)
                self.error.emit(error)
        if failure is not None and failure[0] == "cancelled":
            status = "cancelled"
        else:
            status = "ok" if not run.errors else "error"
        result = ProbeRun(status=status, hello=run.hello, results=tuple(run.results),
                          errors=tuple(run.errors), returncode=returncode,
                          duration_s=time.monotonic() - run.started, stderr_tail=stderr_text,
                          command=run.command)
        if run.process.state() == QProcess.ProcessState.NotRunning:
            run.process.deleteLater()
        self.finished.emit(job, result)
        if self._run is None:  # a slot of finished() may have submitted a job already
            self._start_next()


def check_order(message, hello: Hello | None, done: bool) -> None:
    # The runner's rule (hello first and once, nothing after done), shared so the CLI and
    # the GUI reject the same workers with the same words.
    runner.check_order(message, hello, done)


# ====================================================================== interpreters
@dataclass(frozen=True)
class Interpreter:
    """An interpreter checked by the worker's handshake, with the devices it can probe.

    Attributes:
        info: what :mod:`gpuadvisor.probes.interpreters` says about it (torch, accelerators).
        devices: the ``hello`` devices (dicts with ``id``, ``name``, ``type``, memory...),
            accelerators first, the CPU last; empty when the check failed.
    """

    info: interpreters.InterpreterInfo
    devices: tuple[dict[str, Any], ...] = ()

    @property
    def python(self) -> str:
        return self.info.python

    @property
    def usable(self) -> bool:
        return self.info.usable


def check_python(python: str | os.PathLike, *, worker: str | os.PathLike = WORKER_SCRIPT,
                 timeout_s: float = interpreters.CHECK_TIMEOUT_S,
                 extra_args: Sequence[str] = ()) -> Interpreter:
    """Ask ``python`` for the worker's handshake (blocking; never hangs past ``timeout_s``).

    Like :func:`gpuadvisor.probes.interpreters.check_interpreter`, and keeps the devices
    (ids included) for the device picker.
    """
    run = runner.run_probes((), python=python, timeout_s=timeout_s, hello_only=True,
                            worker=worker, grace_s=0.5, extra_args=extra_args)
    error = "; ".join(e.message for e in run.errors) or None
    hello = run.hello
    if hello is None:
        return Interpreter(interpreters.InterpreterInfo(python=str(python),
                                                        error=error or "no handshake"))
    info = interpreters.InterpreterInfo(
        python=str(python), torch=hello.torch,
        accelerators=tuple(a for a in interpreters.ACCELERATORS if hello.accelerators.get(a)),
        devices=tuple(str(d.get("name") or d.get("id")) for d in hello.devices),
        python_version=hello.versions.get("python"), torch_error=hello.torch_error,
        error=error)
    return Interpreter(info, tuple(dict(d) for d in hello.devices) if hello.torch else ())


def discover_interpreters(preferred: str | None = None, *,
                          worker: str | os.PathLike = WORKER_SCRIPT,
                          candidates: Callable[[], Sequence[Path]] | None = None,
                          check: Callable[[str], Interpreter] | None = None,
                          max_workers: int = 4) -> list[Interpreter]:
    """Every interpreter worth offering, checked (blocking: run it off the GUI thread).

    ``preferred`` (the remembered or chosen one) comes first, then
    :func:`gpuadvisor.probes.interpreters.candidate_pythons`, without duplicates.
    """
    listed = [Path(p) for p in (candidates or interpreters.candidate_pythons)()]
    pythons: list[str] = []
    seen: set[str] = set()
    for path in ([Path(preferred)] if preferred else []) + listed:
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            pythons.append(str(path))
    if not pythons:
        return []
    check = check or (lambda p: check_python(p, worker=worker))
    with ThreadPoolExecutor(max_workers=min(max_workers, len(pythons))) as pool:
        return list(pool.map(check, pythons))


__all__ = ["CREATE_NO_WINDOW", "Interpreter", "ProbeJob", "ProbeQueue", "check_python",
           "discover_interpreters", "hide_console", "start_in_own_group"]
