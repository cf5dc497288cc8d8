"""The Plan page's charts draw exactly the numbers the core computed.

Charts are checked through their data (``getData()``, bar heights, the category grid), not
pixels; screenshots are only checked to be non-trivial (and are saved to /tmp/charts_*.png
for a person to look at).
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from gpuadvisor.catalog import load_gpus, load_models
from gpuadvisor.core.estimate import estimate, sweep_fit_map
from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.core.memory import TERMS
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.units import GB, GiB, format_bytes
from gpuadvisor.core.verdict import TIGHT_FRACTION
from gpuadvisor.gui.charts import FitMapChart, MemoryCurveChart, VramBreakdownChart
from gpuadvisor.gui.charts.fit_map import MIN_CELL_PT
from gpuadvisor.gui.charts.style import CATEGORY_COLORS, TERM_COLORS, term_labels
from gpuadvisor.gui.charts.vram_bar import BAR_WIDTH

#: Qt's offscreen platform warns on every shown top-level window; that is not a chart fault.
pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

MODEL_ID, GPU_ID = "llama-3.1-8b", "rtx-4090"
#: QLoRA plans of Llama-3.1-8B on an RTX 4090 (24 GiB) with the three verdicts.
# Axolotl's QLoRA (bf16 norms and embeddings): one plan of each verdict on an RTX 4090.
#: What CUDA can allocate on an RTX 4090: nvidia-smi's 24,564 MiB less the driver's reserve.
USABLE_4090_GIB = (24_564 - DRIVER_RESERVE_MIB) / 1024
FITS_PLAN = Plan(task="qlora", micro_batch=1, seq_len=2048, checkpointing="full",
                 framework="axolotl")
TIGHT_PLAN = Plan(task="qlora", micro_batch=3, seq_len=2816, checkpointing="full",
                  framework="axolotl")
NO_FIT_PLAN = Plan(task="qlora", micro_batch=2, seq_len=2048, checkpointing="none",
                   framework="axolotl")

FIT_MAP_MICRO_BATCHES = np.array([1, 2, 3, 4, 6, 8, 12, 16])
FIT_MAP_SEQ_LENS = np.array([512, 1024, 2048, 3072, 4096, 6144, 8192])


@pytest.fixture(scope="module")
def model():
    return load_models()[MODEL_ID]


@pytest.fixture(scope="module")
def gpu():
    return load_gpus()[GPU_ID]


@pytest.fixture
def make_chart(qtbot):
    """Build a chart, show it at a fixed size, and check its hover timer is idle at the end."""
    charts = []

    def make(cls, size=(900, 500), **kwargs):
        chart = cls(**kwargs)
        qtbot.addWidget(chart)
        chart.resize(*size)
        chart.show()
        qtbot.waitExposed(chart)
        charts.append(chart)
        return chart

    yield make
    for chart in charts:
        chart.hide()
        assert not chart._hover_proxy.timer.isActive(), "a hover timer outlived the test"


def points(item) -> int:
    """How many points a PlotDataItem shows (getData() is (None, None) when empty)."""
    x, _ = item.getData()
    return 0 if x is None else len(x)


def scene_point(chart, x: float, y: float) -> QPointF:
    """The scene position of view coordinates (x, y) in ``chart``."""
    return chart.plot_item.vb.mapViewToScene(QPointF(x, y))


def draw_estimate(chart: VramBreakdownChart, est, name: str = "RTX 4090") -> None:
    chart.set_data(est.memory.as_dict(), ["plan"], est.capacity_bytes, name, est.verdict)


# -- VRAM breakdown -------------------------------------------------------------------------


def test_vram_bar_heights_stack_to_the_estimate_total_in_gib(make_chart, model, gpu):
    est = estimate(model, FITS_PLAN, gpu)
    chart = make_chart(VramBreakdownChart)
    draw_estimate(chart, est)

    bottom = 0.0
    for term in TERMS:
        opts = chart.bar_items[term].opts
        assert opts["height"][0] == pytest.approx(getattr(est.memory, term) / GiB)
        assert opts["y0"][0] == pytest.approx(bottom)  # stacked in core's order
        assert opts["brush"] == TERM_COLORS[term]
        bottom += opts["height"][0]
    assert bottom == pytest.approx(est.memory.total / GiB)
    assert chart.totals() == pytest.approx([est.memory.total / GiB])
    assert chart.capacity_line.value() == pytest.approx(USABLE_4090_GIB)
    assert chart.capacity_line.isVisible()
    assert chart.capacity_label.toPlainText() == "RTX 4090 23.4 GiB"  # what CUDA allocates


def test_vram_chart_in_gb_scales_bars_and_capacity_by_1e9(make_chart, model, gpu):
    est = estimate(model, FITS_PLAN, gpu)
    chart = make_chart(VramBreakdownChart, units="GB")
    draw_estimate(chart, est)
    heights = sum(chart.bar_items[t].opts["height"][0] for t in TERMS)
    assert heights == pytest.approx(est.memory.total / GB)
    assert chart.capacity_line.value() == pytest.approx(USABLE_4090_GIB * GiB / GB)
    assert chart.verdict_text().endswith(" GB free")

    chart.set_units("GiB")  # switching back redraws from the stored bytes
    heights = sum(chart.bar_items[t].opts["height"][0] for t in TERMS)
    assert heights == pytest.approx(est.memory.total / GiB)


@pytest.mark.parametrize(("plan", "verdict", "template"), [
    (FITS_PLAN, "fits", "fits — {} free"),
    (TIGHT_PLAN, "tight", "tight — {} free"),
    (NO_FIT_PLAN, "does not fit", "does not fit by {}"),
])
def test_vram_verdict_states_the_headroom(make_chart, model, gpu, plan, verdict, template):
    est = estimate(model, plan, gpu)
    assert est.verdict == verdict  # the plans really are what their names say
    chart = make_chart(VramBreakdownChart)
    draw_estimate(chart, est)
    headroom = format_bytes(abs(est.headroom_bytes), "GiB")
    assert chart.verdict_text() == template.format(headroom)


def test_a_vram_chart_too_short_for_its_badge_leaves_it_out(make_chart, model, gpu):
    """Over the card's line there is room for the verdict badge on a tall chart; on a
    projector's short one (a 1280 x 720 page in Chinese) the badge sat on the line and hid
    the card's label: it is left out there (the banner over the charts says the same), and
    comes back when the chart grows."""
    chart = make_chart(VramBreakdownChart, size=(470, 270))  # a 140-pixel plot
    chart.set_presentation(True)
    draw_estimate(chart, estimate(model, FITS_PLAN, gpu))
    QApplication.processEvents()
    badge = chart._verdict_item
    assert chart.verdict_text().startswith("fits — ")  # said, though not drawn
    assert not badge.isVisible()
    assert chart.capacity_label.isVisible()
    chart.resize(900, 500)
    QApplication.processEvents()
    assert badge.isVisible()
    # drawn, it is clear of the card's line: the line is under the badge's bottom
    vb = chart.plot_item.vb
    line_y = vb.mapFromView(QPointF(0, chart.capacity_line.value())).y()
    assert line_y > badge.pos().y() + badge.textItem.boundingRect().height()


def test_vram_fits_verdict_reads_12_5_gib_free_for_qlora_8b_with_checkpointing(
        make_chart, model, gpu):
    chart = make_chart(VramBreakdownChart)
    draw_estimate(chart, estimate(model, FITS_PLAN, gpu))
    # 23.38 GiB CUDA can allocate on the 4090 - 10.9 GiB
    assert chart.verdict_text() == "fits — 12.5 GiB free"


def test_vram_hover_names_the_term_its_size_and_share(make_chart, model, gpu):
    est = estimate(model, FITS_PLAN, gpu)
    chart = make_chart(VramBreakdownChart)
    draw_estimate(chart, est)
    opts = chart.bar_items["activations"].opts
    middle = opts["y0"][0] + opts["height"][0] / 2

    text = chart.hover_at(scene_point(chart, 0.0, middle))

    share = 100 * est.memory.activations / est.memory.total
    assert text == f"activations: {format_bytes(est.memory.activations, 'GiB')} ({share:.1f}%)"
    assert chart.hover_text() == text
    assert chart._hover_label.isVisible()
    assert chart.hover_at(scene_point(chart, 1.4, middle)) == ""  # beside the bar: nothing
    assert not chart._hover_label.isVisible()


def test_vram_comparison_bars_each_stack_their_own_breakdown(make_chart, model, gpu):
    before = estimate(model, NO_FIT_PLAN, gpu)
    after = estimate(model, FITS_PLAN, gpu)
    chart = make_chart(VramBreakdownChart)
    chart.set_data([before.memory.as_dict(), after.memory.as_dict()],
                   ["plan", "+ checkpointing"], before.capacity_bytes, "RTX 4090",
                   before.verdict)
    assert chart.totals() == pytest.approx([before.memory.total / GiB,
                                            after.memory.total / GiB])
    assert list(chart.bar_items["weights"].opts["x"]) == [0.0, 1.0]
    ticks = chart.plot_item.getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == ["plan", "+ checkpointing"]
    assert chart.verdict_text().startswith("does not fit by")  # about the first bar
    opts = chart.bar_items["weights"].opts
    text = chart.hover_at(scene_point(chart, 1.0, opts["height"][1] / 2))
    assert text.splitlines()[0] == "+ checkpointing"
    assert text.splitlines()[1].startswith("weights: ")


def test_vram_common_card_lines_skip_the_target_size_and_the_off_chart_ones(
        make_chart, model, gpu):
    chart = make_chart(VramBreakdownChart)
    draw_estimate(chart, estimate(model, NO_FIT_PLAN, gpu))  # 34.4 GiB: axis to ~49
    shown = {line.value() for line in chart.reference_lines if line.isVisible()}
    assert shown == {12.0, 16.0, 48.0}  # 24 is the target's own line; 80 is off the chart
    assert all(line.pen.style().name == "DashLine" for line in chart.reference_lines)
    assert chart.capacity_line.pen.style().name == "SolidLine"


def test_vram_without_a_gpu_hides_the_capacity_line_and_states_the_need(make_chart, model,
                                                                         gpu):
    est = estimate(model, FITS_PLAN, gpu)
    chart = make_chart(VramBreakdownChart)
    chart.set_data(est.memory.as_dict(), None, None, None, None)
    assert not chart.capacity_line.isVisible()
    assert chart.verdict_text() == f"needs {format_bytes(est.memory.total, 'GiB')} per GPU"


def test_vram_chart_rejects_unknown_terms_and_mismatched_labels(make_chart):
    chart = make_chart(VramBreakdownChart)
    with pytest.raises(ValueError, match="unknown term"):
        chart.set_data({"weight": 1.0})
    with pytest.raises(ValueError, match="labels"):
        chart.set_data([{"weights": 1.0}, {"weights": 2.0}], ["only one"])


def test_vram_set_data_keeps_its_items(make_chart, model, gpu):
    chart = make_chart(VramBreakdownChart)
    items = dict(chart.bar_items)
    line = chart.capacity_line
    n_items = len(chart.plot_item.items)
    for plan in (FITS_PLAN, TIGHT_PLAN, NO_FIT_PLAN):
        draw_estimate(chart, estimate(model, plan, gpu))
    assert chart.bar_items == items
    assert chart.capacity_line is line
    assert len(chart.plot_item.items) == n_items + 1  # + the one total label, created once


def test_a_total_just_under_the_cards_line_is_written_beside_its_bar(make_chart):
    # vLLM fills 90% of a card: a 22.1 GiB bar under a 23.6 GiB line, whose line ran
    # through the total's number. The total then sits beside the bar's top, under it and
    # clear of the line (inside the bar it covered the KV cache's and overhead's parts);
    # a total well under the line stays on its bar.
    chart = make_chart(VramBreakdownChart, size=(420, 260))
    vb = chart.plot_item.vb

    def total_rect(total_gib):
        chart.set_data({"weights": total_gib * GiB}, ["your plan"], 23.6 * GiB, "RTX 3090",
                       "tight")
        label = chart._total_labels[0]
        return label.mapRectToItem(vb, label.boundingRect()), \
            vb.mapFromView(QPointF(0, 23.6)).y(), vb.mapFromView(QPointF(0, total_gib)).y()

    rect, line_y, top_y = total_rect(22.1)
    assert not rect.top() <= line_y <= rect.bottom()
    assert rect.top() >= top_y - 1  # under the bar's top
    bar_right = vb.mapFromView(QPointF(BAR_WIDTH / 2, 0)).x()
    assert rect.left() >= bar_right  # beside the bar, none of its parts covered
    rect, line_y, top_y = total_rect(12.0)
    assert rect.bottom() <= top_y + 1  # on its bar
    assert not rect.top() <= line_y <= rect.bottom()


def test_vram_legend_lists_only_the_terms_that_are_there(make_chart, model, gpu):
    chart = make_chart(VramBreakdownChart)
    draw_estimate(chart, estimate(model, FITS_PLAN, gpu))  # training: no KV cache
    names = [label.text for _, label in chart.legend.items]
    labels = term_labels()
    assert labels["kv_cache"] not in names
    assert labels["activations"] in names and labels["weights"] in names


# -- memory curves --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def micro_batch_sweep(model, gpu):
    micro_batches = np.arange(1, 17)
    totals = sweep_fit_map(model, FITS_PLAN, micro_batches, [FITS_PLAN.seq_len])[:, 0]
    largest = int(micro_batches[totals <= gpu.memory_bytes].max())
    return micro_batches, totals, largest


def test_curve_data_is_the_given_x_and_memory_in_gib(make_chart, micro_batch_sweep, gpu):
    xs, totals, largest = micro_batch_sweep
    chart = make_chart(MemoryCurveChart, x_label="micro-batch")
    chart.set_data(xs, totals, gpu.memory_bytes, largest, 2, gpu_name="RTX 4090")

    x, y = chart.curve.getData()
    np.testing.assert_allclose(x, xs)
    np.testing.assert_allclose(y, totals / GiB)
    assert chart.oom_line.value() == pytest.approx(24.0)
    assert "RTX 4090" in chart.oom_label.toPlainText()
    fx, fy = chart.largest_fit_marker.getData()
    assert list(fx) == [largest]
    assert fy[0] == pytest.approx(totals[largest - 1] / GiB)
    assert fy[0] <= 24.0 < totals[largest] / GiB  # the next micro-batch would not fit
    cx, cy = chart.current_marker.getData()
    assert list(cx) == [2] and cy[0] == pytest.approx(totals[1] / GiB)
    assert chart.fit_text() == f"largest micro-batch that fits: {largest}"


def test_curve_in_gb_divides_by_1e9(make_chart, micro_batch_sweep, gpu):
    xs, totals, largest = micro_batch_sweep
    chart = make_chart(MemoryCurveChart, units="GB")
    chart.set_data(xs, totals, gpu.memory_bytes, largest, None)
    np.testing.assert_allclose(chart.curve.getData()[1], totals / GB)
    assert chart.oom_line.value() == pytest.approx(gpu.memory_bytes / GB)
    assert points(chart.current_marker) == 0


def test_sequence_curve_on_a_log2_axis_ticks_at_powers_of_two(make_chart, model, gpu):
    seqs = 2 ** np.arange(9, 16)
    totals = sweep_fit_map(model, FITS_PLAN, [1], seqs)[0]
    chart = make_chart(MemoryCurveChart, x_label="sequence length", log_x=True)
    chart.set_data(seqs, totals, gpu.memory_bytes, 4096, 2048)

    x_original, y_original = chart.curve.getOriginalDataset()
    np.testing.assert_allclose(x_original, seqs)
    np.testing.assert_allclose(y_original, totals / GiB)
    np.testing.assert_allclose(chart.curve.getData()[0], np.log10(seqs))  # pyqtgraph log mode
    axis = chart.plot_item.getAxis("bottom")
    (_, values), = axis.tickValues(np.log10(512), np.log10(32768), 600)
    assert axis.tickStrings(values, 1, 1) == ["512", "1k", "2k", "4k", "8k", "16k", "32k"]
    assert chart.fit_text() == "largest sequence length that fits: 4,096"


def test_the_oom_label_keeps_clear_of_its_own_line(make_chart, micro_batch_sweep, gpu):
    # The label has a fill (the curve runs through its spot); anchored at the line's value
    # it covered half the line's width. It sits half the line's width and a pixel away.
    xs, totals, largest = micro_batch_sweep
    chart = make_chart(MemoryCurveChart, x_label="micro-batch")
    chart.set_data(xs, totals, gpu.memory_bytes, largest, 2, gpu_name="RTX 4090")
    label = chart.oom_label
    assert label.isVisible()
    vb = chart.plot_item.vb
    line_y = vb.mapViewToScene(QPointF(0, gpu.memory_bytes / chart.unit_bytes)).y()
    box = label.mapRectToScene(label.boundingRect())
    half = chart.theme.capacity_px / 2
    gap = box.top() - line_y if label.edge_below else line_y - box.bottom()
    assert gap >= half + 1 - 0.5, (box, line_y)


def test_a_label_hidden_for_room_stays_hidden_until_the_chart_is_resized(make_chart,
                                                                          micro_batch_sweep,
                                                                          gpu):
    # Hiding the out-of-memory label gives the legend its row, which takes the plot's room;
    # if the label then found a place, showing it would drop the row, give back the room,
    # hide the label again... a flip per layout pass until the stack overflowed (a segfault
    # at 1366x768 in Chinese). At the size it was hidden at, it stays hidden; a new size
    # decides afresh.
    xs, totals, largest = micro_batch_sweep
    chart = make_chart(MemoryCurveChart, x_label="micro-batch")
    chart.set_data(xs, totals, gpu.memory_bytes, largest, 2, gpu_name="RTX 4090")
    label = chart.oom_label
    assert not label.edge_suppressed and label.isVisible()  # room for it here
    names = lambda: [text.text for _, text in chart.legend.items]  # noqa: E731
    assert "out of memory" not in names()
    size = (chart.plot_widget.width(), chart.plot_widget.height())
    label.edge_suppressed, chart._oom_hidden_at = True, size  # as a pass without room left it
    chart._layout_legend()
    chart._redraw()  # the next pass finds room: the label stays hidden, its row stays
    assert label.edge_suppressed and not label.isVisible()
    assert "out of memory" in names()
    chart.resize(chart.width() + 40, chart.height() + 40)
    QApplication.processEvents()
    assert not label.edge_suppressed and label.isVisible()
    assert "out of memory" not in names()


def test_a_largest_fit_past_the_models_context_is_said_as_the_whole_context(make_chart,
                                                                            model, gpu):
    # 147,968 tokens fit, the model holds 131,072: the star sits at the context and the
    # badge says the whole context fits; below the context the largest fit is said as is.
    seqs = 2 ** np.arange(9, 18)
    totals = sweep_fit_map(model, FITS_PLAN, [1], seqs)[0]
    chart = make_chart(MemoryCurveChart, x_label="sequence length", log_x=True)
    chart.set_data(seqs, totals, gpu.memory_bytes, 147_968, 2048, context=131_072)
    assert chart.fit_text() == "the model's whole context fits: 131,072"
    assert chart.largest_fit_marker.getOriginalDataset()[0][0] == 131_072
    chart.set_data(seqs, totals, gpu.memory_bytes, 65_536, 2048, context=131_072)
    assert chart.fit_text() == "largest sequence length that fits: 65,536"


def test_curve_hover_reads_the_nearest_point_with_its_verdict(make_chart, micro_batch_sweep,
                                                              gpu):
    xs, totals, largest = micro_batch_sweep
    chart = make_chart(MemoryCurveChart, x_label="micro-batch")
    chart.set_data(xs, totals, gpu.memory_bytes, largest, 1)
    text = chart.hover_at(scene_point(chart, 2.05, totals[1] / GiB))
    assert text == f"micro-batch 2: {format_bytes(totals[1], 'GiB')} — fits"
    text = chart.hover_at(scene_point(chart, largest + 1, 30.0))
    assert text.endswith("— does not fit")
    assert chart.hover_at(scene_point(chart, 4.5, 10.0)) == ""  # between points


def test_curve_when_nothing_fits_says_so_without_a_marker(make_chart, gpu):
    chart = make_chart(MemoryCurveChart, x_label="micro-batch")
    chart.set_data([1, 2, 4], np.array([30, 40, 60]) * GiB, gpu.memory_bytes, None, 1)
    assert points(chart.largest_fit_marker) == 0
    assert chart.fit_text() == "no micro-batch in this range fits"
    chart.set_data([], [], gpu.memory_bytes, None, None)  # an opaque model: no curve
    assert points(chart.curve) == 0


def test_curve_rejects_arrays_of_different_lengths(make_chart):
    chart = make_chart(MemoryCurveChart)
    with pytest.raises(ValueError, match="differ in length"):
        chart.set_data([1, 2, 3], [1.0, 2.0], None)


# -- fit map --------------------------------------------------------------------------------


def expected_categories(totals: np.ndarray, capacity: float) -> np.ndarray:
    """The fit categories, computed cell by cell without the chart's code."""
    grid = np.empty(totals.shape, dtype=int)
    for index, total in np.ndenumerate(totals):
        if total > capacity:
            grid[index] = 2
        elif total > TIGHT_FRACTION * capacity:
            grid[index] = 1
        else:
            grid[index] = 0
    return grid


