"""Load and validate catalog files (``catalog/*.toml``) into core records.

A catalog file is TOML with one table per entry, keyed by the entry id, plus an optional
top-level ``schema_version``. Each kind of catalog (``gpus``, ``models``, ``offers``) has a
:class:`Schema`: a strict, declarative list of :class:`Field` rules (type, required, allowed
values, numeric range, unit for messages) (model presets check themselves, in core). Every
problem is reported as one line naming the file, the entry and the field, e.g.::

    gpus.toml: [rtx-4090] field 'memory_gb': unknown key (did you mean 'memory_gib'?)

Adding a kind is one entry in :data:`KINDS`: its schema and a constructor that turns a checked
table into a core record (raising ``ValueError`` for cross-field problems).

The catalog in effect (:func:`load_gpus`, :func:`load_models`, :func:`load_offers` without a
path) is the shipped one, or the one installed by ``gpuadvisor catalog update``
(:func:`update_catalog`), with the user's own entries on top (:func:`user_catalog_dir`). A
user file with problems is reported (:func:`catalog_warnings`) and not used, never changed.

This module may read files and, in :func:`update_catalog` only, download one over HTTPS; it
never imports Qt, torch or pynvml.
"""

from __future__ import annotations

import contextlib
import difflib
import http.client
import importlib.resources
import math
import os
import re
import ssl
import tempfile
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from gpuadvisor.core.gpu import (
    ECOSYSTEMS,
    P2P_LINKS,
    PCIE_GB_S_PER_LANE,
    PCIE_LANE_COUNTS,
    SEGMENTS,
    VENDORS,
    GpuSpec,
)
from gpuadvisor.core.model import ModelSpec, spec_from_table
from gpuadvisor.core.offers import (
    BUY_KINDS,
    INTERCONNECTS,
    OFFER_KINDS,
    RENT_KINDS,
    Offer,
    parse_day,
)

CATALOG_SCHEMA_VERSION = 1
"""The ``schema_version`` this loader understands (the key may be omitted)."""

FieldKind = Literal["number", "integer", "string", "boolean", "strings"]

_KIND_WORDS = {
    "number": "a number",
    "integer": "an integer",
    "string": "a string",
    "boolean": "true or false",
    "strings": "an array of strings",
}
_LEADING_NUMBER_RE = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)")


class CatalogError(ValueError):
    """A catalog file could not be loaded; the message lists every problem, one per line.

    Attributes:
        problems: The individual problem lines, each naming file, entry and field.
    """

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Field:
    """One rule of a catalog schema.

    Attributes:
        name: The TOML key.
        kind: Expected value type. ``number`` accepts integers and floats (not booleans);
            ``strings`` is an array of strings.
        required: Whether the key must be present. Absent optional keys are left out of the
            checked table, so the record's own default applies.
        choices: Allowed values, or ``None`` for any value of the right type.
        min_value: Lower bound for numbers (see ``min_inclusive``).
        max_value: Inclusive upper bound for numbers.
        min_inclusive: Whether ``min_value`` itself is allowed.
        pattern: Regular expression a string must match in full.
        unit: Unit of a number for messages, e.g. ``"GiB"``.
        hint: Extra words for messages, e.g. ``"like '8.9'"``.
    """

    name: str
    kind: FieldKind
    required: bool = True
    choices: frozenset[Any] | None = None
    min_value: float | None = None
    max_value: float | None = None
    min_inclusive: bool = True
    pattern: str | None = None
    unit: str = ""
    hint: str = ""

    def expectation(self) -> str:
        """Describe what the field takes, e.g. ``"a number in GiB"``."""
        words = _KIND_WORDS[self.kind]
        if self.unit:
            words += f" in {self.unit}"
        return f"{words} ({self.hint})" if self.hint else words

    def check(self, value: Any) -> str | None:
        """Check one value against this rule.

        Args:
            value: The value as parsed by ``tomllib``.

        Returns:
            ``None`` if the value is valid, else a message (without file/entry/field prefix).
        """
        type_problem = self._check_type(value)
        if type_problem is not None:
            return type_problem
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in sorted(self.choices, key=str))
            return f"{value!r} is not allowed; use one of {allowed}"
        if self.kind in ("number", "integer"):
            return self._check_range(value)
        if self.kind == "string":
            return self._check_string(value)
        if self.kind == "strings" and not all(isinstance(v, str) and v for v in value):
            return "every item must be a non-empty string"
        return None

    def _check_type(self, value: Any) -> str | None:
        if self.kind == "number":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        elif self.kind == "integer":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.kind == "string":
            ok = isinstance(value, str)
        elif self.kind == "boolean":
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, list)
        if ok:
            return None
        if isinstance(value, str) and self.kind in ("number", "integer"):
            return self._unit_string_message(value)
        return f"takes {self.expectation()}, got {_toml_type(value)} {value!r}"

    def _unit_string_message(self, value: str) -> str:
        message = f"takes {self.expectation()}, got the string {value!r}"
        match = _LEADING_NUMBER_RE.match(value)
        if match:
            message += f"; write {self.name} = {match.group(1)} (no quotes, no unit)"
        return message

    def _check_range(self, value: float) -> str | None:
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be finite, got {value!r}"
        unit = f" {self.unit}" if self.unit else ""
        low = self.min_value
        if low is not None and (value < low or (value == low and not self.min_inclusive)):
            relation = ">=" if self.min_inclusive else ">"
            return f"must be {relation} {low:g}{unit}, got {value!r}"
        if self.max_value is not None and value > self.max_value:
            return f"must be <= {self.max_value:g}{unit}, got {value!r}"
        return None

    def _check_string(self, value: str) -> str | None:
        if not value.strip():
            return "must not be empty"
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            hint = f" ({self.hint})" if self.hint else ""
            return f"{value!r} is not in the expected form{hint}"
        return None


