"""The Rig page: tiles per GPU for every simulated scenario and for (fake) NVML, n/a fields,
warnings, the lost marker, the hint when there is no GPU, live charts that grow only while the
page is shown, and demo rigs that become the Plan page's target GPU."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys

import pytest
from PySide6.QtCore import QTimer

from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.gui.main_window import MainWindow
from gpuadvisor.gui.pages.rig_page import RigPage
from gpuadvisor.hardware import nvml
from gpuadvisor.hardware.base import HostInfo
from gpuadvisor.workspace.settings import Settings
from gpuadvisor.workspace.state import PlanState
from tests.fakes import fake_pynvml as F

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

HOST = HostInfo(cpu_model="Test CPU", cpu_cores_physical=4, cpu_cores_logical=8,
                ram_total_bytes=64 * 1024**3, os="Linux test", python_version="3.11.9",
                torch_available=False, torch_error="No module named 'torch'")
NO_ENV = nvml.Environment()


@pytest.fixture(scope="module")
def catalog_state():
    # Catalogs load once; each test gets a fresh PlanState over the same dicts.
    state = PlanState()
    return dict(state.models), dict(state.gpus)


@pytest.fixture
def make_page(qtbot, catalog_state):
    pages = []

    def make(spec=None, *, options=None, state=None):
        state = state or PlanState(*catalog_state)
        page = RigPage(state, simulate=spec, host=HOST, backend_options=options)
        qtbot.addWidget(page)
        page.resize(1200, 900)
        page.show()
        qtbot.waitExposed(page)
        with qtbot.waitSignal(page.detection_finished, timeout=10000):
            page.refresh()
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.close()
        assert not page.sample_timer.isActive(), "the sampling timer outlived the test"
        assert page._pool.activeThreadCount() == 0


def _tick(qtbot, page) -> None:
    with qtbot.waitSignal(page.sampled, timeout=5000):
        assert page.tick()


def test_one_gpu_tile_shows_fields_catalog_peaks_and_host(make_page):
    page = make_page("one-gpu")
    assert len(page.tiles) == 1
    text = page.tiles[0].text()
    assert "GPU 0: NVIDIA GeForce RTX 4090" in text
    assert "rtx-4090" in text and "peak bf16" in text and "GB/s" in text
    assert "Driver / CUDA: 550.54.15 / 12.4" in text
    assert "Compute capability: 8.9" in text
    page_text = page.text()
    assert "backend: simulated" in page_text and "1 GPU(s)" in page_text
    assert "Test CPU (4 cores, 8 threads)" in page_text
    assert "not usable: No module named 'torch'" in page_text


def test_mixed_rig_is_two_tiles_each_with_its_own_memory(make_page):
    page = make_page("mixed")
    assert [t.gpu.catalog_id for t in page.tiles] == ["rtx-3090", "rtx-3060-12gb"]
    assert "24.0 GiB total" in page.tiles[0].text()
    assert "12.0 GiB total" in page.tiles[1].text()


def test_live_charts_shrink_so_the_lowest_tile_ends_inside_a_short_window(qtbot, make_page):
    from gpuadvisor.gui.pages.rig.tiles import (
        CHART_FILL_HEIGHT,
        CHART_MAX_HEIGHT,
        CHART_MIN_HEIGHT,
    )

    page = make_page("mixed")
    body = page.scroll.widget()

    def lowest_tile_inside():
        bottom = max(t.mapTo(body, t.rect().bottomLeft()).y() for t in page.tiles)
        return bottom <= page.scroll.viewport().height() and bottom > 200

    qtbot.waitUntil(lambda: all(t.isVisible() for t in page.tiles), timeout=3000)
    qtbot.waitUntil(lowest_tile_inside, timeout=3000)
    tall = [t.chart.maximumHeight() for t in page.tiles]
    # 900 px high: room for both at full height, and the room to spare shared by the
    # charts (a 1080p page stood half blank), never past their fill height
    assert len(set(tall)) == 1
    assert CHART_MAX_HEIGHT[False] < tall[0] <= CHART_FILL_HEIGHT[False]
    spare = page.scroll.viewport().height() - max(
        t.mapTo(body, t.rect().bottomLeft()).y() for t in page.tiles)
    assert spare <= 16 or tall[0] == CHART_FILL_HEIGHT[False]

    page.resize(1200, 640)

    qtbot.waitUntil(lowest_tile_inside, timeout=3000)
    heights = {t.chart.maximumHeight() for t in page.tiles}
    assert len(heights) == 1
    assert CHART_MIN_HEIGHT <= heights.pop() < CHART_MAX_HEIGHT[False]

    page.resize(1200, 900)  # and back to full height when the window grows again
    qtbot.waitUntil(lambda: [t.chart.maximumHeight() for t in page.tiles] == tall,
                    timeout=3000)


def test_unsupported_fields_read_n_a(make_page):
    page = make_page("unsupported-fields")
    text = page.tiles[0].text()
    assert "Power: n/a of n/a limit (default n/a)" in text
    assert "Utilization: GPU n/a · memory n/a" in text


def test_a_gpu_lost_while_running_is_marked_lost_and_never_crashes(qtbot, make_page):
    page = make_page("gpu-lost")
    assert not page.tiles[1].badge.isVisibleTo(page)
    _tick(qtbot, page)  # the second reading: the card is gone
    lost = page.tiles[1]
    assert lost.badge.isVisibleTo(page) and lost.badge.text() == "LOST"
    assert "GPU is lost" in lost.text()
    assert lost.warning_labels[0].property("severity") == "error"
    before = page.tiles[0].chart.sample_count
    _tick(qtbot, page)
    assert page.tiles[0].chart.sample_count == before + 1
    assert "LOST" in page.tiles[1].text()


def test_no_gpu_says_so_and_keeps_the_default_plan_gpu(make_page):
    page = make_page("no-gpu")
    assert page.tiles == []
    assert "No GPU found" in page.text() and "0 GPU(s)" in page.text()
    assert page.state.gpu_id == "rtx-4090"


def test_live_chart_grows_on_ticks_and_the_timer_stops_when_hidden(qtbot, make_page):
    page = make_page("one-gpu")
    chart = page.tiles[0].chart
    start = chart.sample_count
    assert page.sampling
    _tick(qtbot, page)
    _tick(qtbot, page)
    assert chart.sample_count == start + 2
    x, y = chart.curves["temperature"].getData()
    assert len(x) == start + 2 and all(0 < v < 100 for v in y)
    qtbot.waitUntil(lambda: chart.sample_count > start + 2, timeout=5000)  # the timer itself
    page.hide()
    assert not page.sampling
    page.show()
    assert page.sampling


def test_a_bad_spec_is_shown_as_an_error_not_raised(qtbot, make_page):
    page = make_page("one-gpu")
    with qtbot.waitSignal(page.detection_failed, timeout=5000) as blocker:
        page.spec_edit.setText("3x rtx-9999")
        page.spec_edit.returnPressed.emit()
    assert "rtx-9999" in blocker.args[0]
    assert not page.error_label.isHidden() and "rtx-9999" in page.error_label.text()


def test_a_stale_detection_is_dropped(qtbot, make_page):
    page = make_page("one-gpu")
    page._spec = "h100-sxm"
    page.refresh()
    page._spec = "mixed"
    with qtbot.waitSignal(page.detection_finished, timeout=10000):
        page.refresh()
    page.wait()
    assert [t.gpu.catalog_id for t in page.tiles] == ["rtx-3090", "rtx-3060-12gb"]


# -- the fake NVML -----------------------------------------------------------------------------


@pytest.fixture
def fake_nvml(monkeypatch):
    monkeypatch.setattr(nvml, "_session", {"module": None, "refs": 0})
    monkeypatch.setattr(nvml, "deprecated_pynvml_hint", lambda *a, **k: None)

    def install(devices, **options):
        module = F.make_module(devices, **options)
        monkeypatch.setitem(sys.modules, "pynvml", module)
        return module

    return install


def _nvml_options(tmp_path):
    return {"system": "Linux", "env": NO_ENV, "sysfs_root": tmp_path}


def test_nvml_card_with_unsupported_power_and_a_narrow_link(qtbot, make_page, fake_nvml,
                                                          tmp_path):
    module = fake_nvml([F.rtx_3090(pcie_width_current=4, power_usage_mw=F.NA,
                                   utilization=F.NA, throttle_mask=0x20)])
    page = make_page(options=_nvml_options(tmp_path))
    text = page.tiles[0].text()
    assert "backend: NVIDIA NVML" in page.text()
    assert "Power: n/a of 350 W limit" in text
    assert "x4 / x16" in text and "PCIe link runs at x4" in text
    assert "too hot" in text
    assert page.tiles[0].warning_labels[0].property("severity") == "warning"
    module.fake.lose(0)
    _tick(qtbot, page)
    assert "LOST" in page.tiles[0].text()


def test_no_nvml_shows_the_one_hint(make_page, fake_nvml, tmp_path):
    fake_nvml([], init_error=F.NVML_ERROR_LIBRARY_NOT_FOUND)
    page = make_page(options=_nvml_options(tmp_path))
    assert page.tiles == []
    assert not page.hint_label.isHidden()
    assert page.hint_label.text().startswith("Hint: ")
    assert "driver" in page.hint_label.text().lower()


# -- the Plan page follows the rig -------------------------------------------------------------


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    window = MainWindow(settings=Settings(), persist=False, interactive=False,
                        simulate="mixed", rig_options={"host": HOST})
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    yield window
    window.close()
    assert [t for t in window.findChildren(QTimer) if t.isActive()] == []


def test_demo_rig_one_gpu_plan_targets_the_rtx_3090(qtbot, window):
    page, state = window.rig_page, window.state
    with qtbot.waitSignal(page.detection_finished, timeout=10000):
        window.show_page("rig")
    assert state.plan.n_gpus == 1
    assert state.gpu_id == "detected:0"  # the RTX 3090, the best card, not the smallest
    window.show_page("plan")
    window.flush()
    assert "Checked on your RTX 3090 (24.0 GiB total, " in window.plan_page.banner.text()


def test_demo_rig_becomes_the_plan_target_smallest_card_first(qtbot, window):
    page, state = window.rig_page, window.state
    state.update(n_gpus=2)  # both cards: the smaller one limits the plan
    with qtbot.waitSignal(page.detection_finished, timeout=10000):
        window.show_page("rig")
    assert state.gpu_id == "detected:1"  # the RTX 3060 12 GB: multi-GPU plans size for it
    window.show_page("plan")
    window.flush()
    combo = window.plan_page.gpu_combo
    assert combo.itemText(0).startswith("Demo rig: RTX 3090 · ")  # the maker's words left out
    banner = window.plan_page.banner.text()
    assert "Checked on your RTX 3060 (12.0 GiB total, " in banner and "free now)" in banner

    window.show_page("rig")
    index = page.demo_combo.findData("h100-sxm")
    with qtbot.waitSignal(page.detection_finished, timeout=10000):
        page.demo_combo.setCurrentIndex(index)
        page.demo_combo.activated.emit(index)
    assert state.gpu_id == "detected:0" and state.detected_gpu.catalog_id == "h100-sxm"
    assert state.to_dict()["gpu"] == "h100-sxm"  # plan files name the catalog GPU
    assert page.sampling
    window.show_page("plan")
    assert not page.sampling

    with qtbot.waitSignal(page.detection_finished, timeout=10000):
        page.set_demo_rig("no-gpu")
    assert state.gpu_id == "rtx-4090"


def test_a_user_choice_of_gpu_is_kept_when_the_rig_changes(qtbot, window):
    page, state = window.rig_page, window.state
    state.set_gpu("a100-sxm-80gb")
    with qtbot.waitSignal(page.detection_finished, timeout=10000):
        window.show_page("rig")
    assert state.gpu_id == "a100-sxm-80gb"


def test_an_unmatched_card_uses_driver_memory_and_says_where_time_comes_from(catalog_state):
    from gpuadvisor.hardware import GpuInfo

    state = PlanState(*catalog_state)
    card = GpuInfo(index=0, name="NVIDIA Mystery 9000", vendor="nvidia", backend="nvml",
                   memory_total_bytes=20 * 1024**3, memory_free_bytes=19 * 1024**3)
    state.set_detected([card])
    assert state.gpu_id == "detected:0"
    # the driver's 20 GiB less its own reserve
    assert state.capacity_bytes == pytest.approx(20 * 1024**3 - DRIVER_RESERVE_MIB * 2**20)
    assert "unmatched" in state.gpu.notes
    assert state.to_dict()["gpu"] is None


#: Detects the demo rig and says what the page says about its first card, with Qt
#: (PySide6, shiboken6, pyqtgraph) made unimportable.
QT_ABSENT = """
import sys
class NoQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
            raise ImportError("no Qt here: " + name)
