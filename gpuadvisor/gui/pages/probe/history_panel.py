"""The Probe page's history: past runs of one device, one figure over time, and two runs
side by side.

Reads :func:`gpuadvisor.probes.history.runs` (small files, read on the GUI thread); a history
file that cannot be read is moved aside by the history module and reported here as a
message, never raised.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.probes import history
from gpuadvisor.probes.compare import diff_runs, trend

from .format import figure_label, local_time, measured_probes, number
from .widgets import fill_table, make_table, note_label, set_severity

#: The figure names and probe names for people, in the app's language.
_tr = QCoreApplication.translate

#: The figure the history shows first: the first of these the device has.
PREFERRED_FIGURES = ("matmul.bf16_median_tflops", "matmul.fp16_median_tflops",
                     "matmul.fp32_median_tflops", "bandwidth.copy_gb_s")


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
        hint = note_label(self.tr("Select two runs to compare them."), self)
        hint.setWordWrap(False)
        head.addWidget(hint)
        head.addStretch(1)
        layout.addLayout(head)
        self.problem = note_label("", self, role="")
        self.problem.setObjectName("historyMessage")
        set_severity(self.problem, "warning")
        self.problem.hide()
        layout.addWidget(self.problem)
        self.empty = note_label(self.tr(
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
        self.table = make_table(4, self.body, "historyTable")
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        left.addWidget(self.table, 1)
        self.compare_label = QLabel(self.body)
        self.compare_label.setProperty("role", "subheading")
        self.compare_table = make_table(4, self.body, "compareTable")
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
                    found.setdefault(f"{probe}.{name}", (figure_label(probe, name, _tr),
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
            # The figure is named in the picker above: its column says "Value (unit)", so
            # the numbers stay in view on a projector.
            unit = self.figures_of(runs).get(".".join(figure), ("", ""))[1] if figure else ""
            table.setHorizontalHeaderLabels([
                self.tr("When"), self.tr("Probes"),
                self.tr("Value ({unit})").format(unit=unit) if unit else self.tr("Value"),
                self.tr("PyTorch")])
            rows = []
            for run in runs:
                value = run.figure(*figure) if figure else None
                rows.append([local_time(run.timestamp), measured_probes(run.results, _tr),
                             "" if value is None else f"{value:g}",
                             str(run.versions.get("torch") or "")])
            fill_table(table, rows, right_from=2)
            for r in range(len(rows)):  # only the figure is a number
                table.item(r, 3).setTextAlignment(Qt.AlignmentFlag.AlignLeft
                                                  | Qt.AlignmentFlag.AlignVCenter)
        table.resizeColumnsToContents()
        # The probes' names are the longest cells: they give way (cut at their end, the
        # full text in the cell's tooltip) before the value does.
        widest = max(120, table.viewport().width() // 3)
        if table.columnWidth(1) > widest:
            table.setColumnWidth(1, widest)
        for r in range(table.rowCount()):
            item = table.item(r, 1)
            if item is not None:
                item.setToolTip(item.text())
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
                older=local_time(older.timestamp), newer=local_time(newer.timestamp)))
            lines = []
            for diff in diff_runs(older, newer):
                change = "" if diff.change_pct is None else f"{diff.change_pct:+.1f}%"
                lines.append([f"{figure_label(diff.probe, diff.figure, _tr)} ({diff.unit})",
                              number(diff.a), number(diff.b), change])
            fill_table(self.compare_table, lines)
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


__all__ = ["PREFERRED_FIGURES", "HistoryPanel"]
