"""The probe runner against a fake worker that misbehaves in every way it can: each fault
ends as an error result with a clear message, within the timeout, never a hang."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from gpuadvisor.probes.protocol import Done, Error, Hello, Progress, Result
from gpuadvisor.probes.runner import run_probes

FAKE_WORKER = Path(__file__).resolve().parents[1] / "fakes" / "fake_worker.py"
SHORT_TIMEOUT_S = 1.5
FINISHES_WELL_WITHIN_S = 10.0


def run_fake(mode: str, probes=("matmul", "bandwidth"), **kwargs):
    kwargs.setdefault("timeout_s", FINISHES_WELL_WITHIN_S)
    kwargs.setdefault("grace_s", 0.5)
    started = time.monotonic()
    run = run_probes(probes, worker=FAKE_WORKER, extra_args=["--mode", mode], **kwargs)
    return run, time.monotonic() - started


def kinds(run) -> dict:
    return {e.probe: e.kind for e in run.errors}


def test_a_good_worker_gives_a_parsed_result_per_probe_and_every_message_in_order():
    seen = []
    run, _ = run_fake("ok", on_message=seen.append)
    assert run.status == "ok" and run.ok
    assert run.errors == ()
    assert run.returncode == 0
    assert isinstance(run.hello, Hello) and run.hello.torch == "0.0-fake"
    matmul = run.result("matmul")
    assert matmul.figures == {"fake_tflops": 1.5}
    assert matmul.units == {"fake_tflops": "TFLOPS"}
    assert matmul.conditions["device_name"] == "Fake CPU"
    assert [type(m) for m in seen] == [Hello, Progress, Result, Progress, Result, Done]
    json_view = run.to_json()
    assert json_view["results"]["bandwidth"]["figures"] == {"fake_tflops": 1.5}
    assert json_view["worker"]["versions"]["torch"] == "0.0-fake"


def test_garbage_on_stdout_is_a_protocol_error_naming_the_line():
    run, elapsed = run_fake("garbage")
    assert run.status == "error"
    assert kinds(run) == {"matmul": "protocol", "bandwidth": "protocol"}
    assert "not JSON" in run.errors[0].message
    assert "something printed on stdout" in run.errors[0].message
    assert elapsed < FINISHES_WELL_WITHIN_S / 2  # stopped at once, not at the timeout


def test_a_crash_is_an_error_naming_the_signal():
    run, _ = run_fake("crash")
    assert kinds(run) == {"matmul": "crash", "bandwidth": "crash"}
    if sys.platform != "win32":
        assert run.returncode < 0
        assert "SIGKILL" in run.errors[0].message


def test_a_nonzero_exit_keeps_earlier_results_and_quotes_stderr():
    run, _ = run_fake("nonzero-exit")
    assert run.status == "error"
    assert run.returncode == 3
    assert run.result("matmul") is not None
    assert kinds(run) == {"bandwidth": "nonzero-exit"}
    assert "status 3" in run.errors[0].message
    assert "something went badly wrong" in run.errors[0].message


@pytest.mark.parametrize("mode", ["hang", "silent", "hang-ignore-term", "close-and-hang"])
def test_a_hung_or_silent_worker_times_out_and_is_stopped(mode):
    run, elapsed = run_fake(mode, timeout_s=SHORT_TIMEOUT_S, grace_s=0.3)
    assert run.status == "error"
    assert set(kinds(run).values()) == {"timeout"}
    assert f"{SHORT_TIMEOUT_S:g} s" in run.errors[0].message
    assert run.returncode is not None  # the process is gone, not left behind
    assert elapsed < SHORT_TIMEOUT_S + 3.0
    if mode == "silent":
        assert run.hello is None and "no 'hello'" in run.errors[0].message


def test_cancel_mid_run_stops_the_worker_and_reports_cancelled():
    cancel = threading.Event()
    progress = []

    def on_message(message):
        if isinstance(message, Progress):
            progress.append(message)
            if len(progress) == 3:
                cancel.set()

    run, elapsed = run_fake("slow-progress", on_message=on_message, cancel_event=cancel)
    assert run.status == "cancelled"
    assert kinds(run) == {"matmul": "cancelled", "bandwidth": "cancelled"}
    assert len(progress) >= 3
    assert run.returncode is not None
    assert elapsed < 5.0


def test_a_worker_without_torch_says_so_in_its_hello():
    run, _ = run_fake("no-torch")
    assert run.torch_missing
    assert kinds(run) == {"matmul": "torch-missing", "bandwidth": "torch-missing"}


@pytest.mark.parametrize(("mode", "kind", "text"), [
    ("no-done", "incomplete", "no 'done'"),
    ("wrong-version", "protocol", "speaks protocol 999"),
    ("result-first", "protocol", "expected 'hello' first"),
])
def test_out_of_order_or_unfinished_output_is_an_error(mode, kind, text):
    run, _ = run_fake(mode)
    assert run.status == "error"
    assert kind in set(kinds(run).values())
    assert any(text in e.message for e in run.errors)


def test_an_interpreter_that_does_not_exist_is_a_start_failure():
    seen = []
    run = run_probes(["matmul"], python="/nonexistent/bin/python", timeout_s=5,
                     on_message=seen.append)
    assert run.status == "error"
    assert kinds(run) == {"matmul": "start-failed"}
    assert run.returncode is None
    assert isinstance(seen[0], Error)


def test_bad_arguments_are_refused_before_starting_anything():
    with pytest.raises(ValueError, match="probes"):
        run_probes([], timeout_s=1)
    with pytest.raises(ValueError, match="timeout_s"):
        run_probes(["matmul"], timeout_s=0)
