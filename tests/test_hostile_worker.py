"""Hostile workers (issue group 4): a worker whose child holds the output pipe is done as soon
as it exits, and the child ends with it; a worker that hangs takes its children along when it
is stopped; deep nesting and numbers past a float in its lines are protocol errors, never a
crash. The Windows job-object path is driven with a fake kernel32."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys
import time
from pathlib import Path

import pytest

from gpuadvisor.probes import procgroup
from gpuadvisor.probes.procgroup import WorkerGroup, popen_kwargs
from gpuadvisor.probes.runner import run_probes

HOSTILE_WORKER = Path(__file__).resolve().parent / "fakes" / "hostile_worker.py"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="process groups by POSIX signal")


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, killed and awaiting its reaper, does not)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.is_dir() and Path("/proc/self").exists():
        try:
            state = stat.read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _running(pid):
            return True
        time.sleep(0.05)
    return not _running(pid)


def _child_pid(path: Path) -> int:
    return int(path.read_text())


@posix_only
def test_a_worker_whose_child_holds_the_pipe_is_done_when_it_exits_and_the_child_ends(
        tmp_path, monkeypatch):
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("HOSTILE_CHILD_PID_FILE", str(pid_file))
    started = time.monotonic()
    run = run_probes(["matmul"], worker=HOSTILE_WORKER, extra_args=["--mode", "child-holds-pipe"],
                     timeout_s=60.0, grace_s=0.3)
    took = time.monotonic() - started
    assert run.status == "ok", run.errors
    assert took < 10.0  # not the 60 s timeout: the child kept the pipe open for 120 s
    assert _gone_within(_child_pid(pid_file), 5.0)


@posix_only
def test_a_hung_worker_is_stopped_with_everything_it_started(tmp_path, monkeypatch):
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("HOSTILE_CHILD_PID_FILE", str(pid_file))
    run = run_probes(["matmul"], worker=HOSTILE_WORKER, extra_args=["--mode", "child-then-hang"],
                     timeout_s=1.5, grace_s=0.3)
    assert [e.kind for e in run.errors] == ["timeout"]
    assert _gone_within(_child_pid(pid_file), 5.0)


@pytest.mark.parametrize("mode", ["deep-nesting", "huge-number", "huge-float"])
def test_hostile_lines_are_protocol_errors(mode):
    run = run_probes(["matmul"], worker=HOSTILE_WORKER, extra_args=["--mode", mode],
                     timeout_s=20.0, grace_s=0.3)
    assert [e.kind for e in run.errors] == ["protocol"]
    assert "the worker broke the protocol" in run.errors[0].message


def test_the_worker_starts_in_a_group_of_its_own():
    assert popen_kwargs("linux") == {"start_new_session": True}
    flags = popen_kwargs("win32")["creationflags"]
    assert flags & procgroup.CREATE_NEW_PROCESS_GROUP
    assert flags & procgroup.CREATE_NO_WINDOW


class FakeJobs:
    """kernel32's job-object calls, recorded."""

    def __init__(self, *, create_ok=True, assign_ok=True):
        self.calls: list[tuple] = []
        self.create_ok, self.assign_ok = create_ok, assign_ok

    def create(self):
        self.calls.append(("create",))
        return "job-1" if self.create_ok else None

    def assign(self, job, pid):
        self.calls.append(("assign", job, pid))
        return self.assign_ok

    def terminate(self, job):
        self.calls.append(("terminate", job))

    def close(self, job):
        self.calls.append(("close", job))


def test_on_windows_the_worker_joins_a_job_that_ends_with_it():
    jobs = FakeJobs()
    group = WorkerGroup(4242, platform="win32", jobs=jobs)
    assert group.has_job
    assert group.terminate()  # a console worker has no polite stop: the job is ended
    group.close()
    group.close()  # twice is harmless
    assert jobs.calls == [("create",), ("assign", "job-1", 4242), ("terminate", "job-1"),
                          ("close", "job-1")]


def test_on_windows_without_a_job_only_the_worker_is_ended():
    jobs = FakeJobs(assign_ok=False)
    group = WorkerGroup(4242, platform="win32", jobs=jobs)
    assert not group.has_job
    assert not group.kill()  # the caller kills the worker itself
    assert ("close", "job-1") in jobs.calls  # the unused job is released at once
    assert not WorkerGroup(4242, platform="win32", jobs=FakeJobs(create_ok=False)).has_job


@posix_only
def test_a_group_that_is_gone_is_not_an_error():
    import subprocess

    proc = subprocess.Popen([sys.executable, "-c", "pass"], **popen_kwargs())
    proc.wait()
    group = WorkerGroup(proc.pid)
    assert not group.kill()
    assert not WorkerGroup(None).terminate()


@posix_only
def test_the_gui_queue_ends_a_worker_whose_child_holds_the_pipe(qtbot, tmp_path, monkeypatch):
    import shiboken6

    from gpuadvisor.gui.probe_jobs import ProbeJob, ProbeQueue

    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("HOSTILE_CHILD_PID_FILE", str(pid_file))
    queue = ProbeQueue()
    job = ProbeJob(probes=("matmul",), worker=str(HOSTILE_WORKER),
                   extra_args=("--mode", "child-holds-pipe"), timeout_s=60.0, grace_s=0.3)
    started = time.monotonic()
    with qtbot.waitSignal(queue.finished, timeout=15_000) as blocker:
        queue.submit(job)
    _job, run = blocker.args
    assert run.status == "ok", run.errors
    assert time.monotonic() - started < 10.0
    assert _gone_within(_child_pid(pid_file), 5.0)
    queue.shutdown(wait_s=1.0)
    shiboken6.delete(queue)


@posix_only
def test_the_gui_queue_stops_a_hung_worker_with_its_children(qtbot, tmp_path, monkeypatch):
    import shiboken6

    from gpuadvisor.gui.probe_jobs import ProbeJob, ProbeQueue

    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("HOSTILE_CHILD_PID_FILE", str(pid_file))
    queue = ProbeQueue()
    job = ProbeJob(probes=("matmul",), worker=str(HOSTILE_WORKER),
                   extra_args=("--mode", "child-then-hang"), timeout_s=1.5, grace_s=0.3)
    with qtbot.waitSignal(queue.finished, timeout=15_000) as blocker:
        queue.submit(job)
    _job, run = blocker.args
    assert [e.kind for e in run.errors] == ["timeout"]
    assert _gone_within(_child_pid(pid_file), 5.0)
    queue.shutdown(wait_s=1.0)
    shiboken6.delete(queue)
