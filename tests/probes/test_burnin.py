"""The burnin probe: the REAL worker on CPU torch (tiny sizes) finds no wrong result on a sound
CPU, catches an injected one, ends early on a stop request, and reports throughput per window.

The worker runs are started together (one thread each) so the whole file takes about as long
as one worker start. torch is never imported into the test process.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from gpuadvisor.hardware.base import GpuInfo
from gpuadvisor.probes import worker
from gpuadvisor.probes.protocol import Progress
from gpuadvisor.probes.runner import run_probes

KERNEL = worker.KERNEL_DIR + "/burnin.py"
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")

STABLE_S = 1.0
LONG_S = 30.0  # a run that only a stop request or the error limit ends in time
STOP_AFTER_S = 0.5
CLI_MINUTES = 0.01  # 0.6 s
WAIT_FOR_STOP_S = 10.0  # the fake worker run waits this long at most for the stop event


def load_kernel():
    """The kernel module as the worker loads it (by path, ``kit`` = the worker module)."""
    spec = importlib.util.spec_from_file_location("_test_burnin_kernel", KERNEL)
    module = importlib.util.module_from_spec(spec)
    module.kit = worker
    spec.loader.exec_module(module)
    module.kit = worker
    return module


# --------------------------------------------------------------------------- pure parts
# fp16 runs are capped at n <= 65504 (build_problem halves n), so no larger fp16 case.
@pytest.mark.parametrize(("label", "n"), [
    (label, n) for label in ("fp32", "tf32", "bf16", "fp16")
    for n in (16, 128, 1024, 8192, 16384, 32768, 65536, 1 << 20)
    if not (label == "fp16" and n > 65504)])
def test_input_values_keep_every_partial_sum_exact_in_the_fp32_accumulator(label, n):
    burnin = load_kernel()
    v = burnin.value_bound(label, n)
    assert 1 <= v <= burnin.MAX_VALUE
    assert n * v * v < 2 ** 24  # every integer below 2**24 is exact in fp32
    if label == "fp16":
        assert n * v * v <= 65504  # and the fp16 output cannot overflow
    if label == "bf16":
        assert v <= 256  # the inputs themselves are exact in bf16 (8 significant bits)


def test_the_default_bound_is_16_for_gpu_sizes_and_shrinks_for_fp16():
    burnin = load_kernel()
    assert burnin.value_bound("bf16", 8192) == 16
    assert burnin.value_bound("fp16", 8192) == 2  # isqrt(65504 // 8192) = isqrt(7)
    assert burnin.value_bound("fp32", 1 << 21) == 2  # isqrt((2**24 - 1) // 2**21) = isqrt(7)
    assert burnin.value_bound("fp32", 1 << 22) == 1  # isqrt(3)


@pytest.mark.parametrize(("options", "text"), [
    ({"secs": 3}, "unknown option(s) secs"),
    ({"seconds": 0}, "seconds must be a positive number"),
    ({"seconds": "10"}, "seconds must be a positive number"),
    ({"dtype": "int8"}, "dtype must be one of fp32, tf32, bf16, fp16"),
    ({"n": 8}, "n must be a whole number >= 16"),
    ({"error_limit": 0}, "error_limit must be a whole number >= 1"),
    ({"inject_fault_at": 0}, "inject_fault_at must be an iteration >= 1"),
    ({"inject_fault_kind": "flip"}, "inject_fault_kind must be value or nan"),
])
def test_bad_options_fail_naming_the_option(options, text):
    burnin = load_kernel()
    with pytest.raises(worker.ProbeFailed) as caught:
        burnin.read_options(options, "tiny", "cpu")
    assert caught.value.kind == "exception"
    assert text in str(caught.value)


def test_default_windows_are_a_tenth_of_short_runs_10_s_then_at_most_360():
    burnin = load_kernel()
    assert burnin.read_options({"seconds": 1.5}, "tiny", "cpu")["window_s"] == pytest.approx(0.15)
    assert burnin.read_options({"seconds": 600}, "quick", "gpu")["window_s"] == 10.0
    day = burnin.read_options({"seconds": 86400}, "quick", "gpu")
    assert day["window_s"] == pytest.approx(240.0)  # 86400 / 360
    assert burnin.read_options({}, "quick", "gpu")["n"] == 8192
    assert burnin.read_options({}, "full", "gpu")["n"] == 16384


def test_the_verdict_says_stable_or_unstable_with_where_it_first_went_wrong():
    burnin = load_kernel()
    assert burnin.verdict({"iterations": 12, "mismatches": 0, "first_mismatches": []}) == (
        "stable: 12 iterations, no wrong result")
    text = burnin.verdict({"iterations": 40, "mismatches": 2, "first_mismatches": [
        {"iteration": 7, "wrong_elements": 1, "max_abs_diff": 3.0, "non_finite": 0}]})
    assert text.startswith("UNSTABLE: 2 wrong result(s) in 40 iterations, first at iteration 7")
    text = burnin.verdict({"iterations": 40, "mismatches": 1, "first_mismatches": [
        {"iteration": 0, "ok": False, "max_abs_diff": 1.0, "non_finite": 0}]})
    assert "the first product already differed from the exact result" in text


# --------------------------------------------------------------------------- real worker
def _run(options, stop_after_s=None):
    stop = threading.Event()

    def on_message(message):
        # The kernel's first progress line: the probe has started (torch is imported).
        if (stop_after_s is not None and isinstance(message, Progress)
                and message.probe == "burnin" and message.fraction == 0.0
                and not stop.is_set()):
            threading.Timer(stop_after_s, stop.set).start()

    started = time.monotonic()
    run = run_probes(["burnin"], device="cpu", timeout_s=90, extra_args=["--tiny"],
                     options={"burnin": options}, stop_event=stop, on_message=on_message)
    return run, time.monotonic() - started


def _cli(data_dir):
    """``gpuadvisor probe --burn-in`` end to end on the CPU (quick suite), in a subprocess."""
    env = dict(os.environ, GPUADVISOR_DATA_DIR=str(data_dir))
    done = subprocess.run([sys.executable, "-m", "gpuadvisor.cli", "probe", "--burn-in",
                           str(CLI_MINUTES), "--device", "cpu", "--python", sys.executable,
                           "--no-remember", "--no-save", "--json"],
                          capture_output=True, text=True, timeout=120, env=env)
    return done, None


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    jobs = {
        "stable": ({"seconds": STABLE_S}, None),
        # as long as the stable run beside it (the fixture waits for that one anyway): 0.3 s
        # gave a second iteration no room on a loaded 2-core runner (1 iteration seen)
        "fault": ({"seconds": STABLE_S, "inject_fault_at": 1, "dtype": "bf16"}, None),
        "nan": ({"seconds": LONG_S, "inject_fault_at": 2, "inject_fault_kind": "nan",
                 "error_limit": 1}, None),
        "stop": ({"seconds": LONG_S}, STOP_AFTER_S),
    }
    with ThreadPoolExecutor(len(jobs) + 1) as pool:
        futures = {name: pool.submit(_run, *job) for name, job in jobs.items()}
        futures["cli"] = pool.submit(_cli, tmp_path_factory.mktemp("burn-in-cli"))
        return {name: future.result() for name, future in futures.items()}


def result_of(runs, name):
    run, elapsed = runs[name]
    assert run.status == "ok", (run.errors, run.stderr_tail)
    return run.result("burnin"), elapsed


@needs_torch
def test_a_sound_cpu_runs_for_the_time_asked_with_no_wrong_result(runs):
    result, _ = result_of(runs, "stable")
    figures, conditions = result.figures, result.conditions
    assert figures["iterations"] > 0
    assert figures["mismatches"] == 0
    assert conditions["stopped_by"] == "time"
    assert STABLE_S <= figures["duration_s"] < STABLE_S + 2.0
    iterations = int(figures["iterations"])
    assert conditions["verdict"] == f"stable: {iterations} iterations, no wrong result"
    assert conditions["reference_check"] == "exact"
    assert conditions["dtype"] == "fp32" and conditions["n"] == 128
    assert conditions["first_mismatches"] == []


@needs_torch
def test_throughput_is_reported_per_window_with_first_last_and_slowdown(runs):
    result, _ = result_of(runs, "stable")
    figures, conditions = result.figures, result.conditions
    windows = conditions["windows"]
    assert conditions["window_s"] == pytest.approx(STABLE_S / 10)
    assert 3 <= len(windows) <= 11  # about STABLE_S / window_s; fewer on a busy machine
    times = [t for t, _ in windows]
    assert times == sorted(times) and times[-1] == pytest.approx(figures["duration_s"], abs=0.01)
    rates = [rate for _, rate in windows]
    assert all(rate > 0 for rate in rates)
    assert figures["tflops_first_window"] == rates[0]
    assert figures["tflops_last_window"] == rates[-1]
    assert figures["tflops_median"] == pytest.approx(statistics.median(rates), rel=1e-3)
    expected = (rates[0] - rates[-1]) / rates[0] * 100
    assert figures["slowdown_pct"] == pytest.approx(expected, abs=0.01)
    assert result.units == {"iterations": "iterations", "mismatches": "wrong results",
                            "duration_s": "s", "tflops_median": "TFLOPS",
                            "tflops_first_window": "TFLOPS", "tflops_last_window": "TFLOPS",
                            "slowdown_pct": "%"}
    assert "windows_temperature_c" not in conditions  # CPU: no worker-side temperature


@needs_torch
def test_an_injected_wrong_product_is_caught_and_the_verdict_says_unstable(runs):
    result, _ = result_of(runs, "fault")
    figures, conditions = result.figures, result.conditions
    assert figures["mismatches"] == 1
    assert figures["iterations"] > 1  # the run went on after the fault, and found no other
    assert conditions["dtype"] == "bf16"
    assert conditions["reference_check"] == "exact"
    assert conditions["verdict"].startswith("UNSTABLE: 1 wrong result(s) in ")
    assert "first at iteration 1" in conditions["verdict"]
    [wrong] = conditions["first_mismatches"]
    assert wrong["iteration"] == 1
    assert wrong["wrong_elements"] == 1
    assert wrong["non_finite"] == 0
    assert wrong["max_abs_diff"] > 0
    assert conditions["stopped_by"] == "time"


@needs_torch
def test_a_nan_is_a_wrong_result_and_the_error_limit_ends_the_run(runs):
    result, _ = result_of(runs, "nan")
    figures, conditions = result.figures, result.conditions
    assert conditions["stopped_by"] == "error-limit"
    assert figures["iterations"] == 2
    assert figures["mismatches"] == 1
    assert figures["duration_s"] < LONG_S / 10
    assert "NaN/Inf" in conditions["verdict"]
    assert conditions["first_mismatches"][0]["non_finite"] == 1


@needs_torch
def test_a_stop_request_ends_the_run_early_and_it_still_reports(runs):
    result, _ = result_of(runs, "stop")
    figures, conditions = result.figures, result.conditions
    assert conditions["stopped_by"] == "stop-request"
    assert conditions["requested_s"] == LONG_S
    assert figures["duration_s"] < LONG_S / 5
    assert figures["iterations"] > 0 and figures["mismatches"] == 0
    assert conditions["verdict"].startswith("stable: ")
    assert not math.isnan(figures["tflops_median"]) and figures["tflops_median"] > 0


# --------------------------------------------------------------------------- the CLI
@pytest.mark.parametrize(("argv", "text"), [
    (["--burn-in", "0"], "argument --burn-in: must be more than 0 and at most 1440 minutes"),
    (["--burn-in", "-5"], "argument --burn-in: must be more than 0"),
    (["--burn-in", "1441"], "at most 1440 minutes (24 h), got 1441"),
    (["--burn-in", "nan"], "argument --burn-in: must be more than 0"),
    (["--burn-in", "inf"], "argument --burn-in: must be more than 0"),
    (["--burn-in", "ten"], "argument --burn-in: not a number of minutes: 'ten'"),
    (["--burn-in", "1", "--temp-limit", "200"], "argument --temp-limit: must be between 30 and "
                                                "120 °C, got 200"),
    (["--burn-in", "1", "--temp-limit", "hot"], "argument --temp-limit: not a temperature"),
    (["--temp-limit", "80"], "--temp-limit: only with --burn-in MIN"),
    (["--burn-in", "1", "--probes", "matmul"], "--probes: --burn-in runs the burnin probe alone"),
    (["--burn-in", "1", "--plan", "x.gpuplan"], "--plan: --burn-in runs alone"),
])
def test_bad_burn_in_flags_exit_2_with_one_line_naming_the_flag(capsys, argv, text):
    from gpuadvisor.cli import main

    code = main(["probe", *argv])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert text in err


def test_burn_in_help_documents_the_exit_status(capsys):
    from gpuadvisor.cli import main

    with pytest.raises(SystemExit):
        main(["probe", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "exit status 0: no wrong result, 1: wrong results found" in help_text
    assert "--temp-limit C" in help_text


def _canned_run(mismatches: int, stopped_by: str = "time"):
    from gpuadvisor.probes.protocol import Hello, Result
    from gpuadvisor.probes.runner import ProbeRun

    hello = Hello(protocol=1, versions={"python": "3.12", "torch": "2.13.0"},
                  devices=({"id": "cuda:0", "type": "cuda", "name": "Fake GPU",
                            "uuid": "5d3c-0001", "memory_total_bytes": 24 * 1024**3},
                           {"id": "cpu", "type": "cpu", "name": "Fake CPU"}))
    figures = {"iterations": 900.0, "mismatches": float(mismatches), "duration_s": 30.0,
               "tflops_median": 150.0, "tflops_first_window": 160.0,
               "tflops_last_window": 140.0, "slowdown_pct": 12.5}
    units = {"iterations": "iterations", "mismatches": "wrong results", "duration_s": "s",
             "tflops_median": "TFLOPS", "tflops_first_window": "TFLOPS",
             "tflops_last_window": "TFLOPS", "slowdown_pct": "%"}
    wrong = [{"iteration": 17, "wrong_elements": 3, "max_abs_diff": 64.0, "non_finite": 0}]
    conditions = {"device": "cuda:0", "device_name": "Fake GPU", "dtype": "bf16", "n": 8192,
                  "windows": [[15.0, 160.0], [30.0, 140.0]], "window_s": 15.0,
                  "requested_s": 30.0, "stopped_by": stopped_by,
                  "verdict": (f"UNSTABLE: {mismatches} wrong result(s) in 900 iterations"
                              if mismatches else "stable: 900 iterations, no wrong result"),
                  "first_mismatches": wrong if mismatches else []}
    return hello, ProbeRun(status="ok", hello=hello,
                           results=(Result("burnin", figures, units, conditions),), returncode=0)


class HotCard:
    """A GPU backend whose one card (the worker's cuda:0 by UUID) reads ``first_c`` at the
    first refresh, then 91 °C (the CLI samples once a second)."""

    name = "simulated"

    def __init__(self, first_c: float = 91.0) -> None:
        self.first_c = first_c
        self.refreshes = 0
        self.closed = False

    def refresh(self) -> None:
        self.refreshes += 1

    def devices(self):
        temperature = self.first_c if self.refreshes <= 1 else 91.0
        return [GpuInfo(index=0, name="Fake GPU", vendor="nvidia", backend="simulated",
                        uuid="GPU-5d3c-0001", temperature_c=temperature, sm_clock_mhz=1700,
                        power_draw_w=320.0, temperature_slowdown_c=93.0,
                        throttle_reasons=("thermal (software)",))]

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def cli_burn_in(monkeypatch, tmp_path):
    """Run ``gpuadvisor probe --burn-in ...`` with a stand-in for the worker run: it says
    hello (a CUDA device), then waits for the stop event up to ``wait_s`` and returns a canned
    result. Returns ``(exit code, stdout, stderr, the call's keyword arguments)``."""
    from gpuadvisor import cli
    from gpuadvisor.cli import burnin
    from gpuadvisor.probes import history, runner

    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))

    def invoke(capsys, *argv, mismatches=0, backend=None, wait_s=0.0):
        calls = []

        def fake_run_probes(probes, **kwargs):
            calls.append(dict(kwargs, probes=list(probes)))
            hello, run = _canned_run(mismatches, "stop-request" if wait_s else "time")
            kwargs["on_message"](hello)
            if wait_s:
                kwargs["stop_event"].wait(wait_s)
            return run

        monkeypatch.setattr(runner, "run_probes", fake_run_probes)
        monkeypatch.setattr(burnin, "_telemetry_backend",
                            lambda: (backend, "") if backend else (None, "no GPU telemetry: "
                                                                         "none found"))
        code = cli.main(["probe", "--python", sys.executable, "--no-remember", *argv])
        out, err = capsys.readouterr()
        return code, out, err, calls[0]

    return invoke


