"""The transfer probe (kernels/transfer.py) and fp8 in the worker's matmul.

No GPU here: the REAL worker on CPU torch checks the CPU's skipped result; the copy paths
run in one subprocess (SCENARIOS below) on a pretend GPU whose "device memory" is the host's,
so pinning fails as it does without CUDA; the same subprocess runs the matmul probe on the
CPU (its fp8 skip reason) and the fp8 helpers. torch is never
imported into the test process.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gpuadvisor.probes.runner import run_probes

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="torch is not installed (pip install torch==2.13.0)")

ROOT = Path(__file__).resolve().parents[2]
MiB = 1 << 20

# Drives the kernel and the worker's fp8 helpers in-process and prints one JSON line.
SCENARIOS = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
from gpuadvisor.probes import worker

worker.load_kernels()
transfer = worker.RUNNERS["transfer"].__globals__  # the kernel module's namespace
transfer["SIZES"]["tiny"]["budget_s"] = 0.08  # keep the test short

class Channel:
    def progress(self, probe, fraction, message):
        pass

class Pretend(worker.Device):
    """A "GPU" whose memory is the host's: copies run, syncs are no-ops."""
    def sync(self):
        pass

def pretend(kind, memory=32 * worker.MiB):
    return Pretend(torch, {"id": "cpu", "type": kind, "name": "pretend " + kind,
                           "memory_total_bytes": memory, "capability": "9.0"})

tiny = dict(worker.SUITES[("gpu", "tiny")], name="tiny")
probe = worker.RUNNERS["transfer"]
seen = {}

# 32 MiB "free" -> budget 8 MiB (MEMORY_SHARE 0.25); CPU torch cannot pin.
seen["no_pinning"] = probe(torch, pretend("cuda"), tiny, Channel(), {})

# Pinning allowed (a plain buffer stands in): all eight figures.
real_host_buffer = transfer["host_buffer"]
transfer["host_buffer"] = lambda torch_, size, pinned: real_host_buffer(torch_, size, False)
seen["pinned"] = probe(torch, pretend("cuda", memory=8 * worker.MiB), tiny, Channel(), {})
transfer["host_buffer"] = real_host_buffer

seen["mps"] = probe(torch, pretend("mps"), tiny, Channel(), {})

# Copies that take 10, 20 and 40 ms: the rates follow from the buffer's bytes alone.
real_bench = worker.bench
worker.bench = lambda fn, sync, budget_s, max_batches: ([0.01, 0.02, 0.04], 1, 3)
seen["fixed_times"] = probe(torch, pretend("cuda"), tiny, Channel(), {})["figures"]
worker.bench = real_bench

# Out of memory above 2 MiB: 8 -> 4 -> 2 MiB; then nothing fits at all.
real_transfer_at = transfer["transfer_at"]
sizes = []
def tight(torch_, device, size, *args):
    sizes.append(size)
    if size > 2 * worker.MiB:
        raise RuntimeError("CUDA out of memory. Tried to allocate 8.00 MiB")
    return real_transfer_at(torch_, device, size, *args)
transfer["transfer_at"] = tight
seen["oom"] = probe(torch, pretend("cuda"), tiny, Channel(), {})
seen["oom_sizes"] = sizes
def nothing_fits(*args):
    raise MemoryError("can't allocate memory")
transfer["transfer_at"] = nothing_fits
try:
    probe(torch, pretend("cuda"), tiny, Channel(), {})
    seen["nothing_fits"] = "no error"
except worker.ProbeFailed as exc:
    seen["nothing_fits"] = exc.kind
transfer["transfer_at"] = real_transfer_at

# fp8: which devices may run it, and the _scaled_mm path itself (CPU torch has it).
cpu = worker.Device(torch, worker.cpu_device(torch))
def gpu(capability):
    return worker.Device(torch, {"id": "cuda:0", "type": "cuda", "name": "g",
                                 "capability": capability})
