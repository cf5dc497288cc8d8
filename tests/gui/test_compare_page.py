"""The Compare page: every option for the plan in a table and a time-cost chart, ranked for
the user's goal within budget and deadline, in their currency, with break-even and exports.

The page shows what :func:`gpuadvisor.core.advisor.advise` computes (its money and ranking
are checked by hand in tests/test_advisor.py); these tests check that the page shows it
faithfully: rows in the advisor's order, money at the user's exchange rate, filters, sorting,
selection kept in step between chart and table, break-even from the selected option, and
exports that parse back.
"""

from __future__ import annotations

from datetime import date

import pytest
import yaml
from PySide6.QtCore import Qt

from gpuadvisor import catalog
from gpuadvisor.core.advisor import advise, pareto
from gpuadvisor.core.offers import Offer
from gpuadvisor.gui.pages.compare import ComparePage
from gpuadvisor.workspace.settings import Settings, format_money
from gpuadvisor.workspace.state import PlanState

TODAY = date(2026, 12, 2)
GPUS = catalog.load_gpus()
OFFERS = {o.id: o for o in (
    Offer("used-3090", "buy-used", "rtx-3090", "eBay sold", 700.0, "2026-11-01", "t"),
    Offer("new-4090", "buy-new", "rtx-4090", "Newegg", 1800.0, "2026-11-15", "t"),
    Offer("rp-h100", "rent", "h100-sxm", "RunPod", 2.69, "2026-11-20", "t",
          region="global"),
    # 2026-05-01 to 2026-12-02: 215 days, past the 90-day mark.
    Offer("vast-4090", "rent", "rtx-4090", "Vast.ai", 0.35, "2026-05-01", "t", spot=True),
    Offer("aws-p4de", "cloud", "a100-sxm-80gb", "AWS", 5.12, "2026-06-01", "t",
          gpus_per_instance=8, region="us-east-1", interconnect="sxm"),
    Offer("my-lab-a100", "rent", "a100-sxm-80gb", "My lab", 1.0, "2026-11-30", "mine",
          user=True),
)}
OWN = [GPUS["rtx-3060-12gb"]]


@pytest.fixture
def make_page(qtbot):
    pages = []

    def make(state=None, settings=None, offers=OFFERS, own=OWN):
        state = state if state is not None else PlanState()
        page = ComparePage(state, settings or Settings(), offers=offers, today=TODAY, own=own)
        qtbot.addWidget(page)
        page.resize(1300, 850)
        page.show()
        qtbot.waitExposed(page)
        page.flush()
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.shutdown()


def expected_advice(state, **kwargs):
    kwargs.setdefault("usd_per_kwh", Settings().electricity_usd_per_kwh)
    return advise(state.model, state.plan, state.gpus, OFFERS.values(), own=OWN, today=TODAY,
                  assumptions=state.assumptions, **kwargs)


def by_id(page):
    return {s.option.id: s for s in page.advice.suggestions}


def test_every_option_is_a_row_in_the_advisors_order(make_page):
    page = make_page()
    # As the page asks: options that fit only with a lever rank apart unless allowed.
    expected = expected_advice(page.state, allow_changes=page.allow_changes)
    # Own rig 1 + two cards to buy at 1, 2 and 4 + four rentals = 11 options.
    assert len(expected.suggestions) == 11
    assert page.table_ids() == [s.option.id for s in expected.suggestions]
    # In English the page names each option as the advisor does.
    # The table cell leaves the maker's words out ("NVIDIA GeForce RTX 3060 12GB" is "RTX
    # 3060 12GB"); the full name is the first line of the cell's tooltip.
    def short(label):
        for word in ("NVIDIA ", "GeForce ", "AMD ", "Radeon ", "Intel "):
            label = label.replace(word, "")
        return label

    assert [page.table_text(row, "option") for row in range(11)] == [
        short(s.option.label) for s in expected.suggestions]
    model = page.table.model()
    tip = model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole)
    assert tip.splitlines()[0] == expected.suggestions[0].option.label
    first = expected.suggestions[0]
    assert page.table_text(0, "cost") == format_money(first.cost_usd)
    assert page.answer_text().startswith(f"Best (cheapest): {page.why(expected.best)}")


