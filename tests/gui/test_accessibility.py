"""Every input says what it changes and what it is called (issue 17): a tooltip and an
accessible name on each, found by walking the widgets; each chart is named and describes its
data in a sentence."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest

from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui.accessibility import inputs_of, undescribed
from gpuadvisor.gui.charts.live import LiveGpuChart
from gpuadvisor.gui.main_window import MainWindow
from gpuadvisor.workspace.settings import load_settings

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


@pytest.fixture
def screen_reader():
    """An assistive technology listening (the charts describe their data only then)."""
    QAccessible.setActive(True)
    yield
    QAccessible.setActive(False)


def _listened_to(make):
    """A demo window built and shown page by page while a screen reader listens."""
    window = make(simulate="mixed", detect=True, rig_options={"check_torch": False})
    for page in ("rig", "probe", "plan"):
        window.show_page(page)
        window.flush()
    return window


@pytest.fixture
def window(shared_window, screen_reader):
    """One such window for the tests that only read it (see ``shared_window``)."""

    def build(_folder):
        settings, warning = load_settings()
        window = MainWindow(interactive=False, settings=settings, settings_warning=warning,
                            simulate="mixed", detect=True,
                            rig_options={"check_torch": False})
        window.resize(1400, 900)
        window.show()
        assert QTest.qWaitForWindowExposed(window)
        return _listened_to(lambda **kwargs: window)

    return shared_window("reader", build)


def test_every_input_of_the_rig_probe_and_plan_pages_has_a_tooltip_and_a_name(window):
    # The Compare page's inputs are that page's own work (see its tests).
    roots = [window.nav, window.rig_page, window.probe_page, window.plan_page,
             window.first_run_panel]
    inputs = [w for root in roots for w in ([root] if root is window.nav else inputs_of(root))]
    assert len(inputs) >= 45  # the Plan page alone has 30
    missing = [line for root in roots[1:] for line in undescribed(root)]
    assert window.nav.toolTip() and window.nav.accessibleName()
    assert missing == []


def test_a_plan_input_is_named_by_its_label_and_its_tooltip_says_what_it_changes(window):
    page = window.plan_page
    assert page.zero_combo.accessibleName() == "ZeRO / FSDP"
    assert "optimizer states" in page.zero_combo.toolTip()
    assert page.checkpointing_combo.accessibleName() == "Checkpointing"
    assert "activation memory" in page.checkpointing_combo.toolTip()
    assert page.zero_combo.accessibleDescription() == page.zero_combo.toolTip()
    # The sequence length is a spin box and a slider: both carry its name.
    assert page.seq_input.spin.accessibleName() == "Sequence length"
    assert page.seq_input.slider.accessibleName() == "Sequence length"
    assert "Tokens per sequence" in page.seq_input.slider.toolTip()


def test_each_chart_has_a_name_and_its_data_as_a_sentence(window):
    page = window.plan_page
    estimate = window.state.estimate
    vram = page.vram_chart
    assert vram.accessibleName() == "Memory per GPU"
    total = format_bytes(estimate.memory.total, "GiB")
    description = vram.accessibleDescription()
    assert description.startswith(f"Memory per GPU: {total} in all (weights ")
    assert format_bytes(estimate.memory.weights, "GiB") in description
    assert page.fit_map.accessibleName().startswith("What fits")
    grid = page.fit_map.category_grid()
    fits = int((grid == 0).sum())
    assert f"{fits} of {grid.size} fit" in page.fit_map.accessibleDescription()
    mb = page.mb_chart.accessibleDescription()
    assert mb.startswith("Memory per GPU against micro-batch:")
    assert page.mb_chart.fit_text() in mb
    window.show_page("rig")
    window.rig_page.sample_now()
    window.rig_page.wait()
    live = window.rig_page.findChildren(LiveGpuChart)
    assert len(live) == 2  # the demo rig's two cards
    assert all(c.accessibleName() == "Live readings of the GPU" for c in live)
    assert all(c.accessibleDescription().startswith("Latest reading at") for c in live)


def test_nothing_is_described_while_no_one_listens(qtbot, make_window):
    window = make_window()
    window.plan_page.flush()
    chart = window.plan_page.vram_chart
    assert not QAccessible.isActive()
    assert chart.accessibleDescription() == ""
    assert chart.describe().startswith("Memory per GPU: ")  # there when asked for


def test_the_description_follows_the_plan(qtbot, make_window, screen_reader):
    window = _listened_to(make_window)  # its own: the test changes the plan
    page = window.plan_page
    before = page.vram_chart.accessibleDescription()
    window.state.update(micro_batch=8)
    page.flush()
    after = page.vram_chart.accessibleDescription()
    assert after != before
    assert format_bytes(window.state.estimate.memory.total, "GiB") in after


def test_the_plan_page_checks_an_offload_plan_against_this_machines_ram(qtbot, make_window):
    window = make_window()
    page = window.plan_page
    page.host_ram_reader = lambda: (64 * 2**30, 8 * 2**30)  # 64 GiB installed, 8 free
    assert page.host_ram_text() == ""  # nothing offloaded: nothing to check
    window.state.set_model("llama-3.1-70b")
    window.state.update(task="full", zero_stage=3, offload="params", n_gpus=8)
    page.flush()
    needed = window.state.estimate.memory.cpu_bytes
    assert needed > 8 * 2**30
    text = page.host_ram_text()
    assert format_bytes(needed, "GiB") in text
    if needed <= 64 * 2**30:
        assert "but only 8.0 GiB of 64.0 GiB is available" in text
    else:
        assert "more than this machine's 64.0 GiB" in text
    assert page.host_ram_label.property("verdict") == "short"
    page.host_ram_reader = lambda: (4096 * 2**30, 4000 * 2**30)
    window.state.update(grad_accum=2)
    page.flush()
    assert page.host_ram_text().endswith("it fits.")
    assert page.host_ram_label.property("verdict") == "fits"
    # a projector says it only when the RAM falls short (the line took the charts' room)
    page.set_presentation(True)
    page.flush()
    assert page.host_ram_text() == ""
    page.host_ram_reader = lambda: (64 * 2**30, 8 * 2**30)
    window.state.update(grad_accum=3)
    page.flush()
    assert page.host_ram_label.property("verdict") == "short" and page.host_ram_text()
    page.set_presentation(False)


def test_every_input_of_the_compare_page_has_a_tooltip_and_a_name(window):
    window.show_page("compare")
    window.flush()
    inputs = inputs_of(window.compare_page)
    assert len(inputs) >= 15  # plan button, fold, goal, currency, kinds, filters, table, export
    assert undescribed(window.compare_page) == []
    table = window.compare_page.table
    assert table.accessibleName() == "Options" and "click a row" in table.toolTip()
