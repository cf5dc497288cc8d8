"""Live GPU telemetry during a probe (burn-in): temperature, clocks, power, throttling (Qt-free).

The app side watches the card through its hardware backend (NVML, sysfs, simulated) while the
worker subprocess loads it: a :class:`TelemetryRecorder` samples one GPU on a daemon thread
every ``interval_s`` and, when the temperature reaches the limit, sets its ``stop_event`` --
the event :func:`gpuadvisor.probes.runner.run_probes` takes as ``stop_event`` to ask the worker
to end its burn-in gracefully (and still report). A card that disappears, or a backend that
raises, ends the recording with a note; nothing ever raises into the caller.

Usage::

    recorder = TelemetryRecorder(backend, device_index=0, temp_limit_c=None)
    with recorder:                       # start() ... stop()
        run = run_probes(["burnin"], ..., stop_event=recorder.stop_event)
    summary = recorder.summary()         # max/mean temperature, clocks, power, throttling

:func:`match_gpu_index` finds the backend's card that is the worker's torch device (by UUID,
then by a unique name, then the only card).
"""

from __future__ import annotations

import contextlib
import math
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuadvisor.hardware.base import GpuBackend, GpuInfo

#: The temperature limit when the card does not report its slowdown threshold, in °C. Below
#: the slowdown threshold of recent NVIDIA cards (nvidia-smi -q "GPU Slowdown Temp", mostly
#: 87-100 °C) and above what a healthy, well-cooled card reaches under sustained full load
#: (~65-83 °C): a card that passes 85 °C during a burn-in has a cooling problem worth stopping
#: for, before it throttles or shuts down.
DEFAULT_TEMP_LIMIT_C = 85.0
#: Below the card's slowdown threshold by this much: the card starts cutting clocks in hardware
#: at the threshold, and a full load can heat a card 1-2 °C per second, so a margin of a few
#: samples (at 1 s) stops the burn-in before the card protects itself.
SLOWDOWN_MARGIN_C = 3.0
#: Slowdown thresholds outside this range are misreadings, not limits.
PLAUSIBLE_SLOWDOWN_C = (50.0, 130.0)


def default_temp_limit_c(gpu: GpuInfo | None) -> float:
    """The temperature at which a burn-in stops: the card's slowdown threshold minus
    :data:`SLOWDOWN_MARGIN_C` when it reports a plausible one, else
    :data:`DEFAULT_TEMP_LIMIT_C` (°C)."""
    slowdown = gpu.temperature_slowdown_c if gpu is not None else None
    low, high = PLAUSIBLE_SLOWDOWN_C
    if slowdown is not None and low <= slowdown <= high:
        return float(slowdown) - SLOWDOWN_MARGIN_C
    return DEFAULT_TEMP_LIMIT_C


def match_gpu_index(gpus: Sequence[GpuInfo], device: dict[str, Any]) -> tuple[int | None, str]:
    """The index (``GpuInfo.index``) of the backend card that is the worker's ``device`` (a
    ``hello`` device: ``id``, ``name``, ``uuid``), and how it was matched, or ``(None, why)``.

    CUDA numbers cards fastest-first unless ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` while NVML
    numbers them by PCI bus, and ``CUDA_VISIBLE_DEVICES`` renumbers them; so the UUID decides
    where torch reports one (torch writes it without NVML's ``GPU-`` prefix), then a name only
    one card has, then the only card there is.
    """
    usable = [g for g in gpus if not g.lost]
    uuid = _bare_uuid(device.get("uuid"))
    if uuid:
        for gpu in usable:
            if _bare_uuid(gpu.uuid) == uuid:
                return gpu.index, "uuid"
    name = str(device.get("name") or "").strip().lower()
    named = [g for g in usable if name and g.name.strip().lower() == name]
    if len(named) == 1:
        return named[0].index, "name"
    if len(usable) == 1:
        return usable[0].index, "only GPU"
    return None, (f"could not tell which of {len(usable)} GPUs is {device.get('id')} "
                  f"({device.get('name')})")


def _bare_uuid(value: Any) -> str:
    text = str(value or "").strip().lower()
    return text[4:] if text.startswith("gpu-") else text


