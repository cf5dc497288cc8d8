"""Host facts through a fake psutil on Linux, Windows and macOS (CPU name from /proc, the
registry and sysctl), the fallback when psutil cannot be imported, and a plan's CPU offload
checked against the RAM available (``estimate`` JSON ``memory.host_ram``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpuadvisor import cli
from gpuadvisor.hardware import host_facts as H
from gpuadvisor.hardware.base import DiskInfo
from gpuadvisor.hardware.host import collect_host
from gpuadvisor.hardware.host_ram import check_host_ram, check_this_machine

from .fake_psutil import make_psutil

GIB = 1024**3
ROOT = Path(__file__).resolve().parents[2]
RAPTOR_LAKE = "Intel64 Family 6 Model 183 Stepping 1, GenuineIntel"  # platform.processor()


def _proc(tmp_path, model="AMD Ryzen 9 7950X 16-Core Processor", cores=4, meminfo=None):
    proc = tmp_path / "proc"
    proc.mkdir(exist_ok=True)
    (proc / "cpuinfo").write_text("".join(
        f"processor\t: {i}\nmodel name\t: {model}\nphysical id\t: 0\ncore id\t\t: {i // 2}\n\n"
        for i in range(2 * cores)))
    (proc / "meminfo").write_text(meminfo or (
        "MemTotal:       65536000 kB\nMemFree:         1000000 kB\n"
        "MemAvailable:   32768000 kB\nSwapTotal:       8388604 kB\nSwapFree:        4194300 kB\n"))
    return tmp_path


class FakeRegistry:
    """``winreg`` as far as the CPU name needs it."""

    HKEY_LOCAL_MACHINE = 0x80000002

    def __init__(self, values: dict[str, object] | None = None) -> None:
        self.values = values
        self.opened: list[tuple[int, str]] = []

    def OpenKey(self, root, path):
        self.opened.append((root, path))
        if self.values is None:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        registry = self

        class Key:
            def __enter__(self):
                return registry

            def __exit__(self, *exc):
                return False

        return Key()

    def QueryValueEx(self, key, name):
        if name not in self.values:
            raise FileNotFoundError(2, name)
        return self.values[name], 1  # REG_SZ


def _mac(answers):
    def run(args, **kwargs):
        key = " ".join(args)
        if key not in answers:
            return subprocess.CompletedProcess(args, 1, "", "unknown oid")
        return subprocess.CompletedProcess(args, 0, answers[key], "")
    return run


# --------------------------------------------------------------------------- with psutil
def test_linux_host_from_psutil_with_the_cpu_name_from_proc(tmp_path):
    root = _proc(tmp_path)
    for name in ("root", "root/home", "data", "snap", "cdrom", "card"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "hosts").write_text("127.0.0.1 localhost\n")
    m = {name: str(tmp_path / name) for name in ("root", "root/home", "data", "snap", "cdrom",
                                                  "card", "hosts")}
    fake = make_psutil(partitions=[
        ("/dev/nvme0n1p2", m["root/home"], "btrfs"),  # a subvolume of the same device
        ("/dev/nvme0n1p2", m["root"], "btrfs"),
        ("/dev/sda1", m["hosts"], "ext4"),            # a file bind-mounted into a container
        ("/dev/loop3", m["snap"], "squashfs"),        # a snap image
        ("/dev/sr0", m["cdrom"], "udf"),
        ("/dev/sdc1", m["card"], "vfat"),             # a card reader without a card
        ("/dev/sdb1", m["data"], "xfs"),
    ], usage={m["root"]: (2000 * GIB, 500 * GIB), m["data"]: (8000 * GIB, 7000 * GIB),
              m["card"]: OSError(123, "no medium"), m["root/home"]: (1, 1)})
    host = collect_host(tmp_path, probe_torch=False, root=root, psutil=fake, system="Linux")
    assert host.cpu_model == "AMD Ryzen 9 7950X 16-Core Processor"
    assert (host.cpu_cores_physical, host.cpu_cores_logical) == (8, 16)  # psutil's, not /proc's
    assert (host.ram_total_bytes, host.ram_available_bytes) == (64 * GIB, 40 * GIB)
    assert (host.swap_total_bytes, host.swap_free_bytes) == (8 * GIB, 6 * GIB)
    assert host.disks == tuple(sorted((
        DiskInfo(m["root"], "/dev/nvme0n1p2", "btrfs", 2000 * GIB, 500 * GIB),
        DiskInfo(m["data"], "/dev/sdb1", "xfs", 8000 * GIB, 7000 * GIB),
    ), key=lambda d: d.mountpoint))
    assert host.facts_source == "psutil"
    data = host.to_json()
    assert data["disks"][0]["mountpoint"] == min(m["root"], m["data"])
    json.dumps(data)  # plain JSON


def test_windows_host_names_the_cpu_from_the_registry_not_platform_processor(monkeypatch):
    monkeypatch.setattr("platform.processor", lambda: RAPTOR_LAKE)
    registry = FakeRegistry({"ProcessorNameString": "13th Gen Intel(R) Core(TM) i9-13900K   "})
    host = collect_host(probe_torch=False, psutil=make_psutil(physical=24, logical=32),
                        system="Windows", registry=registry)
    assert host.cpu_model == "13th Gen Intel(R) Core(TM) i9-13900K"
    assert registry.opened == [(FakeRegistry.HKEY_LOCAL_MACHINE, H.WINDOWS_CPU_KEY)]
    assert (host.cpu_cores_physical, host.cpu_cores_logical) == (24, 32)
    assert (host.ram_total_bytes, host.ram_available_bytes) == (64 * GIB, 40 * GIB)


@pytest.mark.parametrize("values", [None, {}, {"ProcessorNameString": "  "}])
def test_windows_without_a_registry_name_falls_back_to_platform_processor(monkeypatch, values):
    monkeypatch.setattr("platform.processor", lambda: RAPTOR_LAKE)
    assert H.cpu_name("Windows", registry=FakeRegistry(values)) == RAPTOR_LAKE


@pytest.mark.skipif(sys.platform == "win32", reason="winreg exists on Windows")
def test_windows_cpu_name_without_winreg_is_unknown():
    assert H.windows_cpu_name() is None


def test_macos_host_has_an_available_ram_figure():
    run = _mac({"sysctl -n machdep.cpu.brand_string": "Apple M2 Max\n"})
    host = collect_host(probe_torch=False, psutil=make_psutil(physical=12, logical=12,
                                                              total=32 * GIB,
                                                              available=21 * GIB),
                        system="Darwin", run=run)
    assert host.cpu_model == "Apple M2 Max"
    assert (host.ram_total_bytes, host.ram_available_bytes) == (32 * GIB, 21 * GIB)
    assert host.cpu_cores_physical == 12


def test_what_psutil_cannot_tell_is_none_and_linux_cores_come_from_proc(tmp_path):
    fake = make_psutil(physical=None, failing=("swap_memory", "disk_partitions"))
    facts = H.host_facts("Linux", psutil=fake, root=_proc(tmp_path, cores=6))
    assert facts.cores_physical == 6  # psutil said None (a container): /proc counts them
    assert facts.swap_total_bytes is None and facts.disks == ()
    assert facts.ram_available_bytes == 40 * GIB and facts.source == "psutil"


# --------------------------------------------------------------------------- without psutil
@pytest.fixture
def no_psutil(monkeypatch):
    monkeypatch.setitem(sys.modules, "psutil", None)  # import psutil -> ImportError
    assert H.import_psutil() is None


def test_without_psutil_linux_reads_proc(no_psutil, tmp_path):
    facts = H.host_facts("Linux", root=_proc(tmp_path))
    assert facts.source == "system"
    assert (facts.cores_physical, facts.ram_total_bytes, facts.ram_available_bytes) == (
        4, 65536000 * 1024, 32768000 * 1024)
    assert (facts.swap_total_bytes, facts.swap_free_bytes) == (8388604 * 1024, 4194300 * 1024)
    assert H.available_ram(system="Linux", root=tmp_path) == (65536000 * 1024,
                                                             32768000 * 1024)


def test_without_psutil_macos_reads_sysctl_and_has_no_available_figure(no_psutil):
    run = _mac({"sysctl -n hw.physicalcpu": "10\n", "sysctl -n hw.memsize": f"{16 * GIB}\n"})
    facts = H.host_facts("Darwin", run=run)
    assert (facts.cores_physical, facts.ram_total_bytes) == (10, 16 * GIB)
    assert facts.ram_available_bytes is None


def test_without_psutil_windows_knows_only_the_thread_count(no_psutil):
    facts = H.host_facts("Windows")
    assert facts.ram_total_bytes is None and facts.cores_logical
    assert check_this_machine(GIB).fits in (True, False, None)  # never raises


def test_without_psutil_this_machine_is_still_described(no_psutil):
    host = collect_host(probe_torch=False)
    assert host.facts_source == "system" and host.cpu_cores_logical


_BLOCKED = textwrap.dedent(
    """
    import importlib.abc, json, sys
    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "psutil":
                raise ImportError("blocked import: " + name)
    sys.meta_path.insert(0, Blocker())
    from gpuadvisor import cli
    assert cli.main(["detect", "--json", "--no-torch", "--simulate", "one-gpu"]) == 0
    assert cli.main(["estimate", "--model", "gpt2", "--offload", "optimizer", "--zero", "2",
                     "--json"]) == 0
    """
)


def test_the_app_runs_with_psutil_missing():
    result = subprocess.run([sys.executable, "-c", _BLOCKED], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    decoder = json.JSONDecoder()
    detected, end = decoder.raw_decode(result.stdout)
    estimated, _ = decoder.raw_decode(result.stdout[end:].lstrip())
    assert detected["host"]["facts_source"] == "system"
    assert detected["host"]["cpu_cores_logical"]
    assert estimated["memory"]["host_ram"]["needed_bytes"] > 0


# --------------------------------------------------------------------------- offload vs RAM
@pytest.mark.parametrize(("needed", "available", "total", "code", "fits", "words"), [
    (10 * GIB, 40 * GIB, 64 * GIB, "fits", True, "40.0 GiB of 64.0 GiB is available: it fits"),
    (38 * GIB, 40 * GIB, 64 * GIB, "tight", True, "only just"),
    (50 * GIB, 40 * GIB, 64 * GIB, "short", False, "free 10.0 GiB"),
    (100 * GIB, 40 * GIB, 64 * GIB, "over_total", False, "more than this machine's 64.0 GiB"),
    (100 * GIB, None, 64 * GIB, "over_total", False, "more than this machine's"),
    (10 * GIB, None, 64 * GIB, "unknown", None, "could not be read"),
])
def test_offload_verdicts(needed, available, total, code, fits, words):
    check = check_host_ram(needed, available, total)
    assert (check.code, check.fits) == (code, fits)
    assert words in check.verdict and check.verdict.startswith("The plan needs")
    assert check.to_json() == {"needed_bytes": needed, "available_bytes": available,
                               "total_bytes": total, "fits": fits, "code": code,
                               "verdict": check.verdict}


def test_offload_verdict_speaks_decimal_units_when_asked():
    assert "50.0 GB" in check_host_ram(50e9, 40e9, 64e9, units="GB").verdict


def _estimate(capsys, *args):
    code = cli.main(["estimate", "--model", "gpt2", *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def test_estimate_json_checks_an_offload_against_this_machines_ram(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "psutil", make_psutil(total=4 * GIB, available=GIB))
    data = json.loads(_estimate(capsys, "--offload", "optimizer", "--zero", "2", "--json"))
    host_ram = data["memory"]["host_ram"]
    assert host_ram["needed_bytes"] == data["memory"]["cpu_offload_bytes"] > GIB
    assert (host_ram["available_bytes"], host_ram["total_bytes"]) == (GIB, 4 * GIB)
    assert host_ram["fits"] is False and host_ram["code"] == "short"
    text = _estimate(capsys, "--offload", "optimizer", "--zero", "2")
    assert "host RAM: The plan needs" in text and "only 1.0 GiB of 4.0 GiB is available" in text


def test_estimate_without_offload_has_no_host_ram_check(capsys, monkeypatch):
    fake = make_psutil()
    monkeypatch.setitem(sys.modules, "psutil", fake)
    data = json.loads(_estimate(capsys, "--json"))
    assert "host_ram" not in data["memory"] and fake.calls == []
    assert "host RAM:" not in _estimate(capsys)
