"""The Compare page on an inference plan reads per million generated tokens: hosted APIs beside
the rentals, tokens per second and the first token, a break-even in tokens, the utilization
and lifetime inputs, and no cost written "$0.00" anywhere."""

from __future__ import annotations

import html
import math
import re
from datetime import date

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLabel

from gpuadvisor import catalog
from gpuadvisor.core.apis import ApiOffer
from gpuadvisor.core.offers import Offer
from gpuadvisor.gui.numbers import sig
from gpuadvisor.gui.pages.compare import ComparePage
from gpuadvisor.workspace.settings import Settings
from gpuadvisor.workspace.state import PlanState

TODAY = date(2026, 12, 3)
GPUS = catalog.load_gpus()
OFFERS = {o.id: o for o in (
    Offer("used-3090", "buy-used", "rtx-3090", "eBay sold", 700.0, "2026-11-01", "t"),
    Offer("new-4090", "buy-new", "rtx-4090", "Newegg", 1800.0, "2026-11-15", "t"),
    Offer("rp-h100", "rent", "h100-sxm", "RunPod", 2.69, "2026-11-20", "t", instance="1x"),
    Offer("vast-4090", "rent", "rtx-4090", "Vast.ai", 0.35, "2026-11-01", "t", instance="1x"),
)}
APIS = {a.id: a for a in (
    ApiOffer("cheap-8b", "DeepInfra", "llama-3.1-8b", "meta-llama/Meta-Llama-3.1-8B-Instruct",
             0.03, 0.05, "2026-11-30", "https://example.com/a"),
    ApiOffer("dear-8b", "Together", "llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct-Turbo",
             0.18, 0.18, "2026-11-30", "https://example.com/b"),
    ApiOffer("other-70b", "Groq", "llama-3.3-70b", "llama-3.3-70b-versatile", 0.59, 0.79,
             "2026-11-30", "https://example.com/c"),
)}


@pytest.fixture
def page(qtbot):
    state = PlanState()
    state.update(task="infer", precision="bf16", seq_len=1024, new_tokens=256,
                 micro_batch=1)
    assert state.plan.task == "infer" and state.model.id == "llama-3.1-8b"
    page = ComparePage(state, Settings(), offers=OFFERS, apis=APIS, today=TODAY,
                       own=[GPUS["rtx-3090"]])
    qtbot.addWidget(page)
    page.resize(1366, 768)
    page.show()
    qtbot.waitExposed(page)
    page.flush()
    yield page
    page.shutdown()


def every_text(page) -> list[str]:
    """What the page shows or says on hover: labels, buttons, every table cell and its
    tooltip, the charts' axis titles and badge."""
    texts = [w.text() for w in page.findChildren(QLabel)]
    texts += [w.text() for w in page.findChildren(QAbstractButton)]
    texts += [w.toolTip() for w in page.findChildren(QLabel)]
    model = page.model
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            texts.append(str(model.data(index) or ""))
            texts.append(str(model.data(index, Qt.ItemDataRole.ToolTipRole) or ""))
    for chart in (page.scatter, page.break_even_chart):
        for side in ("left", "bottom"):
            texts.append(chart.plot_item.getAxis(side).labelText)
    texts.append(page.break_even_chart.badge_text())
    return texts


def row_ids(page, kind: str) -> list[str]:
    return [r.id for r in page.economics.rows if r.kind == kind and r.usd_per_mtok]


def test_no_cost_reads_zero_dollars_whatever_is_selected(page):
    assert page.per_token and page.economics is not None
    for kind in ("api", "own", "buy-used", "buy-new", "rent"):
        page.select(row_ids(page, kind)[0])
        offending = [t for t in every_text(page) if "$0.00" in t]
        assert offending == [], (kind, offending[:3])


def test_api_offers_stand_beside_the_rentals_per_million_tokens(page):
    ids = page.table_ids()
    assert "api:cheap-8b" in ids and "api:dear-8b" in ids
    assert "api:other-70b" not in ids  # a 70B endpoint does not price an 8B plan
    assert "offer:vast-4090" in ids
    row = ids.index("api:cheap-8b")
    # $0.05 out + $0.03 in x 1024 / 256 prompt tokens per generated token = $0.17.
    assert page.table_text(row, "per_mtok") == "$0.17"
    assert page.table_text(row, "kind") == "API"
    assert page.table_text(row, "speed") == "—"
    # The cheapest first, for the goal "cheapest".
    assert ids[0] == "api:cheap-8b"
    header = page.model.headerData(page.model.column("per_mtok"), Qt.Orientation.Horizontal)
    assert header == "Per M tokens"
    table = page.table
    assert table.isColumnHidden(page.model.column("cost"))
    assert table.isColumnHidden(page.model.column("time"))
    assert not table.isColumnHidden(page.model.column("per_mtok"))


