"""Catalog schemas: the rules each entry of ``gpus.toml``/``models.toml``/``offers.toml``/
``apis.toml`` obeys.

A catalog file is TOML with one table per entry, keyed by the entry id, plus an optional
top-level ``schema_version``. Each kind of catalog (``gpus``, ``models``, ``offers``) has a
:class:`Schema`: a strict, declarative list of :class:`Field` rules (type, required, allowed
values, numeric range, unit for messages) (model presets check themselves, in core). Every
problem is reported as one line naming the file, the entry and the field, e.g.::

    gpus.toml: [rtx-4090] field 'memory_gb': unknown key (did you mean 'memory_gib'?)

Adding a kind is one entry in :data:`KINDS`: its schema and a constructor that turns a checked
table into a core record (raising ``ValueError`` for cross-field problems).
:func:`parse_catalog` turns one file's bytes into records and problems. No file access here.

Hostile files are refused before they can cost more than their size: a dotted key of more
than :data:`MAX_KEY_PARTS` parts (``tomllib`` spends quadratic time on those), arrays or
inline tables nested past Python's recursion limit, and integers past 4,300 digits are each
one problem line, never an exception.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from gpuadvisor.core.apis import ApiOffer
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

#: Most parts a dotted TOML key may have (``a.b.c`` has 3; real catalogs use 1).
MAX_KEY_PARTS = 16
#: Most entries a catalog file may hold (the shipped ones hold a few hundred): a file of a
#: hundred thousand tables is refused before it is parsed, in well under a second, instead
#: of taking seconds to read and check entry by entry.
MAX_ENTRIES = 10_000
_KEY_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_DEEP_KEY_RE = re.compile(
    rf"(?<![A-Za-z0-9_-]){_KEY_PART}(?:[ \t]*+\.[ \t]*+{_KEY_PART}){{{MAX_KEY_PARTS}}}")


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
        return f"takes {self.expectation()}, got {_toml_type(value)} {_short(value)}"

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
            return f"must be {relation} {low:g}{unit}, got {_short(value)}"
        if self.max_value is not None and value > self.max_value:
            return f"must be <= {self.max_value:g}{unit}, got {_short(value)}"
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
        _number("int8_tensor_tops", "dense TOPS", required=False, min_value=0,
                min_inclusive=False, max_value=100_000),
        _number("tdp_w", "W", min_value=0, min_inclusive=False, max_value=5000),
        Field("pcie_gen", "integer", required=False, choices=frozenset(PCIE_GB_S_PER_LANE)),
        Field("pcie_lanes", "integer", required=False, choices=PCIE_LANE_COUNTS),
        _text("p2p_link", choices=P2P_LINKS),
        _number("p2p_bandwidth_gb_s", "GB/s", required=False, min_value=0,
                min_inclusive=False, max_value=100_000),
        _text("compute_capability", required=False, pattern=r"\d+\.\d+", hint="like '8.9'"),
        _text("gfx_target", required=False, pattern=r"gfx[0-9a-f]+", hint="like 'gfx942'"),
        Field("unified_memory", "boolean", required=False),
        Field("gpu_cores", "integer", required=False, min_value=1, max_value=1024),
        Field("sm_count", "integer", required=False, min_value=1, max_value=1024),
        Field("aliases", "strings", required=False),
        _number("reported_memory_mib", "MiB", required=False, min_value=0,
                min_inclusive=False, max_value=2048 * 1024),
        _number("cuda_memory_mib", "MiB", required=False, min_value=0, min_inclusive=False,
                max_value=2048 * 1024),
        _text("memory_report_source", required=False, hint="where the totals were printed"),
        _number("stream_read_gb_s", "GB/s", required=False, min_value=0,
                min_inclusive=False, max_value=100_000),
        _text("stream_read_source", required=False, hint="where the measurement was published"),
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


# --------------------------------------------------------------------------- APIs
def _usd_per_mtok(name: str) -> Field:
    return _number(name, "USD per million tokens", min_value=0, max_value=10_000)


API_SCHEMA = Schema(
    kind="apis",
    fields=(
        _text("provider"),
        _text("model", hint="a model preset id from models.toml, like 'llama-3.1-8b'"),
        _text("model_name", hint="the provider's model name"),
        _usd_per_mtok("input_usd_per_mtok"),
        _usd_per_mtok("output_usd_per_mtok"),
        _text("as_of", pattern=r"\d{4}-\d{2}-\d{2}", hint="a day like '2026-11-30'"),
        _text("source", hint="URL or publication, and what was read there"),
        Field("also_for", "strings", required=False),
        _text("quant", required=False),
        Field("estimate", "boolean", required=False),
        Field("notes", "string", required=False),
    ),
    id_hint="lower-case words joined by '-' or '.', like 'deepinfra-llama-3.1-8b'",
)
"""Rules for ``apis.toml`` entries; mirrors :class:`gpuadvisor.core.apis.ApiOffer`. Prices
are US dollars per million input and per million output tokens; ``model`` and every
``also_for`` id must name a model preset (checked against the model catalog on load)."""


def _build_api(entry_id: str, table: dict[str, Any]) -> ApiOffer:
    try:
        parse_day(table["as_of"])
    except ValueError:
        raise _FieldError("as_of", f"{table['as_of']!r} is not a real day; write a day like "
                                   "'2026-11-30'") from None
    values = dict(table)
    values["also_for"] = tuple(values.get("also_for", ()))
    for name in ("input_usd_per_mtok", "output_usd_per_mtok"):
        values[name] = float(values[name])
    try:
        return ApiOffer(id=entry_id, **values)
    except ValueError as exc:
        first = str(exc).split(" ", 1)[0]
        if first in API_SCHEMA._by_name:
            raise _FieldError(first, str(exc).removeprefix(first + " ")) from None
        raise


KINDS: dict[str, CatalogKind] = {
    "gpus": CatalogKind(GPU_SCHEMA, _build_gpu),
    # Model ids carry version dots ("llama-3.1-8b"); quote them in TOML (["llama-3.1-8b"]).
    "models": CatalogKind(None, _build_model, id_pattern=r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$",
                          id_hint="lower-case words joined by '-' or '.', like 'llama-3.1-8b'"),
    "offers": CatalogKind(OFFER_SCHEMA, _build_offer, id_hint=OFFER_SCHEMA.id_hint),
    "apis": CatalogKind(API_SCHEMA, _build_api, id_pattern=r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$",
                        id_hint=API_SCHEMA.id_hint),
}
"""Catalog kinds by name (= file name stem)."""

KIND_NAMES = ("gpus", "models", "offers", "apis")
"""Every catalog kind a file name can name (see :func:`gpuadvisor.catalog.files.kind_of`)."""


def parse_catalog(raw: bytes, name: str, kind: CatalogKind) -> tuple[dict[str, Any], list[str]]:
    """Parse and check one catalog file's bytes, entry by entry.

    Args:
        raw: The file's bytes (UTF-8 TOML).
        name: The file name used in messages.
        kind: How to check and build its entries.

    Returns:
        The valid entries' records by id (file order), and one line per problem, each naming
        file, entry and field (empty when the whole file is valid).
    """
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
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, f"{name}: not UTF-8 text (byte {exc.start})"
    deep = _deep_key_line(text)
    if deep is not None:
        return {}, (f"{name}: line {deep}: a dotted key of more than {MAX_KEY_PARTS} parts; "
                    "entries are tables like [entry-id] with plain keys")
    # an upper bound on the tables: every one starts a line with "["
    tables = text.count("\n[") + text.startswith("[")
    if tables > MAX_ENTRIES:
        return {}, (f"{name}: {tables:,} tables; a catalog file holds at most "
                    f"{MAX_ENTRIES:,} entries")
    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError as exc:
        return {}, f"{name}: TOML syntax error: {exc}"
    except RecursionError:
        return {}, f"{name}: arrays or inline tables nested too deeply"
    except ValueError as exc:  # a whole number of more than 4,300 digits
        return {}, f"{name}: cannot be read: {str(exc).split(';')[0]}"


def _deep_key_line(text: str) -> int | None:
    """The first line (1-based) with a dotted key of more than :data:`MAX_KEY_PARTS` parts,
    or None. Only lines with that many dots are searched, with a regular expression that
    cannot backtrack (possessive parts), so the check stays linear in the text."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.count(".") >= MAX_KEY_PARTS and _DEEP_KEY_RE.search(line):
            return number
    return None


def _check_top_level(document: Mapping[str, Any], name: str) -> list[str]:
    problems = []
    version = document.get("schema_version", CATALOG_SCHEMA_VERSION)
    if isinstance(version, bool) or version != CATALOG_SCHEMA_VERSION:
        problems.append(f"{name}: schema_version {_short(version)} is not supported "
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


def _short(value: Any) -> str:
    """``repr`` of a value from a file, cut short; nested containers are named, not shown
    (their repr could be megabytes, or recurse too deep)."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list) and any(isinstance(v, list | dict) for v in value):
        return "a nested array"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**16:
        return f"a number with {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _unknown_key_message(key: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f"unknown key (did you mean '{close[0]}'?)" if close else "unknown key"


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