@pytest.fixture(scope="module")
def fit_map_totals(model):
    return sweep_fit_map(model, FITS_PLAN, FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS)


def test_fit_map_categories_match_the_tight_and_capacity_thresholds(make_chart, fit_map_totals,
                                                                    gpu):
    chart = make_chart(FitMapChart)
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes,
                   (1, 2048))
    grid = chart.category_grid()
    np.testing.assert_array_equal(grid, expected_categories(fit_map_totals, gpu.memory_bytes))
    assert {0, 1, 2} <= set(np.unique(grid))  # this grid has all three kinds
    # The image is the grid painted with the palette (row-major: rows are micro-batches).
    image = chart.image_item.image
    assert image.shape[:2] == fit_map_totals.shape
    for category in (0, 1, 2):
        i, j = np.argwhere(grid == category)[0]
        expected = CATEGORY_COLORS[category].lstrip("#")
        assert bytes(image[i, j, :3]).hex().upper() == expected


def test_fit_map_thresholds_are_strict_at_the_edges(make_chart):
    capacity = 24 * GiB
    shares = np.array([[0.5, TIGHT_FRACTION, TIGHT_FRACTION + 1e-6, 1.0, 1.0 + 1e-6]])
    chart = make_chart(FitMapChart)
    chart.set_data([1], [512, 1024, 2048, 4096, 8192], shares * capacity, capacity)
    assert chart.category_grid().tolist() == [[0, 0, 1, 1, 2]]
    np.testing.assert_array_equal(chart.category_grid(),
                                  expected_categories(shares * capacity, capacity))


