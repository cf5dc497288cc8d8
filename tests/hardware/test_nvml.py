"""The NVML backend against the fake pynvml: values through unchanged, n/a as None, lost cards
reported, and one actionable hint when NVML cannot start."""

from __future__ import annotations

import sys

import pytest

from gpuadvisor.hardware import nvml
from tests.fakes import fake_pynvml as F

from .conftest import NO_ENV

MIB = 1024**2
DEPRECATED_PYNVML_HINT = nvml.deprecated_pynvml_hint  # before the autouse fixture stubs it


def _open(env=NO_ENV):
    return nvml.open_backend(env)


def test_fake_errors_are_shaped_like_real_nvml():
    err = F.NVMLError(F.NVML_ERROR_NOT_SUPPORTED)
    assert type(err) is F.NVMLError_NotSupported and err.value == 3
    assert F.NVMLError_GpuIsLost().value == 15
    assert F.NVMLError_LibraryNotFound().value == 12
    assert F.NVMLError_Uninitialized().value == 1
    assert F.NVMLError_NoPermission().value == 4
    assert F.NVMLError_DriverNotLoaded().value == 9
    assert isinstance(F.NVMLError_GpuIsLost(), F.NVMLError)


def test_every_field_of_an_rtx_4090_comes_through_unchanged(install_nvml):
    device = F.rtx_4090(
        compute_procs=[(4242, 3 * 1024**3)], graphics_procs=[(901, None)],
        throttle_mask=0x4 | 0x20, nvlink=[1, 0, 1], ecc_mode=(1, 1), ecc_uncorrected=2,
        mig_mode=(1, 1), persistence=1,
    )
    install_nvml([device], process_names={4242: "/usr/bin/python3", 901: "Xorg"})
    with _open() as backend:
        (gpu,) = backend.devices()
    assert gpu.index == 0 and gpu.backend == "nvml" and gpu.vendor == "nvidia"
    assert gpu.name == "NVIDIA GeForce RTX 4090"
    assert gpu.uuid == device.uuid
    assert gpu.pci_bus_id == "00000000:01:00.0"
    assert gpu.memory_total_bytes == 24564 * MIB
    assert gpu.memory_used_bytes == 1200 * MIB
    assert gpu.memory_free_bytes == (24564 - 1200) * MIB
    assert gpu.driver_version == "550.54.15"
    assert gpu.cuda_driver_version == "12.4"
    assert gpu.compute_capability == "8.9"
    assert gpu.sm_count == 128
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max) == (4, 4)
    assert (gpu.pcie_width_current, gpu.pcie_width_max) == (16, 16)
    assert gpu.nvlink_links_active == 2
    assert gpu.power_draw_w == pytest.approx(61.25)
    assert gpu.power_limit_w == 450.0 and gpu.power_default_limit_w == 450.0
    assert (gpu.power_min_limit_w, gpu.power_max_limit_w) == (150.0, 600.0)
    assert (gpu.temperature_c, gpu.temperature_slowdown_c) == (41.0, 90.0)
    assert (gpu.sm_clock_mhz, gpu.sm_clock_max_mhz) == (2520, 3105)
    assert (gpu.mem_clock_mhz, gpu.mem_clock_max_mhz) == (10501, 10501)
    assert (gpu.utilization_gpu_pct, gpu.utilization_mem_pct) == (37.0, 12.0)
    assert gpu.throttle_reasons == ("power cap", "thermal (software)")
    assert gpu.ecc_enabled is True and gpu.ecc_errors_uncorrected == 2
    assert gpu.mig_enabled is True and gpu.persistence_mode is True
    procs = {p.pid: p for p in gpu.processes}
    assert procs[4242].name == "python3" and procs[4242].used_bytes == 3 * 1024**3
    assert procs[901].name == "Xorg" and procs[901].used_bytes is None
    assert gpu.catalog_id is None  # matching is detect's job
    assert gpu.lost is False


