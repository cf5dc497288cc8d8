"""The Plan page's fit map, memory curves and largest fitting values of an inference plan on
an engine use the engine's memory on the GPU its estimate uses.

Expected numbers come from core's ``estimate`` of plans built here, and from mlx-lm's terms
by hand (tests/test_engines_platform.py derives them).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuadvisor.catalog import load_gpus, load_models
from gpuadvisor.core.estimate import REFERENCE_GPU_ID, estimate, sweep_fit_map
from gpuadvisor.core.memory import memory_breakdown
from gpuadvisor.workspace.state import PlanState
from gpuadvisor.workspace.sweeps import largest_true, largest_true_bisect
from tests.test_engines_platform import mlx_total_by_hand

MODELS = load_models()
GPUS = load_gpus()
LLAMA = MODELS["llama-3.1-8b"]


@pytest.fixture
def apple_state() -> PlanState:
    """Llama 3.1 8B served on an M2 Max (96 GB), no engine named: MLX."""
    state = PlanState()
    assert state.set_gpu("m2-max")
    assert state.update(task="infer")
    assert state.estimate.engine_name == "mlx"
    return state


def test_fit_map_of_an_apple_plan_is_mlxs_memory(apple_state):
    plan = apple_state.plan
    mbs, seqs = [1, 4], [512, 8192]
    grid = apple_state.sweeps.fit_map(mbs, seqs)
    expected = sweep_fit_map(LLAMA, plan, mbs, seqs, gpu=GPUS["m2-max"])
    np.testing.assert_array_equal(grid, expected)
    for i, b in enumerate(mbs):
        for j, s in enumerate(seqs):
            assert grid[i, j] == pytest.approx(mlx_total_by_hand(b, s, plan.new_tokens))
    generic = memory_breakdown(LLAMA, plan.with_changes(micro_batch=1, seq_len=512)).total
    assert grid[0, 0] != pytest.approx(generic)


def test_memory_curves_of_an_apple_plan_match_one_estimate_per_point(apple_state):
    plan, gpu = apple_state.plan, GPUS["m2-max"]
    seqs = np.array([256.0, 2048.0, 65536.0])
    parts = apple_state.sweeps.breakdown_vs_seq(seqs)
    for k, s in enumerate(seqs):
        one = estimate(LLAMA, plan.with_changes(seq_len=int(s)), gpu)
        assert parts.total[k] == pytest.approx(one.memory.total)
        assert parts.kv_cache[k] == pytest.approx(one.memory.kv_cache)
    totals = apple_state.sweeps.memory_vs_micro_batch([1, 2, 8])
    for b, total in zip((1, 2, 8), totals, strict=True):
        assert total == pytest.approx(mlx_total_by_hand(b, plan.seq_len, plan.new_tokens))


def test_largest_fitting_values_of_an_apple_plan_stop_at_the_wired_share(apple_state):
    plan, gpu = apple_state.plan, GPUS["m2-max"]
    for field, largest in (("seq_len", apple_state.sweeps.largest_fitting_seq()),
                           ("micro_batch", apple_state.sweeps.largest_fitting_micro_batch())):
        last = estimate(LLAMA, plan.with_changes(**{field: largest}), gpu)
        over = estimate(LLAMA, plan.with_changes(**{field: largest + 1}), gpu)
        assert last.fits and not over.fits, field
        # The next value would fit the 96 GiB, not the 72 GiB macOS lets the GPU wire.
        assert over.memory.total < gpu.memory_bytes, field
        assert over.memory.total > 0.75 * gpu.memory_bytes, field


def test_an_engine_plan_without_a_gpu_is_swept_on_the_reference_gpu():
    state = PlanState()
    assert state.set_gpu(None)
    assert state.update(task="infer", framework="llama.cpp", quant="q4_k_m")
    plan = state.plan
    grid = state.sweeps.fit_map([1, 2], [1024, 4096])
    reference = GPUS[REFERENCE_GPU_ID]
    for i, b in enumerate((1, 2)):
        for j, s in enumerate((1024, 4096)):
            one = estimate(LLAMA, plan.with_changes(micro_batch=b, seq_len=s), reference)
            assert one.engine_name == "llama.cpp"
            assert grid[i, j] == pytest.approx(one.memory.total)
    assert state.sweeps.largest_fitting_seq() is None  # no GPU: nothing to fit


def test_a_gpu_change_redraws_an_engine_plans_fit_map():
    state = PlanState()
    assert state.update(task="infer")
    on_4090 = state.sweeps.fit_map([1], [4096])[0, 0]
    assert on_4090 == pytest.approx(
        memory_breakdown(LLAMA, state.plan.with_changes(seq_len=4096)).total)
    assert state.set_gpu("m2-max")
    assert state.sweeps.fit_map([1], [4096])[0, 0] == pytest.approx(
        mlx_total_by_hand(1, 4096, state.plan.new_tokens))


@pytest.mark.parametrize("limit", [1, 7, 4096, 1 << 22])
@pytest.mark.parametrize("answer", [0, 1, 5, 1000, 4095])
def test_largest_true_bisect_finds_what_the_grid_search_finds(limit, answer):
    calls: list[int] = []

    def fits(xs):
        calls.append(len(xs))
        return np.asarray(xs) <= answer

    expected = min(answer, limit)
    assert largest_true_bisect(fits, limit) == expected == largest_true(
        lambda xs: np.asarray(xs) <= answer, limit)
    # One call of at most 24 powers of two, then one point per halving of the bracket.
    assert len(calls) <= 1 + max(limit.bit_length(), 1)
    assert all(n == 1 for n in calls[1:])