def test_on_a_projector_fit_map_values_smaller_than_11_pt_are_left_out(make_chart,
                                                                      fit_map_totals, gpu):
    # 7-point digits in a projector's short map read as noise from the room.
    from gpuadvisor.gui.charts.fit_map import PRESENTATION_MIN_CELL_PT

    chart = make_chart(FitMapChart, size=(700, 215))
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes)
    QApplication.processEvents()
    assert chart._value_labels[0].isVisible()  # on a desktop, at a smaller size
    assert chart._cells.font.pointSize() < PRESENTATION_MIN_CELL_PT
    chart.set_presentation(True)
    QApplication.processEvents()
    assert not chart._value_labels[0].isVisible()
    chart.resize(1000, 600)
    QApplication.processEvents()
    assert chart._value_labels[0].isVisible()
    assert chart._cells.font.pointSize() >= PRESENTATION_MIN_CELL_PT


def test_fit_map_ticks_carry_the_real_values(make_chart, fit_map_totals, gpu):
    chart = make_chart(FitMapChart)
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes)
    bottom = chart.plot_item.getAxis("bottom")._tickLevels[0]
    left = chart.plot_item.getAxis("left")._tickLevels[0]
    # lengths in units of 1,024 tokens ("1k", "6k"), as the memory-vs-sequence chart
    # writes them; others as they are ("512")
    assert bottom == [(j + 0.5, f"{s // 1024}k" if s % 1024 == 0 else str(s))
                      for j, s in enumerate(FIT_MAP_SEQ_LENS)]
    assert left == [(i + 0.5, str(m)) for i, m in enumerate(FIT_MAP_MICRO_BATCHES)]


