"""Every page in 简体中文: no English word on screen but names (brands, models, clouds, the
catalog's own data) and technical terms people use untranslated.

Each page of a window in zh_CN (a demo rig: the mixed RTX 3090 + 3060, then the one whose
second card falls off the bus) is rendered as a user sees it, and every text on it is read:
labels, buttons, group and tab titles, combo boxes, the tables' visible cells and headers, the
status bar, and inside the charts the axis titles and ticks, legends and annotations. A word
of Latin letters that is neither in the allow-list nor part of a name from the catalogs fails
the test, with the page and the text it was found in.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import re

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QTabBar,
    QWidget,
)

from gpuadvisor import catalog
from gpuadvisor.gui import i18n
from gpuadvisor.gui.main_window import MainWindow
from gpuadvisor.workspace.settings import Settings

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

#: Words people read untranslated in Chinese software: units, formats, kernels, libraries,
#: file types, the app's own name.
ALLOWED = {
    # units and number words
    "GiB", "MiB", "KiB", "TiB", "GB", "MB", "kB", "TB", "ms", "min", "TFLOPS", "TFLOP",
    "PFLOP", "EFLOP", "ZFLOP", "YFLOP", "GFLOP", "FLOP", "FLOPs", "TOPS", "MHz", "GHz",
    "kWh", "USD", "CNY", "EUR", "Hz", "GPU", "GPUs", "CPU", "RAM", "VRAM", "SM", "MFU",
    "bf16", "fp16", "fp32", "fp8", "tf32", "int8", "int4", "int3", "NF4", "FP8", "MXFP4",
    "BF16", "FP16", "FP32", "INT8", "TP", "PP", "DP", "CP", "EP", "DDP", "VPP",
    # techniques and software people name as they are
    "ZeRO", "FSDP", "LoRA", "QLoRA", "AdamW", "Adafactor", "Lion", "SGD", "FlashAttention",
    "SDPA", "GPTQ", "AWQ", "KV", "PCIe", "NVLink", "CUDA", "ROCm", "NVML", "ECC", "MIG",
    "Xid", "PyTorch", "torch", "torchrun", "DeepSpeed", "accelerate", "SkyPilot", "YAML",
    "JSON", "HTML", "Markdown", "PNG", "Hugging", "Face", "PEFT", "config", "json", "gguf", "GGUF",
    "Ollama", "LM", "Studio", "Pareto", "Chinchilla", "Alpaca", "Python", "Linux", "Windows",
    "macOS", "Xorg", "pid", "gpuadvisor", "gpuplan", "Transformer", "Engine", "torchao",
    "Docker", "docker", "NVIDIA", "Container", "Toolkit", "gpus", "all", "run", "pod",
    "spot", "id", "ids", "API", "token", "tokens", "logits",
}

#: A word of Latin letters, with the digits and signs names carry ("rtx-3090", "A100").
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+\-]*")
TAG = re.compile(r"<[^>]+>")


def _catalog_words() -> set[str]:
    """Words of every name in the catalogs: GPUs, models, clouds and their offers' own data
    (instance types, region codes, sources, notes)."""
    words: set[str] = set()
    texts: list[str] = []
    for gpu in catalog.load_gpus().values():
        texts += [gpu.id, gpu.name, gpu.vendor, gpu.architecture, gpu.memory_type,
                  *gpu.aliases]
    for model in catalog.load_models().values():
        texts += [model.id, model.name, model.family]
    for offer in catalog.load_offers().values():
        texts += [offer.id, offer.gpu_id, offer.instance or "", offer.source or "",
                  offer.notes or ""]
        # Provider names are names; the two that are words ("used market") are translated.
        if offer.provider not in ("retail (new)", "used market"):
            texts.append(offer.provider)
        # Region codes (us-east-1, eastus) are identifiers; the words are translated.
        code = bool(re.search(r"\d", offer.region or "")) or (
            (offer.region or "").islower() and " " not in (offer.region or ""))
        if offer.region and code:
            texts.append(offer.region)
    for text in texts:
        for word in WORD.findall(text or ""):
            words.add(word)
            words.update(part for part in re.split(r"[-_.+]", word) if part)
    return words


def _host_words(window) -> set[str]:
    """Words of this machine's own facts (CPU name, OS, Python's torch build) and of the demo
    rigs' names, which are shown as they are."""
    from gpuadvisor.hardware import describe_scenarios

    words = set(describe_scenarios())
    result = window.rig_page.result
    host = result.host if result is not None else None
    if host is not None:
        for value in vars(host).values():
            if isinstance(value, str):
                words.update(WORD.findall(value))
    return words


