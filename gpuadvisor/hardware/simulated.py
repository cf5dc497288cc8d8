"""Simulated rigs from the catalog, for demos, screenshots and tests (``--simulate SPEC``).

A SPEC is either a named scenario (:data:`SCENARIOS`) or catalog ids joined by ``+``, each
optionally with a count: ``"h100-sxm"``, ``"2x rtx-3090"``, ``"rtx-3090+rtx-3060-12gb"``.
Identity and memory come from the catalog (total = the labelled memory); live values (memory
used, temperature, power, clocks, utilisation) are plausible idle figures that change a little
on every refresh so live charts move. Clocks are illustrative, not per-SKU figures.
"""

from __future__ import annotations

import difflib
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from gpuadvisor.core.gpu import INLINE_ECC_SHARE, GpuSpec, inline_ecc

from .base import GpuInfo, GpuProcess

GIB = 1024**3
MIB = 1024**2
MAX_COUNT = 16


@dataclass(frozen=True)
class Scenario:
    """A named simulated rig.

    Attributes:
        name: The SPEC word, e.g. ``"mixed"``.
        description: One line for pickers and ``--help``.
        gpus: The rig as a catalog SPEC (``""`` for no GPU).
        unsupported: Field groups NVML reports as not supported (``"power"``, ``"utilization"``).
        lost_index: Index of the card that is lost from the second refresh on.
    """

    name: str
    description: str
    gpus: str
    unsupported: frozenset[str] = frozenset()
    lost_index: int | None = None


SCENARIOS: dict[str, Scenario] = {s.name: s for s in (
    Scenario("one-gpu", "one RTX 4090", "rtx-4090"),
    Scenario("mixed", "an RTX 3090 and an RTX 3060 12 GB: two cards, not 36 GB",
             "rtx-3090+rtx-3060-12gb"),
    Scenario("unsupported-fields", "an RTX 3090 whose power and utilization read n/a",
             "rtx-3090", unsupported=frozenset({"power", "utilization"})),
    Scenario("gpu-lost", "two RTX 3090s; the second falls off the bus on the 2nd refresh",
             "2x rtx-3090", lost_index=1),
    Scenario("no-gpu", "a machine without a GPU", ""),
)}

_TOKEN = re.compile(r"^(?:(\d+)\s*[x×*]\s*)?([a-z0-9][a-z0-9._-]*)$")
_NVLINK_LINKS = {"nvlink2": 6, "nvlink3": 12, "nvlink4": 18, "nvlink5": 18}


def parse_spec(spec: str, gpus: Mapping[str, GpuSpec]) -> list[str]:
    """Expand a catalog SPEC into one catalog id per card, in order.

    Raises:
        ValueError: naming the bad token, with close catalog ids and the scenario names.
    """
    text = spec.strip().lower()
    if not text:
        raise ValueError("--simulate: empty spec; give catalog ids like '2x rtx-3090' or a "
                         f"scenario ({', '.join(SCENARIOS)})")
    ids: list[str] = []
    for raw in text.split("+"):
        token = " ".join(raw.split())
        match = _TOKEN.match(token)
        if match is None:
            raise ValueError(f"--simulate: cannot read {raw.strip()!r} in {spec!r}; write "
                             "'ID', 'Nx ID' or 'ID+ID' (e.g. '2x rtx-3090+rtx-3060-12gb')")
        count = int(match.group(1) or 1)
        gpu_id = match.group(2)
        if gpu_id not in gpus:
            close = difflib.get_close_matches(gpu_id, list(gpus), n=3, cutoff=0.5)
            suggestion = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ValueError(
                f"--simulate: unknown GPU {gpu_id!r} in {spec!r}{suggestion}; see 'gpuadvisor "
                f"catalog list' or use a scenario: {', '.join(SCENARIOS)}")
        if not 1 <= count <= MAX_COUNT:
            raise ValueError(f"--simulate: count {count} in {raw.strip()!r} must be "
                             f"1..{MAX_COUNT}")
        ids.extend([gpu_id] * count)
    return ids


def _live(spec: GpuSpec, index: int, tick: int, scenario: Scenario | None) -> dict:
    """Plausible idle readings that wobble with ``tick`` (the refresh number)."""
    unsupported = scenario.unsupported if scenario else frozenset()
    # what the driver reports: the catalog's recorded total, else the label less inline ECC's
    # 1/16 on a card that ships with it on (an L40S shows 46068 of 49152 MiB)
    total = int(spec.memory_gib * GIB)
    if spec.reported_memory_mib:
        total = int(spec.reported_memory_mib * MIB)
    elif inline_ecc(spec)[0]:
        total = int(spec.memory_gib * GIB * (1 - INLINE_ECC_SHARE))
    if spec.vendor == "nvidia" and spec.unified_memory and spec.cuda_memory_mib:
        total = int(spec.cuda_memory_mib * MIB)  # what a GB10's detection finds (CUDA's)
    used = (448 + 64 * index + 32 * (tick % 3)) * MIB
    nvidia = spec.vendor == "nvidia"
    values: dict = {
        "memory_total_bytes": total,
        "memory_used_bytes": used,
        "memory_free_bytes": total - used,
        "temperature_c": float(36 + 3 * index + tick % 4),
        "sm_clock_mhz": 210 + 15 * (tick % 3) if nvidia else None,
        "mem_clock_mhz": 405 if nvidia else None,
        "utilization_gpu_pct": float((3 * tick + 5 * index) % 9),
        "utilization_mem_pct": float((2 * tick + index) % 5),
        "power_draw_w": round(spec.tdp_w * 0.09 + tick % 3, 1),
        "power_limit_w": spec.tdp_w,
        "power_default_limit_w": spec.tdp_w,
        "power_min_limit_w": float(round(spec.tdp_w * 0.4)),
        "power_max_limit_w": (float(round(spec.tdp_w * 1.1)) if spec.segment == "consumer"
                              else spec.tdp_w),
        "throttle_reasons": ("idle",) if nvidia else None,
    }
    if spec.unified_memory:
        for key in ("power_limit_w", "power_default_limit_w", "power_min_limit_w",
                    "power_max_limit_w"):
            values[key] = None
    if "power" in unsupported:
        for key in ("power_draw_w", "power_limit_w", "power_default_limit_w",
                    "power_min_limit_w", "power_max_limit_w"):
            values[key] = None
    if "utilization" in unsupported:
        values["utilization_gpu_pct"] = values["utilization_mem_pct"] = None
    return values


