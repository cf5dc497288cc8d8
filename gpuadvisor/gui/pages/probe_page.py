"""The Probe page: measure this machine (quick, full, burn-in, plan check) in a worker
subprocess, with progress, cancel, live readings, measured-vs-catalog bars and history.

Threading and lifetimes:

- Probe runs go through a page-owned :class:`~gpuadvisor.gui.probe_jobs.ProbeQueue`
  (``QProcess``, signals on the GUI thread); the GUI process never imports torch.
- Interpreter discovery, the handshake of a browsed interpreter, opening the hardware
  backend and every live reading run on a page-owned ``QThreadPool``; each task delivers
  ``result`` or ``error`` back to the GUI thread through a relay QObject (Picard's
  ``run_task``), tagged with a generation so that a stale discovery is dropped.
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
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QSignalBlocker,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.units import format_bytes, format_duration
from gpuadvisor.gui.background import Job, Relay
from gpuadvisor.gui.probe_jobs import (
    Interpreter,
    ProbeJob,
    ProbeQueue,
    check_python,
    discover_interpreters,
)
from gpuadvisor.planfile import PlanFileError, parse_plan_dict
from gpuadvisor.probes import history, plancheck, runner, telemetry
from gpuadvisor.probes.compare import diff_runs, trend, versus_catalog
from gpuadvisor.probes.protocol import Error, Hello, Result

translate = QCoreApplication.translate

#: Live readings per second while a probe runs.
SAMPLE_INTERVAL_MS = 500
#: Burn-in minutes (lowest, highest, default) and the temperature limit in °C; the limit's
#: default follows the card's slowdown threshold once a card is read
#: (:func:`gpuadvisor.probes.telemetry.default_temp_limit_c`).
BURNIN_MINUTES = (1, 240, 10)
TEMPERATURE_LIMIT_C = (30, 105, round(telemetry.DEFAULT_TEMP_LIMIT_C))
#: The figure the history shows first: the first of these the device has.
PREFERRED_FIGURES = ("matmul.bf16_median_tflops", "matmul.fp16_median_tflops",
                     "matmul.fp32_median_tflops", "bandwidth.copy_gb_s")

_CONTEXT = "ProbePage"
PROBE_NAMES = {
    "matmul": QT_TRANSLATE_NOOP("ProbePage", "Matmul throughput"),
    "bandwidth": QT_TRANSLATE_NOOP("ProbePage", "Memory bandwidth"),
    "transfer": QT_TRANSLATE_NOOP("ProbePage", "Host ↔ device copies"),
    "step": QT_TRANSLATE_NOOP("ProbePage", "Training step"),
    "dataread": QT_TRANSLATE_NOOP("ProbePage", "Data reading"),
    "plancheck": QT_TRANSLATE_NOOP("ProbePage", "Plan check"),
    "burnin": QT_TRANSLATE_NOOP("ProbePage", "Burn-in"),
}
UNIT_TITLES = {
    "TFLOPS": QT_TRANSLATE_NOOP("ProbePage", "Compute: measured vs catalog peak (TFLOPS)"),
    "GB/s": QT_TRANSLATE_NOOP("ProbePage", "Bandwidth: measured vs catalog (GB/s)"),
}

_STYLE = """
QLabel[severity="error"] { color: #B3261E; font-weight: bold; }
QLabel[severity="warning"] { color: #8A4B00; }
QLabel[severity="ok"] { color: #00664A; font-weight: bold; }
QLabel#torchMissing { background: #FFF4D6; border: 1px solid #E69F00; border-radius: 4px;
    padding: 8px; color: #000000; }
"""


def probe_name(probe: str | None) -> str:
    """A probe's name for people (translated); ``None`` is the run as a whole."""
    if probe is None:
        return translate("ProbePage", "run")
    text = PROBE_NAMES.get(probe)
    return translate(_CONTEXT, text) if text else probe


def figure_label(probe: str, name: str) -> str:
    """``bf16_median_tflops`` of matmul -> ``matmul: bf16 median`` (the unit goes on axes)."""
    short = name
    for suffix in ("_tflops", "_gb_s", "_bytes", "_pct", "_s"):
        if short.endswith(suffix):
            short = short[: -len(suffix)]
            break
    return f"{probe}: {short.replace('_', ' ')}"


def _set_severity(label: QLabel, severity: str) -> None:
    if label.property("severity") != severity:
        label.setProperty("severity", severity)
        label.style().unpolish(label)
        label.style().polish(label)


def _note_label(text: str, parent: QWidget, *, role: str = "note") -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setProperty("role", role)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _table(columns: int, parent: QWidget, name: str) -> QTableWidget:
    table = QTableWidget(0, columns, parent)
    table.setObjectName(name)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    return table


def _fill_table(table: QTableWidget, rows: Sequence[Sequence[str]], *,
                right_from: int = 1) -> None:
    """Rows of text into ``table``; columns from ``right_from`` on are right-aligned."""
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c >= right_from:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)


def _local_time(stamp: str) -> str:
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def _same(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return ""
    text = f"{value:,.6g}"
    return f"{text} {unit}".strip()


class _ProgressRow:
    """One probe's line in the Run box: name, bar, message."""

    def __init__(self, grid: QGridLayout, row: int, probe: str, parent: QWidget) -> None:
        self.probe = probe
        self.name = QLabel(probe_name(probe), parent)
        self.bar = QProgressBar(parent)
        self.bar.setRange(0, 1000)
        self.bar.setFormat("%p%")
        self.bar.setFixedWidth(160)
        self.message = QLabel(parent)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        grid.addWidget(self.name, row, 0)
        grid.addWidget(self.bar, row, 1)
        grid.addWidget(self.message, row, 2)
        self.widgets = (self.name, self.bar, self.message)

    def set_message(self, text: str, severity: str = "") -> None:
        self.message.setText(text)
        _set_severity(self.message, severity)


# ================================================================== history
class HistoryPanel(QGroupBox):
    """Past runs of one device: a table, one figure over time, and two runs side by side.

    Reads :func:`gpuadvisor.probes.history.runs` (small files, read on the GUI thread);
    a history file that cannot be read is moved aside by the history module and reported
    here as a message, never raised.

    Signals:
        message(str): a line for the status bar.
    """

    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("History"), parent)
        self.setObjectName("historyPanel")
        self.runs: list[history.StoredRun] = []
        self.chart = None
        self._presentation = False
        layout = QVBoxLayout(self)
        head = QHBoxLayout()
        head.addWidget(QLabel(self.tr("Device:"), self))
        self.device_combo = QComboBox(self)
        self.device_combo.setObjectName("historyDevice")
        self.device_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        head.addWidget(self.device_combo)
        head.addSpacing(12)
        head.addWidget(QLabel(self.tr("Figure:"), self))
        self.figure_combo = QComboBox(self)
        self.figure_combo.setObjectName("historyFigure")
        self.figure_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        head.addWidget(self.figure_combo)
        head.addSpacing(12)
        hint = _note_label(self.tr("Select two runs to compare them."), self)
        hint.setWordWrap(False)
        head.addWidget(hint)
        head.addStretch(1)
        layout.addLayout(head)
        self.problem = _note_label("", self, role="")
        self.problem.setObjectName("historyMessage")
        _set_severity(self.problem, "warning")
        self.problem.hide()
        layout.addWidget(self.problem)
        self.empty = _note_label(self.tr(
            "No runs recorded for this device yet. Press Quick: each run's results are kept "
            "here, per device, to compare over time."), self)
        self.empty.setObjectName("historyEmpty")
        layout.addWidget(self.empty)

        # Runs (and, when two are selected, their comparison) on the left; the chosen
        # figure over time on the right, as tall as the panel.
        self.body = QWidget(self)
        body = QHBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        self.table = _table(4, self.body, "historyTable")
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        left.addWidget(self.table, 1)
        self.compare_label = QLabel(self.body)
        self.compare_label.setProperty("role", "subheading")
        self.compare_table = _table(4, self.body, "compareTable")
        self.compare_table.setHorizontalHeaderLabels(
            [self.tr("Figure"), self.tr("Older run"), self.tr("Newer run"), self.tr("Change")])
        self.compare_table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.Stretch)
        self.compare_label.hide()
        self.compare_table.hide()
        left.addWidget(self.compare_label)
        left.addWidget(self.compare_table, 1)
        body.addLayout(left, 1)
        self._chart_box = QVBoxLayout()
        body.addLayout(self._chart_box, 1)
        layout.addWidget(self.body, 1)
        layout.addStretch(0)  # takes the room while the body is hidden (no runs yet)

        self.device_combo.currentIndexChanged.connect(lambda _i: self._show_device())
        self.figure_combo.currentIndexChanged.connect(lambda _i: self._fill_table())
        self.table.itemSelectionChanged.connect(self._on_selection)

    def ensure_chart(self):
        if self.chart is None:
            from gpuadvisor.gui.charts.probe_charts import HistoryChart  # pyqtgraph: late

            self.chart = HistoryChart(self.body)
            self.chart.setObjectName("historyChart")
            self.chart.setMinimumHeight(170)
            self.chart.set_presentation(self._presentation)
            self._chart_box.addWidget(self.chart)
        return self.chart

    def set_presentation(self, enabled: bool) -> None:
        self._presentation = enabled
        if self.chart is not None:
            self.chart.set_presentation(enabled)
        # Column widths follow the new font once the style sheet has reached the table.
        QTimer.singleShot(0, self, self.table.resizeColumnsToContents)

    # ------------------------------------------------------------------ loading
    def load(self, select_key: str | None = None) -> None:
        """Read the history again and show the device ``select_key`` (or keep the one shown)."""
        warnings: list[str] = []
        try:
            self.runs = history.runs(warnings=warnings)
        except (OSError, ValueError) as exc:
            self.runs = []
            warnings.append(self.tr("The probe history could not be read: {error}").format(
                error=exc))
        if warnings:
            self.show_problem("\n".join(warnings))
        combo = self.device_combo
        wanted = select_key or combo.currentData()
        names: dict[str, str] = {}
        for run in self.runs:
            names[run.device_key] = run.device_name  # the newest name wins
        with QSignalBlocker(combo):
            combo.clear()
            for key, name in names.items():
                combo.addItem(name, key)
            if not names:
                combo.addItem(self.tr("No runs recorded yet"), None)
            combo.setCurrentIndex(max(combo.findData(wanted) if wanted else -1, 0))
        combo.setEnabled(bool(names))
        self._show_device()

    def show_problem(self, text: str) -> None:
        """Show a history problem (a file set aside, a failed save) above the table."""
        self.problem.setText(text)
        self.problem.show()
        self.message.emit(text.splitlines()[0])

    def select_device(self, key: str | None) -> bool:
        """Show the runs of device ``key`` if it has any."""
        index = self.device_combo.findData(key) if key else -1
        if index >= 0:
            self.device_combo.setCurrentIndex(index)
        return index >= 0

    # ------------------------------------------------------------------ showing
    def device_runs(self) -> list[history.StoredRun]:
        """The runs of the device shown, newest first (the table's order)."""
        key = self.device_combo.currentData()
        return [r for r in reversed(self.runs) if r.device_key == key]

    @staticmethod
    def figures_of(runs: Sequence[history.StoredRun]) -> dict[str, tuple[str, str]]:
        """``probe.figure`` -> (label, unit) of every figure in ``runs``."""
        found: dict[str, tuple[str, str]] = {}
        for run in runs:
            for probe, data in run.results.items():
                units = data.get("units", {})
                for name in data.get("figures", {}):
                    found.setdefault(f"{probe}.{name}", (figure_label(probe, name),
                                                          str(units.get(name, ""))))
        return found

    def _show_device(self) -> None:
        runs = self.device_runs()
        figures = self.figures_of(runs)
        combo = self.figure_combo
        previous = combo.currentData()
        with QSignalBlocker(combo):
            combo.clear()
            for key, (label, unit) in sorted(figures.items()):
                combo.addItem(f"{label} ({unit})" if unit else label, key)
            wanted = next((k for k in (previous, *PREFERRED_FIGURES) if k in figures), None)
            combo.setCurrentIndex(max(combo.findData(wanted), 0) if wanted else 0)
        combo.setEnabled(bool(figures))
        self.empty.setVisible(not runs)
        self.body.setVisible(bool(runs))
        self._fill_table()

    def current_figure(self) -> tuple[str, str] | None:
        """(probe, figure) chosen for the chart and the table's third column, or None."""
        key = self.figure_combo.currentData()
        if not key:
            return None
        probe, _, name = key.partition(".")
        return probe, name

    def _fill_table(self) -> None:
        runs = self.device_runs()
        figure = self.current_figure()
        table = self.table
        with QSignalBlocker(table):
            table.clearSelection()
            table.setHorizontalHeaderLabels([
                self.tr("When"), self.tr("Probes"),
                self.figure_combo.currentText() if figure else self.tr("Figure"),
                self.tr("PyTorch")])
            rows = []
            for run in runs:
                value = run.figure(*figure) if figure else None
                rows.append([_local_time(run.timestamp), ", ".join(run.results),
                             "" if value is None else f"{value:g}",
                             str(run.versions.get("torch") or "")])
            _fill_table(table, rows, right_from=2)
            for r in range(len(rows)):  # only the figure is a number
                table.item(r, 3).setTextAlignment(Qt.AlignmentFlag.AlignLeft
                                                  | Qt.AlignmentFlag.AlignVCenter)
        table.resizeColumnsToContents()
        self._on_selection()

    def selected_rows(self) -> list[int]:
        """Rows selected in the table, ascending (row 0 is the newest run)."""
        return sorted({i.row() for i in self.table.selectionModel().selectedRows()})

    def _on_selection(self) -> None:
        rows = self.selected_rows()
        runs = self.device_runs()
        pair = len(rows) == 2 and all(r < len(runs) for r in rows)
        if pair:
            newer, older = runs[rows[0]], runs[rows[1]]
            self.compare_label.setText(self.tr("{older} → {newer}").format(
                older=_local_time(older.timestamp), newer=_local_time(newer.timestamp)))
            lines = []
            for diff in diff_runs(older, newer):
                change = "" if diff.change_pct is None else f"{diff.change_pct:+.1f}%"
                lines.append([f"{figure_label(diff.probe, diff.figure)} ({diff.unit})",
                              _number(diff.a), _number(diff.b), change])
            _fill_table(self.compare_table, lines)
        self.compare_label.setVisible(pair)
        self.compare_table.setVisible(pair)
        self._draw_chart([runs[r] for r in rows if r < len(runs)])

    def compared(self) -> list[tuple[str, ...]]:
        """The comparison table's cells (empty when no two runs are selected)."""
        t = self.compare_table
        if t.isHidden():
            return []
        return [tuple(t.item(r, c).text() for c in range(t.columnCount()))
                for r in range(t.rowCount())]

    def _draw_chart(self, selected: Sequence[history.StoredRun]) -> None:
        figure = self.current_figure()
        if figure is None:
            if self.chart is not None:
                self.chart.set_data([], [], "", "")
            return
        runs = self.device_runs()
        points = trend(runs, *figure)
        unit = self.figures_of(runs).get(".".join(figure), ("", ""))[1]
        stamps = {r.timestamp for r in selected}
        self.ensure_chart().set_data(
            [t for t, _ in points], [v for _, v in points], self.figure_combo.currentText(), unit,
            highlighted=[i for i, (t, _) in enumerate(points) if t in stamps])


# ================================================================== the page
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
        from gpuadvisor.settings import Settings

        self.setObjectName("probePage")
        self.setStyleSheet(_STYLE)
        self.state = state
        self.settings = settings if settings is not None else Settings()
        self._units = units
        self._presentation = False
        self._simulate = simulate
        self._preferred = python
        self._worker = os.fspath(worker) if worker is not None else str(runner.WORKER_SCRIPT)
        self._worker_args = tuple(worker_args)
        self._discover = discover or self._default_discover
        self._check = check or self._default_check
        self._telemetry = telemetry
        self._telemetry_spec = telemetry_spec
        self._telemetry_options = dict(telemetry_options or {})
        self._generation = 0
        self._closed = False
        self._shown_once = False
        self.interpreters: list[Interpreter] = []
        self.discovering = False
        self.last_run: runner.ProbeRun | None = None
        self.last_job: ProbeJob | None = None
        self.stored: list[history.StoredRun] = []
        self.versus: list = []
        self.comparison: plancheck.PlanCheckComparison | None = None
        self._plan_document = None
        self._progress_rows: dict[str, _ProgressRow] = {}
        self._result_widgets: list[QWidget] = []
        self.charts: dict[str, Any] = {}
        self._backend = None
        self._backend_gpus: list = []
        self._backend_state = "closed"  # closed, opening, open, none
        self._sampling = False
        self._sample_in_flight = False
        self._samples = 0
        self._run_samples: list[telemetry.TelemetrySample] = []
        self._run_started_s = 0.0
        self._limit_edited = False
        self._stop_reason: str | None = None

        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(2)
        self._relay = Relay(self)
        self._relay.done.connect(self._on_task_done)
        self.queue = ProbeQueue(self)
        self.queue.started.connect(self._on_job_started)
        self.queue.hello.connect(self._on_hello)
        self.queue.progress.connect(self._on_progress)
        self.queue.result.connect(self._on_result)
        self.queue.error.connect(self._on_error)
        self.queue.finished.connect(self._on_job_finished)
        # Owned by the page; runs only while a probe runs and the page is shown.
        self.sample_timer = QTimer(self)
        self.sample_timer.setInterval(SAMPLE_INTERVAL_MS)
        self.sample_timer.timeout.connect(self.tick)

        self._build()
        self._update_buttons()
        self.history.load()

    # ================================================================== layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)
        outer.addLayout(self._build_pickers())
        self.device_note = _note_label("", self)
        self.device_note.setObjectName("probeDeviceNote")
        outer.addWidget(self.device_note)
        self.torch_missing = _note_label("", self, role="")
        self.torch_missing.setObjectName("torchMissing")
        self.torch_missing.hide()
        outer.addWidget(self.torch_missing)
        outer.addLayout(self._build_actions())

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter, 1)
        top = QWidget(self.splitter)
        top_layout = QHBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self._build_run_box(top), 5)
        top_layout.addWidget(self._build_telemetry_box(top), 3)
        self.history = HistoryPanel(self.splitter)
        self.history.message.connect(self.status)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)

    def _build_pickers(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        self.title = QLabel(self.tr("Probe"), self)
        self.title.setProperty("role", "pageTitle")
        bar.addWidget(self.title)
        bar.addSpacing(16)
        bar.addWidget(QLabel(self.tr("Python:"), self))
        self.python_combo = QComboBox(self)
        self.python_combo.setObjectName("probePython")
        self.python_combo.setToolTip(self.tr(
            "The Python environment the probes run in: one with PyTorch, such as your "
            "training environment"))
        self.python_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.python_combo.setMinimumContentsLength(22)
        bar.addWidget(self.python_combo, 2)
        self.browse_button = QPushButton(self.tr("Browse…"), self)
        self.browse_button.setToolTip(self.tr("Choose a python executable with PyTorch"))
        bar.addWidget(self.browse_button)
        self.rescan_button = QPushButton(self.tr("Rescan"), self)
        self.rescan_button.setToolTip(self.tr("Look for Python environments again"))
        bar.addWidget(self.rescan_button)
        bar.addSpacing(12)
        bar.addWidget(QLabel(self.tr("Device:"), self))
        self.device_combo = QComboBox(self)
        self.device_combo.setObjectName("probeDevice")
        self.device_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_combo.setMinimumContentsLength(14)
        bar.addWidget(self.device_combo, 1)
        self.browse_button.clicked.connect(lambda: self.browse_python())
        self.rescan_button.clicked.connect(lambda: self.rescan())
        self.python_combo.activated.connect(self._on_python_picked)
        self.device_combo.currentIndexChanged.connect(self._on_device_changed)
        return bar

    def _build_actions(self) -> QHBoxLayout:
        actions = QHBoxLayout()
        self.quick_button = QPushButton(self.tr("Quick"), self)
        suite = ", ".join(probe_name(p) for p in runner.SUITE_PROBES)
        self.quick_button.setToolTip(self.tr("{probes}, at small sizes").format(probes=suite))
        self.full_button = QPushButton(self.tr("Full"), self)
        self.full_button.setToolTip(self.tr("{probes}, at larger sizes: minutes").format(
            probes=suite))
        actions.addWidget(self.quick_button)
        actions.addWidget(self.full_button)
        actions.addSpacing(18)
        self.burnin_button = QPushButton(self.tr("Burn-in"), self)
        self.burnin_button.setToolTip(self.tr(
            "Sustained load with every result checked: do clocks and throughput hold up as "
            "the GPU heats up, and are its results right?"))
        self.burnin_minutes = QSpinBox(self)
        self.burnin_minutes.setObjectName("burninMinutes")
        low, high, default = BURNIN_MINUTES
        self.burnin_minutes.setRange(low, high)
        self.burnin_minutes.setValue(default)
        self.burnin_minutes.setSuffix(self.tr(" min"))
        self.burnin_minutes.setToolTip(self.tr("How long the burn-in keeps the device busy"))
        self.temperature_limit = QSpinBox(self)
        self.temperature_limit.setObjectName("temperatureLimit")
        low, high, default = TEMPERATURE_LIMIT_C
        self.temperature_limit.setRange(low, high)
        self.temperature_limit.setValue(default)
        self.temperature_limit.setSuffix(" °C")
        self.temperature_limit.setToolTip(self.tr(
            "The burn-in is asked to stop when the GPU reaches this temperature"))
        actions.addWidget(self.burnin_button)
        actions.addWidget(self.burnin_minutes)
        actions.addWidget(QLabel(self.tr("stop at"), self))
        actions.addWidget(self.temperature_limit)
        actions.addSpacing(18)
        self.plancheck_button = QPushButton(self.tr("Plan check"), self)
        self.plancheck_button.setToolTip(self.tr(
            "Build the Plan page's model at depths 1 and 2, train a few steps at the plan's "
            "batch and sequence length, and compare memory and time with the estimate"))
        actions.addWidget(self.plancheck_button)
        self.dataread_button = QPushButton(self.tr("Dataset disk…"), self)
        self.dataread_button.setToolTip(self.tr(
            "Pick your dataset folder: how fast it reads, and whether that keeps up with the "
            "tokens per second the plan trains at"))
        actions.addWidget(self.dataread_button)
        actions.addStretch(1)
        self.stop_button = QPushButton(self.tr("Stop"), self)
        self.stop_button.setToolTip(self.tr("End the burn-in early and keep what it measured"))
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setToolTip(self.tr("Stop the probe now; nothing is saved"))
        actions.addWidget(self.stop_button)
        actions.addWidget(self.cancel_button)
        self.quick_button.clicked.connect(lambda: self.run_quick())
        self.full_button.clicked.connect(lambda: self.run_full())
        self.burnin_button.clicked.connect(lambda: self.run_burnin())
        self.plancheck_button.clicked.connect(lambda: self.run_plancheck())
        self.dataread_button.clicked.connect(lambda: self.run_dataread())
        self.stop_button.clicked.connect(lambda: self.stop())
        self.cancel_button.clicked.connect(lambda: self.cancel())
        self.temperature_limit.valueChanged.connect(self._on_limit_edited)
        return actions

    def _build_run_box(self, parent: QWidget) -> QGroupBox:
        self.run_box = QGroupBox(self.tr("Run"), parent)
        layout = QVBoxLayout(self.run_box)
        self.run_status = _note_label(self.tr(
            "Quick runs the standard probes at small sizes ({probes}); Full runs them at "
            "larger sizes. Each figure is set against the catalog's value for the card and "
            "kept in the history below.").format(
            probes=", ".join(probe_name(p).lower() for p in runner.SUITE_PROBES)),
            self.run_box, role="")
        self.run_status.setObjectName("runStatus")
        layout.addWidget(self.run_status)
        self._progress_grid = QGridLayout()
        self._progress_grid.setColumnStretch(2, 1)
        self._progress_grid.setHorizontalSpacing(10)
        layout.addLayout(self._progress_grid)
        self.errors_label = _note_label("", self.run_box, role="")
        self.errors_label.setObjectName("runErrors")
        _set_severity(self.errors_label, "error")
        self.errors_label.hide()
        layout.addWidget(self.errors_label)
        self.results_scroll = QScrollArea(self.run_box)
        self.results_scroll.setWidgetResizable(True)
        self.results_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.results_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        results = QWidget()
        results.setObjectName("probeResults")
        self._results_layout = QVBoxLayout(results)
        self._results_layout.setContentsMargins(0, 0, 4, 0)
        self._results_layout.addStretch(1)
        self.results_scroll.setWidget(results)
        layout.addWidget(self.results_scroll, 1)
        return self.run_box

    def _build_telemetry_box(self, parent: QWidget) -> QGroupBox:
        self.telemetry_box = QGroupBox(self.tr("Live readings"), parent)
        layout = QVBoxLayout(self.telemetry_box)
        self.telemetry_title = QLabel(self.telemetry_box)
        self.telemetry_title.setProperty("role", "chartTitle")
        self.telemetry_title.setWordWrap(True)
        self.telemetry_title.hide()
        layout.addWidget(self.telemetry_title)
        self.telemetry_note = _note_label(self.tr("Readings appear while a probe runs."),
                                          self.telemetry_box)
        self.telemetry_note.setObjectName("telemetryNote")
        layout.addWidget(self.telemetry_note)
        self._telemetry_area = QWidget(self.telemetry_box)
        self._telemetry_area.setSizePolicy(QSizePolicy.Policy.Expanding,
                                           QSizePolicy.Policy.Expanding)
        self._telemetry_chart_box = QVBoxLayout(self._telemetry_area)
        self._telemetry_chart_box.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._telemetry_area, 1)
        self.live_chart = None
        return self.telemetry_box

    def _ensure_live_chart(self):
        if self.live_chart is None:
            from gpuadvisor.gui.charts.live import LiveGpuChart  # pyqtgraph: on first use

            self.live_chart = LiveGpuChart(self._telemetry_area)
            self.live_chart.setObjectName("probeLiveChart")
            self.live_chart.setMinimumHeight(150)
            self.live_chart.set_presentation(self._presentation)
            self._telemetry_chart_box.addWidget(self.live_chart)
        return self.live_chart

    # ================================================================== interpreters
    def _default_discover(self, preferred: str | None) -> list[Interpreter]:
        worker, args = self._worker, self._worker_args
        return discover_interpreters(
            preferred, worker=worker,
            check=lambda p: check_python(p, worker=worker, extra_args=args))

    def _default_check(self, python: str) -> Interpreter:
        return check_python(python, worker=self._worker, extra_args=self._worker_args)

    def rescan(self) -> int:
        """Look for interpreters again in the background; returns the new generation."""
        if self._closed:
            return self._generation
        self._generation += 1
        self.discovering = True
        self.python_combo.clear()
        self.python_combo.addItem(self.tr("Looking for Python environments with PyTorch…"))
        self.device_combo.clear()
        self.torch_missing.hide()
        self._update_buttons()
        preferred = self._preferred or self.settings.probe_python
        discover = self._discover
        self._start_task("discover", lambda: discover(preferred))
        return self._generation

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
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a Python interpreter"),
                                              str(Path(start).parent))
        return path or None

    def use_python(self, path: str) -> None:
        """Check ``path`` in the background; it joins the picker and is selected."""
        self._preferred = path
        self.python_combo.setEnabled(False)
        self.status.emit(self.tr("Checking {python}…").format(python=path))
        check = self._check
        self._start_task("check", lambda: check(path))

    def current_python(self) -> str | None:
        """The interpreter picked (None while none)."""
        found = self.current_interpreter()
        return found.python if found is not None else None

    def current_interpreter(self) -> Interpreter | None:
        data = self.python_combo.currentData()
        return data if isinstance(data, Interpreter) else None

    def current_device(self) -> dict | None:
        """The device picked (a ``hello`` device: ``id``, ``name``, ``type``...), or None."""
        data = self.device_combo.currentData()
        return data if isinstance(data, dict) else None

    def _interpreter_text(self, found: Interpreter) -> str:
        info = found.info
        if info.error is not None and info.torch is None and info.python_version is None:
            state = self.tr("does not work: {error}").format(error=info.error.splitlines()[0])
        elif info.torch is None:
            state = self.tr("no PyTorch")
        elif info.accelerators:
            state = self.tr("PyTorch {version}, {accelerators}").format(
                version=info.torch, accelerators=", ".join(info.accelerators))
        else:
            state = self.tr("PyTorch {version}, CPU only").format(version=info.torch)
        return f"{info.python} — {state}"

    def _fill_pythons(self, found: list[Interpreter], select: str | None = None) -> None:
        self.interpreters = list(found)
        combo = self.python_combo
        with QSignalBlocker(combo):
            combo.clear()
            for item in self.interpreters:
                combo.addItem(self._interpreter_text(item), item)
                combo.setItemData(combo.count() - 1, item.python, Qt.ItemDataRole.ToolTipRole)
            if not self.interpreters:
                combo.addItem(self.tr("No Python environment found"))
            wanted = select or self._preferred or self.settings.probe_python
            usable = [i for i in self.interpreters if i.usable]
            chosen = next((i for i in self.interpreters if wanted and _same(i.python, wanted)
                           and (i.usable or select)), None)
            chosen = chosen or next((i for i in usable if i.info.accelerators),
                                    usable[0] if usable else None)
            combo.setCurrentIndex(self.interpreters.index(chosen) if chosen else 0)
        view = combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 24)
        self._fill_devices()

    def _on_python_picked(self, _index: int) -> None:
        found = self.current_interpreter()
        if found is not None and found.usable:
            # Remembered like ``gpuadvisor probe --python``; the window saves the settings.
            self.settings.probe_python = os.path.abspath(found.python)
        self._fill_devices()

    def _fill_devices(self) -> None:
        found = self.current_interpreter()
        combo = self.device_combo
        with QSignalBlocker(combo):
            combo.clear()
            for device in (found.devices if found is not None else ()):
                combo.addItem(self._device_text(device), dict(device))
        self._on_device_changed()
        self._show_torch_state()

    def _device_text(self, device: Mapping) -> str:
        memory = device.get("memory_total_bytes")
        size = (f", {format_bytes(memory, self._units)}"
                if isinstance(memory, int | float) and memory > 0 else "")
        return f"{device.get('id')} — {device.get('name', '?')}{size}"

    def _on_device_changed(self, _index: int = 0) -> None:
        device = self.current_device()
        found = self.current_interpreter()
        if device is None:
            # Without PyTorch the banner below says what to do; nothing to add here.
            self.device_note.setText("" if found is None or not found.usable
                                     or self.discovering else self.tr(
                                         "No device to measure with this Python."))
        else:
            note = self.tr("Measures {device} on this machine, with PyTorch {torch}.").format(
                device=f"{device.get('id')} ({device.get('name', '?')})",
                torch=found.info.torch if found is not None else "?")
            if _is_cpu(device) and found is not None and len(found.devices) == 1:
                note += " " + self.tr("No GPU is visible to PyTorch here, so the CPU is "
                                      "measured.")
            if self._simulate:
                note += " " + self.tr(
                    "The Rig page shows the demo rig “{spec}”; probes always measure this "
                    "machine's real devices.").format(spec=self._simulate)
            self.device_note.setText(note)
            self.history.select_device(history.device_key(dict(device)))
        self._default_temperature_limit()
        self._update_buttons()

    def _show_torch_state(self) -> None:
        if self.discovering:
            self.torch_missing.hide()
            return
        found = self.current_interpreter()
        if any(i.usable for i in self.interpreters):
            if found is not None and not found.usable:
                self._show_torch_missing(self.tr(
                    "{python} has no PyTorch. Pick another Python above, or install PyTorch "
                    "there: {python} -m pip install torch").format(python=found.python))
            else:
                self.torch_missing.hide()
            return
        self._show_torch_missing(self._no_torch_text())

    def _no_torch_text(self) -> str:
        return self.tr(
            "No Python environment with PyTorch was found, so nothing can be measured yet. "
            "Install PyTorch in an environment (python -m pip install torch, or use your "
            "training environment), then choose its python with Browse… or press Rescan. "
            "gpuadvisor itself never loads PyTorch: the probes run in that environment.")

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
            self._set_run_status(self.tr("This plan cannot be checked here: {error}").format(
                error=exc), "error")
            return False
        job = self._job("plancheck", [p for p in plancheck.PLAN_PROBES if p in options],
                        options=options)
        if job is not None:
            self._plan_document = document
        return self._submit(job)

    def ask_data_folder(self) -> str | None:
        """Ask for the dataset folder (tests replace this)."""
        path = QFileDialog.getExistingDirectory(self, self.tr("Choose your dataset folder"),
                                                str(Path.home()))
        return path or None

    def run_dataread(self, folder: str | None = None) -> bool:
        """Measure how fast ``folder`` (asked for when None) reads, against the plan."""
        folder = folder or self.ask_data_folder()
        if not folder:
            return False
        if not Path(folder).is_dir():
            self._set_run_status(self.tr("Not a folder: {path}").format(path=folder), "error")
            return False
        return self._submit(self._job("dataread", ("dataread",),
                                      options={"dataread": {"path": str(folder)}}))

    def _show_dataread(self, result: Result, body: QWidget) -> None:
        """The disk against the tokens per second the plan trains at."""
        from gpuadvisor.probes.pipeline import BYTES_PER_TOKEN, data_read_verdict

        rate = result.figures.get("read_mb_s")
        tokens_per_s = float(self.state.estimate.time.tokens_per_s)
        if not rate or not tokens_per_s > 0:
            return
        cache = result.conditions.get("cache")
        cached = bool(cache.get("likely_cached")) if isinstance(cache, dict) else False
        verdict = data_read_verdict(rate, tokens_per_s, BYTES_PER_TOKEN["uint16"],
                                    likely_cached=cached)
        if verdict.bottleneck:
            text = self.tr("The dataset disk reads {rate} MB/s; the plan needs {need} MB/s "
                           "({tokens} tokens/s as 2-byte token ids): the GPU will wait on "
                           "the disk. Pre-tokenize, cache the data in RAM, or use a faster "
                           "disk.")
        else:
            text = self.tr("The dataset disk reads {rate} MB/s; the plan needs {need} MB/s "
                           "({tokens} tokens/s as 2-byte token ids): not a bottleneck "
                           "({headroom:.0f}x headroom).")
        text = text.format(rate=_number(rate), need=_number(verdict.needed_mb_s),
                           tokens=f"{tokens_per_s:,.0f}", headroom=verdict.headroom)
        if cached:
            text += " " + self.tr("The read was probably served from RAM (page cache): the "
                                  "disk itself may be slower.")
        label = self._add_result(_note_label(text, body, role=""))
        _set_severity(label, "error" if verdict.bottleneck else "ok")

    def stop(self) -> bool:
        """Ask the running probe to end early and keep what it measured (burn-in)."""
        if not self.queue.stop():
            return False
        self._stop_reason = self._stop_reason or self.tr("stopped early by you")
        self._set_run_status(self.tr("Stopping: the probe ends its current step and reports "
                                     "what it measured…"))
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
        ready = (found is not None and found.usable and not busy and not self.discovering
                 and not self._closed)
        for button in (self.quick_button, self.full_button, self.burnin_button,
                       self.plancheck_button, self.dataread_button):
            button.setEnabled(ready)
        job = self.queue.current
        self.cancel_button.setEnabled(job is not None)
        self.stop_button.setEnabled(job is not None and job.kind == "burnin"
                                    and self._stop_reason is None)
        idle = not busy and not self._closed
        for widget in (self.python_combo, self.browse_button, self.rescan_button):
            widget.setEnabled(idle)
        self.device_combo.setEnabled(idle and self.device_combo.count() > 0)

    def _set_run_status(self, text: str, severity: str = "") -> None:
        self.run_status.setText(text)
        _set_severity(self.run_status, severity)
        self.status.emit(text)

    def _on_job_started(self, job: ProbeJob) -> None:
        self.last_job = job
        self._stop_reason = None
        for row in self._progress_rows.values():
            for widget in row.widgets:
                self._progress_grid.removeWidget(widget)
                widget.hide()  # gone from view now; deleted when the event loop gets to it
                widget.deleteLater()
        self._progress_rows = {}
        for index, probe in enumerate(job.probes):
            row = _ProgressRow(self._progress_grid, index, probe, self.run_box)
            row.set_message(self.tr("waiting"))
            self._progress_rows[probe] = row
        self.errors_label.hide()
        self.errors_label.clear()
        self._clear_results()
        kind = {"quick": self.tr("quick probes"), "full": self.tr("full probes"),
                "burnin": self.tr("burn-in"), "plancheck": self.tr("plan check")}.get(
            job.kind, job.kind)
        device = self.current_device()
        where = f"{device.get('id')} ({device.get('name', '?')})" if device else "auto"
        self._set_run_status(self.tr("Running {kind} on {device}…").format(kind=kind,
                                                                          device=where))
        self._update_buttons()
        self._start_telemetry()

    def _on_hello(self, hello: Hello) -> None:
        if hello.torch is None:
            self._show_torch_missing(self._no_torch_text())

    def _on_progress(self, probe: str, fraction: float, message: str) -> None:
        row = self._progress_rows.get(probe)
        if row is not None:
            row.bar.setValue(round(1000 * fraction))
            row.set_message(message)

    def _on_result(self, result: Result) -> None:
        row = self._progress_rows.get(result.probe)
        if row is not None:
            row.bar.setValue(1000)
            row.set_message(self.tr("done"), "ok")

    def _on_error(self, error: Error) -> None:
        row = self._progress_rows.get(error.probe or "")
        if row is not None:
            row.set_message(self.tr("{kind}: {message}").format(kind=error.kind,
                                                               message=error.message), "error")

    def _on_job_finished(self, job: ProbeJob, run: runner.ProbeRun) -> None:
        self.last_run = run
        self._stop_telemetry()
        if self._closed:
            return
        if run.status == "cancelled":
            self._set_run_status(self.tr("Cancelled after {seconds:.1f} s; nothing was "
                                         "saved.").format(seconds=run.duration_s), "warning")
        elif run.status == "ok":
            text = self.tr("Finished in {seconds:.1f} s.").format(seconds=run.duration_s)
            if self._stop_reason:
                text += " " + self.tr("Ended early: {reason}.").format(reason=self._stop_reason)
            self._set_run_status(text, "ok")
        else:
            self._set_run_status(self.tr("Finished with problems after {seconds:.1f} s (see "
                                         "below).").format(seconds=run.duration_s), "error")
        errors = [e for e in run.errors if e.kind != "cancelled"]
        if errors:
            self.errors_label.setText("\n".join(
                self.tr("{probe}: {kind} — {message}").format(
                    probe=probe_name(e.probe), kind=e.kind, message=e.message) for e in errors))
            self.errors_label.show()
        for probe, row in self._progress_rows.items():
            answered = run.result(probe) is not None or any(e.probe == probe for e in errors)
            if not answered:
                row.set_message(self.tr("cancelled") if run.status == "cancelled"
                                else self.tr("no result"), "warning")
        if run.torch_missing:
            self._show_torch_missing(self._no_torch_text())
        saved = self._record(run) if run.status != "cancelled" and run.results else []
        self._show_results(job, run, saved)
        self._update_buttons()
        self.run_finished.emit(run)

    def _record(self, run: runner.ProbeRun) -> list[Path]:
        """Save the results; a problem is shown, and the results stay on screen."""
        warnings: list[str] = []
        try:
            saved = history.record(run, warnings=warnings)
        except (OSError, ValueError) as exc:
            self.history.show_problem(self.tr(
                "The results are shown but could not be saved to the probe history: "
                "{error}").format(error=exc))
            return []
        if warnings:
            self.history.show_problem("\n".join(warnings))
        stored = history.stored_runs_of(run)
        self.history.load(select_key=stored[0].device_key if stored else None)
        return saved

    # ================================================================== results
    def _clear_results(self) -> None:
        for widget in self._result_widgets:
            self._results_layout.removeWidget(widget)
            widget.hide()
            widget.deleteLater()
        self._result_widgets = []
        self.charts = {}
        self.versus = []
        self.stored = []
        self.comparison = None

    def _add_result(self, widget: QWidget) -> QWidget:
        self._result_widgets.append(widget)
        # Before the trailing stretch: results stack at the top.
        self._results_layout.insertWidget(self._results_layout.count() - 1, widget)
        return widget

    def _show_results(self, job: ProbeJob, run: runner.ProbeRun, saved: list[Path]) -> None:
        self._clear_results()
        body = self.results_scroll.widget()
        summary = self._telemetry_summary_text()
        if summary:
            self._add_result(_note_label(summary, body))
        if not run.results:
            return
        self.stored = history.stored_runs_of(run)
        for stored in self.stored:
            gpu = self.state.gpus.get(stored.catalog_id) if stored.catalog_id else None
            where = self.tr("Measured on {device} ({name}) with PyTorch {torch}").format(
                device=stored.device_id, name=stored.device_name,
                torch=stored.versions.get("torch") or "?")
            where += " · " + (self.tr("catalog: {gpu}").format(gpu=gpu.name) if gpu else
                              self.tr("no catalog peaks for this device"))
            if saved:
                where += " · " + self.tr("saved to the history")
            self._add_result(_note_label(where, body))
            rows = [r for r in versus_catalog(stored, gpu) if r.probe not in ("step",)
                    or job.kind != "plancheck"]
            self.versus.extend(rows)
            self._add_versus_charts(rows, body)
        burnin = run.result("burnin")
        if burnin is not None:
            self._show_burnin(burnin, body)
        dataread = run.result("dataread")
        if dataread is not None:
            self._show_dataread(dataread, body)
        if run.result("plancheck") is not None:
            self._show_plancheck(run, body)

    def _add_versus_charts(self, rows: Sequence, body: QWidget) -> None:
        from gpuadvisor.gui.charts.probe_charts import VersusChart  # pyqtgraph: late

        by_unit: dict[str, list] = {}
        for row in rows:
            by_unit.setdefault(row.unit, []).append(row)
        for unit, unit_rows in by_unit.items():
            title = translate(_CONTEXT, UNIT_TITLES[unit]) if unit in UNIT_TITLES else unit
            label = QLabel(title, body)
            label.setProperty("role", "chartTitle")
            self._add_result(label)
            chart = VersusChart(body)
            chart.setObjectName(f"versusChart-{unit}")
            chart.set_presentation(self._presentation)
            chart.set_data(unit_rows, unit)
            chart.setFixedHeight(chart.preferred_height())
            self.charts[unit] = chart
            self._add_result(chart)

    def _show_burnin(self, result: Result, body: QWidget) -> None:
        figures, conditions = result.figures, result.conditions
        verdict = str(conditions.get("verdict") or "")
        wrong = figures.get("mismatches", 0) > 0
        text = self.tr("Burn-in: {verdict}. Throughput {first} → {last} TFLOPS from the first "
                       "window to the last ({slowdown:+.1f}%); ended by {why}.").format(
            verdict=verdict, first=_number(figures.get("tflops_first_window")),
            last=_number(figures.get("tflops_last_window")),
            slowdown=-float(figures.get("slowdown_pct", 0.0)),
            why=conditions.get("stopped_by", "?"))
        label = self._add_result(_note_label(text, body, role=""))
        _set_severity(label, "error" if wrong else "ok")

    def _show_plancheck(self, run: runner.ProbeRun, body: QWidget) -> None:
        """Measured vs estimated for the plan check (and the step probe at its shape)."""
        document = self._plan_document
        title = QLabel(self.tr("Plan check: measured vs estimated"), body)
        title.setProperty("role", "chartTitle")
        self._add_result(title)
        try:
            comparison = plancheck.compare(run, plancheck.estimate_for(document, run))
        except (ValueError, KeyError, TypeError) as exc:
            note = self._add_result(_note_label(self.tr(
                "Could not compare with the estimate: {error}").format(error=exc), body))
            _set_severity(note, "warning")
            return
        self.comparison = comparison
        self._add_result(_note_label(self.tr("{model} — {plan}; estimate for {gpu}").format(
            model=comparison.model_name, plan=comparison.plan_text,
            gpu=comparison.estimate_gpu_id), body))
        table = _table(4, body, "plancheckTable")
        table.setHorizontalHeaderLabels([self.tr("Figure"), self.tr("Measured"),
                                         self.tr("Estimated"), self.tr("Difference")])
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        rows = [[row.label, self._plan_value(row.unit, row.measured),
                 self._plan_value(row.unit, row.estimated),
                 "" if row.diff_pct is None else f"{row.diff_pct:+.0f}%"]
                for row in comparison.rows]
        _fill_table(table, rows)
        table.setFixedHeight(table.horizontalHeader().height() + 4
                             + sum(table.rowHeight(r) for r in range(len(rows))))
        self._add_result(table)
        self._add_result(_note_label(comparison.summary, body, role="subheading"))
        if comparison.notes:
            self._add_result(_note_label("\n".join(f"• {n}" for n in comparison.notes), body))

    def _plan_value(self, unit: str, value: float | None) -> str:
        if value is None:
            return ""
        if unit == "bytes":
            return format_bytes(value, self._units, 2)
        if unit == "s":
            return f"{value:.3g} s" if value < 90 else format_duration(value)
        if unit == "tokens/s":
            return f"{value:,.0f} {unit}"
        return f"{value:.3g} {unit}"

    # ================================================================== telemetry
    def _open_backend(self) -> None:
        if not self._telemetry or self._closed or self._backend_state != "closed":
            return
        self._backend_state = "opening"
        spec, options = self._telemetry_spec, self._telemetry_options

        def open_it():
            from gpuadvisor.hardware import open_backend

            backend, hints = open_backend(spec, **options)
            try:
                gpus = backend.devices() if backend is not None else []
            except Exception:
                backend.close()
                raise
            return backend, hints, gpus

        self._start_task("backend", open_it)

    def _start_telemetry(self) -> None:
        self._run_samples = []
        self._run_started_s = self._samples * SAMPLE_INTERVAL_MS / 1000
        if not self._telemetry or self._closed:
            return
        self._open_backend()
        self._sampling = True
        self._update_timer()
        if self._backend is not None:
            self.tick()

    def _stop_telemetry(self) -> None:
        self._sampling = False
        self.sample_timer.stop()

    def _update_timer(self) -> None:
        if (self._sampling and self.isVisible() and self._backend is not None
                and not self._closed):
            if not self.sample_timer.isActive():
                self.sample_timer.start()
        else:
            self.sample_timer.stop()

    def tick(self) -> bool:
        """Take one live reading in the background (the timer's slot); False when one is
        already in flight or there is nothing to read."""
        backend = self._backend
        if backend is None or self._closed or self._sample_in_flight:
            return False
        self._sample_in_flight = True

        def sample():
            backend.refresh()
            return backend.devices()

        self._start_task("sample", sample)
        return True

    def telemetry_gpu(self, gpus):
        """The backend's card that is the device being measured (None for the CPU, or when
        it cannot be told; see :func:`gpuadvisor.probes.telemetry.match_gpu_index`)."""
        device = self.current_device()
        if device is None or _is_cpu(device):
            return None
        index, _how = telemetry.match_gpu_index(gpus, device)
        return next((g for g in gpus if g.index == index), None)

    def _default_temperature_limit(self) -> None:
        # The card's own threshold decides the default, until the user sets one.
        gpu = self.telemetry_gpu(self._backend_gpus) if self._backend_gpus else None
        if gpu is not None and not self._limit_edited:
            with QSignalBlocker(self.temperature_limit):
                self.temperature_limit.setValue(round(telemetry.default_temp_limit_c(gpu)))

    def _on_limit_edited(self, _value: int) -> None:
        self._limit_edited = True

    def _on_sample(self, gpus) -> None:
        self._backend_gpus = list(gpus)
        gpu = self.telemetry_gpu(gpus)
        device = self.current_device() or {}
        if gpu is None:
            self.telemetry_note.setText(
                self.tr("The CPU is being measured: there are no GPU readings to show.")
                if _is_cpu(device) else
                self.tr("No live readings: the GPU being measured was not found among "
                        "{n} GPU(s) the driver reports.").format(n=len(gpus)))
            return
        self._samples += 1
        t_s = self._samples * SAMPLE_INTERVAL_MS / 1000
        self._ensure_live_chart().add_sample(t_s, gpu)
        if self._sampling:
            self._run_samples.append(telemetry.TelemetrySample.of(gpu, t_s))
        self.telemetry_title.setText(self.tr("GPU {index}: {name}").format(index=gpu.index,
                                                                          name=gpu.name))
        self.telemetry_title.show()
        self.telemetry_note.setText(self.tr(
            "Temperature, SM clock, power and utilization, each as a % of its limit; hover "
            "for the readings."))
        self._check_temperature(gpu)
        self.sampled.emit()

    def _check_temperature(self, gpu) -> None:
        job = self.queue.current
        limit = self.temperature_limit.value()
        if (job is None or job.kind != "burnin" or gpu.temperature_c is None
                or gpu.temperature_c < limit or self._stop_reason is not None):
            return
        self._stop_reason = self.tr("{gpu} reached {temp:.0f} °C (limit {limit} °C)").format(
            gpu=gpu.name, temp=gpu.temperature_c, limit=limit)
        if self.queue.stop():
            self._set_run_status(self.tr("Temperature limit reached: {reason}; the burn-in "
                                         "was asked to stop…").format(reason=self._stop_reason),
                                 "warning")
        self._update_buttons()

    def _telemetry_summary_text(self) -> str:
        samples = self._run_samples
        if not samples:
            return ""
        s = telemetry.summarize(samples)
        parts = []
        if s.temperature_max_c is not None:
            parts.append(self.tr("up to {temp:.0f} °C").format(temp=s.temperature_max_c))
        if s.sm_clock_min_mhz is not None:
            parts.append(self.tr("SM clock {low}–{high} MHz").format(
                low=s.sm_clock_min_mhz, high=s.sm_clock_max_mhz))
        if s.power_max_w is not None:
            parts.append(self.tr("up to {watts:.0f} W").format(watts=s.power_max_w))
        if s.throttle_reasons:
            parts.append(self.tr("clocks held down: {reasons}").format(reasons=", ".join(
                f"{reason} ({100 * share:.0f}%)" for reason, share in
                s.throttle_reasons.items())))
        if not parts:
            return ""
        return self.tr("Live readings during the run ({n}): {readings}.").format(
            n=s.sample_count, readings=" · ".join(parts))

    # ================================================================== background plumbing
    def _start_task(self, kind: str, fn: Callable[[], object]) -> None:
        self._pool.start(Job(self._relay, self._generation, kind, fn))

    def _on_task_done(self, generation: int, kind: str, result, error) -> None:
        if kind == "backend":
            self._on_backend(result, error)
        elif kind == "sample":
            self._sample_in_flight = False
            if self._closed:
                return
            if error is not None:
                self.telemetry_note.setText(self.tr("Live reading failed: {error}").format(
                    error=error))
            else:
                self._on_sample(result)
        elif self._closed:
            return
        elif kind == "discover":
            if generation != self._generation:
                return  # a newer scan is on its way
            self.discovering = False
            if error is not None:
                self._fill_pythons([])
                self._show_torch_missing(self.tr("Looking for Python environments failed: "
                                                 "{error}").format(error=error))
            else:
                self._fill_pythons(result)
            self._update_buttons()
            self.interpreters_ready.emit()
        elif kind == "check":
            if error is not None:
                self._update_buttons()
                self.status.emit(str(error))
                return
            found = [i for i in self.interpreters if not _same(i.python, result.python)]
            self._fill_pythons([result, *found], select=result.python)
            if result.usable:
                self.settings.probe_python = os.path.abspath(result.python)
            self.status.emit(self._interpreter_text(result))
            self._update_buttons()
            self.interpreters_ready.emit()

    def _on_backend(self, result, error) -> None:
        if self._closed:
            if result is not None and result[0] is not None:
                result[0].close()
            return
        if error is not None:
            self._backend_state = "none"
            self.telemetry_note.setText(self.tr("No live readings: {error}").format(error=error))
            self.telemetry_box.setMaximumWidth(self.fontMetrics().horizontalAdvance("x") * 50)
            return
        backend, hints, gpus = result
        if backend is None:
            self._backend_state = "none"
            hint = hints[0] if hints else self.tr("no GPU sensors were found")
            self.telemetry_note.setText(self.tr("No live readings on this machine: "
                                                "{hint}").format(hint=hint))
            # Nothing to plot: the room goes to the results.
            self.telemetry_box.setMaximumWidth(self.fontMetrics().horizontalAdvance("x") * 50)
            return
        self._backend = backend
        self._backend_gpus = list(gpus)
        self._backend_state = "open"
        self._default_temperature_limit()
        self._update_timer()
        if self._sampling:
            self.tick()

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Block until background tasks end and deliver their results (screenshots, tests)."""
        done = self._pool.waitForDone(timeout_ms)
        QCoreApplication.sendPostedEvents(self._relay)
        QCoreApplication.processEvents()
        return done

    # ================================================================== page API
    @property
    def units(self) -> str:
        return self._units

    def set_units(self, units: str) -> None:
        self._units = units
        for i in range(self.device_combo.count()):
            device = self.device_combo.itemData(i)
            if isinstance(device, dict):
                self.device_combo.setItemText(i, self._device_text(device))

    def set_presentation(self, enabled: bool) -> None:
        self._presentation = enabled
        for chart in self.charts.values():
            chart.set_presentation(enabled)
            chart.setFixedHeight(chart.preferred_height())
        if self.live_chart is not None:
            self.live_chart.set_presentation(enabled)
        self.history.set_presentation(enabled)

    def text(self) -> str:
        """Everything the page says about the run (tests, clipboard)."""
        parts = [self.device_note.text(),
                 self.torch_missing.text() if not self.torch_missing.isHidden() else "",
                 self.run_status.text()]
        parts += [f"{row.name.text()}: {row.message.text()}"
                  for row in self._progress_rows.values()]
        parts.append(self.errors_label.text() if not self.errors_label.isHidden() else "")
        parts += [w.text() for w in self._result_widgets if isinstance(w, QLabel)]
        return "\n".join(p for p in parts if p)

    def flush(self) -> None:
        """Finish the interpreter scan and pending readings now (screenshots)."""
        if not self._shown_once and not self._closed:
            self._shown_once = True
            self.rescan()
            self._open_backend()
        self.wait()

    def shutdown(self) -> None:
        """Cancel the run, stop the timer, wait for the tasks, close the backend (closing)."""
        if self._closed:
            return
        self._closed = True
        self.sample_timer.stop()
        self.queue.shutdown()
        self._pool.waitForDone()
        QCoreApplication.sendPostedEvents(self._relay)  # a backend opened meanwhile is closed
        if self._backend is not None:
            self._backend.close()
            self._backend = None

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once and not self._closed:
            self._shown_once = True
            self.rescan()
            self._open_backend()
            total = sum(self.splitter.sizes())
            if total > 0:  # a little more than half to the run, the rest to the history
                self.splitter.setSizes([round(0.56 * total), total - round(0.56 * total)])
        self._update_timer()

    def hideEvent(self, event) -> None:
        # Not shown, not sampled: NVML queries cost the GPU's driver time too.
        self.sample_timer.stop()
        super().hideEvent(event)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


def _is_cpu(device: Mapping) -> bool:
    return device.get("type") == "cpu" or device.get("id") == "cpu"


__all__ = ["HistoryPanel", "ProbePage", "figure_label", "probe_name"]
