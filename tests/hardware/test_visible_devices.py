"""CUDA_VISIBLE_DEVICES with the fake NVML: indices, UUIDs (whole and abbreviated), MIG forms,
an empty value, the entry CUDA stops at, a device named twice; and what detection says it
hides (the hint, ``detect --json``'s ``hidden``, the text output)."""

from __future__ import annotations

import importlib
import json

import pytest

from gpuadvisor import cli
from gpuadvisor.hardware import nvml
from gpuadvisor.hardware.base import GpuInfo, MigSlice
from gpuadvisor.hardware.detect import detect
from gpuadvisor.hardware.visible import apply_cuda_visible_devices
from tests.fakes import fake_pynvml as F

from .conftest import HOST, NO_ENV

MIB = 1024**2
U3090 = "GPU-3090aaaa-0000-0000-0000-000000000001"
U3060 = "GPU-3060bbbb-0000-0000-0000-000000000002"
UA100 = "GPU-a100dddd-0000-0000-0000-000000000004"
# The package re-exports the detect() function under the module's name; fetch the module.
D = importlib.import_module("gpuadvisor.hardware.detect")


def _detect(tmp_path, monkeypatch, value, order=None):
    if value is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", value)
    if order is not None:
        monkeypatch.setenv("CUDA_DEVICE_ORDER", order)
    return detect(host=HOST, system="Linux", env=NO_ENV, sysfs_root=tmp_path)


@pytest.fixture
def two_cards(install_nvml):
    return install_nvml([F.rtx_3090(), F.rtx_3060_12gb()])


def _names(result):
    return [g.name for g in result.gpus]


def test_unset_shows_every_card_and_hides_nothing(two_cards, tmp_path, monkeypatch):
    result = _detect(tmp_path, monkeypatch, None)
    assert _names(result) == ["NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3060"]
    assert result.hidden == () and result.hints == () and result.cuda_visible_devices is None


def test_an_index_keeps_that_card_and_says_which_one_it_hides(two_cards, tmp_path, monkeypatch):
    result = _detect(tmp_path, monkeypatch, "1")
    assert _names(result) == ["NVIDIA GeForce RTX 3060"]
    assert result.gpus[0].index == 1  # the driver's index, as nvidia-smi shows it
    (hidden,) = result.hidden
    assert (hidden.index, hidden.name, hidden.uuid) == (0, "NVIDIA GeForce RTX 3090", U3090)
    assert hidden.memory_total_bytes == 24576 * MIB
    assert hidden.reason == "not in CUDA_VISIBLE_DEVICES=1"
    assert result.hints[0] == ("CUDA_VISIBLE_DEVICES=1 hides GPU 0 (NVIDIA GeForce RTX 3090) "
                               "from CUDA programs started here.")


def test_the_rig_is_sized_by_what_cuda_sees(two_cards, tmp_path, monkeypatch):
    result = _detect(tmp_path, monkeypatch, "0")
    assert [g.catalog_id for g in result.training_gpus] == ["rtx-3090"]


@pytest.mark.parametrize("value", ["GPU-3060bbbb", "gpu-3060BBBB-0000", U3060, " GPU-3060bbbb "])
def test_a_uuid_or_a_unique_prefix_of_it_names_a_card(two_cards, tmp_path, monkeypatch, value):
    result = _detect(tmp_path, monkeypatch, value)
    assert _names(result) == ["NVIDIA GeForce RTX 3060"]


def test_an_empty_value_hides_every_card(two_cards, tmp_path, monkeypatch):
    result = _detect(tmp_path, monkeypatch, "")
    assert result.backend == "nvml" and result.gpus == ()
    assert [h.index for h in result.hidden] == [0, 1]
    assert {h.reason for h in result.hidden} == {"CUDA_VISIBLE_DEVICES is set but empty"}
    assert "hides GPU 0 (NVIDIA GeForce RTX 3090); GPU 1 (NVIDIA GeForce RTX 3060)" in \
        result.hints[0]


