"""The Compare page's answer banner says when the best option's price was seen, once that
price is older than 90 days (the same limit as the table's ⚠ mark)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from types import SimpleNamespace

from PySide6.QtWidgets import QWidget

from gpuadvisor.core.offers import Offer
from gpuadvisor.gui.pages.compare.answer import AnswerBanner, prices_as_of_note


def option(as_of: str, age_days: int, *, acceptable: bool = True):
    offer = Offer(id=f"o-{as_of}", kind="rent", gpu_id="rtx-4090", provider="RunPod",
                  price_usd=0.69, as_of=as_of, source="test", instance="1x RTX 4090")
    return SimpleNamespace(option=SimpleNamespace(offer=offer), acceptable=acceptable,
                           price_age_days=age_days, stale=age_days > 90)


def page_with(qtbot, shown):
    page = QWidget()
    qtbot.addWidget(page)
    page.shown = shown
    return page, AnswerBanner(page)


def test_a_stale_best_price_adds_the_day_it_was_seen(qtbot):
    _, banner = page_with(qtbot, [option("2026-03-10", 268)])
    banner.set_answer("Best (cheapest): 1 × RTX 4090 on RunPod.", "ok")
    lines = banner.text().split("\n")
    assert lines[0] == "Best (cheapest): 1 × RTX 4090 on RunPod."
    assert lines[1].startswith("Prices as of 2026-03-10 (268 days ago, older than 90)")


def test_a_fresh_best_price_adds_nothing(qtbot):
    _, banner = page_with(qtbot, [option("2026-11-09", 24)])
    banner.set_answer("Best (cheapest): …", "ok")
    assert banner.text() == "Best (cheapest): …" and banner.price_note == ""


def test_the_note_follows_the_best_option_not_the_first_shown(qtbot):
    shown = [option("2025-03-06", 637, acceptable=False), option("2026-11-09", 24)]
    _, banner = page_with(qtbot, shown)
    banner.set_answer("Best: …", "ok")
    assert banner.price_note == ""
    banner.set_answer("Best: …", "ok", best=shown[0])
    assert "2025-03-06" in banner.text()


def test_no_note_when_nothing_fits_or_while_working(qtbot):
    _, banner = page_with(qtbot, [option("2025-03-06", 637)])
    banner.set_answer("Working out every option…", "busy")
    assert banner.price_note == ""
    banner.set_answer("None of the options shown fits this plan.", "none")
    assert "\n" not in banner.text()


def test_an_option_without_an_offer_has_no_price_date():
    own = SimpleNamespace(option=SimpleNamespace(offer=None), acceptable=True, stale=False,
                          price_age_days=None)
    assert prices_as_of_note(own) == "" and prices_as_of_note(None) == ""
