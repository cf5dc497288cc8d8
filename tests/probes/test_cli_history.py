"""``gpuadvisor probe --history`` and the % of catalog peak in the probe text."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.cli import main
from gpuadvisor.cli.probe import _probe_text
from gpuadvisor.probes import history
from tests.probes.test_history import make_run


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    return tmp_path


def test_history_lists_runs_per_device_with_the_change_from_the_previous(data_dir, capsys):
    history.record(make_run(bf16_tflops=120.0), timestamp="2026-11-01T10:00:00Z")
    history.record(make_run(bf16_tflops=150.0), timestamp="2026-12-01T10:00:00Z")
    assert main(["probe", "--history"]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA GeForce RTX 4090 = rtx-4090 (2 run(s))" in out
    lines = [line for line in out.splitlines() if "matmul.bf16_median_tflops" in line]
    assert len(lines) == 2
    assert "vs previous" not in lines[0]
    assert "(+25.0% vs previous)" in lines[1]  # 150 / 120 - 1
    assert "2026-11-01T10:00:00Z" in out and out.index("2026-11-01") < out.index("2026-12-01")


def test_history_json_and_empty(data_dir, capsys):
    assert main(["probe", "--history"]) == 0
    assert "No probe runs stored yet" in capsys.readouterr().out
    history.record(make_run(), timestamp="2026-12-01T10:00:00Z")
    assert main(["probe", "--history", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["timestamp"] for r in data["runs"]] == ["2026-12-01T10:00:00Z"]
    assert data["runs"][0]["results"]["matmul"]["figures"]["bf16_median_tflops"] == 50.0


def test_probe_text_puts_each_figure_against_the_catalog_peak():
    # RTX 4090 (Ada whitepaper): bf16 dense 165.2 TFLOPS, fp32 82.6, memory 1008 GB/s.
    text = _probe_text(make_run(bf16_tflops=82.6), "quick")
    bf16 = next(line for line in text.splitlines() if "bf16_median_tflops" in line)
    assert "(50% of the 165.2 TFLOPS dense bf16 peak)" in bf16
    copy = next(line for line in text.splitlines() if "copy_gb_s" in line)
    assert "(89% of the 1008 GB/s memory bandwidth)" in copy  # 900 / 1008