def test_a_rental_per_million_tokens_and_the_utilization_input(page):
    ids = page.table_ids()
    row = ids.index("offer:vast-4090")
    r = page.economics.row("offer:vast-4090")
    # $0.35/h / (tokens/s x 3600 x 50%) x 1e6, shown with two significant figures.
    expected = 0.35 / (r.tokens_per_s * 3600 * 0.5) * 1e6
    assert r.usd_per_mtok == pytest.approx(expected)
    digits = max(2, 1 - math.floor(math.log10(expected)))
    assert page.table_text(row, "per_mtok") == f"${expected:.{digits}f}"
    assert page.table_text(row, "speed") == sig(r.tokens_per_s)
    page.constraints.utilization_spin.setValue(25)
    assert page.economics.row("offer:vast-4090").usd_per_mtok == pytest.approx(2 * expected)
    assert page.economics.assumptions.utilization == 0.25


def test_the_card_lifetime_input_spreads_the_cards_price(page):
    r = page.economics.row("buy-used:used-3090:x1")
    tokens_h = r.tokens_per_s * 3600
    power_h = 350 * 0.85 / 1000 * page.settings.electricity_usd_per_kwh
    assert r.usd_per_mtok == pytest.approx((power_h + 700 / 10_000) / tokens_h * 1e6)
    page.constraints.lifetime_spin.setValue(2000)
    r = page.economics.row("buy-used:used-3090:x1")
    assert r.usd_per_mtok == pytest.approx((power_h + 700 / 2000) / tokens_h * 1e6)


def test_inputs_for_tokens_replace_a_jobs_budget_and_deadline(page):
    box = page.constraints
    assert box.pairs["utilization"].isVisibleTo(page) and box.pairs["lifetime"].isVisibleTo(page)
    assert not box.pairs["budget"].isVisibleTo(page)
    assert not box.pairs["deadline"].isVisibleTo(page)
    assert page.options.filter_bar.kind_boxes["api"].isVisibleTo(page)


def test_break_even_in_tokens_for_a_card_to_buy(page):
    page.constraints.lifetime_spin.setValue(100_000)
    page.state.update(micro_batch=32)
    page.flush()
    page.select("buy-used:used-3090:x1")
    owned = page.economics.row("buy-used:used-3090:x1")
    api = page.economics.row("api:cheap-8b")
    text = page.break_even_label.text()
    chart = page.break_even_chart
    assert chart.per_token
    assert chart.plot_item.getAxis("bottom").labelText == "Million tokens generated"
    # 32 sequences at a time: the 3090's power per token is well under the API's $0.17.
    margin = api.usd_per_mtok - owned.energy_usd_per_mtok
    assert margin > 0
    assert chart._jobs == pytest.approx(700 / margin)
    assert text.startswith("After ") and "tokens, used " in text and "beats DeepInfra" in text
    power = owned.energy_usd_per_mtok
    digits = max(2, 1 - math.floor(math.log10(power)))  # two significant figures
    assert text.endswith(f"$700 ÷ ($0.17 − ${power:.{digits}f}) per million.")
    assert "Owning pays off after" in chart.badge_text() and "million tokens" in chart.badge_text()
    title = page.side.break_even_title.text()
    assert "(selected)" in title and "cheapest per token" in title


def test_the_chart_reads_per_million_tokens_with_the_cheapest_api_as_a_line(page):
    chart = page.scatter
    assert chart.per_token
    assert chart.plot_item.getAxis("bottom").labelText == (
        "Time for a million generated tokens (log scale)")
    assert chart.api_price() == pytest.approx(page.economics.row("api:cheap-8b").usd_per_mtok)
    assert chart.api_line.isVisible()
    # Each option's point: the hours for a million tokens and its price per million.
    point = next(p for p in chart.points if p.id == "own")
    own = page.economics.row("own")
    assert point.hours == pytest.approx(1e6 / own.tokens_per_s / 3600)
    assert point.cost == pytest.approx(own.usd_per_mtok)
    assert not any(p.kind == "api" for p in chart.points)