@dataclass(frozen=True)
class Schema:
    """The rules for the tables of one catalog kind.

    Attributes:
        kind: Catalog kind, e.g. ``"gpus"``; also the expected file name stem.
        fields: The rules, in the order problems are reported.
        id_hint: Extra words shown when a table name (entry id) is malformed.
    """

    kind: str
    fields: tuple[Field, ...]
    id_hint: str = "kebab-case like 'rtx-4090'"
    _by_name: Mapping[str, Field] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Index the fields by name."""
        object.__setattr__(self, "_by_name", {f.name: f for f in self.fields})

    def check_table(self, table: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Check one entry's table.

        Args:
            table: The entry's key/value pairs as parsed by ``tomllib``.

        Returns:
            ``(field, message)`` pairs for every problem found; empty when the table is valid.
        """
        problems = [
            (key, _unknown_key_message(key, self._by_name))
            for key in table
            if key not in self._by_name
        ]
        for rule in self.fields:
            if rule.name not in table:
                if rule.required:
                    problems.append((rule.name, f"missing; it takes {rule.expectation()}"))
                continue
            message = rule.check(table[rule.name])
            if message is not None:
                problems.append((rule.name, message))
        return problems


@dataclass(frozen=True)
class CatalogKind:
    """How to load one kind of catalog file.

    Attributes:
        schema: The per-entry rules.
        build: Turns ``(entry_id, checked_table)`` into a record; raises ``ValueError`` (with a
            ``field`` attribute when it can name one) for problems the schema cannot see.
            Without a schema, ``build`` checks everything itself (model presets: the rules
            live with :func:`gpuadvisor.core.model.spec_from_table`).
        id_pattern: Regular expression entry ids must match.
        id_hint: Words shown when an id does not match.
    """

    schema: Schema | None
    build: Callable[[str, dict[str, Any]], Any]
    id_pattern: str = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
    id_hint: str = "kebab-case like 'rtx-4090'"


def _text(name: str, *, required: bool = True, **rules: Any) -> Field:
    return Field(name, "string", required=required, **rules)


def _number(name: str, unit: str, *, required: bool = True, **rules: Any) -> Field:
    return Field(name, "number", required=required, unit=unit, **rules)


def _tflops(name: str, *, required: bool = True) -> Field:
    return _number(
        name, "dense TFLOPS", required=required, min_value=0, min_inclusive=False,
        max_value=100_000,
    )


GPU_SCHEMA = Schema(
    kind="gpus",
    fields=(
        _text("name"),
        _text("vendor", choices=VENDORS),
        _text("segment", choices=SEGMENTS),
        _text("architecture"),
        _text("ecosystem", choices=ECOSYSTEMS),
        Field("launch_year", "integer", min_value=2010, max_value=2030),
        _number("memory_gib", "GiB", min_value=0, min_inclusive=False, max_value=2048),
        _text("memory_type"),
        _number("memory_bandwidth_gb_s", "GB/s", min_value=0, min_inclusive=False,
                max_value=100_000),
        _tflops("fp32_tflops"),
        _tflops("tf32_tensor_tflops", required=False),
        _tflops("fp16_tensor_tflops"),
        _tflops("bf16_tensor_tflops", required=False),
        _tflops("fp8_tensor_tflops", required=False),
        _tflops("fp16_acc16_tensor_tflops", required=False),
        _number("tdp_w", "W", min_value=0, min_inclusive=False, max_value=5000),
        Field("pcie_gen", "integer", required=False, choices=frozenset(PCIE_GB_S_PER_LANE)),
        Field("pcie_lanes", "integer", required=False, choices=PCIE_LANE_COUNTS),
        _text("p2p_link", choices=P2P_LINKS),
        _number("p2p_bandwidth_gb_s", "GB/s", required=False, min_value=0,
                min_inclusive=False, max_value=100_000),
        _text("compute_capability", required=False, pattern=r"\d+\.\d+", hint="like '8.9'"),
        _text("gfx_target", required=False, pattern=r"gfx[0-9a-f]+", hint="like 'gfx942'"),
        Field("unified_memory", "boolean", required=False),
        Field("aliases", "strings", required=False),
        _text("source", hint="document name and URL"),
        Field("notes", "string", required=False),
    ),
)
"""Rules for ``gpus.toml`` entries; mirrors :class:`gpuadvisor.core.gpu.GpuSpec`."""


