"""``.gpuplan`` files: one plan (model, knobs, GPU, assumption overrides) as JSON.

A plan file looks like::

    {
      "schema_version": 1,
      "app": "gpuadvisor",
      "model": {"preset": "llama-3.1-8b"},          # or {"custom": {ModelSpec fields}}
      "plan": {... Plan.to_dict() ...},             # pinned layout: "tp", "pp", "vpp",
                                                    # "cp", "ep", "layout_global_batch"
      "gpu": "rtx-4090",                            # or null
      "assumptions": {"efficiency_train": 0.35}     # overrides only
    }

Files are written atomically (a temporary file in the same folder, fsync, ``os.replace``), so a
crash never leaves half a plan behind. Loading only reads: a file that fails to load is
reported with :class:`PlanFileError` (naming the file and, where there is one, the field) and
left exactly as it was. Only a regular file is read (a FIFO or device is refused unopened),
as strict JSON (no ``NaN``/``Infinity``/``1e400``, no deep nesting), and every number is
checked against :mod:`gpuadvisor.core.limits` (``epochs: 1e300`` names ``plan.epochs``).

This module never imports Qt.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.layout_pins import layout_pin_problem
from gpuadvisor.core.limits import (
    ASSUMPTION_BOUNDS,
    MAX_PLAN_FILE_BYTES,
    MODEL_BOUNDS,
    PLAN_BOUNDS,
    LimitError,
    check_table,
    loads_json,
)
from gpuadvisor.core.model import TABLE_ALIASES, ModelSpec, spec_from_table
from gpuadvisor.core.plan import Plan, default_checkpointing
from gpuadvisor.userfiles import read_regular_file, write_atomic

PLAN_SCHEMA_VERSION = 1
"""The ``schema_version`` this version writes and reads."""

APP_ID = "gpuadvisor"
"""Value of the ``app`` key in every plan file."""

PLAN_SUFFIX = ".gpuplan"
"""File name suffix of plan files."""

"""Larger files are refused unread (a plan is a few kB; this guards against wrong files)."""

PLAN_FIELDS = tuple(f.name for f in fields(Plan))
"""The plan's field names, in declaration order."""

#: ModelSpec fields a custom model is written with (``extra`` is free-form and not saved).
_CUSTOM_MODEL_FIELDS = tuple(f.name for f in fields(ModelSpec) if f.name != "extra")


class PlanFileError(ValueError):
    """A plan file (or plan data) could not be read, parsed or validated.

    Attributes:
        path: the file, or None for in-memory data.
        message: what is wrong, naming the field where there is one.
    """

    def __init__(self, path: str | os.PathLike[str] | None, message: str) -> None:
        self.path = None if path is None else Path(path)
        self.message = message
        super().__init__(message if path is None else f"{self.path}: {message}")


@dataclass(frozen=True)
class PlanDocument:
    """The validated content of a plan file.

    Attributes:
        model: the model (a catalog preset or a custom spec).
        preset_id: the preset's id, or None for a custom model.
        plan: the plan.
        gpu_id: the catalog GPU, or None.
        assumption_overrides: assumption name -> value, only those that differ from the
            defaults the user chose to set.
        assumptions: the defaults with the overrides applied.
    """

    model: ModelSpec
    preset_id: str | None
    plan: Plan
    gpu_id: str | None
    assumption_overrides: dict
    assumptions: Assumptions