def test_unsupported_fields_are_none_not_exceptions(install_nvml):
    install_nvml([F.unsupported_fields_device()])
    with _open() as backend:
        (gpu,) = backend.devices()
    for name in ("power_draw_w", "power_limit_w", "power_default_limit_w", "power_min_limit_w",
                 "power_max_limit_w", "utilization_gpu_pct", "utilization_mem_pct"):
        assert getattr(gpu, name) is None, name
    assert gpu.name == "NVIDIA GeForce RTX 3090"
    assert gpu.memory_total_bytes == 24576 * MIB  # the rest still reads
    assert gpu.nvlink_links_active == 0  # links exist, none active (no bridge)
    assert gpu.ecc_enabled is None and gpu.mig_enabled is None


@pytest.mark.parametrize("code", [F.NVML_ERROR_NOT_SUPPORTED, F.NVML_ERROR_NO_PERMISSION,
                                  F.NVML_ERROR_FUNCTION_NOT_FOUND, F.NVML_ERROR_UNKNOWN])
def test_any_per_field_error_reads_as_na(install_nvml, code):
    install_nvml([F.rtx_4090(temperature_c=F.Raise(code), compute_procs=F.Raise(code),
                             graphics_procs=F.Raise(code))])
    with _open() as backend:
        (gpu,) = backend.devices()
    assert gpu.temperature_c is None
    assert gpu.processes is None
    assert gpu.power_draw_w == pytest.approx(61.25)


def test_functions_missing_from_old_bindings_read_as_na(install_nvml):
    install_nvml([F.rtx_4090(throttle_mask=0x40)],
                 missing=("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetAttributes",
                          "nvmlDeviceGetAttributes_v2", "nvmlSystemGetCudaDriverVersion_v2"))
    with _open() as backend:
        (gpu,) = backend.devices()
    assert gpu.throttle_reasons == ("thermal (hardware)",)  # fell back to the old name
    assert gpu.sm_count is None
    assert gpu.cuda_driver_version == "12.4"


def test_names_returned_as_bytes_by_older_bindings_are_decoded(install_nvml):
    install_nvml([F.rtx_4090(name=b"NVIDIA GeForce RTX 4090", uuid=b"GPU-abc",
                             bus_id=b"00000000:01:00.0")])
    with _open() as backend:
        (gpu,) = backend.devices()
    assert (gpu.name, gpu.uuid, gpu.pci_bus_id) == ("NVIDIA GeForce RTX 4090", "GPU-abc",
                                                    "00000000:01:00.0")


def test_two_cards_are_two_records_with_their_own_memory(install_nvml):
    install_nvml([F.rtx_3090(), F.rtx_3060_12gb()])
    with _open() as backend:
        gpus = backend.devices()
    assert [g.index for g in gpus] == [0, 1]
    assert [g.memory_total_bytes for g in gpus] == [24576 * MIB, 12288 * MIB]


def test_a_gpu_lost_on_refresh_is_reported_not_raised(install_nvml):
    module = install_nvml([F.rtx_3090(), F.rtx_3090(bus_id="00000000:22:00.0")])
    with _open() as backend:
        first = backend.devices()
        assert not any(g.lost for g in first)
        module.fake.lose(1)
        backend.refresh()
        gpus = backend.devices()
    assert gpus[0].lost is False and gpus[0].power_draw_w == pytest.approx(30.5)
    assert gpus[1].lost is True
    assert gpus[1].name == "NVIDIA GeForce RTX 3090"  # remembered from the first reading
    assert gpus[1].pci_bus_id == "00000000:22:00.0"
    assert gpus[1].temperature_c is None and gpus[1].is_training_gpu is False


def test_a_gpu_lost_mid_read_is_reported(install_nvml):
    install_nvml([F.rtx_4090(temperature_c=F.Raise(F.NVML_ERROR_GPU_IS_LOST))])
    with _open() as backend:
        (gpu,) = backend.devices()
    assert gpu.lost is True and gpu.index == 0


def test_nvml_is_initialised_once_and_shut_down_with_the_last_backend(install_nvml):
    module = install_nvml([F.rtx_4090()])
    first, second = _open(), _open()
    first.devices()
    second.devices()
    assert module.fake.init_calls == 1
    first.close()
    first.close()  # idempotent
    assert module.fake.shutdown_calls == 0
    second.close()
    assert module.fake.shutdown_calls == 1
    with pytest.raises(RuntimeError):
        second.refresh()


