"""Run probes in a worker subprocess and collect its messages: Qt-free, never hangs.

:func:`run_probes` starts ``python worker.py --probes ... --device ...`` with
:class:`subprocess.Popen`, reads its stdout on a reader thread (stderr on another, kept as a
tail for messages) and waits on a queue with a wall-clock deadline. Every way the worker can
misbehave ends in a :class:`ProbeRun` whose ``errors`` say what happened:

==================  ===============================================================
kind                when
==================  ===============================================================
``start-failed``    the interpreter could not be started
``timeout``         no ``done`` within ``timeout_s`` (a silent or hung worker)
``crash``           killed by a signal (segfault, out-of-memory killer)
``nonzero-exit``    exited with a status other than 0
``protocol``        a line that is not a protocol message, or messages out of order
``incomplete``      exited 0 without ``done`` or without answering a probe
``cancelled``       ``cancel_event`` was set: the worker is terminated (killed on Windows,
                    or after ``grace_s``) and the run still reports "cancelled"
==================  ===============================================================

Each requested probe that got neither a result nor an error gets an error of that kind; when
every probe was answered, the failure is recorded as a run-level error (``probe=None``).

The worker runs in a process group of its own (:mod:`.procgroup`: a new session on POSIX,
a job object on Windows), and the whole group is ended when the run ends, so nothing the
worker started outlives it. A worker that exits is done at once: its group is ended (a
child still holding the output pipe goes with it) and what it wrote is read for at most
:data:`DRAIN_S` more.
The CLI calls this directly; the GUI's job queue (later) wraps the same worker in QProcess.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .procgroup import WorkerGroup, popen_kwargs
from .protocol import MAX_LINE_BYTES, Done, Error, Hello, Message, ProtocolError, Result, parse_line

#: The worker script, run by path so any interpreter with torch can run it (it needs only the
#: standard library and torch, not gpuadvisor).
WORKER_SCRIPT = Path(__file__).resolve().with_name("worker.py")

#: The probes the worker knows (its own and its kernels'), in the order a run does them.
PROBES = ("matmul", "bandwidth", "decode", "hostmem", "transfer", "step", "dataread",
          "plancheck", "decodecheck", "burnin")
#: What ``--quick`` / ``--full`` run by default (``dataread`` joins when a folder is given;
#: ``plancheck``, ``decodecheck`` and ``burnin`` are runs of their own).
SUITE_PROBES = ("matmul", "bandwidth", "transfer", "step")
#: What ``probe --inference`` runs: the bandwidth a decode step reaches per weight format
#: on the device, and the host's RAM bandwidth (CPU inference, layers left in RAM).
INFERENCE_PROBES = ("decode", "hostmem")

#: Seconds a terminated worker gets to exit before it is killed.
GRACE_S = 2.0
#: Seconds the output of a worker that has exited is still read (its lines are in the pipe
#: already; this only bounds a child that escaped the group and holds the pipe open).
DRAIN_S = 1.0
#: Wall-clock limits per kind of run (seconds), for the command line and the Probe page
#: alike. The plan check trains the planned model's real width (1 and 2 layers, then a step
#: at the plan's shape), which takes minutes on a CPU.
TIMEOUTS_S = {"quick": 180.0, "full": 900.0, "plancheck": 900.0, "dataread": 300.0}
#: Seconds a burn-in run may take past its length: torch's start, drawing the inputs, the
#: float64 reference check on the CPU, and the report.
BURN_IN_MARGIN_S = 300.0


def burn_in_timeout(seconds: float) -> float:
    """The wall-clock limit of a burn-in of ``seconds``: its length, 10% for a slow last
    window, and :data:`BURN_IN_MARGIN_S`."""
    return seconds * 1.1 + BURN_IN_MARGIN_S

_EOF = object()
_STDERR_TAIL_LINES = 40


@dataclass(frozen=True)
class ProbeRun:
    """What one worker run produced.

    Attributes:
        status: ``"ok"`` (every probe has a result, no errors), ``"error"`` or ``"cancelled"``.
        hello: The worker's handshake, or ``None`` if it never said hello.
        results: One per probe that succeeded, in arrival order.
        errors: Errors from the worker and from the runner (see the module docstring).
        returncode: The worker's exit status (negative: killed by that signal on POSIX);
            ``None`` if it never started.
        duration_s: Wall-clock seconds from start to the worker's exit.
        stderr_tail: The last lines the worker wrote on stderr (for diagnostics).
        command: The command line that was run.
    """

    status: str
    hello: Hello | None
    results: tuple[Result, ...] = ()
    errors: tuple[Error, ...] = ()
    returncode: int | None = None
    duration_s: float = 0.0
    stderr_tail: str = ""
    command: tuple[str, ...] = field(default=(), repr=False)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def torch_missing(self) -> bool:
        """The worker started and said hello, but has no torch."""
        return self.hello is not None and self.hello.torch is None

    def result(self, probe: str) -> Result | None:
        """The result of ``probe``, or ``None``."""
        return next((r for r in self.results if r.probe == probe), None)

    def to_json(self) -> dict[str, Any]:
        """The ``probe --json`` object: results keyed by probe name."""
        return {
            "status": self.status,
            "worker": _without_type(self.hello.to_json()) if self.hello else None,
            "results": {r.probe: {"figures": r.figures, "units": r.units,
                                  "conditions": r.conditions} for r in self.results},
            "errors": [{"probe": e.probe, "kind": e.kind, "message": e.message}
                       for e in self.errors],
            "returncode": self.returncode,
            "duration_s": round(self.duration_s, 3),
        }


def _without_type(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != "type"}


def worker_command(probes: Sequence[str], *, python: str | os.PathLike = sys.executable,
                   device: str | None = None, quick: bool = True,
                   worker: str | os.PathLike = WORKER_SCRIPT,
                   extra_args: Sequence[str] = (),
                   options: dict[str, dict[str, Any]] | None = None) -> list[str]:
    """The command line that runs the worker (``options``: probe name -> its options)."""
    command = [os.fspath(python), os.fspath(worker), "--probes", ",".join(probes),
               "--device", device or "auto", "--quick" if quick else "--full"]
    if options:
        command += ["--options", json.dumps(options, separators=(",", ":"), allow_nan=False)]
    return [*command, *extra_args]


#: Variables a frozen app's loader sets to the app's own folder, saved as ``<NAME>_ORIG``
#: (PyInstaller's bootloader keeps the caller's value there; it is absent when there was none).
_LOADER_PATH_VARS = ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH",
                     "LIBPATH")
#: Path-list variables from which a frozen app's own folders are removed (entries elsewhere,
#: the user's own, are kept).
_BUNDLE_PATH_VARS = ("PATH", "PYTHONPATH", "QT_PLUGIN_PATH", "QML2_IMPORT_PATH",
                     "QT_QPA_PLATFORM_PLUGIN_PATH", "GI_TYPELIB_PATH", "GDK_PIXBUF_MODULE_FILE",
                     "SSL_CERT_FILE", "SSL_CERT_DIR", "TCL_LIBRARY", "TK_LIBRARY")


def child_env(environ: Mapping[str, str] | None = None, *, frozen: bool | None = None,
              bundle_dirs: Sequence[str | os.PathLike] | None = None) -> dict[str, str]:
    """The environment for a worker process (another Python, the user's, which has torch).

    Always: unbuffered UTF-8 output (the protocol is read line by line). When this process
    is a frozen app (``sys.frozen``, set by PyInstaller), its loader has pointed the library
    search path at the app's own folder, whose Qt, libstdc++ or OpenSSL would then be loaded
    by the user's Python and torch instead of theirs. So, for the child:

    - ``LD_LIBRARY_PATH`` / ``DYLD_LIBRARY_PATH`` (and kin) get back the caller's value, which
      the loader saved in ``<NAME>_ORIG``, or are removed when the caller had none;
    - entries inside the app's folders are removed from ``PATH``, ``PYTHONPATH``,
      ``QT_PLUGIN_PATH`` and similar lists (a variable left empty is removed);
    - ``PYTHONHOME`` is removed when it points into the app.

    Args:
        environ: The environment to start from (default: this process's).
        frozen: Whether this is a frozen app (default: ``sys.frozen``).
        bundle_dirs: The app's folders (default: ``sys._MEIPASS`` and the executable's folder).

    Returns:
        A new dict; ``environ`` is not changed.
    """
    env = dict(os.environ if environ is None else environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    if frozen is None:
        frozen = bool(getattr(sys, "frozen", False))
    if not frozen:
        return env
    if bundle_dirs is None:
        bundle_dirs = [d for d in (getattr(sys, "_MEIPASS", None),
                                   os.path.dirname(sys.executable)) if d]
    roots = [os.path.normcase(os.path.abspath(os.fspath(d))) for d in bundle_dirs]

    def inside(entry: str) -> bool:
        path = os.path.normcase(os.path.abspath(entry))
        return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep)
                   for root in roots)

    for name in _LOADER_PATH_VARS:
        original = env.pop(f"{name}_ORIG", None)
        if original is not None:
            env[name] = original
        elif name in env:
            _set_path_list(env, name, [p for p in env[name].split(os.pathsep)
                                       if p and not inside(p)])
    for name in _BUNDLE_PATH_VARS:
        if name in env:
            _set_path_list(env, name, [p for p in env[name].split(os.pathsep)
                                       if p and not inside(p)])
    if "PYTHONHOME" in env and inside(env["PYTHONHOME"]):
        del env["PYTHONHOME"]
    return env


def _set_path_list(env: dict[str, str], name: str, entries: list[str]) -> None:
    if entries:
        env[name] = os.pathsep.join(entries)
    else:
        env.pop(name, None)


def run_probes(probes: Sequence[str], *, python: str | os.PathLike = sys.executable,
               device: str | None = None, timeout_s: float, quick: bool = True,
               on_message: Callable[[Message], None] | None = None,
               cancel_event: threading.Event | None = None,
               worker: str | os.PathLike = WORKER_SCRIPT, extra_args: Sequence[str] = (),
               grace_s: float = GRACE_S, hello_only: bool = False,
               options: dict[str, dict[str, Any]] | None = None,
               stop_event: threading.Event | None = None) -> ProbeRun:
    """Run ``probes`` in a worker subprocess and wait for it, at most ``timeout_s`` seconds.

    Args:
        probes: Probe names (see :data:`PROBES`); the worker reports unknown ones as errors.
        python: The interpreter to run the worker with (one that has torch).
        device: ``"auto"`` (``None``), ``"cpu"``, an index ``"0"``, or ``"cuda:1"``-style.
        timeout_s: Wall-clock limit for the whole run; past it the worker is stopped and the
            unanswered probes get ``timeout`` errors.
        quick: The quick suite (small, seconds) or the full one.
        on_message: Called on this thread with every message: the worker's, then any error
            the runner adds. An exception from it stops the worker and propagates.
        cancel_event: When set, the worker is stopped and the run reports ``cancelled``.
        worker: The worker script (tests pass a fake one).
        extra_args: More arguments for the worker.
        grace_s: Seconds a terminated worker gets before it is killed.
        hello_only: Only the handshake: the worker says ``hello`` and ``done`` and runs no
            probe (``probes`` may then be empty); checks an interpreter.
        options: Per-probe options for the worker (``{"dataread": {"path": "/data"}}``).
        stop_event: When set, the worker is asked to stop gracefully (a ``stop`` line on its
            stdin): a long probe (burn-in) ends early and still reports what it measured.

    Returns:
        The :class:`ProbeRun`; this never raises for a misbehaving worker.
    """
    probes = tuple(probes)
    if hello_only:
        extra_args = (*extra_args, "--hello-only")
    elif not probes:
        raise ValueError("probes: name at least one probe")
    if timeout_s <= 0:
        raise ValueError(f"timeout_s: must be positive, got {timeout_s}")
    command = worker_command(probes, python=python, device=device, quick=quick, worker=worker,
                             extra_args=extra_args, options=options)
    notify = on_message or (lambda message: None)
    started = time.monotonic()
    deadline = started + timeout_s
    env = child_env()
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, **popen_kwargs())
    except (OSError, ValueError) as exc:  # ValueError: a NUL in a path
        error = Error(None, "start-failed", f"could not start {command[0]}: {exc}")
        notify(error)
        return ProbeRun(status="error", hello=None,
                        errors=tuple(Error(p, error.kind, error.message) for p in probes)
                        or (error,),
                        command=tuple(command))

    lines: queue.Queue = queue.Queue()
    stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
    readers = [threading.Thread(target=_read_stdout, args=(proc.stdout, lines), daemon=True,
                                name="probe-stdout"),
               threading.Thread(target=_read_stderr, args=(proc.stderr, stderr_tail),
                                daemon=True, name="probe-stderr")]
    for reader in readers:
        reader.start()
    group = WorkerGroup(proc.pid)

    hello: Hello | None = None
    results: list[Result] = []
    errors: list[Error] = []
    done = False
    failure: tuple[str, str] | None = None  # (kind, message) for the runner's own error
    stop_sent = False
    drain_until: float | None = None  # set once the worker has exited
    try:
        while True:
            if stop_event is not None and stop_event.is_set() and not stop_sent:
                stop_sent = True
                _send_stop(proc)
            if cancel_event is not None and cancel_event.is_set():
                failure = ("cancelled", "cancelled by the user")
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                failure = ("timeout", timeout_message(timeout_s, hello, done))
                break
            if drain_until is not None and time.monotonic() > drain_until:
                break  # exited, and something outside its group holds the pipe
            try:
                item = lines.get(timeout=min(remaining, 0.05))
            except queue.Empty:
                if drain_until is None and proc.poll() is not None:
                    # Exited: end what it left behind, so the pipe closes; read what is left.
                    group.kill()
                    drain_until = time.monotonic() + DRAIN_S
                continue
            if item is _EOF:
                break
            try:
                message = parse_line(item)
                check_order(message, hello, done)
            except ProtocolError as exc:
                failure = ("protocol", f"the worker broke the protocol: {exc}")
                break
            if isinstance(message, Hello):
                hello = message
            elif isinstance(message, Result):
                results.append(message)
            elif isinstance(message, Error):
                errors.append(message)
            elif isinstance(message, Done):
                done = True
            notify(message)
        if failure is None:
            # stdout is closed; the worker should be exiting. Wait, but not past the deadline.
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
            except subprocess.TimeoutExpired:
                failure = ("timeout", f"the worker closed its output but did not exit within "
                                      f"{timeout_s:g} s")
    finally:
        if proc.poll() is None:
            _stop(proc, grace_s, group)
        group.kill()  # whatever the worker started ends with the run
        group.close()
        with contextlib.suppress(OSError, ValueError, AttributeError):
            proc.stdin.close()
        for reader, stream in zip(readers, (proc.stdout, proc.stderr), strict=True):
            reader.join(timeout=0.5)
            # A reader still blocked means a grandchild (a wrapper script's child) holds the
            # pipe open; closing it would wait for that reader, so leave it to the daemon.
            if stream is not None and not reader.is_alive():
                stream.close()
    returncode = proc.returncode
    duration_s = time.monotonic() - started
    stderr_text = "".join(stderr_tail)

    if failure is None and returncode != 0:
        failure = exit_failure(returncode, stderr_text)
    if failure is None and not done:
        failure = ("incomplete", "the worker exited without finishing (no 'done' message)")
    answered = {r.probe for r in results} | {e.probe for e in errors}
    if failure is None and not set(probes) <= answered:
        missing = ", ".join(p for p in probes if p not in answered)
        failure = ("incomplete", f"the worker finished without answering: {missing}")
    if failure is not None:
        kind, text = failure
        added = [Error(p, kind, text) for p in probes if p not in answered]
        if not added:
            added = [Error(None, kind, text)]
        for error in added:
            errors.append(error)
            notify(error)

    if failure is not None and failure[0] == "cancelled":
        status = "cancelled"
    else:
        status = "ok" if not errors else "error"
    return ProbeRun(status=status, hello=hello, results=tuple(results), errors=tuple(errors),
                    returncode=returncode, duration_s=duration_s, stderr_tail=stderr_text,
                    command=tuple(command))


def check_order(message: Message, hello: Hello | None, done: bool) -> None:
    """Raise ProtocolError for a message out of order: anything before 'hello', a second
    'hello', anything after 'done' (shared by this runner and the GUI's job queue)."""
    kind = type(message).__name__.lower()
    if done:
        raise ProtocolError(f"'{kind}' after 'done'")
    if hello is None and not isinstance(message, Hello):
        raise ProtocolError(f"expected 'hello' first, got '{kind}'")
    if hello is not None and isinstance(message, Hello):
        raise ProtocolError("a second 'hello'")


def timeout_message(timeout_s: float, hello: Hello | None, done: bool) -> str:
    """What a wall-clock timeout means, by how far the worker got."""
    if hello is None:
        return f"the worker said nothing within {timeout_s:g} s (no 'hello'); stopped it"
    return f"the worker did not finish within {timeout_s:g} s; stopped it"


def exit_failure(returncode: int, stderr_text: str) -> tuple[str, str]:
    """``(kind, message)`` of a worker that exited before 'done': a crash (killed by a
    signal) or a non-zero status, with its last line of stderr."""
    last = next((line.strip() for line in reversed(stderr_text.splitlines()) if line.strip()),
                "")
    detail = f": {last}" if last else ""
    if returncode < 0:
        return "crash", f"the worker crashed ({_signal_name(-returncode)}){detail}"
    return "nonzero-exit", f"the worker exited with status {returncode}{detail}"


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _send_stop(proc: subprocess.Popen) -> None:
    """Ask the worker to end gracefully: a ``stop`` line on its stdin."""
    try:
        proc.stdin.write(b"stop\n")
        proc.stdin.flush()
    except (OSError, ValueError, AttributeError):
        pass  # it has exited, or closed its stdin: nothing to stop


def _stop(proc: subprocess.Popen, grace_s: float, group: WorkerGroup | None = None) -> None:
    """Terminate the worker and its group (kill on Windows, where terminate already is a
    kill), then kill them if the worker is still alive after ``grace_s``."""
    try:
        if sys.platform == "win32":
            if group is not None:
                group.kill()
            proc.kill()
        else:
            if group is not None:
                group.terminate()
            proc.terminate()
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            if group is not None:
                group.kill()
            proc.kill()
            proc.wait(timeout=5.0)
    except (OSError, subprocess.TimeoutExpired):  # already gone, or unkillable: move on
        pass


def _read_stdout(stream, lines: queue.Queue) -> None:
    """Put each stdout line (bytes) on ``lines``, then ``_EOF``. A line longer than
    :data:`MAX_LINE_BYTES` is passed on truncated, so the parser rejects it."""
    try:
        while True:
            line = stream.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            lines.put(line)
    except (OSError, ValueError):  # closed under us
        pass
    finally:
        lines.put(_EOF)


def _read_stderr(stream, tail: collections.deque) -> None:
    try:
        for raw in iter(lambda: stream.readline(64_000), b""):
            tail.append(raw.decode("utf-8", errors="replace"))
    except (OSError, ValueError):
        pass