# --------------------------------------------------------------------------- helpers
def plan_field_in_message(message: str, prefer: Iterable[str] = ()) -> str | None:
    """The plan field a validation message is about, if it names one.

    Args:
        message: a ``ValueError`` message from :class:`~gpuadvisor.core.plan.Plan`.
        prefer: fields to pick first when several are named (e.g. the ones just changed).

    Returns:
        The first preferred field named in the message, else the first plan field named,
        else None. Names match as whole words (``quant`` does not match ``effective_quant``).
    """
    positions = {}
    for name in PLAN_FIELDS:
        found = re.search(rf"\b{re.escape(name)}\b", message)
        if found:
            positions[name] = found.start()
    preferred = [name for name in prefer if name in positions]
    pool = preferred or list(positions)
    return min(pool, key=positions.__getitem__) if pool else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """A ``" (did you mean a, b?)"`` suffix for an unknown id, or ``""``."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(close)}?)" if close else ""


# --------------------------------------------------------------------------- validation
def plan_dict(model: ModelSpec, preset_id: str | None, plan: Plan, gpu_id: str | None,
              assumption_overrides: Mapping[str, Any]) -> dict:
    """Plan-file data: the layout :func:`parse_plan_dict` reads back. A preset is saved by
    its id, a custom model by its fields; ``gpu_id`` is a catalog id (or None)."""
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "app": APP_ID,
        "model": ({"preset": preset_id} if preset_id is not None
                  else {"custom": custom_model_to_dict(model)}),
        "plan": plan.to_dict(),
        "gpu": gpu_id,
        "assumptions": dict(assumption_overrides),
    }


def parse_plan_dict(
    data: Any,
    *,
    models: Mapping[str, ModelSpec] | None = None,
    gpus: Mapping[str, GpuSpec] | None = None,
    path: str | os.PathLike[str] | None = None,
) -> PlanDocument:
    """Validate plan-file data and turn it into core records.

    Args:
        data: the parsed JSON.
        models: model presets (default: the shipped catalog).
        gpus: GPUs (default: the shipped catalog).
        path: the file the data came from, for messages.

    Returns:
        The validated document.

    Raises:
        PlanFileError: not an object, a missing/unknown/newer ``schema_version``, another
            app's file, an unknown preset or GPU, an invalid custom model, plan field or
            assumption; the message names the key.
    """
    models, gpus = _catalogs(models, gpus)
    if not isinstance(data, dict):
        raise PlanFileError(path, f"must hold a JSON object, not {_json_type(data)}")
    _check_header(data, path)
    model, preset_id = _parse_model(data.get("model"), models, path)
    plan = _parse_plan(data.get("plan"), path)
    gpu_id = _parse_gpu(data.get("gpu"), gpus, path)
    overrides, assumptions = _parse_assumptions(data.get("assumptions"), path)
    return PlanDocument(model, preset_id, plan, gpu_id, overrides, assumptions)


def _catalogs(models, gpus):
    if models is None or gpus is None:
        from gpuadvisor import catalog  # the shipped catalogs are parsed once and cached

        models = catalog.load_models() if models is None else models
        gpus = catalog.load_gpus() if gpus is None else gpus
    return models, gpus


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "true/false",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _check_header(data: dict, path) -> None:
    if "app" in data and data["app"] != APP_ID:
        raise PlanFileError(path, f"'app' is {data['app']!r}: not a gpuadvisor plan file")
    if "schema_version" not in data:
        raise PlanFileError(path, "missing 'schema_version': not a gpuadvisor plan file")
    version = data["schema_version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise PlanFileError(path, f"'schema_version' must be a whole number, got {version!r}")
    if version > PLAN_SCHEMA_VERSION:
        raise PlanFileError(
            path,
            f"made by a newer gpuadvisor (schema {version}); "
            f"this version reads {PLAN_SCHEMA_VERSION}",
        )
    if version != PLAN_SCHEMA_VERSION:
        raise PlanFileError(
            path, f"unknown schema_version {version}; this version reads {PLAN_SCHEMA_VERSION}"
        )


def _parse_model(value: Any, models: Mapping[str, ModelSpec], path) -> tuple[ModelSpec, str | None]:
    if not isinstance(value, dict) or len(value) != 1 or not {"preset", "custom"} & set(value):
        raise PlanFileError(
            path, "'model' must be {\"preset\": id} or {\"custom\": {model fields}}"
        )
    if "preset" in value:
        preset = value["preset"]
        if not isinstance(preset, str) or preset not in models:
            hint = did_you_mean(preset, models) if isinstance(preset, str) else ""
            raise PlanFileError(path, f"model.preset: unknown model preset {preset!r}{hint}")
        return models[preset], preset
    return custom_model_from_dict(value["custom"], path=path), None


def custom_model_from_dict(table: Any, *, path: str | os.PathLike[str] | None = None) -> ModelSpec:
    """Build a custom :class:`ModelSpec` from its saved fields (see :func:`custom_model_to_dict`).

    Raises:
        PlanFileError: not an object, no ``id``, an unknown field or a bad value (named).
    """
    if not isinstance(table, dict):
        raise PlanFileError(path, f"model.custom must be an object, not {_json_type(table)}")
    model_id = table.get("id")
    if not isinstance(model_id, str) or not model_id:
        raise PlanFileError(path, "model.custom: missing field 'id'")
    aliases = {field_name: alias for alias, field_name in TABLE_ALIASES.items()}
    renamed = {aliases.get(key, key): value for key, value in table.items()}
    try:
        check_table(renamed, MODEL_BOUNDS, prefix="model.custom.", names=aliases)
        return spec_from_table(model_id, renamed)
    except LimitError as exc:
        raise PlanFileError(path, str(exc)) from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise PlanFileError(path, f"model.custom: {exc}") from None


def custom_model_to_dict(model: ModelSpec) -> dict:
    """A custom model's fields as JSON-ready data (``extra`` is not saved)."""
    return {name: getattr(model, name) for name in _CUSTOM_MODEL_FIELDS}


