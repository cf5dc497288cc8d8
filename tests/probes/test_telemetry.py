"""TelemetryRecorder: samples a GPU on a thread, stops at the temperature limit, survives a card
that disappears or a backend that raises, and summarises what it saw. Fake backends (small
classes here) and the simulated backend; no hardware, no torch, no Qt."""

from __future__ import annotations

import math
import threading

import pytest

from gpuadvisor.hardware.base import GpuInfo
from gpuadvisor.hardware.simulated import SimulatedBackend
from gpuadvisor.probes.telemetry import (
    DEFAULT_TEMP_LIMIT_C,
    TelemetryRecorder,
    TelemetrySample,
    default_temp_limit_c,
    match_gpu_index,
    summarize,
)

FAST_S = 0.005  # sampling interval in tests: the fakes change on every refresh, not in time
WAIT_S = 10.0  # generous bound on waits that normally take milliseconds
GIB = 1024**3


def gpu(index=0, name="Fake GPU", **live) -> GpuInfo:
    return GpuInfo(index=index, name=name, vendor="nvidia", backend="simulated", **live)


class ScriptedBackend:
    """One card whose readings follow a script, one entry per refresh; the last entry repeats.

    An entry is a dict of GpuInfo live fields, ``"lost"`` (the card fell off the bus), or an
    exception instance (refresh raises it).
    """

    name = "simulated"

    def __init__(self, script, *, slowdown_c=None, index=0) -> None:
        self.script = list(script)
        self.slowdown_c = slowdown_c
        self.index = index
        self.refreshes = 0
        self.closed = 0
        self._current = None
        self.finished = threading.Event()  # the last scripted entry was served

    def refresh(self) -> None:
        entry = self.script[min(self.refreshes, len(self.script) - 1)]
        self.refreshes += 1
        if self.refreshes >= len(self.script):
            self.finished.set()
        if isinstance(entry, Exception):
            raise entry
        self._current = entry

    def devices(self) -> list[GpuInfo]:
        if self._current == "lost":
            return [gpu(self.index, lost=True)]
        return [gpu(self.index, temperature_slowdown_c=self.slowdown_c, **self._current)]

    def close(self) -> None:
        self.closed += 1


def rising(start_c: float, step_c: float, count: int) -> list[dict]:
    return [{"temperature_c": start_c + step_c * i, "sm_clock_mhz": 1900 - 10 * i,
             "power_draw_w": 300.0, "memory_used_bytes": 4 * GIB, "throttle_reasons": ()}
            for i in range(count)]


# --------------------------------------------------------------------------- the limit
def test_recording_stops_at_the_first_sample_that_reaches_the_limit():
    backend = ScriptedBackend(rising(70.0, 2.0, 20))  # 70, 72, ..., 108 °C
    recorder = TelemetryRecorder(backend, 0, interval_s=FAST_S, temp_limit_c=80.0)
    with recorder:
        assert recorder.stop_event.wait(WAIT_S)
    samples = recorder.samples
    stop = recorder.stop_sample
    assert stop is not None and stop.temperature_c == 80.0
    before = samples[:samples.index(stop)]
    assert [s.temperature_c for s in before] == [70.0, 72.0, 74.0, 76.0, 78.0]
    assert all(s.temperature_c < 80.0 for s in before)
    assert recorder.stop_reason == f"80 °C >= limit 80 °C at {stop.t_s:.0f} s"
    summary = recorder.summary()
    assert summary.stopped_for_temperature and summary.temp_limit_c == 80.0
    assert not recorder.running


def test_the_stop_event_is_the_one_handed_in_so_the_runner_sees_it():
    event = threading.Event()
    backend = ScriptedBackend(rising(90.0, 0.0, 1))
    with TelemetryRecorder(backend, 0, interval_s=FAST_S, temp_limit_c=85.0,
                           stop_event=event) as recorder:
        assert event.wait(WAIT_S)
    assert recorder.stop_event is event


