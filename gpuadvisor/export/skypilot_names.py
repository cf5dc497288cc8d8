"""SkyPilot's names for clouds and accelerators, as one SkyPilot release uses them.

The names live in ``catalog/skypilot.toml`` (data, refreshed when SkyPilot moves on), read once
per process by :func:`skypilot_naming`. One GPU has different names on different clouds: the
H100 SXM is ``H100-SXM`` on RunPod (where ``H100`` is the PCIe card) and ``H100`` on AWS; the
RTX PRO 6000 Blackwell Workstation Edition is ``RTXPRO6000-WK`` on RunPod and ``RTXPRO6000WS``
on Vast. Some clouds run one node per cluster only (RunPod, Vast, Verda, ...): SkyPilot refuses
``num_nodes`` above 1 there, with the reason kept here.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

NAMING_FILE = "skypilot.toml"
"""The file in the catalog folder that holds SkyPilot's names."""


def provider_key(provider: str) -> str:
    """An offer's provider as the naming file lists it: lower case, letters and digits only,
    the part before any parenthesis (``"Verda (DataCrunch)"`` -> ``"verda"``)."""
    return re.sub(r"[^a-z0-9]", "", provider.split("(")[0].lower())


@dataclass(frozen=True)
class SkyCloud:
    """One SkyPilot cloud.

    Attributes:
        name: what ``infra:`` takes (``runpod``).
        label: the cloud as people call it (``RunPod``).
        providers: offer providers it covers, as :func:`provider_key` writes them.
        multi_node: whether SkyPilot runs clusters of several nodes there.
        multi_node_reason: SkyPilot's words when it refuses them ("" when it does not).
        max_gpus_per_node: the largest instance of one GPU kind the cloud sells.
        accelerators: catalog GPU id -> the cloud's accelerator name.
        count_names: ``"gpu-id:COUNT"`` -> a name used only for that GPU count.
        spot: whether SkyPilot lets a task ask for spot instances there.
        spot_reason: SkyPilot's words when it refuses them ("" when it does not).
    """

    name: str
    label: str
    providers: tuple[str, ...]
    multi_node: bool
    multi_node_reason: str
    max_gpus_per_node: int
    accelerators: Mapping[str, str]
    count_names: Mapping[str, str] = field(default_factory=dict)
    spot: bool = True
    spot_reason: str = ""

    def accelerator(self, gpu_id: str, count: int | None = None) -> str | None:
        """The cloud's name for ``count`` GPUs of ``gpu_id``, or None when it rents none."""
        if count is not None and f"{gpu_id}:{count}" in self.count_names:
            return self.count_names[f"{gpu_id}:{count}"]
        return self.accelerators.get(gpu_id)

    def names(self) -> frozenset[str]:
        """Every accelerator name the cloud's catalog lists."""
        return frozenset(self.accelerators.values()) | frozenset(self.count_names.values())


@dataclass(frozen=True)
class SkyNaming:
    """SkyPilot's names as one release uses them (see ``catalog/skypilot.toml``).

    Attributes:
        skypilot_version: the SkyPilot release the names were read from (``0.14.1``).
        catalog_schema: the hosted-catalog schema that release reads (``v8``).
        read_on: the day the names were read.
        any: catalog GPU id -> the name used when no cloud is pinned.
        clouds: SkyPilot clouds by ``infra`` name.
    """

    skypilot_version: str
    catalog_schema: str
    read_on: str
    any: Mapping[str, str]
    clouds: Mapping[str, SkyCloud]

    def cloud_for_provider(self, provider: str | None) -> SkyCloud | None:
        """The SkyPilot cloud an offer's provider is, or None (CoreWeave, Akash, ...)."""
        if not provider:
            return None
        text = provider.split("(")[0].lower().strip()
        keys = (provider_key(text), provider_key((re.split(r"[\s/,]+", text) or [""])[0]))
        for key in keys:
            for cloud in self.clouds.values():
                if key and key in cloud.providers:
                    return cloud
        return None

    def clouds_renting(self, gpu_id: str) -> list[str]:
        """The clouds whose catalog lists ``gpu_id``, by name."""
        return [c.name for c in self.clouds.values() if gpu_id in c.accelerators]


def _require(table: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = table.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"{where}: '{key}' must be {kind.__name__}, got {value!r}")
    return value


def _names(table: Any, where: str) -> dict[str, str]:
    if not isinstance(table, dict) or not all(
            isinstance(v, str) and v for v in table.values()):
        raise ValueError(f"{where}: expected a table of names")
    return dict(table)


def parse_naming(text: str, source: str = NAMING_FILE) -> SkyNaming:
    """Read the naming file's text; ``ValueError`` naming the file and key when it is wrong."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: TOML syntax error: {exc}") from None
    clouds = {}
    for name, table in _require(doc, "clouds", dict, source).items():
        where = f"{source}: [clouds.{name}]"
        multi = _require(table, "multi_node", bool, where)
        reason = table.get("multi_node_reason", "")
        if not multi and not reason:
            raise ValueError(f"{where}: 'multi_node_reason' is required when multi_node = false")
        providers = _require(table, "providers", list, where)
        spot = table.get("spot", True)
        if not isinstance(spot, bool):
            raise ValueError(f"{where}: 'spot' must be true or false")
        if not spot and not table.get("spot_reason"):
            raise ValueError(f"{where}: 'spot_reason' is required when spot = false")
        clouds[name] = SkyCloud(
            name=name, label=_require(table, "label", str, where),
            providers=tuple(providers), multi_node=multi, multi_node_reason=reason,
            max_gpus_per_node=_require(table, "max_gpus_per_node", int, where),
            accelerators=_names(table.get("accelerators", {}), where + ".accelerators"),
            count_names=_names(table.get("count_names", {}), where + ".count_names"),
            spot=spot, spot_reason=str(table.get("spot_reason", "")))
    return SkyNaming(
        skypilot_version=_require(doc, "skypilot_version", str, source),
        catalog_schema=_require(doc, "catalog_schema", str, source),
        read_on=_require(doc, "read_on", str, source),
        any=_names(doc.get("any"), f"{source}: [any]"), clouds=clouds)


@functools.cache
def skypilot_naming() -> SkyNaming:
    """The shipped naming file (``catalog/skypilot.toml``), read once per process."""
    from gpuadvisor.catalog.files import catalog_dir

    path = catalog_dir() / NAMING_FILE
    return parse_naming(path.read_text(encoding="utf-8"), NAMING_FILE)


__all__ = ["NAMING_FILE", "SkyCloud", "SkyNaming", "parse_naming", "provider_key",
           "skypilot_naming"]