def _build_gpu(entry_id: str, table: dict[str, Any]) -> GpuSpec:
    values = dict(table)
    if "aliases" in values:
        values["aliases"] = tuple(values["aliases"])
    return GpuSpec(id=entry_id, **values)


def _build_model(entry_id: str, table: dict[str, Any]) -> ModelSpec:
    return spec_from_table(entry_id, table)


# --------------------------------------------------------------------------- offers
def _usd(name: str, *, required: bool = False) -> Field:
    return _number(name, "USD", required=required, min_value=0, min_inclusive=False,
                   max_value=10_000_000)


OFFER_SCHEMA = Schema(
    kind="offers",
    fields=(
        _text("kind", choices=frozenset(OFFER_KINDS)),
        _text("gpu_id", hint="an id from gpus.toml, like 'rtx-4090'"),
        _text("provider"),
        _usd("price_usd", required=True),
        _text("as_of", pattern=r"\d{4}-\d{2}-\d{2}", hint="a day like '2026-11-30'"),
        _text("source", hint="URL or publication, and what was read there"),
        Field("gpus_per_instance", "integer", required=False, min_value=1, max_value=1024),
        _text("instance", required=False),
        _text("region", required=False),
        Field("spot", "boolean", required=False),
        _text("interconnect", required=False, choices=frozenset(INTERCONNECTS)),
        _usd("msrp_usd"),
        _usd("price_low_usd"),
        _usd("price_high_usd"),
        Field("estimate", "boolean", required=False),
        Field("notes", "string", required=False),
    ),
    id_hint="kebab-case like 'runpod-community-rtx-4090'",
)
"""Rules for ``offers.toml`` entries; mirrors :class:`gpuadvisor.core.offers.Offer`.

Units: ``price_usd`` is US dollars per card (``buy-new``/``buy-used``) or per GPU-hour
(``rent``/``cloud``; an instance costs ``price_usd x gpus_per_instance`` per hour).
``price_low_usd``/``price_high_usd`` bound a marketplace range around ``price_usd``.
"""


