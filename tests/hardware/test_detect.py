"""detect(): backend order, hints, per-card health warnings, smallest_card, and the
``gpuadvisor detect --json`` contract (DESIGN.md §3)."""

from __future__ import annotations

import importlib
import json

import pytest

from gpuadvisor import cli
from gpuadvisor.hardware import nvml
from gpuadvisor.hardware.base import GpuInfo, GpuProcess
from gpuadvisor.hardware.detect import detect, health_warnings, smallest_card
from tests.fakes import fake_pynvml as F
from tests.fakes import fake_sysfs as S

from .conftest import HOST, NO_ENV

# The package re-exports the detect() function under the module's name; fetch the module.
D = importlib.import_module("gpuadvisor.hardware.detect")

GIB = 1024**3
MIB = 1024**2


def _linux(tmp_path, **kw):
    return detect(host=HOST, system="Linux", env=kw.pop("env", NO_ENV), sysfs_root=tmp_path, **kw)


# --------------------------------------------------------------------------- backends
def test_nvml_rig_is_matched_per_card_and_never_summed(install_nvml, tmp_path):
    install_nvml([F.rtx_3090(), F.rtx_3060_12gb()])
    result = _linux(tmp_path)
    assert result.backend == "nvml"
    assert [(g.name, g.catalog_id) for g in result.gpus] == [
        ("NVIDIA GeForce RTX 3090", "rtx-3090"), ("NVIDIA GeForce RTX 3060", "rtx-3060-12gb")]
    assert [g.memory_total_bytes for g in result.gpus] == [24576 * MIB, 12288 * MIB]
    assert smallest_card(result.gpus).catalog_id == "rtx-3060-12gb"
    assert result.hints == () and result.warnings == ()


def test_unknown_nvidia_card_is_shown_unmatched_with_driver_memory(install_nvml, tmp_path):
    # 3 GB: under the catalog's 4 GiB floor, so not in it
    install_nvml([F.rtx_4090(name="NVIDIA GeForce GTX 1060 3GB", memory_total=3072 * MIB)])
    (gpu,) = _linux(tmp_path).gpus
    assert gpu.catalog_id is None and gpu.memory_total_bytes == 3072 * MIB


def test_no_nvml_falls_back_to_sysfs_without_an_nvidia_hint(no_nvml, tmp_path):
    S.rx_7900_xtx(tmp_path)
    result = _linux(tmp_path)
    assert result.backend == "sysfs"
    assert [g.catalog_id for g in result.gpus] == ["rx-7900-xtx"]
    assert result.hints == ()


def test_nvidia_card_without_driver_next_to_an_amd_card_gets_the_hint(no_nvml, tmp_path):
    S.rx_7900_xtx(tmp_path)
    env = nvml.Environment(nvidia_pci_present=True)
    result = _linux(tmp_path, env=env)
    assert result.backend == "sysfs"
    assert len(result.hints) == 1 and "An NVIDIA GPU is present" in result.hints[0]


def test_no_gpu_at_all_is_backend_none_with_one_hint_and_the_host(no_nvml, tmp_path):
    result = _linux(tmp_path)
    assert result.backend == "none" and result.gpus == ()
    assert len(result.hints) == 1 and "nvidia-smi" in result.hints[0]
    assert result.host == HOST


def test_driver_not_loaded_hint(install_nvml, tmp_path):
    install_nvml([], init_error=F.NVML_ERROR_DRIVER_NOT_LOADED)
    result = _linux(tmp_path)
    assert result.backend == "none" and "not loaded" in result.hints[0]


def test_container_with_nvml_but_no_devices(install_nvml, tmp_path):
    module = install_nvml([])
    result = _linux(tmp_path, env=nvml.Environment(in_container=True))
    assert result.backend == "none" and "--gpus all" in result.hints[0]
    assert module.fake.shutdown_calls == 1  # the empty backend was closed


def test_only_an_integrated_gpu(no_nvml, tmp_path):
    S.intel_igpu(tmp_path)
    result = _linux(tmp_path)
    assert result.backend == "sysfs" and result.training_gpus == ()
    assert smallest_card(result.gpus) is None
    assert any("integrated GPU" in h for h in result.hints)
    assert [w.code for w in result.warnings] == ["integrated"]


def test_macos_uses_the_apple_backend(tmp_path):
    from .test_sysfs_apple_host import PROFILE, _mac

    run = _mac({"sysctl -n machdep.cpu.brand_string": "Apple M2 Max",
                "sysctl -n hw.memsize": str(32 * GIB),
                "system_profiler SPDisplaysDataType -json": json.dumps(PROFILE)})
    result = detect(host=HOST, system="Darwin", run=run)
    assert result.backend == "apple"
    assert result.gpus[0].catalog_id == "m2-max" and result.gpus[0].unified_memory


def test_a_lost_gpu_does_not_crash_detection(install_nvml, tmp_path):
    install_nvml([F.rtx_3090(), F.rtx_3090(temperature_c=F.Raise(F.NVML_ERROR_GPU_IS_LOST))])
    result = _linux(tmp_path)
    assert [g.lost for g in result.gpus] == [False, True]
    assert [w.code for w in result.warnings_for(1)] == ["gpu_lost"]
    assert len(result.training_gpus) == 1


