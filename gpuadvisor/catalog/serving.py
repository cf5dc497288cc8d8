"""``catalog/serving.toml``: what vLLM, llama.cpp and Ollama load for each model preset.

Read once per process. Every entry is checked at the door: its id must be a shipped preset,
``hf_repo`` an ``owner/name``, tags ``name:tag``, files ``.gguf`` names, and the keys of
``ollama_tags`` and ``gguf_files`` GGUF types; a problem raises
:class:`~gpuadvisor.catalog.schema.CatalogError` naming file, entry and field.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from typing import Any

from gpuadvisor.core.serving import ServingIds

from .files import catalog_dir, shipped_model_ids
from .schema import CatalogError

FILE = "serving.toml"
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_TAG = re.compile(r"^[a-z0-9][a-z0-9._-]*(/[a-z0-9._-]+)?:[A-Za-z0-9._-]+$")
_GGUF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*\.gguf$")
_KEYS = {"hf_repo", "source", "ollama", "ollama_quant", "ollama_tags", "gguf_repo",
         "gguf_files"}
_cache: dict[str, ServingIds] | None = None
_releases: dict[str, EngineRelease] | None = None
#: The engines whose release the file names (``[engines.NAME]``), and the keys each has.
ENGINES = ("vllm", "llama_cpp", "ollama")
_RELEASE_KEYS = {"release", "commit", "source"}
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True)
class EngineRelease:
    """The engine release the serving exports' flags and values are checked against.

    Attributes:
        engine: ``vllm``, ``llama_cpp`` or ``ollama``.
        release: its name (``0.34.0``).
        commit: the source commit read (hex; vLLM's wheel records 9 digits).
        source: where it was read.
    """

    engine: str
    release: str
    commit: str
    source: str


def _releases_of(table: Any) -> tuple[dict[str, EngineRelease], list[str]]:
    if not isinstance(table, dict):
        return {}, [f"{FILE}: [engines] must be a table"]
    found, problems = {}, []
    for name in sorted(set(table) | set(ENGINES)):
        where = f"{FILE}: [engines.{name}]"
        entry = table.get(name)
        if name not in ENGINES:
            problems.append(f"{where}: unknown engine (known: {', '.join(ENGINES)})")
        elif not isinstance(entry, dict):
            problems.append(f"{where}: missing")
        elif set(entry) != _RELEASE_KEYS or not all(
                isinstance(v, str) and v for v in entry.values()):
            problems.append(f"{where}: needs exactly {', '.join(sorted(_RELEASE_KEYS))} "
                            "(non-empty text)")
        elif not _COMMIT.match(entry["commit"]):
            problems.append(f"{where}.commit: {entry['commit']!r} is not a commit hash")
        else:
            found[name] = EngineRelease(name, **entry)
    return found, problems


def _check(entry: str, table: Any, models) -> tuple[ServingIds | None, list[str]]:
    where = f"{FILE}: [{entry}]"
    if entry not in models:
        return None, [f"{where}: not a model preset id"]
    if not isinstance(table, dict):
        return None, [f"{where}: must be a table"]
    problems = [f"{where}: unknown key {key!r}" for key in sorted(set(table) - _KEYS)]
    for key in ("hf_repo", "source"):
        if not isinstance(table.get(key), str) or not table[key].strip():
            problems.append(f"{where}.{key}: required, a text")
    checks = (("hf_repo", _REPO), ("gguf_repo", _REPO), ("ollama", _TAG))
    for key, pattern in checks:
        value = table.get(key)
        if value is not None and (not isinstance(value, str) or not pattern.match(value)):
            problems.append(f"{where}.{key}: {value!r} is not a valid name")
    for key, pattern in (("ollama_tags", _TAG), ("gguf_files", _GGUF)):
        value = table.get(key, {})
        if not isinstance(value, dict):
            problems.append(f"{where}.{key}: must be an inline table")
            continue
        for quant, name in value.items():
            if not isinstance(name, str) or not pattern.match(name):
                problems.append(f"{where}.{key}.{quant}: {name!r} is not a valid name")
    if table.get("gguf_files") and not table.get("gguf_repo"):
        problems.append(f"{where}.gguf_files: given without gguf_repo")
    if problems:
        return None, problems
    try:
        return ServingIds(**table), []
    except (TypeError, ValueError) as exc:
        return None, [f"{where}: {exc}"]


def load_serving() -> dict[str, ServingIds]:
    """The serving identifiers of the shipped presets, by preset id (parsed once).

    Raises:
        CatalogError: the shipped file has a problem (every one is listed).
    """
    global _cache
    if _cache is None:
        text = (catalog_dir() / FILE).read_text(encoding="utf-8")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError([f"{FILE}: not valid TOML: {exc}"]) from None
        models = set(shipped_model_ids())
        found: dict[str, ServingIds] = {}
        releases, problems = _releases_of(data.get("engines"))
        for entry, table in data.items():
            if entry in ("schema_version", "engines"):
                continue
            ids, wrong = _check(entry, table, models)
            problems += wrong
            if ids is not None:
                found[entry] = ids
        if problems:
            raise CatalogError(problems)
        global _releases
        _cache, _releases = found, releases
    return dict(_cache)


def engine_release(engine: str) -> EngineRelease:
    """The release of ``engine`` (``vllm``, ``llama_cpp``, ``ollama``) the serving exports
    are written for (``[engines]`` of catalog/serving.toml)."""
    load_serving()
    assert _releases is not None
    return _releases[engine]


__all__ = ["ENGINES", "EngineRelease", "engine_release", "load_serving"]
