"""Models already on this computer, in the app: the picker's "On this computer" group (found
in the background) and files dropped on the window, of each kind."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from gpuadvisor.gui.local_models import LOCAL_HEADER, LOCAL_PREFIX
from gpuadvisor.workspace.planfile import save_plan
from gpuadvisor.workspace.state import PlanState
from tests.cli_run import run_cli
from tests.localmodels.gguf_bytes import TINY_PARAMS, write_tiny_llama
from tests.localmodels.test_resolve import make_hf_repo, make_ollama_model

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

HF_CONFIGS = Path(__file__).resolve().parents[1] / "data" / "hf_configs"
MISTRAL = json.loads((HF_CONFIGS / "mistral-7b.json").read_text())


@pytest.fixture
def disk(tmp_path, monkeypatch):
    """A home folder with a Hugging Face cache, an Ollama and an LM Studio model."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME",
                 "OLLAMA_MODELS"):
        monkeypatch.delenv(name, raising=False)
    gguf = write_tiny_llama(tmp_path / "tiny.gguf")
    make_hf_repo(home / ".cache" / "huggingface" / "hub", "mistralai/Mistral-7B-v0.1",
                 {"config.json": json.dumps(MISTRAL)})
    make_ollama_model(home / ".ollama" / "models", "tiny", "q4", gguf)
    lms = home / ".lmstudio" / "models" / "someone" / "Tiny-GGUF"
    lms.mkdir(parents=True)
    shutil.copyfile(gguf, lms / "Tiny-Q4_K_M.gguf")
    return home


def _scanned(qtbot, window):
    files = window.plan_page.inputs.model_files
    files.wait()
    qtbot.waitUntil(lambda: window.plan_page.model_combo.local_models() != [], timeout=5000)
    return window.plan_page.model_combo


def test_picker_lists_models_on_this_computer_under_a_header(qtbot, make_window, disk):
    window = make_window()
    combo = _scanned(qtbot, window)
    ids = combo.ids()
    header = ids.index(LOCAL_HEADER)
    assert combo.itemText(header) == "On this computer"
    assert not combo.model().item(header).isEnabled()  # a title, not a choice
    local = [combo.itemText(i) for i, item_id in enumerate(ids)
             if item_id.startswith(LOCAL_PREFIX)]
    assert local[0] == "mistralai/Mistral-7B-v0.1 · Hugging Face cache"
    assert local[1].startswith("tiny:q4 · Ollama · ")
    assert local[2].startswith("someone/Tiny-GGUF/Tiny-Q4_K_M.gguf · LM Studio · ")
    assert all(i < header for i, item_id in enumerate(ids)
               if not item_id.startswith(LOCAL_PREFIX) and item_id != LOCAL_HEADER)
    assert combo.matches("ollama") == [f"{LOCAL_PREFIX}1"]


def test_picking_a_model_on_this_computer_makes_it_the_plans_model(qtbot, make_window, disk):
    window = make_window()
    combo = _scanned(qtbot, window)
    presets_picked = []
    combo.picked.connect(presets_picked.append)
    combo.lineEdit().setText("tiny q4 ollama")
    with qtbot.waitSignal(window.plan_page.inputs.model_files.loaded, timeout=10000):
        combo.commit_text()
    assert presets_picked == []  # the page's preset slot never sees a local entry
    state = window.state
    assert state.is_custom_model and state.model.name == "tiny:q4"
    assert state.model.params().total == TINY_PARAMS
    window.plan_page.flush()
    assert combo.current_id() == f"{LOCAL_PREFIX}1"  # its own entry, not "custom"
    assert window.plan_page.field_error("model") == ""

    hf_row = combo.ids().index(f"{LOCAL_PREFIX}0")
    with qtbot.waitSignal(window.plan_page.inputs.model_files.loaded, timeout=10000):
        combo.activated.emit(hf_row)
    assert state.model.name == "mistralai/Mistral-7B-v0.1"
    assert state.model.params().total == 7_241_732_096


def test_a_model_gone_from_disk_is_reported_at_the_picker(qtbot, make_window, disk):
    window = make_window()
    combo = _scanned(qtbot, window)
    gone = combo.local_models()[1].path
    gone.unlink()
    with qtbot.waitSignal(window.plan_page.inputs.model_files.failed, timeout=10000):
        combo.activated.emit(combo.ids().index(f"{LOCAL_PREFIX}1"))
    assert "file not found" in window.plan_page.field_error("model")
    assert window.state.model_id == "llama-3.1-8b"


# ----------------------------------------------------------------------------- drops
def _mime(*paths) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def _drop(window, *paths) -> QDropEvent:
    mime = _mime(*paths)  # the event does not keep the data alive: this name does
    event = QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    return event


def _enter(window, *paths) -> bool:
    mime = _mime(*paths)
    event = QDragEnterEvent(QPoint(200, 200), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(event)
    return event.isAccepted()


def _drop_model(qtbot, window, path):
    with qtbot.waitSignal(window.model_files.finished, timeout=10000):
        event = _drop(window, path)
    assert event.isAccepted()


@pytest.fixture
def window(make_window, disk):
    # No torch check: the Rig page would wait for that subprocess when the window closes.
    window = make_window(rig_options={"check_torch": False})
    window.show_page("rig")
    return window


def test_dropping_a_config_json_opens_it_on_the_plan_page(qtbot, window, tmp_path):
    config = tmp_path / "Mistral-7B" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps(MISTRAL))
    _drop_model(qtbot, window, config)
    assert window.state.model.id == "Mistral-7B"
    assert window.current_page() == "plan"
    assert window.status_label.text() == "Model: Mistral-7B"