@dataclass(frozen=True)
class TelemetrySample:
    """One reading of the card.

    Attributes:
        t_s: Seconds since the recorder started.
        temperature_c, sm_clock_mhz, power_draw_w, memory_used_bytes: As the backend read them
            (``None``: not reported).
        throttle_reasons: Readable reasons the clocks are held down (empty: none; ``None``:
            unknown).
    """

    t_s: float
    temperature_c: float | None
    sm_clock_mhz: int | None
    power_draw_w: float | None
    memory_used_bytes: int | None
    throttle_reasons: tuple[str, ...] | None

    @classmethod
    def of(cls, gpu: GpuInfo, t_s: float) -> TelemetrySample:
        return cls(t_s=round(t_s, 3), temperature_c=gpu.temperature_c,
                   sm_clock_mhz=gpu.sm_clock_mhz, power_draw_w=gpu.power_draw_w,
                   memory_used_bytes=gpu.memory_used_bytes,
                   throttle_reasons=gpu.throttle_reasons)

    def to_json(self) -> dict[str, Any]:
        return {"t_s": self.t_s, "temperature_c": self.temperature_c,
                "sm_clock_mhz": self.sm_clock_mhz, "power_draw_w": self.power_draw_w,
                "memory_used_bytes": self.memory_used_bytes,
                "throttle_reasons": (list(self.throttle_reasons)
                                     if self.throttle_reasons is not None else None)}


@dataclass(frozen=True)
class TelemetrySummary:
    """What the samples say, in one record (``None``: no sample reported that value).

    Attributes:
        sample_count: Number of samples.
        duration_s: Seconds from the first sample to the last.
        temperature_max_c / temperature_mean_c: Over the samples that report a temperature.
        sm_clock_min_mhz / sm_clock_max_mhz: SM clock range seen.
        power_max_w: Highest board power drawn.
        memory_used_max_bytes: Most device memory in use.
        throttle_reasons: Reason -> share of the samples (0..1, of those that report
            reasons) in which it held the clocks down.
        temp_limit_c: The limit in force (``None``: none).
        stopped_for_temperature: The limit was reached and the stop was requested.
        stop_reason: Why the stop was requested (the temperature and when), else ``None``.
        device_index / device_name: The card watched.
        notes: What cut the recording short (card lost, backend error), in words.
    """

    sample_count: int
    duration_s: float
    temperature_max_c: float | None
    temperature_mean_c: float | None
    sm_clock_min_mhz: int | None
    sm_clock_max_mhz: int | None
    power_max_w: float | None
    memory_used_max_bytes: int | None
    throttle_reasons: dict[str, float]
    temp_limit_c: float | None
    stopped_for_temperature: bool
    stop_reason: str | None
    device_index: int
    device_name: str | None
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"sample_count": self.sample_count, "duration_s": self.duration_s,
                "temperature_max_c": self.temperature_max_c,
                "temperature_mean_c": self.temperature_mean_c,
                "sm_clock_min_mhz": self.sm_clock_min_mhz,
                "sm_clock_max_mhz": self.sm_clock_max_mhz, "power_max_w": self.power_max_w,
                "memory_used_max_bytes": self.memory_used_max_bytes,
                "throttle_reasons": dict(self.throttle_reasons),
                "temp_limit_c": self.temp_limit_c,
                "stopped_for_temperature": self.stopped_for_temperature,
                "stop_reason": self.stop_reason, "device_index": self.device_index,
                "device_name": self.device_name, "notes": list(self.notes)}


