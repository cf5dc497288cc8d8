"""The Plan page, driven like a user: type a model name, type a batch size, click a lever.

Assertions are on what is shown (labels, field errors, button texts) and on the charts'
data (``getData()``, the charts' accessors), never on pixels.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.core.units import GB, GiB
from gpuadvisor.gui.pages.plan import CUSTOM_ITEM, PlanPage
from gpuadvisor.workspace.state import PlanState

#: Qt's offscreen platform warns on every shown top-level window, and on the raise and the
#: keyboard grab of a completer's popup; none of that is a fault of the page.
pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

HF_CONFIGS = Path(__file__).resolve().parents[1] / "data" / "hf_configs"


#: The state every test starts from (the app's default plan).
DEFAULT = PlanState().to_dict()


@pytest.fixture(scope="module")
def shared_page(qapp):
    # One page for the module (building one takes most of a second); each test starts from
    # the default plan again (see ``page``).
    page = PlanPage(PlanState())
    page.resize(1500, 950)
    page.show()
    qapp.processEvents()
    yield page
    page.close()
    assert not page._redraw_timer.isActive()
    page.deleteLater()


@pytest.fixture
def page(qtbot, shared_page, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    yield shared_page
    settle(qtbot, shared_page)
    active = [t for t in shared_page.findChildren(QTimer) if t.isActive()]
    assert active == [], "a timer outlived the test"
    focused = QApplication.focusWidget()
    if focused is not None:
        focused.clearFocus()
    shared_page.set_units("GiB")
    shared_page.state.from_dict(DEFAULT)
    shared_page.flush()
    shared_page._redraw()  # also clears the field errors a test left


@pytest.fixture
def state(page):
    return page.state


def settle(qtbot, page) -> None:
    """Wait until the coalesced redraw has run."""
    qtbot.waitUntil(lambda: not page._redraw_timer.isActive(), timeout=2000)


def type_into(qtbot, widget, text: str) -> None:
    """Replace a line edit's (or spin box's) text the way a user does, then press Enter."""
    edit = widget.lineEdit() if hasattr(widget, "lineEdit") else widget
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def make_it_not_fit(qtbot, page, state) -> None:
    """Full fine-tune of Llama-3.1-8B on a 24 GB card: far too big."""
    state.update(task="full", checkpointing="none", micro_batch=4)
    settle(qtbot, page)
    assert state.estimate.verdict == "does not fit"


# -- what is shown -----------------------------------------------------------------------------


def test_the_banner_keeps_each_number_with_its_unit_on_a_line(page, state):
    # A projector's banner wraps onto two lines: "(8.6" / "GiB free)" read as two things.
    # Shown with no-break spaces between a number and its unit; text() gives it back plain.
    from PySide6.QtWidgets import QLabel

    from gpuadvisor.core.units import format_bytes

    free = format_bytes(state.estimate.headroom_bytes, "GiB")  # "8.6 GiB"
    shown = QLabel.text(page.banner)
    number, unit = free.split(" ")
    assert f"({number}\u00a0{unit} free)" in shown
    assert f"({free} free)" in page.banner.text() and "\u00a0" not in page.banner.text()


def test_default_plan_shows_the_verdict_time_and_every_chart(page, state):
    est = state.estimate
    assert page.banner.text().startswith("Fits:")
    assert "RTX 4090" in page.banner.text()
    assert page.model_combo.currentText().startswith("Llama 3.1 8B")
    assert page.time_panel.total.text().endswith(" h")
    assert "tokens/s" in page.time_panel.throughput.text()
    # The default efficiency is the plan's kernels at the card's published rates x the
    # in-situ factor (tests/core_parallel/test_insitu.py); the panel shows it to 2 decimals.
    assert page.time_panel.efficiency.value() == pytest.approx(
        est.assumptions["efficiency"], abs=0.005)
    assert "in-situ factor 0.73" in est.assumptions["efficiency_basis"]
    assert page.time_panel.efficiency_source.text() == "assumed"
    assert "catalog: rtx-4090" in page.time_panel.assumptions.text()

    # The VRAM bar stacks to the core's total; the curves pass through the plan.
    assert page.vram_chart.totals() == [pytest.approx(est.memory.total / GiB)]
    assert page.vram_chart.verdict_text().startswith("fits")
    x, y = page.mb_chart.current_marker.getData()
    assert list(x) == [1.0] and y[0] == pytest.approx(est.memory.total / GiB)
    x, y = page.seq_chart.current_marker.getOriginalDataset()
    assert list(x) == [2048.0] and y[0] == pytest.approx(est.memory.total / GiB)
    # what CUDA can allocate on the 4090: nvidia-smi's 24,564 MiB less the driver's reserve
    assert page.mb_chart.oom_line.value() == pytest.approx(
        (24_564 - DRIVER_RESERVE_MIB) / 1024)
    largest = state.sweeps.largest_fitting_micro_batch()
    assert page.mb_chart.fit_text().endswith(f": {largest}")
    assert page.fit_map.current_cell() is not None
    assert page.fit_map.category_grid().shape == (7, 8)


def test_typing_part_of_a_preset_name_filters_the_list_and_enter_picks_it(qtbot, page, state):
    edit = page.model_combo.lineEdit()
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "qwen 7b")
    shown = page.model_combo.completer().model()
    names = [shown.index(row, 0).data() for row in range(shown.rowCount())]
    assert names and all("Qwen" in name and "7B" in name for name in names)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert state.model_id == "qwen2.5-7b"
    settle(qtbot, page)
    assert page.model_combo.currentText().startswith("Qwen2.5 7B")
    assert "7.62B parameters" in page.model_info.text()
    assert page.field_error("model") == ""


def test_typing_a_name_that_matches_nothing_says_so_at_the_model_field(qtbot, page, state):
    type_into(qtbot, page.model_combo, "no such model zz")
    assert state.model_id == "llama-3.1-8b"
    assert 'No preset matches "no such model zz"' in page.field_error("model")
    assert page.model_combo.currentText().startswith("Llama 3.1 8B")  # back to the choice


def test_typing_a_micro_batch_recomputes_the_verdict_and_moves_the_markers(qtbot, page, state):
    type_into(qtbot, page.micro_batch_spin, "8")
    assert state.plan.micro_batch == 8
    settle(qtbot, page)
    est = state.estimate
    assert est.verdict == "does not fit"
    assert page.banner.text().startswith("Does not fit")
    x, y = page.mb_chart.current_marker.getData()
    assert list(x) == [8.0] and y[0] == pytest.approx(est.memory.total / GiB)
    assert page.vram_chart.verdict_text().startswith("does not fit by")
    # the step as the Time panel times it: Alpaca's samples padded per micro-batch of 8 to
    # the longest of them (tests/test_datasets.py derives the expected longest), the
    # memory sized at the plan's 2,048
    from gpuadvisor.core.compute import training_job

    timed = training_job(state.model, state.plan).seq
    assert 128 < timed < 2048
    assert page.global_batch.text() == (
        f"8 × {timed:,.0f} tokens per optimizer step on average (up to 2,048)")
    assert f"× {timed:,.0f} tokens" in page.time_panel.data_source.text()


def test_the_sequence_slider_moves_in_powers_of_two(qtbot, page, state):
    page.seq_input.slider.setValue(12)
    assert state.plan.seq_len == 4096
    settle(qtbot, page)
    assert page.seq_input.spin.value() == 4096
    assert list(page.seq_chart.current_marker.getOriginalDataset()[0]) == [4096.0]


def test_typing_a_gpu_name_switches_the_target_and_the_capacity_lines(qtbot, page, state):
    type_into(qtbot, page.gpu_combo, "a100 80")
    assert state.gpu_id.startswith("a100") and "80" in state.gpu_id
    settle(qtbot, page)
    # an A100 80GB: nvidia-smi's 81,920 MiB less the driver's reserve
    assert page.mb_chart.oom_line.value() == pytest.approx(
        (81_920 - DRIVER_RESERVE_MIB) / 1024)
    assert state.gpu.name in page.banner.text()


def test_no_gpu_shows_memory_only(qtbot, page, state):
    page.gpu_combo.picked.emit("__none__")
    assert state.gpu is None
    settle(qtbot, page)
    assert "choose a GPU" in page.banner.text()
    assert "Choose a target GPU" in page.levers_panel.header.text()
    assert page.levers_panel.buttons() == [] or not any(
        b.isVisible() for b in page.levers_panel.buttons())


# -- levers ------------------------------------------------------------------------------------


def test_levers_are_listed_cheapest_first_with_before_and_after(qtbot, page, state):
    make_it_not_fit(qtbot, page, state)
    levers = state.levers()
    buttons = [b for b in page.levers_panel.buttons() if b.isVisible()]
    assert len(buttons) == len(levers) > 2
    # a button wraps its text onto a second line where the panel is narrow
    first = buttons[0].text().replace("\n", " ")
    # No lever alone fits a full fine-tune at micro-batch 4 on one 24 GB card (more cards
    # shard it data-parallel, as the Hugging Face path runs it), so the fastest combination
    # that fits comes first, naming its levers; then each lever alone.
    assert levers[0].id == "combination" and first.startswith("gradient checkpointing +")
    assert buttons[1].text().replace("\n", " ").startswith("gradient checkpointing: ")
    before = f"{levers[0].before_bytes / GiB:.1f} GiB"
    after = f"{levers[0].after_bytes / GiB:.1f} GiB"
    assert f"{before} → {after}" in first
    assert first.endswith(", fits") or first.endswith(", still too big")
    assert "does not fit" in page.levers_panel.header.text()


def test_clicking_a_lever_applies_it_and_redraws(qtbot, page, state):
    make_it_not_fit(qtbot, page, state)
    button = next(b for b in page.levers_panel.buttons() if b.text().startswith("QLoRA"))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert state.plan.task == "qlora"
    settle(qtbot, page)
    assert page.task_combo.currentData() == "qlora"
    assert page.lora_rank_spin.isEnabled()
    assert page.vram_chart.totals() == [pytest.approx(state.estimate.memory.total / GiB)]


# -- errors at the field -----------------------------------------------------------------------


def test_a_rejected_change_is_shown_in_words_under_its_field(qtbot, page, state):
    state.update(micro_batch=0)  # what a bad value from anywhere looks like
    assert "micro_batch must be a positive whole number" in page.field_error("micro_batch")
    assert page.errors["micro_batch"].isVisible()
    assert state.plan.micro_batch == 1  # nothing changed
    type_into(qtbot, page.micro_batch_spin, "2")
    assert page.field_error("micro_batch") == ""


def test_a_data_set_size_that_is_not_a_count_is_explained(qtbot, page, state):
    type_into(qtbot, page.tokens_edit, "lots")
    assert "not a count" in page.field_error("dataset_tokens")
    assert state.plan.dataset_tokens is None
    type_into(qtbot, page.tokens_edit, "2B")
    assert state.plan.dataset_tokens == pytest.approx(2e9)
    assert page.field_error("dataset_tokens") == ""
    settle(qtbot, page)
    assert "2.00B tokens" in page.data_note.text()


def test_samples_times_epochs_replace_a_token_count(qtbot, page, state):
    type_into(qtbot, page.tokens_edit, "2B")
    type_into(qtbot, page.samples_edit, "52k")
    type_into(qtbot, page.epochs_spin, "3")
    assert state.plan.dataset_samples == pytest.approx(52_000)
    assert state.plan.dataset_tokens is None
    assert state.plan.epochs == pytest.approx(3.0)
    settle(qtbot, page)
    assert page.tokens_edit.text() == ""
    expected = 52_000 * 3 * 2048
    assert state.estimate.assumptions["dataset_tokens"] == pytest.approx(expected)


# -- models from elsewhere ---------------------------------------------------------------------


def test_open_config_json_uses_it_as_the_model(qtbot, page, state, monkeypatch):
    monkeypatch.setattr(page, "ask_config_path", lambda: str(HF_CONFIGS / "mistral-7b.json"))
    qtbot.mouseClick(page.open_config_button, Qt.MouseButton.LeftButton)
    assert state.is_custom_model
    settle(qtbot, page)
    assert page.model_combo.current_id() == CUSTOM_ITEM
    assert "(custom, 7.24B)" in page.model_combo.currentText()


def test_a_broken_config_json_is_reported_at_the_model_field(qtbot, page, state, tmp_path,
                                                            monkeypatch):
    bad = tmp_path / "config.json"
    bad.write_text("{ not json", encoding="utf-8")
    monkeypatch.setattr(page, "ask_config_path", lambda: str(bad))
    qtbot.mouseClick(page.open_config_button, Qt.MouseButton.LeftButton)
    assert "not valid JSON" in page.field_error("model")
    assert state.model_id == "llama-3.1-8b"


def test_custom_architecture_numbers_make_a_model(qtbot, page, state):
    dialog = page.open_custom_model()
    assert dialog.numbers["n_layers"].value() == 32  # starts from the current model
    dialog.numbers["n_layers"].setValue(16)
    dialog.name.setText("Half Llama")
    assert "parameters" in dialog.summary.text()
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert state.is_custom_model and state.model.n_layers == 16
    settle(qtbot, page)
    assert page.model_combo.currentText().startswith("Half Llama (custom")


def test_custom_numbers_that_make_no_model_are_explained_in_the_dialog(qtbot, page):
    dialog = page.open_custom_model()
    dialog.numbers["n_heads"].setValue(7)  # 4096 is not divisible by 7
    assert "n_heads" in dialog.error.text()
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
    dialog.reject()


# -- knobs that depend on each other -----------------------------------------------------------


def test_lora_fields_are_enabled_only_for_adapter_tasks(qtbot, page, state):
    assert page.lora_rank_spin.isEnabled()  # the default plan is QLoRA
    page.task_combo.setCurrentIndex(page.task_combo.findData("full"))
    page.task_combo.activated.emit(page.task_combo.currentIndex())
    assert state.plan.task == "full"
    settle(qtbot, page)
    assert not page.lora_rank_spin.isEnabled()
    assert not page.lora_targets_combo.isEnabled()
    assert not page.quant_combo.isEnabled()


def test_inference_disables_training_only_inputs(qtbot, page, state):
    state.update(task="infer")
    settle(qtbot, page)
    assert not page.optimizer_combo.isEnabled()
    assert not page.tokens_edit.isEnabled()
    assert page.new_tokens_spin.isEnabled()
    assert "prefill" in page.time_panel.steps.text()


def test_a_model_measured_in_samples_disables_the_sequence_inputs(qtbot, page, state):
    type_into(qtbot, page.model_combo, "resnet")
    assert state.model_id == "resnet-50"
    settle(qtbot, page)
    assert not page.seq_input.isEnabled()
    assert "samples/s" in page.time_panel.throughput.text()


def test_editing_the_efficiency_changes_the_time_and_its_source(qtbot, page, state):
    before = state.estimate.time.seconds
    default = state.estimate.assumptions["efficiency"]
    type_into(qtbot, page.time_panel.efficiency, "0.2")
    assert state.plan.efficiency == pytest.approx(0.2)
    settle(qtbot, page)
    # Time is inversely proportional to the efficiency: default / 0.2 times longer.
    assert state.estimate.time.seconds == pytest.approx(before * default / 0.2, rel=0.01)
    assert page.time_panel.efficiency_source.text() == "plan"
    assert page.time_panel.efficiency_reset.isEnabled()
    qtbot.mouseClick(page.time_panel.efficiency_reset, Qt.MouseButton.LeftButton)
    assert state.plan.efficiency is None


# -- drawing -----------------------------------------------------------------------------------


def test_a_burst_of_changes_is_drawn_once(qtbot, page, state):
    settle(qtbot, page)
    count = page.redraw_count
    for mb in range(2, 12):
        state.update(micro_batch=mb)
    assert page.redraw_count == count  # nothing drawn yet: the redraw waits for the loop
    settle(qtbot, page)
    assert page.redraw_count == count + 1
    assert page.micro_batch_spin.value() == 11


def test_units_in_gb_rescale_every_chart(qtbot, page, state):
    page.set_units("GB")
    total = state.estimate.memory.total
    assert page.vram_chart.totals() == [pytest.approx(total / GB)]
    assert page.mb_chart.oom_line.value() == pytest.approx(state.capacity_bytes / GB)
    assert " GB" in page.banner.text()


def test_the_curves_plot_the_states_sweeps(qtbot, page, state):
    x, y = page.mb_chart.curve.getData()
    assert np.allclose(y, state.sweeps.memory_vs_micro_batch(x) / GiB)
    x, y = page.seq_chart.curve.getOriginalDataset()
    assert np.allclose(y, state.sweeps.memory_vs_seq(x) / GiB)
    assert 2048 in x


def test_summary_markdown_has_the_verdict_breakdown_and_time(page):
    text = page.summary_markdown()
    assert text.startswith("## Llama 3.1 8B: QLoRA fine-tune")
    assert "**Fits**" in text
    assert "| weights |" in text and "| **total** |" in text
    assert "GPU-hours" in text


def test_several_gpus_show_the_layout_the_time_comes_from(qtbot, page, state):
    # One GPU: no layout row. Eight H100s for a full fine-tune of the 8B model: the time
    # comes from the fastest layout that fits, its step in parts and the runners-up.
    assert page.time_panel.layout_text.isHidden()
    state.set_gpu("h100-sxm")
    state.update(task="full", n_gpus=8, micro_batch=1, grad_accum=4)
    settle(qtbot, page)
    e = state.estimate
    assert e.layout is not None and e.layout.n_gpus == 8
    assert e.time.seconds == pytest.approx(e.layout.seconds)
    text = page.time_panel.layout_text.text()
    assert not page.time_panel.layout_text.isHidden()
    assert f"DP {e.layout.chosen.layout.dp}" in text and "MFU" in text
    assert "runner-up" in text


def test_the_layout_row_names_every_degree_the_cli_does(qtbot, page, state):
    # Megatron on 8 H100s interleaves its pipeline: the row says VPP (and SP) as the CLI's
    # "TP 2 (SP) x PP 2 (VPP 4)" does, not just the TP/PP/CP/EP numbers.
    state.set_gpu("h100-sxm")
    state.update(task="full", framework="megatron", n_gpus=8, micro_batch=1, grad_accum=4)
    settle(qtbot, page)
    lay = state.estimate.layout.chosen.layout
    assert lay.vpp > 1
    text = page.time_panel.layout_text.text()
    assert f"PP {lay.pp} (VPP {lay.vpp})" in text
    assert " × ".join(lay.degrees()) in text


def test_the_model_picker_groups_presets_by_family_and_shows_active_parameters(page, state):
    combo = page.model_combo
    ids = [i for i in combo.ids() if i in state.models]
    families = [state.models[i].family for i in ids]
    # Each family's presets stand together: a family never reappears after another one.
    seen: list[str] = []
    for family in families:
        if not seen or seen[-1] != family:
            assert family not in seen, family
            seen.append(family)
    # Qwen3-30B-A3B: 30,532,122,624 parameters (transformers' meta-device count,
    # tests/test_model_hf.py); active per token: 3,353,032,704 less the 151,936 x 2,048
    # input embedding a token only looks a row up in = 3,041,866,752, shown to two decimals.
    text = combo.itemText(combo.ids().index("qwen3-30b-a3b"))
    assert 3_353_032_704 - 151_936 * 2048 == 3_041_867_776
    assert "30.53B" in text and "3.04B active" in text
    dense = combo.itemText(combo.ids().index("qwen3-8b"))
    assert "active" not in dense


def test_the_time_panel_names_the_in_situ_factor_the_efficiency_rests_on(page, state):
    text = page.time_panel.assumptions.text()
    k = state.estimate.assumptions["insitu_factor"]
    assert "in-situ factor" in text
    assert f"{k:.2f} of the published kernel rates" in text


def test_the_cards_line_names_the_chip_without_its_variant(qtbot, page, state):
    """A unified-memory system's name carries its variant in parentheses ("NVIDIA GB10 (DGX
    Spark, 128 GB)"); the card's line on the memory chart names the chip and its usable
    size, and the banner keeps the whole name."""
    assert state.set_gpu("gb10")
    settle(qtbot, page)
    label = page.vram_chart.capacity_label.toPlainText()
    assert label == "GB10 119.7 GiB"  # CUDA's total on a DGX Spark (catalog, 122,572 MiB)
    assert "GB10 (DGX Spark, 128 GB)" in page.banner.text()


def test_catalog_cards_are_named_short_in_the_picker_and_found_by_their_whole_name(
        qtbot, page, state):
    from gpuadvisor.gui.pages.plan.format import catalog_gpu_item

    gpus = state.gpus
    # the maker's words left out; the memory only where the name does not say it
    assert catalog_gpu_item(gpus["rtx-4090"], "GiB") == "RTX 4090 · 24 GiB"
    assert catalog_gpu_item(gpus["rtx-4090"], "GB") == "RTX 4090 · 25.8 GB"
    assert catalog_gpu_item(gpus["rtx-3060-12gb"], "GiB") == "RTX 3060 12GB"
    type_into(qtbot, page.gpu_combo, "geforce 3060 12")
    assert state.gpu_id == "rtx-3060-12gb"
