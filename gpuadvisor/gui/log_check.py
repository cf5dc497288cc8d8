"""Planned vs observed in the window: the table a log dropped on it gives (``check-log``'s).

:class:`LogCheckDialog` shows :class:`gpuadvisor.probes.logcheck.Check` as it is: each term
the estimate planned beside what the engine reported, the difference, and (as the row's
tooltip and the line below the table) what explains it. Non-modal: ``open()``.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.units import format_bytes
from gpuadvisor.probes.logcheck import Check


def term_names() -> dict[str, str]:
    """Each row's term in the interface language, by its key."""
    return {
        "total_memory": QCoreApplication.translate("LogCheck", "total GPU memory (CUDA)"),
        "weights": QCoreApplication.translate("LogCheck", "weights"),
        "non_torch": QCoreApplication.translate("LogCheck", "non-torch memory"),
        "activation_peak": QCoreApplication.translate("LogCheck",
                                                      "activation peak (profiling)"),
        "kv_cache": QCoreApplication.translate("LogCheck", "KV cache"),
        "kv_tokens": QCoreApplication.translate("LogCheck", "KV cache tokens"),
        "max_concurrency": QCoreApplication.translate("LogCheck", "maximum concurrency"),
        "cuda_graphs": QCoreApplication.translate("LogCheck", "CUDA graphs"),
        "gpu_layers": QCoreApplication.translate("LogCheck", "layers on the GPU"),
        "gpu_model_buffer": QCoreApplication.translate("LogCheck", "weights on the GPU"),
        "host_model_buffer": QCoreApplication.translate("LogCheck", "weights in host RAM"),
        "compute_buffer": QCoreApplication.translate("LogCheck", "compute buffer"),
        "ollama_graph": QCoreApplication.translate("LogCheck", "graph Ollama reserves"),
        "peak_allocated": QCoreApplication.translate("LogCheck", "peak allocated (PyTorch)"),
        "peak_reserved": QCoreApplication.translate("LogCheck", "peak reserved (PyTorch)"),
        "oom_needed": QCoreApplication.translate("LogCheck", "needed when it ran out"),
        "projector": QCoreApplication.translate("LogCheck", "vision projector (mmproj)"),
        "fit_projected": QCoreApplication.translate("LogCheck",
                                                    "device memory (--fit)"),
    }


#: The explanations :mod:`gpuadvisor.probes.logcheck` writes, as templates lupdate finds
#: (context "LogCheckWhy"); the row's ``why_args`` fill them in.
WHY_TEMPLATES = (
    QT_TRANSLATE_NOOP("LogCheckWhy", "the estimate used {source}; CUDA reported {seen}"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the checkpoint's bytes differ from the plan's weights: "
                      "check --quant (the log's quantization: {quantization}) and the model"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "vLLM's non-torch growth (cuBLAS, NCCL buffers) on this "
                      "machine"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "profiling pass of {tokens} tokens ({how})"),
    # the {how} of the profiling pass (gpuadvisor/core/engines/vllm.py, combine.py)
    QT_TRANSLATE_NOOP("LogCheckWhy", "default: {why}"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the release's default"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "vLLM {release} (V0): chunked prefill past {past} "
                      "tokens, in {chunk}-token chunks"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "vLLM {release} (V0) without chunked prefill: "
                      "max(max_model_len, {small})"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "vllm serve's default on {gpu}"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "Ollama's own estimate (fs/ggml GraphSize) of a "
                      "{batch}-token batch over {ctx} tokens, the larger of its full- and "
                      "partial-offload sizes"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "what the budget leaves after the rows above"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "KV cache / (16 x bytes per token) blocks of 16"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "KV cache tokens / max_model_len"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "captured after the KV pool, beside the budget"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "placed in the {free} the log says were free, less "
                      "Ollama's 457 MiB minimum, the compute graph and one layer's margin"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the GGUF's tensors of the layers on the GPU (and the "
                      "output layer)"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the token embedding (kept on the CPU) and the layers "
                      "left there"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the model file holds {seen}, the plan's {plan_bytes}: "
                      "give --quant (the log's file type: {ftype})"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the model file holds {seen}, the plan's {plan_bytes}: "
                      "give --quant (the log does not print the file type)"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "n_ctx {cells} cells x the GPU layers' K and V ({kind})"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the worst-case graph of a 512-token micro-batch"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the estimate's total less the CUDA context (PyTorch "
                      "does not count it)"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "the projector's weights as its GGUF stores them (llama.cpp's "
                                     "estimate adds the buffers of its image pass)"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "llama.cpp's own projection of its buffers on the GPUs "
                      "(weights, KV cache, compute) before --fit changes anything; the plan's "
                      "are {plan_bytes}"),
    QT_TRANSLATE_NOOP("LogCheckWhy", "PyTorch had {allocated} allocated and asked for "
                      "{request} more: the run needs at least that, the estimate's total less "
                      "the CUDA context is {plan_bytes}"),
)


