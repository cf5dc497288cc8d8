"""Models already on this computer: the Hugging Face cache, Ollama's and LM Studio's folders.

Only folders are listed and small files read (a ref, a manifest); nothing is downloaded and
no weights are opened. Each place is looked up where its tool keeps it:

* Hugging Face hub cache: ``$HF_HUB_CACHE`` (or the older ``$HUGGINGFACE_HUB_CACHE``), else
  ``$HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub``, else
  ``~/.cache/huggingface/hub`` — huggingface_hub's own order. A model is
  ``models--<org>--<name>/snapshots/<revision>/``; ``refs/main`` names the revision.
* Ollama: ``$OLLAMA_MODELS``, else ``~/.ollama/models`` (and the Linux service's
  ``/usr/share/ollama/.ollama/models``). ``manifests/<host>/<namespace>/<model>/<tag>`` is a
  JSON manifest whose ``application/vnd.ollama.image.model`` layer names the GGUF blob
  ``blobs/sha256-<hex>``.
* LM Studio: ``~/.lmstudio/models`` and the older ``~/.cache/lm-studio/models``:
  ``<publisher>/<repo>/*.gguf`` (vision projectors, ``mmproj-*.gguf``, are not models).

Every walk is bounded (depth and count), and an unreadable folder or file is skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gpuadvisor.core.limits import MAX_MANIFEST_FILE_BYTES

#: At most this many models per place (a scan never runs long on a crowded disk).
MAX_PER_PLACE = 500
#: Manifests and refs larger than this are not read (``core.limits``).
MAX_SMALL_FILE_BYTES = MAX_MANIFEST_FILE_BYTES
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"


@dataclass(frozen=True)
class LocalModel:
    """One model found on disk.

    Attributes:
        place: ``"hf-cache"``, ``"ollama"`` or ``"lmstudio"``.
        label: how the tool names it (``Qwen/Qwen3-8B``, ``qwen3:8b``,
            ``lmstudio-community/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf``).
        path: the file to read: a ``config.json`` or a GGUF file.
        size_bytes: the model's weight files on disk (0 when unknown).
    """

    place: str
    label: str
    path: Path
    size_bytes: int = 0

    @property
    def is_gguf(self) -> bool:
        """True when ``path`` is a GGUF file (else a config.json)."""
        return self.path.name != "config.json"


# ----------------------------------------------------------------------------- helpers
def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def _entries(folder: Path) -> list[os.DirEntry]:
    """The folder's entries, sorted by name; [] when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)[: 4 * MAX_PER_PLACE]
    except OSError:
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _file_size(path: Path) -> int:
    """Size of a regular file (following links); 0 when missing or not a file."""
    try:
        info = path.stat()
    except OSError:
        return 0
    return info.st_size if path.is_file() else 0


def _small_text(path: Path) -> str | None:
    """A small regular file's text, or None."""
    size = _file_size(path)
    if not 0 < size <= MAX_SMALL_FILE_BYTES:
        return None
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