def _english(text: str, allowed: set[str]) -> list[str]:
    text = TAG.sub(" ", text or "").replace("&nbsp;", " ").replace("&amp;", "&")
    text = re.sub(r"https?://\S+|\S+/\S+", " ", text)  # links and paths
    bad = []
    for word in WORD.findall(text):
        parts = [word, word.strip(".-+_"), *re.split(r"[-_/.+]", word)]
        if any(p in allowed for p in parts if p):
            continue
        core = word.strip(".-+_")
        if len(core) <= 1 or re.fullmatch(r"[A-Za-z]{1,2}\d[\w.+-]*|\d.*", core):
            continue  # a single letter, or a model number like "A100", "H100", "x16"
        bad.append(word)
    return bad


def _chart_texts(plot: pg.PlotWidget) -> list[str]:
    item = plot.getPlotItem()
    texts = []
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        if axis.isVisible():
            texts.append(axis.labelText or "")
            ticks = axis._tickLevels or []
            for level in ticks:
                texts += [str(text) for _value, text in level]
            specs = getattr(axis, "_tickSpecs", None)
            if specs:
                texts += [str(s) for s in specs]
    for graphics in item.scene().items():
        if isinstance(graphics, pg.TextItem) and graphics.isVisible():
            texts.append(graphics.textItem.toPlainText())
        elif isinstance(graphics, pg.LabelItem) and graphics.isVisible():
            texts.append(graphics.text)
    return texts


def _texts(root: QWidget) -> list[str]:
    """Every text a user sees on ``root`` and its visible children."""
    texts: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        if isinstance(widget, pg.PlotWidget):
            texts += _chart_texts(widget)
        elif isinstance(widget, (QLabel, QAbstractButton)):
            texts.append(widget.text())
        elif isinstance(widget, QComboBox):
            texts.append(widget.currentText())
        elif isinstance(widget, QLineEdit):
            texts.append(widget.text() or widget.placeholderText())
        elif isinstance(widget, QTabBar):
            texts += [widget.tabText(i) for i in range(widget.count())]
        elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            columns = [c for c in range(model.columnCount())
                       if not getattr(widget, "isColumnHidden", lambda _c: False)(c)]
            texts += [str(model.headerData(c, Qt.Orientation.Horizontal) or "")
                      for c in columns]
            for row in range(min(model.rowCount(), 8)):
                texts += [str(model.index(row, c).data() or "") for c in columns]
        if isinstance(widget, QGroupBox):
            texts.append(widget.title())
    return texts


@pytest.fixture
def chinese(qapp, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(i18n, "_cache_dir", lambda: tmp_path / "i18n-cache")
    assert i18n.install_language("zh_CN") == "zh_CN"
    yield
    i18n.install_language("en")


def _leaks(window, pages, allowed) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for name in pages:
        window.show_page(name)
        window.flush()
        if name == "rig":
            window.rig_page.wait()
            for _ in range(3):
                window.rig_page.sample_now()
        window.flush()
        texts = [*_texts(window.pages[name]), window.status_label.text()]
        texts += [action.text() for action in window.menuBar().actions()]
        for text in texts:
            for word in _english(text, allowed):
                found.setdefault(name, []).append((word, text[:160]))
    return found


# Each demo rig once and each mode once (four full renders took ~22 s of the suite).
@pytest.mark.parametrize(("rig", "presentation"), [("mixed", False), ("gpu-lost", True)],
                         ids=["mixed-desktop", "gpu-lost-presentation"])
def test_every_page_speaks_chinese(qtbot, chinese, rig, presentation):
    window = MainWindow(settings=Settings(language="zh_CN"), persist=False, interactive=False,
                        simulate=rig, detect=True)
    qtbot.addWidget(window)
    if presentation:
        window.set_presentation(True, full_screen=False)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    window.rig_page.wait()
    allowed = ALLOWED | _catalog_words() | _host_words(window)
    leaks = _leaks(window, ("rig", "probe", "plan", "compare"), allowed)
    window.close()
    report = "\n".join(f"{page}: {word!r} in {text!r}" for page, items in leaks.items()
                       for word, text in items)
    assert leaks == {}, "English on a zh_CN page:\n" + report
