"""Detected cards as plan targets (DetectedRig, PlanState.set_detected), without a display.

Card memories are written out in GiB as the driver would report them; expected targets follow
the rule "multi-GPU plans size for the smallest training card, ties to the lower index".
"""

from __future__ import annotations

import pytest

from gpuadvisor.catalog import load_gpus, load_models
from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB, smallest_card
from gpuadvisor.hardware import GpuInfo
from gpuadvisor.workspace.rig import DETECTED_PREFIX, DetectedRig
from gpuadvisor.workspace.state import DEFAULT_GPU_ID, PlanState

MODELS = load_models()
GPUS = load_gpus()
GiB = 1024**3


def card(index: int, gib: float | None, catalog_id: str | None = None, **flags) -> GpuInfo:
    memory = None if gib is None else int(gib * GiB)
    return GpuInfo(index=index, name=f"card {index}", vendor="nvidia", backend="nvml",
                   catalog_id=catalog_id, memory_total_bytes=memory, **flags)


@pytest.fixture
def state() -> PlanState:
    return PlanState(MODELS, GPUS)


def test_the_smallest_training_card_becomes_the_target_of_a_multi_gpu_plan(state):
    state.update(n_gpus=2)
    state.set_detected([card(0, 24, "rtx-4090"), card(1, 12, "rtx-3060-12gb"),
                        card(2, 8, integrated=True), card(3, 4, lost=True), card(4, None)])
    assert set(state.detected_gpus) == {"detected:0", "detected:1"}
    assert state.gpu_id == "detected:1"
    # the 12 GiB the (fake) driver reports, less the driver's own reserve
    assert state.capacity_bytes == pytest.approx(12 * GiB - DRIVER_RESERVE_MIB * 2**20)


def test_a_one_gpu_plan_targets_the_best_card_and_follows_the_gpu_count(state):
    # The mixed demo rig: an RTX 3090 (24 GB) and an RTX 3060 12GB. One GPU: the 3090, not
    # the card with the least memory; two GPUs: the 3060 limits them.
    state.set_detected([card(0, 12, "rtx-3060-12gb"), card(1, 24, "rtx-3090")])
    assert state.plan.n_gpus == 1 and state.gpu_id == "detected:1"
    state.update(n_gpus=2)
    assert state.gpu_id == "detected:0"
    state.update(n_gpus=1)
    assert state.gpu_id == "detected:1"
    # A card the user picks stays theirs, whatever the GPU count and the next reading.
    state.set_gpu("detected:0")
    state.update(n_gpus=2)
    state.update(n_gpus=1)
    state.set_detected([card(0, 12, "rtx-3060-12gb"), card(1, 24, "rtx-3090")])
    assert state.gpu_id == "detected:0"


def test_a_lost_card_leaves_the_rig_and_is_named(state):
    # The gpu-lost demo rig: two RTX 3090s, the second falls off the bus.
    state.set_detected([card(0, 24, "rtx-3090"), card(1, 24, "rtx-3090")])
    assert set(state.detected_gpus) == {"detected:0", "detected:1"}
    assert state.lost_gpus == ()
    state.set_detected([card(0, 24, "rtx-3090"), card(1, 24, "rtx-3090", lost=True)])
    assert set(state.detected_gpus) == {"detected:0"}
    assert [g.index for g in state.lost_gpus] == [1]
    assert state.gpu_id == "detected:0"


def test_equal_cards_size_for_the_lower_index(state):
    state.set_detected([card(1, 24, "rtx-4090"), card(0, 24, "rtx-4090")])
    assert state.gpu_id == "detected:0"


def test_a_matched_card_keeps_its_catalog_figures_with_the_driver_memory(state):
    state.set_detected([card(0, 23.5, "rtx-4090")])
    spec = state.detected_spec("detected:0")
    assert spec.id == "rtx-4090"
    assert spec.memory_gib == pytest.approx(23.5)
    assert spec.bf16_tensor_tflops == GPUS["rtx-4090"].bf16_tensor_tflops
    assert state.detected_gpu.index == 0
    assert state.to_dict()["gpu"] == "rtx-4090"  # plan files name the catalog GPU


def test_a_chosen_catalog_gpu_is_kept_and_an_empty_rig_goes_back_to_the_default(state):
    state.set_detected([card(0, 24, "rtx-4090")])
    assert state.gpu_id == "detected:0"
    state.set_detected([])
    assert state.gpu_id == DEFAULT_GPU_ID
    state.set_gpu("a100-sxm-80gb")
    state.set_detected([card(0, 24, "rtx-4090")])
    assert state.gpu_id == "a100-sxm-80gb"


def test_the_default_card_named_by_a_plan_file_or_the_user_is_kept_when_cards_are_found(state):
    # The default target is the RTX 4090: a plan file naming it (or a user picking it) is a
    # choice, not the default, so this machine's cards found afterwards do not replace it -
    # the window prices the card the file names, as `estimate --plan FILE` does.
    saved = state.to_dict()
    assert saved["gpu"] == DEFAULT_GPU_ID
    rig = [card(0, 24, "rtx-3090"), card(1, 24, "rtx-3090")]
    state.set_detected(rig)
    assert state.gpu_id == "detected:0"  # nothing named: the machine's card
    state.from_dict(saved)
    assert state.gpu_id == DEFAULT_GPU_ID
    state.set_detected(rig)
    assert state.gpu_id == DEFAULT_GPU_ID
    fresh = PlanState(MODELS, GPUS)
    fresh.set_gpu(DEFAULT_GPU_ID)
    fresh.set_detected(rig)
    assert fresh.gpu_id == DEFAULT_GPU_ID


def test_an_unknown_detected_id_is_rejected(state):
    errors = []
    state.error.connect(lambda field, message: errors.append(field))
    assert not state.set_gpu(f"{DETECTED_PREFIX}7")
    assert errors == ["gpu"]


def test_rig_without_a_reference_skips_unmatched_cards():
    rig = DetectedRig(GPUS, reference=None)
    rig.offer([card(0, 20), card(1, 24, "rtx-4090")])
    assert rig.ids == frozenset({"detected:1"})
    assert rig.smallest_id() == "detected:1"
    assert rig.catalog_id("detected:1") == "rtx-4090"
    assert rig.card("rtx-4090") is None and rig.spec(None) is None


def test_core_smallest_card_is_the_hardware_one():
    from gpuadvisor.hardware import smallest_card as hardware_smallest_card

    assert hardware_smallest_card is smallest_card
    assert smallest_card([card(0, 24), card(1, 8, integrated=True), card(2, 16)]).index == 2
    assert smallest_card([card(0, None)]) is None
