"""AMD/Intel from a fake sysfs tree, Apple from canned sysctl/system_profiler answers, and the
host (torch asked through a stand-in subprocess runner)."""

from __future__ import annotations

import json
import subprocess

import pytest

from gpuadvisor.hardware.apple import AppleBackend
from gpuadvisor.hardware.host import check_torch, collect_host
from gpuadvisor.hardware.sysfs import SysfsBackend
from tests.fakes import fake_sysfs as S

GIB = 1024**3


def test_rx_7900_xtx_from_sysfs(tmp_path):
    S.rx_7900_xtx(tmp_path)
    (gpu,) = SysfsBackend(tmp_path).devices()
    assert gpu.name == "AMD Radeon RX 7900 XTX" and gpu.vendor == "amd"
    assert gpu.backend == "sysfs" and gpu.pci_bus_id == "0000:03:00.0"
    assert gpu.memory_total_bytes == 24 * GIB
    assert gpu.memory_used_bytes == 512 * 1024**2
    assert gpu.memory_free_bytes == 24 * GIB - 512 * 1024**2
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max) == (4, 4)
    assert (gpu.pcie_width_current, gpu.pcie_width_max) == (16, 16)
    assert gpu.temperature_c == 43.0 and gpu.power_draw_w == 21.0
    assert gpu.utilization_gpu_pct == 2.0
    assert gpu.integrated is False and gpu.is_training_gpu


def test_narrow_link_is_read_as_is(tmp_path):
    S.rx_7900_xtx(tmp_path, link=("8.0 GT/s PCIe", "16.0 GT/s PCIe", 4, 16))
    (gpu,) = SysfsBackend(tmp_path).devices()
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max) == (3, 4)
    assert (gpu.pcie_width_current, gpu.pcie_width_max) == (4, 16)


def test_integrated_gpus_are_marked_and_listed_after_discrete_ones(tmp_path):
    S.intel_igpu(tmp_path, card=0)
    S.arc_a770(tmp_path, card=1)
    S.amd_apu(tmp_path, card=2)
    gpus = SysfsBackend(tmp_path).devices()
    assert [(g.index, g.name, g.integrated) for g in gpus] == [
        (0, "Intel(R) Arc(TM) A770 Graphics", False),
        (1, "Intel GPU [8086:4680]", True),
        (2, "AMD GPU [1002:15bf]", True),
    ]
    assert gpus[0].memory_total_bytes is None  # i915 publishes no VRAM figure: never guessed


def test_unknown_amd_card_is_named_by_its_ids(tmp_path):
    S.add_card(tmp_path, 0, vendor="0x1002", device="0x73bf", slot="0000:0a:00.0",
               vram_total=16 * GIB, vram_used=GIB)
    (gpu,) = SysfsBackend(tmp_path).devices()
    assert gpu.name == "AMD GPU [1002:73bf]" and gpu.memory_total_bytes == 16 * GIB


def test_nvidia_cards_and_empty_trees_are_not_sysfs_gpus(tmp_path):
    assert SysfsBackend(tmp_path).devices() == []
    S.add_card(tmp_path, 0, vendor="0x10de", device="0x2684", slot="0000:01:00.0")
    assert SysfsBackend(tmp_path).devices() == []


PROFILE = {"SPDisplaysDataType": [{
    "_name": "Apple M2 Max", "sppci_model": "Apple M2 Max", "sppci_cores": "38",
    "sppci_vendor": "sppci_vendor_Apple", "sppci_device_type": "spdisplays_gpu",
}]}


def _mac(answers):
    def run(args, **kwargs):
        key = " ".join(args)
        if key not in answers:
            return subprocess.CompletedProcess(args, 1, "", "not found")
        return subprocess.CompletedProcess(args, 0, answers[key], "")
    return run


def test_apple_silicon_from_system_profiler():
    run = _mac({"sysctl -n machdep.cpu.brand_string": "Apple M2 Max\n",
                "sysctl -n hw.memsize": f"{32 * GIB}\n",
                "system_profiler SPDisplaysDataType -json": json.dumps(PROFILE)})
    (gpu,) = AppleBackend(run).devices()
    assert gpu.name == "Apple M2 Max" and gpu.vendor == "apple" and gpu.backend == "apple"
    assert gpu.memory_total_bytes == 32 * GIB and gpu.unified_memory is True
    assert gpu.gpu_cores == 38 and gpu.memory_free_bytes is None


def test_apple_falls_back_to_the_chip_name_without_system_profiler():
    run = _mac({"sysctl -n machdep.cpu.brand_string": "Apple M1 Max",
                "sysctl -n hw.memsize": str(64 * GIB)})
    (gpu,) = AppleBackend(run).devices()
    assert gpu.name == "Apple M1 Max" and gpu.gpu_cores is None


def test_intel_mac_has_no_apple_gpu():
    run = _mac({"sysctl -n machdep.cpu.brand_string": "Intel(R) Core(TM) i9-9880H CPU"})
    assert AppleBackend(run).devices() == []


def _runner(returncode=0, stdout="", stderr="", raises=None):
    calls = []

    def run(args, **kwargs):
        calls.append((args, kwargs))
        if raises is not None:
            raise raises
        return subprocess.CompletedProcess(args, returncode, stdout, stderr)
    run.calls = calls
    return run


def test_torch_is_asked_in_a_subprocess_with_a_timeout():
    answer = {"version": "2.4.1+cu121", "cuda_version": "12.1", "cuda_available": True,
              "mps_available": False}
    run = _runner(stdout="some warning\n" + json.dumps(answer) + "\n")
    got = check_torch("/opt/env/bin/python", run=run)
    (args, kwargs), = run.calls
    assert args[:2] == ["/opt/env/bin/python", "-c"] and "import" in args[2]
    assert kwargs["timeout"] > 0
    assert got["torch_available"] is True and got["torch_version"] == "2.4.1+cu121"
    assert got["torch_cuda_version"] == "12.1" and got["torch_cuda_available"] is True


@pytest.mark.parametrize(("run", "available", "error"), [
    (_runner(1, stderr="Traceback...\nModuleNotFoundError: No module named 'torch'"), False,
     "No module named 'torch'"),
    (_runner(raises=subprocess.TimeoutExpired("python", 30)), None, "longer than"),
    (_runner(raises=FileNotFoundError("nope")), None, "cannot run"),
    (_runner(stdout="garbage"), None, "unreadable"),
])
def test_torch_check_failures_are_reported_not_raised(run, available, error):
    got = check_torch("python", run=run)
    assert got["torch_available"] is available
    assert error in got["torch_error"]


def test_collect_host_reads_proc_and_disk(tmp_path, monkeypatch):
    monkeypatch.setattr("platform.system", lambda: "Linux")
    proc = tmp_path / "proc"
    proc.mkdir()
    cpu = "".join(f"processor\t: {i}\nmodel name\t: Test CPU 9000\nphysical id\t: 0\n"
                  f"core id\t\t: {i // 2}\n\n" for i in range(8))
    (proc / "cpuinfo").write_text(cpu)
    (proc / "meminfo").write_text("MemTotal:       65536000 kB\nMemAvailable:   32768000 kB\n")
    host = collect_host(tmp_path, probe_torch=False, root=tmp_path)
    assert host.cpu_model == "Test CPU 9000" and host.cpu_cores_physical == 4
    assert host.ram_total_bytes == 65536000 * 1024
    assert host.ram_available_bytes == 32768000 * 1024
    assert host.disk_free_bytes > 0 and host.disk_path == str(tmp_path)
    assert host.torch_available is None and host.python_version