def test_fit_map_hover_reads_cell_values_and_verdict(make_chart, fit_map_totals, gpu):
    chart = make_chart(FitMapChart)
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes)
    i, j = 5, 4  # micro-batch 8, seq 4096
    text = chart.hover_at(scene_point(chart, j + 0.3, i + 0.6))
    verdict = {0: "fits", 1: "tight", 2: "does not fit"}[
        expected_categories(fit_map_totals, gpu.memory_bytes)[i, j]]
    size = format_bytes(fit_map_totals[i, j], "GiB")
    assert text == f"micro-batch 8, seq 4096: {size} — {verdict}"


def test_fit_map_marks_the_plans_cell_dashed_when_between_grid_values(make_chart,
                                                                      fit_map_totals, gpu):
    chart = make_chart(FitMapChart)
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes,
                   (4, 2048))
    assert chart.current_cell() == (3, 2)
    x, y = chart.current_marker.getData()
    assert 2 < x.min() < x.max() < 3 and 3 < y.min() < y.max() < 4
    assert chart.current_marker.opts["pen"].style().name == "SolidLine"
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes,
                   (5, 2000))  # not on the grid: nearest cell on a log scale (6, 2048), dashed
    assert chart.current_cell() == (4, 2)
    assert chart.current_marker.opts["pen"].style().name == "DashLine"