def test_below_the_limit_nothing_is_stopped_and_an_infinite_limit_never_stops():
    backend = ScriptedBackend(rising(60.0, 1.0, 5))
    with TelemetryRecorder(backend, 0, interval_s=FAST_S, temp_limit_c=math.inf) as recorder:
        assert backend.finished.wait(WAIT_S)
    assert not recorder.stop_event.is_set()
    assert recorder.summary().temp_limit_c is None
    assert recorder.stop_reason is None and recorder.stop_sample is None


@pytest.mark.parametrize(("slowdown_c", "limit_c"), [
    (90.0, 87.0),     # slowdown - 3 °C
    (None, 85.0),     # unknown: the fixed default
    (0.0, 85.0),      # an implausible reading is not a limit
    (250.0, 85.0),
])
def test_default_limit_is_3_c_below_the_slowdown_temperature_else_85(slowdown_c, limit_c):
    assert default_temp_limit_c(gpu(temperature_slowdown_c=slowdown_c)) == limit_c
    assert default_temp_limit_c(None) == DEFAULT_TEMP_LIMIT_C == 85.0


def test_the_recorder_takes_the_default_limit_from_the_card_it_reads():
    backend = ScriptedBackend(rising(84.0, 1.0, 6), slowdown_c=88.0)  # limit 85
    with TelemetryRecorder(backend, 0, interval_s=FAST_S) as recorder:
        assert recorder.stop_event.wait(WAIT_S)
    assert recorder.temp_limit_c == 85.0
    assert recorder.stop_sample.temperature_c == 85.0
    assert [s.temperature_c for s in recorder.samples[:2]] == [84.0, 85.0]


# --------------------------------------------------------------------------- summary
SCRIPT = [
    {"temperature_c": 60.0, "sm_clock_mhz": 1800, "power_draw_w": 250.0,
     "memory_used_bytes": 1 * GIB, "throttle_reasons": ()},
    {"temperature_c": 70.0, "sm_clock_mhz": 1750, "power_draw_w": 300.0,
     "memory_used_bytes": 2 * GIB, "throttle_reasons": ("power cap",)},
    {"temperature_c": 80.0, "sm_clock_mhz": 1600, "power_draw_w": 350.5,
     "memory_used_bytes": 2 * GIB, "throttle_reasons": ("power cap", "thermal (software)")},
    {"temperature_c": 86.0, "sm_clock_mhz": 1500, "power_draw_w": 340.0,
     "memory_used_bytes": 2 * GIB, "throttle_reasons": None},
    "lost",
]


def test_summary_figures_match_a_hand_count_of_the_samples_and_a_lost_card_ends_recording():
    backend = ScriptedBackend(SCRIPT, slowdown_c=88.0)  # limit 85: the 4th sample reaches it
    recorder = TelemetryRecorder(backend, 0, interval_s=FAST_S).start()
    assert recorder.join(WAIT_S)  # ended by itself when the card was lost
    summary = recorder.summary()
    assert summary.sample_count == 4
    assert summary.temperature_max_c == 86.0
    assert summary.temperature_mean_c == 74.0  # (60 + 70 + 80 + 86) / 4
    assert (summary.sm_clock_min_mhz, summary.sm_clock_max_mhz) == (1500, 1800)
    assert summary.power_max_w == 350.5
    assert summary.memory_used_max_bytes == 2 * GIB
    # Shares of the 3 samples that report reasons (the 4th says None: unknown).
    assert summary.throttle_reasons == {"power cap": 0.6667, "thermal (software)": 0.3333}
    assert summary.temp_limit_c == 85.0
    assert summary.stopped_for_temperature
    assert summary.device_name == "Fake GPU"
    [note] = summary.notes
    assert "GPU 0 (Fake GPU) stopped answering (lost" in note
    assert summary.duration_s == pytest.approx(recorder.samples[-1].t_s - recorder.samples[0].t_s)
    data = recorder.to_json()
    assert data["sample_count"] == 4 and len(data["samples"]) == 4
    assert data["samples"][2]["throttle_reasons"] == ["power cap", "thermal (software)"]
    assert data["samples"][3]["throttle_reasons"] is None
    assert data["interval_s"] == FAST_S


