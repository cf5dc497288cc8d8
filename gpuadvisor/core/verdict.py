"""Whether a plan fits its card, in one word: "fits", "tight" or "does not fit".

One rule for every door (CLI, JSON, report, each page's banner and charts): the plan's
memory per GPU against the card's usable memory, tight above :data:`TIGHT_FRACTION` of it;
on an inference engine that refuses to start, or one that reserves a set share of the card
whatever the plan (vLLM), the engine's own word (:func:`engine_verdict`).
"""

from __future__ import annotations

#: Above this share of the GPU's memory a plan that fits is called "tight": allocator
#: fragmentation and framework buffers vary by a few percent between versions.
TIGHT_FRACTION = 0.90


def verdict_for(total: float, capacity: float) -> str:
    """"fits", "tight" (over :data:`TIGHT_FRACTION` of capacity) or "does not fit"."""
    if total > capacity:
        return "does not fit"
    return "tight" if total > TIGHT_FRACTION * capacity else "fits"


def engine_verdict(engine, total: float, capacity: float) -> str:
    """The verdict of a plan on an engine (an :class:`~.engines.base.EngineResult`):
    refused (vLLM without room for one sequence) does not fit; on an engine that reserves
    a set share of the card whatever the plan (vLLM), the reservation's size says nothing:
    it fits when every request the plan serves runs at once, and is tight when some wait
    (or the reserve is short); elsewhere :func:`verdict_for`."""
    if engine.refuses or total > capacity:
        return "does not fit"
    if engine.budget:
        return "tight" if engine.tight else "fits"
    return verdict_for(total, capacity)


__all__ = ["TIGHT_FRACTION", "engine_verdict", "verdict_for"]