def test_fit_map_without_gpu_or_data(make_chart, fit_map_totals):
    chart = make_chart(FitMapChart)
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, None)
    assert (chart.category_grid() == 3).all()
    assert not chart.hover_at(scene_point(chart, 0.5, 0.5)).endswith("fits")
    chart.set_data([], [], np.zeros((0, 0)), 24 * GiB, None)
    assert chart.category_grid().size == 0
    with pytest.raises(ValueError, match="shape"):
        chart.set_data([1, 2], [512], np.zeros((1, 2)), None)


def test_fit_map_cell_values_show_in_the_display_unit(make_chart, fit_map_totals, gpu):
    chart = make_chart(FitMapChart, size=(1000, 600), units="GB")
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes)
    first = fit_map_totals[0, 0] / GB
    assert chart.value_texts()[0] == f"{first:.1f}"
    assert chart._value_labels[0].isVisible()
    assert chart._cells.font.pointSize() == chart.theme.annotation_pt

    def cells_of(width, height):
        chart.resize(width, height)
        chart.plot_item.vb.setRange(xRange=(0, len(FIT_MAP_SEQ_LENS)),
                                    yRange=(0, len(FIT_MAP_MICRO_BATCHES)), padding=0)
        w, h = chart.plot_item.vb.viewPixelSize()  # data units per pixel (0: no room)
        return (1 / w if w else 0.0), (1 / h if h else 0.0)

    # Short cells: the values in a smaller font, as long as "000.0" and a digit's height
    # (+ three pixels to each border) fit the cell at no less than MIN_CELL_PT; smaller
    # still, they hide.
    for size in ((300, 200), (180, 110)):
        cell_w, cell_h = cells_of(*size)
        fitting = [pt for pt in range(chart.theme.annotation_pt, MIN_CELL_PT - 1, -1)
                   if cell_w >= QFontMetrics(chart.theme.font(pt)).horizontalAdvance("000.0") + 6
                   and cell_h >= QFontMetrics(chart.theme.font(pt)).tightBoundingRect(
                       "0123456789").height() + 6]
        assert chart._value_labels[0].isVisible() == bool(fitting), size
        if fitting:
            assert chart._cells.font.pointSize() == fitting[0] < chart.theme.annotation_pt
    assert not chart._value_labels[0].isVisible()  # the smallest size hides them


