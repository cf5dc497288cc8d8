"""The Probe page with the fake worker: a click on Quick shows a progress row per probe, then
bars with the measured values against the catalog and a history row; Cancel ends a slow run
as "cancelled" with the GUI responsive all along; a machine without PyTorch says what to do;
errors, a broken history file and the burn-in's temperature limit are shown, never raised."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt, QTimer

from gpuadvisor.gui.pages.probe_page import ProbePage
from gpuadvisor.gui.probe_jobs import check_python
from gpuadvisor.probes import history, runner
from gpuadvisor.probes.protocol import Hello, Result
from gpuadvisor.workspace.settings import Settings
from gpuadvisor.workspace.state import PlanState
from tests.fakes import fake_worker

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

FAKE_WORKER = Path(__file__).resolve().parents[1] / "fakes" / "fake_worker.py"
WAIT_MS = 10000


@pytest.fixture(scope="module")
def catalog_state():
    state = PlanState()
    return dict(state.models), dict(state.gpus)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv(history.DATA_DIR_ENV, str(folder))
    return folder


@pytest.fixture
def make_page(qtbot, catalog_state, data_dir):
    pages = []

    def make(mode: str = "ok", *, hello_mode: str | None = None, settings=None, **kwargs):
        """A shown page whose worker is the fake in ``mode`` (and whose interpreter check
        answers as ``hello_mode``, default the same)."""
        args = ("--mode", *mode.split())
        check_args = ("--mode", *(hello_mode or mode).split())
        kwargs.setdefault("discover", lambda preferred: [
            check_python(sys.executable, worker=FAKE_WORKER, extra_args=check_args)])
        kwargs.setdefault("telemetry_spec", "one-gpu")
        page = ProbePage(PlanState(*catalog_state), settings=settings or Settings(),
                         worker=FAKE_WORKER, worker_args=args, **kwargs)
        qtbot.addWidget(page)
        page.resize(1400, 900)
        with qtbot.waitSignal(page.interpreters_ready, timeout=WAIT_MS):
            page.show()
            qtbot.waitExposed(page)
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.close()
        assert not page.running
        assert not page.sample_timer.isActive(), "the reading timer outlived the test"
        assert [t for t in page.findChildren(QTimer) if t.isActive()] == []
        assert page._pool.activeThreadCount() == 0


def click(qtbot, button) -> None:
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def run_quick(qtbot, page) -> object:
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS) as blocker:
        click(qtbot, page.quick_button)
    return blocker.args[0]


def test_the_interpreter_and_its_devices_come_from_the_workers_hello(make_page):
    page = make_page("rtx4090")
    assert page.current_python() == sys.executable
    assert "PyTorch 0.0-fake, cuda" in page.python_combo.currentText()
    devices = [page.device_combo.itemData(i)["id"] for i in range(page.device_combo.count())]
    assert devices == ["cuda:0", "cpu"]
    assert "cuda:0 (NVIDIA GeForce RTX 4090)" in page.device_note.text()
    assert page.quick_button.isEnabled() and not page.cancel_button.isEnabled()


def test_quick_shows_progress_then_bars_of_the_measured_values_and_a_history_row(
        qtbot, make_page, data_dir):
    page = make_page("rtx4090")
    seen = []
    page.queue.progress.connect(lambda *args: seen.append(args))
    run = run_quick(qtbot, page)
    assert run.status == "ok"
    assert ("matmul", 0.5, "half way") in seen
    assert list(page._progress_rows) == list(runner.SUITE_PROBES)
    for row in page._progress_rows.values():
        assert row.bar.value() == 1000 and row.message.text() == "done"
    assert page.run_status.text().startswith("Finished in")

    gpu = page.state.gpus["rtx-4090"]
    bars = {label: (measured, peak, pct) for label, measured, peak, pct
            in page.charts["TFLOPS"].bars()}
    figures = fake_worker.FIGURES
    for dtype in ("fp32", "bf16", "fp16"):
        measured, peak, pct = bars[f"{dtype} matmul"]
        assert measured == figures["matmul"][f"{dtype}_median_tflops"]
        assert peak == pytest.approx(gpu.peak_tflops(dtype))
        assert pct == pytest.approx(100 * measured / peak)
    bandwidth = {label: measured for label, measured, *_ in page.charts["GB/s"].bars()}
    assert bandwidth == {"memory copy": 905.5, "memory triad": 921.0}
    assert page.charts["GB/s"].bars()[0][2] == gpu.memory_bandwidth_gb_s
    assert "148 TFLOPS · " in page.charts["TFLOPS"].value_texts()[1]
    assert "catalog: NVIDIA GeForce RTX 4090" in page.text()
    assert "saved to the history" in page.text()

    table = page.history.table
    assert table.rowCount() == 1
    assert page.history.device_combo.currentText() == "NVIDIA GeForce RTX 4090"
    assert page.history.figure_combo.currentData() == "matmul.bf16_median_tflops"
    assert table.item(0, 2).text() == "148.25"
    stored = history.runs()
    assert len(stored) == 1 and stored[0].figure("bandwidth", "copy_gb_s") == 905.5
    assert (data_dir / "probes" / "gpu-fake-4090.json").is_file()
    _x, y = page.history.chart.curve.getData()
    assert list(y) == [148.25]


def test_cancel_during_a_slow_run_ends_cancelled_and_the_gui_stays_responsive(
        qtbot, make_page):
    page = make_page("slow-progress", hello_mode="ok")
    ticks = []
    page.queue.progress.connect(lambda *args: ticks.append(args))
    click(qtbot, page.quick_button)
    assert page.running and page.cancel_button.isEnabled()
    assert not page.quick_button.isEnabled() and not page.python_combo.isEnabled()
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=WAIT_MS)  # events keep flowing
    assert page._progress_rows["matmul"].message.text().startswith("tick ")
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS) as blocker:
        click(qtbot, page.cancel_button)
    assert blocker.args[0].status == "cancelled"
    assert page.run_status.text().startswith("Cancelled after")
    assert page._progress_rows["matmul"].message.text() == "cancelled"
    assert page.errors_label.isHidden()
    assert history.runs() == [] and page.history.table.rowCount() == 0
    assert page.quick_button.isEnabled() and not page.cancel_button.isEnabled()


def test_no_pytorch_in_any_interpreter_says_what_to_do(qtbot, make_page):
    page = make_page("no-torch")
    assert not page.torch_missing.isHidden()
    text = page.torch_missing.text()
    assert "No Python environment with PyTorch" in text
    assert "pip install torch" in text and "Browse…" in text
    assert "no PyTorch" in page.python_combo.currentText()
    assert not page.quick_button.isEnabled() and not page.run_quick()
    assert page.device_combo.count() == 0


def test_browsing_to_an_interpreter_with_pytorch_selects_and_remembers_it(
        qtbot, make_page, monkeypatch):
    settings = Settings()
    page = make_page("ok", hello_mode="no-torch", settings=settings,
                     check=lambda p: check_python(p, worker=FAKE_WORKER,
                                                  extra_args=("--mode", "ok")))
    assert not page.quick_button.isEnabled()
    monkeypatch.setattr(page, "ask_python_path", lambda: sys.executable)
    with qtbot.waitSignal(page.interpreters_ready, timeout=WAIT_MS):
        click(qtbot, page.browse_button)
    assert page.current_interpreter().usable
    assert page.torch_missing.isHidden() and page.quick_button.isEnabled()
    assert settings.probe_python == os.path.abspath(sys.executable)


def test_a_failed_probe_is_shown_with_its_reason_and_the_results_are_kept(qtbot, make_page):
    page = make_page("nonzero-exit", hello_mode="ok")
    run = run_quick(qtbot, page)
    assert run.status == "error"
    assert "Finished with problems" in page.run_status.text()
    errors = page.errors_label.text()
    assert not page.errors_label.isHidden()
    assert "nonzero-exit" in errors and "status 3" in errors
    assert "something went badly wrong" in errors
    assert page._progress_rows["matmul"].message.text() == "done"
    assert page._progress_rows["bandwidth"].message.property("severity") == "error"
    assert page.history.table.rowCount() == 1  # the matmul result is history


def test_a_broken_history_file_is_set_aside_and_reported(qtbot, data_dir, make_page):
    folder = data_dir / "probes"
    folder.mkdir(parents=True)
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    page = make_page("ok")
    message = page.history.problem
    assert not message.isHidden() and "is not valid JSON" in message.text()
    assert "broken.json" in message.text()
    assert not (folder / "broken.json").exists()


def _stored(timestamp: str, bf16: float) -> None:
    hello = Hello(protocol=1, versions={"python": "3", "torch": "2.5"},
                  devices=({"id": "cpu", "type": "cpu", "name": "Test CPU"},))
    result = Result("matmul", {"bf16_median_tflops": bf16}, {"bf16_median_tflops": "TFLOPS"},
                    {"device": "cpu"})
    history.record(runner.ProbeRun(status="ok", hello=hello, results=(result,)),
                   timestamp=timestamp)


def test_two_runs_selected_in_the_history_are_compared_with_the_change(qtbot, make_page):
    _stored("2026-01-05T10:00:00Z", 2.0)
    _stored("2026-02-05T10:00:00Z", 2.5)
    page = make_page("ok")
    panel = page.history
    assert panel.device_combo.currentText() == "Test CPU"
    assert [panel.table.item(r, 2).text() for r in range(2)] == ["2.5", "2"]
    panel.table.selectRow(0)
    panel.table.selectionModel().select(
        panel.table.model().index(1, 0),
        QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
    assert panel.compared() == [("Matmul throughput: bf16 median (TFLOPS)", "2", "2.5", "+25.0%")]
    assert len(panel.chart.highlight.data) == 2
    x, y = panel.chart.curve.getData()
    assert list(y) == [2.0, 2.5] and x[0] < x[1]
    panel.table.clearSelection()
    assert panel.compared() == []


def test_the_burn_in_is_stopped_gracefully_at_the_temperature_limit(qtbot, make_page):
    page = make_page("stop-aware --gpu", hello_mode="ok --gpu")
    page.burnin_minutes.setValue(1)
    page.temperature_limit.setValue(35)  # the simulated RTX 4090 idles near 40 °C
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS) as blocker:
        click(qtbot, page.burnin_button)
        assert page.stop_button.isEnabled()
    run = blocker.args[0]
    assert run.status == "ok" and run.result("burnin") is not None
    assert "reached" in page.run_status.text() and "limit 35 °C" in page.run_status.text()
    assert page.live_chart.sample_count >= 1
    assert "Live readings during the run" in page.text()
    assert page.last_job.options == {"burnin": {"seconds": 60}}


def test_stop_ends_a_burn_in_early_and_keeps_its_result(qtbot, make_page):
    page = make_page("stop-aware", hello_mode="ok")
    with qtbot.waitSignal(page.queue.progress, timeout=WAIT_MS):
        click(qtbot, page.burnin_button)
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS) as blocker:
        click(qtbot, page.stop_button)
    assert blocker.args[0].status == "ok"
    assert "Ended early: stopped early by you." in page.run_status.text()


def test_plan_check_shows_measured_against_estimated(qtbot, make_page):
    page = make_page("ok --gpu")
    page.state.set_gpu("rtx-4090")
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS):
        click(qtbot, page.plancheck_button)
    assert page.last_job.probes[0] == "plancheck"
    assert page.last_job.options["plancheck"]["layers_full"] == page.state.model.n_layers
    comparison = page.comparison
    assert comparison is not None
    step = comparison.row("step_s")
    assert step.measured == pytest.approx(page.state.plan.grad_accum * 1.25 + 0.05)
    table = next(w for w in page._result_widgets if w.objectName() == "plancheckTable")
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert "optimizer step" in labels and "peak memory: tensors" in labels
    assert "Plan check: measured vs estimated" in page.text()


def test_a_plan_the_check_cannot_build_is_explained(qtbot, make_page):
    page = make_page("ok")
    page.state.update(task="infer")
    click(qtbot, page.plancheck_button)
    assert not page.running
    assert "cannot be checked" in page.run_status.text() and "infer" in page.run_status.text()


def test_the_probe_page_in_the_window_follows_presentation_and_closes_cleanly(
        qtbot, make_window, data_dir):
    window = make_window(settings=Settings(), persist=False, probe_options={
        "worker": FAKE_WORKER, "worker_args": ("--mode", "rtx4090"),
        "telemetry_spec": "one-gpu"})
    torch_before = "torch" in sys.modules  # other test modules may have loaded it
    page = window.probe_page
    assert window.pages["probe"] is page
    with qtbot.waitSignal(page.interpreters_ready, timeout=WAIT_MS):
        window.show_page("probe")
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS):
        click(qtbot, page.quick_button)
    window.set_presentation(True, full_screen=False)
    assert page.charts["TFLOPS"].presentation
    assert window.status_label.text().startswith("Finished in")
    assert ("torch" in sys.modules) == torch_before  # the probes ran in a subprocess


def test_a_slow_run_keeps_going_while_the_page_is_hidden_but_readings_pause(
        qtbot, make_page):
    page = make_page("slow --gpu", hello_mode="ok --gpu")
    with qtbot.waitSignal(page.sampled, timeout=WAIT_MS):
        click(qtbot, page.quick_button)
    page.hide()
    assert not page.sample_timer.isActive() and page.running
    page.show()
    assert page.sample_timer.isActive()
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS):
        page.cancel()
    assert not page.sample_timer.isActive()


def test_settings_remembered_python_is_preferred(qtbot, make_page):
    settings = Settings(probe_python=sys.executable)
    seen = []

    def discover(preferred):
        seen.append(preferred)
        return [check_python(sys.executable, worker=FAKE_WORKER, extra_args=("--mode", "ok"))]

    make_page("ok", settings=settings, discover=discover)
    assert seen == [sys.executable]


def test_units_change_the_device_sizes(make_page):
    page = make_page("rtx4090")
    assert "24.0 GiB" in page.device_combo.itemText(0)
    page.set_units("GB")
    assert "25.8 GB" in page.device_combo.itemText(0)


def test_a_cpu_run_says_there_are_no_gpu_readings_to_show(qtbot, make_page):
    page = make_page("slow", hello_mode="ok")
    with qtbot.waitSignal(page.queue.progress, timeout=WAIT_MS):
        click(qtbot, page.quick_button)
    qtbot.waitUntil(lambda: "CPU is being measured" in page.telemetry_note.text(),
                    timeout=WAIT_MS)
    assert page.live_chart is None
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS):
        page.cancel()


def test_a_machine_without_gpu_sensors_says_so_and_gives_the_room_to_the_results(
        qtbot, make_page, monkeypatch, tmp_path):
    from gpuadvisor.hardware import nvml
    from tests.fakes import fake_pynvml

    monkeypatch.setattr(nvml, "_session", {"module": None, "refs": 0})
    monkeypatch.setattr(nvml, "deprecated_pynvml_hint", lambda *a, **k: None)
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml.make_module(
        [], init_error=fake_pynvml.NVML_ERROR_LIBRARY_NOT_FOUND))
    page = make_page("ok", telemetry_spec=None, telemetry_options={
        "system": "Linux", "env": nvml.Environment(), "sysfs_root": tmp_path})
    page.wait()
    note = page.telemetry_note.text()
    assert note.startswith("No live readings on this machine: ") and "driver" in note.lower()
    assert page.telemetry_box.maximumWidth() < 1000


def test_the_dataset_disk_is_set_against_the_plans_tokens_per_second(qtbot, make_page,
                                                                      tmp_path):
    page = make_page("rtx4090")
    page.ask_data_folder = lambda: str(tmp_path)
    with qtbot.waitSignal(page.run_finished, timeout=WAIT_MS):
        click(qtbot, page.dataread_button)
    # The plan trains at T tokens/s; as 2-byte ids it needs T x 2 / 1e6 MB/s of 480 MB/s.
    tokens = float(page.state.estimate.time.tokens_per_s)
    need = tokens * 2 / 1e6
    text = page.text()
    assert "The dataset disk reads 480 MB/s" in text
    assert f"({tokens:,.0f} tokens/s as 2-byte token ids)" in text
    assert f"not a bottleneck ({480 / need:.0f}x headroom)" in text
    assert not page.run_dataread(str(tmp_path / "missing"))
    assert "Not a folder" in page.run_status.text()


#: Imports a module with Qt (PySide6, shiboken6, pyqtgraph) made unimportable.
QT_ABSENT = """
import importlib, sys
class NoQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
            raise ImportError("no Qt here: " + name)
