"""Translations: the zh_CN catalog is complete and in step with the code, the window speaks
the chosen language, and View → Language stores the choice for the next start."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpuadvisor.gui import i18n
from gpuadvisor.workspace.settings import Settings

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

ROOT = Path(__file__).resolve().parents[2]
ZH_TS = ROOT / "resources" / "i18n" / "gpuadvisor_zh_CN.ts"
# The GUI, plus the hardware package's health-warning templates (marked QT_TRANSLATE_NOOP).
GUI_SOURCES = sorted([*(ROOT / "gpuadvisor" / "gui").rglob("*.py"),
                      *(ROOT / "gpuadvisor" / "hardware").rglob("*.py")])

#: ``{name}``, ``{pct:.0f}`` (str.format) and ``%1``, ``%L1``, ``%n`` (Qt's arg/numerus).
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%L?\d+|%n")
#: A keyboard accelerator: "&File", "文件(&F)" (a doubled "&&" is a literal ampersand).
ACCELERATOR = re.compile(r"(?<!&)&([^&\s])")


def _messages(path: Path):
    """(context, message element) for every message of a ``.ts`` file."""
    root = ET.parse(path).getroot()
    for context in root.iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            yield name, message


def _translations(message) -> list[str]:
    """The translated text(s): one, or one per numerus form."""
    translation = message.find("translation")
    if translation is None:
        return []
    if message.get("numerus") == "yes":
        return [form.text or "" for form in translation.iter("numerusform")]
    return [translation.text or ""]


def _lupdate() -> str | None:
    exe = Path(sys.executable).with_name("pyside6-lupdate")
    return str(exe) if exe.exists() else shutil.which("pyside6-lupdate")


# -- the catalog ------------------------------------------------------------------------------


def test_every_zh_cn_message_is_translated_and_keeps_its_placeholders():
    problems = []
    count = 0
    for context, message in _messages(ZH_TS):
        count += 1
        source = message.findtext("source") or ""
        where = f"{context}: {source!r}"
        translation = message.find("translation")
        kind = translation.get("type") if translation is not None else "missing"
        if kind in ("unfinished", "vanished", "obsolete", "missing"):
            problems.append(f"{where} is {kind}")
            continue
        texts = _translations(message)
        if not texts or not all(t.strip() for t in texts):
            problems.append(f"{where} has an empty translation")
            continue
        wanted = set(PLACEHOLDER.findall(source))
        keys = {a.upper() for a in ACCELERATOR.findall(source)}
        for text in texts:
            if set(PLACEHOLDER.findall(text)) != wanted:
                problems.append(f"{where}: placeholders {sorted(wanted)} became "
                                f"{sorted(set(PLACEHOLDER.findall(text)))} in {text!r}")
            if {a.upper() for a in ACCELERATOR.findall(text)} != keys:
                problems.append(f"{where}: accelerator {sorted(keys)} lost in {text!r}")
    assert count > 300
    assert problems == []


def test_the_catalog_covers_every_string_the_code_translates(tmp_path):
    # Re-extract the strings from the code into a copy: a string added or changed in the code
    # without a translation comes out "unfinished"; one removed from the code is dropped.
    lupdate = _lupdate()
    if lupdate is None:
        pytest.skip("pyside6-lupdate not found (it ships with PySide6-Essentials)")
    copy = tmp_path / ZH_TS.name
    shutil.copyfile(ZH_TS, copy)
    result = subprocess.run([lupdate, *map(str, GUI_SOURCES), "-ts", str(copy), "-no-obsolete"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr

    untranslated = [
        f"{context}: {message.findtext('source')!r}"
        for context, message in _messages(copy)
        if message.find("translation").get("type") == "unfinished"
    ]
    assert untranslated == [], (
        "strings in the code without a zh_CN translation: run pyside6-lupdate over "
        "gpuadvisor/gui gpuadvisor/hardware and translate them in "
        "resources/i18n/gpuadvisor_zh_CN.ts")
    in_code = {(c, m.findtext("source")) for c, m in _messages(copy)}
    in_catalog = {(c, m.findtext("source")) for c, m in _messages(ZH_TS)}
    assert in_catalog - in_code == set(), "catalog entries the code no longer uses: rerun lupdate"


# -- the window in a language ------------------------------------------------------------------


@pytest.fixture
def language(qapp, tmp_path, monkeypatch):
    """``install_language`` with the compiled catalog cached under tmp_path; English after."""
    cache = tmp_path / "i18n-cache"
    monkeypatch.setattr(i18n, "_cache_dir", lambda: cache)
    yield i18n.install_language
    i18n.install_language("en")


def _nav(window) -> list[str]:
    return [window.nav.item(i).text() for i in range(window.nav.count())]


def _texts(window) -> dict[str, str]:
    page = window.plan_page
    return {
        "menus": sorted(a.text() for a in window.menuBar().actions()),
        "model": page.model_group.title(),
        "task": page.task_combo.itemText(page.task_combo.findData("full")),
        "chart": page.chart_titles["vramChart"].text(),
        "time": page.time_panel.title(),
        "levers": page.levers_panel.title(),
        "compare": window.compare_page.plan_button.text(),
    }


def test_the_window_speaks_chinese_and_english_again(make_window, language, tmp_path):
    assert language("zh_CN") == "zh_CN"
    assert (tmp_path / "i18n-cache" / "gpuadvisor_zh_CN.qm").is_file()
    window = make_window(settings=Settings(language="zh_CN"), persist=False)
    assert _nav(window) == ["本机", "实测", "规划", "对比"]
    assert _texts(window) == {
        "menus": ["帮助(&H)", "文件(&F)", "编辑(&E)", "视图(&V)"], "model": "模型",
        "task": "全参微调",
        "chart": "单卡显存", "time": "时间", "levers": "如何放得下", "compare": "修改规划",
    }
    assert window.plan_page.banner.text().startswith("放得下：")
    window.close()

    assert language("en") == "en"
    again = make_window(settings=Settings(language="en"), persist=False)
    assert _nav(again) == ["Rig", "Probe", "Plan", "Compare"]
    assert _texts(again) == {
        "menus": ["&Edit", "&File", "&Help", "&View"], "model": "Model", "task": "Full fine-tune",
        "chart": "Memory per GPU", "time": "Time", "levers": "Make it fit",
        "compare": "Change the plan",
    }
    assert again.plan_page.banner.text().startswith("Fits:")


def test_a_missing_catalog_falls_back_to_english(make_window, language, monkeypatch, tmp_path):
    monkeypatch.setattr(i18n, "ts_path", lambda lang: tmp_path / "nowhere.ts")
    assert language("zh_CN") == "en"
    window = make_window(settings=Settings(language="zh_CN"), persist=False)
    assert _nav(window) == ["Rig", "Probe", "Plan", "Compare"]


# -- View → Language ---------------------------------------------------------------------------


def test_the_language_menu_stores_the_choice_for_the_next_start(make_window, config_dir):
    window = make_window(settings=Settings(language="en"))
    actions = window.language_actions
    assert [a.text() for a in window.language_menu.actions()] == [
        "System", "English", "简体中文"]
    assert actions["en"].isChecked()

    actions["zh_CN"].trigger()
    assert window.settings.language == "zh_CN"
    assert actions["zh_CN"].isChecked() and not actions["en"].isChecked()
    kind, _title, text = window.last_message
    assert kind == "info" and "简体中文" in text and "restart" in text
    assert window.status_label.text() == text

    # Back to the language in effect: nothing to restart for, a status line is enough.
    window.last_message = None
    actions["en"].trigger()
    assert window.settings.language == "en" and window.last_message is None
    assert window.status_label.text() == "Language: English"

    actions["system"].trigger()
    assert window.settings.language == "system"
    actions["zh_CN"].trigger()
    window.close()
    saved = json.loads((config_dir / "settings.json").read_text(encoding="utf-8"))
    assert saved["language"] == "zh_CN"


def test_lever_details_and_costs_are_translated_with_their_numbers(qapp):
    from gpuadvisor.gui.data_words import lever_text
    from gpuadvisor.gui.i18n import install_language

    assert lever_text("batch 4 -> 1") == "batch 4 -> 1"  # English: as the advisor wrote it
    assert install_language("zh_CN") == "zh_CN"
    try:
        assert lever_text("micro-batch 8 -> 2, accumulation 1 -> 4 (same global batch)") == (
            "微批次 8 → 2，累积 1 → 4（全局批次不变）")
        assert lever_text("-ngl 46: the other 34 layers in host RAM") == (
            "-ngl 46：其余 34 层放在主机内存")
        assert lever_text("small quality loss") == "质量略有损失"
        assert lever_text("a text the advisor adds later") == "a text the advisor adds later"
    finally:
        install_language("en")


def test_a_lever_button_reads_in_chinese_punctuation_and_breaks_after_its_colon(qtbot):
    # "2 张 GPU 配合 ZeRO-3: 15.0 GiB → 10.3 GiB, 放得下" mixed ASCII ": " and ", " into
    # Chinese; the button broke its two lines after ": " only.
    from gpuadvisor import catalog
    from gpuadvisor.core.fit import levers
    from gpuadvisor.core.plan import Plan
    from gpuadvisor.gui.i18n import install_language
    from gpuadvisor.gui.widgets.levers import LeverButton, lever_text

    models, gpus = catalog.load_models(), catalog.load_gpus()
    lever = next(lv for lv in levers(models["llama-3.1-8b"], Plan(task="qlora"),
                                     gpus["rtx-3090"]) if lv.fits)
    assert install_language("zh_CN") == "zh_CN"
    try:
        text = lever_text(lever, "GiB")
        title, rest = text.split("：", 1)
        assert ": " not in text and ", " not in text and rest.endswith("，放得下")
        button = LeverButton()
        qtbot.addWidget(button)
        button.set_full_text(text)
        assert button._two_lines() == f"{title}：\n{rest}"
    finally:
        install_language("en")


def test_every_lever_text_the_advisor_writes_has_a_translation():
    from gpuadvisor import catalog
    from gpuadvisor.core.fit import levers
    from gpuadvisor.core.plan import Plan
    from gpuadvisor.gui.data_words import _LEVER_TEXTS

    models, gpus = catalog.load_models(), catalog.load_gpus()
    plans = [
        Plan(task="full", micro_batch=8, seq_len=4096, attention="eager"),
        Plan(task="pretrain", micro_batch=4, optimizer="adamw", zero_stage=1, n_gpus=2),
        Plan(task="full", micro_batch=4, seq_len=4096, n_gpus=2),  # a combination
        Plan(task="infer", micro_batch=4, seq_len=32768),
        Plan(task="infer", framework="llama.cpp", quant="f16", seq_len=32768, attention="eager"),
    ]
    texts = set()
    for plan in plans:
        for lever in levers(models["llama-3.1-70b"], plan, gpus["rtx-4090"]):
            texts |= {lever.detail, lever.cost}
    assert len(texts) > 10
    # A combination of levers joins its parts with "; " (each part translated in turn).
    parts = {part for t in texts for part in t.split("; ")}
    assert any("; " in t for t in texts)
    unmatched = {t for t in parts if not any(p.match(t) for p, _ in _LEVER_TEXTS)}
    assert unmatched <= {"llama.cpp -ctk q8_0 -ctv q8_0"}  # a command line: not words


def test_chinese_without_a_cjk_font_says_so_in_one_line(qapp, monkeypatch):
    """Without any font for Simplified Chinese (a Linux machine with no CJK font), the app
    says which package to install instead of drawing boxes; with one, nothing is said."""
    from PySide6.QtGui import QFontDatabase

    monkeypatch.setattr(QFontDatabase, "families", staticmethod(lambda *a: []))
    warning = i18n.missing_font("zh_CN")
    assert warning is not None and "fonts-noto-cjk" in warning and "\n" not in warning
    monkeypatch.setattr(QFontDatabase, "families",
                        staticmethod(lambda *a: ["Noto Sans CJK SC"]))
    assert i18n.missing_font("zh_CN") is None
    assert i18n.missing_font("en") is None


def test_the_deb_recommends_a_cjk_font():
    text = (ROOT / "packaging" / "build.sh").read_text(encoding="utf-8")
    assert "Recommends: fonts-noto-cjk" in text


def test_the_log_checks_explanations_read_in_chinese_with_their_values(qapp):
    """Every explanation check-log writes for the logs of tests/probes/logs is one of the
    window's templates (so none stays English in the Chinese window), and a translated one
    keeps its values."""
    from pathlib import Path

    from gpuadvisor import catalog
    from gpuadvisor.gui.i18n import install_language
    from gpuadvisor.gui.log_check import WHY_TEMPLATES, why_text
    from gpuadvisor.workspace.logs import check_log

    logs = Path(__file__).resolve().parents[1] / "probes" / "logs"
    gpus, models = catalog.load_gpus(), catalog.load_models()
    rows = []
    for name, gpu in (("vllm-0.6.4-rtx3090-llama3.1-8b-20k.log", "rtx-3090"),
                      ("ollama-0.5.4-rtx4090-llama3.1-8b.log", None)):
        checked = check_log((logs / name).read_text(encoding="utf-8"), name, keep=False,
                            model=models["llama-3.1-8b"],
                            gpu=gpus[gpu] if gpu else None, engine_version="0.6.4"
                            if gpu else None)
        rows += [r for r in checked.result.rows if r.why]
    assert len(rows) >= 5
    assert {r.why_template for r in rows} <= set(WHY_TEMPLATES)
    # a value that is itself a sentence (the profiling pass's "how", vLLM's own default)
    # is one of the templates too, and reads in Chinese inside the Chinese sentence
    nested = [(row, value) for row in rows for value in row.why_args.values()
              if getattr(value, "template", None)]
    assert nested, "the vLLM log's profiling pass says how its size was chosen"
    inner = {v.template for _, v in nested} | {a.template for _, v in nested
                                               for a in v.args.values()
                                               if getattr(a, "template", None)}
    assert inner <= set(WHY_TEMPLATES)
    assert install_language("zh_CN") == "zh_CN"
    try:
        for row in rows:
            text = why_text(row)
            assert text != row.why, row.why_template
            for key, value in row.why_args.items():
                if getattr(value, "template", None):
                    assert str(value) not in text  # the English sentence is gone
                elif "{" + key + "}" in row.why_template:
                    assert str(value) in text
        row, how = nested[0]
        assert "without chunked prefill" in how and "0.6.4" in how
        assert "不分块预填充" in why_text(row) and "0.6.4" in why_text(row)
    finally:
        install_language("en")


def test_a_lever_button_goes_back_to_one_line_only_with_a_scroll_bar_to_spare(qtbot):
    # A projector's Make it fit (1366x768, Chinese) scrolled while a button took two lines
    # and not while it took one: the scroll bar's coming and going flipped the button's
    # text, and the layout recursed until the stack overflowed (a segfault).
    from PySide6.QtWidgets import QStyle

    from gpuadvisor.gui.widgets.levers import LeverButton

    button = LeverButton()
    qtbot.addWidget(button)
    full = "2 GPUs with ZeRO-3: 15.0 GiB → 10.3 GiB, fits"
    button.set_full_text(full)
    button.show()
    qtbot.waitExposed(button)
    need = button.fontMetrics().horizontalAdvance(full) + 30  # padding and the stripe
    slack = button.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent) + 4
    button.resize(need - 1, 60)
    assert button.text() == "2 GPUs with ZeRO-3:\n15.0 GiB → 10.3 GiB, fits"
    button.resize(need + slack - 1, 60)  # room for one line, not for a scroll bar more
    assert "\n" in button.text()
    button.resize(need + slack, 60)
    assert button.text() == full
    button.resize(need, 60)  # one line keeps while it fits
    assert button.text() == full


def test_lists_join_with_the_readers_separator(qapp):
    # "（矩阵乘吞吐量, 显存带宽, …）": a Chinese list is joined with "、".
    from PySide6.QtCore import QCoreApplication

    from gpuadvisor.gui.i18n import install_language
    from gpuadvisor.gui.pages.probe import format as pf

    translate = QCoreApplication.translate
    assert pf.probe_names(["matmul", "bandwidth"], translate) == (
        "Matmul throughput, Memory bandwidth")
    assert install_language("zh_CN") == "zh_CN"
    try:
        names = pf.probe_names(["matmul", "bandwidth"], translate)
        assert names == (f"{translate('ProbePage', 'Matmul throughput')}、"
                         f"{translate('ProbePage', 'Memory bandwidth')}")
        assert ", " not in names
    finally:
        install_language("en")


def test_lists_built_in_code_join_with_the_chinese_separator(language):
    """A list the code joins (cards lost from the rig, throttle reasons) reads "A、B" in
    Chinese, not "A, B"."""
    from types import SimpleNamespace

    from gpuadvisor.gui.pages.plan.format import lost_note

    lost = [SimpleNamespace(index=0, name="NVIDIA GeForce RTX 3090"),
            SimpleNamespace(index=1, name="NVIDIA GeForce RTX 4090")]
    assert ", " in lost_note(lost)  # English first
    assert language("zh_CN") == "zh_CN"
    note = lost_note(lost)
    assert "、" in note and ", " not in note, note


def test_chinese_sentences_built_in_code_read_as_chinese(language):
    """Sentences the code puts together end and join the Chinese way: a full stop "。",
    no space after Chinese punctuation, a full-width colon after a source's kind."""
    from gpuadvisor.gui.pages.compare.format import full_stop
    from gpuadvisor.gui.widgets.labels import source_label
    from gpuadvisor.gui.widgets.wrap import cjk_spacing, keep_units, plain

    assert full_stop("a sentence") == "a sentence."
    assert source_label("catalog: rtx-4090") == "catalog: rtx-4090"
    # English keeps its spaces; Chinese loses the ones after its punctuation
    assert cjk_spacing("Done. Next (spot) costs") == "Done. Next (spot) costs"
    assert (cjk_spacing("电费 $0.16。 最快：租用（竞价） 花费")
            == "电费 $0.16。最快：租用（竞价）花费")
    # a rate stays whole on a wrapped line, in either language
    assert keep_units("1,090 tokens/s") == "1,090\u00a0tokens/\u2060s"
    assert plain(keep_units("4,000 token/秒")) == "4,000 token/秒"
    assert keep_units("4,000 token/秒") == "4,000\u00a0token/\u2060秒"
    # a short run of Chinese characters stays whole ("64.0 毫" / "秒" and "已" / "用 480.0
    # MiB" were lines' ends); a longer one may still break inside
    assert keep_units("用时 64.0 毫秒。") == "用\u2060时 64.0\u00a0毫\u2060秒。"
    assert keep_units("（默认 350 W）") == "（默\u2060认 350\u00a0W）"
    assert keep_units("以小规模运行全部测量") == "以小规模运行全部测量"
    assert keep_units("共 3.6 GPU·时") == "共 3.6 GPU\u2060·\u2060时"
    # a flag keeps its number ("-np" / "11" was a line's end)
    assert keep_units("with -np 11") == "with -np\u00a011"
    assert plain(keep_units("3.59 小时")) == "3.59 小时"
    assert language("zh_CN") == "zh_CN"
    assert full_stop("首个 token 用时 1.05 秒") == "首个 token 用时 1.05 秒。"
    assert source_label("catalog: rtx-4090").endswith("：rtx-4090")