#: The assumptions and notes :mod:`gpuadvisor.probes.logcheck` writes (its ``Phrase``
#: templates, context "LogCheckSaid"); each phrase's ``args`` fill them in.
SAID_TEMPLATES = (
    QT_TRANSLATE_NOOP("LogCheckSaid", "the whole plan (a PyTorch memory line names no model or "
                      "settings): from the flags given"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "max_model_len {n} (the log does not print it)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "quant {quant} (the GGUF file's name; the log does not "
                      "print its type)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "quant {quant} (from the model's name {name}; the log "
                      "does not print the quantization)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "tensor_parallel_size {n} (the log does not print it)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "max_num_seqs {n} (as given; the log does not print it)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "max_num_seqs {n} (vLLM's default; the log does not "
                      "print it)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "gpu_memory_utilization 0.9 (vLLM's default; not in the "
                      "log)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "the vLLM release (not printed): the current one's rules "
                      "(V1); give --engine-version"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "n_ctx {n} (the log does not print it)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "the GGUF file type {ftype} is not known: quant {quant}"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "flash attention on (not in the log)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "flash attention off (not in the log)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "an Ollama release before 0.30 (the log prints "
                      "llm/memory.go's layer estimate, not its version)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "PyTorch ran out of memory; the estimate said it would "
                      "fit"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "PyTorch ran out of memory, as the estimate says: it "
                      "does not fit"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "vLLM refused to start; the estimate said it would fit: "
                      "{why}"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "the estimate says vLLM would refuse this plan; the log "
                      "shows it started"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "model: the plan's, {model} (the log does not name one "
                      "the catalog has)"),
    QT_TRANSLATE_NOOP("LogCheckSaid", "GPU: the plan's, {gpu} (the log does not name it); "
                      "nothing is kept for it"),
)


def _translated(context: str, phrase: str) -> str:
    """A :class:`~gpuadvisor.probes.logcheck.Phrase` in the window's language (as it came
    when it has no template, or a translation lost a placeholder)."""
    template = getattr(phrase, "template", None)
    if not template:
        return str(phrase)
    args = {key: _translated(context, value) if getattr(value, "template", None) else value
            for key, value in phrase.args.items()}
    try:
        return QCoreApplication.translate(context, template).format(**args)
    except (KeyError, IndexError, ValueError):
        return str(phrase)


def said_text(phrase: str) -> str:
    """An assumption or note of the check in the window's language (:data:`SAID_TEMPLATES`)."""
    return _translated("LogCheckSaid", phrase)


def why_text(row) -> str:
    """A row's explanation in the window's language (:data:`WHY_TEMPLATES`)."""
    return _translated("LogCheckWhy", row.why)


def value_text(value: float | None, unit: str, units: str = "GiB") -> str:
    if value is None:
        return "–"
    if unit == "bytes":
        return format_bytes(value, units)
    if unit == "x":
        return f"{value:.2f}×"
    if unit == "layers":
        return QCoreApplication.translate("LogCheck", "{n} layers").format(n=f"{value:,.0f}")
    return QCoreApplication.translate("LogCheck", "{n} tokens").format(n=f"{value:,.0f}")


class LogCheckDialog(QDialog):
    """The check of one log: the plan it ran, then planned vs observed term by term."""

    def __init__(self, result: Check, kept: bool, parent: QWidget | None = None,
                 units: str = "GiB") -> None:
        super().__init__(parent)
        self.setObjectName("logCheckDialog")
        self.setWindowTitle(QCoreApplication.translate("LogCheck", "Planned vs observed"))
        r = result.reading
        version = f" {r.version}" if r.version else ""
        self.heading = QLabel(QCoreApplication.translate(
            "LogCheck", "{engine} log: {model} on {gpu}").format(
            engine=f"{r.engine}{version}", model=result.model.name, gpu=result.gpu.name), self)
        self.heading.setObjectName("logCheckHeading")
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        headers = [QCoreApplication.translate("LogCheck", "Term"),
                   QCoreApplication.translate("LogCheck", "Planned"),
                   QCoreApplication.translate("LogCheck", "Observed"),
                   QCoreApplication.translate("LogCheck", "Difference")]
        self.table = QTableWidget(len(result.rows), len(headers), self)
        self.table.setObjectName("logCheckTable")
        self.table.setHorizontalHeaderLabels(headers)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        names = term_names()
        explained: list[str] = []
        for i, row in enumerate(result.rows):
            diff = row.difference
            cells = [names.get(row.key, row.term), value_text(row.planned, row.unit, units),
                     value_text(row.observed, row.unit, units),
                     row.difference_text]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if row.why:
                    item.setToolTip(why_text(row))
                self.table.setItem(i, j, item)
            if row.why and diff is not None and abs(diff) >= 0.05:
                explained.append(QCoreApplication.translate(
                    "LogCheck", "{term}: {why}").format(term=cells[0], why=why_text(row)))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for j in range(1, len(headers)):
            header.setSectionResizeMode(j, QHeaderView.ResizeMode.ResizeToContents)
        lines = [*(QCoreApplication.translate("LogCheck", "Assumed: {what}").format(
                       what=said_text(a))
                   for a in result.assumed), *explained]
        if r.refused and r.engine == "torch":
            lines.append(QCoreApplication.translate(
                "LogCheck", "The run ran out of memory: {why}").format(why=r.refused[:240]))
        elif r.refused:
            lines.append(QCoreApplication.translate(
                "LogCheck", "The engine refused to start: {why}").format(why=r.refused[:240]))
        lines += [said_text(note) for note in result.notes]
        if kept:
            lines.append(QCoreApplication.translate(
                "LogCheck", "Kept: estimates for {gpu} now use what this log showed.").format(
                gpu=result.gpu.name))
        self.details = QLabel("\n".join(lines), self)
        self.details.setObjectName("logCheckDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addWidget(buttons)
        self.resize(760, 420)


__all__ = ["SAID_TEMPLATES", "WHY_TEMPLATES", "LogCheckDialog", "said_text", "term_names",
           "value_text", "why_text"]
