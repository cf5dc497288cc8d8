"""Probe results kept per device, to compare runs and calibrate time estimates (Qt-free).

Layout: ``<data dir>/probes/<device key>.json``, where the data dir is
:func:`gpuadvisor.userfiles.data_dir` (``platformdirs.user_data_dir("gpuadvisor")`` or
``$GPUADVISOR_DATA_DIR`` for tests and portable installs), and the device key is the
device's UUID when the worker reports one, else a slug of its name (``cpu-amd-epyc-7b13``).
Each file is one JSON object::

    {"schema_version": 1, "device_key": "GPU-5d3c...", "runs": [
        {"schema_version": 1, "timestamp": "2026-12-02T18:41:27Z", "device_key": "...",
         "device_id": "cuda:0", "device_name": "NVIDIA H200", "device_type": "cuda",
         "memory_total_bytes": 150..., "catalog_id": "h200-sxm" | null,
         "versions": {"python": ..., "torch": ..., "cuda": ..., "hip": ..., "driver": ...},
         "results": {"matmul": {"figures": {...}, "units": {...}, "conditions": {...}}}}]}

Files are written atomically (:func:`gpuadvisor.userfiles.write_atomic`). A file that cannot
be read (not a regular file, over :data:`MAX_HISTORY_BYTES`, not strict JSON — ``NaN``,
``Infinity``, ``1e400`` or nesting past :data:`gpuadvisor.core.limits.MAX_JSON_DEPTH` —,
wrong shape, a newer schema) is moved aside to ``<name>.bad-<stamp>`` and reported in the
returned warnings; it is never overwritten silently. A figure outside a physical range
(:data:`gpuadvisor.core.limits.MEASURED_BOUNDS`, e.g. 10**308 TFLOPS) is kept but never used
as a measurement. At most
:data:`MAX_RUNS_PER_DEVICE` runs are kept per device (the oldest go first).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gpuadvisor.core.calibration import WEIGHT_FORMATS, Measurement
from gpuadvisor.core.limits import MAX_HISTORY_FILE_BYTES, is_finite_number, loads_json, measured
from gpuadvisor.userfiles import DATA_DIR_ENV, data_dir, read_regular_file, set_aside, write_atomic

from .protocol import Hello
from .runner import ProbeRun

#: Version of the history file format; a file with a newer one is not read.
HISTORY_SCHEMA_VERSION = 1
#: Runs kept per device file.
MAX_RUNS_PER_DEVICE = 500
#: Matmul dtypes a run can calibrate, as named in the matmul probe's figures.
MATMUL_DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8")
#: Larger history files are set aside unread (``core.limits``: 500 runs take about 3 MB).
MAX_HISTORY_BYTES = MAX_HISTORY_FILE_BYTES
#: Largest device memory believed (bytes); a larger figure is stored as unknown.
_MAX_MEMORY_BYTES = 2**50


def history_dir() -> Path:
    """The folder holding one history file per device (it may not exist yet)."""
    return data_dir() / "probes"


@dataclass(frozen=True)
class StoredRun:
    """One probe run on one device, as stored.

    Attributes:
        timestamp: when it was recorded, UTC ISO 8601 (``2026-12-02T18:41:27Z``).
        device_key: the file it lives in (UUID or name slug).
        device_id: the worker's id for the device (``cuda:0``, ``cpu``).
        device_name: the device's name as torch reports it.
        device_type: ``cuda``, ``rocm``, ``mps``, ``xpu`` or ``cpu`` (when known).
        memory_total_bytes: the device's memory as reported (when known).
        catalog_id: the matching catalog GPU (:func:`gpuadvisor.hardware.match.match_gpu`),
            or ``None``.
        versions: python, torch, cuda, hip (and driver when reported) from ``hello``.
        results: probe name -> ``{"figures", "units", "conditions"}``.
        schema_version: the format version the run was written with.
    """

    timestamp: str
    device_key: str
    device_id: str | None
    device_name: str
    device_type: str | None = None
    memory_total_bytes: int | None = None
    catalog_id: str | None = None
    versions: dict[str, Any] = field(default_factory=dict)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    schema_version: int = HISTORY_SCHEMA_VERSION

    def figure(self, probe: str, name: str) -> float | None:
        """One figure (``figure("matmul", "bf16_median_tflops")``), or ``None`` (also for
        a figure that is not a finite number)."""
        value = self.results.get(probe, {}).get("figures", {}).get(name)
        return float(value) if is_finite_number(value) else None

    def measurement(self, dtype: str) -> Measurement | None:
        """The matmul median at ``dtype`` as a core :class:`Measurement`, or ``None``."""
        return next((m for m in self.measurements()
                     if m.kind == "matmul" and m.dtype == dtype), None)

    def measurements(self) -> list[Measurement]:
        """What this run measured, as core :class:`Measurement` objects: the training step
        (at its dtype), each matmul dtype's median, the copy bandwidth, each decode GEMV
        format's median read through a fused kernel (``bandwidth``, basis ``gemv``), an
        inference plan check's decode loop (``decode_loop``) and the host's RAM read
        bandwidth with all threads (``host_bandwidth``)."""
        torch = self.versions.get("torch")
        where = f" on {self.device_name}" + (f", torch {torch}" if torch else "")
        found: list[Measurement] = []
        step = self.results.get("step", {})
        tflops = self.figure("step", "achieved_tflops")
        conditions = step.get("conditions", {}) if isinstance(step, dict) else {}
        dtype = conditions.get("dtype") if isinstance(conditions, dict) else None
        if measured(tflops, "TFLOPS") and isinstance(dtype, str):
            found.append(Measurement(
                achieved_tflops=tflops, dtype=dtype, when=self.timestamp, kind="step",
                source="probe training step" + where, gpu_id=self.catalog_id,
                shape=_step_shape(conditions)))
        for name, value in self.results.get("matmul", {}).get("figures", {}).items():
            if name.endswith("_median_tflops") and measured(value, "TFLOPS"):
                found.append(Measurement(
                    achieved_tflops=float(value), dtype=name[:-len("_median_tflops")],
                    when=self.timestamp, source="probe matmul" + where,
                    gpu_id=self.catalog_id))
        copy = self.figure("bandwidth", "copy_gb_s")
        if measured(copy, "GB/s"):
            found.append(Measurement(
                achieved_tflops=None, dtype=None, when=self.timestamp, kind="bandwidth",
                bandwidth_gb_s=copy, source="probe bandwidth (copy)" + where,
                gpu_id=self.catalog_id))
        for name, value in self.results.get("decode", {}).get("figures", {}).items():
            fmt = name[:-len("_gb_s")] if name.endswith("_gb_s") else None
            if fmt in WEIGHT_FORMATS and measured(value, "GB/s"):  # fused kernels only
                found.append(Measurement(
                    achieved_tflops=None, dtype=fmt, when=self.timestamp, kind="bandwidth",
                    basis="gemv", bandwidth_gb_s=float(value),
                    source=f"probe decode ({fmt} GEMV)" + where, gpu_id=self.catalog_id))
        found += self._decode_loop(where)
        read = self.figure("hostmem", "read_gb_s")
        if measured(read, "GB/s"):
            found.append(Measurement(
                achieved_tflops=None, dtype=None, when=self.timestamp, kind="host_bandwidth",
                bandwidth_gb_s=read, source="probe hostmem (read, all threads)" + where))
        return found

    def _decode_loop(self, where: str) -> list[Measurement]:
        """The inference plan check's decode loop as a ``decode_loop`` measurement (when
        its weights ran through fused kernels)."""
        check = self.results.get("decodecheck", {})
        conditions = check.get("conditions", {}) if isinstance(check, dict) else {}
        rate = self.figure("decodecheck", "achieved_gb_s_full")
        fmt = conditions.get("weights") if isinstance(conditions, dict) else None
        if (not measured(rate, "GB/s") or fmt not in WEIGHT_FORMATS
                or conditions.get("fused") is False):  # unfused: not the card's rate
            return []
        return [Measurement(achieved_tflops=None, dtype=fmt, when=self.timestamp,
                            kind="decode_loop", bandwidth_gb_s=rate,
                            source="probe decode loop (plan check)" + where,
                            gpu_id=self.catalog_id, shape=_decode_shape(conditions))]

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": self.schema_version, "timestamp": self.timestamp,
                "device_key": self.device_key, "device_id": self.device_id,
                "device_name": self.device_name, "device_type": self.device_type,
                "memory_total_bytes": self.memory_total_bytes, "catalog_id": self.catalog_id,
                "versions": dict(self.versions), "results": dict(self.results)}

    @classmethod
    def from_json(cls, data: Any) -> StoredRun:
        """A run from its stored object; ``ValueError`` says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("a run is not a JSON object")
        for key in ("timestamp", "device_key", "device_name"):
            if not isinstance(data.get(key), str):
                raise ValueError(f"a run has no valid {key!r}")
        results = data.get("results", {})
        if not isinstance(results, dict) or not all(
                isinstance(r, dict) and isinstance(r.get("figures", {}), dict)
                for r in results.values()):
            raise ValueError("a run's 'results' must map probes to objects with figures")
        versions = data.get("versions") or {}
        if not isinstance(versions, dict):
            raise ValueError("a run's 'versions' must be an object")
        version = data.get("schema_version", HISTORY_SCHEMA_VERSION)
        if isinstance(version, bool) or not isinstance(version, int):
            raise ValueError(f"a run's 'schema_version' must be a whole number, got "
                             f"{str(version)[:20]!r}")
        return cls(timestamp=data["timestamp"], device_key=data["device_key"],
                   device_id=_str_or_none(data.get("device_id")),
                   device_name=data["device_name"],
                   device_type=_str_or_none(data.get("device_type")),
                   memory_total_bytes=_memory_bytes(data.get("memory_total_bytes")),
                   catalog_id=_str_or_none(data.get("catalog_id")),
                   versions=dict(versions), results=dict(results),
                   schema_version=version)