def summarize(samples: Sequence[TelemetrySample], *, temp_limit_c: float | None = None,
              stop_reason: str | None = None, device_index: int = 0,
              device_name: str | None = None, notes: Sequence[str] = ()) -> TelemetrySummary:
    """The :class:`TelemetrySummary` of ``samples`` (numbers in, numbers out)."""
    temps = [s.temperature_c for s in samples if s.temperature_c is not None]
    clocks = [s.sm_clock_mhz for s in samples if s.sm_clock_mhz is not None]
    powers = [s.power_draw_w for s in samples if s.power_draw_w is not None]
    memory = [s.memory_used_bytes for s in samples if s.memory_used_bytes is not None]
    reasoned = [s.throttle_reasons for s in samples if s.throttle_reasons is not None]
    counts: dict[str, int] = {}
    for reasons in reasoned:
        for reason in set(reasons):
            counts[reason] = counts.get(reason, 0) + 1
    shares = {reason: round(count / len(reasoned), 4)
              for reason, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))}
    return TelemetrySummary(
        sample_count=len(samples),
        duration_s=round(samples[-1].t_s - samples[0].t_s, 3) if samples else 0.0,
        temperature_max_c=max(temps) if temps else None,
        temperature_mean_c=round(statistics.fmean(temps), 2) if temps else None,
        sm_clock_min_mhz=min(clocks) if clocks else None,
        sm_clock_max_mhz=max(clocks) if clocks else None,
        power_max_w=max(powers) if powers else None,
        memory_used_max_bytes=max(memory) if memory else None,
        throttle_reasons=shares,
        temp_limit_c=temp_limit_c,
        stopped_for_temperature=stop_reason is not None,
        stop_reason=stop_reason,
        device_index=device_index,
        device_name=device_name,
        notes=tuple(notes),
    )


