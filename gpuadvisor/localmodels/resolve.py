"""Naming a model on disk: a config.json, a model folder, a GGUF file, a cached repo id, an
Ollama name, or a config.json on standard input -> a ModelSpec.

Used by ``--model`` on the command line and by the app (the Plan page's "On this computer"
entries, files dropped on the window). Nothing here touches the network: a repo id is looked
up in the local Hugging Face cache only.

A file is told by its first bytes, not its name: ``GGUF`` starts a GGUF file (Ollama's blobs
have no suffix), anything else is read as a config.json. Every problem is a
:class:`ModelFileError` whose message is one line naming the file and what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import TextIO

from gpuadvisor.core.limits import MAX_CONFIG_JSON_BYTES
from gpuadvisor.core.model import ModelSpec, spec_from_hf_config

from .found import (
    LocalModel,
    hf_hub_cache,
    hf_repo_folder,
    hf_snapshot,
    lmstudio_folders,
    ollama_blob,
    ollama_folders,
)
from .gguf_file import MAGIC, GgufError, read_gguf_header
from .gguf_spec import spec_from_gguf

#: A config.json is a few kilobytes; anything over this is not one.
MAX_CONFIG_BYTES = MAX_CONFIG_JSON_BYTES

# org/name, optionally @revision, optionally /file.gguf (how the app labels cached GGUFs).
_REPO_ID = re.compile(
    r"^(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]+)(?:@(?P<rev>[\w.-]+))?(?:/(?P<file>[^/\\]+\.gguf))?$",
    re.IGNORECASE,
)
# name:tag or namespace/name:tag (no path separators, no drive letter).
_OLLAMA_NAME = re.compile(r"^(?:[\w.-]+/){0,2}[\w.-]+:[\w.-]+$")


class ModelFileError(ValueError):
    """A model on disk that cannot be used; the message is one line naming it."""


# ----------------------------------------------------------------------------- files
def _regular_file(path: Path) -> os.stat_result:
    """``path``'s stat when it is a regular file; else ModelFileError saying what it is."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ModelFileError(f"{path}: file not found") from None
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ModelFileError(f"{path}: not a regular file (a pipe or device cannot be read)")
    return info


def _starts_with_gguf(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == MAGIC
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read: {exc.strerror or exc}") from None


def parse_config_text(text: str, where: str) -> dict:
    """A config.json's text -> its JSON object.

    Raises:
        ModelFileError: not JSON, or not a JSON object.
    """
    from gpuadvisor.core.limits import LimitError, loads_json

    try:
        # Strict: no NaN or Infinity, no number past what a field can hold (a 5,000-digit
        # integer would otherwise end in Python's integer-string limit), bounded nesting.
        config = loads_json(text)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{where}: not valid JSON (line {exc.lineno}, column "
                             f"{exc.colno}): {exc.msg}") from None
    except LimitError as exc:
        raise ModelFileError(f"{where}: not a usable config.json: {exc}") from None
    if not isinstance(config, dict):
        raise ModelFileError(f"{where}: must hold a JSON object (a config.json)")
    return config


def read_config_json(path: Path) -> dict:
    """Read a config.json (at most :data:`MAX_CONFIG_BYTES`).

    Raises:
        ModelFileError: missing, not a regular file, too large, not UTF-8 or not a JSON
            object.
    """
    size = _regular_file(path).st_size
    if size > MAX_CONFIG_BYTES:
        raise ModelFileError(f"{path}: too large for a config.json ({size / 1e6:.0f} MB; a "
                             f"config.json is a few kB)")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFileError(f"{path}: not a config.json (not UTF-8 text) nor a GGUF "
                             "file") from None
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return parse_config_text(text, str(path))


def spec_from_config(config: dict, where: str, model_id: str, name: str | None = None,
                     **extra: object) -> ModelSpec:
    """A spec from a parsed config.json; errors name ``where``."""
    try:
        spec = spec_from_hf_config(config, model_id=model_id, name=name)
    except ValueError as exc:
        raise ModelFileError(f"{where}: {exc}") from None
    spec.extra.update({"file_format": "config.json", **extra})
    return spec


def spec_from_file(path: str | os.PathLike[str], *, model_id: str | None = None,
                   name: str | None = None) -> ModelSpec:
    """A GGUF file or a config.json (told apart by the first bytes) -> a ModelSpec.

    The id of a ``config.json`` is its folder's name (the Hub layout); other files are
    named by their stem.

    Raises:
        ModelFileError: one line naming the file and what is wrong with it.
    """
    file = Path(path)
    _regular_file(file)
    if _starts_with_gguf(file):
        try:
            return spec_from_gguf(read_gguf_header(file), model_id=model_id, name=name)
        except GgufError as exc:
            raise ModelFileError(str(exc)) from None
    if file.name == "config.json" and file.parent.name:
        default_id = file.parent.name
    else:
        default_id = file.stem or "custom-model"
    return spec_from_config(read_config_json(file), str(file), model_id or default_id,
                            name or model_id or default_id, file_path=str(file))


def spec_from_folder(folder: str | os.PathLike[str]) -> ModelSpec:
    """A model folder -> a ModelSpec: its ``config.json``, else its one GGUF file; a
    Hugging Face cache folder (``models--org--name``) reads its current snapshot.

    Raises:
        ModelFileError: no config.json and no (or several) GGUF files, or a bad file.
    """
    folder = Path(folder)
    if folder.name.startswith("models--") and (folder / "snapshots").is_dir():
        snapshot = hf_snapshot(folder)
        if snapshot is None:
            raise ModelFileError(f"{folder}: a Hugging Face cache folder with no snapshot")
        repo_id = folder.name[len("models--"):].replace("--", "/")
        return _spec_from_snapshot(snapshot, repo_id)
    config = folder / "config.json"
    if config.exists() or config.is_symlink():  # a broken or looping link is named as such
        return spec_from_file(config)
    ggufs = sorted(p for p in _listing(folder) if p.name.lower().endswith(".gguf")
                   and not p.name.lower().startswith("mmproj"))
    if len(ggufs) == 1:
        return spec_from_file(ggufs[0])
    if ggufs:
        names = ", ".join(p.name for p in ggufs[:4]) + (", …" if len(ggufs) > 4 else "")
        raise ModelFileError(f"{folder}: holds {len(ggufs)} GGUF files ({names}): name one")
    raise ModelFileError(f"{folder}: no config.json and no .gguf file in this folder")


def _listing(folder: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder)]
    except OSError as exc:
        raise ModelFileError(f"{folder}: cannot list: {exc.strerror or exc}") from None