def _memory_bytes(value: Any) -> int | None:
    """A device's memory in bytes if it is a believable number, else ``None``."""
    if not is_finite_number(value) or not 0 < value <= _MAX_MEMORY_BYTES:
        return None
    return int(value)


def _step_shape(conditions: dict[str, Any]) -> str | None:
    parts = [f"{label} {conditions[key]}" for key, label in
             (("hidden", "hidden"), ("seq", "seq"), ("micro_batch", "micro-batch"),
              ("layers", "layers")) if isinstance(conditions.get(key), int | float)]
    return ", ".join(parts) or None


def _decode_shape(conditions: dict[str, Any]) -> str | None:
    parts = [f"{label} {conditions[key]}" for key, label in
             (("hidden", "hidden"), ("layers_full", "layers"), ("context", "context"),
              ("micro_batch", "batch")) if isinstance(conditions.get(key), int | float)]
    return ", ".join(parts) or None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def device_key(device: dict[str, Any]) -> str:
    """The history key of a ``hello`` device: its UUID, else a slug of its name."""
    uuid = device.get("uuid")
    if uuid:
        raw = str(uuid)
    else:
        raw = str(device.get("name") or device.get("id") or "device")
        if device.get("type") == "cpu" or device.get("id") == "cpu":
            raw = f"cpu {raw}"
    slug = re.sub(r"[^a-z0-9]+", "-", raw.lower()).strip("-")
    return slug[:100] or "device"