class TelemetryRecorder:
    """Samples one GPU on a daemon thread; asks for a stop when it gets too hot.

    Args:
        backend: An open :class:`~gpuadvisor.hardware.base.GpuBackend` (the caller closes
            it), or a function returning one, called on the recorder's thread (the recorder
            then closes it when it ends).
        device_index: The card (its ``GpuInfo.index``; else its position in ``devices()``).
        interval_s: Seconds between samples.
        temp_limit_c: Stop at this temperature (°C); ``None``: :func:`default_temp_limit_c`
            of the card as first read; ``math.inf``: never.
        on_sample: Called on the recorder's thread with each :class:`TelemetrySample`; an
            exception from it is noted and ignored.
        stop_event: The event to set at the limit (default: a new one; see ``stop_event``).
        clock: Monotonic seconds (tests pass another).

    Attributes:
        stop_event: Set when the temperature reached the limit: hand it to ``run_probes``.
        stop_reason: Why it was set, e.g. ``"86 °C >= limit 85 °C at 312 s"``; else ``None``.
        stop_sample: The sample that reached the limit, else ``None``.
        temp_limit_c: The limit in force (resolved from the card at the first sample when
            ``None`` was given).
    """

    def __init__(self, backend: GpuBackend | Callable[[], GpuBackend], device_index: int, *,
                 interval_s: float = 1.0, temp_limit_c: float | None = None,
                 on_sample: Callable[[TelemetrySample], None] | None = None,
                 stop_event: threading.Event | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not interval_s > 0:
            raise ValueError(f"interval_s: must be positive, got {interval_s}")
        if temp_limit_c is not None and math.isnan(temp_limit_c):
            raise ValueError("temp_limit_c: must be a number of °C, got NaN")
        owns = callable(backend) and not hasattr(backend, "refresh")
        self._backend: GpuBackend | None = None if owns else backend  # type: ignore[assignment]
        self._factory = backend if owns else None
        self.device_index = device_index
        self.interval_s = float(interval_s)
        self._requested_limit_c = temp_limit_c
        self.temp_limit_c: float | None = temp_limit_c
        self._on_sample = on_sample
        self.stop_event = stop_event if stop_event is not None else threading.Event()
        self.stop_reason: str | None = None
        self.stop_sample: TelemetrySample | None = None
        self.device_name: str | None = None
        self._clock = clock
        self._samples: list[TelemetrySample] = []
        self._notes: list[str] = []
        self._lock = threading.Lock()
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifetime
    def start(self) -> TelemetryRecorder:
        """Start sampling (the first sample is taken at once). Starting twice is an error."""
        if self._thread is not None:
            raise RuntimeError("this TelemetryRecorder was already started")
        self._thread = threading.Thread(target=self._run, daemon=True, name="gpu-telemetry")
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop sampling and wait for the thread (at most ``timeout_s``); safe to call twice."""
        self._halt.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout_s)

    def join(self, timeout_s: float | None = None) -> bool:
        """Wait for the recording to end by itself (card lost, backend failed) or by
        :meth:`stop`; ``True`` when it has ended."""
        if self._thread is not None:
            self._thread.join(timeout_s)
        return not self.running

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> TelemetryRecorder:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ results
    @property
    def samples(self) -> list[TelemetrySample]:
        """The samples so far (a copy)."""
        with self._lock:
            return list(self._samples)

    @property
    def notes(self) -> list[str]:
        """What cut the recording short or went wrong, in words (a copy)."""
        with self._lock:
            return list(self._notes)

    @property
    def latest(self) -> TelemetrySample | None:
        with self._lock:
            return self._samples[-1] if self._samples else None

    def summary(self) -> TelemetrySummary:
        """The summary of the samples so far."""
        with self._lock:
            samples, notes = list(self._samples), list(self._notes)
        limit = self.temp_limit_c if self.temp_limit_c is None or math.isfinite(
            self.temp_limit_c) else None
        return summarize(samples, temp_limit_c=limit, stop_reason=self.stop_reason,
                         device_index=self.device_index, device_name=self.device_name,
                         notes=notes)

    def to_json(self) -> dict[str, Any]:
        """The summary, the interval, and every sample (``samples``)."""
        data = self.summary().to_json()
        data["interval_s"] = self.interval_s
        data["samples"] = [s.to_json() for s in self.samples]
        return data

    # ------------------------------------------------------------------ the thread
    def _note(self, text: str) -> None:
        with self._lock:
            self._notes.append(text)

    def _run(self) -> None:
        backend = self._backend
        started = self._clock()
        try:
            if backend is None:
                try:
                    backend = self._factory()  # type: ignore[misc]
                except Exception as exc:
                    self._note(f"telemetry could not start: {_why(exc)}")
                    return
            while not self._halt.is_set():
                if not self._sample(backend, self._clock() - started):
                    return
                self._halt.wait(self.interval_s)
        except Exception as exc:  # a bug here must not take the probe run down
            self._note(f"telemetry stopped: {_why(exc)}")
        finally:
            if self._factory is not None and backend is not None:
                with contextlib.suppress(Exception):
                    backend.close()

    def _sample(self, backend: GpuBackend, t_s: float) -> bool:
        """Take one sample; ``False`` when recording must end (the card is gone)."""
        try:
            backend.refresh()
            devices = backend.devices()
        except Exception as exc:
            self._note(f"telemetry stopped at {t_s:.0f} s: the backend failed: {_why(exc)}")
            return False
        gpu = next((g for g in devices if g.index == self.device_index), None)
        if gpu is None and 0 <= self.device_index < len(devices):
            gpu = devices[self.device_index]
        if gpu is None:
            self._note(f"telemetry stopped at {t_s:.0f} s: GPU {self.device_index} is gone")
            return False
        if gpu.lost:
            self._note(f"telemetry stopped at {t_s:.0f} s: GPU {self.device_index} "
                       f"({gpu.name}) stopped answering (lost: fell off the bus?)")
            return False
        if self.device_name is None:
            self.device_name = gpu.name
            if self._requested_limit_c is None:
                self.temp_limit_c = default_temp_limit_c(gpu)
        sample = TelemetrySample.of(gpu, t_s)
        with self._lock:
            self._samples.append(sample)
        limit = self.temp_limit_c
        if (limit is not None and sample.temperature_c is not None
                and sample.temperature_c >= limit and self.stop_reason is None):
            self.stop_reason = (f"{sample.temperature_c:g} °C >= limit {limit:g} °C "
                                f"at {t_s:.0f} s")
            self.stop_sample = sample
            self.stop_event.set()
        if self._on_sample is not None:
            try:
                self._on_sample(sample)
            except Exception as exc:
                if not any(n.startswith("on_sample failed") for n in self.notes):
                    self._note(f"on_sample failed: {_why(exc)}")
        return True


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["DEFAULT_TEMP_LIMIT_C", "SLOWDOWN_MARGIN_C", "TelemetryRecorder", "TelemetrySample",
           "TelemetrySummary", "default_temp_limit_c", "match_gpu_index", "summarize"]