def test_deprecated_pynvml_hint_is_passed_on(install_nvml, tmp_path, monkeypatch):
    install_nvml([F.rtx_4090()])
    monkeypatch.setattr(nvml, "deprecated_pynvml_hint", lambda: "uninstall pynvml")
    assert _linux(tmp_path).hints == ("uninstall pynvml",)


def test_simulated_detection_and_bad_spec():
    result = detect("mixed", host=HOST)
    assert result.backend == "simulated" and len(result.gpus) == 2
    assert detect("no-gpu", host=HOST).backend == "simulated"
    with pytest.raises(ValueError, match="'nope'"):
        detect("nope", host=HOST)


# --------------------------------------------------------------------------- health
def _gpu(**kw) -> GpuInfo:
    base = {"index": 0, "name": "NVIDIA GeForce RTX 3090", "vendor": "nvidia", "backend": "nvml",
            "memory_total_bytes": 24 * GIB, "memory_used_bytes": 300 * MIB,
            "memory_free_bytes": 24 * GIB - 300 * MIB}
    base.update(kw)
    return GpuInfo(**base)


def _codes(gpu, **kw):
    return [w.code for w in health_warnings(gpu, **kw)]


def test_a_healthy_card_has_no_warnings():
    assert _codes(_gpu(pcie_width_current=16, pcie_width_max=16, pcie_gen_current=1,
                       pcie_gen_max=4, throttle_reasons=("idle",), power_limit_w=350.0,
                       power_default_limit_w=350.0, ecc_errors_uncorrected=0,
                       mig_enabled=False, processes=())) == []


def test_x4_slot_is_flagged_with_the_reason():
    (w,) = health_warnings(_gpu(pcie_width_current=4, pcie_width_max=16))
    assert w.code == "pcie_narrow" and "x4" in w.message and "x16" in w.message


def test_thermal_and_power_throttling_now():
    gpu = _gpu(throttle_reasons=("power cap", "thermal (hardware)"), temperature_c=91.0,
               temperature_slowdown_c=90.0, power_draw_w=349.0, power_limit_w=350.0)
    warnings = {w.code: w.message for w in health_warnings(gpu)}
    assert set(warnings) == {"thermal_throttle", "power_throttle"}
    assert "91 °C" in warnings["thermal_throttle"] and "90 °C" in warnings["thermal_throttle"]
    assert "349 W of 350 W" in warnings["power_throttle"]


def test_power_limit_below_default():
    (w,) = health_warnings(_gpu(power_limit_w=250.0, power_default_limit_w=350.0))
    assert w.code == "power_limit_low" and "250 W" in w.message and "350 W" in w.message


def test_ecc_errors():
    (w,) = health_warnings(_gpu(ecc_errors_uncorrected=3))
    assert w.code == "ecc_errors" and w.message.startswith("3 uncorrected")


def test_ecc_on_a_gddr_card_says_what_it_costs_and_how_to_turn_it_off():
    # inline ECC (check bits in the card's own GDDR): a streaming read keeps 16 of 17 bytes
    l40s = dict(name="NVIDIA L40S", catalog_id="l40s", memory_total_bytes=46068 * MIB)
    (w,) = health_warnings(_gpu(ecc_enabled=True, **l40s))
    assert w.code == "ecc_inline" and "6%" in w.message and "nvidia-smi -e 0" in w.message
    assert _codes(_gpu(ecc_enabled=False, **l40s)) == []
    # HBM keeps its check bits apart: ECC on an H100 costs nothing to warn about
    assert _codes(_gpu(name="NVIDIA H100 80GB HBM3", catalog_id="h100-sxm",
                       memory_total_bytes=81559 * MIB, ecc_enabled=True)) == []
    # a workstation card with ECC turned on pays it too; an unmatched card is not guessed at
    assert _codes(_gpu(name="NVIDIA RTX A6000", catalog_id="rtx-a6000",
                       ecc_enabled=True)) == ["ecc_inline"]
    assert _codes(_gpu(name="Some GPU", catalog_id=None, ecc_enabled=True)) == []


def test_another_process_holding_vram_but_not_our_own():
    procs = (GpuProcess(111, "python3", 10 * GIB), GpuProcess(222, "me", 2 * GIB))
    gpu = _gpu(processes=procs, memory_used_bytes=12 * GIB, memory_free_bytes=12 * GIB)
    (w,) = health_warnings(gpu, own_pid=222)
    assert w.code == "vram_in_use" and "python3 (pid 111)" in w.message
    assert "10.0 GiB" in w.message and "me (pid" not in w.message
    assert _codes(_gpu(processes=(GpuProcess(222, "me", 2 * GIB),)), own_pid=222) == []


def test_vram_used_by_invisible_processes():
    (w,) = health_warnings(_gpu(processes=None, memory_used_bytes=6 * GIB))
    assert w.code == "vram_in_use" and "not visible" in w.message