seen["fp8_unavailable"] = {
    "cpu": worker.fp8_unavailable(torch, cpu),
    "rocm": worker.fp8_unavailable(torch, worker.Device(torch, {"id": "cuda:0",
                                                                "type": "rocm"})),
    "8.6": worker.fp8_unavailable(torch, gpu("8.6")),
    "8.9": worker.fp8_unavailable(torch, gpu("8.9")),
    "9.0": worker.fp8_unavailable(torch, gpu("9.0")),
    "12.0": worker.fp8_unavailable(torch, gpu("12.0"))}
seen["dtypes_sm90"] = [label for label, _, _ in worker.matmul_dtypes(torch, gpu("9.0"))]
seen["dtypes_sm86"] = [label for label, _, _ in worker.matmul_dtypes(torch, gpu("8.6"))]
seen["dtypes_cpu"] = [label for label, _, _ in worker.matmul_dtypes(torch, cpu)]
small = dict(worker.SUITES[("cpu", "tiny")], matmul_sizes=(64,), matmul_budget_s=0.06)
matmul = worker.probe_matmul(torch, cpu, small, Channel(), {})
seen["matmul_cpu"] = {"skipped": matmul["conditions"]["skipped"],
                      "figures": sorted(matmul["figures"])}
a = torch.ones(32, 32).to(torch.float8_e4m3fn)
b = torch.full((32, 32), 2.0).to(torch.float8_e4m3fn)
out = worker.fp8_matmul(torch, a, b.t(), torch.ones((), dtype=torch.float32))
seen["fp8_product"] = {"dtype": str(out.dtype), "values": sorted(set(out.flatten().tolist()))}
seen["fp8_trial"] = worker.dtype_unsupported(torch, cpu, torch.float8_e4m3fn)
measured = worker.matmul_at(torch, cpu, torch.float8_e4m3fn, 50, 0.05, 3, first=True)
seen["fp8_measured"] = {"n": measured["n"], "times": len(measured["times"]),
                        "positive": all(t > 0 for t in measured["times"])}
