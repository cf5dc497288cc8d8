"""The Compare page's catalogs: the offers (buy, rent, cloud) and the hosted APIs in effect,
read through ``gpuadvisor.catalog`` (a test that replaces ``catalog.load_offers`` is seen
here). A problem is said on the page, never raised: the page still compares what it has."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from gpuadvisor import catalog
from gpuadvisor.core.apis import ApiOffer
from gpuadvisor.core.offers import Offer

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


def load_offers(page) -> dict[str, Offer]:
    """The offers in effect; on failure, ``page.catalog_problem`` says why and none are
    compared but the user's rig. The user files' warnings go to ``page.catalog_warnings``."""
    warnings: list[str] = []
    try:
        offers = catalog.load_offers(warnings=warnings)
    except catalog.CatalogError as exc:
        page.catalog_problem = translate(
            "ComparePage", "The offers catalog could not be read, so only your rig is "
            "compared: {error}").format(error=exc)
        return {}
    page.catalog_warnings = warnings
    return dict(offers)


def load_apis(page) -> dict[str, ApiOffer]:
    """The hosted APIs in effect (none when the catalog cannot be read: per-token
    comparisons go on without them); the user file's warnings join ``page.catalog_warnings``."""
    warnings: list[str] = []
    try:
        apis = catalog.load_apis(warnings=warnings)
    except catalog.CatalogError:
        return {}
    page.catalog_warnings = [*page.catalog_warnings, *warnings]
    return dict(apis)


__all__ = ["load_apis", "load_offers"]