def test_dropping_a_model_folder_opens_its_config(qtbot, window, tmp_path):
    folder = tmp_path / "mistral"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(MISTRAL))
    _drop_model(qtbot, window, folder)
    assert window.state.model.params().total == 7_241_732_096


def test_dropping_a_gguf_opens_it_with_its_file_bytes(qtbot, window, tmp_path):
    path = write_tiny_llama(tmp_path / "tiny-Q4_K_M.gguf")
    _drop_model(qtbot, window, path)
    model = window.state.model
    assert model.name == "Tiny Llama (Q4_K_M GGUF)"
    assert model.extra["weights_file_bytes"] == 1_115_648


def test_dropping_a_plan_opens_it_as_file_open_does(qtbot, window, tmp_path):
    other = PlanState()
    other.set_model("gpt2")
    path = save_plan(other, tmp_path / "gpt2.gpuplan")
    event = _drop(window, path)
    assert event.isAccepted()
    assert window.state.model_id == "gpt2"
    assert window.plan_path == Path(path).resolve()


def test_dropping_a_broken_gguf_says_what_is_wrong(qtbot, window, tmp_path):
    path = write_tiny_llama(tmp_path / "partial.gguf", data=False)
    with qtbot.waitSignal(window.model_files.failed, timeout=10000):
        _drop(window, path)
    kind, title, text = window.last_message
    assert (kind, title) == ("error", "Cannot open model")
    assert str(path) in text and "truncated" in text and "\n" not in text
    assert window.state.model_id == "llama-3.1-8b"


def test_dropping_something_else_is_refused(qtbot, window, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    assert not _enter(window, notes)
    assert window.open_dropped(notes) is False
    kind, _title, text = window.last_message
    assert kind == "error" and "notes.txt" in text and ".gguf" in text
    gguf = write_tiny_llama(tmp_path / "t.gguf")
    assert _enter(window, gguf, notes)
    assert _enter(window, tmp_path)  # a folder may be a model folder


LOGS = Path(__file__).parents[1] / "probes" / "logs"


def test_dropping_an_ollama_log_shows_planned_vs_observed(qtbot, window, tmp_path):
    # Ollama 0.5.4 on an RTX 4090 (tests/probes/logs/SOURCES.md): the log names its GPU and
    # the GGUF's name; every figure is read from it
    path = tmp_path / "server.log"
    shutil.copy(LOGS / "ollama-0.5.4-rtx4090-llama3.1-8b.log", path)
    assert _enter(window, path)
    event = _drop(window, path)
    assert event.isAccepted()
    dialog = window.log_dialog
    assert "NVIDIA GeForce RTX 4090" in dialog.heading.text()
    table = dialog.table
    rows = {table.item(i, 0).text(): [table.item(i, j).text() for j in (1, 2)]
            for i in range(table.rowCount())}
    assert rows["layers on the GPU"] == ["33 layers", "33 layers"]
    assert rows["KV cache"][1] == "1.0 GiB"  # "CUDA0 KV buffer size = 1024.00 MiB"
    assert window.status_label.text() == dialog.heading.text()


def test_a_dropped_vllm_log_corrects_the_plan_pages_estimate_at_once(qtbot, window, tmp_path):
    # vLLM 0.6.4 on an RTX 3090 printed non_torch_memory=0.35GiB (vllm#10517); the log
    # names neither model nor GPU: the window's plan gives them, and a card the log does
    # not name is not one whose figures are kept
    window.state.set_model("llama-3.1-8b")
    window.state.set_gpu("rtx-3090")
    window.state.update(task="infer", framework="vllm")
    path = tmp_path / "vllm.log"
    shutil.copy(LOGS / "vllm-0.6.4-rtx3090-llama3.1-8b-20k.log", path)
    assert window.open_dropped(path) is True
    details = window.log_dialog.details.text()
    assert "Kept" not in details and "nothing is kept" in details
    assert window.state.estimate.assumptions["vllm_non_torch_bytes"] == pytest.approx(
        0.2 * 2**30)
    # the same log checked with its GPU named (check-log --gpu) is kept, and the window
    # takes it at once
    code, _, err = run_cli("check-log", str(path), "--gpu", "rtx-3090", "--model",
                           "llama-3.1-8b")
    assert code == 0, err
    window.load_measurements()
    assert window.state.estimate.assumptions["vllm_non_torch_bytes"] == pytest.approx(
        0.35 * 2**30)


def test_a_log_with_nothing_to_read_is_refused_naming_it(qtbot, window, tmp_path):
    path = tmp_path / "vllm.log"
    path.write_text("INFO vllm starting the API server\n")
    assert window.open_dropped(path) is False
    kind, title, text = window.last_message
    assert (kind, title) == ("error", "Cannot check the log")
    assert "vllm.log" in text and "no memory figures" in text


def test_a_dropped_pytorch_summary_is_held_against_the_windows_training_plan(qtbot, window,
                                                                              tmp_path):
    path = tmp_path / "memory.txt"
    shutil.copy(LOGS / "torch-memory-summary-v100-oom.log", path)
    window.state.set_gpu("v100-sxm2-16gb")
    assert window.state.plan.is_training  # the default plan: a QLoRA fine-tune
    assert window.open_dropped(path) is True
    table = window.log_dialog.table
    assert table.item(0, 0).text() == "peak allocated (PyTorch)"
    assert table.item(0, 2).text() == "15.0 GiB"  # 15377 MB (2**20 bytes) in the summary
