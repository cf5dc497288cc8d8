"""--simulate SPEC: catalog rigs and the named scenarios."""

from __future__ import annotations

import pytest

from gpuadvisor.catalog import load_gpus
from gpuadvisor.hardware.simulated import SCENARIOS, SimulatedBackend, parse_spec

GIB = 1024**3


@pytest.fixture(scope="module")
def catalog():
    return load_gpus()


@pytest.mark.parametrize(("spec", "ids"), [
    ("h100-sxm", ["h100-sxm"]),
    ("2x rtx-3090", ["rtx-3090", "rtx-3090"]),
    ("2X RTX-3090", ["rtx-3090", "rtx-3090"]),
    ("rtx-3090+rtx-3060-12gb", ["rtx-3090", "rtx-3060-12gb"]),
    (" 4x h100-sxm + a100-sxm-80gb ", ["h100-sxm"] * 4 + ["a100-sxm-80gb"]),
])
def test_specs_expand_to_one_id_per_card(catalog, spec, ids):
    assert parse_spec(spec, catalog) == ids


@pytest.mark.parametrize(("spec", "names"), [
    ("2x rtx-9090", "'rtx-9090'"),
    ("rtx-3090+bogus", "'bogus'"),
    ("0x rtx-3090", "count 0"),
    ("rtx 3090!", "'rtx 3090!'"),
    ("", "empty"),
])
def test_bad_specs_name_the_bad_token(catalog, spec, names):
    with pytest.raises(ValueError) as info:
        parse_spec(spec, catalog)
    assert names in str(info.value)
    assert str(info.value).startswith("--simulate:")


def test_unknown_gpu_suggests_close_ids_and_scenarios(catalog):
    with pytest.raises(ValueError, match=r"did you mean .*rtx-4090.*one-gpu, mixed"):
        SimulatedBackend("rtx-4909", catalog)


def test_figures_come_from_the_catalog(catalog):
    (gpu,) = SimulatedBackend("h100-sxm", catalog).devices()
    spec = catalog["h100-sxm"]
    assert gpu.backend == "simulated" and gpu.catalog_id == "h100-sxm"
    assert gpu.name in spec.aliases
    # the driver's total as nvidia-smi printed it (81559 MiB, NVIDIA/nccl#1264), not the label
    assert gpu.memory_total_bytes == 81559 * 2**20
    assert gpu.memory_free_bytes == gpu.memory_total_bytes - gpu.memory_used_bytes
    assert gpu.compute_capability == spec.compute_capability
    assert gpu.power_limit_w == spec.tdp_w
    assert gpu.pcie_width_max == spec.pcie_lanes
    assert gpu.nvlink_links_active == 18
    assert gpu.ecc_enabled is True and gpu.ecc_errors_uncorrected == 0


def test_a_gddr_datacenter_card_shows_what_its_inline_ecc_leaves(catalog):
    # ECC on (the simulated datacenter default): an L40S as nvidia-smi shows it (46068 MiB,
    # modal-labs/modal-client#2797); an A40 with no recorded total: 48 GiB less 1/16
    l40s, a40 = SimulatedBackend("l40s+a40", catalog).devices()
    assert l40s.ecc_enabled and l40s.memory_total_bytes == 46068 * 2**20
    assert a40.ecc_enabled and a40.memory_total_bytes == 48 * GIB * 15 // 16


def test_one_gpu(catalog):
    gpus = SimulatedBackend("one-gpu", catalog).devices()
    assert [g.catalog_id for g in gpus] == ["rtx-4090"]


def test_mixed_rig_is_two_cards_never_summed(catalog):
    gpus = SimulatedBackend("mixed", catalog).devices()
    assert [g.catalog_id for g in gpus] == ["rtx-3090", "rtx-3060-12gb"]
    assert [g.memory_total_bytes for g in gpus] == [24 * GIB, 12 * GIB]
    assert [g.index for g in gpus] == [0, 1]


def test_unsupported_fields_read_as_none(catalog):
    (gpu,) = SimulatedBackend("unsupported-fields", catalog).devices()
    for name in ("power_draw_w", "power_limit_w", "power_default_limit_w",
                 "utilization_gpu_pct", "utilization_mem_pct"):
        assert getattr(gpu, name) is None, name
    assert gpu.temperature_c is not None and gpu.memory_total_bytes == 24 * GIB


def test_gpu_lost_on_the_second_refresh(catalog):
    backend = SimulatedBackend("gpu-lost", catalog)
    assert [g.lost for g in backend.devices()] == [False, False]
    backend.refresh()
    gpus = backend.devices()
    assert [g.lost for g in gpus] == [False, True]
    assert gpus[1].name == "NVIDIA GeForce RTX 3090" and gpus[1].temperature_c is None
    assert backend.refresh_count == 2


def test_no_gpu(catalog):
    assert SimulatedBackend("no-gpu", catalog).devices() == []


def test_live_values_move_between_refreshes_but_identity_stays(catalog):
    backend = SimulatedBackend("one-gpu", catalog)
    first = backend.devices()[0]
    backend.refresh()
    second = backend.devices()[0]
    assert (first.uuid, first.memory_total_bytes) == (second.uuid, second.memory_total_bytes)
    assert (first.temperature_c, first.memory_used_bytes) != (second.temperature_c,
                                                              second.memory_used_bytes)


def test_apple_simulated_is_unified_memory(catalog):
    (gpu,) = SimulatedBackend("m2-max", catalog).devices()
    assert gpu.unified_memory is True and gpu.vendor == "apple" and gpu.pci_bus_id is None


def test_every_scenario_builds(catalog):
    for name in SCENARIOS:
        SimulatedBackend(name, catalog).devices()