def test_summarize_of_no_samples_is_all_unknown():
    summary = summarize([], temp_limit_c=85.0)
    assert summary.sample_count == 0 and summary.duration_s == 0.0
    assert summary.temperature_max_c is None and summary.temperature_mean_c is None
    assert summary.throttle_reasons == {} and not summary.stopped_for_temperature


def test_summarize_skips_values_a_card_does_not_report():
    samples = [TelemetrySample(0.0, 50.0, None, None, None, None),
               TelemetrySample(1.0, None, 1400, None, None, ("idle",)),
               TelemetrySample(2.0, 54.0, 1600, None, None, ())]
    summary = summarize(samples)
    assert summary.temperature_mean_c == 52.0
    assert (summary.sm_clock_min_mhz, summary.sm_clock_max_mhz) == (1400, 1600)
    assert summary.power_max_w is None
    assert summary.throttle_reasons == {"idle": 0.5}
    assert summary.duration_s == 2.0


# --------------------------------------------------------------------------- faults
def test_a_backend_that_raises_mid_run_ends_recording_with_a_note_not_an_exception():
    script = [*rising(60.0, 1.0, 2), RuntimeError("NVML: driver went away")]
    backend = ScriptedBackend(script)
    recorder = TelemetryRecorder(backend, 0, interval_s=FAST_S).start()
    assert recorder.join(WAIT_S)
    assert [s.temperature_c for s in recorder.samples] == [60.0, 61.0]
    [note] = recorder.notes
    assert "the backend failed: RuntimeError: NVML: driver went away" in note
    assert not recorder.stop_event.is_set()
    recorder.stop()  # still safe after it ended by itself
    assert backend.closed == 0  # the caller's backend: the caller closes it


def test_a_factory_backend_is_opened_on_the_thread_and_closed_at_the_end():
    backend = ScriptedBackend(rising(50.0, 0.0, 3))
    recorder = TelemetryRecorder(lambda: backend, 0, interval_s=FAST_S).start()
    assert backend.finished.wait(WAIT_S)
    recorder.stop()
    assert backend.closed == 1
    assert recorder.summary().sample_count >= 3


def test_a_factory_that_fails_is_a_note():
    def broken():
        raise OSError("libnvidia-ml.so.1: cannot open shared object file")

    recorder = TelemetryRecorder(broken, 0, interval_s=FAST_S).start()
    assert recorder.join(WAIT_S)
    assert recorder.samples == []
    assert "telemetry could not start: OSError: libnvidia-ml.so.1" in recorder.notes[0]


def test_a_card_index_that_is_not_there_ends_recording_with_a_note():
    recorder = TelemetryRecorder(ScriptedBackend(rising(50.0, 0.0, 1)), 3,
                                 interval_s=FAST_S).start()
    assert recorder.join(WAIT_S)
    assert recorder.samples == []
    assert "GPU 3 is gone" in recorder.notes[0]


def test_an_on_sample_callback_that_raises_is_noted_once_and_recording_goes_on():
    backend = ScriptedBackend(rising(50.0, 1.0, 4))
    seen = []

    def on_sample(sample):
        seen.append(sample)
        raise ValueError("a chart that is gone")

    with TelemetryRecorder(backend, 0, interval_s=FAST_S, on_sample=on_sample) as recorder:
        assert backend.finished.wait(WAIT_S)
    assert len(seen) >= 4 and seen[:4] == recorder.samples[:4]
    assert recorder.notes == ["on_sample failed: ValueError: a chart that is gone"]


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="interval_s"):
        TelemetryRecorder(ScriptedBackend([{}]), 0, interval_s=0)
    with pytest.raises(ValueError, match="temp_limit_c"):
        TelemetryRecorder(ScriptedBackend([{}]), 0, temp_limit_c=math.nan)
    recorder = TelemetryRecorder(ScriptedBackend(rising(50.0, 0.0, 1)), 0, interval_s=FAST_S)
    with recorder, pytest.raises(RuntimeError, match="already started"):
        recorder.start()