def simulated_gpu(spec: GpuSpec, index: int, tick: int = 1,
                  scenario: Scenario | None = None) -> GpuInfo:
    """A :class:`GpuInfo` for catalog entry ``spec`` as card ``index`` at refresh ``tick``."""
    nvidia = spec.vendor == "nvidia"
    datacenter = spec.segment == "datacenter"
    nvlink = _NVLINK_LINKS.get(spec.p2p_link) if nvidia and datacenter else None
    return GpuInfo(
        index=index,
        name=spec.aliases[0] if spec.aliases else spec.name,
        vendor=spec.vendor,
        backend="simulated",
        catalog_id=spec.id,
        uuid=f"GPU-51a1a7ed-{index:04d}-4000-8000-{zlib.crc32(spec.id.encode()):012d}",
        pci_bus_id=None if spec.unified_memory else f"00000000:{index + 1:02x}:00.0",
        # Blackwell's sm_12x needs a 570+ driver: GB10 as nvidia-smi printed it (580.95.05,
        # CUDA 13.0: ggml-org/llama.cpp benches/dgx-spark.md @4c7e9893)
        driver_version=(("580.95.05" if spec.cc_number >= 12 else "550.54.15")
                        if nvidia else None),
        cuda_driver_version=("13.0" if spec.cc_number >= 12 else "12.4") if nvidia else None,
        compute_capability=spec.compute_capability,
        pcie_gen_current=1 if spec.pcie_gen else None,  # idle cards drop to gen 1
        pcie_gen_max=spec.pcie_gen,
        pcie_width_current=spec.pcie_lanes,
        pcie_width_max=spec.pcie_lanes,
        nvlink_links_active=nvlink,
        temperature_slowdown_c=90.0 if nvidia else None,
        sm_clock_max_mhz=(1980 if datacenter else 2100) if nvidia else None,
        mem_clock_max_mhz=(2619 if datacenter else 10501) if nvidia else None,
        ecc_enabled=datacenter if nvidia else None,
        ecc_errors_uncorrected=0 if nvidia and datacenter else None,
        mig_enabled=False if nvidia and datacenter else None,
        persistence_mode=datacenter if nvidia else None,
        processes=(GpuProcess(pid=1000 + index, name="Xorg", used_bytes=None),)
        if nvidia and not datacenter else (() if nvidia else None),
        unified_memory=bool(spec.unified_memory),
        **_live(spec, index, tick, scenario),
    )


class SimulatedBackend:
    """:class:`~gpuadvisor.hardware.base.GpuBackend` serving a simulated rig.

    Args:
        spec: A scenario name or a catalog SPEC (see module docstring).
        gpus: The GPU catalog (default: shipped catalog plus user overrides).

    Raises:
        ValueError: An unknown scenario or GPU id, naming the bad token.
    """

    name = "simulated"

    def __init__(self, spec: str, gpus: Mapping[str, GpuSpec] | None = None) -> None:
        if gpus is None:
            from gpuadvisor.catalog import load_gpus

            gpus = load_gpus()
        key = spec.strip().lower()
        self.scenario: Scenario | None = SCENARIOS.get(key)
        rig = self.scenario.gpus if self.scenario else spec
        self.spec = spec
        self._specs = [gpus[i] for i in parse_spec(rig, gpus)] if rig else []
        self._tick = 0
        self._snapshot: list[GpuInfo] | None = None

    @property
    def refresh_count(self) -> int:
        """How many times the rig has been read."""
        return self._tick

    def refresh(self) -> None:
        """Take the next reading; in ``gpu-lost`` the lost card goes dark from the 2nd on."""
        self._tick += 1
        lost = self.scenario.lost_index if self.scenario else None
        devices = []
        for index, spec in enumerate(self._specs):
            info = simulated_gpu(spec, index, self._tick, self.scenario)
            if lost == index and self._tick >= 2:
                info = GpuInfo(index=index, name=info.name, vendor=info.vendor,
                               backend="simulated", catalog_id=info.catalog_id, uuid=info.uuid,
                               pci_bus_id=info.pci_bus_id,
                               memory_total_bytes=info.memory_total_bytes,
                               driver_version=info.driver_version, lost=True)
            devices.append(info)
        self._snapshot = devices

    def devices(self) -> list[GpuInfo]:
        """The rig as of the last refresh (the first call refreshes)."""
        if self._snapshot is None:
            self.refresh()
        return list(self._snapshot or [])

    def close(self) -> None:
        """Nothing to release."""
