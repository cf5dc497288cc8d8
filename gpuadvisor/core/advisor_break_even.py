"""Owning against renting, for repeated jobs like the one planned: after how many such jobs
buying a card beats renting one (:func:`break_even`), and the pair that pays off soonest
(:func:`best_break_even`). Re-exported by :mod:`gpuadvisor.core.advisor`.

Pure: no files, no Qt. Money in US dollars.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .advisor_types import Suggestion


@dataclass(frozen=True)
class BreakEven:
    """Owning against renting, for repeated jobs like this one.

    Attributes:
        jobs: jobs after which owning has cost less in total (``None``: never, because a
            rented job costs no more than the owned card's electricity for it).
        hours: the same on the owned cards' clock (``jobs x owned job hours``), or ``None``.
        own_per_job_usd: electricity per job on the owned cards.
        rent_per_job_usd: rent per job.
        hardware_usd: what owning costs up front.
    """

    jobs: float | None
    hours: float | None
    own_per_job_usd: float
    rent_per_job_usd: float
    hardware_usd: float

    def cost_curves(self, jobs: Sequence[float]) -> tuple[list[float], list[float]]:
        """Cumulative cost of owning and of renting after each number of ``jobs``."""
        own = [self.hardware_usd + n * self.own_per_job_usd for n in jobs]
        rent = [n * self.rent_per_job_usd for n in jobs]
        return own, rent


def break_even(owned: Suggestion, rented: Suggestion) -> BreakEven:
    """After how many such jobs buying ``owned`` beats renting ``rented``:
    ``hardware / (rent per job - electricity per job)``, when that is positive."""
    if not owned.fits or not rented.fits:
        raise ValueError("break-even needs two options that fit the plan")
    margin = rented.rent_usd - owned.energy_usd
    if margin <= 0:
        return BreakEven(None, None, owned.energy_usd, rented.rent_usd, owned.hardware_usd)
    jobs = owned.hardware_usd / margin
    return BreakEven(jobs, jobs * owned.hours, owned.energy_usd, rented.rent_usd,
                     owned.hardware_usd)


def best_break_even(suggestions: Iterable[Suggestion], *, owned: Suggestion | None = None,
                    rented: Suggestion | None = None, allow_changes: bool = True
                    ) -> tuple[Suggestion, Suggestion, BreakEven] | None:
    """``(owned, rented, break-even)``: the cheapest fitting rental (fitting as asked unless
    ``allow_changes``) against the card to buy that beats it after the fewest jobs (the
    cheapest card when none ever does); either side may be fixed (the one the user picked).
    ``None`` when a side has no fitting option."""
    fitting = [s for s in suggestions if s.counts(allow_changes)]
    if rented is None:
        rented = min((s for s in fitting if s.option.kind in ("rent", "cloud")),
                     key=lambda s: (s.cost_usd, s.option.id), default=None)
    if owned is None and rented is not None and rented.fits:
        def payoff(s: Suggestion):
            jobs = break_even(s, rented).jobs
            return (jobs is None, jobs if jobs is not None else s.cost_usd, s.option.id)

        owned = min((s for s in fitting if s.option.kind in ("buy-new", "buy-used")),
                    key=payoff, default=None)
    if owned is None or rented is None or not owned.fits or not rented.fits:
        return None
    return owned, rented, break_even(owned, rented)


__all__ = ["BreakEven", "best_break_even", "break_even"]
