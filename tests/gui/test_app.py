"""The app's shell: entry points, no-display handling, pages, menus, plan files, settings,
presentation mode, export, and that the GUI process never imports torch."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QMessageBox

from gpuadvisor import cli
from gpuadvisor.gui import app as gui_app
from gpuadvisor.gui.main_window import PAGES, MainWindow
from gpuadvisor.workspace.settings import Settings
from gpuadvisor.workspace.state import PlanState

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

ROOT = Path(__file__).resolve().parents[2]


#: The plan every test starts from (the app's default).
DEFAULT = PlanState().to_dict()


@pytest.fixture(scope="module")
def shared_window(qapp):
    # One window for the tests that change nothing but the plan (a window takes most of a
    # second to build); tests of settings, files and modes build their own (make_window).
    window = MainWindow(settings=Settings(), persist=False, interactive=False)
    window.resize(1400, 900)
    window.show()
    qapp.processEvents()
    yield window
    window.close()
    window.deleteLater()


@pytest.fixture
def window(qtbot, shared_window, config_dir):
    shared_window.state.from_dict(DEFAULT)
    shared_window.show_page("plan")
    shared_window.last_message = None
    shared_window.flush()
    yield shared_window
    shared_window.flush()
    active = [t for t in shared_window.findChildren(QTimer) if t.isActive()]
    assert active == [], "a timer outlived the test"


def _env_without_display(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(extra)
    return env


# -- entry points ------------------------------------------------------------------------------


def test_gui_without_display_is_one_line_and_exit_2_not_a_qt_abort(tmp_path):
    env = _env_without_display(GPUADVISOR_CONFIG_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "gpuadvisor", "gui"], capture_output=True,
                            text=True, env=env, timeout=60, cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [gui_app.NO_DISPLAY_MESSAGE]
    assert "gpuadvisor estimate --help" in lines[0] and "--screenshot" in lines[0]


def test_bare_command_without_display_falls_back_to_a_terminal_estimate(tmp_path):
    env = _env_without_display(GPUADVISOR_CONFIG_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "gpuadvisor"], capture_output=True,
                            text=True, env=env, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(gui_app.NO_DISPLAY_MESSAGE)
    # The fallback is the README's typical plan, QLoRA of Llama 3.1 8B on an RTX 4090.
    assert "Llama 3.1 8B" in result.stdout and "RTX 4090" in result.stdout
    assert "FITS" in result.stdout


@pytest.mark.parametrize(("env", "platform", "ok"), [
    ({}, "linux", False),
    ({"DISPLAY": ":0"}, "linux", True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", True),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False),
    ({"QT_QPA_PLATFORM": "xcb;offscreen"}, "linux", True),
    ({}, "win32", True),
    ({}, "darwin", True),
])
def test_display_problem_knows_when_a_window_can_open(env, platform, ok):
    assert (gui_app.display_problem(env, platform) is None) is ok


def test_a_bare_command_under_an_offscreen_platform_prints_the_estimate(tmp_path):
    """QT_QPA_PLATFORM=offscreen (left set in a shell, or by a test runner): a bare
    ``gpuadvisor`` would open a window nobody sees and never return; it prints the estimate
    and says why, as without a display. A screenshot still renders offscreen."""
    env = _env_without_display(GPUADVISOR_CONFIG_DIR=str(tmp_path), DISPLAY=":0",
                               QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-m", "gpuadvisor"], capture_output=True,
                            text=True, env=env, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "QT_QPA_PLATFORM=offscreen draws no window" in result.stderr
    assert "Llama 3.1 8B" in result.stdout and "FITS" in result.stdout
    assert gui_app.display_problem({"QT_QPA_PLATFORM": "offscreen"}, "win32",
                                   seen=True) is not None
    assert gui_app.display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None


def test_screenshot_renders_offscreen_and_writes_a_png(tmp_path):
    target = tmp_path / "plan.png"
    env = _env_without_display(GPUADVISOR_CONFIG_DIR=str(tmp_path / "config"))
    result = subprocess.run(
        [sys.executable, "-m", "gpuadvisor", "gui", "--screenshot", str(target),
         "--size", "1280x800", "--page", "plan"],
        capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1280, 800)
    assert not (tmp_path / "config" / "settings.json").exists()  # a screenshot saves nothing


def test_bare_gpuadvisor_and_gpuadvisor_gui_open_the_gui(monkeypatch):
    calls = []
    monkeypatch.setattr(gui_app, "run", lambda args: calls.append(args) or 0)
    # A desktop session (the test runner's own offscreen platform would mean "no one sees
    # the window": the terminal estimate instead, tested above).
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setenv("DISPLAY", ":0")
    assert cli.main([]) == 0
    assert gui_app.main(["--page", "rig"]) == 0
    assert [c.verb for c in calls] == ["gui", "gui"]
    assert calls[0].page is None and calls[1].page == "rig"


def test_gui_flags_are_checked_like_every_other_flag(capsys):
    assert cli.main(["gui", "--size", "tiny"]) == 2
    assert "--size" in capsys.readouterr().err


def test_the_gui_process_never_imports_torch(tmp_path):
    # A fresh interpreter: a finder records any attempt to import torch, even a guarded one.
    code = textwrap.dedent("""
        import importlib.abc, sys
        attempts = []
        class Spy(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    attempts.append(name)
                return None
        sys.meta_path.insert(0, Spy())
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        from gpuadvisor.gui.main_window import MainWindow
        deferred = "pyqtgraph" not in sys.modules  # the window comes before the charts
        window = MainWindow(persist=False, interactive=False, defer_charts=True)
        window.show()
        app.processEvents()
        window.state.set_model("qwen2.5-7b")
        window.state.update(task="full", micro_batch=4)
        window.flush()
        assert window.state.estimate.memory.total > 0
        window.close()
        print("torch" in sys.modules, attempts, deferred, len(window.plan_page.charts))
    """)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GPUADVISOR_CONFIG_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    # four charts, and a server's load curve that stands in for the micro-batch one
    assert result.stdout.strip() == "False [] True 5"


def test_showing_the_window_and_estimating_leaves_torch_unimported(window):
    window.state.update(micro_batch=2)
    window.flush()
    assert "torch" not in sys.modules


def test_the_charts_follow_the_first_paint_when_deferred(qtbot, config_dir):
    window = MainWindow(settings=Settings(), persist=False, interactive=False,
                        defer_charts=True)
    qtbot.addWidget(window)
    page = window.plan_page
    assert page.charts == [] and page.banner.text().startswith("Fits")
    with qtbot.waitSignal(page.charts_built, timeout=5000):
        window.show()
    assert page.charts_placeholder.isHidden()
    assert page.vram_chart.totals()[0] > 0
    window.close()
    assert not page._charts_timer.isActive()


def test_the_window_style_uses_the_charts_colours():
    from gpuadvisor.gui.charts import style
    from gpuadvisor.gui.widgets import theme

    assert theme.CATEGORY_COLORS == style.CATEGORY_COLORS
    assert theme.CATEGORY_TEXT_COLORS == style.CATEGORY_TEXT_COLORS
    assert all(style.OKABE_ITO[k] == v for k, v in theme.OKABE_ITO.items())


# -- pages and menus ---------------------------------------------------------------------------


def test_the_plan_page_is_the_default_and_every_page_is_reachable(qtbot, window):
    assert window.current_page() == "plan"
    assert [window.nav.item(i).text() for i in range(window.nav.count())] == [
        "Rig", "Probe", "Plan", "Compare"]
    for name in PAGES:
        row = PAGES.index(name)
        rect = window.nav.visualItemRect(window.nav.item(row))
        qtbot.mouseClick(window.nav.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        assert window.current_page() == name


def test_the_compare_page_answers_for_the_plan_and_leads_back_to_it(qtbot, window):
    window.show_page("compare")
    page = window.compare_page
    window.flush()
    # The default plan (QLoRA of Llama 3.1 8B) fits many offers: the answer names the best.
    assert page.advice is not None and page.answer_text().startswith("Best (cheapest): ")
    assert page.advice.best.option.label in page.answer_text()
    qtbot.mouseClick(page.plan_button, Qt.MouseButton.LeftButton)
    assert window.current_page() == "plan"


def test_menus_have_the_promised_actions(window):
    titles = {a.text().replace("&", "") for a in window.menuBar().actions()}
    assert titles == {"File", "Edit", "View", "Help"}
    assert window.presentation_action.shortcut().toString() == "F11"
    for action in (window.open_action, window.save_action, window.save_as_action,
                   window.export_action, window.copy_action, window.quit_action,
                   window.about_action):
        assert action.text()
    assert window.recent_menu.actions()[0].text() == "No recent plans"


def test_about_names_the_version(window):
    from gpuadvisor import __version__

    window.about_action.trigger()
    kind, _title, text = window.last_message
    assert kind == "info" and f"gpuadvisor {__version__}" in text


def test_an_interactive_message_is_a_box_that_does_not_block(qtbot, make_window):
    window = make_window(interactive=True)
    window.report("error", "Cannot open plan", "plan.gpuplan: file not found")
    boxes = [w for w in window.findChildren(QMessageBox) if w.isVisible()]
    assert [b.text() for b in boxes] == ["plan.gpuplan: file not found"]
    boxes[0].accept()


# -- plan files --------------------------------------------------------------------------------


def test_save_writes_a_plan_file_and_open_brings_it_back(make_window, tmp_path, monkeypatch):
    window = make_window()
    window.state.update(micro_batch=3, checkpointing="selective")
    monkeypatch.setattr(window, "ask_save_path", lambda: str(tmp_path / "my plan"))
    assert window.save_action.trigger() is None
    saved = tmp_path / "my plan.gpuplan"
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["schema_version"] == 1 and data["plan"]["micro_batch"] == 3
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically, no leftovers
    assert window.windowTitle().startswith("my plan.gpuplan")
    assert not window.isWindowModified()

    window.state.update(micro_batch=7)
    assert window.isWindowModified()
    monkeypatch.setattr(window, "ask_open_path", lambda: str(saved))
    window.open_action.trigger()
    assert window.state.plan.micro_batch == 3
    assert window.settings.recent_files[0] == str(saved.resolve())
    assert window.recent_menu.actions()[0].text() == str(saved.resolve())


@pytest.mark.parametrize(("content", "says"), [
    ("{ not json", "not valid JSON"),
    ('{"schema_version": 99, "app": "gpuadvisor"}', "newer gpuadvisor"),
    ('{"schema_version": 1, "model": {"preset": "llama-9"}, "plan": {}}', "model.preset"),
])
def test_opening_a_broken_plan_says_what_is_wrong_and_changes_nothing(window, tmp_path,
                                                                     content, says):
    path = tmp_path / "broken.gpuplan"
    path.write_text(content, encoding="utf-8")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    plan_before = window.state.plan
    assert window.open_plan(path) is False
    kind, title, text = window.last_message
    assert kind == "error" and title == "Cannot open plan" and says in text
    assert window.status_label.text() == text
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert window.state.plan == plan_before
    assert list(tmp_path.iterdir()) == [path]


def test_a_broken_plan_given_to_a_screenshot_run_is_one_line_and_exit_2(qapp, tmp_path,
                                                                       config_dir, capsys):
    bad = tmp_path / "bad.gpuplan"
    bad.write_text("[]", encoding="utf-8")
    args = cli.build_parser().parse_args(
        ["gui", "--screenshot", str(tmp_path / "x.png"), "--plan", str(bad)])
    assert gui_app.run(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "must hold a JSON object" in err[0]
    assert not (tmp_path / "x.png").exists()


def test_a_plan_given_to_a_screenshot_run_is_drawn(qapp, tmp_path, config_dir):
    from gpuadvisor.workspace.planfile import save_plan

    state = PlanState()
    state.update(micro_batch=2)
    plan = save_plan(state, tmp_path / "p.gpuplan")
    args = cli.build_parser().parse_args(
        ["gui", "--screenshot", str(tmp_path / "x.png"), "--plan", str(plan), "--size",
         "1280x800", "--presentation"])
    assert gui_app.run(args) == 0
    assert QImage(str(tmp_path / "x.png")).width() == 1280
    assert not (config_dir / "settings.json").exists()


# -- settings ----------------------------------------------------------------------------------


def test_settings_are_saved_on_close_and_used_at_the_next_start(make_window, config_dir):
    window = make_window()
    window.units_actions["GB"].trigger()
    assert window.plan_page.units == "GB"
    window.close()
    saved = json.loads((config_dir / "settings.json").read_text(encoding="utf-8"))
    assert saved["units"] == "GB" and saved["window_geometry"]
    again = make_window()
    assert again.plan_page.units == "GB"
    assert again.units_actions["GB"].isChecked()


def test_a_corrupt_settings_file_is_reported_once_and_defaults_are_used(make_window, config_dir):
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_text("{ nope", encoding="utf-8")
    window = make_window()
    kind, _title, text = window.last_message
    assert kind == "warning" and "not valid JSON" in text
    assert window.status_label.text() == text
    assert window.settings == Settings()
    assert list(config_dir.glob("settings.json.bad-*"))
    window.last_message = None
    window.hide()
    window.show()
    assert window.last_message is None  # once


# -- view, export ------------------------------------------------------------------------------


def test_presentation_mode_is_full_screen_with_large_text_and_thick_lines(qtbot, make_window):
    window = make_window()
    window.presentation_action.trigger()
    assert window.presentation and window.settings.presentation_mode
    qtbot.waitUntil(window.isFullScreen, timeout=2000)
    assert window.plan_page.vram_chart.presentation
    assert window.plan_page.mb_chart.theme.line_px >= 3
    assert "14pt" in window.styleSheet()
    window.presentation_action.trigger()
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=2000)
    assert not window.plan_page.vram_chart.presentation


def test_export_page_as_png(window, tmp_path, monkeypatch):
    target = tmp_path / "plan.png"
    monkeypatch.setattr(window, "ask_png_path", lambda: str(target))
    window.export_action.trigger()
    image = QImage(str(target))
    assert not image.isNull() and image.width() > 500


def test_copy_summary_puts_markdown_on_the_clipboard(window):
    window.copy_action.trigger()
    text = QGuiApplication.clipboard().text()
    assert text.startswith("## Llama 3.1 8B")
    assert "| weights |" in text
    assert "clipboard" in window.status_label.text()


def test_the_plan_is_timed_with_what_the_probe_history_measured(make_window, tmp_path,
                                                                  monkeypatch):
    from gpuadvisor.probes import history
    from tests.probes.test_history import make_run

    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path / "data"))
    # An RTX 4090 measured 50 TFLOPS of bf16 matmul: a bf16 training plan on it is timed
    # with that matmul rate in its kernels (core's estimate with the same measurement).
    from gpuadvisor.core.calibration import Measurement
    from gpuadvisor.core.estimate import estimate

    history.record(make_run(bf16_tflops=50.0), timestamp="2026-12-01T10:00:00Z")
    window = make_window()
    state = window.state
    state.set_gpu("rtx-4090")
    state.update(task="pretrain", precision="bf16", dataset_tokens=1e9)
    result = state.estimate
    assert result.assumptions["efficiency_source"] == "measured 2026-12-01"
    assert result.assumptions["measured_matmul_tflops"] == 50.0

    def expected(tflops):
        m = Measurement(tflops, "bf16", "2026-12-01T10:00:00Z", gpu_id="rtx-4090")
        return estimate(state.model, state.plan, state.gpu, measurement=m).time
    assert result.time.seconds == pytest.approx(expected(50.0).seconds, rel=1e-9)
    # A newer run arriving from the Probe page is picked up: twice the matmul rate, faster.
    history.record(make_run(bf16_tflops=100.0), timestamp="2026-12-02T10:00:00Z")
    window.probe_page.run_finished.emit(None)
    assert state.estimate.time.seconds == pytest.approx(expected(100.0).seconds, rel=1e-9)
    assert state.estimate.time.seconds < result.time.seconds


def test_the_gui_entry_point_refuses_an_empty_screenshot_path():
    # gpuadvisor-gui parses its own flags (it does not go through the command line): an
    # empty --screenshot must not open the interactive app and wait.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c",
                           "import sys; from gpuadvisor.gui.app import main; "
                           "sys.exit(main(['--screenshot', '']))"],
                          capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 2
    assert "--screenshot" in done.stderr and "empty" in done.stderr
