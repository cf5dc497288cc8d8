"""Read-out panels of the Plan page: the verdict banner and the time panel with its
assumptions (the "Make it fit" levers are :mod:`.levers`).

Each panel is handed core records (an ``Estimate``, a list of ``Lever``) and only formats
them; edits go out as signals for the page to write to the shared plan.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.compute import training_job
from gpuadvisor.core.engines.combine import requests_at_once
from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui import numbers as N
from gpuadvisor.gui.data_words import warning_text

from . import labels as L
from .fields import ErrorLabel
from .job_text import data_source_text, serving_sentence
from .unit_label import UnitLabel
from .wrap import keep_units, plain


def _value_label(parent: QWidget, name: str) -> QLabel:
    """A value of the panel: wrapped, each number kept with its unit (a narrow panel read
    "70.3" / "TFLOP" and, in Chinese, "18 token/" / "秒")."""
    label = UnitLabel("", parent)
    label.setObjectName(name)
    return label


class VerdictBanner(QLabel):
    """One line at the top of the page: does the plan fit, and by how much.

    The ``verdict`` dynamic property ("fits", "tight", "nofit", "none") lets the style sheet
    colour it; the text always says it in words too.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verdictBanner")
        self.setWordWrap(True)
        self.setProperty("verdict", "none")

    def setText(self, text: str) -> None:
        """Shown with each number bound to its unit ("(8.6 GiB free)" never breaks at
        "8.6" on a projector's two lines); :meth:`text` gives it back plain."""
        super().setText(keep_units(text))

    def text(self) -> str:
        return plain(super().text())

    def set_estimate(self, estimate, units: str, *, short: bool = False) -> None:
        """Show the verdict of ``estimate`` with sizes in ``units`` ("GiB" or "GB"); ``short``
        (on a projector) starts with the model and task and names the GPU without its
        maker."""
        need = format_bytes(estimate.memory.total, units)
        if estimate.gpu is None:
            text = self.tr("{need} per GPU · choose a GPU to check the fit").format(need=need)
            kind = "none"
        else:
            have = format_bytes(estimate.capacity_bytes, units)
            head = estimate.headroom_bytes
            name = N.short_gpu_name(estimate.gpu.name) if short else estimate.gpu.name
            args = {"need": need, "have": have, "gpu": name,
                    "free": format_bytes(abs(head), units)}
            if estimate.verdict == "does not fit":
                text = self.tr("Does not fit: needs {need} per GPU, {gpu} has {have} "
                               "(short by {free})").format(**args)
                kind = "nofit"
            elif estimate.verdict == "tight" and _waiting(estimate) is not None:
                # vLLM takes its share of the card whatever the plan: what is tight is
                # its KV pool, which runs fewer requests at once than the plan asks.
                held, asked = _waiting(estimate)
                text = self.tr("Fits, but requests wait: the KV pool holds {held} of {asked} "
                               "at once ({need} of {have} on {gpu})").format(
                    held=held, asked=asked, **args)
                kind = "tight"
            elif estimate.verdict == "tight":
                text = self.tr("Fits, but tight: {need} of {have} on {gpu} "
                               "({free} free)").format(**args)
                kind = "tight"
            else:
                text = self.tr("Fits: {need} of {have} on {gpu} ({free} free)").format(**args)
                kind = "fits"
        if short:  # on a projector the audience sees no inputs: say what is planned
            text = self.tr("{model}, {task}: {verdict}").format(
                model=estimate.model.name, task=L.label(L.TASKS, estimate.plan.task),
                verdict=text)
        self.setText(text)
        if self.property("verdict") != kind:
            self.setProperty("verdict", kind)
            self.style().unpolish(self)
            self.style().polish(self)


