"""The user's catalog files and the catalog in effect.

The catalog in effect, per kind, is the shipped one, or the one installed by ``gpuadvisor
catalog update`` (:func:`updated_path`), with the user's own entries on top
(:func:`override_path`). A user file with problems is reported and not used, never changed.
It is built once and rebuilt only when one of the user's files changes (:func:`in_effect`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpuadvisor.core.apis import ApiOffer
from gpuadvisor.core.offers import Offer
from gpuadvisor.userfiles import data_dir, set_aside

from .files import load_checked, shipped
from .schema import KINDS

#: Folder (under the user data folder) of the user's catalog files.
USER_CATALOG_FOLDER = "catalog"
#: Subfolder holding catalogs installed by ``gpuadvisor catalog update``.
UPDATES_FOLDER = "updates"
#: Suffix of the copy of the previous updated catalog kept by an update.
PREVIOUS_SUFFIX = ".previous"


def user_catalog_dir() -> Path:
    """The user's catalog folder: ``<data dir>/catalog``.

    The data dir is ``$GPUADVISOR_DATA_DIR`` or the platform's user data folder
    (:func:`gpuadvisor.userfiles.data_dir`), e.g. ``~/.local/share/gpuadvisor`` on Linux.
    It holds, per kind (``gpus``, ``models``, ``offers``, ``apis``):

    - ``<kind>.toml``: the user's own entries (:func:`override_path`), written by hand or by
      the app; same schema as the shipped file; they replace or add to the catalog;
    - ``updates/<kind>.toml``: a whole catalog installed by ``gpuadvisor catalog update``
      (:func:`updated_path`), used instead of the shipped one, with the previous one kept as
      ``updates/<kind>.toml.previous``.
    """
    return data_dir() / USER_CATALOG_FOLDER


def override_path(kind: str) -> Path:
    """The user's own entries of one catalog kind: ``<data dir>/catalog/<kind>.toml``."""
    _check_kind(kind)
    return user_catalog_dir() / f"{kind}.toml"


def updated_path(kind: str) -> Path:
    """The catalog installed by ``catalog update``: ``<data dir>/catalog/updates/<kind>.toml``."""
    _check_kind(kind)
    return user_catalog_dir() / UPDATES_FOLDER / f"{kind}.toml"


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown catalog kind {kind!r}; use one of {', '.join(KINDS)}")


_effective_cache: dict[str, tuple[tuple, dict[str, Any]]] = {}
#: Messages about user files set aside in this process, by kind: the file is gone from its
#: place afterwards, so the rebuilt catalog alone would no longer say why.
_set_aside_messages: dict[tuple[str, str], list[str]] = {}


def in_effect(kind: str, warnings: list[str] | None) -> dict[str, Any]:
    """The catalog of ``kind`` in effect, as a fresh dict over cached records.

    Args:
        kind: ``gpus``, ``models``, ``offers`` or ``apis``.
        warnings: A list that receives one message per user file not used, or None.

    Raises:
        CatalogError: the shipped catalog has a problem.
    """
    key = tuple(_signature(p) for p in _user_files(kind))
    cached = _effective_cache.get(kind)
    if cached is None or cached[0] != key:
        cached = (key, _build_in_effect(kind))
        _effective_cache[kind] = cached
    if warnings is not None:
        warnings.extend(_set_aside_messages.get((kind, str(user_catalog_dir())), []))
    return dict(cached[1])


def set_aside_notices() -> list[str]:
    """What this process has to tell about the user's catalog files it set aside (every kind,
    each message once, oldest first): the file named, what is used instead, where it went
    and every problem. Empty when no user file had a problem (or none was read yet)."""
    folder = str(user_catalog_dir())
    out: list[str] = []
    for (_kind, where), messages in _set_aside_messages.items():
        out.extend(m for m in messages if where == folder and m not in out)
    return out


def in_effect_gpu_ids() -> Iterable[str]:
    """The ids of the GPU catalog in effect (what offers outside the shipped file must name)."""
    return in_effect("gpus", None).keys()


def in_effect_model_ids() -> Iterable[str]:
    """The ids of the model presets in effect (what API offers outside the shipped file must
    name)."""
    return in_effect("models", None).keys()


def _signature(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return (str(path), None)
    return (str(path), st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _user_files(kind: str) -> list[Path]:
    kinds = {"offers": ("gpus", "offers"), "apis": ("models", "apis")}.get(kind, (kind,))
    return [p for k in kinds for p in (updated_path(k), override_path(k))]


def _build_in_effect(kind: str) -> dict[str, Any]:
    records: dict[str, Any] = dict(shipped(kind))
    updated = updated_path(kind)
    if updated.is_file():
        loaded, problems = load_checked(updated, kind, in_effect_gpu_ids,
                                        in_effect_model_ids)
        if problems:
            _remember(kind, _not_used(updated, "the catalog installed by 'catalog update'",
                                      f"the shipped {kind} catalog", problems))
        else:
            records = loaded
    override = override_path(kind)
    if override.is_file():
        loaded, problems = load_checked(override, kind, in_effect_gpu_ids,
                                        in_effect_model_ids)
        if problems:
            _remember(kind, _not_used(override, "your own entries",
                                      f"the {kind} catalog without them", problems))
        else:
            for entry_id, record in loaded.items():
                records[entry_id] = _as_user(record)
    return records


def _as_user(record: Any) -> Any:
    return replace(record, user=True) if isinstance(record, Offer | ApiOffer) else record


def _remember(kind: str, message: str) -> None:
    """Keep a set-aside message for every later reader of this kind in this process."""
    folder = str(user_catalog_dir())
    for k in {"gpus": ("gpus", "offers"), "models": ("models", "apis")}.get(kind, (kind,)):
        _set_aside_messages.setdefault((k, folder), []).append(message)


def _not_used(path: Path, what: str, instead: str, problems: Sequence[str]) -> str:
    """Set ``path`` aside (``<name>.bad-<date>-<time>``, the rule for every user file) and
    say why and where it went; when it cannot be moved, it is left and said so."""
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    lines = "\n".join(f"  {p}" for p in problems)
    try:
        backup = set_aside(path)
        where = (f"It was set aside as {backup.name} (kept); fix it and rename it back to "
                 f"{path.name} to use it.")
    except OSError as exc:
        where = f"It could not be set aside ({exc}) and was left as it is."
    return f"{path} ({what}) was not used: it has {count}; {instead} is used. {where}\n{lines}"