# ----------------------------------------------------------------------------- HF cache
def hf_hub_cache() -> Path:
    """The Hugging Face hub cache folder, found as huggingface_hub finds it."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if (path := _env_path(name)) is not None:
            return path
    if (home := _env_path("HF_HOME")) is not None:
        return home / "hub"
    xdg = _env_path("XDG_CACHE_HOME") or Path.home() / ".cache"
    return xdg / "huggingface" / "hub"


def hf_repo_folder(repo_id: str, cache: Path | None = None) -> Path | None:
    """The cache folder of a model repo (``Qwen/Qwen3-8B``), or None when not cached.

    The case of the id may differ from the folder's (the Hub ignores case).
    """
    cache = hf_hub_cache() if cache is None else cache
    wanted = "models--" + repo_id.strip("/").replace("/", "--")
    exact = cache / wanted
    if exact.is_dir():
        return exact
    for entry in _entries(cache):
        if entry.name.lower() == wanted.lower() and _is_dir(entry):
            return Path(entry.path)
    return None


def hf_snapshot(repo_folder: Path, revision: str | None = None) -> Path | None:
    """The snapshot folder of a cached repo: ``revision`` (a commit or a ref name), else
    the commit ``refs/main`` names, else the newest snapshot; None when there is none."""
    snapshots = repo_folder / "snapshots"
    if revision:
        commit = _small_text(repo_folder / "refs" / revision) or revision
        folder = snapshots / commit
        return folder if folder.is_dir() else None
    commit = _small_text(repo_folder / "refs" / "main")
    if commit and (snapshots / commit).is_dir():
        return snapshots / commit
    folders = [Path(e.path) for e in _entries(snapshots) if _is_dir(e)]
    if not folders:
        return None
    return max(folders, key=_mtime)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _weights_size(folder: Path) -> int:
    """Bytes of the weight files in a snapshot (links into blobs/ followed)."""
    return sum(_file_size(Path(e.path)) for e in _entries(folder)
               if e.name.endswith(_WEIGHT_SUFFIXES))


def _hf_models(cache: Path) -> Iterator[LocalModel]:
    for entry in _entries(cache):
        if not entry.name.startswith("models--") or not _is_dir(entry):
            continue
        repo_id = entry.name[len("models--"):].replace("--", "/")
        snapshot = hf_snapshot(Path(entry.path))
        if snapshot is None:
            continue
        config = snapshot / "config.json"
        if _file_size(config):
            yield LocalModel("hf-cache", repo_id, config, _weights_size(snapshot))
        for gguf in _gguf_files(snapshot):
            yield LocalModel("hf-cache", f"{repo_id}/{gguf.name}", gguf, _file_size(gguf))


def _gguf_files(folder: Path) -> list[Path]:
    """The model GGUF files directly in ``folder`` (vision projectors left out)."""
    return [Path(e.path) for e in _entries(folder)
            if e.name.lower().endswith(".gguf") and not e.name.lower().startswith("mmproj")
            and _file_size(Path(e.path))]


# ----------------------------------------------------------------------------- Ollama
def ollama_folders() -> list[Path]:
    """Where Ollama keeps models: ``$OLLAMA_MODELS``, else the user's and the service's."""
    if (path := _env_path("OLLAMA_MODELS")) is not None:
        return [path]
    return [Path.home() / ".ollama" / "models", Path("/usr/share/ollama/.ollama/models")]


def ollama_name(manifest: Path, manifests: Path) -> str:
    """``qwen3:8b`` for ``registry.ollama.ai/library/qwen3/8b``; ``ns/model:tag`` for
    another namespace; ``host/ns/model:tag`` for another registry."""
    parts = manifest.relative_to(manifests).parts
    if len(parts) < 2:
        return manifest.name
    *where, model, tag = parts
    if where[:2] == ["registry.ollama.ai", "library"]:
        where = where[2:]
    elif where[:1] == ["registry.ollama.ai"]:
        where = where[1:]
    return "/".join([*where, model]) + f":{tag}"


def ollama_blob(manifest: Path, models: Path) -> Path | None:
    """The GGUF blob a manifest names (its model layer), or None."""
    text = _small_text(manifest)
    try:
        layers = json.loads(text).get("layers", []) if text else []
    except (json.JSONDecodeError, AttributeError):
        return None
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
            digest = str(layer.get("digest", ""))
            if not digest.startswith("sha256:") or "/" in digest or "\\" in digest:
                return None
            blob = models / "blobs" / digest.replace(":", "-", 1)
            return blob if _file_size(blob) else None
    return None


def _ollama_models(models: Path) -> Iterator[LocalModel]:
    manifests = models / "manifests"
    stack, seen = [(manifests, 0)], 0
    while stack and seen < MAX_PER_PLACE:
        folder, depth = stack.pop()
        for entry in _entries(folder):
            path = Path(entry.path)
            if _is_dir(entry):
                if depth < 4:
                    stack.append((path, depth + 1))
                continue
            seen += 1
            blob = ollama_blob(path, models)
            if blob is not None:
                yield LocalModel("ollama", ollama_name(path, manifests), blob,
                                 _file_size(blob))


# ----------------------------------------------------------------------------- LM Studio
def lmstudio_folders() -> list[Path]:
    """Where LM Studio keeps models (the current folder first, then the older one)."""
    home = Path.home()
    return [home / ".lmstudio" / "models", home / ".cache" / "lm-studio" / "models"]


def _lmstudio_models(models: Path) -> Iterator[LocalModel]:
    for publisher in _entries(models):
        if not _is_dir(publisher):
            continue
        for repo in _entries(Path(publisher.path)):
            if not _is_dir(repo):
                continue
            for gguf in _gguf_files(Path(repo.path)):
                yield LocalModel("lmstudio", f"{publisher.name}/{repo.name}/{gguf.name}",
                                 gguf, _file_size(gguf))


# ----------------------------------------------------------------------------- all
def find_local_models() -> list[LocalModel]:
    """Every model found in the Hugging Face cache, Ollama's and LM Studio's folders.

    Returns:
        The models, by place (HF cache, Ollama, LM Studio), then by label; at most
        :data:`MAX_PER_PLACE` per place. A place that does not exist gives none.
    """
    found: list[LocalModel] = []
    places = [("hf-cache", _hf_models, [hf_hub_cache()]),
              ("ollama", _ollama_models, ollama_folders()),
              ("lmstudio", _lmstudio_models, lmstudio_folders())]
    for _place, walk, folders in places:
        models: dict[str, LocalModel] = {}
        for folder in folders:
            if not folder.is_dir():
                continue
            for model in walk(folder):
                models.setdefault(model.label, model)
                if len(models) >= MAX_PER_PLACE:
                    break
        found.extend(sorted(models.values(), key=lambda m: m.label.lower()))
    return found


__all__ = [
    "MAX_PER_PLACE",
    "LocalModel",
    "find_local_models",
    "hf_hub_cache",
    "hf_repo_folder",
    "hf_snapshot",
    "lmstudio_folders",
    "ollama_blob",
    "ollama_folders",
    "ollama_name",
]
