"""The Compare page answers the question asked: the plan as the user set it, on the rig as
it is now.

- a full fine-tune stays a full fine-tune: options that fit only as LoRA/QLoRA are marked,
  ranked apart and never named best unless "Allow changes to the plan" is ticked, and the
  count under the table counts the plan as asked;
- a card that fell off the bus (demo rig ``gpu-lost``) leaves the rig compared, and the page
  says so;
- a mixed rig (RTX 3090 + RTX 3060 12GB) is each set of its cards, and a job that one card
  can run goes to the 3090;
- the break-even weighs the selected option.
"""

from __future__ import annotations

from datetime import date

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.offers import Offer
from gpuadvisor.gui.main_window import MainWindow
from gpuadvisor.gui.pages.compare import ComparePage
from gpuadvisor.hardware import SimulatedBackend
from gpuadvisor.workspace.settings import Settings
from gpuadvisor.workspace.state import PlanState

TODAY = date(2026, 12, 2)
GPUS = catalog.load_gpus()
OFFERS = {o.id: o for o in (
    Offer("used-3090", "buy-used", "rtx-3090", "eBay sold", 700.0, "2026-11-01", "t"),
    Offer("new-4090", "buy-new", "rtx-4090", "Newegg", 1800.0, "2026-11-15", "t"),
    Offer("rp-h100", "rent", "h100-sxm", "RunPod", 2.69, "2026-11-20", "t"),
    Offer("vast-4090", "rent", "rtx-4090", "Vast.ai", 0.35, "2026-11-01", "t"),
    Offer("aws-p4de", "cloud", "a100-sxm-80gb", "AWS", 5.12, "2026-11-01", "t",
          gpus_per_instance=8, interconnect="sxm"),
)}


@pytest.fixture
def make_page(qtbot):
    pages = []

    def make(state=None, own=(), offers=OFFERS):
        state = state if state is not None else PlanState()
        page = ComparePage(state, Settings(), offers=offers, today=TODAY,
                           own=list(own) if own is not None else None)
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


def full_fine_tune() -> PlanState:
    state = PlanState()
    state.update(task="full", precision="bf16", checkpointing="full")
    assert state.plan.task == "full"
    return state


def test_a_full_fine_tune_stays_full(make_page):
    page = make_page(state=full_fine_tune())
    advice = page.advice
    assert not page.allow_changes
    # Llama 3.1 8B in full bf16 with AdamW (~16 bytes per parameter) fits no single 24 GB
    # card; the 3090 and the 4090 run it only as LoRA or QLoRA.
    changed = {s.option.id for s in advice.suggestions if s.fits and s.levers}
    asked = [s for s in advice.suggestions if s.as_asked]
    assert "buy-used:used-3090:x1" in changed and asked
    # Named best: an option that runs the plan as it is, a full fine-tune.
    assert advice.best.as_asked and advice.best.plan.task == "full"
    assert page.answer_text().startswith(f"Best (cheapest): {page.why(advice.best)}")
    assert "LoRA" not in page.answer_text().split(".")[0]
    # Those that need a change come after every option that fits as asked, marked with it.
    ids = page.table_ids()
    assert max(ids.index(s.option.id) for s in asked) < min(ids.index(i) for i in changed)
    row = ids.index("buy-used:used-3090:x1")
    assert page.table_text(row, "fits").startswith("with ")
    # "N of M fit" counts the plan as asked; the others are counted apart.
    count = page.options.count_label.text()
    assert f"; {len(asked)} fit the plan as asked, {len(changed)} more only with a change" \
        in count
    # Drawn hollow, and off the Pareto front.
    hollow = {p.id for p in page.scatter.points if p.changed}
    assert hollow == changed
    assert not set(page.scatter.front) & changed

    # With changes allowed, the cheaper LoRA/QLoRA runs rank with the others.
    page.set_allow_changes(True)
    assert page.advice.allow_changes and page.advice.best.levers
    assert not any(p.changed for p in page.scatter.points)


