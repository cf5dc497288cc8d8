"""SkyPilot's own catalog, read from where an installed SkyPilot keeps it.

With the optional ``skypilot`` package installed (``pip install 'gpuadvisor[exports]'``),
SkyPilot downloads each cloud's instance table to ``~/.sky/catalogs/<schema>/<cloud>/vms.csv``
the first time it needs it (``sky/catalog/common.py``, ``read_catalog``; the folder moves with
the ``SKY_RUNTIME_DIR`` variable, ``sky/skylet/runtime_utils.py``). That table is the truth
SkyPilot acts on: which accelerator names a cloud rents, in which counts, with how much host
memory, how much memory each card has, and which instances have a spot price. When the table
is on disk, a SkyPilot task is checked against it; gpuadvisor never downloads it (no network
unless asked): without it the pinned names of ``catalog/skypilot.toml`` are used, as dated
there.

The columns read are those of schema v8 (``InstanceType, AcceleratorName, AcceleratorCount,
MemoryGiB, GpuInfo, Price, SpotPrice, Region``); other columns are ignored, a table without
these refuses with its path named.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.metadata
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: SkyPilot's variable that moves its runtime folder (sky/skylet/constants.py,
#: SKY_RUNTIME_DIR_ENV_VAR_KEY); the catalogs live under ``<it or ~>/.sky/catalogs``.
SKY_RUNTIME_DIR = "SKY_RUNTIME_DIR"

#: The most of a vms.csv read. The largest v8 table, AWS's, is about 8 MB (one row per
#: instance type, region and zone); 64 MiB leaves room for growth and refuses a runaway file.
MAX_CATALOG_BYTES = 64 * 2**20

_TOTAL_GPU_MIB = re.compile(r"""TotalGpuMemoryInMiB['"]?\s*:\s*([0-9]+(?:\.[0-9]+)?)""")
_NEEDED = ("AcceleratorName", "AcceleratorCount", "MemoryGiB", "Price", "SpotPrice")


@dataclass(frozen=True)
class SkyRow:
    """One GPU instance row of a SkyPilot catalog.

    Attributes:
        instance: the instance type.
        accelerator: SkyPilot's accelerator name (``A100-80GB``).
        count: GPUs in the instance.
        host_gib: the instance's host memory (GiB).
        gpu_mib: memory per card (MiB), from ``GpuInfo``'s total over the count; None when
            the row does not say.
        price: on-demand USD per instance-hour (None when the row has none).
        spot_price: spot USD per instance-hour; None when the row has no spot price (SkyPilot
            drops such rows when a task asks for spot: ``get_region_zones`` drops rows whose
            price column is empty).
        region: where.
    """

    instance: str
    accelerator: str
    count: int
    host_gib: float
    gpu_mib: float | None
    price: float | None
    spot_price: float | None
    region: str


@dataclass(frozen=True)
class InstalledCatalog:
    """One cloud's table as the installed SkyPilot has it on disk."""

    cloud: str
    path: Path
    updated: dt.date
    rows: tuple[SkyRow, ...]

    def names(self) -> frozenset[str]:
        return frozenset(r.accelerator for r in self.rows)

    def rows_for(self, accelerator: str, count: int | None = None) -> list[SkyRow]:
        return [r for r in self.rows if r.accelerator == accelerator
                and (count is None or r.count == count)]

    def counts(self, accelerator: str) -> list[int]:
        return sorted({r.count for r in self.rows_for(accelerator)})

    def has_spot(self, accelerator: str, count: int) -> bool:
        return any(r.spot_price is not None for r in self.rows_for(accelerator, count))

    def card_sizes_gib(self, accelerator: str) -> list[float]:
        """The memory per card of every row under ``accelerator``, smallest first (GiB)."""
        return sorted({round(r.gpu_mib / 1024, 1) for r in self.rows_for(accelerator)
                       if r.gpu_mib})

    def host_gib_per_gpu(self, accelerator: str, count: int) -> float | None:
        """The least host memory per GPU among the instances of ``count`` x ``accelerator``
        (what SkyPilot may hand out), or None when it rents none."""
        rows = self.rows_for(accelerator, count)
        return min((r.host_gib / r.count for r in rows), default=None)

    def described(self) -> str:
        return f"SkyPilot's {self.cloud} catalog on this machine ({self.path}, {self.updated})"


def skypilot_installed() -> str | None:
    """The installed SkyPilot's version, or None (the distribution, not a module named
    ``sky``: other packages use that name)."""
    try:
        return importlib.metadata.version("skypilot")
    except importlib.metadata.PackageNotFoundError:
        return None


def catalog_path(cloud: str, schema: str) -> Path:
    """Where SkyPilot keeps ``cloud``'s table of ``schema`` (sky/catalog/common.py)."""
    home = os.path.expanduser(os.environ.get(SKY_RUNTIME_DIR) or "~")
    return Path(home) / ".sky" / "catalogs" / schema / cloud / "vms.csv"


def _number(text: str, where: str, column: str, *, optional: bool = True) -> float | None:
    text = (text or "").strip()
    if not text or text.lower() == "nan":
        if optional:
            return None
        raise ValueError(f"{where}: {column} is empty")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {column} {text[:40]!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        raise ValueError(f"{where}: {column} {text[:40]!r} is not a number of 0 or more")
    return value


def parse_catalog(text: str, cloud: str, path: Path, updated: dt.date) -> InstalledCatalog:
    """The GPU rows of a vms.csv ``text``; ``ValueError`` naming the file, line and column."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in _NEEDED if c not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"{path}: not a SkyPilot catalog table (no {', '.join(missing)} "
                         "column)")
    rows = []
    for line, record in enumerate(reader, start=2):
        name = (record.get("AcceleratorName") or "").strip()
        if not name:
            continue  # a CPU-only instance
        where = f"{path}: line {line}"
        count = _number(record.get("AcceleratorCount", ""), where, "AcceleratorCount",
                        optional=False)
        if not count or count != int(count):
            raise ValueError(f"{where}: AcceleratorCount must be a whole number of 1 or more")
        total = _TOTAL_GPU_MIB.search(record.get("GpuInfo") or "")
        rows.append(SkyRow(
            instance=(record.get("InstanceType") or "").strip(), accelerator=name,
            count=int(count),
            host_gib=_number(record.get("MemoryGiB", ""), where, "MemoryGiB") or 0.0,
            gpu_mib=float(total.group(1)) / count if total else None,
            price=_number(record.get("Price", ""), where, "Price"),
            spot_price=_number(record.get("SpotPrice", ""), where, "SpotPrice"),
            region=(record.get("Region") or "").strip()))
    return InstalledCatalog(cloud, path, updated, tuple(rows))


def installed_catalog(cloud: str, schema: str) -> InstalledCatalog | None:
    """``cloud``'s table as the installed SkyPilot keeps it, or None when SkyPilot is not
    installed or has not fetched that table. Never downloads anything.

    Raises:
        ValueError: the file is larger than :data:`MAX_CATALOG_BYTES`, not UTF-8 or not a
            catalog table (the path, line and column named).
    """
    if skypilot_installed() is None:
        return None
    path = catalog_path(cloud, schema)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CATALOG_BYTES + 1)
            updated = dt.date.fromtimestamp(os.fstat(handle.fileno()).st_mtime)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read SkyPilot's catalog: "
                         f"{exc.strerror or exc}") from None
    if len(data) > MAX_CATALOG_BYTES:
        raise ValueError(f"{path}: larger than {MAX_CATALOG_BYTES // 2**20} MiB; not read "
                         "(a SkyPilot catalog table is a few MB)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_catalog(text, cloud, path, updated)


def names_like(catalog: InstalledCatalog, memory_gib: float,
               tolerance: float = 0.06) -> Sequence[str]:
    """Accelerator names whose cards hold within ``tolerance`` of ``memory_gib`` (what the
    card may be called there, for a refusal's message)."""
    return sorted({r.accelerator for r in catalog.rows if r.gpu_mib and abs(
        r.gpu_mib / 1024 - memory_gib) <= tolerance * memory_gib})


__all__ = ["MAX_CATALOG_BYTES", "SKY_RUNTIME_DIR", "InstalledCatalog", "SkyRow",
           "catalog_path", "installed_catalog", "names_like", "parse_catalog",
           "skypilot_installed"]
