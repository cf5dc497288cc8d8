"""The Rig page: the GPUs of this machine (or a demo rig), the host, warnings, live readings.

This module lays the page out and wires it: the rig picker (:mod:`.demo_picker`), the host
(:mod:`.host_panel`) and one tile per GPU (:mod:`.tiles`); what the page says is written in
:mod:`.format`, and the blocking work it runs in the background is in :mod:`.jobs`.

Threading: detection, the torch check and every live sample run on a page-owned pool
(:class:`~gpuadvisor.gui.pages.tasks.PageTasks`); each job always delivers ``result`` or
``error`` back to the GUI thread, tagged with the generation of the detection it belongs to,
and results of an older generation are dropped (napari's histogram). At most one sample is
in flight. The sampling timer runs only while the page is shown and is stopped in
``hideEvent``/``closeEvent``; :meth:`RigPage.shutdown` waits for the pool, so no job
outlives the page.

A backend belongs to one detection: when a new one replaces it, it is closed at once, or
after the sample still reading it comes back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.gui import data_words
from gpuadvisor.gui.pages.tasks import PageTasks
from gpuadvisor.hardware import DetectionResult, HostInfo, health_warnings

from . import format as fmt
from .demo_picker import DemoRigPicker
from .host_panel import HostPanel
from .jobs import detect_open, sample_backend
from .tiles import CHART_FILL_HEIGHT, GpuTile, chart_max_height, chart_min_height
from .widgets import translate

#: Live readings per second.
SAMPLE_INTERVAL_MS = 500


class RigPage(QWidget):
    """GPU tiles, host, hints, Refresh and the Demo rig picker.

    Signals:
        go_to_plan: the user asks for the Plan page.
        status(str): a line for the status bar.
        detection_finished(object): a DetectionResult was shown.
        detection_failed(str): detection failed; the message is shown on the page.
        sampled(): a live sample was shown.
    """

    go_to_plan = Signal()
    status = Signal(str)
    detection_finished = Signal(object)
    detection_failed = Signal(str)
    sampled = Signal()
    first_shown = Signal()

    def __init__(self, state, units: str = "GiB", parent: QWidget | None = None, *,
                 simulate: str | None = None, backend_options: Mapping | None = None,
                 host: HostInfo | None = None, check_torch: bool = True) -> None:
        """Build the page (detection starts with :meth:`refresh`).

        Args:
            state: the shared PlanState (detected cards go to ``state.set_detected``).
            units: "GiB" or "GB".
            parent: Qt parent.
            simulate: the demo rig to start with (None: this machine).
            backend_options: extra arguments for ``hardware.open_backend`` (tests).
            host: a host record to use instead of collecting one (tests).
            check_torch: ask a subprocess whether torch works (once per page).
        """
        super().__init__(parent)
        self.setObjectName("rigPage")
        self.state = state
        self._units = units
        self._presentation = False
        self._catalog = dict(state.gpus)
        self._options = dict(backend_options or {})
        self._host = host
        self._check_torch = check_torch and host is None
        self._torch_asked = False
        self._spec = simulate
        self._generation = 0
        self._backend = None
        self._sampling_backend = None
        self._close_after_sample: list = []
        self._samples = 0  # live samples shown; x of the charts is samples x interval
        self.result: DetectionResult | None = None
        self.tiles: list[GpuTile] = []
        self.busy = False
        self._closed = False
        self._shown_once = False

        self._tasks = PageTasks(self, self._on_done)
        self._pool = self._tasks.pool
        # Owned by the page; runs only while the page is shown (see hideEvent/closeEvent).
        self.sample_timer = QTimer(self)
        self.sample_timer.setInterval(SAMPLE_INTERVAL_MS)
        self.sample_timer.timeout.connect(self.tick)
        self._build()
        self.picker.fill(self._spec)

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        bar = QHBoxLayout()
        self.title = QLabel(self.tr("Rig"), self)
        self.title.setProperty("role", "pageTitle")
        bar.addWidget(self.title)
        bar.addSpacing(16)
        self.picker = DemoRigPicker(self)
        bar.addWidget(self.picker, 1)
        # The picker's widgets, under the names the page has always offered (tests).
        self.demo_combo = self.picker.demo_combo
        self.spec_edit = self.picker.spec_edit
        self.refresh_button = self.picker.refresh_button
        outer.addLayout(bar)

        self.backend_label = QLabel(self)
        self.backend_label.setObjectName("rigBackend")
        self.backend_label.setWordWrap(True)
        outer.addWidget(self.backend_label)
        self.hint_label = QLabel(self)
        self.hint_label.setObjectName("rigHint")
        self.hint_label.setWordWrap(True)
        self.hint_label.setProperty("severity", "warning")
        self.hint_label.hide()
        outer.addWidget(self.hint_label)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("rigError")
        self.error_label.setWordWrap(True)
        self.error_label.setProperty("severity", "error")
        self.error_label.hide()
        outer.addWidget(self.error_label)

        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        body.setObjectName("rigBody")
        self._body = QVBoxLayout(body)
        self._body.setContentsMargins(0, 0, 0, 0)
        self.host_box = HostPanel(body)
        self._body.addWidget(self.host_box)
        self.empty_label = QLabel(body)
        self.empty_label.setObjectName("rigEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setProperty("role", "note")
        self.empty_label.hide()
        self._body.addWidget(self.empty_label)
        self._tiles_grid = QGridLayout()
        self._tiles_grid.setSpacing(10)
        self._body.addLayout(self._tiles_grid)
        self._body.addStretch(1)
        self.scroll.setWidget(body)
        outer.addWidget(self.scroll, 1)

        self.refresh_button.clicked.connect(lambda: self.refresh())
        self.picker.picked.connect(self.set_demo_rig)

    # ------------------------------------------------------------------ public API
    @property
    def spec(self) -> str | None:
        """The demo rig shown (None: this machine)."""
        return self._spec

    def set_demo_rig(self, spec: str | None) -> None:
        """Show a simulated rig (a scenario or catalog SPEC), or this machine (None)."""
        spec = spec.strip() if isinstance(spec, str) and spec.strip() else None
        self._spec = spec
        self.picker.select(spec)
        self.refresh()

    def refresh(self) -> int:
        """Detect again in the background; returns the new generation."""
        if self._closed:
            return self._generation
        self._generation += 1
        generation = self._generation
        self.busy = True
        self.refresh_button.setEnabled(False)
        self.backend_label.setText(self.tr("Detecting…"))
        spec, catalog, host, options = self._spec, self._catalog, self._host, self._options
        self._start(generation, "detect", lambda: detect_open(spec, catalog, host, options))
        if self._check_torch and not self._torch_asked:
            self._torch_asked = True
            from gpuadvisor.hardware.host import check_torch

            self._start(generation, "torch", check_torch)
        return generation

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Block until background jobs finish and deliver their results (screenshots)."""
        return self._tasks.wait(timeout_ms)

    def tick(self) -> bool:
        """Take one live sample in the background (the timer's slot); False when one is
        already in flight or there is nothing to sample."""
        backend = self._backend
        if backend is None or self._sampling_backend is not None or self._closed:
            return False
        self._sampling_backend = backend
        catalog = self._catalog
        self._start(self._generation, "sample", lambda: sample_backend(backend, catalog))
        return True

    def sample_now(self) -> bool:
        """Take one live sample on this thread (screenshots; tests use :meth:`tick`)."""
        if self._backend is None or self._sampling_backend is not None or self._closed:
            return False
        self._sampling_backend = self._backend
        try:
            gpus, error = sample_backend(self._backend, self._catalog), None
        except Exception as exc:  # same path as a background sample
            gpus, error = None, exc
        self._on_sample(self._generation, gpus, error)
        return error is None

    @property
    def sampling(self) -> bool:
        """Whether the live timer runs."""
        return self.sample_timer.isActive()

    @property
    def units(self) -> str:
        return self._units

    def set_units(self, units: str) -> None:
        self._units = units
        self._show_result()

    def set_presentation(self, enabled: bool) -> None:
        """On a projector the cards and their live readings get the page: the host's
        details (CPU, disks, Python) stay on the desktop."""
        self._presentation = enabled
        self.host_box.setVisible(not enabled)
        for tile in self.tiles:
            tile.live_only = enabled
            if tile.chart is not None:
                tile.chart.set_presentation(enabled)
        self._show_result()
        self._fit_charts()

    def text(self) -> str:
        """Everything the page says (tests, clipboard)."""
        parts = [self.backend_label.text(), self.hint_label.text() if not
                 self.hint_label.isHidden() else "", self.error_label.text() if not
                 self.error_label.isHidden() else "", self.empty_label.text() if not
                 self.empty_label.isHidden() else ""]
        parts.append(self.host_box.text())
        parts += [tile.text() for tile in self.tiles if not tile.isHidden()]
        return "\n".join(p for p in parts if p)

    def shutdown(self) -> None:
        """Stop sampling, wait for the jobs, close the backend (the page is closing)."""
        self._closed = True
        self.sample_timer.stop()
        self._pool.waitForDone()
        for backend in {id(b): b for b in (self._backend, self._sampling_backend,
                                           *self._close_after_sample) if b}.values():
            backend.close()
        self._backend = self._sampling_backend = None
        self._close_after_sample = []

    # ------------------------------------------------------------------ jobs
    def _start(self, generation: int, kind: str, fn) -> None:
        self._tasks.start(generation, kind, fn)

    def _on_done(self, generation: int, kind: str, result, error) -> None:
        if kind == "torch":
            self._on_torch(result, error)
        elif kind == "sample":
            self._on_sample(generation, result, error)
        elif generation != self._generation or self._closed:
            if error is None and result[0] is not None:
                result[0].close()  # a stale detection's backend
        elif error is not None:
            self._on_detect_error(error)
        else:
            self._on_detected(*result)

    def _retire_backend(self) -> None:
        old, self._backend = self._backend, None
        if old is None:
            return
        if old is self._sampling_backend:
            self._close_after_sample.append(old)
        else:
            old.close()

    def _on_detected(self, backend, result: DetectionResult) -> None:
        self._retire_backend()
        self._backend = backend
        if self._host is not None and self._host.torch_available is not None:
            result = dataclasses.replace(result, host=self._host)
        elif self._host is None:
            self._host = result.host
        self.result = result
        self.busy = False
        self.refresh_button.setEnabled(True)
        self.error_label.hide()
        self._show_result(rebuild=True)
        self.state.set_detected(list(result.gpus))
        self._update_timer()
        self.detection_finished.emit(result)

    def _on_detect_error(self, error: Exception) -> None:
        self.busy = False
        self.refresh_button.setEnabled(True)
        message = str(error)
        self.error_label.setText(self.tr("Cannot show that rig: {error}").format(error=message))
        self.error_label.show()
        self.backend_label.setText(self.tr("Detection failed"))
        self.status.emit(message)
        self.detection_failed.emit(message)

    def _on_torch(self, result, error) -> None:
        fields = result if error is None else {"torch_available": None,
                                                "torch_error": str(error)}
        host = self._host or (self.result.host if self.result else HostInfo())
        self._host = dataclasses.replace(host, **fields)
        if self.result is not None:
            self.result = dataclasses.replace(self.result, host=self._host)
            self._show_host()

    def _on_sample(self, generation: int, gpus, error) -> None:
        backend, self._sampling_backend = self._sampling_backend, None
        if backend is not None and any(b is backend for b in self._close_after_sample):
            self._close_after_sample = [b for b in self._close_after_sample if b is not backend]
            backend.close()
        if self._closed or generation != self._generation or self.result is None:
            return
        if error is not None:
            self.status.emit(self.tr("Live reading failed: {error}").format(error=error))
            return
        warnings = tuple(w for g in gpus for w in health_warnings(g))
        self.result = dataclasses.replace(self.result, gpus=tuple(gpus), warnings=warnings)
        if {g.index for g in gpus if g.lost} != {g.index for g in self.state.lost_gpus}:
            # A card fell off the bus (or came back): the shared rig is what is present now,
            # so the plan and the comparison stop counting it at once.
            self.state.set_detected(list(gpus))
        self._samples += 1
        t = self._samples * SAMPLE_INTERVAL_MS / 1000
        for tile, gpu in zip(self.tiles, gpus, strict=False):
            tile.set_gpu(gpu, self.result.warnings_for(gpu.index), self._units, self._catalog)
            if not gpu.lost:
                tile.ensure_chart().add_sample(t, gpu)
        if self.sample_timer.isActive():
            # The next reading a full interval after this one came back (a slow reading
            # never has the next one queued behind it).
            self.sample_timer.start()
        self.sampled.emit()

    # ------------------------------------------------------------------ showing
    def _show_result(self, rebuild: bool = False) -> None:
        result = self.result
        if result is None:
            return
        self.backend_label.setText(fmt.backend_text(result, self._spec, translate))
        # One actionable hint: the first (the most specific, from the backend that failed).
        if result.hints:
            self.hint_label.setText(self.tr("Hint: {hint}").format(
                hint=data_words.hint(result.hints[0])))
            self.hint_label.setToolTip("\n".join(data_words.hint(h) for h in result.hints))
        self.hint_label.setVisible(bool(result.hints))
        self.empty_label.setText(self.tr(
            "No GPU found. Plans use a catalog GPU; pick a Demo rig above to see what this "
            "page shows for one.") if not result.gpus else "")
        self.empty_label.setVisible(not result.gpus)
        self._show_host()
        if rebuild:
            for tile in self.tiles:
                self._tiles_grid.removeWidget(tile)
                tile.deleteLater()
            self.tiles = []
            columns = 1 if len(result.gpus) <= 1 else 2
            for k, gpu in enumerate(result.gpus):
                tile = GpuTile(self.scroll.widget())
                tile.live_only = self._presentation
                self._tiles_grid.addWidget(tile, k // columns, k % columns)
                self.tiles.append(tile)
                chart = tile.ensure_chart()
                chart.set_presentation(self._presentation)
                # Its plot's height is known once laid out: the shortest chart follows it.
                chart.plot_item.vb.sigResized.connect(self._on_plot_resized)
                if not gpu.lost:
                    chart.add_sample(self._samples * SAMPLE_INTERVAL_MS / 1000, gpu)
        for tile, gpu in zip(self.tiles, result.gpus, strict=False):
            tile.set_gpu(gpu, result.warnings_for(gpu.index), self._units, self._catalog)
        QTimer.singleShot(0, self._fit_charts)  # the readings may take more lines now

    def _show_host(self) -> None:
        if self.result is None:
            return
        self.host_box.set_host(self.result.host, self._units)

    # ------------------------------------------------------------------ timer lifetime
    def _update_timer(self) -> None:
        if self.isVisible() and self._backend is not None and not self._closed:
            if not self.sample_timer.isActive():
                self.sample_timer.start()
        else:
            self.sample_timer.stop()

    def _fit_charts(self) -> None:
        """Each live chart as tall as its mode allows (:func:`chart_max_height`), but short
        enough that the lowest tile, legend included, ends inside the page's view (Chinese
        readings wrap onto more lines: at 1280 x 720 the legends fell below the fold); never
        shorter than :func:`chart_min_height` (on a projector the page scrolls rather than
        crush the plot). Idempotent: it runs after every refresh."""
        top = chart_max_height(self._presentation)
        charts = [t.chart for t in self.tiles if t.chart is not None]
        if not charts:
            return
        low = max(chart_min_height(self._presentation, chart) for chart in charts)
        height = top
        if self.isVisible():
            body = self.scroll.widget()
            body.layout().activate()
            bottom = max(t.mapTo(body, t.rect().bottomLeft()).y() for t in self.tiles)
            # the lowest tile's bottom were the charts at their tallest
            overflow = bottom + (top - charts[0].height()) - self.scroll.viewport().height()
            if overflow > 0:
                height = max(low, top - overflow - 4)
            elif overflow < -8:
                # Room to spare (two cards at 1920 x 1080 left the page's lower half
                # blank): the charts share it, a row of tiles at a time, up to a height
                # where a plot of a few readings is still a chart and not a wall.
                rows = len({t.mapTo(body, t.rect().topLeft()).y() for t in self.tiles})
                height = min(CHART_FILL_HEIGHT[self._presentation],
                             top + (-overflow - 8) // max(1, rows))
        for chart in charts:
            if chart.minimumHeight() != low:
                chart.setMinimumHeight(low)
            if chart.maximumHeight() != height:
                chart.setMaximumHeight(height)

    def _on_plot_resized(self, _view=None) -> None:
        if self._presentation and not self._closed:
            QTimer.singleShot(0, self._fit_charts)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        QTimer.singleShot(0, self._fit_charts)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self._fit_charts)
        if not self._shown_once:
            self._shown_once = True
            self.first_shown.emit()
        self._update_timer()

    def hideEvent(self, event) -> None:
        # Not shown, not sampled: NVML queries cost the GPU's driver time too.
        self.sample_timer.stop()
        super().hideEvent(event)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


__all__ = ["SAMPLE_INTERVAL_MS", "RigPage"]
