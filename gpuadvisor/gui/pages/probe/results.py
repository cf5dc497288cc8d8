"""What a probe run measured, in the Run box: measured-vs-catalog bars per unit, the
burn-in's verdict, the dataset disk against the plan, and the plan check's table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHeaderView, QLabel, QScrollArea, QVBoxLayout, QWidget

from gpuadvisor.probes import history, plancheck, runner
from gpuadvisor.probes.compare import versus_catalog
from gpuadvisor.probes.protocol import Result

from . import format as fmt
from .widgets import fill_table, make_table, note_label, set_severity, translate


class ResultsView(QScrollArea):
    """The results of the last run, stacked at the top of a scroll area.

    Attributes:
        widgets: what is shown, in order (labels, charts, tables).
        charts: the measured-vs-catalog chart of each unit (``"TFLOPS"``, ``"GB/s"``).
        versus: the rows of those charts.
        stored: the run as stored in the history, per device.
        comparison: the plan check's measured-vs-estimated comparison, when one ran.
    """

    def __init__(self, state, parent: QWidget | None = None) -> None:
        """Build an empty view; ``state`` is the shared PlanState (catalog, estimate)."""
        super().__init__(parent)
        self.state = state
        self.presentation = False
        self.widgets: list[QWidget] = []
        self.charts: dict[str, Any] = {}
        self.versus: list = []
        self.stored: list[history.StoredRun] = []
        self.comparison: plancheck.PlanCheckComparison | None = None
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        body.setObjectName("probeResults")
        self._layout = QVBoxLayout(body)
        self._layout.setContentsMargins(0, 0, 4, 0)
        self._layout.addStretch(1)
        self.setWidget(body)
        # The box's own background shows through: an empty view (no run yet) drew a
        # rectangle of the window's grey inside the box's, like a widget left unpainted.
        self.viewport().setAutoFillBackground(False)
        body.setAutoFillBackground(False)

    def clear(self) -> None:
        """Remove everything shown."""
        for widget in self.widgets:
            self._layout.removeWidget(widget)
            widget.hide()
            widget.deleteLater()
        self.widgets = []
        self.charts = {}
        self.versus = []
        self.stored = []
        self.comparison = None

    def add(self, widget: QWidget) -> QWidget:
        """Show ``widget`` below what is shown."""
        self.widgets.append(widget)
        # Before the trailing stretch: results stack at the top.
        self._layout.insertWidget(self._layout.count() - 1, widget)
        return widget

    def texts(self) -> list[str]:
        """The text of every label shown."""
        return [w.text() for w in self.widgets if isinstance(w, QLabel)]

    def set_presentation(self, enabled: bool) -> None:
        self.presentation = enabled
        for chart in self.charts.values():
            chart.set_presentation(enabled)
            chart.setFixedHeight(chart.preferred_height())

    # ------------------------------------------------------------------ a run
    def show_run(self, kind: str, run: runner.ProbeRun, saved: Sequence[Path], *,
                 summary: str, plan_document, units: str) -> None:
        """Show what ``run`` (a job of ``kind``) measured.

        Args:
            kind: the job's kind (``quick``, ``full``, ``burnin``, ``plancheck``...).
            run: the finished run.
            saved: the history files written (empty: not saved).
            summary: what the live readings showed during the run ("" if nothing).
            plan_document: the plan the plan check was started for (None if none).
            units: "GiB" or "GB".
        """
        self.clear()
        body = self.widget()
        if summary:
            self.add(note_label(summary, body))
        if not run.results:
            return
        self.stored = history.stored_runs_of(run)
        for stored in self.stored:
            gpu = self.state.gpus.get(stored.catalog_id) if stored.catalog_id else None
            self.add(note_label(fmt.measured_on_text(
                stored.device_id, stored.device_name, stored.versions.get("torch"),
                gpu.name if gpu else None, bool(saved), translate), body))
            rows = [r for r in versus_catalog(stored, gpu) if r.probe not in ("step",)
                    or kind != "plancheck"]
            self.versus.extend(rows)
            self._add_versus_charts(rows, body)
        burnin = run.result("burnin")
        if burnin is not None:
            self._show_burnin(burnin, body)
        dataread = run.result("dataread")
        if dataread is not None:
            self._show_dataread(dataread, body)
        if run.result("plancheck") is not None:
            self._show_plancheck(run, body, plan_document, units)

    def _add_versus_charts(self, rows: Sequence, body: QWidget) -> None:
        from gpuadvisor.gui.charts.probe_charts import VersusChart  # pyqtgraph: late

        by_unit: dict[str, list] = {}
        for row in rows:
            by_unit.setdefault(row.unit, []).append(row)
        for unit, unit_rows in by_unit.items():
            label = QLabel(fmt.unit_title(unit, translate), body)
            label.setProperty("role", "chartTitle")
            self.add(label)
            chart = VersusChart(body)
            chart.setObjectName(f"versusChart-{unit}")
            chart.set_presentation(self.presentation)
            chart.set_data(unit_rows, unit)
            chart.setFixedHeight(chart.preferred_height())
            self.charts[unit] = chart
            self.add(chart)

    def _show_burnin(self, result: Result, body: QWidget) -> None:
        wrong = result.figures.get("mismatches", 0) > 0
        text = fmt.burnin_text(result.figures, result.conditions, translate)
        label = self.add(note_label(text, body, role=""))
        set_severity(label, "error" if wrong else "ok")

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
        text = fmt.dataread_text(rate, tokens_per_s, verdict, cached, translate)
        label = self.add(note_label(text, body, role=""))
        set_severity(label, "error" if verdict.bottleneck else "ok")

    def _show_plancheck(self, run: runner.ProbeRun, body: QWidget, document,
                        units: str) -> None:
        """Measured vs estimated for the plan check (and the step probe at its shape)."""
        title = QLabel(translate("ProbePage", "Plan check: measured vs estimated"), body)
        title.setProperty("role", "chartTitle")
        self.add(title)
        try:
            comparison = plancheck.compare(run, plancheck.estimate_for(document, run))
        except (ValueError, KeyError, TypeError) as exc:
            note = self.add(note_label(translate(
                "ProbePage", "Could not compare with the estimate: {error}").format(error=exc),
                body))
            set_severity(note, "warning")
            return
        self.comparison = comparison
        self.add(note_label(fmt.plancheck_heading(comparison, translate), body))
        table = make_table(4, body, "plancheckTable")
        table.setHorizontalHeaderLabels([
            translate("ProbePage", "Figure"), translate("ProbePage", "Measured"),
            translate("ProbePage", "Estimated"), translate("ProbePage", "Difference")])
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        rows = fmt.plancheck_rows(comparison, units)
        fill_table(table, rows)
        table.setFixedHeight(table.horizontalHeader().height() + 4
                             + sum(table.rowHeight(r) for r in range(len(rows))))
        self.add(table)
        self.add(note_label(comparison.summary, body, role="subheading"))
        if comparison.notes:
            self.add(note_label("\n".join(f"• {n}" for n in comparison.notes), body))


__all__ = ["ResultsView"]
