"""The Plan page: the plan's inputs on the left, charts, time and "Make it fit" on the right.

A thin view over :class:`gpuadvisor.state.PlanState`: user edits go straight to the state
(``update``, ``set_model``, ``set_gpu``, ...); the state's ``changed`` signal schedules one
redraw for however many changes arrive in the same pass of the event loop (a 0 ms single-shot
timer owned by the page and stopped on close), and the redraw sets every widget from the state
with its signals blocked, so nothing loops back. A change the state refuses comes back as
``error(field, message)`` and is shown in words under that field.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QEvent, QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core import plan as P
from gpuadvisor.core.estimate import REFERENCE_GPU_ID
from gpuadvisor.core.units import format_bytes, format_count, parse_count
from gpuadvisor.gui.widgets import labels as L
from gpuadvisor.gui.widgets.custom_model import CustomModelDialog
from gpuadvisor.gui.widgets.fields import ErrorLabel, SearchComboBox, SequenceInput
from gpuadvisor.gui.widgets.panels import LeversPanel, TimePanel, VerdictBanner
from gpuadvisor.gui.widgets.summary import markdown_summary

#: Id of the model picker's entry for a model that is not a preset (config.json, custom).
CUSTOM_ITEM = "__custom__"
#: Id of the GPU picker's "no GPU" entry.
NO_GPU_ITEM = "__none__"

#: Fit map grid: micro-batches (rows) and sequence lengths (columns).
FIT_MAP_MICRO_BATCHES = (1, 2, 4, 8, 16, 32, 64)
FIT_MAP_SEQ_LENS = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)

#: Plan fields whose widgets this page owns (error messages for other fields go to the top).
_FIELD_NAMES = (
    "model", "task", "precision", "optimizer", "micro_batch", "grad_accum", "seq_len",
    "checkpointing", "attention", "lora_rank", "lora_targets", "quant", "n_gpus",
    "zero_stage", "offload", "dataset_tokens", "dataset_samples", "epochs", "gpu",
    "new_tokens", "kv_dtype",
)


def micro_batch_axis(current: int, largest_fit: int | None) -> np.ndarray:
    """Micro-batches for the memory curve: 1 up to past the current one and the largest fit."""
    top = max(16, 2 * current)
    if largest_fit:
        top = max(top, math.ceil(1.25 * largest_fit))
    top = min(top, 1024, max(16, 2 * current, 64))
    top = max(top, current)
    if top <= 32:
        return np.arange(1, top + 1, dtype=float)
    return np.unique(np.round(np.geomspace(1, top, 28))).astype(float)


def seq_axis(current: int, context: int) -> np.ndarray:
    """Sequence lengths for the memory curve: powers of two (and halfway points) from 128."""
    top = max(4096, 2 * current, context or 0)
    top = min(top, 1 << 17)
    top = max(top, current)
    exponents = np.arange(7, math.log2(top) + 0.01, 0.5)
    values = np.unique(np.round(2.0 ** exponents))
    if current not in values:
        values = np.unique(np.append(values, float(current)))
    return values


class PlanPage(QWidget):
    """Model, task and knobs on the left; VRAM, curves, fit map, time and levers on the right.

    Attributes:
        state: the shared :class:`~gpuadvisor.state.PlanState`.
        errors: field name -> the :class:`ErrorLabel` under that field (plus "general").
        vram_chart, mb_chart, seq_chart, fit_map: the charts.
        time_panel, levers_panel, banner: the read-outs.
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
        # One redraw per burst of changes: the timer fires once the event loop is idle.
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(0)
        self._redraw_timer.timeout.connect(self._redraw)
        self.errors: dict[str, ErrorLabel] = {}

        self._build()
        self._fill_choices()
        self._connect_inputs()
        self.state.changed.connect(self._on_state_changed)
        self.state.error.connect(self._on_state_error)
        self.state.detected_changed.connect(self._on_detected_changed)
        self._connected = True
        # Charts come after the first paint when deferred: the placeholder's first paint
        # starts this timer, which the page owns and stops on close.
        self._charts_timer = QTimer(self)
        self._charts_timer.setSingleShot(True)
        self._charts_timer.setInterval(0)
        self._charts_timer.timeout.connect(self.ensure_charts)
        if defer_charts:
            self.charts_placeholder.installEventFilter(self)
        else:
            self.ensure_charts()
        self._redraw()

    # ================================================================== layout
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter)

        self.inputs_scroll = _InputsScroll(self.splitter)
        self.inputs_scroll.setObjectName("planInputs")
        self.inputs_scroll.setWidgetResizable(True)
        self.inputs_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.inputs_scroll.setFrameShape(QFrame.Shape.NoFrame)
        inputs = QWidget()
        inputs.setObjectName("planInputsBody")
        self.inputs_layout = QVBoxLayout(inputs)
        self.inputs_layout.setContentsMargins(8, 8, 8, 8)
        self.errors["general"] = ErrorLabel(inputs)
        self.inputs_layout.addWidget(self.errors["general"])
        self._build_model_group(inputs)
        self._build_task_group(inputs)
        self._build_batch_group(inputs)
        self._build_memory_group(inputs)
        self._build_gpu_group(inputs)
        self._build_data_group(inputs)
        self.inputs_layout.addStretch(1)
        self.inputs_scroll.setWidget(inputs)

        right = QWidget(self.splitter)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 8, 8, 8)
        self.banner = VerdictBanner(right)
        right_layout.addWidget(self.banner)
        self.charts_area = QWidget(right)
        self.charts_area.setObjectName("chartsArea")
        self._charts_grid = QGridLayout(self.charts_area)
        self._charts_grid.setContentsMargins(0, 0, 0, 0)
        self._charts_grid.setHorizontalSpacing(10)
        self._charts_grid.setVerticalSpacing(2)
        self.charts_placeholder = QLabel(self.tr("Drawing charts…"), self.charts_area)
        self.charts_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.charts_placeholder.setProperty("role", "note")
        self._charts_grid.addWidget(self.charts_placeholder, 0, 0)
        self.charts: list = []
        self.chart_titles: dict[str, QLabel] = {}
        right_layout.addWidget(self.charts_area, 1)

        # Time and levers below the charts: as tall as the time panel needs (the levers
        # scroll when there are many), the rest goes to the charts.
        self.bottom = QWidget(right)
        bottom = QHBoxLayout(self.bottom)
        bottom.setContentsMargins(0, 4, 0, 0)
        self.time_panel = TimePanel(self.bottom)
        self.levers_panel = LeversPanel(self.bottom)
        self.time_scroll = _scroller(self.time_panel, self.bottom)
        self.levers_scroll = _scroller(self.levers_panel, self.bottom)
        bottom.addWidget(self.time_scroll, 1)
        bottom.addWidget(self.levers_scroll, 1)
        right_layout.addWidget(self.bottom, 0)

        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)

    def ensure_charts(self) -> None:
        """Build the four charts (once) and draw the plan in them."""
        self._charts_timer.stop()
        if self.charts:
            return
        # pyqtgraph is imported here, not at module level: see ``defer_charts``.
        from gpuadvisor.gui.charts.curves import MemoryCurveChart
        from gpuadvisor.gui.charts.fit_map import FitMapChart
        from gpuadvisor.gui.charts.vram_bar import VramBreakdownChart

        area, grid = self.charts_area, self._charts_grid
        self.charts_placeholder.removeEventFilter(self)
        grid.removeWidget(self.charts_placeholder)
        self.charts_placeholder.hide()
        self.vram_chart = VramBreakdownChart(area, units=self._units)
        self.mb_chart = MemoryCurveChart(area, x_label=self.tr("micro-batch"), units=self._units)
        self.seq_chart = MemoryCurveChart(area, x_label=self.tr("sequence length"), log_x=True,
                                          units=self._units)
        self.fit_map = FitMapChart(area, units=self._units)
        self.charts = [self.vram_chart, self.mb_chart, self.seq_chart, self.fit_map]
        for row, col, chart, name, title in (
            (0, 0, self.vram_chart, "vramChart", self.tr("Memory per GPU")),
            (0, 1, self.fit_map, "fitMapChart",
             self.tr("What fits: micro-batch × sequence length")),
            (2, 0, self.mb_chart, "microBatchChart", self.tr("Memory vs micro-batch")),
            (2, 1, self.seq_chart, "seqChart", self.tr("Memory vs sequence length")),
        ):
            chart.setObjectName(name)
            chart.setMinimumSize(200, 130)
            chart.set_presentation(self._presentation)
            label = QLabel(title, area)
            label.setProperty("role", "chartTitle")
            self.chart_titles[name] = label
            grid.addWidget(label, row, col)
            grid.addWidget(chart, row + 1, col)
        grid.setRowStretch(1, 1)
        grid.setRowStretch(3, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        self._draw_charts(self.state.estimate)
        self.charts_built.emit()

    def eventFilter(self, watched, event) -> bool:
        if (watched is self.charts_placeholder and event.type() == QEvent.Type.Paint
                and not self.charts and not self._charts_timer.isActive()):
            self._charts_timer.start()
        return super().eventFilter(watched, event)

    def _group(self, parent: QWidget, title: str) -> QFormLayout:
        box = QGroupBox(title, parent)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.inputs_layout.addWidget(box)
        return form

    def _add_field(self, form: QFormLayout, label: str, widget: QWidget, name: str) -> None:
        """A labelled input with its error label under it."""
        widget.setObjectName(name)
        if isinstance(widget, QComboBox):
            # Narrow in the column (long names are clipped there), full width in the list.
            widget.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            widget.setMinimumContentsLength(10)
        form.addRow(label, widget)
        error = ErrorLabel(widget.parentWidget())
        error.setObjectName(f"{name}Error")
        form.addRow("", error)
        self.errors[name] = error

    def _build_model_group(self, parent: QWidget) -> None:
        box = QGroupBox(self.tr("Model"), parent)
        self.model_group = box
        layout = QVBoxLayout(box)
        self.model_combo = SearchComboBox(box)
        self.model_combo.setObjectName("model")
        self.model_combo.lineEdit().setPlaceholderText(self.tr("Type to search presets"))
        self.model_combo.setToolTip(self.tr("Type part of a name (e.g. \"llama 8b\") and "
                                            "press Enter, or pick from the list"))
        layout.addWidget(self.model_combo)
        buttons = QHBoxLayout()
        self.open_config_button = QPushButton(self.tr("Open config.json…"), box)
        self.open_config_button.setToolTip(self.tr("Use a Hugging Face config.json from disk"))
        self.custom_button = QPushButton(self.tr("Custom…"), box)
        self.custom_button.setToolTip(self.tr("Type in architecture numbers"))
        buttons.addWidget(self.open_config_button)
        buttons.addWidget(self.custom_button)
        layout.addLayout(buttons)
        self.model_info = QLabel(box)
        self.model_info.setObjectName("modelInfo")
        self.model_info.setWordWrap(True)
        self.model_info.setProperty("role", "note")
        layout.addWidget(self.model_info)
        self.errors["model"] = ErrorLabel(box)
        self.errors["model"].setObjectName("modelError")
        layout.addWidget(self.errors["model"])
        self.inputs_layout.addWidget(box)

    def _build_task_group(self, parent: QWidget) -> None:
        form = self._group(parent, self.tr("Task"))
        self.task_combo = QComboBox()
        self.precision_combo = QComboBox()
        self.optimizer_combo = QComboBox()
        self._add_field(form, self.tr("Task"), self.task_combo, "task")
        self._add_field(form, self.tr("Precision"), self.precision_combo, "precision")
        self._add_field(form, self.tr("Optimizer"), self.optimizer_combo, "optimizer")

    def _build_batch_group(self, parent: QWidget) -> None:
        form = self._group(parent, self.tr("Batch"))
        self.micro_batch_spin = QSpinBox()
        self.micro_batch_spin.setRange(1, 65536)
        self.micro_batch_spin.setKeyboardTracking(False)
        self.micro_batch_spin.setToolTip(self.tr("Sequences per GPU per forward/backward pass"))
        self.grad_accum_spin = QSpinBox()
        self.grad_accum_spin.setRange(1, 65536)
        self.grad_accum_spin.setKeyboardTracking(False)
        self.grad_accum_spin.setToolTip(self.tr("Micro-batches per optimizer step"))
        self.seq_input = SequenceInput()
        self.seq_input.spin.setToolTip(self.tr("Tokens per sequence"))
        self.new_tokens_spin = QSpinBox()
        self.new_tokens_spin.setRange(1, 1 << 20)
        self.new_tokens_spin.setKeyboardTracking(False)
        self.new_tokens_spin.setToolTip(self.tr("Inference: tokens generated per sequence"))
        self.global_batch = QLabel()
        self.global_batch.setObjectName("globalBatch")
        self.global_batch.setWordWrap(True)
        self.global_batch.setProperty("role", "note")
        self._add_field(form, self.tr("Micro-batch"), self.micro_batch_spin, "micro_batch")
        self._add_field(form, self.tr("Grad. accumulation"), self.grad_accum_spin, "grad_accum")
        self._add_field(form, self.tr("Sequence length"), self.seq_input, "seq_len")
        self._add_field(form, self.tr("New tokens"), self.new_tokens_spin, "new_tokens")
        form.addRow("", self.global_batch)

    def _build_memory_group(self, parent: QWidget) -> None:
        form = self._group(parent, self.tr("Memory savers"))
        self.checkpointing_combo = QComboBox()
        self.attention_combo = QComboBox()
        self.quant_combo = QComboBox()
        self.lora_rank_spin = QSpinBox()
        self.lora_rank_spin.setRange(1, 4096)
        self.lora_rank_spin.setKeyboardTracking(False)
        self.lora_targets_combo = QComboBox()
        self.kv_dtype_combo = QComboBox()
        self._add_field(form, self.tr("Checkpointing"), self.checkpointing_combo, "checkpointing")
        self._add_field(form, self.tr("Attention"), self.attention_combo, "attention")
        self._add_field(form, self.tr("Quantization"), self.quant_combo, "quant")
        self._add_field(form, self.tr("LoRA rank"), self.lora_rank_spin, "lora_rank")
        self._add_field(form, self.tr("LoRA targets"), self.lora_targets_combo, "lora_targets")
        self._add_field(form, self.tr("KV cache"), self.kv_dtype_combo, "kv_dtype")

    def _build_gpu_group(self, parent: QWidget) -> None:
        form = self._group(parent, self.tr("GPUs"))
        self.gpu_combo = SearchComboBox()
        self.gpu_combo.lineEdit().setPlaceholderText(self.tr("Type to search GPUs"))
        self.n_gpus_spin = QSpinBox()
        self.n_gpus_spin.setRange(1, 4096)
        self.n_gpus_spin.setKeyboardTracking(False)
        self.zero_combo = QComboBox()
        self.offload_combo = QComboBox()
        self._add_field(form, self.tr("Target GPU"), self.gpu_combo, "gpu")
        self._add_field(form, self.tr("Number of GPUs"), self.n_gpus_spin, "n_gpus")
        self._add_field(form, self.tr("ZeRO / FSDP"), self.zero_combo, "zero_stage")
        self._add_field(form, self.tr("CPU offload"), self.offload_combo, "offload")

    def _build_data_group(self, parent: QWidget) -> None:
        form = self._group(parent, self.tr("Data set"))
        self.tokens_edit = QLineEdit()
        self.tokens_edit.setToolTip(self.tr("Training tokens over all epochs, e.g. 2T, 300M"))
        self.samples_edit = QLineEdit()
        self.samples_edit.setToolTip(self.tr("Samples per epoch, e.g. 52k"))
        self.epochs_spin = QDoubleSpinBox()
        self.epochs_spin.setRange(0.01, 10000)
        self.epochs_spin.setDecimals(2)
        self.epochs_spin.setKeyboardTracking(False)
        self._add_field(form, self.tr("Tokens"), self.tokens_edit, "dataset_tokens")
        self._add_field(form, self.tr("or samples"), self.samples_edit, "dataset_samples")
        self._add_field(form, self.tr("× epochs"), self.epochs_spin, "epochs")
        self.data_note = QLabel()
        self.data_note.setObjectName("dataNote")
        self.data_note.setWordWrap(True)
        self.data_note.setProperty("role", "note")
        form.addRow(self.data_note)

    # ================================================================== choices
    def _fill_choices(self) -> None:
        def fill(combo: QComboBox, table: dict, values) -> None:
            with QSignalBlocker(combo):
                combo.clear()
                for value in values:
                    combo.addItem(L.label(table, value), value)

        fill(self.task_combo, L.TASKS, P.TASKS)
        fill(self.precision_combo, L.PRECISIONS, P.PRECISIONS)
        fill(self.optimizer_combo, L.OPTIMIZERS, P.OPTIMIZERS)
        fill(self.checkpointing_combo, L.CHECKPOINTING, P.CHECKPOINTING)
        fill(self.attention_combo, L.ATTENTION, P.ATTENTION)
        fill(self.quant_combo, L.QUANT, P.QUANT)
        fill(self.lora_targets_combo, L.LORA_TARGETS, P.LORA_TARGETS)
        fill(self.zero_combo, L.ZERO, (0, 1, 2, 3))
        fill(self.offload_combo, L.OFFLOAD, P.OFFLOAD)
        with QSignalBlocker(self.kv_dtype_combo):
            self.kv_dtype_combo.clear()
            self.kv_dtype_combo.addItem(self.tr("same as compute (16-bit)"), None)
            for value in P.KV_DTYPES:
                self.kv_dtype_combo.addItem(value, value)

        models = self.state.models
        self.model_combo.set_items(
            [(mid, f"{m.name} ({format_count(m.params().total)})") for mid, m in models.items()],
            search={mid: f"{m.family} {m.kind}" for mid, m in models.items()},
        )
        self._fill_gpu_choices()
        for combo in self.findChildren(QComboBox):
            # The drop-down list shows whole names even where the box itself is narrow.
            view = combo.view()
            view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 24)

    def _fill_gpu_choices(self) -> None:
        """Detected cards first ("This machine: ..."), then "No GPU", then the catalog."""
        gpus = self.state.gpus
        items = [(gid, self._detected_text(info))
                 for gid, info in self.state.detected_gpus.items()]
        items += [(NO_GPU_ITEM, self.tr("No GPU (memory only)"))]
        items += [(gid, f"{g.name} · {g.memory_gib:g} GB") for gid, g in gpus.items()]
        search = {gid: f"{g.vendor} {g.architecture}" for gid, g in gpus.items()}
        search.update({gid: f"{info.vendor} {info.name} this machine detected"
                       for gid, info in self.state.detected_gpus.items()})
        with QSignalBlocker(self.gpu_combo):
            self.gpu_combo.set_items(items, search=search)
            self.gpu_combo.set_current_id(self.state.gpu_id or NO_GPU_ITEM)

    def _detected_text(self, info) -> str:
        free = format_bytes(info.memory_free_bytes, self._units) \
            if info.memory_free_bytes is not None else self.tr("n/a")
        args = {"name": info.name, "free": free,
                "total": format_bytes(info.memory_total_bytes, self._units)}
        if info.backend == "simulated":
            return self.tr("Demo rig: {name} (free {free} / total {total})").format(**args)
        return self.tr("This machine: {name} (free {free} / total {total})").format(**args)

    def _on_detected_changed(self) -> None:
        self._fill_gpu_choices()
        self._redraw_timer.start()

    def detected_note(self) -> str:
        """Which memory the fit used when the target is a detected card ("" otherwise)."""
        info = self.state.detected_gpu
        if info is None:
            return ""
        units = self._units
        free = format_bytes(info.memory_free_bytes, units) \
            if info.memory_free_bytes is not None else self.tr("n/a")
        note = self.tr("Checked on your {name} ({total} total, {free} free now)").format(
            name=_short_gpu_name(info.name), total=format_bytes(info.memory_total_bytes, units),
            free=free)
        if info.catalog_id is None:
            reference = self.state.gpus.get(REFERENCE_GPU_ID)
            note += " · " + self.tr("unmatched card: memory from the driver, time from the "
                                    "{reference} peak").format(
                reference=reference.name if reference is not None else REFERENCE_GPU_ID)
        return note

    # ================================================================== user edits
    def _connect_inputs(self) -> None:
        self.model_combo.picked.connect(self._on_model_picked)
        self.model_combo.no_match.connect(lambda text: self._show_error(
            "model", self.tr("No preset matches \"{text}\"").format(text=text)))
        self.open_config_button.clicked.connect(self.open_config)
        self.custom_button.clicked.connect(self.open_custom_model)
        self.gpu_combo.picked.connect(self._on_gpu_picked)
        self.gpu_combo.no_match.connect(lambda text: self._show_error(
            "gpu", self.tr("No GPU in the catalog matches \"{text}\"").format(text=text)))

        for combo, name in (
            (self.task_combo, "task"), (self.precision_combo, "precision"),
            (self.optimizer_combo, "optimizer"), (self.checkpointing_combo, "checkpointing"),
            (self.attention_combo, "attention"), (self.quant_combo, "quant"),
            (self.lora_targets_combo, "lora_targets"), (self.zero_combo, "zero_stage"),
            (self.offload_combo, "offload"), (self.kv_dtype_combo, "kv_dtype"),
        ):
            combo.activated.connect(
                lambda _i, c=combo, n=name: self.edit(n, c.currentData()))
        for spin, name in (
            (self.micro_batch_spin, "micro_batch"), (self.grad_accum_spin, "grad_accum"),
            (self.lora_rank_spin, "lora_rank"), (self.n_gpus_spin, "n_gpus"),
            (self.new_tokens_spin, "new_tokens"),
        ):
            spin.valueChanged.connect(lambda v, n=name: self.edit(n, int(v)))
        self.seq_input.valueChanged.connect(lambda v: self.edit("seq_len", int(v)))
        self.epochs_spin.valueChanged.connect(lambda v: self.edit("epochs", float(v)))
        self.tokens_edit.editingFinished.connect(
            lambda: self._edit_count("dataset_tokens", self.tokens_edit))
        self.samples_edit.editingFinished.connect(
            lambda: self._edit_count("dataset_samples", self.samples_edit))
        self.time_panel.efficiency_edited.connect(self._on_efficiency)
        self.levers_panel.lever_clicked.connect(self.apply_lever)

    def edit(self, name: str, value) -> bool:
        """Write one plan field to the state (what every input does)."""
        self._show_error(name, None)
        if getattr(self.state.plan, name) == value:
            return True
        return self.state.update(**{name: value})

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
                self._show_error(name, self.tr(
                    "\"{text}\" is not a count: type a number like 2T, 1.5B, 300M or 52k"
                ).format(text=text))
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
        self.time_panel.set_efficiency_error(None)
        self.state.set_efficiency(value)

    def apply_lever(self, lever) -> bool:
        """Apply a "Make it fit" lever to the plan."""
        ok = self.state.apply_lever(lever)
        if ok:
            self.status.emit(self.tr("Applied: {lever}").format(lever=lever.detail))
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
        self._redraw_timer.start()

    def _on_state_error(self, field: str, message: str) -> None:
        self._show_error(field, message)
        self.status.emit(message)

    def _show_error(self, field: str, message: str | None) -> None:
        if field == "efficiency":
            self.time_panel.set_efficiency_error(message)
            return
        label = self.errors.get(field) or self.errors["general"]
        if message and label is self.errors["general"] and field not in ("plan", "general"):
            message = f"{field}: {message}"
        label.set_error(message)
        if message and label is not self.errors["general"]:
            self.inputs_scroll.ensureWidgetVisible(label)

    def field_error(self, field: str) -> str:
        """The error text now shown at ``field`` ("" when none)."""
        if field == "efficiency":
            label = self.time_panel.efficiency_error
        else:
            label = self.errors.get(field, self.errors["general"])
        return label.text() if label.isVisible() or not label.isHidden() else ""

    def flush(self) -> None:
        """Build the charts if still deferred and redraw now if a redraw is pending
        (screenshots, tests)."""
        if self._charts_timer.isActive():
            self.ensure_charts()
        if self._redraw_timer.isActive():
            self._redraw_timer.stop()
            self._redraw()

    def _redraw(self) -> None:
        self.redraw_count += 1
        estimate = self.state.estimate
        for name in _FIELD_NAMES:
            if name in self.errors:
                self.errors[name].set_error(None)
        self.errors["general"].set_error(None)
        self._sync_inputs(estimate)
        self._draw_results(estimate)

    def _sync_inputs(self, estimate) -> None:
        state, plan, model = self.state, self.state.plan, self.state.model
        opaque = model.kind == "opaque"
        if state.is_custom_model:
            text = self.tr("{name} (custom, {count})").format(
                name=model.name, count=format_count(model.params().total))
            ids = self.model_combo.ids()
            if CUSTOM_ITEM in ids:
                row = ids.index(CUSTOM_ITEM)
                self.model_combo.setItemText(row, text)
            else:
                self.model_combo.add_item(CUSTOM_ITEM, text)
            self.model_combo.set_current_id(CUSTOM_ITEM)
        else:
            self.model_combo.set_current_id(state.model_id)
        self.model_info.setText(self._model_info(estimate))

        def combo(widget: QComboBox, value) -> None:
            with QSignalBlocker(widget):
                widget.setCurrentIndex(max(0, widget.findData(value)))

        def spin(widget, value) -> None:
            if widget.value() != value:
                with QSignalBlocker(widget):
                    widget.setValue(value)

        combo(self.task_combo, plan.task)
        combo(self.precision_combo, plan.precision)
        combo(self.optimizer_combo, plan.optimizer)
        combo(self.checkpointing_combo, plan.checkpointing)
        combo(self.attention_combo, plan.attention)
        combo(self.quant_combo, plan.effective_quant)
        combo(self.lora_targets_combo, plan.lora_targets)
        combo(self.zero_combo, plan.zero_stage)
        combo(self.offload_combo, plan.offload)
        combo(self.kv_dtype_combo, plan.kv_dtype)
        spin(self.micro_batch_spin, plan.micro_batch)
        spin(self.grad_accum_spin, plan.grad_accum)
        spin(self.lora_rank_spin, plan.effective_lora_rank)
        spin(self.n_gpus_spin, plan.n_gpus)
        spin(self.new_tokens_spin, plan.new_tokens)
        spin(self.epochs_spin, float(plan.epochs))
        self.seq_input.setValue(plan.seq_len)
        self.gpu_combo.set_current_id(state.gpu_id or NO_GPU_ITEM)

        training = plan.is_training
        for widget in (self.optimizer_combo, self.grad_accum_spin, self.checkpointing_combo,
                       self.zero_combo, self.offload_combo, self.tokens_edit,
                       self.samples_edit, self.epochs_spin):
            widget.setEnabled(training)
        self.attention_combo.setEnabled(not opaque)
        self.seq_input.setEnabled(not opaque)
        self.lora_rank_spin.setEnabled(plan.is_adapter)
        self.lora_targets_combo.setEnabled(plan.is_adapter)
        self.quant_combo.setEnabled(plan.task in ("qlora", "infer"))
        self.new_tokens_spin.setEnabled(not training)
        self.kv_dtype_combo.setEnabled(not training and model.kind == "decoder")
        self.tokens_edit.setEnabled(training and not opaque)
        self.global_batch.setText(self.tr("{n} × {seq} tokens per optimizer step").format(
            n=f"{plan.global_batch:,}", seq=f"{plan.seq_len:,}") if training else "")
        self.global_batch.setVisible(training)

        a = estimate.assumptions
        if not self.tokens_edit.hasFocus():
            self.tokens_edit.setText(
                format_count(plan.dataset_tokens) if plan.dataset_tokens else "")
        if not self.samples_edit.hasFocus():
            self.samples_edit.setText(
                format_count(plan.dataset_samples) if plan.dataset_samples else "")
        if training and "dataset_tokens" in a:
            unit = self.tr("samples") if opaque else self.tr("tokens")
            source = a.get("dataset_tokens_source", "assumed")
            amount = f"{format_count(a['dataset_tokens'])} {unit}"
            if source == "assumed":
                self.data_note.setText(self.tr(
                    "Not given: assuming {amount}. Fill in tokens, or samples × epochs."
                ).format(amount=amount))
            else:
                self.data_note.setText(self.tr("Training on {amount} in all.").format(
                    amount=amount))
            self.tokens_edit.setPlaceholderText(
                format_count(a["dataset_tokens"]) if not opaque else "")
        else:
            self.data_note.setText(self.tr("Inference: no data set.") if not training else "")

    def _model_info(self, estimate) -> str:
        model, plan = estimate.model, estimate.plan
        params = estimate.params
        parts = [self.tr("{total} parameters").format(total=format_count(params.total))]
        if params.active != params.total:
            parts.append(self.tr("{active} active").format(active=format_count(params.active)))
        if plan.is_training:
            share = 100.0 * estimate.params_trainable / max(params.total, 1)
            parts.append(self.tr("{n} trainable ({share:.2f}%)").format(
                n=format_count(estimate.params_trainable), share=share))
        if model.kind != "opaque":
            parts.append(self.tr("{layers} layers, hidden {hidden}, context {ctx}").format(
                layers=model.n_layers, hidden=model.d_model, ctx=f"{model.max_positions:,}"))
        elif model.sample_unit:
            parts.append(self.tr("one sample = {unit}").format(unit=model.sample_unit))
        return " · ".join(parts)

    def _draw_results(self, estimate) -> None:
        state = self.state
        self.banner.set_estimate(estimate, self._units)
        note = self.detected_note()
        if note:
            self.banner.setText(f"{self.banner.text()}\n{note}")
        self._draw_charts(estimate)
        self.time_panel.set_estimate(estimate, self._units, state.assumption_overrides)
        self.levers_panel.set_levers(state.levers(), estimate, self._units)
        self._fit_bottom_height()

    def _draw_charts(self, estimate) -> None:
        if not self.charts:
            return
        state = self.state
        plan = estimate.plan
        capacity = state.capacity_bytes
        gpu_name = _short_gpu_name(state.gpu.name) if state.gpu is not None else None
        self.vram_chart.set_data(estimate.memory.as_dict(), [self.tr("your plan")],
                                 capacity, gpu_name, estimate.verdict)
        largest_mb = state.largest_fitting_micro_batch()
        xs = micro_batch_axis(plan.micro_batch, largest_mb)
        self.mb_chart.set_data(xs, state.memory_vs_micro_batch(xs), capacity,
                               largest_mb or None, plan.micro_batch, gpu_name=gpu_name)
        opaque = estimate.model.kind == "opaque"
        self.seq_chart.setEnabled(not opaque)
        self.fit_map.setEnabled(not opaque)
        if opaque:
            self.seq_chart.set_data([], [], capacity, None, None, gpu_name=gpu_name)
            self.fit_map.set_data([], [], np.zeros((0, 0)), capacity, None)
        else:
            largest_seq = state.largest_fitting_seq()
            seqs = seq_axis(plan.seq_len, estimate.model.max_positions)
            self.seq_chart.set_data(seqs, state.memory_vs_seq(seqs), capacity,
                                    largest_seq or None, plan.seq_len, gpu_name=gpu_name)
            mbs, sls = np.array(FIT_MAP_MICRO_BATCHES), np.array(FIT_MAP_SEQ_LENS)
            self.fit_map.set_data(mbs, sls, state.fit_map(mbs, sls), capacity,
                                  (plan.micro_batch, plan.seq_len))

    def _fit_bottom_height(self) -> None:
        # As tall as the time panel wants, but never more than a third of the page (a
        # quarter in presentation mode, where the charts are what the room looks at): on a
        # small screen the panels scroll and the charts keep their room.
        wanted = self.time_panel.sizeHint().height() + 6
        share = 4 if self._presentation else 3
        height = max(120, min(wanted, self.height() // share)) if self.height() > 0 else wanted
        if self.bottom.height() != height:
            self.bottom.setFixedHeight(height)

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
        for chart in self.charts:
            chart.set_units(units)
        self._fill_gpu_choices()
        self._redraw()

    def set_presentation(self, enabled: bool) -> None:
        """Large text and thick lines in the charts (the window sets fonts and colours)."""
        self._presentation = enabled
        for chart in self.charts:
            chart.set_presentation(enabled)
        self.inputs_scroll.updateGeometry()
        self._fit_bottom_height()

    def summary_markdown(self) -> str:
        """The plan, its memory, time and levers as Markdown."""
        return markdown_summary(self.state.estimate, self.state.levers(), self._units)

    def shutdown(self) -> None:
        """Stop the timers and stop listening to the state (the page is closing)."""
        self._redraw_timer.stop()
        self._charts_timer.stop()
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


class _InputsScroll(QScrollArea):
    """The input column: never narrower than its widest row (nothing clipped), and it
    follows font changes (presentation mode) because the hint is asked for each time."""

    def minimumSizeHint(self) -> QSize:
        body = self.widget()
        if body is None:
            return super().minimumSizeHint()
        scrollbar = self.verticalScrollBar().sizeHint().width()
        return QSize(body.minimumSizeHint().width() + scrollbar + 2 * self.frameWidth(),
                     super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        # Preferred width: room for a full GPU name ("NVIDIA GeForce RTX 4090 · 24 GB") in
        # the combo boxes; the minimum stays the widest row so narrow windows still work.
        hint = self.minimumSizeHint()
        sample = "Number of GPUs  NVIDIA GeForce RTX 4090 · 24 GB"
        preferred = self.fontMetrics().horizontalAdvance(sample) + 110
        return QSize(max(hint.width(), preferred), super().sizeHint().height())


def _scroller(panel: QWidget, parent: QWidget) -> QScrollArea:
    """``panel`` in a frameless, vertical-only scroll area."""
    area = QScrollArea(parent)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(panel)
    return area


def _short_gpu_name(name: str) -> str:
    """"NVIDIA GeForce RTX 4090" -> "RTX 4090" for chart labels."""
    for prefix in ("NVIDIA GeForce ", "NVIDIA ", "AMD Radeon ", "AMD ", "Intel "):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


__all__ = ["PlanPage", "micro_batch_axis", "seq_axis"]