# -- shared behaviour -----------------------------------------------------------------------


def test_mouse_moves_reach_the_hover_handler_through_the_rate_limiter(qtbot, make_chart,
                                                                      fit_map_totals, gpu):
    chart = make_chart(FitMapChart)
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes)
    assert chart._hover_proxy.rateLimit == 30
    chart.plot_widget.scene().sigMouseMoved.emit(scene_point(chart, 0.5, 0.5))
    qtbot.waitUntil(lambda: chart.hover_text().startswith("micro-batch 1, seq 512:"))


@pytest.mark.parametrize("cls", [VramBreakdownChart, MemoryCurveChart, FitMapChart])
def test_presentation_mode_enlarges_text_and_thickens_lines(make_chart, cls):
    chart = make_chart(cls)
    axis = chart.plot_item.getAxis("left")
    assert axis.style["tickFont"].pointSize() < 16
    chart.set_presentation(True)
    assert chart.presentation
    assert axis.style["tickFont"].pointSize() >= 16
    assert chart.legend.opts["labelTextSize"] == "16pt"
    assert chart.theme.line_px >= 3 and chart.theme.capacity_px >= 3
    chart.set_presentation(False)
    assert axis.style["tickFont"].pointSize() < 16


def test_presentation_mode_thickens_the_capacity_and_oom_lines(make_chart, model, gpu,
                                                               micro_batch_sweep):
    bar = make_chart(VramBreakdownChart)
    draw_estimate(bar, estimate(model, FITS_PLAN, gpu))
    bar.set_presentation(True)
    assert bar.capacity_line.pen.widthF() >= 3
    curve = make_chart(MemoryCurveChart)
    xs, totals, largest = micro_batch_sweep
    curve.set_data(xs, totals, gpu.memory_bytes, largest, 2)
    curve.set_presentation(True)
    assert curve.oom_line.pen.widthF() >= 3
    assert curve.curve.opts["pen"].widthF() >= 3