def test_mig_enabled():
    assert _codes(_gpu(mig_enabled=True)) == ["mig_enabled"]


def test_unknown_fields_never_warn():
    assert _codes(_gpu(memory_used_bytes=None, memory_free_bytes=None)) == []


def test_warnings_come_through_detect_per_card(install_nvml, tmp_path):
    install_nvml([F.rtx_3090(), F.h100_sxm(pcie_width_current=8, ecc_uncorrected=1,
                                           throttle_mask=0x40)])
    result = _linux(tmp_path)
    assert result.warnings_for(0) == ()
    assert {w.code for w in result.warnings_for(1)} == {"pcie_narrow", "ecc_errors",
                                                        "thermal_throttle"}


def test_smallest_card_skips_lost_integrated_and_unknown():
    gpus = [_gpu(index=0, memory_total_bytes=24 * GIB),
            _gpu(index=1, memory_total_bytes=8 * GIB, lost=True),
            _gpu(index=2, memory_total_bytes=GIB, integrated=True),
            _gpu(index=3, memory_total_bytes=None),
            _gpu(index=4, memory_total_bytes=12 * GIB)]
    assert smallest_card(gpus).index == 4
    assert smallest_card([]) is None


# --------------------------------------------------------------------------- CLI
def _cli_json(capsys, *args):
    code = cli.main(["detect", "--json", "--no-torch", *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_cli_detect_json_contract_simulated(capsys):
    data = _cli_json(capsys, "--simulate", "rtx-3090+rtx-3060-12gb")
    assert {"gpus", "host", "backend"} <= set(data)
    assert data["backend"] == "simulated"
    for gpu in data["gpus"]:
        assert {"name", "memory_total_bytes", "memory_free_bytes", "catalog_id"} <= set(gpu)
    assert [g["catalog_id"] for g in data["gpus"]] == ["rtx-3090", "rtx-3060-12gb"]
    assert [g["memory_total_bytes"] for g in data["gpus"]] == [24 * GIB, 12 * GIB]
    assert data["host"]["python_version"]


def test_cli_detect_json_nulls_for_unknowns(capsys, install_nvml, monkeypatch):
    install_nvml([F.rtx_4090(name="NVIDIA Mystery GPU")])
    monkeypatch.setattr(D.platform, "system", lambda: "Linux")
    data = _cli_json(capsys)
    assert data["backend"] == "nvml"
    (gpu,) = data["gpus"]
    assert gpu["catalog_id"] is None and gpu["name"] == "NVIDIA Mystery GPU"
    assert gpu["memory_total_bytes"] == 24564 * MIB


def test_cli_detect_with_no_gpu_exits_0(capsys, no_nvml, monkeypatch):
    monkeypatch.setattr(D.platform, "system", lambda: "Linux")
    monkeypatch.setattr(nvml.Environment, "probe", classmethod(lambda cls, root="/": NO_ENV))
    monkeypatch.setattr("gpuadvisor.hardware.sysfs.SysfsBackend.devices", lambda self: [])
    data = _cli_json(capsys)
    assert data["backend"] == "none" and data["gpus"] == [] and data["host"]["os"]
    assert len(data["hints"]) == 1


def test_cli_detect_human_output(capsys):
    assert cli.main(["detect", "--no-torch", "--simulate", "unsupported-fields"]) == 0
    out = capsys.readouterr().out
    assert "GPU 0: NVIDIA GeForce RTX 3090" in out and "rtx-3090" in out
    assert "power               n/a of limit n/a" in out
    assert "host" in out


def test_cli_detect_bad_simulate_spec_exits_2_naming_the_token(capsys):
    assert cli.main(["detect", "--simulate", "3x rtx-9999"]) == 2
    err = capsys.readouterr().err
    assert "'rtx-9999'" in err and err.count("\n") == 1


def test_a_dgx_spark_is_matched_though_nvml_reports_no_memory(install_nvml, tmp_path):
    """GB10's memory is unified: NVML's memory info is NOT_SUPPORTED. The card is still
    found by its name, its total comes from the catalog (CUDA's total on DGX OS), and
    nothing crashes."""
    install_nvml([F.gb10()])
    from dataclasses import replace

    # CUDA reports the operating system's MemTotal as the GPU's total on a DGX Spark
    host = replace(HOST, ram_total_bytes=122572 * MIB, ram_available_bytes=110 * 1024**3)
    result = detect(host=host, system="Linux", env=NO_ENV, sysfs_root=tmp_path)
    (gpu,) = result.gpus
    assert gpu.name == "NVIDIA GB10" and gpu.catalog_id == "gb10"
    assert gpu.memory_total_bytes == 122572 * MIB and gpu.compute_capability == "12.1"
    assert gpu.memory_free_bytes == 110 * 1024**3 and gpu.unified_memory
    from gpuadvisor.catalog import load_gpus
    from gpuadvisor.core.gpu import usable_memory

    usable, why = usable_memory(load_gpus()["gb10"])
    assert usable == 122572 * MIB and "CUDA's total" in why
