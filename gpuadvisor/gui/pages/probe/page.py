"""The Probe page: measure this machine (quick, full, burn-in, plan check) in a worker
subprocess, with progress, cancel, live readings, measured-vs-catalog bars and history.

This module lays the page out and wires its regions: the pickers (:mod:`.pickers`), the run
buttons (:mod:`.controls`), the Run box with the results (:mod:`.run_panel`,
:mod:`.results`), the live readings (:mod:`.telemetry_panel`) and the history
(:mod:`.history_panel`); what the page says is written in :mod:`.format`.

Threading and lifetimes:

- Probe runs go through a page-owned :class:`~gpuadvisor.gui.probe_jobs.ProbeQueue`
  (``QProcess``, signals on the GUI thread); the GUI process never imports torch.
- Interpreter discovery, the handshake of a browsed interpreter, opening the hardware
  backend and every live reading run on a page-owned pool
  (:class:`~gpuadvisor.gui.pages.tasks.PageTasks`); each task delivers ``result`` or
  ``error`` back to the GUI thread, tagged with a generation so that a stale discovery is
  dropped.
- The reading timer runs only while a probe runs and the page is shown (stopped in
  ``hideEvent``); :meth:`ProbePage.shutdown` cancels the run, stops the timer, waits for the
  pool and closes the backend, so nothing outlives the page.

Live readings come from the hardware backend (NVML, sysfs), not from the worker, and are
of this machine even when the Rig page shows a demo rig, because the probes measure this
machine too. The burn-in's temperature limit is enforced here: at the limit the page asks
the worker to stop gracefully, and the burn-in still reports what it measured.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from gpuadvisor.gui.pages.tasks import PageTasks
from gpuadvisor.gui.probe_jobs import Interpreter, ProbeJob, ProbeQueue
from gpuadvisor.probes import history, plancheck, runner, telemetry
from gpuadvisor.probes.protocol import Hello
from gpuadvisor.workspace.planfile import PlanFileError, parse_plan_dict

from . import format as fmt
from .controls import RunControls
from .history_panel import HistoryPanel
from .pickers import PythonPicker, worker_check, worker_discover
from .run_panel import RunPanel
from .telemetry_panel import TelemetryPanel
from .widgets import note_label, translate


class ProbePage(QWidget):
    """Run probes on this machine and see what they measured, against the catalog and the past.

    Signals:
        go_to_plan: the user asks for the Plan page.
        status(str): a line for the window's status bar.
        interpreters_ready(): the interpreter picker has been filled (a scan or check ended).
        run_finished(object): a run ended and is shown (its ``ProbeRun``).
        sampled(): a live reading was shown.
    """

    go_to_plan = Signal()
    status = Signal(str)
    interpreters_ready = Signal()
    run_finished = Signal(object)
    sampled = Signal()

    def __init__(self, state, units: str = "GiB", parent: QWidget | None = None, *,
                 settings=None, simulate: str | None = None, python: str | None = None,
                 worker: str | os.PathLike | None = None, worker_args: Sequence[str] = (),
                 discover: Callable[[str | None], list[Interpreter]] | None = None,
                 check: Callable[[str], Interpreter] | None = None,
                 telemetry: bool = True, telemetry_spec: str | None = None,
                 telemetry_options: Mapping | None = None) -> None:
        """Build the page (interpreter discovery starts when it is first shown).

        Args:
            state: the shared PlanState (the plan check's plan; catalog peaks).
            units: "GiB" or "GB".
            parent: Qt parent.
            settings: the app's Settings; ``probe_python`` is read, and set when the user
                picks an interpreter (the window saves it). None: private defaults.
            simulate: the demo rig the Rig page shows, if any (probes still measure this
                machine; the page says so).
            python: the interpreter to preselect instead of the remembered one.
            worker: the worker script (tests: the fake worker).
            worker_args: more worker arguments, for runs and checks (tests: ``--mode``).
            discover: ``discover(preferred) -> [Interpreter]``, blocking, run on the pool
                (default: :func:`~gpuadvisor.gui.probe_jobs.discover_interpreters`).
            check: ``check(python) -> Interpreter`` for a browsed interpreter (blocking).
            telemetry: show live readings from the hardware backend during runs.
            telemetry_spec: read a simulated rig instead of this machine (tests, demos).
            telemetry_options: extra arguments for ``hardware.open_backend`` (tests).
        """
        super().__init__(parent)
        from gpuadvisor.workspace.settings import Settings

        self.setObjectName("probePage")
        self.state = state
        self.settings = settings if settings is not None else Settings()
        self._units = units
        self._simulate = simulate
        self._worker = os.fspath(worker) if worker is not None else str(runner.WORKER_SCRIPT)
        self._worker_args = tuple(worker_args)
        self._discover = discover or worker_discover(self._worker, self._worker_args)
        self._check = check or worker_check(self._worker, self._worker_args)
        self._closed = False
        self._shown_once = False
        self.last_run: runner.ProbeRun | None = None
        self.last_job: ProbeJob | None = None
        self._plan_document = None
        self._stop_reason: str | None = None

        self._tasks = PageTasks(self, self._on_task_done)
        self._pool = self._tasks.pool
        self.queue = ProbeQueue(self)
        self._build(python, telemetry, telemetry_spec, telemetry_options)
        self._wire()
        self._update_buttons()
        self.history.load()

    # ================================================================== layout
    def _build(self, python: str | None, telemetry_on: bool, telemetry_spec: str | None,
               telemetry_options: Mapping | None) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)
        bar = QHBoxLayout()
        self.title = QLabel(translate("ProbePage", "Probe"), self)
        self.title.setProperty("role", "pageTitle")
        bar.addWidget(self.title)
        bar.addSpacing(16)
        self.picker = PythonPicker(self.settings, self._units, python, self._tasks,
                                   self._discover, self._check, self)
        bar.addWidget(self.picker, 1)
        outer.addLayout(bar)
        self.device_note = note_label("", self)
        self.device_note.setObjectName("probeDeviceNote")
        outer.addWidget(self.device_note)
        self.torch_missing = note_label("", self, role="")
        self.torch_missing.setObjectName("torchMissing")
        self.torch_missing.hide()
        outer.addWidget(self.torch_missing)
        self.controls = RunControls(self)
        outer.addWidget(self.controls)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter, 1)
        top = QWidget(self.splitter)
        top_layout = QHBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        self.run_box = RunPanel(self.state, top)
        top_layout.addWidget(self.run_box, 5)
        self.telemetry_box = TelemetryPanel(
            self._tasks, self.picker.current_device, top, enabled=telemetry_on,
            spec=telemetry_spec, options=telemetry_options)
        top_layout.addWidget(self.telemetry_box, 3)
        self.history = HistoryPanel(self.splitter)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)

        # The regions' widgets, under the names the page has always offered (tests, window).
        picker, controls, run, live = self.picker, self.controls, self.run_box, self.telemetry_box
        self.python_combo, self.device_combo = picker.python_combo, picker.device_combo
        self.browse_button, self.rescan_button = picker.browse_button, picker.rescan_button
        self.quick_button, self.full_button = controls.quick_button, controls.full_button
        self.burnin_button, self.burnin_minutes = controls.burnin_button, controls.burnin_minutes
        self.temperature_limit = controls.temperature_limit
        self.plancheck_button = controls.plancheck_button
        self.dataread_button = controls.dataread_button
        self.stop_button, self.cancel_button = controls.stop_button, controls.cancel_button
        self.run_status, self.errors_label = run.run_status, run.errors_label
        self.results_scroll = run.results
        self.telemetry_title, self.telemetry_note = live.gpu_title, live.note
        self.sample_timer = live.timer

    def _wire(self) -> None:
        self.history.message.connect(self.status)
        self.run_box.status.connect(self.status)
        self.picker.browse_button.clicked.connect(lambda: self.browse_python())
        self.picker.rescan_button.clicked.connect(lambda: self.rescan())
        self.picker.interpreter_changed.connect(self._on_interpreter_changed)
        self.picker.device_changed.connect(self._on_device_changed)
        self.picker.scan_failed.connect(self._show_torch_missing)
        self.picker.checked.connect(self.status)
        self.picker.check_failed.connect(self._update_buttons)
        self.picker.check_failed.connect(self.status)
        self.picker.ready.connect(self._update_buttons)
        self.picker.ready.connect(self.interpreters_ready)
        controls = self.controls
        controls.quick_button.clicked.connect(lambda: self.run_quick())
        controls.full_button.clicked.connect(lambda: self.run_full())
        controls.burnin_button.clicked.connect(lambda: self.run_burnin())
        controls.plancheck_button.clicked.connect(lambda: self.run_plancheck())
        controls.dataread_button.clicked.connect(lambda: self.run_dataread())
        controls.stop_button.clicked.connect(lambda: self.stop())
        controls.cancel_button.clicked.connect(lambda: self.cancel())
        self.telemetry_box.opened.connect(self._default_temperature_limit)
        self.telemetry_box.unavailable.connect(self._give_room_to_results)
        self.telemetry_box.reading.connect(self._check_temperature)
        self.telemetry_box.sampled.connect(self.sampled)
        self.queue.started.connect(self._on_job_started)
        self.queue.hello.connect(self._on_hello)
        self.queue.progress.connect(self.run_box.on_progress)
        self.queue.result.connect(self.run_box.on_result)
        self.queue.error.connect(self.run_box.on_error)
        self.queue.finished.connect(self._on_job_finished)

    # The regions' state, under the names the page has always offered.
    @property
    def interpreters(self) -> list[Interpreter]:
        return self.picker.interpreters

    @property
    def discovering(self) -> bool:
        return self.picker.discovering

    @property
    def charts(self) -> dict:
        return self.run_box.results.charts

    @property
    def versus(self) -> list:
        return self.run_box.results.versus

    @property
    def stored(self) -> list[history.StoredRun]:
        return self.run_box.results.stored

    @property
    def comparison(self) -> plancheck.PlanCheckComparison | None:
        return self.run_box.results.comparison

    @property
    def live_chart(self):
        return self.telemetry_box.live_chart

    @property
    def _progress_rows(self) -> dict:
        return self.run_box.rows

    @property
    def _result_widgets(self) -> list[QWidget]:
        return self.run_box.results.widgets

    # ================================================================== interpreters
    def rescan(self) -> int:
        """Look for interpreters again in the background; returns the new generation."""
        if self._closed:
            return self.picker.generation
        generation = self.picker.rescan()
        self.torch_missing.hide()
        self._update_buttons()
        return generation

    def browse_python(self) -> bool:
        """Ask for an interpreter and check it in the background."""
        path = self.ask_python_path()
        if not path:
            return False
        self.use_python(path)
        return True

    def ask_python_path(self) -> str | None:
        """Ask which python executable to use (tests replace this)."""
        start = self.current_python() or str(Path.home() / "python")
        path, _ = QFileDialog.getOpenFileName(
            self, translate("ProbePage", "Choose a Python interpreter"), str(Path(start).parent))
        return path or None

    def use_python(self, path: str) -> None:
        """Check ``path`` in the background; it joins the picker and is selected."""
        self.status.emit(translate("ProbePage", "Checking {python}…").format(python=path))
        self.picker.check(path)

    def current_python(self) -> str | None:
        """The interpreter picked (None while none)."""
        return self.picker.current_python()

    def current_interpreter(self) -> Interpreter | None:
        return self.picker.current_interpreter()

    def current_device(self) -> dict | None:
        """The device picked (a ``hello`` device: ``id``, ``name``, ``type``...), or None."""
        return self.picker.current_device()

    def _on_interpreter_changed(self) -> None:
        self._on_device_changed()
        self._show_torch_state()

    def _on_device_changed(self) -> None:
        self.device_note.setText(self.picker.device_note(self._simulate))
        device = self.current_device()
        if device is not None:
            self.history.select_device(history.device_key(dict(device)))
        self._default_temperature_limit()
        self._update_buttons()

    def _show_torch_state(self) -> None:
        problem = self.picker.torch_problem()
        if problem is None:
            self.torch_missing.hide()
        else:
            self._show_torch_missing(problem)

    def _show_torch_missing(self, text: str) -> None:
        self.torch_missing.setText(text)
        self.torch_missing.show()

    # ================================================================== runs
    def _job(self, kind: str, probes: Sequence[str], *, quick: bool = True,
             options: Mapping | None = None, timeout_s: float | None = None) -> ProbeJob | None:
        found = self.current_interpreter()
        if found is None or not found.usable or self.queue.busy or self._closed:
            return None
        device = self.current_device()
        return ProbeJob(probes=tuple(probes), python=found.python,
                        device=device.get("id") if device else None, quick=quick,
                        timeout_s=timeout_s or runner.TIMEOUTS_S[kind], options=options,
                        extra_args=self._worker_args, worker=self._worker, kind=kind)

    def _submit(self, job: ProbeJob | None) -> bool:
        if job is None:
            return False
        self.queue.submit(job)
        return True

    def run_quick(self) -> bool:
        """Run the quick suite (the CLI's: :data:`runner.SUITE_PROBES`); False when it cannot
        start now (no usable Python, or a run in progress)."""
        return self._submit(self._job("quick", runner.SUITE_PROBES, quick=True))

    def run_full(self) -> bool:
        """Run the full suite (the same probes at larger sizes)."""
        return self._submit(self._job("full", runner.SUITE_PROBES, quick=False))

    def run_burnin(self) -> bool:
        """Run the burn-in for the chosen minutes; it is asked to stop at the temperature
        limit (see :meth:`_check_temperature`)."""
        seconds = 60 * self.burnin_minutes.value()
        return self._submit(self._job("burnin", ("burnin",),
                                      options={"burnin": {"seconds": seconds}},
                                      timeout_s=runner.burn_in_timeout(seconds)))

    def run_plancheck(self) -> bool:
        """Check the shared plan on this device: measured vs estimated memory and time."""
        try:
            document = parse_plan_dict(self.state.to_dict(), models=self.state.models,
                                       gpus=self.state.gpus)
            options = plancheck.probe_options(document.model, document.plan)
        except (PlanFileError, ValueError) as exc:
            self.run_box.set_status(translate(
                "ProbePage", "This plan cannot be checked here: {error}").format(error=exc),
                "error")
            return False
        job = self._job("plancheck", [p for p in plancheck.PLAN_PROBES if p in options],
                        options=options)
        if job is not None:
            self._plan_document = document
        return self._submit(job)

    def ask_data_folder(self) -> str | None:
        """Ask for the dataset folder (tests replace this)."""
        path = QFileDialog.getExistingDirectory(
            self, translate("ProbePage", "Choose your dataset folder"), str(Path.home()))
        return path or None

    def run_dataread(self, folder: str | None = None) -> bool:
        """Measure how fast ``folder`` (asked for when None) reads, against the plan."""
        folder = folder or self.ask_data_folder()
        if not folder:
            return False
        if not Path(folder).is_dir():
            self.run_box.set_status(translate("ProbePage", "Not a folder: {path}").format(
                path=folder), "error")
            return False
        return self._submit(self._job("dataread", ("dataread",),
                                      options={"dataread": {"path": str(folder)}}))

    def stop(self) -> bool:
        """Ask the running probe to end early and keep what it measured (burn-in)."""
        if not self.queue.stop():
            return False
        self._stop_reason = self._stop_reason or translate("ProbePage", "stopped early by you")
        self.run_box.set_status(translate("ProbePage", "Stopping: the probe ends its current "
                                          "step and reports what it measured…"))
        self._update_buttons()
        return True

    def cancel(self) -> bool:
        """Stop the running probe now; the run reports "cancelled" and nothing is saved."""
        return self.queue.cancel()

    @property
    def running(self) -> bool:
        """A probe runs."""
        return self.queue.busy

    def _update_buttons(self) -> None:
        found = self.current_interpreter()
        busy = self.queue.busy
        ready = (found is not None and found.usable and not busy
                 and not self.picker.discovering and not self._closed)
        job = self.queue.current
        self.controls.set_state(ready, running=job is not None,
                                can_stop=job is not None and job.kind == "burnin"
                                and self._stop_reason is None)
        self.picker.set_idle(not busy and not self._closed)

    def _on_job_started(self, job: ProbeJob) -> None:
        self.last_job = job
        self._stop_reason = None
        self.run_box.start(job, self.current_device())
        self._update_buttons()
        self.telemetry_box.start_run()

    def _on_hello(self, hello: Hello) -> None:
        if hello.torch is None:
            self._show_torch_missing(fmt.no_torch_text(translate))

    def _on_job_finished(self, job: ProbeJob, run: runner.ProbeRun) -> None:
        self.last_run = run
        self.telemetry_box.stop_run()
        if self._closed:
            return
        self.run_box.finish(run, self._stop_reason)
        if run.torch_missing:
            self._show_torch_missing(fmt.no_torch_text(translate))
        saved = self._record(run) if run.status != "cancelled" and run.results else []
        self.run_box.results.show_run(
            job.kind, run, saved, summary=self.telemetry_box.summary_text(),
            plan_document=self._plan_document, units=self._units)
        self._update_buttons()
        self.run_finished.emit(run)

    def _record(self, run: runner.ProbeRun) -> list[Path]:
        """Save the results; a problem is shown, and the results stay on screen."""
        warnings: list[str] = []
        try:
            saved = history.record(run, warnings=warnings)
        except (OSError, ValueError) as exc:
            self.history.show_problem(translate(
                "ProbePage", "The results are shown but could not be saved to the probe "
                "history: {error}").format(error=exc))
            return []
        if warnings:
            self.history.show_problem("\n".join(warnings))
        stored = history.stored_runs_of(run)
        self.history.load(select_key=stored[0].device_key if stored else None)
        return saved

    # ================================================================== live readings
    def tick(self) -> bool:
        """Take one live reading in the background; False when one is already in flight or
        there is nothing to read."""
        return self.telemetry_box.tick()

    def telemetry_gpu(self, gpus):
        """The backend's card that is the device being measured (None for the CPU, or when
        it cannot be told)."""
        return self.telemetry_box.measured_gpu(gpus)

    def _default_temperature_limit(self) -> None:
        # The card's own threshold decides the default, until the user sets one.
        gpu = self.telemetry_box.measured_gpu()
        if gpu is not None:
            self.controls.suggest_temperature_limit(telemetry.default_temp_limit_c(gpu))

    def _give_room_to_results(self) -> None:
        # Nothing to plot: the room goes to the results.
        self.telemetry_box.setMaximumWidth(self.fontMetrics().horizontalAdvance("x") * 50)

    def _check_temperature(self, gpu) -> None:
        job = self.queue.current
        limit = self.temperature_limit.value()
        if (job is None or job.kind != "burnin" or gpu.temperature_c is None
                or gpu.temperature_c < limit or self._stop_reason is not None):
            return
        self._stop_reason = fmt.temperature_reason(gpu.name, gpu.temperature_c, limit,
                                                   translate)
        if self.queue.stop():
            self.run_box.set_status(fmt.temperature_stop_text(self._stop_reason, translate),
                                    "warning")
        self._update_buttons()

    # ================================================================== background answers
    def _on_task_done(self, generation: int, kind: str, result, error) -> None:
        if kind == "backend":
            self.telemetry_box.on_backend(result, error)
        elif kind == "sample":
            self.telemetry_box.on_sample(result, error)
        elif not self._closed:
            self.picker.on_answer(generation, kind, result, error)

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Block until background tasks end and deliver their results (screenshots, tests)."""
        return self._tasks.wait(timeout_ms)

    # ================================================================== page API
    @property
    def units(self) -> str:
        return self._units

    def set_units(self, units: str) -> None:
        self._units = units
        self.picker.set_units(units)

    def set_presentation(self, enabled: bool) -> None:
        self.run_box.results.set_presentation(enabled)
        self.telemetry_box.set_presentation(enabled)
        self.history.set_presentation(enabled)

    def text(self) -> str:
        """Everything the page says about the run (tests, clipboard)."""
        parts = [self.device_note.text(),
                 self.torch_missing.text() if not self.torch_missing.isHidden() else "",
                 self.run_box.text()]
        return "\n".join(p for p in parts if p)

    def _first_show(self) -> None:
        self._shown_once = True
        self.rescan()
        self.telemetry_box.open_backend()

    def flush(self) -> None:
        """Finish the interpreter scan and pending readings now (screenshots)."""
        if not self._shown_once and not self._closed:
            self._first_show()
        self.wait()

    def shutdown(self) -> None:
        """Cancel the run, stop the timer, wait for the tasks, close the backend (closing)."""
        if self._closed:
            return
        self._closed = True
        self.telemetry_box.shutdown()
        self.queue.shutdown()
        self._tasks.drain()  # a backend opened meanwhile is closed on delivery
        self.telemetry_box.close_backend()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once and not self._closed:
            self._first_show()
            total = sum(self.splitter.sizes())
            if total > 0:  # a little more than half to the run, the rest to the history
                self.splitter.setSizes([round(0.56 * total), total - round(0.56 * total)])
        self.telemetry_box.update_timer()

    def hideEvent(self, event) -> None:
        # Not shown, not sampled: NVML queries cost the GPU's driver time too.
        self.sample_timer.stop()
        super().hideEvent(event)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


__all__ = ["ProbePage"]