class _FieldError(ValueError):
    """A cross-field problem found while building a record, naming its field."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


def _build_offer(entry_id: str, table: dict[str, Any]) -> Offer:
    kind = table["kind"]
    if kind in RENT_KINDS and "instance" not in table:
        raise _FieldError("instance", "missing; rent and cloud offers name the instance or "
                                      "product (like 'p5.48xlarge' or '1x H100 SXM')")
    if kind in BUY_KINDS:
        for key in ("spot", "gpus_per_instance", "instance", "interconnect"):
            if key in table and not (key == "gpus_per_instance" and table[key] == 1):
                raise _FieldError(key, f"not used for a card to buy (kind {kind!r})")
    if "msrp_usd" in table and kind not in BUY_KINDS:
        raise _FieldError("msrp_usd", "only for cards to buy (kind 'buy-new' or 'buy-used')")
    try:
        parse_day(table["as_of"])
    except ValueError:
        raise _FieldError("as_of", f"{table['as_of']!r} is not a real day; write a day like "
                                   "'2026-11-30'") from None
    low, high = table.get("price_low_usd"), table.get("price_high_usd")
    if (low is None) != (high is None):
        missing = "price_high_usd" if high is None else "price_low_usd"
        raise _FieldError(missing, "missing; price_low_usd and price_high_usd go together")
    if low is not None and not low <= table["price_usd"] <= high:
        raise _FieldError("price_usd", f"{table['price_usd']:g} USD is outside the range "
                                       f"price_low_usd..price_high_usd = {low:g}..{high:g}")
    values = {k: float(v) if k.endswith("_usd") else v for k, v in table.items()}
    try:
        return Offer(id=entry_id, **values)
    except ValueError as exc:  # a rule of Offer not mirrored above: name the field if we can
        first = str(exc).split(" ", 1)[0]
        if first in OFFER_SCHEMA._by_name:
            raise _FieldError(first, str(exc).removeprefix(first + " ")) from None
        raise


KINDS: dict[str, CatalogKind] = {
    "gpus": CatalogKind(GPU_SCHEMA, _build_gpu),
    # Model ids carry version dots ("llama-3.1-8b"); quote them in TOML (["llama-3.1-8b"]).
    "models": CatalogKind(None, _build_model, id_pattern=r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$",
                          id_hint="lower-case words joined by '-' or '.', like 'llama-3.1-8b'"),
    "offers": CatalogKind(OFFER_SCHEMA, _build_offer, id_hint=OFFER_SCHEMA.id_hint),
}
"""Catalog kinds by name (= file name stem)."""

_KNOWN_KIND_NAMES = ("gpus", "models", "offers")


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
    return Path(__file__).resolve().parent.parent / "catalog"


def kind_of(path: str | os.PathLike[str] | Traversable) -> str | None:
    """Tell the catalog kind from a file name.

    The stem itself (``gpus.toml``) or its last ``-``/``_``/``.``-separated word
    (``lab-gpus.toml``, ``my_gpus.toml``) names the kind.

    Args:
        path: The catalog file.

    Returns:
        ``"gpus"``, ``"models"`` or ``"offers"``, or ``None`` when the name says none of them.
    """
    stem = Path(_display_name(path)).stem.lower()
    last_word = re.split(r"[-_.]", stem)[-1]
    return last_word if last_word in _KNOWN_KIND_NAMES else None


def validate_file(path: str | os.PathLike[str] | Traversable) -> list[str]:
    """Check a catalog file and return every problem found (not just the first).

    The kind is told from the file name (see :func:`kind_of`). Offers are also checked
    against the GPU catalog in effect (every ``gpu_id`` must name a GPU). Used by
    ``gpuadvisor catalog validate PATH``.

    Args:
        path: The catalog file.

    Returns:
        One line per problem, each naming file, entry and field; empty when the file is valid.
    """
    name = _display_name(path)
    kind = kind_of(path)
    if kind is None:
        return [f"{name}: cannot tell the catalog kind from the file name; "
                "name it gpus.toml, models.toml or offers.toml (or e.g. lab-gpus.toml)"]
    if kind not in KINDS:
        return [f"{name}: catalog kind '{kind}' has no schema registered yet"]
    _records, problems = _load_checked(path, kind)
    return problems


def load_gpus(path: str | os.PathLike[str] | Traversable | None = None, *,
              warnings: list[str] | None = None) -> dict[str, GpuSpec]:
    """Load a GPU catalog file, or the GPU catalog in effect.

    ``path=None`` gives the catalog in effect: the shipped ``gpus.toml`` (or the one installed
    by ``gpuadvisor catalog update``), with the user's own ``gpus.toml`` overrides on top (see
    :func:`user_catalog_dir`). It is parsed once and cached (the GUI asks on every
    recompute); each call returns a fresh dict over the same records, re-read only when one of
    the user's files changes.

    Args:
        path: A ``gpus`` catalog file; ``None`` for the catalog in effect.
        warnings: With ``path=None``, a list that receives one message per user file that was
            not used because it has problems (the shipped data is used instead).

    Returns:
        The GPUs by catalog id, in file order (user additions last).

    Raises:
        CatalogError: If the file given cannot be read or has any problem (all are listed).
    """
    if path is None:
        return _in_effect("gpus", warnings)
    return _load_or_raise(path, "gpus")


def load_models(path: str | os.PathLike[str] | Traversable | None = None, *,
                warnings: list[str] | None = None) -> dict[str, ModelSpec]:
    """Load a model-preset catalog file, or the presets in effect (see :func:`load_gpus`).

    Raises:
        CatalogError: If the file given cannot be read or has any problem (all are listed).
    """
    if path is None:
        return _in_effect("models", warnings)
    return _load_or_raise(path, "models")


def load_offers(path: str | os.PathLike[str] | Traversable | None = None, *,
                warnings: list[str] | None = None) -> dict[str, Offer]:
    """Load an offers catalog file, or the offers in effect.

    ``path=None`` gives the offers in effect: the shipped ``offers.toml`` (or the one
    installed by ``gpuadvisor catalog update``), then the user's own overrides
    (``<user data>/catalog/offers.toml``, :func:`override_path`): an entry with the id of an
    offer replaces it, a new id adds one, and every entry from that file is marked
    ``user=True``. A user file with any problem is not used at all (the message says which
    file, entry and field); it is never changed or moved.

    Every ``gpu_id`` must name a GPU of the GPU catalog in effect (:func:`load_gpus`).

    Args:
        path: An ``offers`` catalog file; ``None`` for the offers in effect.
        warnings: With ``path=None``, a list that receives one message per user file not used.

    Returns:
        The offers by id, in file order (user additions last).

    Raises:
        CatalogError: If the file given cannot be read or has any problem (all are listed).
    """
    if path is None:
        return _in_effect("offers", warnings)
    return _load_or_raise(path, "offers")


def catalog_warnings() -> list[str]:
    """Messages about the user's catalog files that are not used (all kinds), for display.

    Each message names the file, says what is used instead, and lists every problem.
    """
    messages: list[str] = []
    for kind in KINDS:
        _in_effect(kind, messages)
    return messages


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


# --------------------------------------------------------------------------- user files
#: Folder (under the user data folder) of the user's catalog files.
USER_CATALOG_FOLDER = "catalog"
#: Subfolder holding catalogs installed by ``gpuadvisor catalog update``.
UPDATES_FOLDER = "updates"
#: Suffix of the copy of the previous updated catalog kept by an update.
PREVIOUS_SUFFIX = ".previous"


def user_catalog_dir() -> Path:
    """The user's catalog folder: ``<data dir>/catalog``.

    The data dir is ``$GPUADVISOR_DATA_DIR`` or the platform's user data folder
    (:func:`gpuadvisor.probes.history.data_dir`), e.g. ``~/.local/share/gpuadvisor`` on Linux.
    It holds, per kind (``gpus``, ``models``, ``offers``):

    - ``<kind>.toml``: the user's own entries (:func:`override_path`), written by hand or by
      the app; same schema as the shipped file; they replace or add to the catalog;
    - ``updates/<kind>.toml``: a whole catalog installed by ``gpuadvisor catalog update``
      (:func:`updated_path`), used instead of the shipped one, with the previous one kept as
      ``updates/<kind>.toml.previous``.
    """
    from .probes.history import data_dir  # lazily: probes is not needed to read catalogs

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


_shipped_cache: dict[str, Mapping[str, Any]] = {}
_effective_cache: dict[str, tuple[tuple, dict[str, Any], tuple[str, ...]]] = {}


def _shipped(kind: str) -> Mapping[str, Any]:
    """The shipped catalog of one kind, parsed once per process."""
    if kind not in _shipped_cache:
        _shipped_cache[kind] = _load_or_raise(catalog_dir() / f"{kind}.toml", kind, gpus=_SHIPPED)
    return _shipped_cache[kind]


def _signature(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return (str(path), None)
    return (str(path), st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _user_files(kind: str) -> list[Path]:
    kinds = ("gpus", "offers") if kind == "offers" else (kind,)
    return [p for k in kinds for p in (updated_path(k), override_path(k))]


def _in_effect(kind: str, warnings: list[str] | None) -> dict[str, Any]:
    key = tuple(_signature(p) for p in _user_files(kind))
    cached = _effective_cache.get(kind)
    if cached is None or cached[0] != key:
        records, messages = _build_in_effect(kind)
        cached = (key, records, tuple(messages))
        _effective_cache[kind] = cached
    if warnings is not None:
        warnings.extend(cached[2])
    return dict(cached[1])


def _build_in_effect(kind: str) -> tuple[dict[str, Any], list[str]]:
    messages: list[str] = []
    records: dict[str, Any] = dict(_shipped(kind))
    updated = updated_path(kind)
    if updated.is_file():
        loaded, problems = _load_checked(updated, kind)
        if problems:
            messages.append(_not_used(updated, "the catalog installed by 'catalog update'",
                                      f"the shipped {kind} catalog", problems))
        else:
            records = loaded
    override = override_path(kind)
    if override.is_file():
        loaded, problems = _load_checked(override, kind)
        if problems:
            messages.append(_not_used(override, "your own entries",
                                      f"the {kind} catalog without them", problems))
        else:
            for entry_id, record in loaded.items():
                records[entry_id] = _as_user(record)
    return records, messages


def _as_user(record: Any) -> Any:
    return replace(record, user=True) if isinstance(record, Offer) else record


def _not_used(path: Path, what: str, instead: str, problems: Sequence[str]) -> str:
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    lines = "\n".join(f"  {p}" for p in problems)
    return (f"{path} ({what}) was not used: it has {count}; {instead} is used. The file was "
            f"left as it is; fix it and it is used next time.\n{lines}")


_SHIPPED = object()
"""Marker: cross-check shipped offers against the shipped GPUs (not the user's)."""


def _gpu_ids_for(gpus: Any) -> Iterable[str]:
    if gpus is _SHIPPED:
        return _shipped("gpus").keys()
    if gpus is None:
        return _in_effect("gpus", None).keys()
    return gpus


def _load_or_raise(path: str | os.PathLike[str] | Traversable, kind: str, *,
                   gpus: Any = None) -> dict:
    records, problems = _load_checked(path, kind, gpus=gpus)
    if problems:
        raise CatalogError(problems)
    return records


def _load_checked(path: str | os.PathLike[str] | Traversable, kind: str, *,
                  gpus: Any = None) -> tuple[dict, list[str]]:
    """Schema checks, then (offers) every gpu_id against ``gpus`` (None: the GPUs in effect)."""
    name = _display_name(path)
    try:
        raw = _read_bytes(path)
    except OSError as exc:
        return {}, [f"{name}: cannot read the file: {exc.strerror or exc}"]
    return _check_bytes(raw, name, kind, gpus=gpus)


def _check_bytes(raw: bytes, name: str, kind: str, *, gpus: Any = None) -> tuple[dict, list]:
    records, problems = _load_bytes(raw, name, KINDS[kind])
    if kind == "offers" and not problems:
        problems = check_offer_gpus(records, _gpu_ids_for(gpus), name)
    return records, problems


def _load_bytes(raw: bytes, name: str, kind: CatalogKind) -> tuple[dict, list]:
    document, problem = _parse_bytes(raw, name)
    if problem is not None:
        return {}, [problem]
    records: dict[str, Any] = {}
    problems = _check_top_level(document, name)
    for entry_id, table in document.items():
        if entry_id == "schema_version" or not isinstance(table, dict):
            continue
        record, entry_problems = _load_entry(entry_id, table, kind)
        problems.extend(f"{name}: [{entry_id}] {p}" for p in entry_problems)
        if record is not None:
            records[entry_id] = record
    return records, problems


def _parse_bytes(raw: bytes, name: str) -> tuple[dict, str | None]:
    try:
        return tomllib.loads(raw.decode("utf-8")), None
    except UnicodeDecodeError as exc:
        return {}, f"{name}: not UTF-8 text (byte {exc.start})"
    except tomllib.TOMLDecodeError as exc:
        return {}, f"{name}: TOML syntax error: {exc}"


def _check_top_level(document: Mapping[str, Any], name: str) -> list[str]:
    problems = []
    version = document.get("schema_version", CATALOG_SCHEMA_VERSION)
    if isinstance(version, bool) or version != CATALOG_SCHEMA_VERSION:
        problems.append(f"{name}: schema_version {version!r} is not supported "
                        f"(this version of gpuadvisor reads {CATALOG_SCHEMA_VERSION})")
    for key, value in document.items():
        if key != "schema_version" and not isinstance(value, dict):
            problems.append(f"{name}: top-level key '{key}' is not a table; "
                            f"entries are tables like [{key}] (or a typo above the first table)")
    return problems


def _load_entry(entry_id: str, table: dict[str, Any], kind: CatalogKind) -> tuple[Any, list[str]]:
    if not re.match(kind.id_pattern, entry_id):
        hint = kind.schema.id_hint if kind.schema is not None else kind.id_hint
        return None, [f"id is not valid: the table name must be {hint}"]
    if "id" in table:
        return None, ["field 'id': not allowed; the table name is the id"]
    problems = kind.schema.check_table(table) if kind.schema is not None else []
    if problems:
        return None, [f"field '{f}': {message}" for f, message in problems]
    try:
        return kind.build(entry_id, table), []
    except ValueError as exc:
        field_name = getattr(exc, "field", None)
        message = str(exc)
        if field_name is None:
            return None, [message]
        message = message.removeprefix(f"{field_name}: ")
        return None, [f"field '{field_name}': {message}"]


def _unknown_key_message(key: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f"unknown key (did you mean '{close[0]}'?)" if close else "unknown key"


def _as_file(path: str | os.PathLike[str] | Traversable) -> Traversable:
    """Paths and strings become ``Path``; resource ``Traversable`` objects pass through."""
    return Path(path) if isinstance(path, str | os.PathLike) else path


def _display_name(path: str | os.PathLike[str] | Traversable) -> str:
    return _as_file(path).name


def _read_bytes(path: str | os.PathLike[str] | Traversable) -> bytes:
    return _as_file(path).read_bytes()


def _toml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


# --------------------------------------------------------------------------- catalog update
#: Largest catalog file ``catalog update`` accepts, in bytes.
MAX_UPDATE_BYTES = 5 * 1024 * 1024
#: Seconds ``catalog update`` gives a download: the connection and each read wait at most this
#: long, and the download is abandoned once this much time has passed in all.
UPDATE_TIMEOUT_S = 20.0
#: TEST-ONLY hook: when this environment variable is ``1``, ``http://`` URLs to the loopback
#: host (127.0.0.1, ::1, localhost) are accepted, so tests can serve files from a local
#: ``http.server`` in a thread. Every other ``http://`` URL is refused whatever its value.
ALLOW_HTTP_LOOPBACK_ENV = "GPUADVISOR_TEST_ALLOW_HTTP_LOOPBACK"
_LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class UpdateError(Exception):
    """``catalog update`` changed nothing; the message (one line) says why."""


@dataclass(frozen=True)
class CatalogChanges:
    """What an update changes, by entry id.

    Attributes:
        added: ids only in the new catalog.
        removed: ids only in the old one.
        changed: id -> the fields whose values differ, as ``(field, old, new)``.
    """

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: Mapping[str, tuple[tuple[str, Any, Any], ...]]

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def lines(self) -> list[str]:
        """One line per change (``+ id``, ``- id``, ``~ id: price_usd 2.69 -> 2.49``)."""
        out = [f"+ {entry_id}" for entry_id in self.added]
        out += [f"- {entry_id}" for entry_id in self.removed]
        for entry_id, diffs in self.changed.items():
            shown = ", ".join(f"{f} {old!r} -> {new!r}" for f, old, new in diffs[:4])
            more = f", and {len(diffs) - 4} more" if len(diffs) > 4 else ""
            out.append(f"~ {entry_id}: {shown}{more}")
        return out

    def summary(self) -> str:
        return (f"{len(self.added)} added, {len(self.removed)} removed, "
                f"{len(self.changed)} changed")


@dataclass(frozen=True)
class UpdateResult:
    """What ``catalog update`` did.

    Attributes:
        kind: ``gpus``, ``models`` or ``offers``.
        source: the path or URL read.
        path: the installed file (:func:`updated_path`).
        backup: the previous installed file, kept as ``<name>.previous``, or None (first one).
        changes: entries added, removed and changed against the catalog in effect before.
        size_bytes: the size of the new file.
    """

    kind: str
    source: str
    path: Path
    backup: Path | None
    changes: CatalogChanges
    size_bytes: int


def diff_catalogs(old: Mapping[str, Any], new: Mapping[str, Any]) -> CatalogChanges:
    """Compare two catalogs of records (dataclasses) by id and field."""
    added = tuple(k for k in new if k not in old)
    removed = tuple(k for k in old if k not in new)
    changed: dict[str, tuple[tuple[str, Any, Any], ...]] = {}
    for key in new:
        if key in old and old[key] != new[key]:
            a, b = _fields_of(old[key]), _fields_of(new[key])
            diffs = tuple((f, a.get(f), b.get(f)) for f in dict.fromkeys([*a, *b])
                          if a.get(f) != b.get(f))
            changed[key] = diffs or (("record", "...", "..."),)
    return CatalogChanges(added, removed, changed)


def _fields_of(record: Any) -> dict[str, Any]:
    if is_dataclass(record):
        return {f.name: getattr(record, f.name) for f in fields(record)}
    return dict(vars(record)) if hasattr(record, "__dict__") else {"value": record}


def update_catalog(source: str | os.PathLike[str], kind: str | None = None, *,
                   timeout_s: float = UPDATE_TIMEOUT_S, max_bytes: int = MAX_UPDATE_BYTES,
                   ssl_context: ssl.SSLContext | None = None) -> UpdateResult:
    """Install a new catalog file from a local path or an HTTPS URL (``catalog update``).

    Steps, in order; any failure raises :class:`UpdateError` and changes nothing:

    1. Read the file: a local path, or an ``https://`` URL (``http://`` and other schemes are
       refused, redirects too unless they stay on HTTPS; certificates are verified), at most
       ``max_bytes``, abandoned after ``timeout_s`` (see :data:`UPDATE_TIMEOUT_S`); a download
       shorter than its ``Content-Length`` is refused. Tests only: see
       :data:`ALLOW_HTTP_LOOPBACK_ENV`.
    2. Validate the WHOLE file: TOML, schema, every entry, and the cross checks (offers:
       every ``gpu_id`` names a GPU in effect; gpus: every offer in effect still finds its
       GPU). A file with no entries is refused.
    3. Swap it in atomically as :func:`updated_path` (temp file in the same folder, fsync,
       rename), after copying the file it replaces to ``<name>.previous``.

    Nothing is fetched unless this is called (the CLI's ``catalog update`` is the only caller).

    Args:
        source: a file path, or an ``https://`` URL.
        kind: ``gpus``, ``models`` or ``offers``; None: told from the file name.
        timeout_s: seconds allowed for the whole download.
        max_bytes: largest file accepted.
        ssl_context: TLS settings (e.g. a private CA); None: the system's trusted CAs.

    Returns:
        What was installed and what changed.

    Raises:
        UpdateError: nothing was changed; the message says why.
    """
    text = os.fspath(source)
    if _is_url(text):
        _check_url(text)
    name = _source_name(text)
    if kind is None:
        kind = kind_of(name)
        if kind is None:
            raise UpdateError(f"cannot tell the catalog kind from {name!r}; "
                              "say --kind gpus, --kind models or --kind offers")
    if kind not in KINDS:
        raise UpdateError(f"unknown catalog kind {kind!r}; use gpus, models or offers")
    raw = fetch_catalog_bytes(text, timeout_s=timeout_s, max_bytes=max_bytes,
                              ssl_context=ssl_context)
    display = f"{kind}.toml (from {name})"
    _validate_update(raw, display, kind)
    before = _in_effect(kind, None)
    target = updated_path(kind)
    backup = _install(target, raw)
    after = _in_effect(kind, None)
    return UpdateResult(kind, text, target, backup, diff_catalogs(before, after), len(raw))


def _validate_update(raw: bytes, display: str, kind: str) -> None:
    records, problems = _check_bytes(raw, display, kind)
    if not problems and not records:
        problems = [f"{display}: has no entries; refusing to replace the catalog with nothing"]
    if not problems and kind == "gpus":
        offers = dict(_in_effect("offers", None))
        problems = [p.replace("field 'gpu_id': unknown GPU",
                              "field 'gpu_id': its GPU is missing from the new gpus.toml:")
                    for p in check_offer_gpus(offers, _gpu_ids_with(records), "offers")]
    if problems:
        shown = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise UpdateError(f"the new file was not installed: {shown}{more}")


def _gpu_ids_with(new_gpus: Mapping[str, Any]) -> list[str]:
    """GPU ids in effect once ``new_gpus`` replaces the base (the user's own GPUs stay)."""
    ids = dict.fromkeys(new_gpus)
    override = override_path("gpus")
    if override.is_file():
        loaded, problems = _load_checked(override, "gpus")
        if not problems:
            ids.update(dict.fromkeys(loaded))
    return list(ids)


def _install(target: Path, raw: bytes) -> Path | None:
    """Copy the current file to ``.previous``, then swap ``raw`` in atomically."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        backup = None
        if target.exists():
            backup = target.with_name(target.name + PREVIOUS_SUFFIX)
            _write_bytes_atomic(backup, target.read_bytes())
        _write_bytes_atomic(target, raw)
    except OSError as exc:
        raise UpdateError(f"could not write {target}: {exc.strerror or exc}; "
                          "the catalog in use is unchanged") from None
    return backup


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    """Like :func:`gpuadvisor.userfiles.write_atomic`, for bytes (kept byte-identical)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError, AttributeError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _source_name(source: str) -> str:
    if _is_url(source):
        return PurePosixPath(urllib.parse.urlsplit(source).path).name or source
    return Path(source).name


def _is_url(source: str) -> bool:
    scheme = urllib.parse.urlsplit(source).scheme
    return len(scheme) > 1  # "C:\\..." is a Windows path, not a URL


def fetch_catalog_bytes(source: str, *, timeout_s: float = UPDATE_TIMEOUT_S,
                        max_bytes: int = MAX_UPDATE_BYTES,
                        ssl_context: ssl.SSLContext | None = None) -> bytes:
    """Read a catalog file from a local path or an HTTPS URL, with a size cap and a timeout.

    Raises:
        UpdateError: refused scheme, unreachable, HTTP error, timeout, too large, truncated.
    """
    if not _is_url(source):
        return _read_local(Path(source), max_bytes)
    _check_url(source)
    opener = urllib.request.build_opener(_SafeRedirects(),
                                         urllib.request.HTTPSHandler(context=ssl_context))
    request = urllib.request.Request(source, headers={"User-Agent": "gpuadvisor-catalog-update",
                                                      "Accept-Encoding": "identity"})
    deadline = time.monotonic() + timeout_s
    try:
        with opener.open(request, timeout=timeout_s) as response:
            return _read_response(response, source, max_bytes, deadline, timeout_s)
    except UpdateError:
        raise
    except urllib.error.HTTPError as exc:
        raise UpdateError(f"{source}: the server answered HTTP {exc.code} "
                          f"{exc.reason or ''}".rstrip()) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise UpdateError(f"{source}: no answer within {timeout_s:g} s") from None
        raise UpdateError(f"{source}: could not download: {reason}") from None
    except TimeoutError:
        raise UpdateError(f"{source}: the download took longer than {timeout_s:g} s") from None
    except http.client.IncompleteRead as exc:
        raise UpdateError(f"{source}: the download was cut short ({len(exc.partial)} bytes "
                          "received)") from None
    except (http.client.HTTPException, OSError, ValueError) as exc:
        raise UpdateError(f"{source}: could not download: {exc}") from None


def _check_url(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "https":
        return
    if (scheme == "http" and os.environ.get(ALLOW_HTTP_LOOPBACK_ENV) == "1"
            and (parts.hostname or "") in _LOOPBACK_HOSTS):
        return
    if scheme == "http":
        raise UpdateError(f"{url}: refused: plain http:// can be altered in transit; "
                          "use an https:// URL (or download the file and give its path)")
    raise UpdateError(f"{url}: refused: only https:// URLs and local file paths are read")


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to a URL that :func:`_check_url` accepts (no HTTPS -> HTTP)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # urllib's API
        _check_url(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _read_response(response, source: str, max_bytes: int, deadline: float,
                   timeout_s: float) -> bytes:
    status = getattr(response, "status", 200)
    if status != 200:
        raise UpdateError(f"{source}: the server answered HTTP {status}")
    declared = response.headers.get("Content-Length")
    length = None
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise UpdateError(f"{source}: bad Content-Length {declared!r}") from None
        if length > max_bytes:
            raise UpdateError(f"{source}: refused: {length} bytes is over the "
                              f"{max_bytes} byte limit")
    chunks: list[bytes] = []
    received = 0
    while True:
        if time.monotonic() > deadline:
            raise UpdateError(f"{source}: the download took longer than {timeout_s:g} s")
        chunk = response.read(min(65536, max_bytes + 1 - received))
        if not chunk:
            break
        chunks.append(chunk)
        received += len(chunk)
        if received > max_bytes:
            raise UpdateError(f"{source}: refused: more than the {max_bytes} byte limit")
    if length is not None and received < length:
        raise UpdateError(f"{source}: the download was cut short ({received} of {length} "
                          "bytes)")
    return b"".join(chunks)


def _read_local(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise UpdateError(f"{path}: refused: {size} bytes is over the {max_bytes} byte "
                              "limit")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise UpdateError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise UpdateError(f"{path}: refused: over the {max_bytes} byte limit")
    return data