def test_the_plan_line_names_a_gguf_quantization_as_the_plan_page_does():
    from gpuadvisor.gui.widgets.labels import quant_label

    assert quant_label("q4_k_m") == "Q4_K_M (GGUF)"
    assert quant_label("nf4") == "NF4 (4-bit)"


def test_a_commands_flag_stays_whole_on_a_wrapped_line():
    # A projector's note broke "docker run --gpus all" after the dashes ("--" / "gpus").
    from gpuadvisor.gui.widgets.wrap import keep_units, plain

    text = "GPU access (docker run --gpus all)"
    assert keep_units(text) == "GPU access (docker run -\u2060-\u2060gpus all)"
    assert plain(keep_units(text)) == text
    assert keep_units("a well-known name") == "a well-known name"


def test_a_badge_breaks_a_chinese_line_at_its_punctuation():
    # "最大可容纳序列长度：44,448" wrapped as "最大可容纳序" / "列长度：" / "44,448".
    from gpuadvisor.gui.widgets.wrap import WORD_JOINER, cjk_words, plain

    text = "最大可容纳序列长度：44,448"
    shown = cjk_words(text)
    head, _, tail = shown.partition("：")
    assert head == WORD_JOINER.join("最大可容纳序列长度") and tail == "44,448"
    assert plain(shown) == text
    assert cjk_words("largest that fits: 2") == "largest that fits: 2"