def test_when_only_a_change_fits_the_page_says_so(make_page):
    small = {k: o for k, o in OFFERS.items() if o.gpu_id in ("rtx-3090", "rtx-4090")}
    state = full_fine_tune()
    page = make_page(state=state, offers=small)
    page.constraints.cards_spin.setValue(1)
    page.flush()
    assert page.advice.best is None
    assert page.answer_text().startswith("Nothing shown runs this plan as it is. With a "
                                         "change to the plan: ")
    assert page.answer.property("state") == "none"


def test_a_lost_card_leaves_the_shared_rig_and_the_compare_page_says_so(qtbot, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    window = MainWindow(settings=Settings(), persist=False, interactive=False,
                        simulate="gpu-lost", compare_options={"offers": OFFERS, "today": TODAY})
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    rig, state = window.rig_page, window.state
    with qtbot.waitSignal(rig.detection_finished, timeout=10000):
        window.show_page("rig")
    assert len(state.detected_gpus) == 2 and state.lost_gpus == ()
    # The second RTX 3090 falls off the bus at the next reading.
    rig.sample_now()
    assert len(state.detected_gpus) == 1
    assert [g.index for g in state.lost_gpus] == [1]
    window.show_page("compare")
    page = window.compare_page
    page.flush()
    own = [s for s in page.advice.suggestions if s.option.kind == "own"]
    assert [(s.option.id, s.n_gpus) for s in own] == [("own", 1)]
    assert own[0].option.label == f"your {GPUS['rtx-3090'].name}"
    assert page.rig_note.isVisibleTo(page)
    assert "Lost from the rig: GPU 1" in page.rig_note.text()
    # The Plan page says so too.
    window.show_page("plan")
    window.flush()
    assert "GPU 1" in window.plan_page.banner.text()
    window.close()


def test_a_mixed_rig_is_each_set_of_its_cards_and_one_gpu_goes_to_the_3090(make_page):
    backend = SimulatedBackend("mixed")
    state = PlanState()
    state.set_detected(backend.devices())
    backend.close()
    page = make_page(state=state, own=None, offers={})
    own = {s.option.id: s for s in page.advice.suggestions}
    assert set(own) == {"own", "own:1xrtx-3090", "own:1xrtx-3060-12gb"}
    both = own["own"]
    assert both.option.label == (f"your {GPUS['rtx-3090'].name} + "
                                 f"{GPUS['rtx-3060-12gb'].name}")
    # The plan (QLoRA of Llama 3.1 8B, one GPU's worth) runs fastest and cheapest on the 3090.
    assert page.advice.best.option.id == "own:1xrtx-3090"
    assert own["own:1xrtx-3090"].hours < own["own:1xrtx-3060-12gb"].hours
    assert own["own:1xrtx-3090"].hours < both.hours
    page.set_goal("fastest")
    assert page.advice.best.option.id == "own:1xrtx-3090"
    # The Plan page targets the 3090 too.
    assert state.detected_gpu.catalog_id == "rtx-3090"


def test_the_break_even_follows_the_selection(make_page):
    page = make_page()
    rows = {s.option.id: s for s in page.advice.suggestions}
    title = page.side.break_even_title

    page.select("buy-used:used-3090:x1")
    assert rows["buy-used:used-3090:x1"].as_asked
    assert title.text().startswith("Buying used ")
    assert "used NVIDIA GeForce RTX 3090 (selected)" in title.text()
    cheapest = min((s for s in page.shown if s.as_asked and s.option.kind in ("rent", "cloud")),
                   key=lambda s: s.cost_usd)
    assert page.break_even_chart._rent_label.startswith(cheapest.option.label.split(" (")[0])

    page.select("offer:rp-h100")
    assert title.text().startswith("Renting RunPod")
    assert "(selected)" in title.text()
    assert page.break_even_chart._rent_label.startswith("RunPod")
    assert "RunPod" in page.break_even_label.text()

    page.select("buy-new:new-4090:x1")
    assert "new NVIDIA GeForce RTX 4090 (selected)" in title.text()
    assert page.break_even_chart._own_label.startswith("new NVIDIA GeForce RTX 4090")
