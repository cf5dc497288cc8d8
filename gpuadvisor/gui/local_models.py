"""Models already on this computer, in the app: the model picker's "On this computer" group
and opening model files (picked there, or dropped on the window).

Finding models (:func:`gpuadvisor.localmodels.find_local_models`) and reading a file (a GGUF
header can take a few tenths of a second on a slow disk) run on a pool thread of
:class:`ModelFiles`; the answers come back on the GUI thread as signals. A newer request to
open a model makes the answer of an older one stale: it is dropped (generation counter).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QSignalBlocker, Qt, QUrl, Signal
from PySide6.QtGui import QStandardItem

from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui.pages.tasks import PageTasks
from gpuadvisor.gui.widgets.fields import ID_ROLE, SEARCH_ROLE, SearchComboBox
from gpuadvisor.localmodels import (
    LocalModel,
    find_local_models,
    resolve_model_ref,
    spec_from_local,
)
from gpuadvisor.workspace.logs import looks_like_log
from gpuadvisor.workspace.planfile import PLAN_SUFFIX

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate
#: How much of a dropped file is read to tell an engine log.
LOG_SNIFF_BYTES = 64 * 1024

#: Id prefix of the picker's entries for models on this computer (``local:<index>``).
LOCAL_PREFIX = "local:"
#: Id of the group's title row (not selectable).
LOCAL_HEADER = "__local_header__"


def place_name(place: str) -> str:
    """Where a model was found, in words."""
    names = {
        "hf-cache": translate("LocalModels", "Hugging Face cache"),
        "ollama": translate("LocalModels", "Ollama"),
        "lmstudio": translate("LocalModels", "LM Studio"),
    }
    return names.get(place, place)


def item_text(model: LocalModel, units: str = "GiB") -> str:
    """The picker's text for a model found on disk: name · place · size of its weights."""
    parts = [model.label, place_name(model.place)]
    if model.size_bytes:
        parts.append(format_bytes(model.size_bytes, units))
    return " · ".join(parts)


# ----------------------------------------------------------------------------- the picker
class ModelPicker(SearchComboBox):
    """The Plan page's model picker: the presets, then "On this computer".

    The entries of the group say where each model is (Hugging Face cache, Ollama, LM
    Studio) and how large its weights are. Choosing a preset emits :attr:`picked` (its id);
    choosing a model on this computer emits :attr:`local_picked` (the
    :class:`~gpuadvisor.localmodels.LocalModel`) instead, so listeners of ``picked`` only
    ever see preset ids and the custom entry.
    """

    local_picked = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # "GiB" or "GB": how the sizes of models on this computer are shown.
        self.units = "GiB"
        self._presets: list[tuple[str, str]] = []
        self._search: dict[str, str] = {}
        self._added: list[tuple[str, str]] = []
        self._local: list[LocalModel] = []

    # ------------------------------------------------------------------ content
    def set_items(self, items: list[tuple[str, str]], search: dict[str, str] | None = None) -> None:
        """The presets (``(id, text)``), followed by the models on this computer."""
        self._presets, self._search, self._added = list(items), dict(search or {}), []
        local = [(f"{LOCAL_PREFIX}{i}", item_text(m, self.units))
                 for i, m in enumerate(self._local)]
        words = {f"{LOCAL_PREFIX}{i}": f"{m.place} {place_name(m.place)} local disk"
                 for i, m in enumerate(self._local)}
        super().set_items(self._presets + local, {**self._search, **words})
        if self._local:
            header = QStandardItem(translate("LocalModels", "On this computer"))
            header.setData(LOCAL_HEADER, ID_ROLE)
            header.setData("", SEARCH_ROLE)  # never matches typed words
            header.setFlags(Qt.ItemFlag.NoItemFlags)
            font = header.font()
            font.setBold(True)
            header.setFont(font)
            self._items.insertRow(len(self._presets), header)

    def add_item(self, item_id: str, text: str) -> None:
        """Add an entry after the presets (the custom model), before "On this computer"."""
        super().add_item(item_id, text)
        row = self._items.takeRow(self._items.rowCount() - 1)
        self._items.insertRow(len(self._presets) + len(self._added), row)
        self._added.append((item_id, text))

    def set_local_models(self, models: list[LocalModel]) -> None:
        """Show ``models`` as the "On this computer" group; the current entry and entries
        added with :meth:`add_item` (the custom model) stay."""
        current = self.current_id()
        kept = self._local_model(current)
        added = [(item_id, self.itemText(self.ids().index(item_id)))
                 for item_id, _text in self._added]
        self._local = list(models)
        with QSignalBlocker(self):
            self.set_items(self._presets, self._search)
            for item_id, text in added:
                self.add_item(item_id, text)
            if kept is not None:
                self.select_local(kept.path)
            elif current is not None:
                self.set_current_id(current)

    def local_models(self) -> list[LocalModel]:
        """The models of the "On this computer" group."""
        return list(self._local)

    def select_local(self, path: str | Path) -> bool:
        """Show the entry of the model on this computer read from ``path``, if listed."""
        for i, model in enumerate(self._local):
            if str(model.path) == str(path):
                self.set_current_id(f"{LOCAL_PREFIX}{i}")
                return True
        return False

    def _local_model(self, item_id: str | None) -> LocalModel | None:
        if not item_id or not item_id.startswith(LOCAL_PREFIX):
            return None
        index = int(item_id[len(LOCAL_PREFIX):])
        return self._local[index] if index < len(self._local) else None

    # ------------------------------------------------------------------ user actions
    def _deliver(self, item_id: str) -> None:
        """Emit the user's choice: ``local_picked`` for a model on disk, else ``picked``."""
        model = self._local_model(item_id)
        if model is not None:
            self.local_picked.emit(model)
        elif item_id != LOCAL_HEADER:
            self.picked.emit(item_id)

    def commit_text(self) -> None:
        """Pick the best match for the typed text (Enter in the box)."""
        text = self.lineEdit().text().strip()
        current = self.current_id()
        if current is not None and text == self.itemText(self.currentIndex()):
            return
        found = [i for i in (self.matches(text) if text else []) if i != LOCAL_HEADER]
        exact = [i for i in found if self.itemText(self.ids().index(i)).lower() == text.lower()]
        choice = (exact or found or [None])[0]
        if choice is None:
            self._restore_text()
            if text:
                self.no_match.emit(text)
            return
        self.set_current_id(choice)
        self.completer().popup().hide()
        self._deliver(choice)

    def _on_completer_activated(self, text: str) -> None:
        ids = [i for i in self.ids() if self.itemText(self.ids().index(i)) == text]
        if ids and ids[0] != LOCAL_HEADER:
            self.set_current_id(ids[0])
            self._deliver(ids[0])

    def _on_activated(self, index: int) -> None:
        item_id = self.itemData(index, ID_ROLE)
        if item_id is not None:
            self._deliver(item_id)