def test_money_is_shown_in_the_users_currency_at_their_rate(make_page):
    settings = Settings(currency="CNY", exchange_rates={"CNY": 7.0, "EUR": 0.9})
    page = make_page(settings=settings)
    rows = by_id(page)
    for row, option_id in enumerate(page.table_ids()):
        s = rows[option_id]
        if s.fits:
            assert page.table_text(row, "cost") == format_money(s.cost_usd * 7.0, "CNY")
    # A budget typed in yuan is compared in dollars: 70 CNY at 7 per USD is 10 USD.
    page.set_budget(70.0)
    page.flush()
    assert page.budget_usd == pytest.approx(10.0)
    assert page.advice.budget_usd == pytest.approx(10.0)
    assert all(s.within_budget == (s.cost_usd <= 10.0) for s in page.advice.suggestions)
    # The rental price column is per GPU-hour in yuan: RunPod's $2.69 is ¥18.83.
    row = page.table_ids().index("offer:rp-h100")
    assert page.table_text(row, "price") == "¥18.83/GPU-h"
    # The electricity price is typed in yuan too and stored in dollars: 1.4 / 7 = 0.2.
    page.power_spin.setValue(1.4)
    page.flush()
    assert settings.electricity_usd_per_kwh == pytest.approx(0.2)
    own = by_id(page)["own"]
    gpu = GPUS["rtx-3060-12gb"]
    # Power: TDP x 0.85 load x GPUs x hours / 1000 x price per kWh.
    assert own.energy_usd == pytest.approx(gpu.tdp_w * 0.85 * 1 * own.hours / 1000 * 0.2)


def test_a_deadline_makes_the_fastest_acceptable_option_cheapest(make_page):
    page = make_page()
    suggestions = page.advice.suggestions
    fitting = sorted((s for s in suggestions if s.fits), key=lambda s: s.hours)
    # A deadline between the fastest and the second fastest option leaves only the fastest.
    deadline = (fitting[0].hours + fitting[1].hours) / 2
    page.set_deadline(deadline)
    page.flush()
    best = page.advice.best
    assert best.option.id == fitting[0].option.id
    assert page.answer_text().startswith(f"Best (cheapest): {page.why(best)}")
    # An impossible deadline: nothing meets it, the closest is named (the field holds
    # tenths of an hour: 0.1 h is the shortest deadline it takes).
    assert fitting[0].hours > 0.1
    page.set_deadline(0.1)
    page.flush()
    assert page.advice.best is None
    assert page.answer_text().startswith("Nothing shown meets the deadline of ")


def test_filters_narrow_the_table_and_the_chart(make_page):
    page = make_page()
    offers = {s.option.id: s.option.offer for s in page.advice.suggestions}

    page.set_filters(spot="spot")
    assert page.table_ids() == ["offer:vast-4090"]
    page.set_filters(spot="any", min_vram_gb=80)
    assert set(page.table_ids()) == {"offer:rp-h100", "offer:aws-p4de", "offer:my-lab-a100"}
    page.set_filters(min_vram_gb=0, kinds=frozenset({"buy-new", "buy-used"}))
    assert sorted(page.table_ids()) == sorted(
        f"{kind}:{offer}:x{n}" for kind, offer in (("buy-used", "used-3090"),
                                                   ("buy-new", "new-4090"))
        for n in (1, 2, 4))
    page.set_filters(kinds=frozenset({"own", "buy-new", "buy-used", "rent", "cloud"}),
                     provider="AWS")
    assert page.table_ids() == ["offer:aws-p4de"]
    page.set_filters(provider="", text="4090")
    assert all("4090" in (offers[i].gpu_id if offers[i] else "") for i in page.table_ids())
    assert len(page.table_ids()) == 4  # three counts of the new card, one rental
    # The chart shows the fitting options the filters let through.
    assert {p.id for p in page.scatter.points} == {
        s.option.id for s in page.shown if s.fits}
    page.set_filters(text="")
    assert len(page.table_ids()) == 11