def now_utc() -> str:
    """The current time as UTC ISO 8601 with a ``Z``, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _catalog_id(device: dict[str, Any]) -> str | None:
    if device.get("type") == "cpu" or device.get("id") == "cpu":
        return None
    try:
        from gpuadvisor.hardware.match import match_gpu

        return match_gpu(str(device.get("name", "")),
                         _memory_bytes(device.get("memory_total_bytes")))
    except Exception:  # a broken user catalog must not lose the measurement
        return None


def stored_runs_of(run: ProbeRun, *, timestamp: str | None = None) -> list[StoredRun]:
    """The run's results as one :class:`StoredRun` per device they were measured on."""
    hello: Hello | None = run.hello
    devices = {d["id"]: d for d in (hello.devices if hello else ())}
    versions = dict(hello.versions) if hello else {}
    stamp = timestamp or now_utc()
    by_device: dict[str, dict[str, dict[str, Any]]] = {}
    for result in run.results:
        device_id = str(result.conditions.get("device") or "unknown")
        by_device.setdefault(device_id, {})[result.probe] = {
            "figures": dict(result.figures), "units": dict(result.units),
            "conditions": dict(result.conditions)}
    stored = []
    for device_id, results in by_device.items():
        device = dict(devices.get(device_id) or {"id": device_id})
        if "name" not in device:
            conditions = next(iter(results.values()))["conditions"]
            device["name"] = str(conditions.get("device_name") or device_id)
        stored.append(StoredRun(
            timestamp=stamp, device_key=device_key(device), device_id=device_id,
            device_name=str(device["name"]), device_type=_str_or_none(device.get("type")),
            memory_total_bytes=_memory_bytes(device.get("memory_total_bytes")),
            catalog_id=_catalog_id(device), versions=versions, results=results))
    return stored