@pytest.mark.parametrize(("value", "kept", "stopped_at"), [
    ("1,-1,0", ["NVIDIA GeForce RTX 3060"], "'-1'"),          # CUDA's own example: 0,2,-1,1
    ("0,7,1", ["NVIDIA GeForce RTX 3090"], "'7'"),            # out of range
    ("1,banana,0", ["NVIDIA GeForce RTX 3060"], "'banana'"),  # neither index nor UUID
    ("GPU-3060bbbb,0", ["NVIDIA GeForce RTX 3060"], "'0'"),   # an index after UUIDs
    ("GPU-ffff,1", [], "'GPU-ffff'"),                          # no such UUID
    ("GPU-30,1", [], "'GPU-30'"),                              # prefix of both cards
])
def test_the_list_stops_at_the_first_entry_that_names_no_device(
        two_cards, tmp_path, monkeypatch, value, kept, stopped_at):
    result = _detect(tmp_path, monkeypatch, value)
    assert _names(result) == kept
    stop = next(h for h in result.hints if "CUDA ignores it" in h)
    assert f"entry {stopped_at}" in stop and "every entry after it" in stop


def test_an_entry_is_read_up_to_its_last_digit_like_cuda(two_cards, tmp_path, monkeypatch):
    assert _names(_detect(tmp_path, monkeypatch, "1 , 0")) == [
        "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3060"]


def test_a_card_named_twice_hides_everything(two_cards, tmp_path, monkeypatch):
    result = _detect(tmp_path, monkeypatch, "0,0")
    assert result.gpus == () and len(result.hidden) == 2
    assert any("twice" in h for h in result.hints)


def test_indices_on_a_mixed_rig_come_with_the_device_order_note(two_cards, tmp_path,
                                                               monkeypatch):
    result = _detect(tmp_path, monkeypatch, "0,1")
    assert result.hidden == ()
    assert any("CUDA_DEVICE_ORDER=PCI_BUS_ID" in h for h in result.hints)
    assert _detect(tmp_path, monkeypatch, "0,1", order="PCI_BUS_ID").hints == ()
    assert _detect(tmp_path, monkeypatch, U3090).hints[0].startswith(
        "CUDA_VISIBLE_DEVICES=GPU-3090aaaa-0000-0000-0000-000000000001 hides GPU 1")