def test_answer_names_the_best_per_token_and_your_rig(page):
    text = page.answer_text()
    assert text.startswith("Best (cheapest per token): DeepInfra Meta-Llama-3.1-8B-Instruct: "
                           "$0.17 per million generated tokens")
    assert "Yours: your " in text and "tokens/s, first token after" in text


def test_selecting_an_api_shows_its_prices_and_source_and_no_exports(page):
    page.select("api:dear-8b")
    assert page.selected() is None and page.selected_row().api is APIS["dear-8b"]
    details = page.details.text()
    assert "hosted API" in details and "https://example.com/b" in details
    # $0.18 + $0.18 x 1024 / 256 = $0.90 per generated token with its prompt.
    assert "$0.90 per million" in details
    assert not page.side.export_button.isEnabled()


def test_a_model_no_api_lists_is_said_on_the_page(qtbot):
    state = PlanState()
    state.set_model("qwen3-8b")
    state.update(task="infer")
    page = ComparePage(state, Settings(), offers=OFFERS, apis=APIS, today=TODAY, own=[])
    qtbot.addWidget(page)
    page.resize(1366, 768)
    page.show()
    qtbot.waitExposed(page)
    page.flush()
    try:
        assert "No API in the catalog lists Qwen3 8B." in page.answer_text()
        assert not any(r.kind == "api" for r in page.economics.rows)
    finally:
        page.shutdown()


def test_back_to_a_training_plan_the_page_reads_per_job_again(page):
    page.state.update(task="qlora")
    page.flush()
    assert not page.per_token and page.economics is None
    assert not page.scatter.per_token and not page.break_even_chart.per_token
    assert page.table.isColumnHidden(page.model.column("per_mtok"))
    assert not page.table.isColumnHidden(page.model.column("cost"))
    assert page.constraints.pairs["budget"].isVisibleTo(page)
    assert "api:cheap-8b" not in page.table_ids()


def test_goal_and_allowed_changes_rerank_the_rows_per_token(page):
    page.set_goal("fastest")
    rows = page.economics.rows
    speeds = [r.tokens_per_s for r in rows if r.counts(False) and r.tokens_per_s]
    assert speeds == sorted(speeds, reverse=True)
    assert page.table_ids()[0] == rows[0].id and rows[0].kind != "api"
    assert page.answer_text().startswith("Best (fastest): ")
    page.set_allow_changes(True)
    assert page.economics is not None and page.advice.allow_changes


def legend_texts(chart) -> list[str]:
    return [label.text for _sample, label in chart.legend.items]


def test_the_api_line_is_named_in_the_legend_and_its_label_covers_no_option(page):
    chart = page.scatter
    price = page.economics.row("api:cheap-8b").usd_per_mtok
    # the legend names the dashed line and its price, however crowded the points are
    assert f"cheapest API: {chart._money(price)}" in legend_texts(chart)
    label = chart._api_label
    if label.isVisible():
        assert label.toPlainText() == chart.api_label_text()
        box = label.mapRectToScene(label.boundingRect())
        for point in chart.points:
            assert not box.contains(chart.scene_position(point.id)), point.id
    # no scale prefix after the axis title: the axes hold log10 values
    for name in ("bottom", "left"):
        assert "(x" not in chart.plot_item.getAxis(name).labelString()


def test_the_api_label_makes_way_for_points_on_its_line(page):
    """Points at the API's price across the whole width leave its label no free place over
    or under the line at either edge: it is left out (the legend still names it), and
    comes back once the chart has room."""
    from gpuadvisor.gui.charts.compare_charts import Point

    chart = page.scatter
    price = chart.api_price()
    hours = [10 ** (k / 8) for k in range(-16, 17)]
    crowded = [Point(f"p{k}", f"option {k}", "rent", h, price)
               for k, h in enumerate(hours)]
    chart.set_data(crowded)
    page.flush()
    assert not chart._api_label.isVisible()
    assert any(text.startswith("cheapest API: ") for text in legend_texts(chart))
    # one point far from the line: the label is back, with the API's name
    chart.set_data([Point("far", "far", "rent", 1.0, price * 1000)])
    page.flush()
    assert chart._api_label.isVisible()
    assert chart._api_label.toPlainText() == chart.api_label_text()


