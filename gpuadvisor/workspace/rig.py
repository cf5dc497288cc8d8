"""The cards of this machine (or a demo rig) offered to the shared plan as target GPUs.

:class:`DetectedRig` turns detected cards (``hardware.GpuInfo`` records) into plan targets
named ``detected:<index>``, each with the :class:`~gpuadvisor.core.gpu.GpuSpec` its estimate
uses: the matched catalog entry with the memory the driver reports, or, for an unmatched card,
the reference GPU's peaks under the card's own name and memory. Used by
:class:`gpuadvisor.workspace.state.PlanState`; Qt-free, and it imports nothing from
``hardware`` (the records are read by attribute), so the plan state stays free of driver
bindings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpuadvisor.core.gpu import GpuSpec, smallest_card, with_reported_memory

#: Where a detected card's memory comes from.
DRIVER_SOURCE = "this machine's driver (NVML)"

DETECTED_PREFIX = "detected:"
"""GPU ids of the cards detected in this machine (or the demo rig): ``detected:<index>``."""


class DetectedRig:
    """Detected training cards as plan targets: ``detected:<index>`` -> card and spec."""

    def __init__(self, gpus: Mapping[str, GpuSpec], reference: GpuSpec | None) -> None:
        """Start with no cards.

        Args:
            gpus: catalog GPUs by id (a detected card's ``catalog_id`` is looked up here).
            reference: GPU whose peaks time an unmatched card (``None``: such cards are
                skipped).
        """
        self._gpus = gpus
        self._reference = reference
        self._cards: dict[str, Any] = {}  # detected id -> GpuInfo
        self._specs: dict[str, GpuSpec] = {}
        self._lost: tuple[Any, ...] = ()

    def __contains__(self, gpu_id: object) -> bool:
        return gpu_id in self._cards

    @property
    def ids(self) -> frozenset[str]:
        """The detected ids now offered."""
        return frozenset(self._cards)

    @property
    def cards(self) -> dict[str, Any]:
        """Detected id -> GpuInfo (a copy)."""
        return dict(self._cards)

    @property
    def lost(self) -> tuple[Any, ...]:
        """The cards the last reading found lost (fallen off the bus): not offered."""
        return self._lost

    def card(self, gpu_id: str | None) -> Any | None:
        """The GpuInfo behind a detected id, or ``None`` (catalog ids, ``None``)."""
        return self._cards.get(gpu_id or "")

    def spec(self, gpu_id: str | None) -> GpuSpec | None:
        """The spec a detected id is estimated with, or ``None`` when it is not detected."""
        return self._specs.get(gpu_id or "")

    def catalog_id(self, gpu_id: str) -> str | None:
        """A detected card's catalog match (what plan files save), or ``None``."""
        return self._cards[gpu_id].catalog_id

    def offer(self, gpus: Iterable[Any]) -> None:
        """Replace the cards: each training card with known memory and a spec is kept.

        Integrated and lost cards, cards whose memory the driver does not report, and
        unmatched cards without a reference GPU are skipped.
        """
        cards: dict[str, Any] = {}
        specs: dict[str, GpuSpec] = {}
        gpus = list(gpus)
        self._lost = tuple(info for info in gpus if getattr(info, "lost", False))
        for info in gpus:
            if not info.is_training_gpu or not info.memory_total_bytes:
                continue
            spec = self._spec_for(info)
            if spec is not None:
                key = f"{DETECTED_PREFIX}{info.index}"
                cards[key], specs[key] = info, spec
        self._cards, self._specs = cards, specs

    def smallest_id(self) -> str | None:
        """The id of the card with the least memory (multi-GPU plans size for it)."""
        smallest = smallest_card(self._cards.values())
        return None if smallest is None else f"{DETECTED_PREFIX}{smallest.index}"

    def ranked_ids(self) -> list[str]:
        """Detected ids, best card first: most memory, then the fastest (dense fp16 peak),
        then the lower index."""
        def key(gpu_id: str):
            spec = self._specs[gpu_id]
            return (-spec.memory_gib, -spec.fp16_tensor_tflops, self._cards[gpu_id].index)

        return sorted(self._cards, key=key)

    def target_id(self, n_gpus: int) -> str | None:
        """The card a plan of ``n_gpus`` sizes for: it runs on the ``n_gpus`` best cards
        (:meth:`ranked_ids`), so the weakest of those limits it; one GPU is the best card,
        not the smallest. ``None`` without cards."""
        ranked = self.ranked_ids()
        if not ranked:
            return None
        chosen = ranked[:max(1, n_gpus)]
        smallest = smallest_card(self._cards[gpu_id] for gpu_id in chosen)
        return None if smallest is None else f"{DETECTED_PREFIX}{smallest.index}"

    def retarget(self, current: str | None, old_ids, n_gpus: int, *, auto: bool,
                 chosen: bool, default_id: str | None) -> tuple[str | None, bool] | None:
        """After a new reading: ``(target, chosen by the state)``, or None to keep
        ``current``. The target follows the cards while it is the default card nobody named
        (``chosen``: the user or an opened plan file named a card) or a detected card the
        state chose (``auto``); a card the user picked stays while it is there. The target
        is :meth:`target_id`, or ``default_id`` when no card is left."""
        picked = not auto and current in old_ids and current in self
        if not ((current == default_id and not chosen) or current in old_ids) or picked:
            return None
        target = self.target_id(n_gpus)
        return (target, True) if target is not None else (default_id, False)

    def _spec_for(self, info) -> GpuSpec | None:
        base = self._gpus.get(info.catalog_id) if info.catalog_id else None
        key = f"detected-{info.index}"
        try:
            if base is not None:
                # The catalog's id: time assumptions then cite "catalog: <id>".
                return with_reported_memory(base, info.memory_total_bytes, DRIVER_SOURCE,
                                            ecc_enabled=info.ecc_enabled)
            reference = self._reference
            if reference is None:
                return None
            return with_reported_memory(
                reference, info.memory_total_bytes, DRIVER_SOURCE, id=key, name=info.name,
                aliases=(), ecc_enabled=info.ecc_enabled,
                notes=f"unmatched: memory from the driver; time uses the {reference.name} "
                "peak as a stand-in")
        except (TypeError, ValueError):
            return None


__all__ = ["DETECTED_PREFIX", "DetectedRig"]
