"""Ways to get GPU time: buy a card (new or used), rent one by the hour, or use a cloud.

An :class:`Offer` is one dated price for one GPU model from one place. Offers come from the
shipped ``catalog/offers.toml`` (validated by :mod:`gpuadvisor.catalog`) and from the user's
own overrides (their price for a used card, their negotiated cloud rate), which take
precedence and are marked ``user=True``. Prices are in US dollars; the display currency is a
user setting with a user-set exchange rate. Prices age: :func:`age_days` and
:data:`STALE_AFTER_DAYS` let the app show how old each price is and warn past 90 days.

Pure: no files, no Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

#: ``buy-new``: a new card (street price, with the launch MSRP where known);
#: ``buy-used``: a used card (a typical price on the second-hand market);
#: ``rent``: a GPU marketplace or GPU cloud billed per GPU-hour (RunPod, Vast.ai, Lambda);
#: ``cloud``: a hyperscaler instance (AWS, GCP, Azure), price per GPU-hour derived from the
#: instance price divided by its GPU count.
OFFER_KINDS = ("buy-new", "buy-used", "rent", "cloud")
BUY_KINDS = ("buy-new", "buy-used")
RENT_KINDS = ("rent", "cloud")

#: How the GPUs of one rented instance talk to each other.
INTERCONNECTS = ("none", "pcie", "nvlink", "sxm")

#: A price older than this many days is flagged as stale.
STALE_AFTER_DAYS = 90


@dataclass(frozen=True)
class Offer:
    """One dated price.

    Attributes:
        id: unique id (``runpod-a100-80gb-sxm``). A user override with the id of a shipped
            offer replaces it; a new id adds an offer.
        kind: one of :data:`OFFER_KINDS`.
        gpu_id: the catalog GPU (:class:`~.gpu.GpuSpec` id) offered.
        provider: who sells or rents it (``RunPod``, ``AWS``, ``used market (eBay sold)``).
        price_usd: buy: US dollars per card; rent/cloud: US dollars per GPU-hour.
        as_of: the day the price was seen (``YYYY-MM-DD``).
        source: where the price comes from (a URL or a publication), for people.
        gpus_per_instance: rent/cloud: GPUs in one instance (1 for a single-GPU rental); the
            job rents whole instances.
        instance: the instance or product name (``p4d.24xlarge``, ``1x A100 SXM``).
        region: where (``us-east-1``), when the price depends on it.
        spot: an interruptible/spot price (cheaper, may be stopped).
        interconnect: rent/cloud: how the instance's GPUs are linked (:data:`INTERCONNECTS`);
            ``None``: the GPU catalog's own link for that card.
        msrp_usd: buy-new: the launch MSRP, for comparison with the street price.
        price_low_usd, price_high_usd: a marketplace range (Vast.ai-style offers), when
            the price is a range; ``price_usd`` is then a typical value within it.
        notes: anything a buyer should know (``"no warranty"``, ``"community cloud"``).
        estimate: the price is an estimate (derived, not read from a price list); ``notes``
            says from what.
        user: the user's own price (from their overrides file), shown as theirs.
    """

    id: str
    kind: str
    gpu_id: str
    provider: str
    price_usd: float
    as_of: str
    source: str
    gpus_per_instance: int = 1
    instance: str | None = None
    region: str | None = None
    spot: bool = False
    interconnect: str | None = None
    msrp_usd: float | None = None
    price_low_usd: float | None = None
    price_high_usd: float | None = None
    notes: str = ""
    estimate: bool = False
    user: bool = False

    def __post_init__(self) -> None:
        if self.kind not in OFFER_KINDS:
            raise ValueError(f"kind must be one of {', '.join(OFFER_KINDS)}, got {self.kind!r}")
        if (isinstance(self.price_usd, bool) or not isinstance(self.price_usd, int | float)
                or not math.isfinite(self.price_usd) or self.price_usd <= 0):
            raise ValueError(f"price_usd must be a positive number, got {self.price_usd!r}")
        parse_day(self.as_of)
        if not isinstance(self.gpus_per_instance, int) or self.gpus_per_instance < 1:
            raise ValueError(f"gpus_per_instance must be a positive integer, "
                             f"got {self.gpus_per_instance!r}")
        if self.interconnect is not None and self.interconnect not in INTERCONNECTS:
            raise ValueError(f"interconnect must be one of {', '.join(INTERCONNECTS)}, "
                             f"got {self.interconnect!r}")
        if self.kind in BUY_KINDS and (self.spot or self.gpus_per_instance != 1):
            raise ValueError("a card to buy has no spot price and one GPU")
        low, high = self.price_low_usd, self.price_high_usd
        if (low is None) != (high is None):
            raise ValueError("price_low_usd and price_high_usd go together")
        if low is not None and not 0 < low <= self.price_usd <= high:
            raise ValueError(f"price range {low}..{high} must contain price_usd "
                             f"{self.price_usd}")

    @property
    def is_buy(self) -> bool:
        return self.kind in BUY_KINDS

    @property
    def is_rent(self) -> bool:
        return self.kind in RENT_KINDS

    @property
    def instance_price_usd(self) -> float:
        """rent/cloud: US dollars per hour for one whole instance."""
        return self.price_usd * self.gpus_per_instance


def parse_day(text: str) -> date:
    """A ``YYYY-MM-DD`` day; ``ValueError`` naming the text otherwise."""
    if not isinstance(text, str) or len(text) != 10:
        raise ValueError(f"as_of must be a day like 2026-11-30, got {text!r}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"as_of must be a day like 2026-11-30, got {text!r}") from None


def age_days(offer: Offer, today: date) -> int:
    """Days since the offer's price was seen (0 on the day)."""
    return (today - parse_day(offer.as_of)).days


def is_stale(offer: Offer, today: date, limit_days: int = STALE_AFTER_DAYS) -> bool:
    """Whether the price is older than ``limit_days`` (default :data:`STALE_AFTER_DAYS`)."""
    return age_days(offer, today) > limit_days


__all__ = ["BUY_KINDS", "INTERCONNECTS", "OFFER_KINDS", "RENT_KINDS", "STALE_AFTER_DAYS",
           "Offer", "age_days", "is_stale", "parse_day"]
