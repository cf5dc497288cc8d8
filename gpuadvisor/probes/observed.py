"""What engine logs showed about this machine's cards, kept to correct later estimates (Qt-free).

``gpuadvisor check-log`` keeps, per catalog GPU and engine, the figures of a log that are a
property of the machine rather than of the plan: the memory CUDA reports on the card
(``total_memory``: vLLM's ``total_gpu_memory``) and vLLM's non-torch growth
(``non_torch``). Later estimates take them like a probe's measurement and say so:
:func:`with_observations` gives the card CUDA's observed total, :func:`observed_assumptions`
gives vLLM's plans the observed non-torch memory.

File: ``<data dir>/observations.json``, ``{"schema_version": 1, "observations": [{"when",
"engine", "version", "gpu_id", "source", "total_memory", "non_torch"}, ...]}``, newest last,
at most :data:`MAX_OBSERVATIONS`. Written atomically; a file that cannot be read is moved
aside (``.bad-<stamp>``) with a warning, never overwritten unread.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.limits import MAX_HISTORY_FILE_BYTES, is_finite_number, loads_json
from gpuadvisor.userfiles import data_dir, read_regular_file, set_aside, write_atomic

from .history import now_utc
from .logcheck import Check

SCHEMA_VERSION = 1
MAX_OBSERVATIONS = 200
#: The figures kept, and the range believed (bytes).
KEPT = {"total_memory": (2**28, 2**44), "non_torch": (0, 2**36)}


def observations_file() -> Path:
    return data_dir() / "observations.json"


def load(warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """Every kept observation, oldest first ([] when none; a bad file is set aside)."""
    file = observations_file()
    if not os.path.lexists(file):
        return []
    try:
        data = loads_json(read_regular_file(file, MAX_HISTORY_FILE_BYTES))
        if not isinstance(data, dict) or not isinstance(data.get("observations"), list):
            raise ValueError("does not hold a JSON object with an 'observations' list")
        version = data.get("schema_version")
        if isinstance(version, bool) or not isinstance(version, int) \
                or version > SCHEMA_VERSION:
            raise ValueError(f"has schema_version {version!r}; this version reads "
                             f"{SCHEMA_VERSION}")
        return [o for o in data["observations"] if _valid(o)]
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        try:
            backup = set_aside(file)
            message = (f"Observations {file} {reason}; it was kept as {backup.name} and is "
                       "ignored.")
        except OSError:
            message = f"Observations {file} {reason}; it is ignored."
        if warnings is not None:
            warnings.append(message)
        return []


def _valid(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if not all(isinstance(item.get(k), str) for k in ("when", "engine", "gpu_id")):
        return False
    return all(is_finite_number(item[k]) and lo <= item[k] <= hi
               for k, (lo, hi) in KEPT.items() if k in item)


def record(result: Check, *, when: str | None = None,
           warnings: list[str] | None = None) -> dict[str, Any] | None:
    """Keep what ``result``'s log showed about the machine; the entry, or None when the log
    showed nothing kept (or the file could not be written: the reason goes to
    ``warnings``)."""
    r = result.reading
    entry: dict[str, Any] = {"when": when or now_utc(), "engine": r.engine,
                             "version": r.version, "gpu_id": result.gpu.id,
                             "source": r.source}
    found = False
    for key, (lo, hi) in KEPT.items():
        value = r.observed.get(key)
        if value is not None and lo <= value <= hi:
            entry[key] = float(value)
            found = True
    if not found:
        return None
    kept = [*load(warnings), entry][-MAX_OBSERVATIONS:]
    try:
        observations_file().parent.mkdir(parents=True, exist_ok=True)
        write_atomic(observations_file(), json.dumps(
            {"schema_version": SCHEMA_VERSION, "observations": kept}, indent=1) + "\n")
    except OSError as exc:
        if warnings is not None:
            warnings.append(f"the observation was not kept: {exc.strerror or exc}")
        return None
    return entry


def newest(observations: list[dict[str, Any]], gpu_id: str, key: str,
           engine: str | None = None) -> dict[str, Any] | None:
    """The newest observation of ``key`` on ``gpu_id`` (of ``engine`` when given)."""
    found = [o for o in observations if o.get("gpu_id") == gpu_id and key in o
             and (engine is None or o.get("engine") == engine)]
    return max(found, key=lambda o: o["when"]) if found else None


def with_observations(gpus: Mapping[str, GpuSpec], observations: list[dict[str, Any]]
                      ) -> dict[str, GpuSpec]:
    """``gpus`` with each observed card's CUDA total replaced by the newest observation."""
    out = dict(gpus)
    for gpu_id, gpu in gpus.items():
        seen = newest(observations, gpu_id, "total_memory")
        if seen is None or seen["total_memory"] > gpu.memory_bytes * 1.05:
            continue
        out[gpu_id] = replace(
            gpu, cuda_memory_mib=seen["total_memory"] / 2**20,
            memory_report_source=f"your {seen['engine']} log of {seen['when'][:10]}")
    return out


def observed_assumptions(assumptions: Assumptions, observations: list[dict[str, Any]],
                         gpu_id: str, engine: str) -> tuple[Assumptions, str | None]:
    """``(assumptions, note)``: vLLM's non-torch memory as observed on ``gpu_id``."""
    if engine != "vllm":
        return assumptions, None
    seen = newest(observations, gpu_id, "non_torch", "vllm")
    if seen is None:
        return assumptions, None
    note = f"vllm_non_torch_bytes: your vLLM log of {seen['when'][:10]}"
    return replace(assumptions, vllm_non_torch_bytes=float(seen["non_torch"])), note


__all__ = ["MAX_OBSERVATIONS", "load", "newest", "observations_file", "observed_assumptions",
           "record", "with_observations"]