def test_sorting_by_cost_puts_the_options_that_do_not_fit_last(qtbot, make_page):
    page = make_page()
    header = page.table.horizontalHeader()
    column = page.model.column("cost")
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=header.rect().topLeft() + _section_center(header, column))
    rows = by_id(page)
    ordered = [rows[i] for i in page.table_ids()]
    keys = [(not s.fits, s.cost_usd if s.fits else 0.0) for s in ordered]
    assert keys == sorted(keys)


def _section_center(header, column):
    from PySide6.QtCore import QPoint

    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    return QPoint(x, header.height() // 2)


def test_old_prices_are_marked_and_the_users_own_say_so(make_page):
    page = make_page()
    ids = page.table_ids()
    # The age alone in the cell (an elided date once read "2026-05-…5 days ago"), the day
    # in the tooltip.
    assert page.table_text(ids.index("offer:vast-4090"), "price_date") == "⚠ 215 days ago"
    assert page.table_text(ids.index("offer:rp-h100"), "price_date") == "12 days ago"
    model = page.table.model()
    column = next(c for c in range(model.columnCount())
                  if model.headerData(c, Qt.Orientation.Horizontal) == "Price seen")
    tip = model.data(model.index(ids.index("offer:vast-4090"), column),
                     Qt.ItemDataRole.ToolTipRole)
    assert tip == "Price seen on 2026-05-01"
    assert page.table_text(ids.index("offer:my-lab-a100"), "price_date") == (
        "2026-11-30 (your price)")
    page.select("offer:vast-4090")
    assert "older than 90 days" in page.details.text()


def test_the_chart_and_the_table_select_together(qtbot, make_page):
    page = make_page()
    shown_fitting = [s for s in page.shown if s.fits]
    assert sorted(page.scatter.front) == sorted(pareto(page.shown, page.allow_changes))
    assert len(page.scatter.points) == len(shown_fitting)
    # Click a point: the table follows.
    target = next(s for s in shown_fitting if s.option.id != page.selected_id)
    clicked = page.scatter.click_at(page.scatter.scene_position(target.option.id))
    assert clicked == target.option.id == page.selected_id
    current = page.table.currentIndex()
    assert page.table_ids()[current.row()] == target.option.id
    # Hover names the option, its time and money.
    text = page.scatter.hover_at(page.scatter.scene_position(target.option.id))
    assert target.option.label in text and format_money(target.cost_usd) in text
    # Pick a row: the chart rings it.
    row = page.table_ids().index("offer:rp-h100")
    page.table.setCurrentIndex(page.proxy.index(row, 0))
    assert page.selected_id == "offer:rp-h100" == page.scatter.selected
    assert page.export_buttons["skypilot"].isEnabled()
    page.select("buy-used:used-3090:x1")
    assert not page.export_buttons["skypilot"].isEnabled()  # nothing to rent


def test_break_even_of_the_selected_card_against_the_cheapest_rental(make_page):
    page = make_page()
    rows = by_id(page)
    owned = rows["buy-used:used-3090:x1"]
    assert owned.fits
    rented = min((s for s in page.shown if s.fits and s.option.kind in ("rent", "cloud")),
                 key=lambda s: s.cost_usd)
    page.select(owned.option.id)
    margin = rented.rent_usd - owned.energy_usd
    if margin <= 0:
        assert "never pays off" in page.break_even_label.text()
        return
    jobs = 700.0 / margin  # hardware / (rent per job - power per job)
    shown = f"{jobs:,.0f}" if jobs >= 10 else f"{jobs:.1f}"
    assert f"after {shown} such jobs" in page.break_even_label.text()
    assert (f"{format_money(700.0)} ÷ ({format_money(rented.rent_usd)} − "
            f"{format_money(owned.energy_usd)})") in page.break_even_label.text()
    assert page.break_even_chart.crossing_line.value() == pytest.approx(jobs)
    _jobs, own, rent = page.break_even_chart.curves()
    assert own[0] == pytest.approx(700.0) and rent[0] == 0.0


def test_exports_write_files_that_parse_back(make_page, tmp_path):
    page = make_page()
    page.select("offer:rp-h100")
    s = page.selected()
    assert page.export("skypilot", tmp_path / "task.yaml")
    task = yaml.safe_load((tmp_path / "task.yaml").read_text())
    # RunPod's SkyPilot name for the H100 SXM (its "H100" is the PCIe card) and the GPUs the
    # job runs on.
    assert task["resources"]["accelerators"] == f"H100-SXM:{s.n_gpus}"
    assert page.export("accelerate", tmp_path / "accelerate.yaml")
    config = yaml.safe_load((tmp_path / "accelerate.yaml").read_text())
    assert config["num_processes"] == s.plan.n_gpus
    assert page.export("report", tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 2  # the scatter and the break-even
    assert s.option.label in html
    assert page.export("report", tmp_path / "report.md")
    assert "data:image" not in (tmp_path / "report.md").read_text()


def test_an_eight_gpu_option_exports_the_layout_it_was_priced_at(make_page, tmp_path):
    """The AWS 8x A100 option of a full fine-tune of Llama 3.1 8B: the DeepSpeed config the
    page writes is the estimate's layout on those 8 GPUs (ZeRO stage, micro-batch,
    accumulation, global batch), as ``export deepspeed`` writes it, and the SkyPilot task
    asks for the instance's 8 GPUs."""
    import json

    from gpuadvisor.core.advisor import estimate_of
    from gpuadvisor.core.resolve import model_parallel

    state = PlanState()
    # packed into full 2,048-token sequences: data parallel with ZeRO is the fastest layout
    state.update(task="full", checkpointing="full", seq_len=2048, packing=True)
    page = make_page(state=state)
    page.select("offer:aws-p4de")
    s = page.selected()
    assert s.fits and s.n_gpus == 8
    result = estimate_of(state.model, s, state.assumptions)
    assert page.export("deepspeed", tmp_path / "ds.json")
    ds = json.loads((tmp_path / "ds.json").read_text())
    assert not model_parallel(result)  # data parallel with ZeRO: DeepSpeed runs it as is
    layout = result.layout.chosen.layout
    assert ds["zero_optimization"]["stage"] == layout.zero
    assert ds["train_micro_batch_size_per_gpu"] == layout.micro_batch
    assert ds["gradient_accumulation_steps"] == layout.grad_accum
    assert ds["train_batch_size"] == result.layout.global_batch
    assert page.export("skypilot", tmp_path / "task.yaml")
    task = yaml.safe_load((tmp_path / "task.yaml").read_text())
    assert task["resources"]["accelerators"].endswith(":8")


def test_the_megatron_launch_runs_the_layout_the_option_was_priced_at(make_page, tmp_path):
    """The AWS 8x A100 option of a full fine-tune of Llama 3.1 8B at 4,096 tokens: the
    Megatron-LM script the page writes carries the estimate's own layout, degree by degree,
    and an inference plan is refused with the reason."""
    import re

    from gpuadvisor.core.advisor import estimate_of

    state = PlanState()
    state.update(task="full", checkpointing="full", seq_len=4096)
    page = make_page(state=state)
    page.select("offer:aws-p4de")
    s = page.selected()
    lay = estimate_of(state.model, s, state.assumptions).layout.chosen.layout
    assert page.export("megatron", tmp_path / "megatron.sh")
    text = (tmp_path / "megatron.sh").read_text()
    for flag, value in (("--tensor-model-parallel-size", lay.tp),
                        ("--pipeline-model-parallel-size", lay.pp),
                        ("--micro-batch-size", lay.micro_batch),
                        ("--global-batch-size", lay.global_batch),
                        ("--seq-length", 4096)):
        assert re.search(rf"{flag} {value}\b", text), (flag, value)
    assert "--nproc-per-node 8" in text
    state.update(task="infer")
    page = make_page(state=state)
    page.select(next(x.option.id for x in page.advice.suggestions if x.fits))
    assert not page.export("megatron", tmp_path / "infer.sh")
    assert "Megatron-LM launch trains" in page.last_error


def test_an_export_that_cannot_be_made_writes_nothing_and_says_why(make_page, tmp_path):
    state = PlanState()
    state.update(task="infer")
    page = make_page(state=state)
    page.select(next(s.option.id for s in page.advice.suggestions if s.fits))
    assert not page.export("deepspeed", tmp_path / "ds.json")
    assert "DeepSpeed config is for training" in page.last_error
    assert not (tmp_path / "ds.json").exists()
    missing = tmp_path / "no-such-folder" / "task.yaml"
    assert not page.export("launch", missing)
    assert str(missing) in page.last_error and not missing.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no temporary file left


def test_a_plan_that_fits_nowhere_says_so_and_names_the_closest(make_page):
    state = PlanState()
    state.set_model("llama-3.1-405b")
    state.update(task="full", precision="fp32", checkpointing="none", seq_len=8192)
    small = {k: o for k, o in OFFERS.items() if o.gpu_id in ("rtx-3090", "rtx-4090")}
    page = make_page(state=state, offers=small)
    assert not any(s.fits for s in page.advice.suggestions)
    assert page.answer_text().startswith("Nothing fits this plan. The closest is ")
    assert page.answer.property("state") == "none"
    assert page.scatter.points == []
    assert page.selected() is None and not page.export_buttons["report"].isEnabled()


def test_an_unreadable_offers_catalog_leaves_the_own_rig_to_compare(make_page, monkeypatch):
    def broken(**_kwargs):
        raise catalog.CatalogError(["offers.toml: line 3: price_usd must be positive"])

    monkeypatch.setattr(catalog, "load_offers", broken)
    page = make_page(offers=None)
    assert "price_usd must be positive" in page.catalog_problem
    assert page.table_ids() == ["own"]
    assert page.answer_text().startswith("The offers catalog could not be read")


def test_only_the_newest_answer_is_shown(make_page):
    page = make_page()
    old = page.refresh()
    page.set_goal("fastest")
    new = page.refresh()
    assert new == old + 1
    page.flush()
    assert page.advice.goal == "fastest"
    shown = page.advice
    page._on_done(old, "advice", expected_advice(page.state, goal="cheapest"), None)
    assert page.advice is shown  # the stale answer was dropped
    with pytest.raises(ValueError, match="goal"):
        page.set_goal("prettiest")


def test_goal_budget_and_deadline_reorder_without_estimating_again(make_page):
    page = make_page()
    generation = page._generation
    page.set_goal("fastest")
    # Ranked at once from the same estimates: fitting options by hours, no new request.
    assert page._generation == generation and page.advice.goal == "fastest"
    fitting = [s for s in page.advice.suggestions if s.fits]
    assert [s.hours for s in fitting] == sorted(s.hours for s in fitting)
    page.set_budget(5.0)
    assert page._generation == generation and page.advice.budget_usd == 5.0
    assert all(s.within_budget == (s.cost_usd <= 5.0) for s in page.advice.suggestions)


def test_every_sum_on_the_page_shows_how_it_was_made(make_page):
    settings = Settings(currency="EUR", exchange_rates={"CNY": 7.1, "EUR": 0.5},
                        electricity_usd_per_kwh=0.2)
    state = PlanState()
    # 512 tokens: the QLoRA fits the own 12 GB card with Hugging Face + PEFT (~932 at most).
    assert state.update(seq_len=512)
    page = make_page(state=state, settings=settings)
    rows = by_id(page)
    own = rows["own"]
    assert own.fits
    page.select("own")
    text = page.details.text()
    # Power: TDP x 0.85 x GPUs x hours / 1000 kWh, at $0.20 = €0.10 per kWh.
    gpu = GPUS["rtx-3060-12gb"]
    kwh = gpu.tdp_w * 0.85 * own.hours / 1000
    assert f"{gpu.tdp_w:,.0f} W × 85% load × 1 GPU(s) × {own.hours:,.1f} h = {kwh:,.1f} kWh" in text
    assert f"× €0.100/kWh = {format_money(own.energy_usd * 0.5, 'EUR')}" in text
    assert "of peak, assumed" in text  # nothing measured: the efficiency is the default
    rent = rows["offer:rp-h100"]
    page.select("offer:rp-h100")
    text = page.details.text()
    # Rent: hours x instances x the instance price ($2.69 an hour, €1.345 at 0.5 per USD).
    hourly = format_money(2.69 * 0.5, "EUR", 2)
    assert (f"Rent: {rent.hours:,.1f} h × 1 instance(s) × {hourly}/h = "
            f"{format_money(rent.rent_usd * 0.5, 'EUR')}") in text
    # The table's tooltips speak the display currency too.
    row = page.table_ids().index("offer:rp-h100")
    tip = page.proxy.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert format_money(rent.rent_usd * 0.5, "EUR") in tip and "$" not in tip


def test_the_sentences_shared_with_the_terminal_are_marked_for_translation():
    from gpuadvisor import explain
    from gpuadvisor.gui.pages import compare_page
    from gpuadvisor.gui.pages.compare.format import EXPLAIN_TEMPLATES

    # lupdate reads the GUI's copy; the page translates explain's own templates with it.
    assert sorted(EXPLAIN_TEMPLATES) == sorted(explain.TEMPLATES)
    assert compare_page.ComparePage is ComparePage  # the old import path still works


def test_utilization_and_lifetime_start_from_the_settings_and_are_kept(make_page):
    settings = Settings(rental_utilization=0.8, card_lifetime_hours=20_000)
    page = make_page(settings=settings)
    box = page.constraints
    assert box.utilization_spin.value() == 80
    assert box.lifetime_spin.value() == 20_000
    box.utilization_spin.setValue(25)
    box.lifetime_spin.setValue(5_000)
    assert settings.rental_utilization == pytest.approx(0.25)
    assert settings.card_lifetime_hours == 5_000.0


@pytest.mark.parametrize("size", [(1000, 420), (1000, 640), (1400, 800)],
                         ids=["short", "tall", "taller"])
def test_the_money_axis_labels_a_decade_at_or_below_the_cheapest_option(qtbot, size):
    # At 1920 x 1080 the margin under the cheapest option ($0.16) ended above $0.10: the
    # lowest label was "$1", over the best option.
    import math

    from gpuadvisor.gui.charts.compare_charts import CostTimeChart, Point

    chart = CostTimeChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    points = [Point("own", "your RTX 3090", "own", 3.59, 0.16),
              Point("rent", "Vast.ai RTX 3090", "rent", 3.59, 0.46),
              Point("cloud", "8x B200", "cloud", 0.04, 1.38),
              Point("new", "new RTX 5090", "buy-new", 1.5, 2400.0),
              Point("h100", "8x H100", "buy-new", 0.3, 41000.0)]
    chart.set_data(points, ["cloud", "own"], selected="own")
    qtbot.wait(20)
    chart._frame()
    (y0, y1), = [chart.plot_item.vb.viewRange()[1]]
    cheapest = math.log10(0.16)
    # Every option is still inside the frame.
    assert y0 < cheapest and math.log10(41000.0) < y1
    # The labels the axis draws (pyqtgraph leaves out one that would stick out of it).
    from PySide6.QtGui import QImage, QPainter

    axis = chart.cost_axis
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _line, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    drawn = [text for _rect, _flags, text in texts]
    assert "$0.10" in drawn, drawn
    # ... under the cheapest option's point.
    label_y = next(rect.center().y() for rect, _flags, text in texts if text == "$0.10")
    point_y = axis.mapFromScene(chart.scene_position("own")).y()
    assert label_y >= point_y - 1


def test_a_narrow_region_cell_drops_its_note_in_brackets_not_a_word(qtbot):
    # "global (community hosts)" was cut to "global (community ho…"; the note in brackets
    # goes first, the whole text stays in the tooltip.
    from PySide6.QtCore import QModelIndex, QRect
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QStyleOptionViewItem, QTableWidget, QTableWidgetItem

    from gpuadvisor.gui.pages.compare.table import _ElideRight

    table = QTableWidget(1, 1)
    qtbot.addWidget(table)
    table.setItem(0, 0, QTableWidgetItem("global (community hosts)"))
    delegate = _ElideRight(table)
    index = table.model().index(0, 0, QModelIndex())
    option = QStyleOptionViewItem()
    option.fontMetrics = QFontMetrics(table.font())
    whole = option.fontMetrics.horizontalAdvance("global (community hosts)")
    option.rect = QRect(0, 0, whole + 20, 20)
    delegate.initStyleOption(option, index)
    assert option.text == "global (community hosts)"
    option = QStyleOptionViewItem()
    option.fontMetrics = QFontMetrics(table.font())
    option.rect = QRect(0, 0, whole // 2, 20)
    delegate.initStyleOption(option, index)
    assert option.text == "global"
