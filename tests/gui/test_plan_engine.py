"""The Plan page's software picker and inference-engine settings, driven like a user."""

from __future__ import annotations

import itertools
import math
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pytest

from gpuadvisor.core import plan as P
from gpuadvisor.gui.pages.plan import PlanPage
from gpuadvisor.workspace.state import PlanState

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


@pytest.fixture
def page(qtbot, qapp, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    page = PlanPage(PlanState())
    qtbot.addWidget(page)
    page.resize(1500, 950)
    page.show()
    qapp.processEvents()
    return page


def settle(qtbot, page) -> None:
    qtbot.waitUntil(lambda: not page._redraw_timer.isActive(), timeout=3000)


def choose(combo, value) -> None:
    """Pick ``value`` in a combo the way a click does (index, then ``activated``)."""
    index = combo.findData(value)
    assert index >= 0, value
    assert combo.model().item(index).isEnabled(), f"{value} cannot be chosen"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def serve_with_vllm(qtbot, page, **plan) -> None:
    """An H100 serving the plan's model with vLLM, chosen as a user does."""
    page.state.set_gpu("h100-sxm")
    choose(page.inputs.task_combo, "infer")
    settle(qtbot, page)
    choose(page.inputs.quant_combo, "none")
    settle(qtbot, page)
    choose(page.inputs.framework_combo, "vllm")
    settle(qtbot, page)
    page.state.update(**plan)
    settle(qtbot, page)


def enabled_frameworks(page) -> set[str]:
    combo = page.inputs.framework_combo
    return {combo.itemData(i) for i in range(combo.count()) if combo.model().item(i).isEnabled()}


def test_training_offers_the_fine_tuning_frameworks_only(qtbot, page):
    assert page.state.plan.is_training
    assert enabled_frameworks(page) == {"auto", *P.TRAIN_FRAMEWORKS}
    combo = page.inputs.framework_combo
    assert combo.itemText(combo.findData("auto")) == "automatic (Hugging Face + PEFT)"
    assert not page.inputs.engine_group.isVisible()
    choose(page.inputs.framework_combo, "unsloth")
    settle(qtbot, page)
    assert page.state.plan.framework == "unsloth"


def test_inference_offers_the_engines_and_their_settings(qtbot, page):
    choose(page.inputs.task_combo, "infer")
    settle(qtbot, page)
    assert enabled_frameworks(page) == {"auto", *P.INFER_ENGINES}
    combo = page.inputs.framework_combo
    assert combo.itemText(combo.findData("auto")) == "automatic (by the weights and the GPU)"
    assert page.inputs.engine_group.isVisible()
    # GGUF file types are offered under llama.cpp's names.
    quant = page.inputs.quant_combo
    assert quant.itemText(quant.findData("q4_k_m")) == "Q4_K_M (GGUF)"

    choose(page.inputs.framework_combo, "llama.cpp")
    choose(quant, "q4_k_m")
    settle(qtbot, page)
    all_on_gpu = page.state.estimate.time.decode_tokens_per_s
    assert page.inputs.gpu_layers_spin.text() == "as many as fit"
    assert page.inputs.gpu_memory_utilization_spin.isEnabled() is False

    # Half the layers in host RAM: every token reads them at host bandwidth, so fewer tok/s.
    page.inputs.gpu_layers_spin.setValue(16)
    settle(qtbot, page)
    assert page.state.plan.gpu_layers == 16
    assert page.state.estimate.time.decode_tokens_per_s < all_on_gpu
    page.inputs.gpu_layers_spin.setValue(-1)  # "all" again
    settle(qtbot, page)
    assert page.state.plan.gpu_layers is None

    choose(page.inputs.framework_combo, "vllm")
    settle(qtbot, page)
    assert not page.inputs.gpu_layers_spin.isEnabled()
    page.inputs.gpu_memory_utilization_spin.setValue(0.8)
    settle(qtbot, page)
    assert page.state.plan.gpu_memory_utilization == pytest.approx(0.8)


def test_switching_back_to_training_resets_the_engine(qtbot, page):
    choose(page.inputs.task_combo, "infer")
    settle(qtbot, page)
    choose(page.inputs.framework_combo, "ollama")
    page.inputs.gpu_layers_spin.setValue(8)
    settle(qtbot, page)
    assert page.state.plan.gpu_layers == 8
    choose(page.inputs.task_combo, "qlora")
    settle(qtbot, page)
    plan = page.state.plan
    assert (plan.task, plan.framework, plan.gpu_layers) == ("qlora", "auto", None)
    assert page.inputs.framework_combo.currentData() == "auto"
    assert not page.inputs.engine_group.isVisible()


def test_a_vllm_plan_says_how_many_users_it_serves_at_once(qtbot, page):
    from gpuadvisor.core import serving_load
    from gpuadvisor.core.resolve import resolve

    panel = page.bottom.time_panel
    assert not panel.serving.isVisible()  # a fine-tune serves nobody
    serve_with_vllm(qtbot, page, seq_len=8192, new_tokens=512)
    assert panel.serving.isVisible()
    # the command line's capacity of the same plan, resolved by core on its own
    state = page.state
    core = serving_load.capacity(resolve(state.model, state.plan, state.gpu))
    text = panel.serving.text()
    assert text.startswith(f"{core.users} users at 8,704 tokens of context: first token in "
                           f"{core.point.first_token_s:.2f} s")
    assert text.endswith(f"with --max-num-seqs {core.users}")
    choose(page.inputs.task_combo, "qlora")
    settle(qtbot, page)
    assert not panel.serving.isVisible()


def test_a_servers_plan_shows_its_load_curve_in_the_micro_batch_charts_place(qtbot, page):
    from gpuadvisor.core import serving_load
    from gpuadvisor.core.resolve import resolve

    charts = page.charts_area
    charts.ensure()
    assert charts.mb_chart.isVisible() and not charts.serving_chart.isVisible()
    serve_with_vllm(qtbot, page, seq_len=2048, new_tokens=256)
    assert charts.serving_chart.isVisible() and not charts.mb_chart.isVisible()
    state = page.state
    core = serving_load.capacity(resolve(state.model, state.plan, state.gpu))
    users, total = charts.serving_chart.total_curve.getOriginalDataset()
    assert list(users) == [p.users for p in core.curve]
    assert list(total) == pytest.approx([p.tokens_per_s_total for p in core.curve])
    x, y = charts.serving_chart.capacity_marker.getOriginalDataset()
    assert list(x) == [core.users] and y[0] == pytest.approx(core.point.tokens_per_s_user)
    each = core.point.tokens_per_s_user
    assert charts.serving_chart.badge_text() == (
        f"{core.users} users at once, {each:.0f} tokens/s each (reading speed: 5.3)"
        if each >= 10 else
        f"{core.users} users at once, {each:.1f} tokens/s each (reading speed: 5.3)")
    # the first token's time on its own (right) axis: log10 of users and of seconds
    x, y = charts.serving_chart.ttft_curve.getData()
    assert list(x) == pytest.approx([math.log10(p.users) for p in core.curve])
    assert list(y) == pytest.approx([math.log10(p.first_token_s) for p in core.curve])
    low, high = charts.serving_chart.ttft_view.viewRange()[1]
    assert low < min(y) and max(y) < high
    choose(page.inputs.task_combo, "qlora")
    settle(qtbot, page)
    assert charts.mb_chart.isVisible() and not charts.serving_chart.isVisible()


def test_a_vllm_plans_fit_map_shows_what_its_requests_need_and_whether_they_wait(qtbot, page):
    # vLLM reserves the same share of the card at every cell: the map shows what the
    # requests need to run at once and colours by the engine's verdict (the core's
    # sweep_fit_grid, checked by hand in tests/test_engines_vllm.py), and says so.
    from gpuadvisor.core.estimate import sweep_fit_grid

    charts = page.charts_area
    charts.ensure()
    serve_with_vllm(qtbot, page, seq_len=4096, new_tokens=256, micro_batch=16)
    page.state.set_gpu("rtx-3090")
    settle(qtbot, page)
    fit_map = charts.fit_map
    state = page.state
    total, verdicts = sweep_fit_grid(state.model, state.plan, fit_map._micro_batches,
                                     fit_map._seq_lens, gpu=state.gpu)
    codes = {"fits": 0, "tight": 1, "does not fit": 2}
    assert fit_map.category_grid().tolist() == [[codes[v] for v in row] for row in verdicts]
    assert list(fit_map._total.ravel()) == pytest.approx(list(total.ravel()))
    # the plan's cell (16 requests of 4,352 tokens): more than the pool holds, so tight
    i, j = fit_map.current_cell()
    assert verdicts[i, j] == "tight" == state.estimate.verdict
    # the banner says what is tight: the pool's whole requests against the plan's 16
    engine = state.estimate.engine
    held = engine.capacity_tokens // (4096 + 256)
    assert 0 < held < 16
    assert page.banner.text().startswith(
        f"Fits, but requests wait: the KV pool holds {held} of 16 at once (")
    names = [label.text for _, label in fit_map.legend.items]
    assert "tight: requests wait" in names
    # Make it fit: what lets all 16 run at once (tests/test_fit_engine_levers.py)
    panel = page.bottom.levers_panel
    assert panel.header.text().startswith("Requests wait for room in the KV pool.")
    texts = [button.full_text() for button in panel.buttons() if button.isVisible()]
    assert f"8-bit KV cache: {held} → 16 requests at once, none wait" in texts
    # the time panel warns of the wait on the desktop; on a projector the banner says it
    time_panel = page.bottom.time_panel
    # its decode rate is a wave's, and says how many run at once
    assert time_panel.throughput.text().endswith(
        f" while decoding ({held} requests at once)")
    assert f"KV pool holds {held} full sequences" in time_panel.warnings.text()
    time_panel.set_compact(True)
    assert "KV pool holds" not in time_panel.warnings.text()
    time_panel.set_compact(False)
    assert f"KV pool holds {held} full sequences" in time_panel.warnings.text()
    assert charts.chart_titles["fitMapChart"].text().startswith(
        "What fits: requests × prompt length")
    # its axes and its tab (a projector's) say requests and prompts too
    assert fit_map.plot_item.getAxis("left").labelText in ("requests at once", "requests")
    assert fit_map.plot_item.getAxis("bottom").labelText == "prompt length (tokens)"
    assert charts.tabs.tabText(0) == "Requests at once (GiB)"
    # the length chart is the fit map's row of the plan's requests: prompts too
    assert charts.chart_titles["seqChart"].text() == "Memory vs prompt length"
    assert charts.seq_chart.plot_item.getAxis("bottom").labelText.startswith("prompt length")
    assert charts.tabs.tabText(2) == "By prompt length"
    x, _ = charts.serving_chart.full_points.getData()
    assert len(x) and "requests wait" in [label.text for _, label in
                                          charts.serving_chart.legend.items]
    # back to a training plan: memory against the card again
    choose(page.inputs.task_combo, "qlora")
    settle(qtbot, page)
    assert "tight (over 90%)" in [label.text for _, label in fit_map.legend.items]
    assert charts.chart_titles["fitMapChart"].text().startswith(
        "What fits: micro-batch × sequence length")
    assert fit_map.plot_item.getAxis("bottom").labelText == "sequence length (tokens)"
    assert charts.tabs.tabText(0) == "What fits (GiB)"
    assert charts.chart_titles["seqChart"].text() == "Memory vs sequence length"
    assert charts.seq_chart.plot_item.getAxis("bottom").labelText.startswith("sequence length")
    assert charts.tabs.tabText(2) == "By sequence length"


def test_the_reading_speed_is_named_in_the_legend_not_over_the_curves(qtbot, page):
    # The per-user and first-token curves cross the reading-speed line: a label on the
    # line struck its number through or hid their points. The legend names the dashed
    # line and its rate. The first-token curve lives in a view of its own, stacked under
    # the plot.
    charts = page.charts_area
    charts.ensure()
    serve_with_vllm(qtbot, page, seq_len=4096, new_tokens=256)
    chart = charts.serving_chart
    capacity = chart._capacity
    names = [label.text for _, label in chart.legend.items]
    assert f"reading speed {capacity.min_tokens_per_s:.1f} tokens/s" in names
    assert chart.floor_line.isVisible()
    assert chart.floor_line.value() == pytest.approx(math.log10(capacity.min_tokens_per_s))
    assert not any(item.isVisible() for item in chart._edge_labels)
    assert chart.ttft_view.zValue() < chart.plot_item.zValue()
    assert chart.ttft_view.parentItem() is None and chart.plot_item.parentItem() is None


def _inference_on_a_3090(qtbot, page):
    """The page's plan made an inference plan on an RTX 3090, as a user picks it."""
    page.state.set_gpu("rtx-3090")
    choose(page.inputs.task_combo, "infer")
    settle(qtbot, page)


def test_the_quantization_picker_says_what_an_ollama_plan_runs_without_a_type(qtbot, page):
    # An Ollama plan with no type runs its default tag (llama3.1:8b is Q4_K_M,
    # catalog/serving.toml): the picker said "none (16-bit)" beside 4-bit weights.
    _inference_on_a_3090(qtbot, page)
    choose(page.inputs.framework_combo, "ollama")
    settle(qtbot, page)
    combo = page.inputs.quant_combo
    assert page.state.plan.quant is None and combo.currentData() == "none"
    assert page.state.estimate.engine.settings["gguf_file_type"] == "Q4_K_M"
    assert "Q4_K_M" in combo.currentText()
    # llama.cpp without a type loads F16: the entry says 16-bit again
    choose(page.inputs.framework_combo, "llama.cpp")
    settle(qtbot, page)
    assert combo.currentData() == "none" and "16-bit" in combo.currentText()
    assert "Q4_K_M" not in combo.currentText()


def test_the_llama_cpp_backend_is_picked_on_the_page_and_follows_the_card(qtbot, page):
    _inference_on_a_3090(qtbot, page)
    choose(page.inputs.quant_combo, "q4_k_m")
    settle(qtbot, page)
    combo = page.inputs.backend_combo
    assert combo.isEnabled() and combo.currentData() is None
    assert [combo.itemData(i) for i in range(combo.count())] == [None, *P.BACKENDS]
    choose(combo, "vulkan")
    settle(qtbot, page)
    assert page.state.plan.backend == "vulkan"
    assert page.state.estimate.engine.settings["backend"] == "vulkan"
    assert page.state.estimate.engine.settings["cuda_graphs"] is False
    # a backend for another vendor's cards is refused on its own field
    choose(combo, "metal")
    settle(qtbot, page)
    assert page.state.plan.backend == "vulkan"
    assert "backend metal runs on Apple GPUs" in page.inputs.errors["backend"].text()
    # CUDA on an AMD card would be refused: a new card takes its own backend again
    page.state.update(backend="cuda")
    assert page.state.set_gpu("rx-7900-xtx")
    assert page.state.plan.backend is None
    assert page.state.estimate.engine.settings["backend"] == "hip"
    settle(qtbot, page)
    assert combo.currentData() is None
    # Ollama picks its backend itself
    choose(page.inputs.framework_combo, "ollama")
    settle(qtbot, page)
    assert not combo.isEnabled()


def test_the_out_of_memory_label_never_hides_under_the_fit_badge(qtbot, page):
    # Llama 3.1 8B at Q4_K_M on an RTX 3090: every context up to ~148k fits, past the
    # model's 131,072 (so the star sits at the context, near the line's right end) and no
    # corner of the chart is free for the badge, which wraps onto two lines in a chart this
    # narrow (a 1366x768 window's).
    page.resize(1240, 700)
    page.state.set_gpu("rtx-3090")
    choose(page.inputs.task_combo, "infer")
    settle(qtbot, page)
    choose(page.inputs.quant_combo, "q4_k_m")
    settle(qtbot, page)
    page.state.update(seq_len=4096)
    settle(qtbot, page)
    chart = page.seq_chart
    qtbot.waitUntil(lambda: chart._fit_label.isVisible() and chart.oom_label.isVisible(),
                    timeout=3000)
    assert chart.fit_text() == "the model's whole context fits: 131,072"

    def scene_rect(item):
        return item.mapRectToScene(item.boundingRect())

    qtbot.wait(50)
    assert not scene_rect(chart._fit_label).intersects(scene_rect(chart.oom_label))


def test_the_host_ram_warning_of_a_partly_offloaded_plan_reads_in_chinese(qapp):
    from gpuadvisor.core.engines import llamacpp
    from gpuadvisor.core.model import model_shape
    from gpuadvisor.gui.data_words import warning_text
    from gpuadvisor.gui.i18n import install_language
    from gpuadvisor.workspace.state import PlanState

    state = PlanState()
    shape = model_shape(state.models["llama-3.1-70b"])
    result = llamacpp.evaluate(shape, P.Plan(task="infer", framework="llama.cpp",
                                             quant="q4_k_m", seq_len=4096),
                               state.gpus["rtx-3060-12gb"], state.assumptions)
    [text] = result.warnings  # the engine's own words, e.g. "... 62 of 80 layers ..."
    assert warning_text(text) == text  # English: as it comes
    assert install_language("zh_CN") == "zh_CN"
    try:
        n = result.settings["n_gpu_layers"]
        host = round(result.settings["host_bandwidth_gb_s"])
        assert warning_text(text) == (f"llama.cpp：80 层中有 {80 - n} 层在主机内存中，"
                                      f"每个 token 以 {host} GB/s 读取")
        assert warning_text("a warning added later") == "a warning added later"
    finally:
        install_language("en")


#: Plans whose estimate carries each warning the Plan page shows most (core/estimate.py,
#: core/engines/vllm.py, core/engines/llamacpp.py), as a user types them.
_WARNED_PLANS = (
    ("--model", "llama-3.1-8b", "--task", "lora", "--gpu", "rtx-3090", "--precision", "fp8"),
    ("--model", "llama-3.1-8b", "--task", "lora", "--gpu", "v100-sxm2-32gb",
     "--precision", "bf16"),
    ("--model", "llama-3.1-8b", "--task", "lora", "--gpu", "dgx-spark", "--gpus", "2"),
    ("--model", "gpt2", "--task", "full", "--gpu", "rtx-3090", "--seq", "2048"),
    ("--model", "llama-3.1-8b", "--task", "full", "--gpu", "rtx-3090", "--seq", "200000"),
    ("--model", "llama-3.1-8b", "--task", "infer", "--framework", "vllm", "--gpu", "rtx-3090",
     "--seq", "120000"),
    ("--model", "llama-3.1-8b", "--task", "infer", "--framework", "vllm", "--gpu", "rtx-3090",
     "--gpu-memory-utilization", "0.99"),
    ("--model", "llama-3.1-8b", "--task", "infer", "--framework", "vllm", "--gpu", "rtx-3090",
     "--seq", "32000", "--micro-batch", "64"),
    ("--model", "llama-3.1-8b", "--task", "infer", "--framework", "ollama", "--gpu",
     "rtx-3090", "--seq", "32000", "--num-ctx", "4096"),
)


def test_the_estimates_common_warnings_read_in_chinese_with_their_numbers_and_names(qapp):
    import json
    import re

    from gpuadvisor.gui.data_words import warning_text
    from gpuadvisor.gui.i18n import install_language
    from tests.cli_run import run_cli

    warnings = []
    for argv in _WARNED_PLANS:
        code, out, err = run_cli("estimate", *argv, "--json")
        assert code in (0, 3), err  # 3: the plan does not fit, still estimated
        [text] = json.loads(out)["warnings"]
        assert warning_text(text) == text  # English: as it comes
        warnings.append(text)
    assert install_language("zh_CN") == "zh_CN"
    try:
        for text in warnings:
            shown = warning_text(text)
            assert re.search("[\u4e00-\u9fff]", shown), shown
            # every number and every name in the English text is kept
            for number in re.findall(r"\d[\d,.]*\d|\d", text):
                assert number in shown, (number, shown)
            for name in re.findall(r"NVIDIA [^:]+?(?= has| is)|GPT-2 \(124M\)|Llama 3\.1 8B",
                                   text):
                assert name in shown, (name, shown)
    finally:
        install_language("en")


def test_a_short_load_curve_keeps_its_curves_and_readable_seconds(qtbot, page):
    # A grid of four charts in a small window: the serving chart's plot is ~120 px tall.
    # Its two-line badge would take half of it and squash the curves into a band (a
    # 1366x768 window read 0.1 to 100,000 tokens/s): the badge goes (the Time panel says
    # the same), and the first-token axis labels only 1-2-5 values that do not overlap.
    from PySide6.QtGui import QFontMetrics

    charts = page.charts_area
    charts.ensure()
    serve_with_vllm(qtbot, page, seq_len=2048, new_tokens=256)
    chart = charts.serving_chart
    chart.resize(400, 230)
    chart._frame()
    plot_px = chart.plot_item.vb.height()
    assert plot_px < 160
    assert not chart._badge.isVisible()
    low, high = chart.plot_item.vb.viewRange()[1]
    _, total = chart.total_curve.getOriginalDataset()
    _, each = chart.user_curve.getOriginalDataset()
    span = math.log10(max(total)) - math.log10(min(each))
    assert span / (high - low) > 0.5  # the curves take most of the height
    ticks = [value for level in chart.plot_item.getAxis("right")._tickLevels or []
             for value, _ in level]
    line = QFontMetrics(chart.theme.font(chart.theme.tick_pt)).height()
    px = sorted(v * plot_px / (chart.ttft_view.viewRange()[1][1]
                               - chart.ttft_view.viewRange()[1][0]) for v in ticks)
    assert all(b - a >= line for a, b in itertools.pairwise(px))
    labels = {text for level in chart.plot_item.getAxis("right")._tickLevels for _, text in level}
    assert labels <= {f"{m * 10.0 ** k:g}" for m in (1, 2, 3, 5) for k in range(-3, 4)}


def test_the_time_panel_names_the_engines_matmul_kernel(qtbot, page):
    # llama.cpp on an RTX 4090 at Q4_K_M: the prompt runs at MMQ's rate, 0.247 of the
    # card's 660.6 int8 TOPS (core/engines/prompt_rates.py); the panel says so beside the
    # efficiency it shows, which is that rate over the fp16 peak.
    page.state.set_gpu("rtx-4090")
    choose(page.inputs.task_combo, "infer")
    settle(qtbot, page)
    choose(page.inputs.quant_combo, "q4_k_m")
    settle(qtbot, page)
    panel = page.bottom.time_panel
    text = panel.assumptions.text()
    assert ("matmul kernel llama.cpp MMQ: 163 TFLOPS per GPU, 0.247 of the int8 rate "
            "llama.cpp PR #8062") in text
    assert panel.efficiency.value() == pytest.approx(660.6 * 0.247 / 165.2, abs=0.005)



def test_gpu_hours_of_a_few_seconds_read_as_gpu_time(qtbot, page):
    """One request takes seconds: its GPU time reads as a duration ("2.19 s", not
    "0.000609" GPU-hours); a training run's GPU-hours stay a number."""
    state = page.state
    state.set_gpu("rtx-4090")
    state.update(task="infer", quant="q4_k_m", framework="llama.cpp", seq_len=1024,
                 new_tokens=256, micro_batch=1)
    settle(qtbot, page)
    t = state.estimate.time
    hours = t.gpu_hours
    assert 0 < hours < 0.01
    seconds = hours * 3600
    panel = page.bottom.time_panel
    assert panel._gpu_hours_title.text() == "GPU time"
    assert panel._steps_title.text() == "Phases"  # a prefill and a decode
    assert panel.gpu_hours.text() == (f"{seconds:.3g} s" if seconds < 60
                                      else f"{seconds / 60:.3g} min")
    # the rate over the whole time holds the prompt's prefill; the decoding steps' own is
    # the faster one: 256 tokens over (total - prefill)
    overall = 256 / t.seconds
    decoding = 256 / (t.seconds - t.prefill_seconds)
    assert t.tokens_per_s == pytest.approx(overall)
    assert t.decode_tokens_per_s == pytest.approx(decoding, rel=1e-6)
    assert panel.throughput.text() == (f"{overall:.3g} generated tokens/s overall, "
                                       f"{decoding:.3g} while decoding")
    state.update(framework="auto")
    state.update(task="qlora", quant="nf4", seq_len=2048)
    settle(qtbot, page)
    assert state.plan.task == "qlora" and state.estimate.time.gpu_hours > 0.01
    assert panel._gpu_hours_title.text() == "GPU-hours"
    assert panel._steps_title.text() == "Steps"
    assert panel.gpu_hours.text() == f"{state.estimate.time.gpu_hours:.3g}"


def test_the_time_panel_wraps_rather_than_cut_its_rows(qtbot, page):
    """On a laptop the time panel is half the results' width: every value wraps, so that
    no row is cut at the right edge of its scroll area (which scrolls vertically only)."""
    state = page.state
    state.set_gpu("rtx-4090")
    state.update(task="infer", quant="q4_k_m", framework="llama.cpp", seq_len=4096,
                 new_tokens=256, micro_batch=1)
    page.resize(1170, 690)  # the Plan page of a 1280 x 720 window
    settle(qtbot, page)
    qtbot.wait(10)
    panel, scroll = page.bottom.time_panel, page.bottom.time_scroll
    assert panel.serving.isVisible()  # the long sentences of a server's plan are shown
    assert panel.minimumSizeHint().width() <= scroll.viewport().width()
    assert panel.width() <= scroll.viewport().width()
    # a longer value in the right-hand column (GPU-hours, compute) wraps too
    for label in (panel.gpu_hours, panel.flops):
        label.setText("a value of many words that is wider than half of the panel")
    panel.layout().activate()
    assert panel.minimumSizeHint().width() <= scroll.viewport().width(), (
        panel.minimumSizeHint().width(), scroll.viewport().width())


def test_a_vllm_plans_sequence_chart_is_its_fit_maps_row(qtbot, page):
    """vLLM takes its share of the card whatever the plan: the sequence chart drew that flat
    share, its points under the card's line past the "largest that fits". It draws what the
    plan's requests need at once at each length (the fit map's row for them), over the
    line they wait for room, and its star is the longest prompt with all of them at once."""
    charts = page.charts_area
    charts.ensure()
    serve_with_vllm(qtbot, page, seq_len=16384, new_tokens=256, micro_batch=64)
    state = page.state
    requests = state.plan.micro_batch
    assert requests == 64
    chart = charts.seq_chart
    xs, ys = chart._x, chart._y_bytes
    row, _ = state.sweeps.fit_grid([requests], [int(x) for x in xs])
    np.testing.assert_allclose(ys, row[0])
    capacity = state.capacity_bytes
    longest = state.sweeps.largest_fitting_seq()
    # all at once at the longest, not one token more (the map's green ends there)
    at, past = state.sweeps.fit_grid([requests], [longest, longest + 1])[1][0]
    assert at == "fits" and past != "fits"
    assert state.sweeps.memory_vs_seq([longest])[0] <= capacity
    assert chart.fit_text() == f"longest prompt with all requests at once: {longest:,}"
    # the line is the server's share (the banner's "of 23.4 GiB" less what vLLM leaves),
    # the height the fit map's green ends at: the longest prompt is under it, one more over
    share = state.estimate.memory.total
    assert chart._capacity == pytest.approx(share) and share < capacity
    below, above = state.sweeps.memory_vs_seq([longest, longest + 1])
    # (the pool is whole blocks: what the share leaves past its last block, under one
    # block of 16 tokens, is the only slack)
    block = 16 * state.estimate.engine.kv_bytes_per_token
    assert below <= share and above > share - block
    assert chart._oom_texts[0].startswith("requests wait above ")
    assert "(the server's share of H100 SXM5 80GB)" in chart._oom_texts[0]
    # the line says it on itself, or (no room there) the legend does
    assert (chart.oom_label.isVisible()
            and chart.oom_label.toPlainText().startswith("requests wait above ")) or (
        "requests wait" in [label.text for _, label in chart.legend.items])
    # the plan's own prompt is on the curve, its marker at the map's cell for it; past
    # the longest, its requests wait, as the banner says
    assert longest < 16384 and page.banner.text().startswith("Fits, but requests wait")
    assert chart._current_x == 16384
    cell = state.sweeps.fit_grid([requests], [16384])[0][0][0]
    assert state.sweeps.memory_vs_seq([16384])[0] == pytest.approx(cell)
