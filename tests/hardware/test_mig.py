"""MIG slices with the fake NVML: listed as devices of their own with their memory, the card
kept beside them but no longer a training GPU, and NVML's errors for MIG calls read as n/a."""

from __future__ import annotations

import importlib
import json

import pytest

from gpuadvisor import cli
from gpuadvisor.hardware import nvml
from gpuadvisor.hardware.detect import detect, smallest_card
from gpuadvisor.hardware.text import detection_text
from tests.fakes import fake_pynvml as F

from .conftest import HOST, NO_ENV

D = importlib.import_module("gpuadvisor.hardware.detect")
MIB = 1024**2


def test_fake_mig_calls_fail_with_nvmls_own_codes(install_nvml):
    module = install_nvml([F.rtx_3090(), F.a100_mig([F.FakeMigDevice(), None])])
    module.nvmlInit()
    plain, split = module.nvmlDeviceGetHandleByIndex(0), module.nvmlDeviceGetHandleByIndex(1)
    with pytest.raises(F.NVMLError_NotSupported):
        module.nvmlDeviceGetMaxMigDeviceCount(plain)
    with pytest.raises(F.NVMLError_NotSupported):
        module.nvmlDeviceGetMigDeviceHandleByIndex(plain, 0)
    assert module.nvmlDeviceGetMaxMigDeviceCount(split) == 7
    with pytest.raises(F.NVMLError_NotFound):
        module.nvmlDeviceGetMigDeviceHandleByIndex(split, 1)  # an empty slot
    with pytest.raises(F.NVMLError_InvalidArgument):
        module.nvmlDeviceGetMigDeviceHandleByIndex(split, 7)  # past the last slot
    mig = module.nvmlDeviceGetMigDeviceHandleByIndex(split, 0)
    assert module.nvmlDeviceIsMigDeviceHandle(mig) == 1
    assert module.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mig).index == 1
    assert module.nvmlDeviceGetUUID(mig).startswith("MIG-")
    with pytest.raises(F.NVMLError_NotSupported):
        module.nvmlDeviceGetPowerUsage(mig)  # the card's, not the slice's
    off = F.a100_mig(mig_mode=(0, 0))
    module2 = install_nvml([off])
    module2.nvmlInit()
    with pytest.raises(F.NVMLError_InvalidArgument):
        module2.nvmlDeviceGetMigDeviceHandleByIndex(module2.nvmlDeviceGetHandleByIndex(0), 0)


def test_slices_are_listed_after_their_card_with_their_own_memory(install_nvml):
    install_nvml([F.a100_mig(), F.rtx_3090()])
    with nvml.open_backend(NO_ENV) as backend:
        gpus = backend.devices()
    assert [(g.index, g.name) for g in gpus] == [
        (0, "NVIDIA A100-SXM4-40GB"),
        (2, "NVIDIA A100-SXM4-40GB MIG 3g.20gb"),
        (3, "NVIDIA A100-SXM4-40GB MIG 2g.10gb"),
        (4, "NVIDIA A100-SXM4-40GB MIG 1g.5gb"),
        (1, "NVIDIA GeForce RTX 3090"),
    ]
    card, big, mid, small, other = gpus
    assert card.mig is None and card.is_mig_parent and not card.is_training_gpu
    assert card.memory_total_bytes == 40960 * MIB  # the whole card, as NVML says
    assert [s.memory_total_bytes for s in (big, mid, small)] == [19968 * MIB, 9728 * MIB,
                                                                 4864 * MIB]
    assert big.memory_free_bytes == (19968 - 13) * MIB
    assert [s.sm_count for s in (big, mid, small)] == [42, 28, 14]
    assert [(s.mig.parent_index, s.mig.mig_index, s.mig.gpu_instance_id,
             s.mig.compute_instance_id) for s in (big, mid, small)] == [
        (0, 0, 1, 0), (0, 1, 5, 0), (0, 2, 13, 0)]
    assert mid.uuid == "MIG-5c4b1e0a-2222-5b2a-9c3d-000000000002"
    assert all(s.is_training_gpu and not s.is_mig_parent for s in (big, mid, small))
    # The card's own figures stay on the card; the slice reads them n/a.
    assert small.power_draw_w is None and small.temperature_c is None
    assert (small.compute_capability, small.pci_bus_id) == ("8.0", card.pci_bus_id)
    assert small.driver_version == card.driver_version and small.processes == ()
    assert other.mig is None and other.is_training_gpu


def test_an_empty_slot_is_skipped_and_a_lost_card_has_no_slices(install_nvml):
    module = install_nvml([F.rtx_3090(), F.a100_mig([F.FakeMigDevice(), None,
                                                     F.FakeMigDevice(uuid="MIG-x", sm_count=14)])])
    with nvml.open_backend(NO_ENV) as backend:
        assert [(g.index, g.mig and g.mig.mig_index) for g in backend.devices()] == [
            (0, None), (1, None), (2, 0), (3, 2)]
        module.fake.lose(1)
        backend.refresh()
        assert [(g.index, g.lost) for g in backend.devices()] == [(0, False), (1, True)]


def test_a_card_without_mig_support_is_read_as_before(install_nvml):
    install_nvml([F.rtx_4090(mig_mode=(1, 1))])  # says MIG on, has no MIG slots
    with nvml.open_backend(NO_ENV) as backend:
        (gpu,) = backend.devices()
    assert gpu.mig_enabled is True and gpu.mig is None


def test_detect_matches_a_slice_to_its_cards_catalog_entry(install_nvml, tmp_path):
    install_nvml([F.a100_mig()])
    result = detect(host=HOST, system="Linux", env=NO_ENV, sysfs_root=tmp_path)
    card, *slices = result.gpus
    assert card.catalog_id is not None and card.catalog_id.startswith("a100")
    assert {s.catalog_id for s in slices} == {card.catalog_id}
    assert [g.index for g in result.training_gpus] == [1, 2, 3]
    assert smallest_card(result.gpus).name.endswith("MIG 1g.5gb")
    assert [w.code for w in result.warnings] == ["mig_enabled"]  # on the card, once
    assert len(result.hints) == 1 and "one MIG slice" in result.hints[0]


def test_a_card_in_mig_mode_without_slices_gets_a_hint(install_nvml, tmp_path):
    install_nvml([F.a100_mig([])])
    result = detect(host=HOST, system="Linux", env=NO_ENV, sysfs_root=tmp_path)
    assert result.training_gpus == ()
    assert len(result.hints) == 1
    assert "MIG mode with no slice" in result.hints[0] and "nvidia-smi" in result.hints[0]
    assert "integrated" not in result.hints[0]


def test_detect_json_and_text_show_slices(install_nvml, capsys, monkeypatch):
    install_nvml([F.a100_mig()])
    monkeypatch.setattr(D.platform, "system", lambda: "Linux")
    assert cli.main(["detect", "--json", "--no-torch"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gpus"][0]["mig"] is None and data["gpus"][0]["mig_enabled"] is True
    assert data["gpus"][3]["mig"] == {"parent_index": 0, "mig_index": 2, "gpu_instance_id": 13,
                                      "compute_instance_id": 0}
    assert data["gpus"][3]["memory_total_bytes"] == 4864 * MIB
    text = detection_text(detect(host=HOST, system="Linux", env=NO_ENV))
    assert "GPU 0: NVIDIA A100-SXM4-40GB [MIG mode: see its slices]" in text
    assert "GPU 0 MIG 2 (GI 13, CI 0): NVIDIA A100-SXM4-40GB MIG 1g.5gb" in text
