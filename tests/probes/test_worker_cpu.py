"""The REAL probe worker on CPU torch, with tiny sizes, through the runner.

CI installs the CPU build of torch (the ``test`` extra pins ``torch==2.13.0``); without torch
these tests are skipped (the worker's torch-less hello is tested in test_protocol.py).
torch is never imported into the test process itself: GUI tests check that it stays out of
``sys.modules``. The out-of-memory paths run in one subprocess (``_oom_scenarios.py``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuadvisor.probes.protocol import Done, Hello, Progress, Result, parse_line
from gpuadvisor.probes.runner import WORKER_SCRIPT, run_probes

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="torch is not installed (pip install torch==2.13.0)")

WHOLE_RUN_LIMIT_S = 20.0


@pytest.fixture(scope="module")
def cpu_run():
    messages = []
    started = time.monotonic()
    run = run_probes(["matmul", "bandwidth"], device="cpu", timeout_s=60,
                     extra_args=["--tiny"], on_message=messages.append)
    return run, messages, time.monotonic() - started


def test_the_cpu_run_finishes_quickly_and_cleanly(cpu_run):
    run, _, elapsed = cpu_run
    assert run.status == "ok", run.errors
    assert run.returncode == 0
    assert elapsed < WHOLE_RUN_LIMIT_S


def test_hello_names_torch_and_lists_the_cpu(cpu_run):
    run, messages, _ = cpu_run
    assert isinstance(messages[0], Hello) and isinstance(messages[-1], Done)
    assert run.hello.torch == importlib.metadata.version("torch")
    assert run.hello.accelerators["cpu"] is True
    cpu = next(d for d in run.hello.devices if d["id"] == "cpu")
    assert cpu["name"] and cpu["threads"] >= 1


def test_matmul_reports_positive_fp32_tflops_with_its_conditions(cpu_run):
    run, messages, _ = cpu_run
    matmul = run.result("matmul")
    assert matmul.figures["fp32_median_tflops"] > 0
    assert matmul.figures["fp32_max_tflops"] >= matmul.figures["fp32_median_tflops"]
    assert matmul.units["fp32_median_tflops"] == "TFLOPS"
    fp32 = matmul.conditions["dtypes"]["fp32"]
    assert fp32["shapes"][0] == [64, 64, 64]
    assert all(i >= 1 for i in fp32["iterations"])
    assert matmul.conditions["device_name"]
    progress = [m for m in messages if isinstance(m, Progress) and m.probe == "matmul"]
    assert progress and all(0 <= p.fraction <= 1 for p in progress)


def test_bandwidth_reports_positive_copy_and_triad_gb_s(cpu_run):
    run, _, _ = cpu_run
    bandwidth = run.result("bandwidth")
    assert bandwidth.figures["copy_gb_s"] > 0
    assert bandwidth.figures["triad_gb_s"] > 0
    assert bandwidth.units["copy_gb_s"] == "GB/s"
    assert bandwidth.conditions["buffer_bytes"] == 4 * 2**20


def test_an_unknown_probe_or_device_is_an_error_result_not_a_crash():
    run = run_probes(["matmul", "nonsense"], device="7", timeout_s=60, extra_args=["--tiny"])
    assert {e.probe: e.kind for e in run.errors} == {"matmul": "bad-device",
                                                      "nonsense": "bad-device"}
    assert "no GPU" in run.errors[0].message
    assert run.returncode == 0


def test_python_dash_m_runs_the_worker_and_every_stdout_line_is_protocol():
    out = subprocess.run([sys.executable, "-m", "gpuadvisor.probes.worker", "--probes",
                          "bandwidth,nonsense", "--device", "cpu", "--tiny"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    messages = [parse_line(line) for line in out.splitlines()]
    assert isinstance(messages[0], Hello) and isinstance(messages[-1], Done)
    assert any(isinstance(m, Result) and m.probe == "bandwidth" for m in messages)
    assert WORKER_SCRIPT.name == "worker.py"



def test_out_of_memory_is_caught_retried_smaller_and_reported():
    script = Path(__file__).with_name("_oom_scenarios.py")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    print(seen)  # shown when an assertion below fails

    # matmul: n=128 runs out of memory, so it is measured at 64 instead, and says so.
    assert seen["matmul"]["fp32_median_tflops"] > 0
    assert seen["matmul_shapes"] == [[64, 64, 64]]
    assert seen["matmul_oom_retries"] >= 1
    assert any("out of memory" in note for note in seen["matmul_notes"])

    # bandwidth: halves the buffer until it fits; gives up cleanly when nothing does.
    assert seen["bandwidth_sizes"] == [4 << 20, 2 << 20, 1 << 20]
    assert seen["bandwidth_oom_retries"] == 2
    assert seen["bandwidth"]["copy_gb_s"] > 0
    assert seen["bandwidth_nothing_fits"] == "out-of-memory"