sys.meta_path.insert(0, NoQt())
module = importlib.import_module(sys.argv[1])
print(module.run_finished_text("ok", 2.0, None))
"""


def test_what_the_page_says_is_written_without_qt_so_other_fronts_can_say_it():
    import subprocess

    result = subprocess.run([sys.executable, "-c", QT_ABSENT, "gpuadvisor.gui.pages.probe.format"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == "('Finished in 2.0 s.', 'ok')"


def test_history_names_probes_and_figures_for_people_and_leaves_out_skipped_ones():
    """The history's "Probes" column and figure labels: the probes' names and the figure
    words in the app's language; a probe with no figures (host copies skipped on a CPU) is
    not listed as run."""
    from gpuadvisor.gui.pages.probe import format as pf

    results = {"matmul": {"figures": {"bf16_median_tflops": 30.0}},
               "transfer": {"figures": {}, "conditions": {"skipped": "no GPU"}},
               "bandwidth": {"figures": {"triad_gb_s": 400.0}}}
    assert pf.measured_probes(results) == "Matmul throughput, Memory bandwidth"
    assert pf.figure_label("matmul", "bf16_median_tflops") == "Matmul throughput: bf16 median"
    table = {"Matmul throughput": "矩阵乘吞吐量", "median": "中位数"}
    zh = pf.figure_label("matmul", "bf16_median_tflops", lambda c, t: table.get(t, t))
    assert zh == "矩阵乘吞吐量: bf16 中位数"


def test_a_cpus_name_is_shortened_by_rule_and_a_path_by_whole_folders():
    """The pickers' texts where the bar is narrow: Qt's eliding had "cpu — Inte…, 23.5 GiB"
    and "/work/main/.venv/bin/p…h 2.13.0+cpu"; the rules drop the name's noise, then whole
    words, and whole folders from the middle of a path, keeping the kind, memory and
    PyTorch."""
    from gpuadvisor.gui.pages.probe import format as pf
    from gpuadvisor.probes.interpreters import InterpreterInfo

    assert pf.short_device_name("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz") == \
        "Intel Xeon E5-2680 v4"
    assert pf.short_device_name("Intel(R) Xeon(R) Processor") == "Intel Xeon"
    assert pf.short_device_name("AMD EPYC 7763 64-Core Processor") == "AMD EPYC 7763 64-Core"
    assert pf.short_device_name("NVIDIA GeForce RTX 4090") == "NVIDIA GeForce RTX 4090"
    cpu = {"id": "cpu", "name": "Intel(R) Xeon(R) Processor",
           "memory_total_bytes": int(23.5 * 2**30)}
    full = pf.device_text(cpu, "GiB")
    assert full == "cpu — Intel(R) Xeon(R) Processor, 23.5 GiB"
    fitted = [pf.fitted_device_text(cpu, "GiB", len, room) for room in (60, 30, 21, 14, 5)]
    assert fitted == [full, "cpu — Intel Xeon, 23.5 GiB", "cpu — …Xeon, 23.5 GiB",
                      "cpu, 23.5 GiB", "cpu, 23.5 GiB"]

    assert pf.shortened_paths("/work/main/.venv/bin/python3") == [
        "/work/…/.venv/bin/python3", "/work/…/bin/python3", "/work/…/python3", "…/python3"]
    assert pf.shortened_paths(r"C:\envs\train\python.exe") == [
        r"C:\…\train\python.exe", r"C:\…\python.exe", r"…\python.exe"]
    assert pf.shortened_paths("python3") == []
    info = InterpreterInfo(python="/work/main/.venv/bin/python3", python_version="3.12",
                           torch="2.13.0+cpu", accelerators=())
    state = "PyTorch 2.13.0+cpu, CPU only"
    assert pf.fitted_interpreter_text(info, len, 100) == pf.interpreter_text(info)
    assert pf.fitted_interpreter_text(info, len, 50) == f"/work/…/bin/python3 — {state}"
    assert pf.fitted_interpreter_text(info, len, 30) == "…/python3 — PyTorch 2.13.0+cpu"
    assert pf.fitted_interpreter_text(info, len, 20) == "PyTorch 2.13.0+cpu"  # the narrowest


def test_the_pickers_shorten_whole_words_and_keep_the_whole_text_in_the_tooltip(make_page):
    import re

    from PySide6.QtCore import QSignalBlocker

    page = make_page("rtx4090")
    combo = page.device_combo
    tip = combo.toolTip()
    cpu = {"id": "cpu", "type": "cpu", "name": "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
           "memory_total_bytes": int(23.5 * 2**30)}
    with QSignalBlocker(combo):
        combo.addItem("cpu — " + cpu["name"] + ", 23.5 GiB", cpu)
    combo.setCurrentIndex(combo.count() - 1)
    whole = combo.currentText()
    metrics = combo.fontMetrics()
    for room_words in ("cpu — Intel Xeon E5-2680 v4, 23.5 GiB", "cpu — …v4, 23.5 GiB"):
        combo.setFixedWidth(metrics.horizontalAdvance(room_words) + 60)
        shown = combo.refit()
        assert shown != whole
        assert metrics.horizontalAdvance(shown) <= combo._room()
        assert shown.startswith("cpu") and shown.endswith(", 23.5 GiB"), shown
        assert not re.search(r"\w…", shown), shown  # never a word cut in two
        assert combo.toolTip().startswith(whole)
    combo.setMinimumWidth(0)
    combo.setMaximumWidth(16777215)
    combo.setFixedWidth(metrics.horizontalAdvance(whole) + 80)
    assert combo.refit() == whole
    assert combo.toolTip() == tip  # the whole text shows: the tooltip is its own again

    python = page.python_combo
    python.setFixedWidth(metrics.horizontalAdvance(python.currentText()) // 2 + 40)
    shown = python.refit()
    assert shown != python.currentText()
    assert not re.search(r"\w…", shown), shown
    assert shown.endswith("PyTorch 0.0-fake, cuda") or shown.endswith("PyTorch 0.0-fake")
    assert python.toolTip().startswith(python.currentText())
