"""What the every-page, every-size screenshot sweep found, pinned: on a laptop's 1280 x 720 and
on a projector nothing a reader needs is cut, crushed or drawn over another.

Assertions are on geometry and settings (item rectangles, column widths, palette colours),
never on pixels.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontMetrics, QPalette
from PySide6.QtWidgets import QApplication

from gpuadvisor.gui.main_window import MainWindow
from gpuadvisor.workspace.settings import Settings

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch):
    """A window shown at a size, like ``gui --screenshot --size WxH [--presentation]``."""
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    windows = []

    def make(width: int, height: int, presentation: bool, page: str = "plan"):
        window = MainWindow(settings=Settings(), persist=False, interactive=False,
                            defer_charts=False, simulate="2x rtx-3090", detect=True)
        qtbot.addWidget(window)
        windows.append(window)
        if presentation:
            window.set_presentation(True, full_screen=False)
        window.show_page(page)
        window.resize(width, height)
        window.show()
        qtbot.waitExposed(window)
        window.flush()
        qtbot.wait(20)
        return window

    yield make
    for window in windows:
        window.close()
        assert [t for t in window.findChildren(QTimer) if t.isActive()] == []


def test_axis_titles_stay_inside_their_charts_on_a_projector(make_window):
    # The micro-batch chart's "memory (GiB)" kept the place of a shorter title and ran off
    # the chart's top ("memory (GiE").
    window = make_window(1920, 1080, True)
    for chart in window.plan_page.charts:
        if not chart.isVisible():
            continue
        scene = chart.plot_item.scene().sceneRect()
        for name in ("left", "bottom"):
            label = chart.plot_item.getAxis(name).label
            if not label.isVisible() or not label.toPlainText():
                continue
            rect = label.sceneBoundingRect()
            assert rect.top() >= scene.top() - 1 and rect.bottom() <= scene.bottom() + 1, (
                chart.objectName(), name, label.toPlainText())


@pytest.mark.parametrize("language_size", [(1280, 720), (1366, 768)], ids=["1280", "1366"])
def test_the_cards_label_is_not_drawn_over_the_bars_total(make_window, language_size):
    # At 1280 x 720 on a projector "RTX 3090 23.6 GiB" ran over "15.0 GiB".
    window = make_window(*language_size, True)
    chart = window.plan_page.vram_chart
    label = chart.capacity_label
    assert label.isVisible()
    x1 = chart.plot_item.vb.viewRange()[0][1]
    inset = 6 * chart.plot_item.vb.viewPixelSize()[0]
    card = chart._edge_label_rect(label, x1 - inset)
    for total in chart._edge_keep_outs():
        assert not card.intersects(total), (card, total)


def test_the_fit_map_draws_no_ticks_into_its_cells(make_window):
    # The left axis's inward tick read as a minus sign before the first column ("-47.8").
    window = make_window(1366, 768, False)
    chart = next(c for c in window.plan_page.charts if c.objectName() == "fitMapChart")
    for name in ("left", "bottom"):
        assert chart.plot_item.getAxis(name).style["tickLength"] <= 0, name


def test_on_a_projector_the_options_table_keeps_the_option_names_readable(make_window, qtbot):
    # Fitted once on the wide desktop, the columns kept their widths when the table came
    # back as a projector's tab at 1280 x 720: the names shrank to "V…0".
    window = make_window(1920, 1080, False, page="compare")
    window.set_presentation(True, full_screen=False)
    window.resize(1280, 720)
    window.flush()
    page = window.compare_page
    page.chart_tabs.setCurrentWidget(page.options)
    qtbot.wait(20)
    table, model = page.options.table, page.options.model
    option = table.columnWidth(model.column("option"))
    assert option >= 20 * table.fontMetrics().averageCharWidth()
    shown = sum(table.columnWidth(c) for c in range(model.columnCount())
                if not table.isColumnHidden(c))
    assert shown <= table.viewport().width() + 1


def test_on_a_projector_the_options_table_shows_at_least_six_whole_rows(make_window, qtbot):
    # A presentation showed 3.5 rows of the options table under the chart: in presentation
    # mode the table is its own tab, as tall as the page leaves (12 rows at 1280 x 720 in
    # English, 10 in Chinese; the smallest screen is the one checked).
    size = (1280, 720)
    window = make_window(*size, True, page="compare")
    page = window.compare_page
    page.chart_tabs.setCurrentWidget(page.options)
    window.flush()
    qtbot.wait(20)
    table = page.options.table
    assert page.options.model.rowCount() >= 6
    rows = table.viewport().height() // table.verticalHeader().defaultSectionSize()
    assert rows >= 6, f"{rows} whole rows at {size}"


def test_on_a_wide_screen_the_region_and_seller_read_whole(make_window, qtbot):
    # At 1920 x 1080 the option's name took every spare pixel while the regions read
    # "global marketpl…" and "global (communi…".
    window = make_window(1920, 1080, False, page="compare")
    window.flush()
    qtbot.wait(20)
    table, model = window.compare_page.options.table, window.compare_page.options.model
    metrics = table.fontMetrics()
    for name in ("region", "provider"):
        column = model.column(name)
        assert not table.isColumnHidden(column)
        longest = max(metrics.horizontalAdvance(str(model.index(r, column).data() or ""))
                      for r in range(model.rowCount()))
        assert longest > 0
        assert table.columnWidth(column) >= longest + 8, name
    option = table.columnWidth(model.column("option"))
    assert option >= 20 * metrics.averageCharWidth()
    shown = sum(table.columnWidth(c) for c in range(model.columnCount())
                if not table.isColumnHidden(c))
    assert shown <= table.viewport().width() + 1


def test_the_probe_pickers_keep_both_ends_of_their_text(make_window):
    # "cpu — AMD EPYC, 23.…" lost the device's memory on a projector.
    window = make_window(1280, 720, True, page="probe")
    picker = window.probe_page.picker
    for combo in (picker.python_combo, picker.device_combo):
        assert combo.elide_mode == Qt.TextElideMode.ElideMiddle
        text = combo.currentText()
        room = combo.width() // 2
        shown = combo.fontMetrics().elidedText(text, combo.elide_mode, room)
        if shown != text:
            assert shown[-3:] == text[-3:]


def test_presentation_mode_over_the_dark_theme_has_light_disabled_widgets():
    # A disabled Stop button kept the dark theme's charcoal fill on the white page.
    from gpuadvisor.gui.appearance import dark_palette
    from gpuadvisor.gui.widgets.theme import presentation_palette

    palette = presentation_palette(dark_palette())
    disabled, active = QPalette.ColorGroup.Disabled, QPalette.ColorGroup.Active
    for role in (QPalette.ColorRole.Button, QPalette.ColorRole.Window,
                 QPalette.ColorRole.Light, QPalette.ColorRole.Midlight):
        assert palette.color(disabled, role) == palette.color(active, role), role
    assert palette.color(disabled, QPalette.ColorRole.Button).lightness() > 200


def test_the_rigs_live_charts_on_a_projector_keep_a_readable_plot(make_window, qtbot):
    # At 1280 x 720 the charts shrank to 120 px: a plot of a few pixels, its labels on top
    # of each other.
    from gpuadvisor.gui.charts.live import Y_BOTTOM, Y_TOP
    from gpuadvisor.gui.pages.rig.tiles import PRESENTATION_CHART_MIN_HEIGHT

    window = make_window(1280, 720, True, page="rig")
    page = window.rig_page
    qtbot.waitUntil(lambda: all(t.chart is not None and t.chart.isVisible()
                                for t in page.tiles), timeout=3000)
    qtbot.wait(20)
    for tile in page.tiles:
        chart = tile.chart
        assert chart.height() >= PRESENTATION_CHART_MIN_HEIGHT
        step = chart._percent_step
        metrics = QFontMetrics(chart.theme.font(chart.theme.tick_pt))
        assert step / (Y_TOP - Y_BOTTOM) * chart.plot_item.vb.height() >= metrics.height()


def test_the_rigs_live_charts_on_a_laptops_projector_show_their_scale_and_whole_legend(
        make_window, qtbot):
    # At 1280 x 720 on a projector two legend lines left 74 pixels of plot in a 200-pixel
    # chart: its axis read "50" alone. The plot keeps room for the 50 and 100 % labels, the
    # legend all four names inside the chart, and the page scrolls to them.
    from gpuadvisor.gui.charts.live import SERIES, Y_BOTTOM, Y_TOP
    from gpuadvisor.gui.pages.rig.tiles import PRESENTATION_PLOT_MIN_HEIGHT

    window = make_window(1280, 720, True, page="rig")
    page = window.rig_page
    qtbot.waitUntil(lambda: all(t.chart is not None and t.chart.isVisible()
                                for t in page.tiles), timeout=3000)
    qtbot.waitUntil(lambda: all(t.chart.plot_item.vb.height() >= PRESENTATION_PLOT_MIN_HEIGHT
                                for t in page.tiles), timeout=3000)
    qtbot.wait(20)
    body = page.scroll.widget()
    for tile in page.tiles:
        chart = tile.chart
        plot = chart.plot_item.vb.height()
        assert plot >= PRESENTATION_PLOT_MIN_HEIGHT
        metrics = QFontMetrics(chart.theme.font(chart.theme.tick_pt))
        assert chart._percent_step <= 50
        # The 100 % label, centred on its tick, fits under the plot's top (10 % above it).
        assert (Y_TOP - 100) / (Y_TOP - Y_BOTTOM) * plot >= metrics.height() / 2
        legend = chart.legend
        assert len(legend.items) == len(SERIES)
        scene = chart.plot_widget.sceneRect()
        shown = legend.sceneBoundingRect()
        assert shown.top() >= scene.top() and shown.bottom() <= scene.bottom() + 1, (
            shown, scene)
        assert chart.mapTo(body, chart.rect().bottomLeft()).y() <= body.height()


def test_a_laptops_projector_shows_two_rig_cards_whole(make_window, qtbot):
    # Two cards' tiles with all thirteen readings ran past a 1280 x 720 projector's page:
    # each chart was cut mid-plot, its axis and legend below the fold. On a projector a
    # tile shows the readings its chart draws (memory, power, temperature, utilization);
    # the desktop keeps every row.
    window = make_window(1280, 720, True, page="rig")
    page = window.rig_page
    qtbot.waitUntil(lambda: len(page.tiles) == 2 and all(
        t.chart is not None and t.chart.isVisible() for t in page.tiles), timeout=3000)
    qtbot.wait(50)
    for tile in page.tiles:
        shown = [n.text() for n, v in tile._labels if v.isVisibleTo(tile)]
        assert shown == ["VRAM", "Power", "Temperature", "Utilization"]
    body, viewport = page.scroll.widget(), page.scroll.viewport()
    assert page.scroll.verticalScrollBar().maximum() == 0
    for tile in page.tiles:
        assert tile.mapTo(body, tile.rect().bottomLeft()).y() <= viewport.height()
    window.set_presentation(False, full_screen=False)
    qtbot.wait(20)
    assert len([v for _, v in page.tiles[0]._labels if v.isVisibleTo(page.tiles[0])]) == 13


@pytest.mark.parametrize(("framework", "quant", "requests"), [
    ("llama.cpp", "q4_k_m", 1), ("vllm", "none", 16)])
def test_on_a_laptops_projector_the_cards_line_keeps_its_label(make_window, framework,
                                                               quant, requests):
    # 1280 x 720 projector: "16 GiB cards" took the place of "RTX 4090 23.4 GiB" (a
    # llama.cpp plan), and "12 GiB cards" sat beside a vLLM bar's total, reading "21.9 GiB
    # 12 GiB cards". The card's label wins; a reference label keeps a word's gap from the
    # total, or goes to the other side of its line, or is left out.
    window = make_window(1280, 720, True)
    window.state.set_gpu("rtx-4090")
    window.state.update(task="infer", framework=framework, quant=quant, seq_len=4096,
                        new_tokens=256, micro_batch=requests)
    window.flush()
    QApplication.processEvents()
    chart = window.plan_page.vram_chart
    vb = chart.plot_item.vb

    def rect(item):
        return item.mapRectToItem(vb, item.boundingRect())

    cap = chart.capacity_label
    assert cap.isVisible() and cap.toPlainText() == "RTX 4090 23.4 GiB"
    total = rect(chart._total_labels[0]).adjusted(-16, 0, 16, 0)
    for item in chart._edge_labels:
        if item is cap or not item.isVisible():
            continue
        assert not rect(item).intersects(rect(cap)), item.toPlainText()
        assert not rect(item).intersects(total), item.toPlainText()
