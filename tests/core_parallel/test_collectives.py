"""Collective costs, derived by hand from nccl-tests' bus-bandwidth definitions.

nccl-tests doc/PERFORMANCE.md: all-reduce busbw = algbw x 2(n-1)/n; all-gather and
reduce-scatter busbw = algbw x (n-1)/n (S = the whole buffer); send/recv busbw = algbw.
"""

import math

import numpy as np
import pytest

from gpuadvisor.core.parallel import collectives as coll

GB = 1e9


def test_all_reduce_of_one_gigabyte_on_eight_gpus_moves_seven_quarters_of_it():
    # 2 (n-1)/n = 2 x 7/8 = 1.75 GB at 100 GB/s bus bandwidth = 17.5 ms, no latency.
    assert coll.all_reduce_s(1 * GB, 8, 100.0) == pytest.approx(0.0175)


def test_all_reduce_latency_takes_the_tree_for_many_ranks():
    # 1024 ranks: ring latency 2 x 1023 hops, tree 2 x log2(1024) = 20 hops; 5 us each.
    t = coll.all_reduce_s(0.0, 1024, 100.0, latency_s=5e-6)
    assert t == pytest.approx(20 * 5e-6)
    # 2 ranks: ring 2 hops, tree 2 x 1 = 2 hops.
    assert coll.all_reduce_s(0.0, 2, 100.0, latency_s=5e-6) == pytest.approx(2 * 5e-6)


def test_all_gather_and_reduce_scatter_cost_half_an_all_reduce_in_bandwidth():
    n, size, bw = 4, 2 * GB, 50.0
    expected = (n - 1) / n * size / (bw * GB)  # 3/4 x 2 GB / 50 GB/s = 30 ms
    assert expected == pytest.approx(0.03)
    assert coll.all_gather_s(size, n, bw) == pytest.approx(expected)
    assert coll.reduce_scatter_s(size, n, bw) == pytest.approx(expected)
    assert coll.all_reduce_s(size, n, bw) == pytest.approx(2 * expected)


def test_all_gather_latency_is_one_hop_per_other_rank():
    assert coll.all_gather_s(0.0, 8, 10.0, latency_s=1e-5) == pytest.approx(7e-5)


def test_all_to_all_and_point_to_point():
    assert coll.all_to_all_s(1 * GB, 8, 100.0) == pytest.approx(7 / 8 * 0.01)
    assert coll.send_recv_s(0.5 * GB, 25.0, latency_s=1e-5) == pytest.approx(0.02 + 1e-5)


def test_a_single_rank_communicates_nothing():
    for fn in (coll.all_reduce_s, coll.all_gather_s, coll.reduce_scatter_s, coll.all_to_all_s):
        assert fn(1 * GB, 1, 100.0, latency_s=1e-5) == 0.0


def test_collectives_broadcast_over_arrays_and_more_bandwidth_is_never_slower():
    bws = np.array([10.0, 50.0, 200.0, 400.0])
    times = coll.all_reduce_s(1 * GB, np.array([2, 8, 64, 512])[:, None], bws, 5e-6)
    assert times.shape == (4, 4)
    assert np.all(np.diff(times, axis=1) < 0)
    # The bandwidth term approaches 2 S / busbw as n grows.
    big = coll.all_reduce_s(1 * GB, 10**6, 100.0)
    assert big == pytest.approx(2 * 0.01, rel=1e-5)
    assert math.isfinite(big)