def _read(file: Path) -> list[StoredRun]:
    """The runs in one file; ``ValueError`` says why it cannot be used."""
    try:
        raw = read_regular_file(file, MAX_HISTORY_BYTES)
    except OSError as exc:
        raise ValueError(f"could not be read ({exc.strerror or exc})") from None
    try:
        data = loads_json(raw)
    except UnicodeDecodeError:
        raise ValueError("is not a text (UTF-8) file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"is not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:  # LimitError: NaN, Infinity, 1e400, too deep
        raise ValueError(f"cannot be used: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise ValueError("does not hold a JSON object with a 'runs' list")
    version = data.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ValueError(f"has no valid schema_version (got {version!r})")
    if version > HISTORY_SCHEMA_VERSION:
        raise ValueError(f"was written by a newer gpuadvisor (schema {version}); "
                         f"this version reads {HISTORY_SCHEMA_VERSION}")
    return [StoredRun.from_json(item) for item in data["runs"]]


def _set_aside(file: Path, reason: str) -> str:
    """Move a bad history file to a unique backup name; the message for the user."""
    try:
        backup = set_aside(file)
    except OSError as exc:
        return (f"Probe history {file} {reason}; it could not be moved aside "
                f"({exc.strerror or exc}) and is ignored.")
    return f"Probe history {file} {reason}; it was kept as {backup.name} and is ignored."


def _load(file: Path, warnings: list[str] | None) -> list[StoredRun]:
    if not os.path.lexists(file):
        return []
    try:
        return _read(file)
    except (ValueError, TypeError, KeyError) as exc:
        message = _set_aside(file, str(exc))
        if warnings is not None:
            warnings.append(message)
        return []


def record(run: ProbeRun, *, timestamp: str | None = None,
           warnings: list[str] | None = None) -> list[Path]:
    """Append ``run``'s results to the history of each device they were measured on.

    Args:
        run: a finished run; only its results are stored (errors are not history).
        timestamp: UTC ISO time to store (default: now).
        warnings: a list that gets a message for each unreadable history file found (it
            is moved aside first, then a new file is started).

    Returns:
        The files written (none when the run has no results).

    Raises:
        OSError: the history folder or a file cannot be written.
    """
    written = []
    folder = history_dir()
    for stored in stored_runs_of(run, timestamp=timestamp):
        folder.mkdir(parents=True, exist_ok=True)
        file = folder / f"{stored.device_key}.json"
        previous = _load(file, warnings)
        kept = [*previous, stored][-MAX_RUNS_PER_DEVICE:]
        data = {"schema_version": HISTORY_SCHEMA_VERSION, "device_key": stored.device_key,
                "runs": [r.to_json() for r in kept]}
        written.append(write_atomic(file, json.dumps(data, indent=1, allow_nan=False) + "\n"))
    return written


def runs(device_key: str | None = None, *, warnings: list[str] | None = None
         ) -> list[StoredRun]:
    """Stored runs, oldest first: of one device, or of every device (``None``).

    Unreadable files are moved aside and reported in ``warnings`` (see the module docstring).
    """
    folder = history_dir()
    if device_key is not None:
        files = [folder / f"{device_key}.json"]
    else:
        files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    found = [r for file in files for r in _load(file, warnings)]
    return sorted(found, key=lambda r: r.timestamp)


def latest_for(catalog_id: str, *, probe: str | None = None,
               warnings: list[str] | None = None) -> StoredRun | None:
    """The newest run on a device matching ``catalog_id`` (with a ``probe`` result, when
    given), or ``None``."""
    matching = [r for r in runs(warnings=warnings)
                if r.catalog_id == catalog_id and (probe is None or probe in r.results)]
    return matching[-1] if matching else None


def latest_results(catalog_id: str, *, warnings: list[str] | None = None
                   ) -> list[dict[str, Any]] | None:
    """The newest run on a device matching ``catalog_id`` as report rows (``probe``,
    ``figures``, ``units``), or ``None`` when nothing was measured on such a card."""
    newest = latest_for(catalog_id, warnings=warnings)
    if newest is None:
        return None
    return [{"probe": probe, "figures": result.get("figures", {}),
             "units": result.get("units", {})} for probe, result in newest.results.items()]


def measurements_for(catalog_id: str, *, warnings: list[str] | None = None
                     ) -> list[Measurement]:
    """Everything measured on devices matching ``catalog_id``, oldest first (pick with
    :func:`gpuadvisor.core.calibration.select` or
    :func:`~gpuadvisor.core.calibration.decode_bandwidth`), then this host's newest RAM
    bandwidth when one was measured (:func:`~gpuadvisor.core.calibration.host_bandwidth`:
    the weights a GPU does not hold are read from there)."""
    stored = runs(warnings=warnings)
    found = [m for r in stored if r.catalog_id == catalog_id for m in r.measurements()]
    host = _newest_host(stored)
    return found + ([host] if host is not None else [])


def _newest_host(stored: list[StoredRun]) -> Measurement | None:
    hosts = [m for r in stored for m in r.measurements() if m.kind == "host_bandwidth"]
    return max(hosts, key=lambda m: m.when) if hosts else None


def host_measurement(*, warnings: list[str] | None = None) -> Measurement | None:
    """This host's newest RAM bandwidth (the ``hostmem`` probe), or ``None``."""
    return _newest_host(runs(warnings=warnings))


__all__ = ["DATA_DIR_ENV", "HISTORY_SCHEMA_VERSION", "MAX_RUNS_PER_DEVICE", "StoredRun",
           "data_dir", "device_key", "history_dir", "host_measurement", "latest_for",
           "measurements_for", "record",
           "runs", "stored_runs_of"]