# ----------------------------------------------------------------------------- reading
class ModelFiles(QObject):
    """Finds the models on this computer and reads model files, off the GUI thread.

    Signals:
        found(list): the models found on this computer (:meth:`scan`).
        loaded(object, str): a ModelSpec read by :meth:`open_path` or :meth:`open_local`,
            and what was opened (a path or a model's name).
        failed(str): why a model could not be read: one line naming the file.
        finished(): after every answer (tests and screenshots wait on it).
    """

    found = Signal(list)
    loaded = Signal(object, str)
    failed = Signal(str)
    finished = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tasks = PageTasks(self, self._done, threads=1)
        self._generation = 0
        self.scanned = False

    def scan(self) -> None:
        """Look for models in the Hugging Face cache and Ollama's and LM Studio's folders."""
        self.scanned = True
        self.tasks.start(self._generation, "scan", find_local_models)

    def open_path(self, path: str | Path) -> None:
        """Read a config.json, a model folder or a GGUF file (see ``--model``)."""
        self._generation += 1
        ref = str(path)
        self.tasks.start(self._generation, "open", lambda: (_read_path(ref), ref))

    def open_local(self, model: LocalModel) -> None:
        """Read a model the scan found."""
        self._generation += 1
        self.tasks.start(self._generation, "open", lambda: (spec_from_local(model),
                                                            model.label))

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Block until the pending work is done and its answers delivered (tests)."""
        return self.tasks.wait(timeout_ms)

    def _done(self, generation: int, kind: str, result, error) -> None:
        if kind == "scan":
            if error is None:
                self.found.emit(result)
        elif generation == self._generation:  # an older request's answer is stale
            if error is not None:
                self.failed.emit(str(error).splitlines()[0] if str(error) else repr(error))
            else:
                spec, what = result
                self.loaded.emit(spec, what)
        self.finished.emit()


def _read_path(ref: str):
    """A path -> ModelSpec (pool thread)."""
    spec = resolve_model_ref(ref)
    if spec is None:  # a bare name that is no file: resolve_model_ref leaves it to presets
        raise ValueError(f"{ref}: file not found")
    return spec


# ----------------------------------------------------------------------------- drops
def dropped_paths(mime) -> list[Path]:
    """The local files and folders of a drag's data (URLs that are not files left out)."""
    if mime is None or not mime.hasUrls():
        return []
    urls: list[QUrl] = mime.urls()
    return [Path(url.toLocalFile()) for url in urls if url.isLocalFile()]


def dropped_kind(path: Path) -> str | None:
    """What a dropped path opens as: ``"plan"`` (a .gpuplan), ``"model"`` (a folder, a
    .json or .gguf file, or a file starting with GGUF's magic), ``"log"`` (an engine log
    ``check-log`` reads: its first 64 KiB hold vLLM, llama.cpp, Ollama or PyTorch memory
    lines), or None."""
    if path.suffix == PLAN_SUFFIX:
        return "plan"
    if path.is_dir() or path.suffix.lower() in (".json", ".gguf"):
        return "model"
    try:
        if path.is_file():
            with open(path, "rb") as handle:
                head = handle.read(LOG_SNIFF_BYTES)
            if head[:4] == b"GGUF":
                return "model"
            return "log" if looks_like_log(head.decode("utf-8", "replace")) else None
    except OSError:
        return None
    return None


def not_openable(path: Path) -> str:
    """The message for a dropped file that is neither a plan nor a model."""
    return translate("LocalModels", "Cannot open {path}: drop a plan ({suffix}), a "
                     "config.json, a model folder, a .gguf file or an engine's log").format(
        path=path, suffix=PLAN_SUFFIX)


def cannot_open_title() -> str:
    """The title of the message saying a dropped model could not be read."""
    return translate("LocalModels", "Cannot open model")


def reading(path: Path) -> str:
    """The status line while a dropped model is read."""
    return translate("LocalModels", "Reading {path}…").format(path=path)


def opened_model(name: str) -> str:
    """The status line after a model was opened."""
    return translate("LocalModels", "Model: {name}").format(name=name)


__all__ = [
    "LOCAL_HEADER",
    "LOCAL_PREFIX",
    "ModelFiles",
    "ModelPicker",
    "cannot_open_title",
    "dropped_kind",
    "dropped_paths",
    "item_text",
    "not_openable",
    "opened_model",
    "place_name",
    "reading",
]
