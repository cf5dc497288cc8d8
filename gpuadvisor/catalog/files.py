"""Reading one catalog file: the shipped folder, a file's kind, its checks, the shipped catalog.

A file is parsed and checked entry by entry (:func:`gpuadvisor.catalog.schema.parse_catalog`);
an offers file is then cross-checked against a GPU catalog (:func:`check_offer_gpus`), whose ids
the caller supplies lazily (the shipped GPUs for the shipped offers, the GPUs in effect
otherwise; see :mod:`gpuadvisor.catalog.overrides`). The shipped catalog is parsed once per
process (:func:`shipped`).

The same checks serve loading, ``catalog validate`` and ``catalog update``
(:func:`check_bytes`), so a file that passes them cannot break a start: a user's file is
read only when it is a regular file of at most :data:`MAX_CATALOG_BYTES`, and every model
entry must also give a finite parameter count (:func:`check_usable`).
"""

from __future__ import annotations

import difflib
import importlib.resources
import os
import re
from collections.abc import Callable, Iterable, Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from gpuadvisor.core.limits import MAX_CATALOG_FILE_BYTES, is_finite_number
from gpuadvisor.core.offers import Offer
from gpuadvisor.userfiles import read_regular_file

from .schema import KIND_NAMES, KINDS, CatalogError, parse_catalog

#: Largest catalog file read (``core.limits``, with the reason; ``catalog update`` takes the
#: same).
MAX_CATALOG_BYTES = MAX_CATALOG_FILE_BYTES

CatalogPath = str | os.PathLike[str] | Traversable
"""A catalog file: a path, a string, or a package resource."""

GpuIds = Callable[[], Iterable[str]]
"""Gives the GPU ids offers must name; called only when an offers file is cross-checked."""

ModelIds = Callable[[], Iterable[str]]
"""Gives the model preset ids API offers must name; called only when an apis file is
cross-checked."""


def catalog_dir() -> Traversable:
    """Return the folder holding the shipped catalog files.

    In an installed wheel the top-level ``catalog/`` folder is force-included as the package
    resource ``gpuadvisor/catalog_data`` (see ``pyproject.toml``), so it is found through
    ``importlib.resources`` wherever the package lives (site-packages, a zip, a frozen app).
    In a source checkout or an editable install that resource does not exist: the data stays at
    the repository's top level (data, not code, editable without touching the package), next
    to the ``gpuadvisor`` folder.

    Returns:
        A ``Traversable`` for ``catalog_data`` when present, else the repository's ``catalog``.
    """
    packaged = importlib.resources.files("gpuadvisor") / "catalog_data"
    if packaged.is_dir():
        return packaged
    # This file is gpuadvisor/catalog/files.py: three levels up is the repository.
    return Path(__file__).resolve().parents[2] / "catalog"


def kind_of(path: CatalogPath) -> str | None:
    """Tell the catalog kind from a file name.

    The stem itself (``gpus.toml``) or its last ``-``/``_``/``.``-separated word
    (``lab-gpus.toml``, ``my_gpus.toml``) names the kind.

    Args:
        path: The catalog file.

    Returns:
        ``"gpus"``, ``"models"``, ``"offers"`` or ``"apis"``, or ``None`` when the name says
        none of them.
    """
    stem = Path(display_name(path)).stem.lower()
    last_word = re.split(r"[-_.]", stem)[-1]
    return last_word if last_word in KIND_NAMES else None