print(json.dumps(seen))
'''


@pytest.fixture(scope="module")
def runs():
    """The real worker on the CPU and the scenarios, side by side."""
    with ThreadPoolExecutor(2) as pool:
        worker_run = pool.submit(run_probes, ["transfer"], device="cpu",
                                 timeout_s=60, extra_args=["--tiny"])
        scenarios = pool.submit(subprocess.run, [sys.executable, "-c", SCENARIOS, str(ROOT)],
                                capture_output=True, text=True, timeout=60)
        run, done = worker_run.result(), scenarios.result()
    assert done.returncode == 0, done.stderr
    return run, json.loads(done.stdout.splitlines()[-1])


def test_on_the_cpu_the_transfer_result_has_no_figures_and_says_why(runs):
    run, _ = runs
    assert run.status == "ok", run.errors
    result = run.result("transfer")
    assert result.figures == {} and result.units == {}
    [(what, why)] = result.conditions["skipped"].items()  # what -> why, as matmul's
    assert what == "transfer"
    assert why.startswith("no host-device link on the CPU device")
    assert result.conditions["device"] == "cpu"


def test_without_pinning_only_pageable_copies_are_measured_and_the_reason_given(runs):
    _, seen = runs
    result = seen["no_pinning"]
    figures, conditions = result["figures"], result["conditions"]
    assert set(figures) == {"h2d_pageable_gb_s", "h2d_pageable_max_gb_s",
                            "d2h_pageable_gb_s", "d2h_pageable_max_gb_s"}
    assert all(value > 0 for value in figures.values())
    assert figures["h2d_pageable_max_gb_s"] >= figures["h2d_pageable_gb_s"]
    assert result["units"] == {name: "GB/s" for name in figures}
    assert conditions["pinned"] is False
    assert conditions["skipped"]["pinned"].startswith("pinning 8 MiB of host memory failed: ")
    # 32 MiB of device memory x MEMORY_SHARE 0.25 = 8 MiB, under the tiny suite's 16 MiB
    assert conditions["buffer_bytes"] == 8 * MiB
    assert conditions["buffer_limited_by"] == "device memory"
    assert conditions["iterations"]["h2d_pageable"] >= 3  # kit.bench's MIN_BATCHES
    assert "unified_memory" not in conditions


def test_with_pinning_all_eight_figures_are_reported(runs):
    _, seen = runs
    result = seen["pinned"]
    assert sorted(result["figures"]) == sorted(
        f"{direction}_{memory}{tail}" for direction in ("h2d", "d2h")
        for memory in ("pinned", "pageable") for tail in ("_gb_s", "_max_gb_s"))
    assert result["conditions"]["pinned"] is True
    assert result["conditions"]["skipped"] == {}
    assert result["conditions"]["buffer_bytes"] == 2 * MiB  # 8 MiB x 0.25


def test_gb_s_is_buffer_bytes_per_copy_second_in_units_of_1e9(runs):
    _, seen = runs
    # 8 MiB = 8,388,608 bytes per copy: 0.8389 GB/s in 10 ms, 0.4194 in 20, 0.2097 in 40
    assert seen["fixed_times"] == {"h2d_pageable_gb_s": 0.4194, "h2d_pageable_max_gb_s": 0.8389,
                                   "d2h_pageable_gb_s": 0.4194, "d2h_pageable_max_gb_s": 0.8389}


def test_on_mps_the_copies_are_measured_but_called_unified_memory(runs):
    _, seen = runs
    result = seen["mps"]
    assert result["figures"]["h2d_pageable_gb_s"] > 0
    assert "unified memory" in result["conditions"]["unified_memory"]


def test_out_of_memory_halves_the_buffer_and_gives_up_cleanly(runs):
    _, seen = runs
    assert seen["oom_sizes"] == [8 * MiB, 4 * MiB, 2 * MiB]
    assert seen["oom"]["conditions"]["oom_retries"] == 2
    assert seen["oom"]["conditions"]["buffer_bytes"] == 2 * MiB
    assert seen["oom"]["figures"]["d2h_pageable_gb_s"] > 0
    assert seen["nothing_fits"] == "out-of-memory"


# --------------------------------------------------------------------------- fp8 matmul
FP8_NEEDS = ("fp8 matmul needs an NVIDIA GPU of compute capability 8.9+ (Ada/Hopper) and "
             "torch._scaled_mm")


def test_the_cpu_matmul_result_says_why_fp8_was_skipped(runs):
    _, seen = runs
    matmul = seen["matmul_cpu"]
    assert matmul["skipped"]["fp8"] == f"{FP8_NEEDS}; this is a CPU"
    assert "fp32_median_tflops" in matmul["figures"]
    assert not any(name.startswith("fp8_") for name in matmul["figures"])


def test_fp8_runs_only_on_cuda_of_compute_capability_8_9_and_up(runs):
    _, seen = runs
    reasons = seen["fp8_unavailable"]
    assert reasons["8.9"] is None and reasons["9.0"] is None and reasons["12.0"] is None
    assert reasons["8.6"] == f"{FP8_NEEDS}; this GPU is compute capability 8.6"
    assert reasons["rocm"] == f"{FP8_NEEDS}; this is a rocm device"
    assert seen["dtypes_sm90"] == ["fp32", "tf32", "bf16", "fp16", "fp8"]
    assert seen["dtypes_sm86"] == ["fp32", "tf32", "bf16", "fp16"]
    assert seen["dtypes_cpu"] == ["fp32", "bf16", "fp16"]


def test_the_fp8_path_multiplies_correctly_through_scaled_mm(runs):
    _, seen = runs
    # ones(32x32) @ twos(32x32): every entry 32 x 1 x 2 = 64, exact in bf16
    assert seen["fp8_product"] == {"dtype": "torch.bfloat16", "values": [64.0]}
    assert seen["fp8_trial"] is None
    # n = 50 is rounded down to a multiple of 16 for _scaled_mm
    assert seen["fp8_measured"] == {"n": 48, "times": seen["fp8_measured"]["times"],
                                    "positive": True}
    assert seen["fp8_measured"]["times"] >= 3
