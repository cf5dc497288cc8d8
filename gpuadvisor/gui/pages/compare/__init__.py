"""The Compare page, by region: ``page`` lays out and wires; ``constraints`` (goal and
limits), ``table`` and ``filters`` (the options), ``details`` (selection, break-even,
export buttons) and ``answer`` (the banner) are the regions; ``format`` holds the page's
words, ``exports`` its exports and ``advising`` its background requests."""

from .details import EXPORT_KINDS
from .filters import Filters
from .format import option_label
from .page import ComparePage
from .table import AdviceModel

__all__ = ["EXPORT_KINDS", "AdviceModel", "ComparePage", "Filters", "option_label"]
