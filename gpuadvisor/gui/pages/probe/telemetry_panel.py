"""The Probe page's live readings: temperature, clocks, power and utilization of the card
being measured, read from the hardware backend (NVML, sysfs) while a probe runs.

The readings are of this machine even when the Rig page shows a demo rig, because the probes
measure this machine too. Opening the backend and every reading are background jobs of the
page's pool; their answers come back here on the GUI thread
(:meth:`TelemetryPanel.on_backend`, :meth:`TelemetryPanel.on_sample`). The reading timer
runs only while a probe runs and the page is shown; the page stops it when hidden and, on
closing, calls :meth:`TelemetryPanel.close` after its pool is drained.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QGroupBox, QLabel, QSizePolicy, QVBoxLayout, QWidget

from gpuadvisor.gui import data_words
from gpuadvisor.gui.pages.tasks import PageTasks
from gpuadvisor.probes import telemetry

from . import format as fmt
from .widgets import note_label, translate

#: Live readings per second while a probe runs.
SAMPLE_INTERVAL_MS = 500


def open_telemetry(spec: str | None, options: Mapping):
    """Open the hardware backend for ``spec`` (None: this machine) and read its cards once
    (blocking: a background job). Returns ``(backend or None, hints, gpus)``."""
    from gpuadvisor.hardware import open_backend

    backend, hints = open_backend(spec, **options)
    try:
        gpus = backend.devices() if backend is not None else []
    except Exception:
        backend.close()
        raise
    return backend, hints, gpus


class TelemetryPanel(QGroupBox):
    """The Live readings box and the sampling behind it.

    Signals:
        opened(): the backend is open and its cards are known.
        unavailable(): there will be no readings (no backend, or it failed to open).
        reading(object): the measured card was read and shown (its ``GpuInfo``).
        sampled(): a live reading was shown.
    """

    opened = Signal()
    unavailable = Signal()
    reading = Signal(object)
    sampled = Signal()

    def __init__(self, tasks: PageTasks, current_device: Callable[[], Mapping | None],
                 parent: QWidget | None = None, *, enabled: bool = True, spec: str | None = None,
                 options: Mapping | None = None) -> None:
        """Build the box.

        Args:
            tasks: the page's pool; the page hands the answers of kind ``backend`` and
                ``sample`` back here.
            current_device: the device being measured (a ``hello`` device), or None.
            parent: Qt parent.
            enabled: read the hardware at all.
            spec: read a simulated rig instead of this machine (tests, demos).
            options: extra arguments for ``hardware.open_backend`` (tests).
        """
        super().__init__(translate("ProbePage", "Live readings"), parent)
        self._tasks = tasks
        self._current_device = current_device
        self._enabled = enabled
        self._spec = spec
        self._options = dict(options or {})
        self._presentation = False
        self._closed = False
        self.backend = None
        self.backend_gpus: list = []
        self._backend_state = "closed"  # closed, opening, open, none
        self._sampling = False
        self._sample_in_flight = False
        self._samples = 0
        self.run_samples: list[telemetry.TelemetrySample] = []
        self._run_started_s = 0.0
        self.live_chart = None
        # Runs only while a probe runs and the page is shown.
        self.timer = QTimer(self)
        self.timer.setInterval(SAMPLE_INTERVAL_MS)
        self.timer.timeout.connect(self.tick)

        layout = QVBoxLayout(self)
        self.gpu_title = QLabel(self)
        self.gpu_title.setProperty("role", "chartTitle")
        self.gpu_title.setWordWrap(True)
        self.gpu_title.hide()
        layout.addWidget(self.gpu_title)
        self.note = note_label(translate("ProbePage", "Readings appear while a probe runs."),
                               self)
        self.note.setObjectName("telemetryNote")
        layout.addWidget(self.note)
        self._area = QWidget(self)
        self._area.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._chart_box = QVBoxLayout(self._area)
        self._chart_box.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._area, 1)

    def ensure_chart(self):
        """The live chart (built on first use: pyqtgraph is imported lazily)."""
        if self.live_chart is None:
            from gpuadvisor.gui.charts.live import LiveGpuChart

            self.live_chart = LiveGpuChart(self._area)
            self.live_chart.setObjectName("probeLiveChart")
            self.live_chart.setMinimumHeight(150)
            self.live_chart.set_presentation(self._presentation)
            self._chart_box.addWidget(self.live_chart)
        return self.live_chart

    def set_presentation(self, enabled: bool) -> None:
        self._presentation = enabled
        if self.live_chart is not None:
            self.live_chart.set_presentation(enabled)

    # ------------------------------------------------------------------ sampling
    def open_backend(self) -> None:
        """Open the backend in the background, once."""
        if not self._enabled or self._closed or self._backend_state != "closed":
            return
        self._backend_state = "opening"
        spec, options = self._spec, self._options
        self._tasks.start(0, "backend", lambda: open_telemetry(spec, options))

    def start_run(self) -> None:
        """A probe starts: read the card until :meth:`stop_run`."""
        self.run_samples = []
        self._run_started_s = self._samples * SAMPLE_INTERVAL_MS / 1000
        if not self._enabled or self._closed:
            return
        self.open_backend()
        self._sampling = True
        self.update_timer()
        if self.backend is not None:
            self.tick()

    def stop_run(self) -> None:
        """The probe ended: no more readings."""
        self._sampling = False
        self.timer.stop()

    def update_timer(self) -> None:
        """Read while a probe runs, the page is shown and there is a backend."""
        if self._sampling and self.isVisible() and self.backend is not None and not self._closed:
            if not self.timer.isActive():
                self.timer.start()
        else:
            self.timer.stop()

    def tick(self) -> bool:
        """Take one live reading in the background (the timer's slot); False when one is
        already in flight or there is nothing to read."""
        backend = self.backend
        if backend is None or self._closed or self._sample_in_flight:
            return False
        self._sample_in_flight = True

        def sample():
            backend.refresh()
            return backend.devices()

        self._tasks.start(0, "sample", sample)
        return True

    def measured_gpu(self, gpus=None):
        """The backend's card that is the device being measured (None for the CPU, or when
        it cannot be told; see :func:`gpuadvisor.probes.telemetry.match_gpu_index`)."""
        gpus = self.backend_gpus if gpus is None else gpus
        device = self._current_device()
        if not gpus or device is None or fmt.is_cpu(device):
            return None
        index, _how = telemetry.match_gpu_index(gpus, device)
        return next((g for g in gpus if g.index == index), None)

    def summary_text(self) -> str:
        """What the readings of the last run showed ("" when there were none)."""
        return fmt.telemetry_summary_text(self.run_samples, translate)

    # ------------------------------------------------------------------ answers
    def on_backend(self, result, error) -> None:
        """The backend opened (``(backend, hints, gpus)``) or failed to."""
        if self._closed:
            if result is not None and result[0] is not None:
                result[0].close()
            return
        if error is not None:
            self._backend_state = "none"
            self.note.setText(translate("ProbePage", "No live readings: {error}").format(
                error=error))
            self.unavailable.emit()
            return
        backend, hints, gpus = result
        if backend is None:
            self._backend_state = "none"
            hint = (data_words.hint(hints[0]) if hints
                    else translate("ProbePage", "no GPU sensors were found"))
            self.note.setText(translate("ProbePage", "No live readings on this machine: "
                                        "{hint}").format(hint=hint))
            self.unavailable.emit()
            return
        self.backend = backend
        self.backend_gpus = list(gpus)
        self._backend_state = "open"
        self.opened.emit()
        self.update_timer()
        if self._sampling:
            self.tick()

    def on_sample(self, result, error) -> None:
        """A reading came back (the cards) or failed."""
        self._sample_in_flight = False
        if self._closed:
            return
        if error is not None:
            self.note.setText(translate("ProbePage", "Live reading failed: {error}").format(
                error=error))
            return
        gpus = result
        self.backend_gpus = list(gpus)
        gpu = self.measured_gpu(gpus)
        if gpu is None:
            self.note.setText(fmt.no_reading_text(fmt.is_cpu(self._current_device() or {}),
                                                  len(gpus), translate))
            return
        self._samples += 1
        t_s = self._samples * SAMPLE_INTERVAL_MS / 1000
        self.ensure_chart().add_sample(t_s, gpu)
        if self._sampling:
            self.run_samples.append(telemetry.TelemetrySample.of(gpu, t_s))
        self.gpu_title.setText(fmt.reading_title(gpu.index, gpu.name, translate))
        self.gpu_title.show()
        self.note.setText(translate(
            "ProbePage", "Temperature, SM clock, power and utilization, each as a % of its "
            "limit; hover for the readings."))
        self.reading.emit(gpu)
        self.sampled.emit()

    def shutdown(self) -> None:
        """No more readings: the page is closing (call :meth:`close_backend` once its pool
        is drained)."""
        self._closed = True
        self.timer.stop()

    def close_backend(self) -> None:
        """Close the backend (the page's pool is drained: no reading is in flight)."""
        if self.backend is not None:
            self.backend.close()
            self.backend = None


__all__ = ["SAMPLE_INTERVAL_MS", "TelemetryPanel", "open_telemetry"]