def _waiting(estimate) -> tuple[int, int] | None:
    """``(held, asked)`` when the plan's engine reserves its share of the card (vLLM) and
    its KV pool holds fewer whole requests at once than the plan asks
    (:func:`~gpuadvisor.core.engines.combine.requests_at_once`, the count the time and the
    levers use), else None."""
    engine = getattr(estimate, "engine", None)
    held = None if engine is None else requests_at_once(engine, estimate.plan)
    return None if held is None else (held, estimate.plan.micro_batch)


class TimePanel(QGroupBox):
    """Time, throughput, GPU-hours and FLOPs, the editable efficiency, and each assumption
    with its source ("assumed", "catalog: rtx-4090", "plan")."""

    efficiency_edited = Signal(object)  # float, or None for "back to the default"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Time"), parent)
        self.setObjectName("timePanel")
        layout = QVBoxLayout(self)
        grid = QGridLayout()
        layout.addLayout(grid)
        self.total = _value_label(self, "timeTotal")
        self.total.setProperty("role", "headline")
        self.throughput = _value_label(self, "timeThroughput")
        self.throughput.setWordWrap(True)
        # Every value wraps: one that cannot sets the panel's least width, and the panel's
        # scroll area (vertical only) then cuts every row at its right edge.
        self.gpu_hours = _value_label(self, "timeGpuHours")
        self.gpu_hours.setWordWrap(True)
        self.flops = _value_label(self, "timeFlops")
        self.flops.setWordWrap(True)
        self.steps = _value_label(self, "timeSteps")
        self.steps.setWordWrap(True)
        self._row_names: list[QLabel] = []
        grid.setColumnStretch(3, 1)
        grid.setHorizontalSpacing(10)
        self._grid_of_time = grid
        # The throughput is a sentence ("170 generated tokens/s overall, 429 while
        # decoding"): it takes the whole row, the compute its own row under the steps (a
        # cell beside it wrapped it in four lines of a quarter of the panel).
        for row, col, span, name, value in (
            (0, 0, 1, self.tr("Total time"), self.total),
            (0, 2, 1, self.tr("GPU-hours"), self.gpu_hours),
            (1, 0, 3, self.tr("Throughput"), self.throughput),
            (5, 0, 3, self.tr("Compute"), self.flops),
        ):
            title = QLabel(name, self)
            self._row_names.append(title)
            grid.addWidget(title, row, col)
            grid.addWidget(value, row, col + 1, 1, span)
            if value is self.flops:
                self._flops_title = title
            if value is self.gpu_hours:
                self._gpu_hours_title = title
        steps_title = QLabel(self.tr("Steps"), self)
        self._steps_title = steps_title
        self._row_names.append(steps_title)
        grid.addWidget(steps_title, 3, 0)
        grid.addWidget(self.steps, 3, 1, 1, 3)
        # The data set the headline time rests on, when the plan gives none: which, how
        # big, and where to type one's own.
        self.data_source = _value_label(self, "timeDataSource")
        self.data_source.setWordWrap(True)
        self.data_source.setProperty("role", "note")
        grid.addWidget(self.data_source, 6, 0, 1, 4)
        # A server's plan (vLLM, llama-server): how many users it serves at once.
        self.serving_title = QLabel(self.tr("Users at once"), self)
        self.serving = _value_label(self, "timeServing")
        self.serving.setWordWrap(True)
        # right under the throughput: a server's headline, seen without scrolling
        grid.addWidget(self.serving_title, 2, 0)
        grid.addWidget(self.serving, 2, 1, 1, 3)
        self.serving_title.hide()
        self.serving.hide()
        # Several GPUs: the parallel layout the time comes from, its step in parts and the
        # runners-up (hidden for one GPU).
        self.layout_title = QLabel(self.tr("Layout"), self)
        self._row_names.append(self.layout_title)
        self.layout_text = _value_label(self, "timeLayout")
        self.layout_text.setWordWrap(True)
        self.layout_text.setTextFormat(Qt.TextFormat.RichText)
        self.layout_text.setToolTip(self.tr(
            "How the job is split over the GPUs: the fastest way found that fits their "
            "memory (chosen), or the degrees you pinned in the Layout row with the rest "
            "searched (pinned): tensor (TP), pipeline (PP) and data parallel (DP) degrees, "
            "ZeRO/FSDP sharding and the micro-batch. The step is shown in parts: computing, "
            "memory-bound kernels, communication left over after overlap, and the pipeline's "
            "idle bubble."))
        grid.addWidget(self.layout_title, 4, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.layout_text, 4, 1, 1, 3)

        eff_row = QHBoxLayout()
        eff_title = QLabel(self.tr("Efficiency"), self)
        self.efficiency = QDoubleSpinBox(self)
        self.efficiency.setObjectName("efficiency")
        self.efficiency.setRange(0.05, 1.0)
        self.efficiency.setSingleStep(0.05)
        self.efficiency.setDecimals(2)
        self.efficiency.setKeyboardTracking(False)
        self.efficiency.setToolTip(self.tr(
            "Share of the GPU's dense peak that training achieves (model FLOPs "
            "utilisation). By default it comes from the plan's own kernels at the card's "
            "published rates times the in-situ factor (0.73); type a value to use your own."))
        self._compact_widgets = [eff_title, self.flops, self._flops_title]
        self.efficiency_source = QLabel(self)
        self.efficiency_source.setObjectName("efficiencySource")
        self.efficiency_source.setProperty("role", "source")
        self.efficiency_reset = QPushButton(self.tr("Default"), self)
        self.efficiency_reset.setToolTip(self.tr("Use the assumed efficiency again"))
        eff_title.setBuddy(self.efficiency)
        eff_row.addWidget(eff_title)
        eff_row.addWidget(self.efficiency)
        eff_row.addWidget(self.efficiency_source, 1)
        eff_row.addWidget(self.efficiency_reset)
        layout.addLayout(eff_row)
        self._compact_widgets += [self.efficiency, self.efficiency_source,
                                  self.efficiency_reset]
        self.efficiency_error = ErrorLabel(self)
        layout.addWidget(self.efficiency_error)

        self.assumptions_title = QLabel(self.tr("Assumptions"), self)
        self.assumptions_title.setProperty("role", "subheading")
        layout.addWidget(self.assumptions_title)
        self.assumptions = AssumptionsTable(self)
        self.assumptions.setObjectName("timeAssumptions")
        layout.addWidget(self.assumptions)
        self.warnings = QLabel(self)
        self.warnings.setObjectName("timeWarnings")
        self.warnings.setWordWrap(True)
        self.warnings.setProperty("role", "warning")
        layout.addWidget(self.warnings)
        layout.addStretch(1)
        self._compact_widgets += [self.assumptions_title, self.assumptions]
        self._compact = False
        self._shown = None  # the estimate on show (its data line follows the mode)

        self.efficiency.valueChanged.connect(self._on_efficiency)
        self.efficiency_reset.clicked.connect(lambda: self.efficiency_edited.emit(None))

    def set_compact(self, compact: bool) -> None:
        """Only the time and how it is made (a projector): the efficiency and the
        assumptions are left to the desktop."""
        self._compact = bool(compact)
        for widget in self._compact_widgets:
            widget.setVisible(not compact)
        if self._shown is not None:
            self._set_data_source(self._shown)
            self._set_warnings(self._shown)

    def shape_key(self) -> tuple:
        """What the panel's height depends on besides its width: rows shown and the length
        of the texts that wrap."""
        return (self.layout_text.isVisibleTo(self), len(self.layout_text.text()),
                len(self.steps.text()), len(self.assumptions.text()),
                len(self.warnings.text()), len(self.data_source.text()), self._compact,
                self.font().pointSize())

    # ------------------------------------------------------------------ display
    def _set_data_source(self, estimate) -> None:
        """The data line: in full on the desktop, the data set and its tokens on a projector."""
        source = data_source_text(estimate, short=self._compact)
        self.data_source.setText(source)
        self.data_source.setVisible(bool(source))

    def set_estimate(self, estimate, units: str, overrides: dict | None = None) -> None:
        """Show ``estimate``'s time figures; ``overrides`` are the user's assumption values."""
        t = estimate.time
        a = estimate.assumptions
        plan = estimate.plan
        opaque = estimate.model.kind == "opaque"
        self.total.setText(N.duration(t.seconds))
        # an inference plan's time is a prefill and a decode, not training steps
        self._steps_title.setText(self.tr("Phases") if plan.task == "infer"
                                  else self.tr("Steps"))
        if plan.task == "infer":
            # the whole time's rate (its prompts too), and the decoding steps' own
            waiting = _waiting(estimate)
            if waiting is not None:
                # the requests go in waves of what the KV pool holds: the decode rate is a
                # wave's (beside the serving row's steady load, it read as a contradiction)
                self.throughput.setText(self.tr(
                    "{rate} generated tokens/s overall, {decode} while decoding ({held} "
                    "requests at once)").format(rate=N.sig(t.tokens_per_s),
                                                decode=N.sig(t.decode_tokens_per_s),
                                                held=waiting[0]))
            else:
                self.throughput.setText(self.tr("{rate} generated tokens/s overall, {decode} "
                                                "while decoding").format(
                    rate=N.sig(t.tokens_per_s), decode=N.sig(t.decode_tokens_per_s)))
            self.steps.setText(self.tr("prefill {prefill} · decode bound by {bound}").format(
                prefill=N.duration(t.prefill_seconds), bound=L.label(L.BOUNDS, t.bound)))
        else:
            rate = (self.tr("{rate} samples/s") if opaque
                    else self.tr("{rate} tokens/s"))
            self.throughput.setText(rate.format(rate=N.sig(t.tokens_per_s)))
            # The time with its parts: steps × one step (÷ the multi-node goodput) = the total.
            laid = getattr(estimate, "layout", None)
            goodput = laid.goodput if laid is not None else 1.0
            if goodput < 1.0:
                text = self.tr("{steps} × {step} ÷ {goodput} goodput = {total} (bound by "
                               "{bound})")
            else:
                text = self.tr("{steps} × {step} = {total} (bound by {bound})")
            self.steps.setText(text.format(
                steps=N.whole(t.steps), step=N.duration(t.step_seconds), goodput=f"{goodput:g}",
                total=N.duration(t.seconds), bound=L.label(L.BOUNDS, t.bound)))
        if t.gpu_hours is not None and 0 < t.gpu_hours < 0.01:
            # a request of a few seconds: its GPU time as a duration ("2.19 s"), not as
            # "0.000609" GPU-hours
            self._gpu_hours_title.setText(self.tr("GPU time"))
            self.gpu_hours.setText(N.duration(t.gpu_hours * 3600.0))
        else:
            self._gpu_hours_title.setText(self.tr("GPU-hours"))
            self.gpu_hours.setText(N.sig(t.gpu_hours))
        self.flops.setText(N.flops(t.flops_total))
        self._shown = estimate
        self._set_data_source(estimate)
        layout = getattr(estimate, "layout", None)
        self.layout_title.setVisible(layout is not None)
        self.layout_text.setVisible(layout is not None)
        if layout is not None:
            self.layout_text.setText(self._layout_html(layout))
        with QSignalBlocker(self.efficiency):
            self.efficiency.setValue(float(t.efficiency))
        source = a.get("efficiency_source", "assumed")
        self.efficiency_source.setText(L.source_label(source))
        self.efficiency_reset.setEnabled(source == "plan")
        self.assumptions.set_rows(self._assumption_rows(estimate, units, overrides or {}))
        self._set_warnings(estimate)

    def _set_warnings(self, estimate) -> None:
        # On a projector the banner says why a vLLM plan is tight (its requests wait):
        # the same sentence here would only push the panel into scrolling.
        said = estimate.engine.tight if self._compact and _waiting(estimate) else None
        shown = [w for w in estimate.warnings if w != said]
        self.warnings.setText("\n".join(f"⚠ {warning_text(w)}" for w in shown))
        self.warnings.setVisible(bool(shown))

    def set_serving(self, capacity) -> None:
        """How many users the plan serves at once
        (:class:`~gpuadvisor.core.serving_load.Capacity`), or None to hide the row."""
        self.serving_title.setVisible(capacity is not None)
        self.serving.setVisible(capacity is not None)
        if capacity is None:
            self.serving.setText("")
            return
        self.serving.setText(serving_sentence(capacity))
        self.serving.setToolTip(self.tr(
            "Every user waiting for an answer at once, each with the plan's prompt and new "
            "tokens; each keeps at least {rate} tokens/s (reading speed unless set). "
            "gpuadvisor estimate prints the whole curve.").format(
            rate=f"{capacity.min_tokens_per_s:.1f}"))

    def _layout_html(self, layout) -> str:
        """The chosen layout, its step in parts, and the runners-up, as rich text."""
        def degrees(lay) -> str:
            parts = lay.degrees()  # the CLI's words: VPP, SP and ETP included
            zero = {0: "DDP", 1: "ZeRO-1", 2: "ZeRO-2", 3: "ZeRO-3/FSDP"}[lay.zero]
            if lay.dp == 1:
                zero = self.tr("no data parallel")
            elif lay.hybrid_shard and lay.zero >= 1:
                zero = self.tr("{zero} sharded within a node").format(zero=zero)
            return self.tr("{parts}, {zero}, {batch}").format(
                parts=" × ".join(parts), zero=zero,
                batch=self.tr("micro-batch {mb} × {ga}").format(mb=lay.micro_batch,
                                                                ga=lay.grad_accum))

        chosen = layout.chosen
        p = chosen.parts
        comm = p.tp_comm + p.cp_comm + p.ep_comm + p.pp_comm + p.dp_comm
        lines = [_esc(degrees(chosen.layout)), _esc(self.tr(
            "step {step} = compute {compute} + memory-bound {memory} + communication "
            "{comm} + bubble {bubble}; MFU {mfu:.0%}").format(
                step=N.duration(chosen.step_seconds), compute=N.duration(p.compute),
                memory=N.duration(p.memory_bound), comm=N.duration(comm),
                bubble=N.duration(p.pp_bubble), mfu=chosen.mfu))]
        for alt in layout.alternatives[:2]:
            lines.append("<i>" + _esc(self.tr("runner-up: {layout}: step {step}").format(
                layout=degrees(alt.layout), step=N.duration(alt.step_seconds)))
                + "</i>")
        return "<br>".join(lines)

    def _assumption_rows(self, estimate, units: str,
                         overrides: dict) -> list[tuple[str, str, str]]:
        a = estimate.assumptions
        t = estimate.time
        rows = [(
            self.tr("peak"),
            self.tr("{tflops:g} TFLOPS {dtype} on {gpu}").format(
                tflops=a["peak_tflops"], dtype=a["peak_tflops_dtype"],
                gpu=estimate.time_gpu.name),
            a.get("peak_tflops_source", ""),
        ), (
            self.tr("efficiency"),
            self.tr("{eff:.2f} → {tflops} TFLOPS per GPU").format(
                eff=t.efficiency, tflops=N.sig(t.achieved_tflops_per_gpu)),
            a.get("efficiency_source", "assumed"),
        )]
        if a.get("engine_prefill_tflops"):  # the engine's own matmul kernel sets the rate
            rows.append((self.tr("matmul kernel"),
                         self.tr("{kernel}: {tflops} TFLOPS per GPU, {fraction} of the {peak} "
                                 "rate").format(
                             kernel=a["engine_prefill_kernel"],
                             tflops=N.sig(a["engine_prefill_tflops"]),
                             fraction=f"{a['engine_prefill_fraction']:.3g}",
                             peak=a["engine_prefill_peak"]),
                         a["engine_prefill_cited"]))
        if "insitu_factor" in a:  # the efficiency is the plan's kernels x this factor
            rows.append((self.tr("in-situ factor"),
                         self.tr("{k:.2f} of the published kernel rates").format(
                             k=a["insitu_factor"]),
                         "plan" if "insitu_factor" in overrides else "assumed"))
        if "dataset_tokens" in a:
            amount = (self.tr("{n} samples") if estimate.model.kind == "opaque"
                      else self.tr("{n} tokens")).format(n=N.count(a["dataset_tokens"]))
            job = training_job(estimate.model, estimate.plan)
            if job.dataset and job.samples and estimate.model.kind != "opaque":
                # the data set's samples (the line under the time gives its tokens)
                amount = self.tr("{n} samples").format(n=N.whole(job.samples))
            rows.append((self.tr("data"), amount, a.get("dataset_tokens_source", "assumed")))
        if "interconnect_gb_s" in a:
            rows.append((self.tr("GPU link"), f"{a['interconnect_gb_s']:g} GB/s",
                         "plan" if "interconnect_gb_s" in overrides else "catalog"))
        if "comm_overlap" in a:
            rows.append((self.tr("overlap"), f"{a['comm_overlap']:.0%}",
                         "plan" if "comm_overlap" in overrides else "assumed"))
        if "memory_bandwidth_gb_s" in a:
            rows.append((self.tr("bandwidth"), f"{a['memory_bandwidth_gb_s']:g} GB/s",
                         f"catalog: {estimate.time_gpu.id}"))
        if "time_gpu" in a:
            rows.append((self.tr("timed on"), str(a["time_gpu"]), "assumed"))
        if "cuda_context_bytes" in a:
            rows.append((self.tr("CUDA context"), format_bytes(a["cuda_context_bytes"], units),
                         "plan" if "cuda_context_bytes" in overrides else "assumed"))
        return [(name, value, L.source_label(source)) for name, value, source in rows]

    def set_efficiency_error(self, message: str | None) -> None:
        """Show why an efficiency value was refused (or clear it)."""
        self.efficiency_error.set_error(message)

    def _on_efficiency(self, value: float) -> None:
        self.efficiency_edited.emit(round(float(value), 4))


