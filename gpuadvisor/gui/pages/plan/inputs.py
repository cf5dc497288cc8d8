"""The Plan page's input column: model, task, batch, memory savers, GPUs and data set, each
field with its error label under it. The page connects the fields to the plan state and
calls :meth:`PlanInputs.sync` to show the state (signals blocked, nothing loops back)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSignalBlocker, QSize, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core import plan as P
from gpuadvisor.core.compute import training_job
from gpuadvisor.core.datasets import DATASETS, DEFAULT_FINETUNE_DATASET
from gpuadvisor.core.units import format_count
from gpuadvisor.gui import numbers as N
from gpuadvisor.gui.local_models import ModelFiles, ModelPicker
from gpuadvisor.gui.widgets import labels as L
from gpuadvisor.gui.widgets.fields import ErrorLabel, SearchComboBox, SequenceInput

from . import format as fmt
from .layout_pins import LayoutPins

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: Id of the model picker's entry for a model that is not a preset (config.json, custom).
CUSTOM_ITEM = "__custom__"
#: Id of the GPU picker's "no GPU" entry.
NO_GPU_ITEM = "__none__"
#: llama.cpp's backends by their own names (proper nouns, not translated).
BACKEND_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "vulkan": "Vulkan", "metal": "Metal"}


class PlanInputs(QWidget):
    """The fields of the plan (object name ``planInputsBody``).

    Attributes:
        errors: field name -> the :class:`ErrorLabel` under that field (plus "general", at
            the top, for fields without a widget here).
        WIDGETS: the names of the fields and notes, which the page shows as its own.
    """

    WIDGETS = (
        "model_group", "model_combo", "open_config_button", "custom_button", "model_info",
        "task_combo", "precision_combo", "optimizer_combo", "micro_batch_spin",
        "grad_accum_spin", "seq_input", "new_tokens_spin", "global_batch",
        "checkpointing_combo", "attention_combo", "quant_combo", "lora_rank_spin",
        "lora_targets_combo", "kv_dtype_combo", "framework_combo", "gpu_layers_spin",
        "n_cpu_moe_spin", "backend_combo", "gpu_memory_utilization_spin", "num_ctx_spin",
        "gpu_combo",
        "n_gpus_spin", "zero_combo",
        "offload_combo", "layout_pins", "tokens_edit", "samples_edit", "epochs_spin",
        "data_note", "errors", "inputs_layout",
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("planInputsBody")
        self.errors: dict[str, ErrorLabel] = {}
        self._state = None  # the plan state, from fill_choices (models on disk are set on it)
        self.inputs_layout = QVBoxLayout(self)
        self.inputs_layout.setContentsMargins(8, 8, 8, 8)
        self.errors["general"] = ErrorLabel(self)
        self.inputs_layout.addWidget(self.errors["general"])
        self._build_model_group()
        self._build_task_group()
        self._build_batch_group()
        self._build_memory_group()
        self._build_engine_group()
        self._build_gpu_group()
        self._build_data_group()
        self.inputs_layout.addStretch(1)

    # ================================================================== layout
    def _group(self, title: str) -> QFormLayout:
        box = QGroupBox(title, self)
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

    def _build_model_group(self) -> None:
        box = QGroupBox(translate("PlanPage", "Model"), self)
        self.model_group = box
        layout = QVBoxLayout(box)
        # Presets, then "On this computer": models found in the background (HF cache,
        # Ollama, LM Studio); reading one also runs off the GUI thread.
        self.model_combo = ModelPicker(box)
        self.model_combo.setObjectName("model")
        self.model_files = ModelFiles(self)
        self.model_files.found.connect(self.model_combo.set_local_models)
        self.model_files.loaded.connect(self._on_model_file_loaded)
        self.model_files.failed.connect(self.show_model_error)
        self.model_combo.local_picked.connect(self._on_local_picked)
        self.model_combo.lineEdit().setPlaceholderText(translate("PlanPage",
                                                                 "Type to search presets"))
        self.model_combo.setToolTip(translate("PlanPage", "Type part of a name (e.g. \"llama "
                                              "8b\") and press Enter, or pick from the list"))
        layout.addWidget(self.model_combo)
        buttons = QHBoxLayout()
        self.open_config_button = QPushButton(translate("PlanPage", "Open config.json…"), box)
        self.open_config_button.setToolTip(translate("PlanPage", "Use a Hugging Face "
                                                     "config.json from disk"))
        self.custom_button = QPushButton(translate("PlanPage", "Custom…"), box)
        self.custom_button.setToolTip(translate("PlanPage", "Type in architecture numbers"))
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

    def show_model_error(self, message: str | None) -> None:
        """Show ``message`` under the model picker (None hides it)."""
        self.errors["model"].set_error(message)

    def _on_local_picked(self, model) -> None:
        self.show_model_error(None)
        self.model_files.open_local(model)

    def _on_model_file_loaded(self, spec, _what: str) -> None:
        if self._state is not None:
            self._state.set_model(spec)

    def _build_task_group(self) -> None:
        form = self._group(translate("PlanPage", "Task"))
        self.task_combo = QComboBox()
        self.precision_combo = QComboBox()
        self.optimizer_combo = QComboBox()
        self.framework_combo = QComboBox()
        self.framework_combo.setToolTip(translate(
            "PlanPage", "The software that runs the plan: a fine-tuning framework changes what "
            "is kept in memory (logits, checkpoints), an inference engine how weights and the "
            "KV cache are stored and how fast tokens come"))
        self._add_field(form, translate("PlanPage", "Task"), self.task_combo, "task")
        self._add_field(form, translate("PlanPage", "Precision"), self.precision_combo,
                        "precision")
        self._add_field(form, translate("PlanPage", "Optimizer"), self.optimizer_combo,
                        "optimizer")
        self._add_field(form, translate("PlanPage", "Software"), self.framework_combo,
                        "framework")

    def _build_batch_group(self) -> None:
        form = self._group(translate("PlanPage", "Batch"))
        self.micro_batch_spin = QSpinBox()
        self.micro_batch_spin.setRange(1, 65536)
        self.micro_batch_spin.setKeyboardTracking(False)
        self.micro_batch_spin.setToolTip(translate("PlanPage", "Sequences per GPU per "
                                                   "forward/backward pass"))
        self.grad_accum_spin = QSpinBox()
        self.grad_accum_spin.setRange(1, 65536)
        self.grad_accum_spin.setKeyboardTracking(False)
        self.grad_accum_spin.setToolTip(translate("PlanPage", "Micro-batches per optimizer "
                                                  "step"))
        self.seq_input = SequenceInput()
        self.seq_input.spin.setToolTip(translate("PlanPage", "Tokens per sequence"))
        self.new_tokens_spin = QSpinBox()
        self.new_tokens_spin.setRange(1, 1 << 20)
        self.new_tokens_spin.setKeyboardTracking(False)
        self.new_tokens_spin.setToolTip(translate("PlanPage", "Inference: tokens generated per "
                                                  "sequence"))
        self.global_batch = QLabel()
        self.global_batch.setObjectName("globalBatch")
        self.global_batch.setWordWrap(True)
        self.global_batch.setProperty("role", "note")
        self._add_field(form, translate("PlanPage", "Micro-batch"), self.micro_batch_spin,
                        "micro_batch")
        self._add_field(form, translate("PlanPage", "Grad. accumulation"), self.grad_accum_spin,
                        "grad_accum")
        self._add_field(form, translate("PlanPage", "Sequence length"), self.seq_input,
                        "seq_len")
        self._add_field(form, translate("PlanPage", "New tokens"), self.new_tokens_spin,
                        "new_tokens")
        form.addRow("", self.global_batch)

    def _build_memory_group(self) -> None:
        form = self._group(translate("PlanPage", "Memory savers"))
        self.checkpointing_combo = QComboBox()
        self.attention_combo = QComboBox()
        self.quant_combo = QComboBox()
        self.lora_rank_spin = QSpinBox()
        self.lora_rank_spin.setRange(1, 4096)
        self.lora_rank_spin.setKeyboardTracking(False)
        self.lora_targets_combo = QComboBox()
        self.kv_dtype_combo = QComboBox()
        for text, widget, name in (
            (translate("PlanPage", "Checkpointing"), self.checkpointing_combo, "checkpointing"),
            (translate("PlanPage", "Attention"), self.attention_combo, "attention"),
            (translate("PlanPage", "Quantization"), self.quant_combo, "quant"),
            (translate("PlanPage", "LoRA rank"), self.lora_rank_spin, "lora_rank"),
            (translate("PlanPage", "LoRA targets"), self.lora_targets_combo, "lora_targets"),
            (translate("PlanPage", "KV cache"), self.kv_dtype_combo, "kv_dtype"),
        ):
            self._add_field(form, text, widget, name)

    def _build_engine_group(self) -> None:
        """llama.cpp's layer split and MoE offload, vLLM's memory share (inference only)."""
        form = self._group(translate("PlanPage", "Inference engine"))
        self.engine_group = form.parentWidget()
        self.gpu_layers_spin = QSpinBox()
        self.gpu_layers_spin.setRange(-1, 65536)
        # Unset: as many as fit (llama.cpp's --fit, Ollama's own estimate); the engine line
        # and the time panel say how many.
        self.gpu_layers_spin.setSpecialValueText(translate("PlanPage", "as many as fit"))
        self.gpu_layers_spin.setKeyboardTracking(False)
        self.gpu_layers_spin.setToolTip(translate(
            "PlanPage", "llama.cpp -ngl / Ollama num_gpu: layers kept on the GPU; the rest are "
            "read from host RAM for every token (slower). Left at \"as many as fit\", "
            "llama.cpp's --fit keeps 1 GiB of the card free (an MoE's experts move to host "
            "RAM first) and Ollama uses its own estimate."))
        self.n_cpu_moe_spin = QSpinBox()
        self.n_cpu_moe_spin.setRange(0, 65536)
        self.n_cpu_moe_spin.setKeyboardTracking(False)
        self.n_cpu_moe_spin.setToolTip(translate(
            "PlanPage", "llama.cpp --n-cpu-moe: the experts of the first N layers stay in host "
            "RAM (a large MoE model on a small card)"))
        self.gpu_memory_utilization_spin = QDoubleSpinBox()
        self.gpu_memory_utilization_spin.setRange(0.0, 1.0)
        self.gpu_memory_utilization_spin.setSingleStep(0.05)
        self.gpu_memory_utilization_spin.setDecimals(2)
        self.gpu_memory_utilization_spin.setSpecialValueText(translate("PlanPage",
                                                                       "default (0.90)"))
        self.gpu_memory_utilization_spin.setKeyboardTracking(False)
        self.gpu_memory_utilization_spin.setToolTip(translate(
            "PlanPage", "vLLM --gpu-memory-utilization: the share of the card vLLM takes; the "
            "KV cache gets what is left after weights and activations"))
        self._add_field(form, translate("PlanPage", "GPU layers"), self.gpu_layers_spin,
                        "gpu_layers")
        self._add_field(form, translate("PlanPage", "MoE layers on CPU"), self.n_cpu_moe_spin,
                        "n_cpu_moe")
        self.backend_combo = QComboBox()
        self.backend_combo.setToolTip(translate(
            "PlanPage", "llama.cpp's GPU backend, the one it was built with: CUDA on NVIDIA, "
            "ROCm on AMD, Metal on Apple, Vulkan on any (it launches every kernel on its own, "
            "without CUDA graphs). Ollama picks its backend itself."))
        self._add_field(form, translate("PlanPage", "llama.cpp backend"), self.backend_combo,
                        "backend")
        self._add_field(form, translate("PlanPage", "vLLM memory share"),
                        self.gpu_memory_utilization_spin, "gpu_memory_utilization")
        self.num_ctx_spin = QSpinBox()
        self.num_ctx_spin.setRange(0, P.MAX_SEQ_TOKENS)
        self.num_ctx_spin.setSingleStep(1024)
        self.num_ctx_spin.setSpecialValueText(translate("PlanPage", "default"))
        self.num_ctx_spin.setKeyboardTracking(False)
        self.num_ctx_spin.setToolTip(translate(
            "PlanPage", "Ollama's num_ctx: the context it allocates a KV cache for (default: "
            "Ollama's for the card's memory, up to the model's own context)"))
        self._add_field(form, translate("PlanPage", "Ollama context"), self.num_ctx_spin,
                        "num_ctx")

    def _build_gpu_group(self) -> None:
        form = self._group(translate("PlanPage", "GPUs"))
        self.gpu_combo = SearchComboBox()
        self.gpu_combo.lineEdit().setPlaceholderText(translate("PlanPage",
                                                               "Type to search GPUs"))
        self.n_gpus_spin = QSpinBox()
        self.n_gpus_spin.setRange(1, 4096)
        self.n_gpus_spin.setKeyboardTracking(False)
        self.zero_combo = QComboBox()
        self.offload_combo = QComboBox()
        self._add_field(form, translate("PlanPage", "Target GPU"), self.gpu_combo, "gpu")
        self._add_field(form, translate("PlanPage", "Number of GPUs"), self.n_gpus_spin,
                        "n_gpus")
        self._add_field(form, translate("PlanPage", "ZeRO / FSDP"), self.zero_combo,
                        "zero_stage")
        self._add_field(form, translate("PlanPage", "CPU offload"), self.offload_combo,
                        "offload")
        # Several GPUs training: the parallel layout, automatic or pinned.
        self.layout_pins = LayoutPins(form.parentWidget())
        form.addRow(self.layout_pins.mode_label, self.layout_pins.mode_combo)
        form.addRow(self.layout_pins)
        for name in (*P.LAYOUT_PINS, "layout_global_batch"):
            self.errors[name] = self.layout_pins.error

    def _build_data_group(self) -> None:
        form = self._group(translate("PlanPage", "Data set"))
        self.dataset_combo = QComboBox()
        self.dataset_combo.setToolTip(translate(
            "PlanPage", "The data set the time is for: its samples at their measured token "
                        "lengths (a fine-tune that names none is timed on Alpaca)"))
        self._add_field(form, translate("PlanPage", "Data"), self.dataset_combo, "dataset")
        self.packing_check = QCheckBox(translate("PlanPage", "Pack samples into full "
                                                 "sequences"))
        self.packing_check.setObjectName("packing")
        self.packing_check.setToolTip(translate(
            "PlanPage", "Packing (TRL packing=True) fills every sequence with real tokens; "
                        "without it each micro-batch is padded to its longest sample"))
        form.addRow("", self.packing_check)
        self.tokens_edit = QLineEdit()
        self.tokens_edit.setToolTip(translate("PlanPage", "Training tokens over all epochs, "
                                              "e.g. 2T, 300M"))
        self.samples_edit = QLineEdit()
        self.samples_edit.setToolTip(translate("PlanPage", "Samples per epoch, e.g. 52k"))
        self.epochs_spin = QDoubleSpinBox()
        self.epochs_spin.setRange(0.01, 10000)
        self.epochs_spin.setDecimals(2)
        self.epochs_spin.setKeyboardTracking(False)
        self._add_field(form, translate("PlanPage", "Tokens"), self.tokens_edit,
                        "dataset_tokens")
        self._add_field(form, translate("PlanPage", "or samples"), self.samples_edit,
                        "dataset_samples")
        self._add_field(form, translate("PlanPage", "× epochs"), self.epochs_spin, "epochs")
        self.data_note = QLabel()
        self.data_note.setObjectName("dataNote")
        self.data_note.setWordWrap(True)
        self.data_note.setProperty("role", "note")
        form.addRow(self.data_note)

    def _label_default_quant(self, plan, estimate) -> None:
        """The "none" entry says what an engine runs without a named type: an Ollama plan
        runs its default tag's GGUF type (Q4_K_M for most), a shipped MXFP4 model its own;
        16-bit otherwise, as the estimate itself says."""
        index = self.quant_combo.findData("none")
        if index < 0:
            return
        engine = getattr(estimate, "engine", None)
        gguf = engine.settings.get("gguf_file_type") if engine is not None else None
        runs_other = (plan.quant is None and isinstance(gguf, str)
                      and gguf.upper() not in ("F16", "FILE"))
        text = (translate("PlanPage", "default: {type} (what the engine runs)").format(
            type=gguf) if runs_other else L.label(L.QUANT, "none"))
        if self.quant_combo.itemText(index) != text:
            self.quant_combo.setItemText(index, text)

    # ================================================================== choices
    def fill_choices(self, state, units: str) -> None:
        """The choices of every picker: labels of the plan's options, the model presets,
        the GPUs (see :meth:`fill_gpu_choices`)."""
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
        fill(self.framework_combo, L.FRAMEWORKS, P.FRAMEWORKS)
        with QSignalBlocker(self.quant_combo):
            self.quant_combo.clear()
            for value in P.QUANT:  # GGUF file types by llama.cpp's names
                self.quant_combo.addItem(L.quant_label(value), value)
        fill(self.lora_targets_combo, L.LORA_TARGETS, P.LORA_TARGETS)
        fill(self.zero_combo, L.ZERO, (0, 1, 2, 3))
        fill(self.offload_combo, L.OFFLOAD, P.OFFLOAD)
        with QSignalBlocker(self.dataset_combo):
            self.dataset_combo.clear()
            self.dataset_combo.addItem(translate("PlanPage", "default"), None)
            for spec in DATASETS.values():
                self.dataset_combo.addItem(spec.name, spec.id)
        with QSignalBlocker(self.backend_combo):
            self.backend_combo.clear()
            self.backend_combo.addItem(translate("PlanPage", "the card's own"), None)
            for value in P.BACKENDS:
                self.backend_combo.addItem(BACKEND_NAMES[value], value)
        with QSignalBlocker(self.kv_dtype_combo):
            self.kv_dtype_combo.clear()
            self.kv_dtype_combo.addItem(translate("PlanPage", "same as compute (16-bit)"), None)
            for value in (*P.KV_DTYPES, *P.QUANTIZED_KV):
                self.kv_dtype_combo.addItem(value, value)

        models = state.models
        self._state = state
        self.model_combo.units = units
        # Presets grouped by family (families in catalog order, each family's models
        # together) with their total parameters, and the active ones for mixtures of experts.
        first_seen: dict[str, int] = {}
        for mid in models:
            first_seen.setdefault(models[mid].family, len(first_seen))
        order = sorted(models, key=lambda mid: first_seen[models[mid].family])
        self.model_combo.set_items(
            [(mid, preset_text(models[mid])) for mid in order],
            search={mid: f"{m.family} {m.kind}" for mid, m in models.items()},
        )
        if not self.model_files.scanned:
            self.model_files.scan()
        self.fill_gpu_choices(state, units)

    def fill_gpu_choices(self, state, units: str) -> None:
        """Detected cards first ("This machine: ..."), then "No GPU", then the catalog."""
        gpus = state.gpus
        items = [(gid, fmt.detected_item(info, units))
                 for gid, info in state.detected_gpus.items()]
        items += [(NO_GPU_ITEM, translate("PlanPage", "No GPU (memory only)"))]
        items += [(gid, fmt.catalog_gpu_item(g, units)) for gid, g in gpus.items()]
        # typed words find a card by its whole name, maker and architecture too
        search = {gid: f"{g.name} {g.vendor} {g.architecture}" for gid, g in gpus.items()}
        search.update({gid: f"{info.vendor} {info.name} this machine detected"
                       for gid, info in state.detected_gpus.items()})
        with QSignalBlocker(self.gpu_combo):
            self.gpu_combo.set_items(items, search=search)
            self.gpu_combo.set_current_id(state.gpu_id or NO_GPU_ITEM)

    # ================================================================== state -> fields
    def sync(self, state, estimate) -> None:
        """Show the state's plan in every field (signals blocked) and enable the fields that
        apply to it."""
        plan, model = state.plan, state.model
        opaque = model.kind == "opaque"
        if not state.is_custom_model:
            self.model_combo.set_current_id(state.model_id)
        elif not self.model_combo.select_local(model.extra.get("file_path", "")):
            # Not a model on this computer's list: the custom entry.
            text = fmt.custom_model_item(model)
            ids = self.model_combo.ids()
            if CUSTOM_ITEM in ids:
                self.model_combo.setItemText(ids.index(CUSTOM_ITEM), text)
            else:
                self.model_combo.add_item(CUSTOM_ITEM, text)
            self.model_combo.set_current_id(CUSTOM_ITEM)
        self.model_info.setText(fmt.model_info(estimate))

        def combo(widget: QComboBox, value) -> None:
            if widget.currentData() == value and widget.currentIndex() >= 0:
                return
            with QSignalBlocker(widget):
                widget.setCurrentIndex(max(0, widget.findData(value)))

        def spin(widget, value) -> None:
            if widget.value() != value:
                with QSignalBlocker(widget):
                    widget.setValue(value)

        combo(self.task_combo, plan.task)
        combo(self.dataset_combo, plan.dataset)
        if self.packing_check.isChecked() != plan.packing:
            with QSignalBlocker(self.packing_check):
                self.packing_check.setChecked(plan.packing)
        combo(self.precision_combo, plan.precision)
        combo(self.optimizer_combo, plan.optimizer)
        combo(self.checkpointing_combo, plan.checkpointing)
        combo(self.attention_combo, plan.attention)
        combo(self.quant_combo, plan.effective_quant)
        self._label_default_quant(plan, estimate)
        combo(self.lora_targets_combo, plan.lora_targets)
        combo(self.zero_combo, plan.zero_stage)
        combo(self.offload_combo, plan.offload)
        combo(self.kv_dtype_combo, plan.kv_dtype)
        combo(self.framework_combo, plan.framework)
        spin(self.gpu_layers_spin, -1 if plan.gpu_layers is None else plan.gpu_layers)
        spin(self.n_cpu_moe_spin, plan.n_cpu_moe)
        combo(self.backend_combo, plan.backend)
        spin(self.gpu_memory_utilization_spin, plan.gpu_memory_utilization or 0.0)
        spin(self.num_ctx_spin, plan.num_ctx or 0)
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
        # Only the frameworks of the task (training or inference) can be chosen; "automatic"
        # says what it means for this task.
        auto_text = (translate("PlanPage", "automatic (Hugging Face + PEFT)") if training
                     else translate("PlanPage", "automatic (by the weights and the GPU)"))
        auto_row = self.framework_combo.findData("auto")
        if auto_row >= 0 and self.framework_combo.itemText(auto_row) != auto_text:
            self.framework_combo.setItemText(auto_row, auto_text)
        allowed = {"auto", *(P.INFER_ENGINES if not training else P.TRAIN_FRAMEWORKS)}
        for row in range(self.framework_combo.count()):
            item = self.framework_combo.model().item(row)
            item.setEnabled(self.framework_combo.itemData(row) in allowed)
        engine = plan.framework
        self.engine_group.setVisible(not training)
        self.gpu_layers_spin.setEnabled(not training and engine in ("auto", "llama.cpp",
                                                                     "ollama"))
        counts = model.params()
        self.n_cpu_moe_spin.setEnabled(self.gpu_layers_spin.isEnabled()
                                       and counts.active < counts.total)  # experts to move
        # Ollama runs the backend it picks; the others are llama.cpp's to choose.
        self.backend_combo.setEnabled(not training and engine in ("auto", "llama.cpp"))
        self.gpu_memory_utilization_spin.setEnabled(not training and engine in ("auto",
                                                                                 "vllm"))
        self.num_ctx_spin.setEnabled(not training and engine == "ollama")
        self.tokens_edit.setEnabled(training and not opaque)
        self.dataset_combo.setEnabled(training and not opaque
                                      and plan.dataset_tokens is None)
        # The first item names what a plan without a data set is timed on (the Time
        # panel said "Alpaca" beside a box that said "default").
        default = (translate("PlanPage", "default: 20 tokens per parameter")
                   if plan.task == "pretrain" else translate("PlanPage", "default: {name}")
                   .format(name=DATASETS[DEFAULT_FINETUNE_DATASET].name))
        if self.dataset_combo.count() and self.dataset_combo.itemText(0) != default:
            self.dataset_combo.setItemText(0, default)
        self.packing_check.setEnabled(training and not opaque and plan.dataset_tokens is None)
        self.layout_pins.sync(plan, model, estimate)
        # the step as the Time panel times it: samples padded per micro-batch (the panel's
        # data line says "52,002 samples × 128 tokens")
        timed = training_job(model, plan).seq if training and not opaque else None
        self.global_batch.setText(fmt.global_batch(plan, timed))
        self.global_batch.setVisible(training)

        a = estimate.assumptions
        if not self.tokens_edit.hasFocus():
            self.tokens_edit.setText(
                format_count(plan.dataset_tokens) if plan.dataset_tokens else "")
        if not self.samples_edit.hasFocus():
            self.samples_edit.setText(
                format_count(plan.dataset_samples) if plan.dataset_samples else "")
        self.data_note.setText(fmt.data_note(plan, model, a))
        if training and "dataset_tokens" in a:
            self.tokens_edit.setPlaceholderText(
                N.count(a["dataset_tokens"]) if not opaque else "")


class InputsScroll(QScrollArea):
    """The input column: never narrower than its widest row (nothing clipped), and it
    follows font changes (presentation mode) because the hint is asked for each time."""

    def minimumSizeHint(self) -> QSize:
        body = self.widget()
        if body is None:
            return super().minimumSizeHint()
        # Asked for on every layout pass: remembered until the body's layout changes.
        key = (body.minimumSizeHint().width(), self.font().pointSize())
        if getattr(self, "_hint_key", None) != key:
            scrollbar = self.verticalScrollBar().sizeHint().width()
            self._hint_key = key
            self._hint = QSize(key[0] + scrollbar + 2 * self.frameWidth(),
                               super().minimumSizeHint().height())
        return QSize(self._hint)

    def sizeHint(self) -> QSize:
        # Preferred width: room for a full GPU name ("NVIDIA GeForce RTX 4090 · 24 GB") in
        # the combo boxes; the minimum stays the widest row so narrow windows still work.
        hint = self.minimumSizeHint()
        if getattr(self, "_preferred_key", None) != self.font().pointSize():
            sample = "Number of GPUs  NVIDIA GeForce RTX 4090 · 24 GB"
            self._preferred_key = self.font().pointSize()
            self._preferred = self.fontMetrics().horizontalAdvance(sample) + 110
        return QSize(max(hint.width(), self._preferred), super().sizeHint().height())


__all__ = ["CUSTOM_ITEM", "NO_GPU_ITEM", "InputsScroll", "PlanInputs"]


def preset_text(model) -> str:
    """A preset as the picker lists it: ``"Qwen3 30B-A3B (30.53B, 3.34B active)"``; a vision
    tower counted apart is added (``"+ 0.67B vision"``)."""
    counts = model.params()
    sizes = format_count(counts.total)
    if counts.active != counts.total:
        sizes += ", " + translate("PlanPage", "{count} active").format(
            count=format_count(counts.active))
    vision = getattr(counts, "vision", 0)
    if vision:
        sizes += ", " + translate("PlanPage", "+ {count} vision").format(
            count=format_count(vision))
    return f"{model.name} ({sizes})"