def check_offer_gpus(offers: Mapping[str, Offer], gpu_ids: Iterable[str],
                     name: str = "offers.toml") -> list[str]:
    """Cross-check offers against a GPU catalog.

    Args:
        offers: The offers by id.
        gpu_ids: The ids of the GPU catalog they must refer to.
        name: The file name used in messages.

    Returns:
        One line per offer whose ``gpu_id`` names no GPU, e.g.
        ``offers.toml: [my-offer] field 'gpu_id': unknown GPU 'rtx-4091' (did you mean
        'rtx-4090'?)``; empty when every offer resolves.
    """
    known = list(gpu_ids)
    known_set = set(known)
    problems = []
    for offer_id, offer in offers.items():
        if offer.gpu_id not in known_set:
            close = difflib.get_close_matches(offer.gpu_id, known, n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else " (see gpus.toml)"
            problems.append(f"{name}: [{offer_id}] field 'gpu_id': unknown GPU "
                            f"{offer.gpu_id!r}{hint}")
    return problems


def check_api_models(apis: Mapping[str, Any], model_ids: Iterable[str],
                     name: str = "apis.toml") -> list[str]:
    """Cross-check API offers against the model presets: ``model`` and every ``also_for`` id
    must name a preset.

    Returns:
        One line per unknown id, e.g. ``apis.toml: [x] field 'model': unknown model preset
        'llama-3.1-8' (did you mean 'llama-3.1-8b'?)``; empty when every id resolves.
    """
    known = list(model_ids)
    known_set = set(known)
    problems = []
    for api_id, api in apis.items():
        for field_name, ids in (("model", (api.model,)), ("also_for", api.also_for)):
            for model_id in ids:
                if model_id in known_set:
                    continue
                close = difflib.get_close_matches(model_id, known, n=1, cutoff=0.6)
                hint = f" (did you mean '{close[0]}'?)" if close else " (see models.toml)"
                problems.append(f"{name}: [{api_id}] field '{field_name}': unknown model "
                                f"preset {model_id!r}{hint}")
    return problems


_shipped_cache: dict[str, Mapping[str, Any]] = {}


def shipped(kind: str) -> Mapping[str, Any]:
    """The shipped catalog of one kind, parsed once per process.

    Shipped offers are cross-checked against the shipped GPUs (not the user's).

    Raises:
        CatalogError: the shipped file has a problem (all are listed).
    """
    if kind not in _shipped_cache:
        _shipped_cache[kind] = load_or_raise(catalog_dir() / f"{kind}.toml", kind,
                                             shipped_gpu_ids, shipped_model_ids)
    return _shipped_cache[kind]


def shipped_gpu_ids() -> Iterable[str]:
    """The ids of the shipped GPU catalog."""
    return shipped("gpus").keys()


def shipped_model_ids() -> Iterable[str]:
    """The ids of the shipped model presets."""
    return shipped("models").keys()


def load_or_raise(path: CatalogPath, kind: str, gpu_ids: GpuIds,
                  model_ids: ModelIds = shipped_model_ids) -> dict[str, Any]:
    """Like :func:`load_checked`, raising :class:`CatalogError` on any problem."""
    records, problems = load_checked(path, kind, gpu_ids, model_ids)
    if problems:
        raise CatalogError(problems)
    return records


def load_checked(path: CatalogPath, kind: str, gpu_ids: GpuIds,
                 model_ids: ModelIds = shipped_model_ids) -> tuple[dict[str, Any], list[str]]:
    """Read one file of ``kind``: schema checks, then (offers) every gpu_id against ``gpu_ids``
    and (apis) every model id against ``model_ids``.

    Returns:
        The valid records by id, and one line per problem (a file that cannot be read is one).
    """
    name = display_name(path)
    if isinstance(path, str | os.PathLike) and not os.fspath(path):
        return {}, ["the catalog file's path is empty ('')"]
    try:
        if isinstance(path, str | os.PathLike):
            raw = read_regular_file(path, MAX_CATALOG_BYTES)
        else:
            raw = path.read_bytes()
    except OSError as exc:
        return {}, [f"{name}: cannot read the file: {exc.strerror or exc}"]
    except ValueError as exc:  # a NUL in the path
        return {}, [f"{name}: cannot read the file: {exc}"]
    return check_bytes(raw, name, kind, gpu_ids, model_ids)


def check_bytes(raw: bytes, name: str, kind: str, gpu_ids: GpuIds,
                model_ids: ModelIds = shipped_model_ids) -> tuple[dict[str, Any], list[str]]:
    """Like :func:`load_checked`, for a file's bytes already read (``name`` for messages)."""
    records, problems = parse_catalog(raw, name, KINDS[kind])
    if kind == "offers" and not problems:
        problems = check_offer_gpus(records, gpu_ids(), name)
    if kind == "apis" and not problems:
        problems = check_api_models(records, model_ids(), name)
    if not problems:
        problems = check_usable(kind, records, name)
    return records, problems


def check_usable(kind: str, records: Mapping[str, Any], name: str) -> list[str]:
    """Entries that pass their schema but that an estimate could not use: a model whose
    parameter count does not compute to a finite number (10**400 layers). One line each."""
    if kind != "models":
        return []
    problems = []
    for entry_id, spec in records.items():
        try:
            counts = spec.params()
            usable = is_finite_number(counts.total) and is_finite_number(counts.active) and (
                float(counts.total) < 1e18)
            why = "" if usable else f"its parameter count {counts.total:.3g} is not a usable number"
        except (ArithmeticError, ValueError, TypeError, RecursionError) as exc:
            why = f"its parameter count cannot be computed ({exc})"
        if why:
            problems.append(f"{name}: [{entry_id}] cannot be used: {why}")
    return problems


def display_name(path: CatalogPath) -> str:
    """The file name shown in messages."""
    return _as_file(path).name


def _as_file(path: CatalogPath) -> Traversable:
    """Paths and strings become ``Path``; resource ``Traversable`` objects pass through."""
    return Path(path) if isinstance(path, str | os.PathLike) else path
