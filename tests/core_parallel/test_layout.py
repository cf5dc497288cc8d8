"""Layouts: validation, the pipeline bubble and in-flight activations, by hand."""

import pytest

from gpuadvisor.core.parallel.layout import (
    Layout,
    bubble_fraction,
    layers_in_flight,
    shard_group,
)


def test_degrees_multiply_to_the_gpu_count_and_batch_to_the_global_batch():
    layout = Layout(tp=8, pp=4, dp=64, micro_batch=1, grad_accum=16)
    assert layout.n_gpus == 8 * 4 * 64 == 2048
    assert layout.global_batch == 1 * 16 * 64 == 1024


@pytest.mark.parametrize("field", ["tp", "pp", "vpp", "cp", "ep", "dp", "micro_batch",
                                   "grad_accum"])
@pytest.mark.parametrize("value", [0, -2, 1.5, True])
def test_bad_degrees_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        Layout(**{field: value})


def test_zero_stage_and_interleaving_and_expert_groups_are_checked():
    with pytest.raises(ValueError, match="zero"):
        Layout(zero=4)
    with pytest.raises(ValueError, match="vpp"):
        Layout(vpp=2)
    with pytest.raises(ValueError, match="ep=3"):
        Layout(dp=8, ep=3)
    assert Layout(dp=8, ep=4).ep == 4


def test_bubble_is_p_minus_one_over_m_v():
    # Narayanan et al. 2021: bubble fraction (p-1)/m; interleaved (p-1)/(m v).
    assert bubble_fraction(1, 8) == 0.0
    assert bubble_fraction(4, 8) == pytest.approx(3 / 8)
    assert bubble_fraction(4, 8, vpp=2) == pytest.approx(3 / 16)
    assert bubble_fraction(8, 64, vpp=4) == pytest.approx(7 / 256)


def test_first_stage_holds_every_layers_activations_with_enough_micro_batches():
    # 1F1B: L/p layers x min(p, m) micro-batches in flight.
    assert layers_in_flight(32, 1, 8) == 32
    assert layers_in_flight(32, 4, 8) == pytest.approx(32)
    assert layers_in_flight(32, 4, 2) == pytest.approx(16)
    # Interleaved: x (1 + (p-1)/(p v)) (Korthikanti et al. 2022, §4.2.3).
    assert layers_in_flight(32, 4, 8, vpp=2) == pytest.approx(32 * (1 + 3 / 8))


def test_hybrid_shard_group_is_the_data_parallel_ranks_of_one_node():
    layout = Layout(tp=2, dp=32, zero=3, hybrid_shard=True)
    assert shard_group(layout, gpus_per_node=8) == 4
    assert shard_group(Layout(dp=32, zero=3), gpus_per_node=8) == 32
    assert shard_group(Layout(dp=2, zero=3, hybrid_shard=True), gpus_per_node=8) == 2


def test_describe_names_each_degree():
    text = Layout(tp=8, pp=4, vpp=2, dp=64, zero=1, micro_batch=1, grad_accum=16).describe()
    assert text.startswith("TP 8 (SP) x PP 4 (VPP 2) x DP 64, ZeRO-1")
    assert "micro-batch 1 x 16" in text