def test_units_must_be_gib_or_gb(make_chart):
    with pytest.raises(ValueError, match="units"):
        VramBreakdownChart(units="MB")
    chart = make_chart(FitMapChart)
    with pytest.raises(ValueError, match="units"):
        chart.set_units("TiB")


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
def test_each_chart_renders_a_readable_screenshot(make_chart, tmp_path, model, gpu,
                                                  fit_map_totals, micro_batch_sweep,
                                                  presentation):
    size = (1280, 720) if presentation else (900, 500)
    mode = "presentation" if presentation else "normal"

    fits, no_fit = estimate(model, FITS_PLAN, gpu), estimate(model, NO_FIT_PLAN, gpu)
    bar = make_chart(VramBreakdownChart, size=size)
    bar.set_presentation(presentation)
    bar.set_data([no_fit.memory.as_dict(), fits.memory.as_dict()],
                 ["plan", "+ full checkpointing"], gpu.memory_bytes, "RTX 4090",
                 no_fit.verdict)

    xs, totals, largest = micro_batch_sweep
    mb_curve = make_chart(MemoryCurveChart, size=size, x_label="micro-batch")
    mb_curve.set_presentation(presentation)
    mb_curve.set_data(xs, totals, gpu.memory_bytes, largest, 2, gpu_name="RTX 4090")
    mb_curve.hover_at(scene_point(mb_curve, 3, totals[2] / GiB))

    seqs = np.unique(np.round(2.0 ** np.arange(8, 16.01, 0.5)))
    seq_totals = sweep_fit_map(model, FITS_PLAN, [1], seqs)[0]
    fitting = seqs[seq_totals <= gpu.memory_bytes]
    seq_curve = make_chart(MemoryCurveChart, size=size, x_label="sequence length",
                           log_x=True, units="GB")
    seq_curve.set_presentation(presentation)
    seq_curve.set_data(seqs, seq_totals, gpu.memory_bytes, fitting.max(), 2048,
                       gpu_name="RTX 4090")

    fit_map = make_chart(FitMapChart, size=size)
    fit_map.set_presentation(presentation)
    fit_map.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals,
                     gpu.memory_bytes, (1, 2048))
    fit_map.hover_at(scene_point(fit_map, 5.5, 2.5))

    for name, chart in (("vram", bar), ("mb_curve", mb_curve), ("seq_curve", seq_curve),
                        ("fit_map", fit_map)):
        path = tmp_path / f"{name}.png"
        assert chart.grab().save(str(path))
        assert path.stat().st_size > 5_000, f"{name} screenshot is nearly empty"
        # For a person to look at: labels overlapping or cut off are bugs.
        chart.grab().save(f"/tmp/charts_{name}_{mode}.png")


