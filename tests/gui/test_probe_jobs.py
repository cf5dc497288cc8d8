"""The GUI's probe queue against the fake worker: every fault the Qt-free runner handles ends
here too as ``finished`` with the same error kinds, within its timeout, with the event loop
running all along (waitSignal), and one job at a time."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys
import time
from pathlib import Path

import pytest
import shiboken6

from gpuadvisor.gui.probe_jobs import (
    Interpreter,
    ProbeJob,
    ProbeQueue,
    check_python,
    discover_interpreters,
)
from gpuadvisor.probes.protocol import Error, Hello, Result
from gpuadvisor.probes.runner import ProbeRun

FAKE_WORKER = Path(__file__).resolve().parents[1] / "fakes" / "fake_worker.py"
#: A job that misbehaves must end well within this (the fake starts in ~50 ms).
WAIT_MS = 8000


def fake_job(mode: str, probes=("matmul", "bandwidth"), **kwargs) -> ProbeJob:
    kwargs.setdefault("timeout_s", 8.0)
    kwargs.setdefault("grace_s", 0.3)
    return ProbeJob(probes=probes, worker=str(FAKE_WORKER), extra_args=("--mode", mode),
                    **kwargs)


@pytest.fixture
def queue(qtbot):
    queue = ProbeQueue()
    messages: list = []
    for signal in (queue.hello, queue.result, queue.error):
        signal.connect(messages.append)
    queue.progress.connect(lambda *args: messages.append(args))
    queue.messages = messages
    yield queue
    queue.shutdown(wait_s=1.0)
    assert not queue.busy
    for timer in (queue._deadline, queue._grace, queue._kill_wait):
        assert not timer.isActive(), "a queue timer outlived the test"
    # Deleted here, on the GUI thread: left to Python's garbage collector, it could be
    # destroyed on whatever thread happens to collect (a pool thread in a later test).
    shiboken6.delete(queue)


def run_job(qtbot, queue, job, timeout_ms=WAIT_MS) -> tuple[ProbeRun, float]:
    started = time.monotonic()
    with qtbot.waitSignal(queue.finished, timeout=timeout_ms) as blocker:
        queue.submit(job)
    finished_job, run = blocker.args
    assert finished_job is job
    return run, time.monotonic() - started


def kinds(run: ProbeRun) -> dict:
    return {e.probe: e.kind for e in run.errors}


def test_a_good_worker_streams_hello_progress_and_results_then_finishes_ok(qtbot, queue):
    started = []
    queue.started.connect(started.append)
    job = fake_job("ok")
    run, _ = run_job(qtbot, queue, job)
    assert started == [job]
    assert isinstance(run, ProbeRun)
    assert run.status == "ok" and run.errors == () and run.returncode == 0
    assert run.result("matmul").figures == {"fake_tflops": 1.5}
    assert run.hello.devices[0]["name"] == "Fake CPU"
    kinds_seen = [type(m).__name__ if not isinstance(m, tuple) else "progress"
                  for m in queue.messages]
    assert kinds_seen == ["Hello", "progress", "Result", "progress", "Result"]
    assert queue.messages[1] == ("matmul", 0.5, "half way")
    assert run.command[1] == str(FAKE_WORKER) and "--mode" in run.command


def test_a_result_line_split_over_several_reads_is_parsed_whole(qtbot, queue):
    run, _ = run_job(qtbot, queue, fake_job("chunked"))
    assert run.status == "ok"
    assert run.result("matmul").figures == {"fake_tflops": 2.5}


def test_an_interpreter_that_cannot_start_is_a_start_failed_error(qtbot, queue):
    job = ProbeJob(probes=("matmul",), python="/nowhere/bin/python", worker=str(FAKE_WORKER))
    run, elapsed = run_job(qtbot, queue, job)
    assert run.status == "error" and run.hello is None
    assert kinds(run) == {"matmul": "start-failed"}
    assert "/nowhere/bin/python" in run.errors[0].message
    assert elapsed < 3


def test_garbage_on_stdout_is_a_protocol_error_and_the_worker_is_stopped_at_once(qtbot, queue):
    run, elapsed = run_job(qtbot, queue, fake_job("garbage"))
    assert kinds(run) == {"matmul": "protocol", "bandwidth": "protocol"}
    assert "not JSON" in run.errors[0].message and "something printed" in run.errors[0].message
    assert elapsed < 4  # terminated, not left to the timeout


@pytest.mark.parametrize(("mode", "words"), [
    ("result-first", "expected 'hello' first"),
    ("wrong-version", "protocol 999"),
    ("long-line", "longer than"),
])
def test_messages_out_of_order_a_foreign_protocol_or_an_endless_line_are_protocol_errors(
        qtbot, queue, mode, words):
    run, elapsed = run_job(qtbot, queue, fake_job(mode))
    assert set(kinds(run).values()) == {"protocol"}
    assert words in run.errors[0].message
    assert elapsed < 4


def test_a_crash_names_the_signal(qtbot, queue):
    run, _ = run_job(qtbot, queue, fake_job("crash"))
    assert kinds(run) == {"matmul": "crash", "bandwidth": "crash"}
    if sys.platform != "win32":
        assert run.returncode < 0 and "SIGKILL" in run.errors[0].message


def test_a_nonzero_exit_keeps_the_earlier_result_and_quotes_stderr(qtbot, queue):
    run, _ = run_job(qtbot, queue, fake_job("nonzero-exit"))
    assert run.returncode == 3 and run.result("matmul") is not None
    assert kinds(run) == {"bandwidth": "nonzero-exit"}
    assert "status 3" in run.errors[0].message
    assert "something went badly wrong" in run.errors[0].message


def test_an_exit_without_done_is_incomplete(qtbot, queue):
    run, _ = run_job(qtbot, queue, fake_job("no-done"))
    assert len(run.results) == 2
    assert kinds(run) == {None: "incomplete"}


@pytest.mark.parametrize("mode", ["hang", "silent", "hang-ignore-term", "close-and-hang"])
def test_a_hung_or_silent_worker_times_out_and_is_stopped(qtbot, queue, mode):
    run, elapsed = run_job(qtbot, queue, fake_job(mode, timeout_s=0.6, grace_s=0.2))
    assert set(kinds(run).values()) == {"timeout"}
    assert "0.6 s" in run.errors[0].message
    assert elapsed < 4
    if mode == "silent":
        assert "no 'hello'" in run.errors[0].message


def test_cancel_during_a_run_reports_cancelled_and_the_loop_keeps_running(qtbot, queue):
    job = fake_job("slow-progress", probes=("matmul",))
    with qtbot.waitSignal(queue.progress, timeout=WAIT_MS):
        queue.submit(job)
    pid = queue.process_id()
    assert pid
    ticks = []
    queue.progress.connect(lambda *args: ticks.append(args))
    qtbot.waitUntil(lambda: len(ticks) >= 2, timeout=3000)  # the GUI is not blocked
    with qtbot.waitSignal(queue.finished, timeout=WAIT_MS) as blocker:
        assert queue.cancel()
    run = blocker.args[1]
    assert run.status == "cancelled"
    assert kinds(run) == {"matmul": "cancelled"}
    assert not queue.busy


def test_cancel_kills_a_worker_that_ignores_terminate(qtbot, queue):
    with qtbot.waitSignal(queue.hello, timeout=WAIT_MS):
        queue.submit(fake_job("hang-ignore-term", grace_s=0.2))
    started = time.monotonic()
    with qtbot.waitSignal(queue.finished, timeout=WAIT_MS) as blocker:
        queue.cancel()
    assert blocker.args[1].status == "cancelled"
    assert time.monotonic() - started < 3


def test_stop_asks_the_worker_to_finish_early_and_its_results_count(qtbot, queue):
    with qtbot.waitSignal(queue.progress, timeout=WAIT_MS):
        queue.submit(fake_job("stop-aware", probes=("burnin",)))
    with qtbot.waitSignal(queue.finished, timeout=WAIT_MS) as blocker:
        assert queue.stop()
    run = blocker.args[1]
    assert run.status == "ok"
    assert run.result("burnin").figures == {"fake_tflops": 1.5}
    assert not queue.stop()  # nothing runs any more


def test_jobs_run_one_at_a_time_in_order_and_cancel_drops_the_waiting_ones(qtbot, queue):
    order = []
    queue.started.connect(lambda job: order.append(("start", job.kind)))
    queue.finished.connect(lambda job, run: order.append(("end", job.kind, run.status)))
    first = fake_job("ok", probes=("matmul",), kind="first")
    second = fake_job("no-torch", probes=("matmul",), kind="second")
    with qtbot.waitSignal(queue.idle, timeout=WAIT_MS):
        queue.submit(first)
        queue.submit(second)
        assert queue.current is first and queue.pending == (second,)
    assert order == [("start", "first"), ("end", "first", "ok"),
                     ("start", "second"), ("end", "second", "error")]

    order.clear()
    with qtbot.waitSignal(queue.idle, timeout=WAIT_MS):
        queue.submit(fake_job("hang", kind="hung"))
        queue.submit(fake_job("ok", kind="never"))
        queue.cancel()
    assert order == [("start", "hung"), ("end", "hung", "cancelled")]


def test_errors_are_signalled_as_they_come_and_as_the_queue_adds_them(qtbot, queue):
    run, _ = run_job(qtbot, queue, fake_job("bad-device"))
    errors = [m for m in queue.messages if isinstance(m, Error)]
    assert [e.kind for e in errors] == ["bad-device", "bad-device"]
    assert run.errors == tuple(errors)
    assert isinstance(queue.messages[0], Hello)
    assert not any(isinstance(m, Result) for m in queue.messages)


def test_shutdown_ends_a_running_job_at_once(qtbot, queue):
    ended = []
    queue.finished.connect(lambda job, run: ended.append(run.status))
    with qtbot.waitSignal(queue.hello, timeout=WAIT_MS):
        queue.submit(fake_job("hang"))
    queue.shutdown(wait_s=1.0)
    assert ended == ["cancelled"] and not queue.busy


def test_a_job_is_validated():
    with pytest.raises(ValueError, match="probes"):
        ProbeJob(probes=())
    with pytest.raises(ValueError, match="timeout_s"):
        ProbeJob(probes=("matmul",), timeout_s=0)
    assert "--hello-only" in ProbeJob(probes=(), hello_only=True).command()


# -- interpreters ------------------------------------------------------------------------------


def test_check_python_keeps_the_hello_devices(monkeypatch):
    monkeypatch.setenv("FAKE_WORKER_MODE", "rtx4090")
    found = check_python(sys.executable, worker=FAKE_WORKER, timeout_s=8)
    assert found.usable and found.info.torch == "0.0-fake"
    assert [d["id"] for d in found.devices] == ["cuda:0", "cpu"]
    assert found.info.accelerators == ("cuda",)


def test_check_python_of_an_interpreter_without_torch_or_that_fails(monkeypatch):
    monkeypatch.setenv("FAKE_WORKER_MODE", "no-torch")
    found = check_python(sys.executable, worker=FAKE_WORKER, timeout_s=8)
    assert not found.usable and found.info.torch is None and found.devices == ()
    broken = check_python("/nowhere/python", worker=FAKE_WORKER, timeout_s=8)
    assert not broken.usable and "could not start" in broken.info.error


def test_discovery_puts_the_preferred_first_without_duplicates():
    checked = []

    def check(python):
        checked.append(python)
        from gpuadvisor.probes.interpreters import InterpreterInfo
        return Interpreter(InterpreterInfo(python=python, torch="2.0"))

    found = discover_interpreters("/envs/a/bin/python", check=check,
                                  candidates=lambda: [Path("/envs/b/bin/python"),
                                                      Path("/envs/a/bin/python")])
    assert [i.python for i in found] == ["/envs/a/bin/python", "/envs/b/bin/python"]
    assert sorted(checked) == ["/envs/a/bin/python", "/envs/b/bin/python"]


def test_on_windows_a_probe_worker_gets_no_console_window(monkeypatch):
    from types import SimpleNamespace

    from gpuadvisor.gui import probe_jobs

    hooks = []
    fake = SimpleNamespace(setCreateProcessArgumentsModifier=hooks.append)
    monkeypatch.setattr(probe_jobs.sys, "platform", "win32")
    assert probe_jobs.hide_console(fake)
    arguments = SimpleNamespace(flags=0x00000010)  # CREATE_NEW_CONSOLE, set by someone else
    hooks[0](arguments)
    # CREATE_NO_WINDOW is 0x08000000 (Windows process creation flags); others are kept.
    assert arguments.flags == 0x08000010
    monkeypatch.setattr(probe_jobs.sys, "platform", "linux")
    assert not probe_jobs.hide_console(fake) and len(hooks) == 1