def _parse_plan(value: Any, path) -> Plan:
    if not isinstance(value, dict):
        raise PlanFileError(path, f"'plan' must be an object, not {_json_type(value)}")
    if "checkpointing" not in value and isinstance(value.get("task", "full"), str) \
            and isinstance(value.get("framework", "auto"), str):
        # A file that leaves it out gets the framework's own default, as the command line
        # and the app do (Hugging Face fine-tunes: on).
        with contextlib.suppress(KeyError):  # an unknown task or framework: Plan names it
            value = {**value, "checkpointing": default_checkpointing(
                value.get("task", "full"), value.get("framework", "auto"))[0]}
    try:
        plan = Plan.from_dict(value)
    except (TypeError, ValueError) as exc:
        name = plan_field_in_message(str(exc))
        where = f"plan.{name}" if name else "plan"
        raise PlanFileError(path, f"{where}: {exc}") from None
    try:  # what Plan accepts but no estimate can use: Infinity epochs, 10**30 GPUs
        check_table(plan.to_dict(), PLAN_BOUNDS, prefix="plan.")
    except LimitError as exc:
        raise PlanFileError(path, str(exc)) from None
    problem = layout_pin_problem(plan)  # a pinned layout the GPU count cannot hold
    if problem is not None:
        name = plan_field_in_message(problem)
        raise PlanFileError(path, f"plan.{name or 'tp'}: {problem}")
    return plan


def _parse_gpu(value: Any, gpus: Mapping[str, GpuSpec], path) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in gpus:
        hint = did_you_mean(value, gpus) if isinstance(value, str) else ""
        raise PlanFileError(path, f"gpu: unknown GPU {value!r}{hint}")
    return value


def _parse_assumptions(value: Any, path) -> tuple[dict, Assumptions]:
    if value is None:
        return {}, DEFAULT_ASSUMPTIONS
    if not isinstance(value, dict):
        raise PlanFileError(path, f"'assumptions' must be an object, not {_json_type(value)}")
    try:
        assumptions = DEFAULT_ASSUMPTIONS.with_overrides(value)
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise PlanFileError(path, f"assumptions: {exc}") from None
    try:  # the values as read (a string "3" is 3.0), against their physical ranges
        check_table({name: getattr(assumptions, name) for name in value}, ASSUMPTION_BOUNDS,
                    prefix="assumptions.")
    except LimitError as exc:
        raise PlanFileError(path, str(exc)) from None
    return {name: getattr(assumptions, name) for name in value}, assumptions


# --------------------------------------------------------------------------- files
def load_plan(
    path: str | os.PathLike[str],
    *,
    models: Mapping[str, ModelSpec] | None = None,
    gpus: Mapping[str, GpuSpec] | None = None,
) -> dict:
    """Read and validate a ``.gpuplan`` file; the file is only read, never changed.

    Args:
        path: the file.
        models: model presets to resolve ``model.preset`` against (default: shipped).
        gpus: GPUs to resolve ``gpu`` against (default: shipped).

    Returns:
        The file's data (a dict that :func:`parse_plan_dict` accepts, e.g. for
        ``PlanState.from_dict``).

    Raises:
        PlanFileError: missing or unreadable file, not JSON (with line and column), not an
            object, or any problem :func:`parse_plan_dict` reports.
    """
    data = _read_json(path)
    parse_plan_dict(data, models=models, gpus=gpus, path=path)
    return data


def _read_json(path: str | os.PathLike[str]) -> Any:
    if not os.fspath(path):
        raise PlanFileError(path, "no file named (the path is empty)")
    try:
        raw = read_regular_file(path, MAX_PLAN_FILE_BYTES)
    except FileNotFoundError:
        raise PlanFileError(path, "file not found") from None
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise PlanFileError(path, "is a folder, not a plan file") from None
        if exc.errno == errno.EFBIG:
            raise PlanFileError(path, "too large for a plan file (over 4 MiB)") from None
        raise PlanFileError(path, f"cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL in the path
        raise PlanFileError(path, f"cannot read: {exc}") from None
    try:
        return loads_json(raw)
    except UnicodeDecodeError:
        raise PlanFileError(path, "not a text (UTF-8) file") from None
    except json.JSONDecodeError as exc:
        raise PlanFileError(
            path, f"not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    except LimitError as exc:
        raise PlanFileError(path, f"cannot be used: {exc}") from None


def save_plan(state_or_dict: Any, path: str | os.PathLike[str]) -> Path:
    """Write a plan file atomically.

    Args:
        state_or_dict: a ``PlanState`` (anything with ``to_dict()``) or plan-file data.
        path: the file to (over)write.

    Returns:
        The path written.

    Raises:
        PlanFileError: the data cannot be encoded as JSON, or the file cannot be written
            (the previous file, if any, is then unchanged).
    """
    data = state_or_dict.to_dict() if hasattr(state_or_dict, "to_dict") else state_or_dict
    if not isinstance(data, dict):
        raise PlanFileError(path, f"plan data must be a dict, not {type(data).__name__}")
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise PlanFileError(path, f"cannot encode the plan as JSON: {exc}") from None
    try:
        return write_atomic(path, text)
    except OSError as exc:
        raise PlanFileError(path, f"cannot write: {exc.strerror or exc}") from None


__all__ = [
    "APP_ID",
    "PLAN_SCHEMA_VERSION",
    "PLAN_SUFFIX",
    "PlanDocument",
    "PlanFileError",
    "custom_model_from_dict",
    "custom_model_to_dict",
    "did_you_mean",
    "load_plan",
    "parse_plan_dict",
    "plan_dict",
    "plan_field_in_message",
    "save_plan",
    "write_atomic",
]
