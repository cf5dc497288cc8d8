"""``gpuadvisor --self-test``: one line, exit 0, every page rendered, the user's files untouched.

The full run is a subprocess (a fresh interpreter, as an installed app runs it); the image
checks and the failure path run in-process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuadvisor import __version__, selftest
from gpuadvisor.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]


def _save_png(pixels: np.ndarray, path: Path) -> Path:
    from PySide6.QtGui import QImage

    height, width = pixels.shape
    data = np.ascontiguousarray(pixels, dtype=np.uint32)
    image = QImage(data.tobytes(), width, height, width * 4, QImage.Format.Format_RGB32)
    assert image.save(str(path), "PNG")
    return path


def test_self_test_passes_from_source_renders_every_page_and_keeps_out_of_user_files(tmp_path):
    home = tmp_path / "home"
    user_config, user_data = tmp_path / "user-config", tmp_path / "user-data"
    pages = tmp_path / "pages"
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), GPUADVISOR_CONFIG_DIR=str(user_config),
               GPUADVISOR_DATA_DIR=str(user_data), GPUADVISOR_SELFTEST_DIR=str(pages))
    env.pop("DISPLAY", None)  # offscreen by default: no display needed
    result = subprocess.run([sys.executable, "-m", "gpuadvisor", "--self-test"], env=env,
                            capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    line = lines[0]
    assert line.startswith(f"gpuadvisor {__version__} self-test passed (from source, offscreen")
    assert "llama-3.1-8b qlora on rtx-4090 fits" in line

    from gpuadvisor.gui.main_window import PAGES

    rendered = sorted(p.stem.removeprefix("page-") for p in pages.glob("page-*.png"))
    assert rendered == sorted(PAGES)
    assert f"{len(PAGES)} pages rendered" in line
    for png in pages.glob("page-*.png"):
        width, height, colours, dominant = selftest.image_stats(png)
        assert width > 800 and height > 500
        assert colours >= selftest.MIN_COLOURS
        assert dominant <= selftest.MAX_DOMINANT_SHARE
    # Settings, data and caches went to a temporary folder, not the user's.
    assert not user_config.exists()
    assert not user_data.exists()
    assert not list(home.rglob("*gpuadvisor*"))


def test_a_flat_page_fails_the_image_check(tmp_path):
    flat = _save_png(np.full((600, 800), 0xFFEFEFEF), tmp_path / "flat.png")
    with pytest.raises(selftest.SelfTestError, match="page looks empty") as caught:
        selftest.check_page_image("compare", flat)
    assert caught.value.step == "render compare"
    assert "1 colours" in str(caught.value)


def test_a_page_with_content_passes_the_image_check(tmp_path):
    rng = np.random.default_rng(7)
    pixels = np.full((600, 800), 0xFFEFEFEF, dtype=np.uint32)
    pixels[100:300, 100:500] = 0xFF000000 | rng.integers(0, 1 << 24, size=(200, 400))
    page = selftest.check_page_image("plan", _save_png(pixels, tmp_path / "plan.png"))
    assert (page.width_px, page.height_px) == (800, 600)
    assert page.colours > 1000
    assert page.dominant_share == pytest.approx(1 - 200 * 400 / (800 * 600), abs=1e-3)


def test_a_missing_image_is_reported(tmp_path):
    with pytest.raises(selftest.SelfTestError, match="no image written"):
        selftest.check_page_image("rig", tmp_path / "absent.png")


def test_a_failed_check_prints_one_line_on_stderr_and_exits_1(monkeypatch, capsys):
    def broken_detection():
        raise selftest.SelfTestError("detect", "NVML exploded")

    monkeypatch.setattr(selftest, "_detect_hardware", broken_detection)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    before = dict(os.environ)
    assert selftest.main() == selftest.EXIT_FAILED
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "gpuadvisor self-test FAILED at detect: NVML exploded\n"
    assert dict(os.environ) == before  # the temporary environment is undone


def test_cli_flag_dispatches_to_the_self_test(monkeypatch):
    calls = []
    monkeypatch.setattr(selftest, "main", lambda: calls.append("ran") or 0)
    assert cli_main(["--self-test"]) == 0
    assert calls == ["ran"]
