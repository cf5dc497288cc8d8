"""Detected device name (+ memory) -> catalog GPU id.

Drivers report names, not catalog ids, and two memory variants often report the same name
(RTX 3080 10 GB / 12 GB; RTX 3060 12 GB / 8 GB, where only the 12 GB card is in the catalog).
So a match needs the name (compared after light normalisation) and, for discrete cards, memory
within what drivers report for that card: a little under the label because of ECC and driver
reservations (a T4 reports 15 GiB of 16; an A10G with ECC on 22.5 GiB of 24). The same holds for
boards re-fitted with more memory (the 48 GB RTX 4090 and 22 GB RTX 2080 Ti sold in China report
the plain card's name) and for laptop chips, whose driver names end in "Laptop GPU".

Apple's unified memory depends on the configuration bought, not the chip, so memory does not
count there; macOS names the chip ("Apple M3 Max") and not its variant, which the GPU-core count
tells apart (30 or 40 cores). A variant entry is found by its chip name (its catalog name
without the parenthesis) and its ``gpu_cores``; without a core count the chip's fullest
variant is taken, the one the catalog held before it listed variants.

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


_PARENTHESIS = re.compile(r"\s*\([^)]*\)\s*$")


def _names(spec: GpuSpec) -> tuple[str, ...]:
    """The names a driver may print for ``spec``: its name, its aliases and, for an SoC, its
    chip name (``"Apple M3 Max (30-core GPU, 96 GB)"`` -> ``"Apple M3 Max"``)."""
    names = (spec.name, *spec.aliases)
    if _is_unified(spec):
        names += (_PARENTHESIS.sub("", spec.name),)
    return names


def candidates(name: str, gpus: Mapping[str, GpuSpec]) -> list[GpuSpec]:
    """Catalog entries whose name, an alias or (SoCs) chip name normalises like ``name``."""
    key = normalize_name(name)
    if not key:
        return []
    return [spec for spec in gpus.values()
            if any(normalize_name(n) == key for n in _names(spec))]


def _pick_variant(found: list[GpuSpec], gpu_cores: int | None) -> str | None:
    """The unified-memory entry for a chip name: the one with ``gpu_cores`` cores when the
    count is known (``None`` when no variant has it), else the fullest variant."""
    if len(found) == 1 and (gpu_cores is None or found[0].gpu_cores in (None, gpu_cores)):
        return found[0].id
    if gpu_cores is not None:
        exact = [s for s in found if s.gpu_cores == gpu_cores]
        return exact[0].id if len(exact) == 1 else None
    most = max(s.gpu_cores or 0 for s in found)
    fullest = [s for s in found if (s.gpu_cores or 0) == most]
    return fullest[0].id if len(fullest) == 1 else None


def match_gpu(
    name: str,
    memory_total_bytes: int | None = None,
    gpus: Mapping[str, GpuSpec] | None = None,
    gpu_cores: int | None = None,
) -> str | None:
    """Catalog id for a detected card, or ``None`` when unmatched.

    Args:
        name: Device name as the driver reports it.
        memory_total_bytes: Total memory the driver reports; ``None`` when unknown.
        gpus: The GPU catalog (default: the shipped catalog plus user overrides).
        gpu_cores: GPU cores as Apple counts them, telling variants of one chip apart;
            ``None`` when unknown (then the chip's fullest variant).

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
        return _pick_variant(unified, gpu_cores)
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
    return dataclasses.replace(gpu, catalog_id=match_gpu(
        gpu.name, gpu.memory_total_bytes, gpus, gpu_cores=gpu.gpu_cores))
