"""The Compare page's answer banner: the best option in a sentence or two, or why nothing
fits, and, when the best option's price is older than 90 days, the day it was seen. Its colours
come from the style sheet by its ``state`` property."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QSizePolicy, QWidget

from gpuadvisor.core.advisor import Suggestion
from gpuadvisor.core.offers import STALE_AFTER_DAYS
from gpuadvisor.gui.widgets.unit_label import UnitLabel


def prices_as_of_note(best: Suggestion | None) -> str:
    """The banner's "prices as of" line for the best option: empty unless its price is older
    than :data:`~gpuadvisor.core.offers.STALE_AFTER_DAYS` days (the same test as the table's ⚠
    mark, :attr:`Suggestion.stale`)."""
    offer = best.option.offer if best is not None else None
    if offer is None or not best.stale:
        return ""
    return QCoreApplication.translate(
        "ComparePage", "Prices as of {date} ({days} days ago, older than {limit}): check the "
        "current price before you rent or buy.").format(
            date=offer.as_of, days=best.price_age_days, limit=STALE_AFTER_DAYS)


def best_shown(shown: Iterable[Suggestion]) -> Suggestion | None:
    """The option the banner names first: the first acceptable one shown (the page's order is
    the goal's ranking, as :func:`.format.answer` reads it)."""
    return next((s for s in shown if s.acceptable), None)


class AnswerBanner(UnitLabel):
    """A selectable, word-wrapped banner (object name ``compareAnswer``) whose ``state``
    property is ``ok``, ``none`` or ``busy``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        # its text keeps numbers with their units ("1,090 tokens/s" never breaks at the
        # slash on a projector); text() gives it back plain
        super().__init__("", parent)
        self.setObjectName("compareAnswer")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.price_note = ""

    def set_answer(self, text: str, state: str, best: Suggestion | None = None, *,
                   price_note: str | None = None) -> None:
        """Show ``text`` in the colours of ``state`` (the style sheet is applied again).

        An ``ok`` answer gets a second line with the day the best option's price was seen when
        that price is stale (:func:`prices_as_of_note`). ``best`` is that option; without it,
        the first acceptable option the page shows (its ``shown`` list) is taken.
        ``price_note`` replaces that line when given (a hosted API's price, per token).
        """
        self.price_note = ""
        if state == "ok" and price_note is not None:
            self.price_note = price_note
        elif state == "ok":
            if best is None:
                best = best_shown(getattr(self.parent(), "shown", None) or ())
            self.price_note = prices_as_of_note(best)
        self.setText(f"{text}\n{self.price_note}" if self.price_note else text)
        self.setProperty("state", state)
        self.style().unpolish(self)
        self.style().polish(self)


__all__ = ["AnswerBanner", "best_shown", "prices_as_of_note"]