sys.meta_path.insert(0, NoQt())
from gpuadvisor.gui.pages.rig import format, jobs
from gpuadvisor.hardware.base import HostInfo
backend, result = jobs.detect_open("rtx-4090", {}, HostInfo())
backend.close()
print(format.gpu_title(result.gpus[0]))
print(dict(format.gpu_rows(result.gpus[0], "GiB", {}))["VRAM"].startswith("24.0 GiB total"))
"""


def test_what_the_page_says_and_detects_works_without_qt_so_other_fronts_can_share_it():
    import subprocess

    result = subprocess.run([sys.executable, "-c", QT_ABSENT], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["GPU 0: NVIDIA GeForce RTX 4090", "True"]


def test_unknown_ecc_errors_are_one_sentence_in_both_languages(qapp):
    from PySide6.QtCore import QCoreApplication

    from gpuadvisor.gui.i18n import install_language
    from gpuadvisor.gui.pages.rig import format as rig_format
    from gpuadvisor.hardware import GpuInfo

    card = GpuInfo(index=0, name="NVIDIA GeForce RTX 4090", vendor="nvidia", backend="nvml",
                   memory_total_bytes=24 * 1024**3, ecc_enabled=False)
    assert card.ecc_errors_uncorrected is None  # the driver did not say
    rows = dict(rig_format.gpu_rows(card, "GiB", {}))
    [ecc] = [v for k, v in rows.items() if "ECC" in k]
    assert ecc.endswith("uncorrected errors unknown")
    counted = GpuInfo(index=0, name="NVIDIA GeForce RTX 4090", vendor="nvidia", backend="nvml",
                      memory_total_bytes=24 * 1024**3, ecc_enabled=True,
                      ecc_errors_uncorrected=3)
    [ecc] = [v for k, v in dict(rig_format.gpu_rows(counted, "GiB", {})).items() if "ECC" in k]
    assert ecc.endswith("3 uncorrected errors")
    assert install_language("zh_CN") == "zh_CN"
    try:
        rows = dict(rig_format.gpu_rows(card, "GiB", {}, translate=QCoreApplication.translate))
        text = " ".join(rows.values())
        assert "不可纠正错误数未知" in text and "未知 个" not in text
    finally:
        install_language("en")


#: A number's unit at the start of a line: what must stay on the line of its number.
_UNIT_START = r"(GiB|GB|MiB|MB|W\b|°C|MHz|%)"


def _line_breaks(label) -> list[tuple[str, str]]:
    """(the text up to each line's end, the text after it) of a word-wrapped label at its
    width, laid out as the label lays it out (its font, Qt's word wrap)."""
    from PySide6.QtGui import QTextLayout, QTextOption

    text = label.text()
    layout = QTextLayout(text, label.font())
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout.setTextOption(option)
    layout.beginLayout()
    breaks = []
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(label.contentsRect().width())
        end = line.textStart() + line.textLength()
        if end < len(text):
            breaks.append((text[:end], text[end:]))
    layout.endLayout()
    return breaks


def test_a_number_and_its_unit_stay_on_one_line(qtbot, make_page):
    # At 1280 x 720 the tiles read "936 GB/" / "s", "90" / "°C)", "23.5" / "GiB free",
    # "(default 350" / "W)" and "Xorg (pid 1000, n/" / "a)".
    import re

    from gpuadvisor.gui.pages.rig.widgets import keep_units, plain

    assert keep_units("936 GB/s") == "936\u00a0GB/\u2060s"
    assert keep_units("32 W of 350 W limit (default 350 W)") == \
        "32\u00a0W of 350\u00a0W limit (default 350\u00a0W)"
    assert keep_units("Xorg (pid 1000, n/a)") == "Xorg (pid 1000, n/\u2060a)"
    assert keep_units("/: 71.0 GiB free of 252.0 GiB") == "/: 71.0\u00a0GiB free of 252.0\u00a0GiB"
    assert keep_units("gen 1 / 4 · x16 / x16") == "gen 1 / 4 · x16 / x16"
    assert plain(keep_units("23.5 GiB free · n/a")) == "23.5 GiB free · n/a"

    page = make_page("2x rtx-3090")
    labels = []
    for width in (980, 1100, 1200):
        page.resize(width, 900)
        qtbot.wait(20)
        for tile in page.tiles:
            tile.layout().activate()
            labels = [tile.catalog, *(value for _name, value in tile._labels)]
            for label in labels:
                for before, after in _line_breaks(label):
                    left, right = before.rstrip(), after.lstrip()
                    assert not (re.search(r"\d$", left) and re.match(_UNIT_START, right)), (
                        width, left, right)
                    assert not (re.search(r"\w/$", left) and right[:1].isalnum()), (
                        width, left, right)
    # What the tile says (tests, the clipboard) is in plain spaces.
    text = page.tiles[0].text()
    assert "23.5 GiB free" in text and "936 GB/s" in text
    assert "\u00a0" not in text and "\u2060" not in text
