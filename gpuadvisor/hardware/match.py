"""Detected device name (+ memory) -> catalog GPU id.

Drivers report names, not catalog ids, and two memory variants often report the same name
(RTX 3080 10 GB / 12 GB; RTX 3060 12 GB / 8 GB, where only the 12 GB card is in the catalog).
So a match needs the name (compared after light normalisation) and, for discrete cards, memory
within what drivers report for that card: a little under the label because of ECC and driver
reservations (a T4 reports 15 GiB of 16; an A10G with ECC on 22.5 GiB of 24). Apple's unified
memory depends on the configuration bought, not the chip, so only the name counts there.

No match is a valid answer: the card is shown as detected and marked unmatched, with the
memory the driver reported, never a guess.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping

from gpuadvisor.core.gpu import GpuSpec

from .base import GpuInfo

GIB = 1024**3
#: Reported/labelled memory ratios accepted for a discrete card (see module docstring).
MEMORY_RATIO_MIN = 0.88
MEMORY_RATIO_MAX = 1.06

# Words that vary between driver versions and tools but never tell two cards apart:
# "NVIDIA GeForce RTX 3090" (NVML) = "GeForce RTX 3090" (old drivers), "Tesla T4" = "NVIDIA T4",
# "AMD Radeon RX 7900 XTX" (ROCm torch) = "Radeon RX 7900 XTX" (older ROCm).
_NOISE_WORDS = frozenset({"nvidia", "geforce", "tesla", "amd", "intel", "apple", "graphics"})
_TRADEMARKS = re.compile(r"\((?:r|tm|c)\)|[®™]", re.IGNORECASE)


def normalize_name(name: str) -> str:
    """Lower-case, trademarks and vendor words dropped, spaces collapsed.

    ``"Intel(R) Arc(TM) A770 Graphics"`` -> ``"arc a770"``; ``"Tesla T4"`` -> ``"t4"``.
    Hyphens and memory sizes stay: ``"A100-SXM4-80GB"`` and ``"A100 80GB PCIe"`` are
    different cards.
    """
    text = _TRADEMARKS.sub(" ", name).lower().replace("_", " ")
    words = [w for w in text.split() if w not in _NOISE_WORDS]
    return " ".join(words)


def _is_unified(spec: GpuSpec) -> bool:
    return bool(spec.unified_memory) or spec.segment == "soc"


def candidates(name: str, gpus: Mapping[str, GpuSpec]) -> list[GpuSpec]:
    """Catalog entries whose name or an alias normalises to the same text as ``name``."""
    key = normalize_name(name)
    if not key:
        return []
    found = []
    for spec in gpus.values():
        names = (spec.name, *spec.aliases)
        if any(normalize_name(n) == key for n in names):
            found.append(spec)
    return found


def match_gpu(
    name: str,
    memory_total_bytes: int | None = None,
    gpus: Mapping[str, GpuSpec] | None = None,
) -> str | None:
    """Catalog id for a detected card, or ``None`` when unmatched.

    Args:
        name: Device name as the driver reports it.
        memory_total_bytes: Total memory the driver reports; ``None`` when unknown.
        gpus: The GPU catalog (default: the shipped catalog plus user overrides).

    Returns:
        The id of the one entry whose name matches and whose labelled memory fits the
        reported memory (closest wins among variants), or ``None``. With memory unknown, a
        name shared by several variants is ``None`` (ambiguous) rather than a guess.
    """
    if gpus is None:
        from gpuadvisor.catalog import load_gpus

        gpus = load_gpus()
    found = candidates(name, gpus)
    if not found:
        return None
    unified = [s for s in found if _is_unified(s)]
    if unified:
        return unified[0].id if len(unified) == 1 else None
    if memory_total_bytes is None or memory_total_bytes <= 0:
        return found[0].id if len(found) == 1 else None
    best: tuple[float, str] | None = None
    for spec in found:
        ratio = memory_total_bytes / (spec.memory_gib * GIB)
        if MEMORY_RATIO_MIN <= ratio <= MEMORY_RATIO_MAX:
            distance = abs(math.log(ratio))
            if best is None or distance < best[0]:
                best = (distance, spec.id)
    return best[1] if best else None


def with_catalog_match(gpu: GpuInfo, gpus: Mapping[str, GpuSpec] | None = None) -> GpuInfo:
    """The same record with ``catalog_id`` filled in (or left ``None`` when unmatched)."""
    return dataclasses.replace(gpu, catalog_id=match_gpu(gpu.name, gpu.memory_total_bytes, gpus))