def test_cli_burn_in_runs_only_burnin_for_the_minutes_given_with_a_stop_event(capsys,
                                                                              cli_burn_in):
    code, out, _, call = cli_burn_in(capsys, "--burn-in", "0.5", "--no-save")
    assert code == 0
    assert call["probes"] == ["burnin"]
    assert call["options"] == {"burnin": {"seconds": 30.0}}
    assert isinstance(call["stop_event"], threading.Event)
    assert call["timeout_s"] >= 30.0 + 60  # the burn-in plus a margin for start-up
    assert "stable: 900 iterations, no wrong result" in out
    assert "first window 160, last window 140 (12.5 % slower" in out
    assert "no GPU telemetry: none found" in out


def test_cli_burn_in_exits_1_when_wrong_results_were_found(capsys, cli_burn_in):
    code, out, _, _ = cli_burn_in(capsys, "--burn-in", "1", "--no-save", mismatches=2)
    assert code == 1
    assert "UNSTABLE: 2 wrong result(s)" in out
    assert "wrong at iteration 17: 3 element(s), largest difference 64" in out


def test_cli_burn_in_watches_the_gpu_stops_at_the_limit_and_saves_the_summary(capsys,
                                                                             cli_burn_in):
    from gpuadvisor.probes import history

    card = HotCard(first_c=60.0)
    code, out, _, call = cli_burn_in(capsys, "--burn-in", "10", "--temp-limit", "90", "--json",
                                     backend=card, wait_s=WAIT_FOR_STOP_S)
    assert code == 0
    assert call["stop_event"].is_set()  # the recorder asked the worker to stop
    data = json.loads(out)
    assert data["burnin"]["conditions"]["stopped_by"] == "stop-request"
    telemetry = data["telemetry"]
    assert telemetry["stopped_for_temperature"] is True
    assert telemetry["temp_limit_c"] == 90.0
    assert telemetry["stop_reason"].startswith("91 °C >= limit 90 °C")
    assert telemetry["device_name"] == "Fake GPU"
    assert [s["temperature_c"] for s in telemetry["samples"][:2]] == [60.0, 91.0]
    assert telemetry["throttle_reasons"] == {"thermal (software)": 1.0}
    assert card.closed
    [stored] = history.runs()
    saved = stored.results["burnin"]["conditions"]["telemetry"]
    assert saved["stopped_for_temperature"] is True and saved["sample_count"] >= 2
    assert "samples" not in saved or isinstance(saved["samples"], int)
    assert data["history"] == [str(history.history_dir() / "5d3c-0001.json")]


def test_cli_burn_in_text_shows_the_telemetry_summary(capsys, cli_burn_in):
    code, out, _, _ = cli_burn_in(capsys, "--burn-in", "10", "--no-save", backend=HotCard(),
                                  wait_s=WAIT_FOR_STOP_S)
    assert code == 0
    assert "GPU 0 (Fake GPU): " in out
    assert "(limit 90 °C)" in out  # the card's slowdown 93 °C - 3
    assert "clocks held down by: thermal (software) (100% of samples)" in out
    assert "STOPPED at the temperature limit: 91 °C >= limit 90 °C" in out


@needs_torch
def test_cli_burn_in_on_the_real_cpu_worker_prints_json_and_exits_0(runs):
    done, _ = runs["cli"]
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    burnin = data["burnin"]
    assert burnin["conditions"]["requested_s"] == pytest.approx(CLI_MINUTES * 60)
    assert burnin["figures"]["iterations"] > 0 and burnin["figures"]["mismatches"] == 0
    assert burnin["conditions"]["stopped_by"] == "time"
    assert data["telemetry"] is None
    assert data["telemetry_note"] == "no GPU telemetry on the CPU"
    assert data["history"] == []