def test_an_inference_plan_line_counts_requests_not_accumulation():
    # The Compare page's header read "micro-batch 16 × accumulation 1 × sequence 4096" for
    # a vLLM plan: training words, where the Plan page greys out accumulation.
    from gpuadvisor import catalog
    from gpuadvisor.core.plan import Plan
    from gpuadvisor.gui.widgets.summary import plan_line
    from gpuadvisor.gui.widgets.wrap import keep_units, plain

    model = catalog.load_models()["llama-3.1-8b"]
    line = plan_line(Plan(task="infer", framework="vllm", seq_len=4096, new_tokens=256,
                          micro_batch=16), model)
    assert line.startswith("16 request(s) × 4096 prompt + 256 new tokens · 1 GPU(s)")
    assert "accumulation" not in line
    # a quantized model served is named by its weights' format, on a projector too (its
    # heading said "bf16 mixed" of a Q4_K_M plan)
    from gpuadvisor.gui.pages.compare.format import plan_heading

    gguf = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", seq_len=4096)
    assert plan_heading(gguf, model, short=True) == (
        "<b>Llama 3.1 8B</b>, Inference, Q4_K_M (GGUF)")
    assert "weights Q4_K_M (GGUF)" in plan_line(gguf, model)
    assert "base weights" not in plan_line(gguf, model)
    # the footer's key stays whole on a wrapped line
    assert keep_units("h. ★ = best trade-off") == "h. ★\u00a0= best trade-off"
    assert plain(keep_units("h. ★ = best")) == "h. ★ = best"


