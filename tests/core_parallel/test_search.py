"""Layout search and step model: properties and hand-derived terms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
from gpuadvisor.core.parallel import collectives as coll
from gpuadvisor.core.parallel.cluster import Cluster
from gpuadvisor.core.parallel.search import Constraints, layout_memory, search_layouts
from gpuadvisor.core.parallel.shape import step_shape
from gpuadvisor.core.parallel.step import GpuRates, GroupLinks, dp_comm_seconds, step_parts
from gpuadvisor.core.plan import Plan

A100 = GpuRates(peak_flops=312e12, matmul_fraction=0.87, attention_fraction=0.65,
                bandwidth_b_s=2039e9 * 0.85, kernel_launch_s=2.5e-6)
CAPACITY = 80 * 2**30


@pytest.fixture(scope="module")
def models():
    return catalog.load_models()


def _cluster(intra=231.0, net=23.5):
    return Cluster(8, intra, 3e-6, net, 4.5e-6)


def _best(model, plan, n, gb, cluster, constraints=None):
    found = search_layouts(model, plan, n_gpus=n, global_batch=gb, rates=A100,
                           cluster=cluster, capacity_bytes=CAPACITY,
                           assumptions=DEFAULT_ASSUMPTIONS,
                           constraints=constraints or Constraints(), keep=1)
    return found[0]


def test_ddp_exposes_the_all_reduce_beyond_the_backward_pass():
    # 1 GB of gradients, 8 ranks at 100 GB/s: 2 x 7/8 x 1 GB / 100 GB/s = 17.5 ms; a 10 ms
    # backward hides 10 ms of it: 7.5 ms exposed (more than the last 25 MiB bucket).
    links = GroupLinks(*(100.0, 0.0) * 5)
    exposed, hidden = dp_comm_seconds(zero=0, grad_bytes=1e9, param16_bytes=1e9, dp=8,
                                      shard=8, grad_accum=4, backward_s=0.010,
                                      forward_s=0.005, links=links, hybrid=False,
                                      layers_per_stage=32)
    assert exposed == pytest.approx(0.0175 - 0.010)
    assert hidden == pytest.approx(0.010)


def test_zero3_gathers_twice_and_scatters_once_per_micro_batch():
    # Per micro-batch: AG = 7/8 x 1 GB / 100 GB/s = 8.75 ms (forward 5 ms hides 5),
    # AG + RS = 17.5 ms (backward 10 ms hides 10), one block's AG = 8.75/32 ms: exposed
    # 3.75 + 7.5 + 0.273 = 11.52 ms, times 4 micro-batches.
    links = GroupLinks(*(100.0, 0.0) * 5)
    exposed, hidden = dp_comm_seconds(zero=3, grad_bytes=1e9, param16_bytes=1e9, dp=8,
                                      shard=8, grad_accum=4, backward_s=0.010,
                                      forward_s=0.005, links=links, hybrid=False,
                                      layers_per_stage=32)
    per_micro = (0.00875 - 0.005) + (0.0175 - 0.010) + 0.00875 / 32
    assert exposed == pytest.approx(4 * per_micro)
    # Hidden behind compute: the forward's 5 ms and the backward's 10 ms, per micro-batch.
    assert hidden == pytest.approx(4 * (0.005 + 0.010))


def test_tensor_parallel_charges_four_all_reduces_per_block(models):
    model = models["llama-2-7b"]
    plan = Plan(task="pretrain", seq_len=4096)
    shape = step_shape(model, plan)
    links = GroupLinks(100.0, 0.0, 100.0, 0.0, 100.0, 0.0, 100.0, 0.0, 100.0, 0.0)
    parts = step_parts(shape, seq=4096, micro_batch=1, grad_accum=1, tp=8, pp=1, vpp=1, cp=1,
                       ep=1, dp=1, zero=0, shard=1, hybrid=False, sequence_parallel=True,
                       rates=A100, links=links)
    # b s h x 2 bytes = 4096 x 4096 x 2 = 32 MiB per all-reduce over 8 ranks.
    one = coll.all_reduce_s(4096 * 4096 * 2, 8, 100.0)
    assert parts.tp_comm == pytest.approx(32 * 4 * one)


def test_pipeline_bubble_is_p_minus_one_micro_batch_slots(models):
    model = models["llama-2-7b"]
    plan = Plan(task="pretrain", seq_len=2048)
    shape = step_shape(model, plan)
    links = GroupLinks(*(200.0, 0.0) * 5)
    common = dict(seq=2048, micro_batch=1, tp=1, vpp=1, cp=1, ep=1, dp=1, zero=0, shard=1,
                  hybrid=False, sequence_parallel=True, rates=A100, links=links)
    p4 = step_parts(shape, grad_accum=8, pp=4, **common)
    # Useful work m x micro on each stage; the bubble is (p-1) more micro slots.
    micro = (p4.compute + p4.memory_bound + p4.tp_comm) / 8
    assert p4.pp_bubble == pytest.approx(3 * micro)


def test_more_bandwidth_never_slows_a_plan(models):
    plan = Plan(task="pretrain", seq_len=2048, n_gpus=64)
    model = models["llama-2-13b"]
    times = [_best(model, plan, 64, 256, _cluster(intra, net)).step_seconds
             for intra, net in ((50.0, 3.0), (150.0, 12.0), (231.0, 23.5), (400.0, 50.0))]
    assert times == sorted(times, reverse=True)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([8, 16, 32, 64, 128]))
def test_more_gpus_at_fixed_global_batch_never_raise_zero3_memory(n):
    model = catalog.load_models()["llama-2-7b"]
    plan = Plan(task="pretrain", seq_len=2048)
    shape = step_shape(model, plan)

    def mem(gpus):
        total, _ = layout_memory(model, plan, DEFAULT_ASSUMPTIONS, shape, tp=1, pp=1, vpp=1,
                                 cp=1, ep=1, dp=gpus, zero=3, shard=gpus, micro_batch=1,
                                 grad_accum=256 // gpus)
        return float(total)

    assert mem(2 * n) <= mem(n)


@pytest.mark.parametrize("pins", [Constraints(tp=1, pp=1, zero=3, micro_batch=1),
                                  Constraints(tp=8, pp=1, zero=1, micro_batch=1),
                                  Constraints(tp=4, pp=2, zero=1, micro_batch=2)])
def test_auto_is_never_slower_than_a_manual_layout_that_fits(models, pins):
    model = models["llama-2-70b"]
    plan = Plan(task="pretrain", seq_len=4096, n_gpus=64)
    manual = _best(model, plan, 64, 128, _cluster(), pins)
    auto = _best(model, plan, 64, 128, _cluster())
    assert auto.fits
    if manual.fits:
        assert auto.step_seconds <= manual.step_seconds * (1 + 1e-9)


def test_a_70b_model_needs_sharding_or_model_parallel_on_80gb_cards(models):
    model = models["llama-2-70b"]
    plan = Plan(task="pretrain", seq_len=4096, n_gpus=64)
    ddp = _best(model, plan, 64, 128, _cluster(), Constraints(tp=1, pp=1, zero=0))
    assert not ddp.fits  # 70B x 18 bytes of model states on every GPU
    auto = _best(model, plan, 64, 128, _cluster())
    assert auto.fits and (auto.layout.zero == 3 or auto.layout.tp * auto.layout.pp > 1)


def test_a_virtual_stage_may_hold_a_single_block(models):
    # Megatron-LM's --num-layers-per-virtual-pipeline-stage may be 1: Llama 2 7B's 32
    # blocks over PP 8 are 4 a rank, so up to 4 virtual stages of one block each. With 8
    # micro-batches the bubble (PP - 1) / (VPP x m) is 7/32 at VPP 4 against 7/16 at 2.
    model = models["llama-2-7b"]
    plan = Plan(task="pretrain", seq_len=4096, n_gpus=8)
    best = _best(model, plan, 8, 8, _cluster(), Constraints(tp=1, pp=8, micro_batch=1))
    assert (best.layout.pp, best.layout.vpp, best.layout.grad_accum) == (8, 4, 8)
    # never deeper than a rank's blocks: PP 16 leaves 2 a rank, so VPP 2 at most
    deep = _best(model, plan, 16, 16, _cluster(), Constraints(tp=1, pp=16, micro_batch=1))
    assert deep.layout.vpp == 2


def test_interleaving_needs_whole_groups_of_pp_micro_batches(models):
    # Megatron-LM interleaves micro-batches in groups of PP and refuses a remainder of 1 to
    # PP - 1: 12 micro-batches over PP 8 leave 4, so the pipeline runs plain 1F1B.
    model = models["llama-2-7b"]
    plan = Plan(task="pretrain", seq_len=4096, n_gpus=8)
    best = _best(model, plan, 8, 12, _cluster(), Constraints(tp=1, pp=8, micro_batch=1))
    assert (best.layout.vpp, best.layout.grad_accum) == (1, 12)
    # 16 micro-batches are two whole groups: interleaved again
    assert _best(model, plan, 8, 16, _cluster(),
                 Constraints(tp=1, pp=8, micro_batch=1)).layout.vpp == 4
