"""The Plan page's memory charts and levers follow the parallel layout the time was computed
for: a multi-GPU training plan's curves, fit map and largest fitting values are that layout's
memory per GPU, as the VRAM bar is."""

from __future__ import annotations

import numpy as np
import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.memory import memory_breakdown
from gpuadvisor.core.parallel.layout import Layout
from gpuadvisor.core.parallel.search import layout_memory_along
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.resolve import with_layout
from gpuadvisor.workspace.state import PlanState

GiB = 2**30
MODEL = catalog.load_models()["llama-3.1-70b"]
H100 = catalog.load_gpus()["h100-sxm"]
LORA16 = Plan(task="lora", seq_len=4096, checkpointing="full", n_gpus=16)


def test_the_layouts_own_point_is_the_estimates_memory():
    laid = with_layout(estimate(MODEL, LORA16, H100), DEFAULT_ASSUMPTIONS)
    chosen = laid.layout.chosen
    total, terms = layout_memory_along(MODEL, LORA16, DEFAULT_ASSUMPTIONS, chosen.layout,
                                       laid.layout.gpus_per_node)
    assert float(total) == pytest.approx(chosen.memory_per_gpu_bytes, rel=1e-12)
    assert float(terms["weights"]) == pytest.approx(laid.memory.weights, rel=1e-12)


def test_fsdp_shards_the_weights_and_activations_grow_with_the_micro_batch():
    # Full shard over 16 ranks: each holds 1/16 of the 16-bit weights (2 bytes each);
    # activations are per micro-batch, so doubling it doubles them (checkpointed blocks).
    layout = Layout(dp=16, zero=3, micro_batch=1)
    _, terms = layout_memory_along(MODEL, LORA16, DEFAULT_ASSUMPTIONS, layout, 8,
                                   micro_batch=np.array([1.0, 2.0]))
    flat = memory_breakdown(MODEL, LORA16.with_changes(n_gpus=1, zero_stage=0),
                            DEFAULT_ASSUMPTIONS)
    assert float(np.ravel(terms["weights"])[0]) == pytest.approx(flat.weights / 16, rel=1e-9)
    acts = np.broadcast_to(terms["activations"], (2,))
    assert acts[1] == pytest.approx(2 * acts[0], rel=1e-9)


@pytest.fixture
def state() -> PlanState:
    s = PlanState()
    assert s.set_model("llama-3.1-70b")
    assert s.set_gpu("h100-sxm")
    assert s.update(task="lora", seq_len=4096, checkpointing="full", n_gpus=16)
    return s


def test_the_curves_and_fit_map_pass_through_the_plans_layout_memory(state):
    total = state.estimate.memory.total
    assert state.estimate.layout is not None
    assert float(state.sweeps.memory_vs_micro_batch([1])[0]) == pytest.approx(total, rel=1e-9)
    assert float(state.sweeps.memory_vs_seq([4096])[0]) == pytest.approx(total, rel=1e-9)
    grid = state.sweeps.fit_map([1, 2], [2048, 4096])
    assert grid[0, 1] == pytest.approx(total, rel=1e-9)
    # The flat (unsharded) model would put micro-batch 1 at ~157 GiB, over 80 GiB; in its
    # layout it fits, so a larger micro-batch fits too.
    assert total < 80 * GiB
    largest = state.sweeps.largest_fitting_micro_batch()
    assert largest is not None and largest >= 2
    assert float(state.sweeps.memory_vs_micro_batch([largest])[0]) <= H100.memory_bytes
    assert float(state.sweeps.memory_vs_micro_batch([largest + 1])[0]) > H100.memory_bytes


def test_one_gpu_keeps_the_flat_model(state):
    assert state.update(n_gpus=1)
    flat = memory_breakdown(MODEL, state.plan, DEFAULT_ASSUMPTIONS)
    assert float(state.sweeps.memory_vs_micro_batch([1])[0]) == pytest.approx(flat.total, rel=1e-9)


def test_levers_start_from_the_layouts_memory(state):
    # A full fine-tune of 70B on 4 GPUs does not fit even sharded (16 bytes/param / 4 ranks
    # = ~280 GB each), so there are levers; each starts from the layout's memory per GPU.
    assert state.update(task="full", n_gpus=4)
    assert state.estimate.layout is not None and not state.estimate.fits
    levers = state.levers()
    assert levers
    for lever in levers:
        assert lever.before_bytes == pytest.approx(state.estimate.memory.total, rel=1e-9)