def _spec_from_snapshot(snapshot: Path, repo_id: str, file: str | None = None) -> ModelSpec:
    """A cached repo's snapshot -> a ModelSpec named after the repo."""
    short = repo_id.rsplit("/", 1)[-1]
    if file is not None:
        target = snapshot / file
        if not target.exists():
            raise ModelFileError(f"{repo_id}: no file {file} in the cached snapshot {snapshot}")
        spec = spec_from_file(target)
        spec.extra["hf_repo"] = repo_id
        return spec
    config = snapshot / "config.json"
    if config.exists():
        return spec_from_config(read_config_json(config), f"{repo_id} ({config})", short,
                                repo_id, file_path=str(config), hf_repo=repo_id)
    spec = spec_from_folder(snapshot)
    spec.extra["hf_repo"] = repo_id
    return spec


def spec_from_hf_cache(repo_id: str, revision: str | None = None, file: str | None = None,
                       cache: Path | None = None) -> ModelSpec:
    """A repo id found in the local Hugging Face cache -> a ModelSpec (never downloads).

    Raises:
        ModelFileError: the repo (or revision, or file) is not in the cache, or its
            config.json cannot be read.
    """
    cache = hf_hub_cache() if cache is None else cache
    folder = hf_repo_folder(repo_id, cache)
    if folder is None:
        raise ModelFileError(
            f"{repo_id}: no such file or folder, and not in the local Hugging Face cache "
            f"({cache}); gpuadvisor never downloads: give a config.json or a model folder, "
            f"or fetch the config first (huggingface-cli download {repo_id} config.json)")
    snapshot = hf_snapshot(folder, revision)
    if snapshot is None:
        what = f"revision {revision!r}" if revision else "snapshot"
        raise ModelFileError(f"{repo_id}: the cache folder {folder} has no {what}")
    return _spec_from_snapshot(snapshot, repo_id, file)


def spec_from_ollama(name: str) -> ModelSpec | None:
    """An Ollama model name (``qwen3:8b``) -> a ModelSpec from its GGUF blob; None when
    Ollama's folders hold no such model."""
    model, _, tag = name.partition(":")
    parts = model.split("/")
    if len(parts) == 1:
        parts = ["registry.ollama.ai", "library", *parts]
    elif len(parts) == 2:
        parts = ["registry.ollama.ai", *parts]
    for models in ollama_folders():
        manifest = models.joinpath("manifests", *parts, tag or "latest")
        if manifest.is_file():
            blob = ollama_blob(manifest, models)
            if blob is None:
                raise ModelFileError(f"{name}: Ollama's manifest {manifest} names no model "
                                     "blob that is on disk")
            return spec_from_file(blob, model_id=name.replace("/", "-"), name=name)
    return None


