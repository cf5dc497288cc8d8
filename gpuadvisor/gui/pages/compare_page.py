"""The Compare page (kept importable here; the page lives in :mod:`.compare`)."""

from .compare import EXPORT_KINDS, AdviceModel, ComparePage, Filters, option_label

__all__ = ["EXPORT_KINDS", "AdviceModel", "ComparePage", "Filters", "option_label"]
