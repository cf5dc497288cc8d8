"""A small form for a model given by its architecture numbers ("Custom…" on the Plan page)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.units import format_count

from .fields import ErrorLabel

#: (ModelSpec field, minimum, maximum) of the number inputs, in form order.
_NUMBERS = (
    ("n_layers", 1, 1_000),
    ("d_model", 1, 1_000_000),
    ("n_heads", 1, 10_000),
    ("n_kv_heads", 1, 10_000),
    ("d_ff", 1, 10_000_000),
    ("vocab_size", 1, 10_000_000),
    ("max_positions", 1, 10_000_000),
)

_DEFAULTS = {"n_layers": 32, "d_model": 4096, "n_heads": 32, "n_kv_heads": 8, "d_ff": 14336,
             "vocab_size": 128256, "max_positions": 8192}


class CustomModelDialog(QDialog):
    """Edit architecture numbers; shows the parameter count (or what is wrong) as you type.

    Emits :attr:`model_accepted` with the new :class:`ModelSpec` when the user presses OK and
    the numbers make a valid model. Open it with ``open()`` (window-modal, non-blocking).
    """

    model_accepted = Signal(object)

    def __init__(self, base: ModelSpec | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Custom model"))
        self.setObjectName("customModelDialog")
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr("A decoder-only transformer (LLaMA/GPT style) described by its "
                               "architecture numbers. The parameter count is derived from them."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        layout.addLayout(form)
        self.name = QLineEdit(self)
        self.name.setPlaceholderText(self.tr("My model"))
        form.addRow(self.tr("Name"), self.name)
        names = {
            "n_layers": self.tr("Layers"),
            "d_model": self.tr("Hidden size"),
            "n_heads": self.tr("Attention heads"),
            "n_kv_heads": self.tr("Key/value heads (GQA)"),
            "d_ff": self.tr("MLP (FFN) size"),
            "vocab_size": self.tr("Vocabulary"),
            "max_positions": self.tr("Context length"),
        }
        self.numbers: dict[str, QSpinBox] = {}
        for field, low, high in _NUMBERS:
            box = QSpinBox(self)
            box.setRange(low, high)
            box.setGroupSeparatorShown(True)
            box.setObjectName(field)
            box.valueChanged.connect(self._update)
            form.addRow(names[field], box)
            self.numbers[field] = box
        self.gated = QCheckBox(self.tr("Gated MLP (SwiGLU, three matrices)"), self)
        self.tied = QCheckBox(self.tr("Tied input/output embeddings"), self)
        for box in (self.gated, self.tied):
            box.toggled.connect(self._update)
            form.addRow("", box)
        self.summary = QLabel(self)
        self.summary.setObjectName("customModelSummary")
        self.error = ErrorLabel(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._fill(base)

    def _fill(self, base: ModelSpec | None) -> None:
        use = base if base is not None and base.kind == "decoder" else None
        for field, box in self.numbers.items():
            value = getattr(use, field, 0) if use is not None else 0
            box.setValue(value or _DEFAULTS[field])
        self.gated.setChecked(use.mlp == "gated" if use is not None else True)
        self.tied.setChecked(use.tied_embeddings if use is not None else False)
        if use is not None:
            self.name.setText(self.tr("{name} (custom)").format(name=use.name))
        self._update()

    def spec(self) -> ModelSpec:
        """The model the form describes.

        Raises:
            ValueError: the numbers do not make a model (the core's message, naming the field).
        """
        values = {field: box.value() for field, box in self.numbers.items()}
        name = self.name.text().strip() or self.tr("Custom model")
        return ModelSpec(
            id="custom",
            name=name,
            kind="decoder",
            mlp="gated" if self.gated.isChecked() else "gelu",
            norm="rmsnorm" if self.gated.isChecked() else "layernorm",
            position="rope",
            tied_embeddings=self.tied.isChecked(),
            family=self.tr("Custom"),
            **values,
        )

    def _update(self) -> None:
        try:
            spec = self.spec()
        except ValueError as exc:
            self.summary.setText("")
            self.error.set_error(str(exc))
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        self.error.set_error(None)
        self.summary.setText(self.tr("{count} parameters").format(
            count=format_count(spec.params().total)))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)

    def _accept(self) -> None:
        try:
            spec = self.spec()
        except ValueError as exc:
            self.error.set_error(str(exc))
            return
        self.accept()
        self.model_accepted.emit(spec)


__all__ = ["CustomModelDialog"]