class AssumptionsTable(QWidget):
    """Each assumption in a row: name, value, where it comes from (in italics). Plain labels
    in a grid, reused and set only when their text changes: a rich-text table would be laid
    out again (at length) on every change of the plan."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(12)
        self._grid.setVerticalSpacing(1)
        self._grid.setColumnStretch(1, 1)
        self._cells: list[tuple[QLabel, QLabel, QLabel]] = []

    def set_rows(self, rows: list[tuple[str, str, str]]) -> None:
        """``(name, value, source)`` rows, in order."""
        while len(self._cells) < len(rows):
            row = len(self._cells)
            cells = (QLabel(self), QLabel(self), QLabel(self))
            cells[1].setWordWrap(True)
            cells[2].setProperty("role", "source")
            for column, label in enumerate(cells):
                label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self._grid.addWidget(label, row, column, Qt.AlignmentFlag.AlignTop)
            self._cells.append(cells)
        for k, cells in enumerate(self._cells):
            shown = k < len(rows)
            for label, text in zip(cells, rows[k] if shown else ("", "", ""), strict=True):
                if label.text() != text:
                    label.setText(text)
                label.setVisible(shown)

    def text(self) -> str:
        """Every row as a line: "name value source"."""
        return "\n".join(" ".join(label.text() for label in cells)
                         for cells in self._cells if not cells[0].isHidden())


def _esc(text: str) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