def test_the_backend_filters_on_every_refresh(two_cards, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    with nvml.open_backend(NO_ENV) as backend:
        assert [g.index for g in backend.devices()] == [0]
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
        backend.refresh()
        assert [g.index for g in backend.devices()] == [1]
        assert [h.index for h in backend.hidden] == [0]
    with nvml.open_backend(NO_ENV, cuda_visible_devices=None) as backend:
        assert [g.index for g in backend.devices()] == [0, 1]  # given here: env ignored


def test_detect_json_lists_what_is_hidden(two_cards, capsys, monkeypatch):
    monkeypatch.setattr(D.platform, "system", lambda: "Linux")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-3060")
    assert cli.main(["detect", "--json", "--no-torch"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [g["index"] for g in data["gpus"]] == [1]
    assert data["cuda_visible_devices"] == "GPU-3060"
    assert data["hidden"] == [{
        "index": 0, "name": "NVIDIA GeForce RTX 3090", "uuid": U3090,
        "memory_total_bytes": 24576 * MIB, "mig_parent_index": None,
        "reason": "not in CUDA_VISIBLE_DEVICES=GPU-3060"}]
    assert any("hides GPU 0" in h for h in data["hints"])


def test_detect_text_lists_what_is_hidden(two_cards, capsys, monkeypatch):
    monkeypatch.setattr(D.platform, "system", lambda: "Linux")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert cli.main(["detect", "--no-torch"]) == 0
    out = capsys.readouterr().out
    assert "GPU 1: NVIDIA GeForce RTX 3060" in out and "GPU 0: NVIDIA" not in out
    assert "hidden by CUDA_VISIBLE_DEVICES=1" in out
    assert "GPU 0 (NVIDIA GeForce RTX 3090)  24.0 GiB; not in CUDA_VISIBLE_DEVICES=1" in out
    assert "hint: CUDA_VISIBLE_DEVICES=1 hides GPU 0" in out


def test_simulated_rigs_ignore_the_variable(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    result = detect("mixed", host=HOST)
    assert len(result.gpus) == 2 and result.hidden == ()


# --------------------------------------------------------------------------- MIG forms
@pytest.fixture
def mig_rig(install_nvml):
    return install_nvml([F.rtx_3090(), F.a100_mig()])


def _slices(result):
    return [(g.mig.parent_index, g.mig.mig_index) for g in result.gpus if g.mig is not None]


def test_naming_a_card_in_mig_mode_shows_its_slices(mig_rig, tmp_path, monkeypatch):
    result = _detect(tmp_path, monkeypatch, "1")
    assert [g.index for g in result.gpus if g.mig is None] == [1]
    assert _slices(result) == [(1, 0), (1, 1), (1, 2)]
    assert [h.index for h in result.hidden] == [0]


@pytest.mark.parametrize("value", ["MIG-5c4b1e0a-2222", "MIG-5c4b1e0a-2222-5b2a-9c3d-000000000002",
                                   f"MIG-{UA100}/5/0", "MIG-GPU-a100dddd/5/0"])
def test_a_mig_uuid_or_gpu_uuid_with_instance_ids_names_one_slice(mig_rig, tmp_path,
                                                                  monkeypatch, value):
    result = _detect(tmp_path, monkeypatch, value)
    assert _slices(result) == [(1, 1)]
    assert [g.index for g in result.gpus if g.mig is None] == [1]  # its card, for context
    hidden = {(h.index, h.mig_parent_index) for h in result.hidden}
    assert (0, None) in hidden and len(hidden) == 3  # the 3090 and the two other slices
    assert "GPU 1 MIG slice (NVIDIA A100-SXM4-40GB MIG 3g.20gb)" in result.hints[0]


@pytest.mark.parametrize(("value", "why"), [
    ("MIG-GPU-a100dddd/9/0", "names no MIG slice of that GPU"),
    ("MIG-GPU-a100dddd", "needs /<GPU instance id>/<compute instance id>"),
    ("MIG-5c4b1e0a", "matches 3 devices"),
])
def test_a_mig_entry_that_names_no_slice_stops_the_list(mig_rig, tmp_path, monkeypatch,
                                                        value, why):
    result = _detect(tmp_path, monkeypatch, value)
    assert result.gpus == ()
    assert any(why in h for h in result.hints)


# --------------------------------------------------------------------------- pure function
def _card(index, name="NVIDIA GeForce RTX 3090", uuid=None, **kw):
    return GpuInfo(index=index, name=name, vendor="nvidia", backend="nvml",
                   uuid=uuid or f"GPU-{index:08d}-0000-0000-0000-000000000000", **kw)


def test_apply_keeps_the_drivers_order_whatever_the_lists_order():
    cards = [_card(0), _card(1), _card(2)]
    seen = apply_cuda_visible_devices(cards, "2,0")
    assert [g.index for g in seen.visible] == [0, 2]
    assert [h.index for h in seen.hidden] == [1]
    assert seen.notes == ("CUDA_VISIBLE_DEVICES=2,0 hides GPU 1 (NVIDIA GeForce RTX 3090) from "
                          "CUDA programs started here.",)  # same cards: no order note


def test_apply_on_more_than_four_hidden_cards_counts_the_rest():
    seen = apply_cuda_visible_devices([_card(i) for i in range(8)], "7")
    assert len(seen.hidden) == 7 and "and 3 more from CUDA programs" in seen.notes[0]


def test_several_visible_slices_get_the_one_slice_per_process_note():
    card = _card(0, mig_enabled=True)
    slices = [_card(1 + i, name="A100 MIG 1g.5gb", uuid=f"MIG-{i:08d}",
                    mig=MigSlice(0, i, 7 + i, 0)) for i in range(2)]
    notes = apply_cuda_visible_devices([card, *slices], None).notes
    assert len(notes) == 1 and "one MIG slice" in notes[0]
    assert apply_cuda_visible_devices([card, *slices], "MIG-00000001").notes[1:] == ()