def test_money_ticks_read_in_one_format(page):
    """Per-token amounts are written with two significant figures ("$0.034"); a round
    tick keeps two decimals under one dollar and none above: "$0.01", "$0.10", "$1"."""
    axis = page.scatter.cost_axis
    assert axis.tickStrings([-3.0, -2.0, -1.0, 0.0, 1.0, 3.0], 1.0, 1.0) == [
        "$0.001", "$0.01", "$0.10", "$1", "$10", "$1,000"]


def test_the_electricity_price_is_written_with_the_page_currency_symbol(page):
    spin = page.constraints.power_spin
    assert spin.prefix() == "$"
    assert spin.text() == f"${page.settings.electricity_usd_per_kwh:.3f}"


def test_a_narrow_search_box_says_search_without_cut_examples(page):
    # At 1280 x 720 the "hosted API" box left the search ~70 px: "Search: …".
    search = page.options.filter_bar.search
    search.resize(600, search.height())
    assert search.placeholderText() == "Search: 4090, RunPod, us-east…"
    search.resize(80, search.height())
    assert search.placeholderText() == "Search…"


def test_your_own_cards_are_priced_at_their_power_and_their_wear_is_shown_apart(page):
    """Cards you have are paid for: the row's price per million tokens is the power alone,
    and the details say so - the wear they would add (the used price over the lifetime) is
    shown beside it, not added silently or dropped after being priced."""
    own = next(r for r in page.economics.rows if r.kind == "own" and r.usd_per_mtok)
    page.select(own.id)
    details = page.details.text()
    a = page.economics.assumptions
    per_hour_tokens = own.tokens_per_s * 3600
    # power: 350 W x load x 1 GPU x $/kWh an hour, over the tokens of that hour
    power_h = 350 * a.load_fraction / 1000 * a.usd_per_kwh
    assert own.usd_per_mtok == pytest.approx(power_h / per_hour_tokens * 1e6)
    # the wear: the catalog's used 3090 ($700, eBay sold) over the cards' lifetime, added
    assert own.hardware_usd == 700.0
    assert own.wear_usd_per_mtok == pytest.approx(
        (power_h + 700.0 / a.lifetime_hours) / per_hour_tokens * 1e6)
    assert "Cards: yours already, not counted; wearing them out would add $700" in details
    said = re.search(r"\(\$([\d.]+) per million tokens with the power\)", details)
    assert said and float(said.group(1)) == pytest.approx(own.wear_usd_per_mtok, rel=0.05)
    assert "Their wear is priced as the same cards bought" in details


def test_a_servers_load_is_told_apart_from_the_plans_requests(page):
    """A llama.cpp plan of one request is priced as a server under load (as many users as
    stay at reading speed): the details say which load the price is at and that it is not
    the plan's one request."""
    page.state.update(framework="llama.cpp", quant="q4_k_m")
    page.flush()
    own = next(r for r in page.economics.rows if r.kind == "own" and r.usd_per_mtok)
    assert own.suggestion.users > 1 and own.suggestion.plan.micro_batch == 1
    page.select(own.id)
    assert (f"serving {own.suggestion.users} users at once, as many as stay at reading speed "
            "or more (a server's load, not the plan's 1 request(s))") in html.unescape(
        page.details.text())


def test_the_footer_counts_add_up_to_the_options_shown(page, qtbot):
    """Shown = fit as asked + fit only with a change + hosted APIs (+ those that do not fit
    at all): the per-token footer left the hollow marks' options out of its count. 64
    requests of 8k tokens fit a 24 GB card only with a change (an 8-bit KV cache, fewer at
    once)."""
    from gpuadvisor.gui.widgets.wrap import plain

    page.state.update(micro_batch=64, seq_len=8192)
    page.set_allow_changes(True)
    page.flush()
    rows = page.shown_rows
    hardware = [r for r in rows if r.kind != "api"]
    as_asked = sum(1 for r in hardware if r.as_asked)
    changed = sum(1 for r in hardware if not r.as_asked and r.suggestion.fits)
    apis = len(rows) - len(hardware)
    assert changed > 0 and apis > 0
    text = plain(page.options.count_label.text())
    assert text.startswith(f"{len(rows)} of ")
    assert (f"{as_asked} fit the plan as asked, {changed} more only with a change to the "
            f"plan; {apis} hosted APIs") in text
