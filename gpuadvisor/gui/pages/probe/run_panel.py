"""The Probe page's Run box: what runs or ran, one progress row per probe, the errors, and
the results below them (:class:`~.results.ResultsView`)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QGroupBox, QVBoxLayout, QWidget

from gpuadvisor.gui.probe_jobs import ProbeJob
from gpuadvisor.probes import runner
from gpuadvisor.probes.protocol import Error, Result

from . import format as fmt
from .results import ResultsView
from .widgets import ProgressRow, note_label, set_severity, translate


class RunPanel(QGroupBox):
    """Status line, progress rows, errors and results of the current (or last) run.

    Signals:
        status(str): the status line changed (for the window's status bar).
    """

    status = Signal(str)

    def __init__(self, state, parent: QWidget | None = None) -> None:
        """Build the box; ``state`` is the shared PlanState the results are set against."""
        super().__init__(translate("ProbePage", "Run"), parent)
        self.rows: dict[str, ProgressRow] = {}
        layout = QVBoxLayout(self)
        self.run_status = note_label(translate(
            "ProbePage", "Quick runs the standard probes at small sizes ({probes}); Full runs "
            "them at larger sizes. Each figure is set against the catalog's value for the card "
            "and kept in the history below.").format(
            probes=translate("Lists", ", ").join(fmt.probe_name(p, translate).lower()
                             for p in runner.SUITE_PROBES)),
            self, role="")
        self.run_status.setObjectName("runStatus")
        layout.addWidget(self.run_status)
        self._grid = QGridLayout()
        self._grid.setColumnStretch(2, 1)
        self._grid.setHorizontalSpacing(10)
        layout.addLayout(self._grid)
        self.errors_label = note_label("", self, role="")
        self.errors_label.setObjectName("runErrors")
        set_severity(self.errors_label, "error")
        self.errors_label.hide()
        layout.addWidget(self.errors_label)
        self.results = ResultsView(state, self)
        layout.addWidget(self.results, 1)

    def set_status(self, text: str, severity: str = "") -> None:
        """Say ``text`` in the status line (and the status bar)."""
        self.run_status.setText(text)
        set_severity(self.run_status, severity)
        self.status.emit(text)

    def start(self, job: ProbeJob, device: Mapping | None) -> None:
        """A run starts: one waiting row per probe, nothing else from before."""
        for row in self.rows.values():
            for widget in row.widgets:
                self._grid.removeWidget(widget)
                widget.hide()  # gone from view now; deleted when the event loop gets to it
                widget.deleteLater()
        self.rows = {}
        for index, probe in enumerate(job.probes):
            row = ProgressRow(self._grid, index, probe, self)
            row.set_message(translate("ProbePage", "waiting"))
            self.rows[probe] = row
        self.errors_label.hide()
        self.errors_label.clear()
        self.results.clear()
        self.set_status(fmt.run_started_text(job.kind, device, translate))

    def on_progress(self, probe: str, fraction: float, message: str) -> None:
        row = self.rows.get(probe)
        if row is not None:
            row.bar.setValue(round(1000 * fraction))
            row.set_message(message)

    def on_result(self, result: Result) -> None:
        row = self.rows.get(result.probe)
        if row is not None:
            row.bar.setValue(1000)
            row.set_message(translate("ProbePage", "done"), "ok")

    def on_error(self, error: Error) -> None:
        row = self.rows.get(error.probe or "")
        if row is not None:
            row.set_message(translate("ProbePage", "{kind}: {message}").format(
                kind=error.kind, message=error.message), "error")

    def finish(self, run: runner.ProbeRun, stop_reason: str | None) -> None:
        """Say how ``run`` ended, list its errors and mark the probes that did not answer."""
        self.set_status(*fmt.run_finished_text(run.status, run.duration_s, stop_reason,
                                               translate))
        errors = [e for e in run.errors if e.kind != "cancelled"]
        if errors:
            self.errors_label.setText(fmt.run_errors_text(errors, translate))
            self.errors_label.show()
        for probe, row in self.rows.items():
            answered = run.result(probe) is not None or any(e.probe == probe for e in errors)
            if not answered:
                row.set_message(translate("ProbePage", "cancelled") if run.status == "cancelled"
                                else translate("ProbePage", "no result"), "warning")

    def text(self) -> str:
        """Everything the box says (tests, clipboard)."""
        parts = [self.run_status.text()]
        parts += [f"{row.name.text()}: {row.message.text()}" for row in self.rows.values()]
        parts.append(self.errors_label.text() if not self.errors_label.isHidden() else "")
        parts += self.results.texts()
        return "\n".join(p for p in parts if p)


__all__ = ["RunPanel"]
