"""The Plan page, by region: ``page`` lays out and wires; ``inputs`` (the plan's fields),
``charts`` (memory per GPU, what fits, the memory curves) and ``results`` (time and levers)
are the regions; ``format`` holds the page's words."""

from .charts import FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, micro_batch_axis, seq_axis
from .inputs import CUSTOM_ITEM, NO_GPU_ITEM
from .page import PlanPage

__all__ = ["CUSTOM_ITEM", "FIT_MAP_MICRO_BATCHES", "FIT_MAP_SEQ_LENS", "NO_GPU_ITEM",
           "PlanPage", "micro_batch_axis", "seq_axis"]
