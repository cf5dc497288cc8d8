"""The Plan page (kept importable here; the page lives in :mod:`.plan`)."""

from .plan import (
    CUSTOM_ITEM,
    FIT_MAP_MICRO_BATCHES,
    FIT_MAP_SEQ_LENS,
    NO_GPU_ITEM,
    PlanPage,
    micro_batch_axis,
    seq_axis,
)

__all__ = ["CUSTOM_ITEM", "FIT_MAP_MICRO_BATCHES", "FIT_MAP_SEQ_LENS", "NO_GPU_ITEM",
           "PlanPage", "micro_batch_axis", "seq_axis"]