def test_a_log_axis_of_tokens_per_second_reads_as_plain_numbers(qapp):
    # pyqtgraph wrote "10³" and "10²" beside "1" and "0.1" on the load chart's axis.
    from gpuadvisor.gui.charts.items import PlainLogAxis

    axis = PlainLogAxis(orientation="left")
    assert axis.logTickStrings([-1, 0, 1, 2, 3, 4], 1.0, 1.0) == [
        "0.1", "1", "10", "100", "1,000", "10,000"]
    assert axis.logTickStrings([-2, 0.30103], 1.0, 1.0) == ["0.01", "2"]


@pytest.mark.parametrize("size", [(676, 250), (676, 320), (900, 420)])
def test_on_a_projector_the_plans_outline_keeps_clear_of_the_digits(make_chart, fit_map_totals,
                                                                    gpu, size):
    """A projector's thick outline of the plan's cell ran through "25.0": values are written
    only in a size whose digits keep clear of the outline's inner line (its drawn position
    and pen), else left out."""
    from PySide6.QtGui import QFontMetrics

    chart = make_chart(FitMapChart, size=size)
    chart.set_presentation(True)
    chart.set_data(FIT_MAP_MICRO_BATCHES, FIT_MAP_SEQ_LENS, fit_map_totals, gpu.memory_bytes,
                   (4, 2048))
    QApplication.processEvents()
    if not chart._value_labels[0].isVisible():
        return  # left out: nothing to run through
    i, j = chart.current_cell()
    per_px_x, per_px_y = chart.plot_item.vb.viewPixelSize()
    xs, ys = chart._current_inner.getData()
    pen = chart._current_inner.opts["pen"].widthF()
    # the inner line's inner edge, in pixels from the cell's border
    inner_x = min(xs.min() - j, (j + 1) - xs.max()) / per_px_x + pen / 2
    inner_y = min(ys.min() - i, (i + 1) - ys.max()) / per_px_y + pen / 2
    metrics = QFontMetrics(chart._cells.font)
    digits_h = metrics.tightBoundingRect("0123456789").height()
    digits_w = metrics.horizontalAdvance("000.0")
    cell_w, cell_h = 1 / per_px_x, 1 / per_px_y
    assert (cell_h - digits_h) / 2 >= inner_y, (cell_h, digits_h, inner_y)
    assert (cell_w - digits_w) / 2 >= inner_x, (cell_w, digits_w, inner_x)
