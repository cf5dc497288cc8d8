"""SkyPilot tasks checked against SkyPilot's own catalog when it is installed and on disk.

The tables under tests/export/skypilot_catalog are real rows of SkyPilot's hosted catalog
(commits in its README), laid out as SkyPilot keeps them (``$SKY_RUNTIME_DIR/.sky/catalogs``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuadvisor.export import skypilot_catalog
from gpuadvisor.export.skypilot_catalog import catalog_path, installed_catalog, parse_catalog
from tests.cli_run import run_cli

TABLES = Path(__file__).parent / "skypilot_catalog"


@pytest.fixture
def sky_tables(monkeypatch):
    monkeypatch.setenv("SKY_RUNTIME_DIR", str(TABLES))
    monkeypatch.setattr(skypilot_catalog, "skypilot_installed", lambda: "0.14.1")


_cli = run_cli


def test_the_table_is_found_where_skypilot_keeps_it(sky_tables):
    path = catalog_path("vast", "v8")
    assert path == TABLES / ".sky" / "catalogs" / "v8" / "vast" / "vms.csv"
    vast = installed_catalog("vast", "v8")
    # 15 GPU rows in the fixture; memory per card = TotalGpuMemoryInMiB / AcceleratorCount
    assert len(vast.rows) == 15
    assert vast.card_sizes_gib("A100") == [40.0, 80.0]        # 40960 and 81920 MiB
    assert vast.card_sizes_gib("RTX4090") == [24.0, 48.0]     # 24564, 49140, 49128/2 MiB
    assert vast.counts("H200") == [1, 2, 8]
    assert vast.host_gib_per_gpu("H200", 8) == pytest.approx(64.0 / 8)


def test_without_skypilot_or_its_table_nothing_is_read(monkeypatch, tmp_path):
    monkeypatch.setenv("SKY_RUNTIME_DIR", str(TABLES))
    monkeypatch.setattr(skypilot_catalog, "skypilot_installed", lambda: None)
    assert installed_catalog("vast", "v8") is None
    monkeypatch.setattr(skypilot_catalog, "skypilot_installed", lambda: "0.14.1")
    monkeypatch.setenv("SKY_RUNTIME_DIR", str(tmp_path))
    assert installed_catalog("vast", "v8") is None


def test_verda_spot_follows_the_rows_that_have_a_spot_price(sky_tables):
    verda = installed_catalog("verda", "v8")
    assert verda.has_spot("H100", 1)                      # 0.8015
    assert not verda.has_spot("H200", 1)                  # SpotPrice empty
    assert verda.has_spot("H200", 2)                      # 2.373
    assert "CPU.4V.16G" not in {r.instance for r in verda.rows}
    # 8 x B200 has a spot price and no on-demand one
    (row,) = verda.rows_for("B200", 8)
    assert row.price is None and row.spot_price == pytest.approx(13.69)
    assert row.gpu_mib == pytest.approx(1474560 / 8)


def test_a_task_is_checked_and_says_so(sky_tables):
    code, out, err = _cli("export", "skypilot", "--model", "llama-3.1-8b", "--task", "qlora",
                          "--gpu", "h100-sxm", "--cloud", "verda", "--spot", "--no-measured")
    assert code == 0, err
    assert "Checked against SkyPilot's verda catalog on this machine" in out
    assert "1 x H100, from 185 GiB of host memory per GPU" in out


def test_spot_without_a_spot_price_is_refused(sky_tables):
    code, _, err = _cli("export", "skypilot", "--model", "llama-3.1-8b", "--task", "qlora",
                        "--gpu", "h200", "--cloud", "verda", "--spot", "--no-measured")
    assert code == 2
    assert "spot:" in err and "no spot price for 1 x H200" in err


def test_a_name_that_covers_a_smaller_card_is_refused_with_the_tables_sizes(sky_tables):
    # full fine-tune of an 8B model on 2 x A100 80GB needs far more than 40 GiB per GPU
    code, _, err = _cli("export", "skypilot", "--model", "llama-3.1-8b", "--task", "full",
                        "--gpu", "a100-sxm-80gb", "--gpus", "2", "--cloud", "vast",
                        "--no-measured")
    assert code == 2
    assert "'A100' also covers cards of 40 GiB" in err


def test_a_count_the_cloud_does_not_rent_is_refused(sky_tables):
    code, _, err = _cli("export", "skypilot", "--model", "llama-3.1-8b", "--task", "qlora",
                        "--gpu", "h200", "--gpus", "4", "--cloud", "vast", "--no-measured")
    assert code == 2
    assert "no instance with 4 x H200" in err and "1, 2, 8 per instance" in err


def test_a_broken_table_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"vms.csv: not a SkyPilot catalog table"):
        parse_catalog("a,b\n1,2\n", "vast", tmp_path / "vms.csv", None)
    bad = ("InstanceType,AcceleratorName,AcceleratorCount,MemoryGiB,GpuInfo,Price,SpotPrice\n"
           "x,A100,two,64,,1.0,\n")
    with pytest.raises(ValueError, match=r"line 2: AcceleratorCount 'two' is not a number"):
        parse_catalog(bad, "vast", tmp_path / "vms.csv", None)
    nan = bad.replace("two", "1").replace(",1.0,", ",-3,")
    with pytest.raises(ValueError, match=r"line 2: Price '-3'"):
        parse_catalog(nan, "vast", tmp_path / "vms.csv", None)
