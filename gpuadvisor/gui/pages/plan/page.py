"""The Plan page: the plan's inputs on the left, charts, time and "Make it fit" on the right.

A thin view over :class:`gpuadvisor.workspace.state.PlanState`: user edits go straight to the state
(``update``, ``set_model``, ``set_gpu``, ...); the state's ``changed`` signal schedules one
redraw for however many changes arrive in the same pass of the event loop (a 0 ms single-shot
timer owned by the page and stopped on close), and the redraw sets every widget from the state
with its signals blocked, so nothing loops back. A change the state refuses comes back as
``error(field, message)`` and is shown in words under that field.

This module lays the regions out and wires them: the input column (``inputs``), the charts
(``charts``), time and levers (``results``); the words are in ``format``.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.units import parse_count
from gpuadvisor.gui.widgets.custom_model import CustomModelDialog
from gpuadvisor.gui.widgets.levers import lever_title
from gpuadvisor.gui.widgets.panels import VerdictBanner
from gpuadvisor.gui.widgets.summary import markdown_summary
from gpuadvisor.hardware.host_facts import available_ram
from gpuadvisor.hardware.host_ram import CONTEXT as HOST_RAM_CONTEXT
from gpuadvisor.hardware.host_ram import check_host_ram

from . import format as fmt
from .charts import PlanCharts
from .inputs import CUSTOM_ITEM, NO_GPU_ITEM, InputsScroll, PlanInputs
from .layout_pins import mark_time_layout
from .results import TimeAndLevers

#: Milliseconds without a change after which a burst of changes counts as over (the
#: levers, deferred during the burst, are then evaluated).
LEVERS_SETTLE_MS = 150

#: Plan fields whose widgets this page owns (error messages for other fields go to the top).
_FIELD_NAMES = (
    "model", "task", "precision", "optimizer", "micro_batch", "grad_accum", "seq_len",
    "checkpointing", "attention", "lora_rank", "lora_targets", "quant", "n_gpus",
    "zero_stage", "offload", "dataset", "packing", "dataset_tokens", "dataset_samples",
    "epochs", "gpu",
    "new_tokens", "kv_dtype", "framework", "gpu_layers", "n_cpu_moe", "gpu_memory_utilization",
    "num_ctx", "backend",
    "tp", "pp", "vpp", "cp", "ep", "layout_global_batch",
)


class PlanPage(QWidget):
    """Model, task and knobs on the left; VRAM, curves, fit map, time and levers on the right.

    The fields of ``inputs``, the charts of ``charts_area`` and the panels of ``bottom``
    are reachable as the page's own attributes too (``page.task_combo``, ``page.vram_chart``,
    ``page.time_panel``).

    Attributes:
        state: the shared :class:`~gpuadvisor.workspace.state.PlanState`.
        inputs: the input column's fields (in ``inputs_scroll``).
        errors: field name -> the :class:`ErrorLabel` under that field (plus "general").
        charts_area: the charts; vram_chart, mb_chart, seq_chart, fit_map: the charts.
        bottom: time and levers; time_panel, levers_panel, banner: the read-outs.
    """

    #: A message for the window's status bar.
    status = Signal(str)
    #: The charts exist and show the plan (see ``defer_charts``).
    charts_built = Signal()

    def __init__(self, state, units: str = "GiB", parent: QWidget | None = None, *,
                 defer_charts: bool = False) -> None:
        """Build the page.

        Args:
            state: the shared plan.
            units: "GiB" or "GB".
            parent: Qt parent.
            defer_charts: build the charts only after the page's first paint. pyqtgraph
                takes about half a second to import and the charts as long again to build;
                deferring them lets the window (verdict, time, levers) appear first.
        """
        super().__init__(parent)
        self.setObjectName("planPage")
        self.state = state
        self._units = units
        self._presentation = False
        self._dialog: CustomModelDialog | None = None
        self.redraw_count = 0
        #: () -> (total, available) bytes of this machine's RAM, for plans that offload to
        #: the CPU (tests replace it).
        self.host_ram_reader = available_ram
        # One redraw per burst of changes: the timer fires once the event loop is idle.
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(0)
        self._redraw_timer.timeout.connect(self._on_redraw_timer)
        # "Make it fit" evaluates every lever (a dozen estimates): during a burst of changes
        # (a slider held down) it waits until the input rests, on the same timer; a lone
        # change shows it at once.
        self._dirty = False
        self._levers_pending = False
        self._last_redraw_s = 0.0

        self._build(defer_charts)
        self.inputs.fill_choices(self.state, self._units)
        for combo in self.findChildren(QComboBox):
            # The drop-down list shows whole names even where the box itself is narrow.
            view = combo.view()
            view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 24)
        self._connect_inputs()
        self.state.changed.connect(self._on_state_changed)
        self.state.error.connect(self._on_state_error)
        self.state.detected_changed.connect(self._on_detected_changed)
        self._connected = True
        if not defer_charts:
            self.ensure_charts()
        self._redraw()

    # ================================================================== layout
    def _build(self, defer_charts: bool) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter)

        self.inputs_scroll = InputsScroll(self.splitter)
        self.inputs_scroll.setObjectName("planInputs")
        self.inputs_scroll.setWidgetResizable(True)
        self.inputs_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.inputs_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.inputs = PlanInputs()
        self.inputs_scroll.setWidget(self.inputs)

        right = QWidget(self.splitter)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 8, 8, 8)
        head = QHBoxLayout()
        # The inputs fold away (presentation mode starts with them folded): the room goes to
        # the verdict, the charts, the time and the levers; one click brings them back.
        self.inputs_toggle = QToolButton(right)
        self.inputs_toggle.setObjectName("inputsToggle")
        self.inputs_toggle.setCheckable(True)
        self.inputs_toggle.setChecked(True)
        self.inputs_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.inputs_toggle.toggled.connect(self.show_inputs)
        head.addWidget(self.inputs_toggle, 0, Qt.AlignmentFlag.AlignTop)
        self.banner = VerdictBanner(right)
        head.addWidget(self.banner, 1)
        right_layout.addLayout(head)
        # A plan that offloads to the CPU: does this machine have the RAM for it?
        self.host_ram_label = QLabel(right)
        self.host_ram_label.setObjectName("hostRam")
        self.host_ram_label.setWordWrap(True)
        self.host_ram_label.hide()
        right_layout.addWidget(self.host_ram_label)
        self._label_inputs_toggle()
        self.charts_area = PlanCharts(self._units, right, defer=defer_charts)
        self.charts_area.built.connect(self._on_charts_built)
        self.charts_area.arranged.connect(self._fit_bottom_height)
        right_layout.addWidget(self.charts_area, 1)

        # Time and levers below the charts: as tall as the time panel needs (the levers
        # scroll when there are many), the rest goes to the charts.
        self.bottom = TimeAndLevers(right)
        right_layout.addWidget(self.bottom, 0)

        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)

    def show_inputs(self, shown: bool) -> None:
        """Show the plan's inputs beside the charts, or fold them away."""
        self.inputs_scroll.setVisible(bool(shown))
        if self.inputs_toggle.isChecked() != bool(shown):
            self.inputs_toggle.setChecked(bool(shown))
        self._label_inputs_toggle()

    def _label_inputs_toggle(self) -> None:
        shown = self.inputs_toggle.isChecked()
        self.inputs_toggle.setText("◀" if shown else "▶ " + self.tr("Plan"))
        self.inputs_toggle.setToolTip(self.tr("Hide the plan's inputs") if shown
                                      else self.tr("Show the plan's inputs"))

    @property
    def charts_placeholder(self):
        """"Drawing charts…" until the charts are built."""
        return self.charts_area.placeholder

    @property
    def _charts_timer(self) -> QTimer:
        return self.charts_area.timer

    def ensure_charts(self) -> None:
        """Build the four charts (once) and draw the plan in them."""
        self.charts_area.ensure()

    def _on_charts_built(self) -> None:
        self.charts_area.draw(self.state, self.state.estimate)
        self.charts_built.emit()

    # ================================================================== user edits
    def _connect_inputs(self) -> None:
        f = self.inputs
        f.model_combo.picked.connect(self._on_model_picked)
        f.model_combo.no_match.connect(lambda text: self._show_error(
            "model", self.tr("No preset matches \"{text}\"").format(text=text)))
        f.open_config_button.clicked.connect(self.open_config)
        f.custom_button.clicked.connect(self.open_custom_model)
        f.gpu_combo.picked.connect(self._on_gpu_picked)
        f.gpu_combo.no_match.connect(lambda text: self._show_error(
            "gpu", self.tr("No GPU in the catalog matches \"{text}\"").format(text=text)))

        for combo, name in (
            (f.task_combo, "task"), (f.precision_combo, "precision"),
            (f.optimizer_combo, "optimizer"), (f.checkpointing_combo, "checkpointing"),
            (f.attention_combo, "attention"), (f.quant_combo, "quant"),
            (f.lora_targets_combo, "lora_targets"), (f.zero_combo, "zero_stage"),
            (f.offload_combo, "offload"), (f.kv_dtype_combo, "kv_dtype"),
            (f.framework_combo, "framework"), (f.dataset_combo, "dataset"),
            (f.backend_combo, "backend"),
        ):
            combo.activated.connect(
                lambda _i, c=combo, n=name: self.edit(n, c.currentData()))
        for spin, name in (
            (f.micro_batch_spin, "micro_batch"), (f.grad_accum_spin, "grad_accum"),
            (f.lora_rank_spin, "lora_rank"), (f.n_gpus_spin, "n_gpus"),
            (f.new_tokens_spin, "new_tokens"),
        ):
            spin.valueChanged.connect(lambda v, n=name: self.edit(n, int(v)))
        f.seq_input.valueChanged.connect(lambda v: self.edit("seq_len", int(v)))
        f.gpu_layers_spin.valueChanged.connect(
            lambda v: self.edit("gpu_layers", None if v < 0 else int(v)))
        f.n_cpu_moe_spin.valueChanged.connect(lambda v: self.edit("n_cpu_moe", int(v)))
        f.num_ctx_spin.valueChanged.connect(
            lambda v: self.edit("num_ctx", int(v) if v > 0 else None))
        f.gpu_memory_utilization_spin.valueChanged.connect(
            lambda v: self.edit("gpu_memory_utilization", float(v) if v > 0 else None))
        f.epochs_spin.valueChanged.connect(lambda v: self.edit("epochs", float(v)))
        f.packing_check.toggled.connect(lambda on: self.edit("packing", bool(on)))
        f.tokens_edit.editingFinished.connect(
            lambda: self._edit_count("dataset_tokens", f.tokens_edit))
        f.samples_edit.editingFinished.connect(
            lambda: self._edit_count("dataset_samples", f.samples_edit))
        pins = f.layout_pins
        pins.mode_picked.connect(self._on_layout_mode)
        pins.degree_edited.connect(lambda name, value: self._pin(name, value))
        pins.pin_clicked.connect(lambda: self._pin(None))
        self.bottom.time_panel.efficiency_edited.connect(self._on_efficiency)
        self.bottom.levers_panel.lever_clicked.connect(self.apply_lever)

    def edit(self, name: str, value) -> bool:
        """Write one plan field to the state (what every input does)."""
        self._show_error(name, None)
        if getattr(self.state.plan, name) == value:
            return True
        return self.state.update(**{name: value})

    def _on_layout_mode(self, mode: str) -> None:
        if mode == "auto":
            self._pin("auto")
        elif not self.state.plan.layout_pins:
            self._pin(None)

    def _pin(self, name: str | None, value: int | None = None) -> bool:
        """Pin one degree (``name``), the layout the search chose (None) or none
        (``"auto"``): one undo step each."""
        self._show_error("tp", None)
        if name == "auto":
            return self.state.unpin_layout()
        if name is None:
            return self.state.pin_chosen_layout()
        if getattr(self.state.plan, name) == value:
            return True
        return self.state.pin_layout(**{name: value})

    def _edit_count(self, name: str, edit: QLineEdit) -> None:
        text = edit.text().strip()
        if not text:
            value = None
        else:
            try:
                value = parse_count(text)
            except ValueError:
                value = None
            if value is None or not value > 0:
                self._show_error(name, fmt.not_a_count(text))
                return
        self.edit(name, value)

    def _on_model_picked(self, model_id: str) -> None:
        self._show_error("model", None)
        if model_id == CUSTOM_ITEM:
            return
        self.state.set_model(model_id)

    def _on_gpu_picked(self, gpu_id: str) -> None:
        self._show_error("gpu", None)
        self.state.set_gpu(None if gpu_id == NO_GPU_ITEM else gpu_id)

    def _on_efficiency(self, value) -> None:
        self.bottom.time_panel.set_efficiency_error(None)
        self.state.set_efficiency(value)

    def apply_lever(self, lever) -> bool:
        """Apply a "Make it fit" lever to the plan."""
        ok = self.state.apply_lever(lever)
        if ok:
            self.status.emit(self.tr("Applied: {lever}").format(lever=lever_title(lever)))
        return ok

    def ask_config_path(self) -> str | None:
        """Ask for a config.json (tests replace this)."""
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open a Hugging Face config.json"), "",
            self.tr("Model config (*.json);;All files (*)"))
        return path or None

    def open_config(self, path: str | None = None) -> bool:
        """Use a config.json as the model; problems show under the model picker."""
        path = path or self.ask_config_path()
        if not path:
            return False
        self._show_error("model", None)
        return self.state.load_config_json(path)

    def open_custom_model(self) -> CustomModelDialog:
        """Open the architecture-numbers form (non-blocking); OK sets the model."""
        if self._dialog is not None:
            self._dialog.close()
        self._dialog = CustomModelDialog(self.state.model, self)
        self._dialog.model_accepted.connect(self._on_custom_model)
        self._dialog.finished.connect(self._dialog.deleteLater)
        self._dialog.finished.connect(lambda _r: setattr(self, "_dialog", None))
        self._dialog.open()
        return self._dialog

    def _on_custom_model(self, spec) -> None:
        self._show_error("model", None)
        self.state.set_model(spec)

    # ================================================================== state -> view
    def _on_state_changed(self, _estimate=None) -> None:
        self._schedule_redraw()

    def _schedule_redraw(self) -> None:
        self._dirty = True
        self._redraw_timer.start(0)

    def _on_redraw_timer(self) -> None:
        if self._dirty:
            self._redraw()
        elif self._levers_pending:
            self._draw_levers()

    def _on_state_error(self, field: str, message: str) -> None:
        self._show_error(field, message)
        self.status.emit(message)

    def _on_detected_changed(self) -> None:
        self.inputs.fill_gpu_choices(self.state, self._units)
        self._schedule_redraw()

    def detected_note(self) -> str:
        """Which memory the fit used when the target is a detected card ("" otherwise)."""
        info = self.state.detected_gpu
        notes = [] if info is None else [fmt.detected_note(info, self.state.gpus, self._units)]
        if self.state.lost_gpus:
            notes.append(fmt.lost_note(self.state.lost_gpus))
        return "\n".join(notes)

    def _show_error(self, field: str, message: str | None) -> None:
        if field == "efficiency":
            self.bottom.time_panel.set_efficiency_error(message)
            return
        errors = self.inputs.errors
        label = errors.get(field) or errors["general"]
        if message and label is errors["general"] and field not in ("plan", "general"):
            message = f"{field}: {message}"
        label.set_error(message)
        if message and label is not errors["general"]:
            self.inputs_scroll.ensureWidgetVisible(label)

    def field_error(self, field: str) -> str:
        """The error text now shown at ``field`` ("" when none)."""
        if field == "efficiency":
            label = self.bottom.time_panel.efficiency_error
        else:
            label = self.inputs.errors.get(field, self.inputs.errors["general"])
        return label.text() if label.isVisible() or not label.isHidden() else ""

    def flush(self) -> None:
        """Build the charts if still deferred and redraw now if a redraw is pending
        (screenshots, tests)."""
        if self.charts_area.timer.isActive():
            self.ensure_charts()
        if self._redraw_timer.isActive():
            self._redraw_timer.stop()
            self._on_redraw_timer()
        if self._levers_pending:
            self._draw_levers()
        self.charts_area.settle()

    def redraw_pending(self) -> None:
        """Run the redraw a change scheduled, now (the levers may stay deferred, as during a
        burst of changes): what one input change costs (benchmarks/redraw.py)."""
        if self._dirty:
            self._redraw_timer.stop()
            self._redraw()

    def _redraw(self) -> None:
        self.redraw_count += 1
        self._dirty = False
        estimate = self.state.estimate
        errors = self.inputs.errors
        for name in _FIELD_NAMES:
            if name in errors:
                errors[name].set_error(None)
        errors["general"].set_error(None)
        self.inputs.sync(self.state, estimate)
        self._draw_results(estimate)

    def _draw_results(self, estimate) -> None:
        state = self.state
        self.banner.set_estimate(estimate, self._units, short=self._presentation)
        note = self.detected_note()
        if self._presentation:
            # On a projector the verdict stays one line: which card and its memory are
            # in the tooltip; a lost card is still said.
            self.banner.setToolTip(note)
            note = fmt.lost_note(state.lost_gpus) if state.lost_gpus else ""
        if note:
            self.banner.setText(f"{self.banner.text()}\n{note}")
        self._show_host_ram(estimate)
        self.charts_area.draw(state, estimate)
        self.bottom.time_panel.set_estimate(estimate, self._units, state.assumption_overrides)
        self.bottom.time_panel.set_serving(state.sweeps.serving())
        mark_time_layout(self.bottom.time_panel, estimate)
        now = time.monotonic()
        burst = now - self._last_redraw_s < LEVERS_SETTLE_MS / 1000
        self._last_redraw_s = now
        if burst and not state.levers_ready():
            # Restarted by every change of the burst (at 0 ms), then at this delay.
            self._levers_pending = True
            self._redraw_timer.start(LEVERS_SETTLE_MS)
        else:
            self._draw_levers()
        self._fit_bottom_height()
        # Lay out what the new texts changed now, before the paint: otherwise the layout
        # runs after it and the panels are painted a second time.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)

    def _show_host_ram(self, estimate) -> None:
        """The offload's host-RAM verdict under the banner (hidden without offload)."""
        label = self.host_ram_label
        needed = float(estimate.memory.cpu_bytes or 0.0)
        if needed <= 0:
            if not label.isHidden():
                label.hide()
            return
        total, available = self.host_ram_reader()
        check = check_host_ram(needed, available, total, units=self._units)
        text = QCoreApplication.translate(HOST_RAM_CONTEXT, check.template).format(
            **dict(check.params))
        verdict = "short" if check.fits is False else "fits"
        if verdict == "fits" and self._presentation:
            # a projector shows the host's RAM only when it falls short: a line that it
            # fits took the charts' room on a 1280 x 720 page
            if not label.isHidden():
                label.hide()
            return
        if label.property("verdict") != verdict:
            label.setProperty("verdict", verdict)
            label.style().unpolish(label)
            label.style().polish(label)
        if label.text() != text:
            label.setText(text)
        label.show()

    def host_ram_text(self) -> str:
        """The host-RAM verdict shown ("" when the plan offloads nothing)."""
        return "" if self.host_ram_label.isHidden() else self.host_ram_label.text()

    def _draw_levers(self) -> None:
        self._levers_pending = False
        self.bottom.levers_panel.set_levers(self.state.levers(), self.state.estimate,
                                            self._units, fitting_only=self._presentation)
        self._fit_bottom_height()

    def _fit_bottom_height(self) -> None:
        # Tabs whether or not the time panel takes its larger share: decided at the
        # quarter share, so that the larger share does not itself turn the grid into tabs.
        charts = self.charts_area
        at_quarter = charts.height() + self.bottom.height() - self.height() // 4
        paged = charts.paged if not charts.charts else charts.would_page(at_quarter)
        self.bottom.fit_height(self.height(), self._presentation, paged)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_bottom_height()
        self._size_inputs_column()

    def _size_inputs_column(self) -> None:
        # QSplitter shares space by size hints only once; give the inputs their preferred
        # width (full GPU names) when the window is wide enough, the charts the rest.
        total = self.splitter.width()
        inputs = self.inputs_scroll.sizeHint().width()
        if total > 2.5 * inputs and self.splitter.sizes()[0] < inputs:
            self.splitter.setSizes([inputs, total - inputs])

    # ================================================================== page API
    @property
    def units(self) -> str:
        return self._units

    def set_units(self, units: str) -> None:
        """Show memory in "GiB" or "GB" everywhere on the page."""
        self._units = units
        self.charts_area.set_units(units)
        self.inputs.fill_gpu_choices(self.state, units)
        self._redraw()

    def set_presentation(self, enabled: bool) -> None:
        """Large text and thick lines in the charts (the window sets fonts and colours)."""
        self._presentation = enabled
        self.charts_area.set_presentation(enabled)
        self.bottom.set_presentation(enabled)
        self.show_inputs(not enabled)
        self.inputs_scroll.updateGeometry()
        self._fit_bottom_height()
        self._draw_results(self.state.estimate)

    def summary_markdown(self) -> str:
        """The plan, its memory, time and levers as Markdown."""
        return markdown_summary(self.state.estimate, self.state.levers(), self._units)

    def shutdown(self) -> None:
        """Stop the timers and stop listening to the state (the page is closing)."""
        self._redraw_timer.stop()
        self.charts_area.timer.stop()
        if self._dialog is not None:
            self._dialog.close()
        if self._connected:
            self._connected = False
            self.state.changed.disconnect(self._on_state_changed)
            self.state.error.disconnect(self._on_state_error)
            self.state.detected_changed.disconnect(self._on_detected_changed)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


def _part(region: str, name: str) -> property:
    """``page.<name>`` reads ``page.<region>.<name>``."""
    return property(lambda page: getattr(getattr(page, region), name),
                    doc=f"``{region}.{name}``")


# The regions' widgets as the page's own attributes (the window, tests and screenshots
# reach them so); the charts exist only once built.
for _name in PlanInputs.WIDGETS:
    setattr(PlanPage, _name, _part("inputs", _name))
for _name in ("charts", "chart_titles", "vram_chart", "mb_chart", "seq_chart", "fit_map"):
    setattr(PlanPage, _name, _part("charts_area", _name))
for _name in ("time_panel", "levers_panel", "time_scroll", "levers_scroll"):
    setattr(PlanPage, _name, _part("bottom", _name))
del _name

__all__ = ["PlanPage"]