@pytest.mark.parametrize(("code", "reason", "words"), [
    (F.NVML_ERROR_LIBRARY_NOT_FOUND, "library-not-found", "install its driver"),
    (F.NVML_ERROR_DRIVER_NOT_LOADED, "driver-not-loaded", "modprobe nvidia"),
    (F.NVML_ERROR_UNINITIALIZED, "uninitialized", "libnvidia-ml"),
    (F.NVML_ERROR_NO_PERMISSION, "no-permission", "/dev/nvidia"),
    (F.NVML_ERROR_LIB_RM_VERSION_MISMATCH, "version-mismatch", "reboot"),
])
def test_nvml_start_failures_give_one_actionable_hint(install_nvml, code, reason, words):
    install_nvml([], init_error=code)
    with pytest.raises(nvml.NvmlUnavailable) as info:
        _open()
    assert info.value.reason == reason
    assert words in info.value.hint
    assert "\n" not in info.value.hint


def test_wsl_hint_points_at_the_windows_driver_and_wsl_lib(install_nvml):
    install_nvml([], init_error=F.NVML_ERROR_LIBRARY_NOT_FOUND)
    with pytest.raises(nvml.NvmlUnavailable) as info:
        _open(nvml.Environment(is_wsl=True))
    assert "Windows" in info.value.hint and "/usr/lib/wsl/lib" in info.value.hint


def test_container_hint_says_gpus_all(install_nvml):
    install_nvml([], init_error=F.NVML_ERROR_LIBRARY_NOT_FOUND)
    with pytest.raises(nvml.NvmlUnavailable) as info:
        _open(nvml.Environment(in_container=True))
    assert "--gpus all" in info.value.hint and "Container Toolkit" in info.value.hint


def test_card_present_but_no_driver_says_install_the_driver(install_nvml):
    install_nvml([], init_error=F.NVML_ERROR_LIBRARY_NOT_FOUND)
    with pytest.raises(nvml.NvmlUnavailable) as info:
        _open(nvml.Environment(nvidia_pci_present=True))
    assert "An NVIDIA GPU is present" in info.value.hint


def test_missing_bindings_say_install_nvidia_ml_py(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml -> ImportError
    with pytest.raises(nvml.NvmlUnavailable) as info:
        _open()
    assert info.value.reason == "not-installed"
    assert "pip install nvidia-ml-py" in info.value.hint


def test_environment_probe_reads_wsl_container_and_nvidia_pci(tmp_path):
    from tests.fakes.fake_sysfs import add_pci_device

    assert nvml.Environment.probe(tmp_path) == nvml.Environment()
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/version").write_text("Linux version 5.15.153.1-microsoft-standard-WSL2\n")
    (tmp_path / ".dockerenv").write_text("")
    add_pci_device(tmp_path, "0000:01:00.0", vendor="0x10de")
    add_pci_device(tmp_path, "0000:01:00.1", vendor="0x10de", pci_class="0x040300")  # audio
    env = nvml.Environment.probe(tmp_path)
    assert env == nvml.Environment(is_wsl=True, in_container=True, nvidia_pci_present=True)


class _Dist:
    def __init__(self, version, files):
        self.version, self.files = version, files


def test_deprecated_pynvml_that_ships_its_own_module_gets_a_hint():
    from importlib.metadata import PackageNotFoundError

    def missing(name):
        raise PackageNotFoundError(name)

    assert DEPRECATED_PYNVML_HINT(missing) is None
    old = DEPRECATED_PYNVML_HINT(lambda name: _Dist("11.5.0", ["pynvml.py", "smi.py"]))
    assert "pip uninstall pynvml" in old and "nvidia-ml-py" in old and "11.5.0" in old
    wrapper = _Dist("12.0.0", ["pynvml_utils/__init__.py"])
    assert DEPRECATED_PYNVML_HINT(lambda name: wrapper) is None
    assert DEPRECATED_PYNVML_HINT(lambda name: _Dist("11.4.1", None)) is not None