def test_chinese_counts_in_myriads(language):
    """Chinese groups large numbers by 10^4: 6.65M tokens are 665万, 8.03B parameters 80.3亿,
    52,002 samples 5.20万 (English: 6.65M, 8.03B, 52.0k), and the count fields take them."""
    from gpuadvisor.gui import numbers as N

    assert [N.count(v) for v in (6.65e6, 8.03e9, 52_002, 999, 2e12)] == \
        ["6.65M", "8.03B", "52.0k", "999", "2.00T"]
    assert language("zh_CN") == "zh_CN"
    assert [N.count(v) for v in (6.65e6, 8.03e9, 52_002, 9_999, 2e12, 41.9e6)] == \
        ["665万", "80.3亿", "5.20万", "9,999", "2.00万亿", "4190万"]
    # what it writes, a count field reads back
    from gpuadvisor.core.units import parse_count

    assert [parse_count(t) for t in ("665万", "80.3亿", "4190万", "2万亿")] == \
        pytest.approx([6.65e6, 8.03e9, 4.19e7, 2e12])
    assert language("en") == "en"
    assert N.count(6.65e6) == "6.65M"


def _phrase_templates(path) -> set[str]:
    """Every template a ``Phrase(...)`` call of ``path`` writes as a literal (both arms of
    a ``x if c else y`` template; a row's explanation, passed on by name, is a
    WHY_TEMPLATES template, checked above)."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None) \
            if isinstance(node, ast.Call) else None
        if name == "Phrase":
            first = node.args[0]
            if isinstance(first, ast.Name):
                continue
            arms = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
            for arm in arms:
                assert isinstance(arm, ast.Constant), ast.dump(arm)
                if arm.value:  # Phrase(""): a row with nothing to explain
                    found.add(arm.value)
    return found


def test_the_log_checks_assumptions_and_notes_read_in_chinese(qapp):
    """Every assumption and note check-log writes is a template the window translates
    (none stays English in the Chinese dialog), and the Chinese keeps its values."""
    from pathlib import Path

    from gpuadvisor import catalog
    from gpuadvisor.gui.i18n import install_language
    from gpuadvisor.gui.log_check import SAID_TEMPLATES, WHY_TEMPLATES, said_text
    from gpuadvisor.probes import logcheck
    from gpuadvisor.workspace import logs as workspace_logs
    from gpuadvisor.workspace.logs import check_log

    written = (_phrase_templates(Path(logcheck.__file__))
               | _phrase_templates(Path(workspace_logs.__file__)))
    assert len(written) >= 15
    # a phrase that fills in a row's explanation is one of the explanations' templates
    assert written - set(WHY_TEMPLATES) == set(SAID_TEMPLATES)
    logs = Path(__file__).resolve().parents[1] / "probes" / "logs"
    gpus, models = catalog.load_gpus(), catalog.load_models()
    from gpuadvisor.core.plan import Plan

    said = []
    for name, gpu in (("vllm-0.6.4-rtx3090-llama3.1-8b-20k.log", "rtx-3090"),
                      ("vllm-0.6.4-rtx3090-llama3.1-8b-29k-refused.log", "rtx-3090"),
                      ("torch-2.1-rtx4090-chatglm3-oom.log", "rtx-4090")):
        torch = name.startswith("torch")
        checked = check_log((logs / name).read_text(encoding="utf-8"), name, keep=False,
                            model=models["llama-3.1-8b"], gpu=gpus[gpu],
                            engine_version=None if torch else "0.6.4",
                            base=Plan(task="lora", seq_len=2048) if torch else None)
        said += [*checked.result.assumed, *checked.result.notes]
    assert len(said) >= 4
    assert all(isinstance(p, logcheck.Phrase) and p.template in SAID_TEMPLATES for p in said)
    assert install_language("zh_CN") == "zh_CN"
    try:
        for phrase in said:
            text = said_text(phrase)
            assert text != str(phrase), phrase.template
            for value in phrase.args.values():
                assert str(value) in text
    finally:
        install_language("en")
    assert said_text(said[0]) == str(said[0])