# --------------------------------------------------------------------------- simulated rigs
def test_a_simulated_rtx_3090_is_recorded_below_its_default_limit():
    backend = SimulatedBackend("rtx-3090")
    samples = []
    enough = threading.Event()

    def on_sample(sample):
        samples.append(sample)
        if len(samples) >= 5:
            enough.set()

    with TelemetryRecorder(backend, 0, interval_s=FAST_S, on_sample=on_sample) as recorder:
        assert enough.wait(WAIT_S)
    summary = recorder.summary()
    assert recorder.temp_limit_c == 87.0  # simulated NVIDIA slowdown 90 °C - 3
    assert not recorder.stop_event.is_set()
    assert 36.0 <= summary.temperature_max_c <= 39.0  # simulated idle: 36 + tick % 4
    assert summary.sm_clock_min_mhz >= 210 and summary.sm_clock_max_mhz <= 240
    assert summary.throttle_reasons == {"idle": 1.0}
    assert summary.device_name == backend.devices()[0].name
    assert summary.sample_count == len(recorder.samples) >= 5


def test_the_simulated_gpu_lost_scenario_ends_recording_of_the_lost_card():
    recorder = TelemetryRecorder(SimulatedBackend("gpu-lost"), 1, interval_s=FAST_S).start()
    assert recorder.join(WAIT_S)
    assert len(recorder.samples) == 1  # lost from the 2nd refresh on
    assert "stopped answering" in recorder.notes[0]


def test_a_simulated_card_with_a_low_limit_is_stopped_at_once():
    with TelemetryRecorder(SimulatedBackend("one-gpu"), 0, interval_s=FAST_S,
                           temp_limit_c=30.0) as recorder:
        assert recorder.stop_event.wait(WAIT_S)
    assert recorder.stop_sample is recorder.samples[0]


# --------------------------------------------------------------------------- which card
CARDS = [gpu(0, "NVIDIA GeForce RTX 3090", uuid="GPU-aaaa-0000"),
         gpu(1, "NVIDIA GeForce RTX 3060", uuid="GPU-bbbb-1111"),
         gpu(2, "NVIDIA GeForce RTX 3090", uuid="GPU-cccc-2222")]


@pytest.mark.parametrize(("device", "expected"), [
    # torch reports the UUID without NVML's "GPU-" prefix; CUDA order differs from NVML's.
    ({"id": "cuda:0", "name": "NVIDIA GeForce RTX 3090", "uuid": "cccc-2222"}, (2, "uuid")),
    ({"id": "cuda:1", "name": "NVIDIA GeForce RTX 3090", "uuid": "GPU-AAAA-0000"}, (0, "uuid")),
    ({"id": "cuda:2", "name": "NVIDIA GeForce RTX 3060"}, (1, "name")),
])
def test_the_worker_device_is_matched_by_uuid_then_by_a_unique_name(device, expected):
    assert match_gpu_index(CARDS, device) == expected


def test_an_ambiguous_device_is_not_guessed_and_a_single_card_is_the_one():
    index, why = match_gpu_index(CARDS, {"id": "cuda:0", "name": "NVIDIA GeForce RTX 3090"})
    assert index is None
    assert why == "could not tell which of 3 GPUs is cuda:0 (NVIDIA GeForce RTX 3090)"
    assert match_gpu_index([gpu(0, "Other name")], {"id": "cuda:0", "name": "x"}) == (
        0, "only GPU")
    lost = [gpu(0, "A", lost=True), gpu(1, "B")]
    assert match_gpu_index(lost, {"id": "cuda:0", "name": "Z"}) == (1, "only GPU")