def spec_from_stdin(stream: TextIO) -> ModelSpec:
    """A config.json read from ``stream`` (``--model -``).

    Raises:
        ModelFileError: nothing piped in (a terminal), too large, not a JSON object, or
            not a model config.
    """
    if stream is None or (hasattr(stream, "isatty") and stream.isatty()):
        raise ModelFileError("stdin: '-' reads a config.json piped in (e.g. "
                             "'cat config.json | gpuadvisor estimate --model -'); "
                             "nothing was piped")
    try:
        text = stream.read(MAX_CONFIG_BYTES + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"stdin: cannot read a config.json: {exc}") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise ModelFileError("stdin: too large for a config.json (a config.json is a few kB)")
    if not text.strip():
        raise ModelFileError("stdin: empty: expected a config.json")
    config = parse_config_text(text, "stdin")
    origin = config.get("_name_or_path")
    if not isinstance(origin, str) or not origin.strip():
        origin = None  # a list, an object or a number names nothing: the id stands in
    model_id = origin.rstrip("/").rsplit("/", 1)[-1] if origin else "stdin-model"
    return spec_from_config(config, "stdin", model_id, origin or model_id)


def spec_from_local(model: LocalModel) -> ModelSpec:
    """A model the scan found (:func:`.found.find_local_models`) -> a ModelSpec.

    Raises:
        ModelFileError: the file is gone or cannot be read.
    """
    if model.is_gguf:
        spec = spec_from_file(model.path, name=model.label if model.place == "ollama"
                              else None,
                              model_id=model.label.replace("/", "-")
                              if model.place == "ollama" else None)
    else:
        short = model.label.rsplit("/", 1)[-1]
        spec = spec_from_config(read_config_json(model.path), f"{model.label} ({model.path})",
                                short, model.label, file_path=str(model.path),
                                hf_repo=model.label)
    spec.extra["found_in"] = model.place
    return spec


# ----------------------------------------------------------------------------- any ref
def resolve_model_ref(ref: str, stdin: TextIO | None = None) -> ModelSpec | None:
    """What ``--model`` names on disk -> a ModelSpec; None when ``ref`` names nothing on
    disk and does not look like a path (the caller then tries the catalog's presets).

    Tried in order: ``-`` (a config.json on ``stdin``); an existing file or folder; a
    Hugging Face repo id in the local cache (``Qwen/Qwen3-8B``, ``org/name@revision``,
    ``org/name/file.gguf``); an Ollama name (``qwen3:8b``); an LM Studio
    ``publisher/repo/file.gguf``.

    Raises:
        ModelFileError: a file or folder that cannot be used, a path that does not exist,
            or a repo id that is not cached; one line naming it.
    """
    if ref == "-":
        return spec_from_stdin(stdin)
    path = Path(ref).expanduser()
    if path.exists() or path.is_symlink():
        return spec_from_folder(path) if path.is_dir() else spec_from_file(path)
    if (match := _REPO_ID.match(ref)) is not None and not ref.lower().endswith(".json"):
        repo, rev, file = match["repo"], match["rev"], match["file"]
        if file is not None and rev is None:
            for folder in lmstudio_folders():
                candidate = folder / ref
                if candidate.is_file():
                    return spec_from_file(candidate)
        return spec_from_hf_cache(repo, rev, file)
    if _OLLAMA_NAME.match(ref):
        spec = spec_from_ollama(ref)
        if spec is not None:
            return spec
        raise ModelFileError(f"{ref}: no such Ollama model in {ollama_folders()[0]}")
    if ref.lower().endswith((".json", ".gguf")) or os.sep in ref or "/" in ref:
        raise ModelFileError(f"{ref}: file not found")
    return None


__all__ = [
    "MAX_CONFIG_BYTES",
    "ModelFileError",
    "parse_config_text",
    "read_config_json",
    "resolve_model_ref",
    "spec_from_config",
    "spec_from_file",
    "spec_from_folder",
    "spec_from_hf_cache",
    "spec_from_local",
    "spec_from_ollama",
    "spec_from_stdin",
]
