"""GEMM roofline with tile quantization, by hand."""

import pytest

from gpuadvisor.core.parallel.gemm import TILE, gemm_seconds, tile_use, training_gemm_seconds

GPU = {"peak_flops": 100e12, "matmul_fraction": 0.8, "bandwidth_b_s": 1e12}


def test_tile_use_rounds_each_dimension_up_to_whole_tiles():
    assert TILE == 128
    assert tile_use(4096) == 1.0
    assert tile_use(129) == pytest.approx(129 / 256)
    # Below a tile the library uses a smaller power-of-two tile: 16 fits one of 16, 96 one
    # of 128.
    assert tile_use(16) == 1.0
    assert tile_use(96) == pytest.approx(96 / 128)


def test_large_square_gemm_is_compute_bound_at_the_achieved_fraction():
    # 2 x 4096^3 FLOPs / (100 TFLOP/s x 0.8) = 1.718 ms; bytes 3 x 4096^2 x 2 = 0.1 GB -> 0.1 ms.
    t = gemm_seconds(4096, 4096, 4096, **GPU)
    assert t == pytest.approx(2 * 4096**3 / 80e12)


def test_thin_gemm_is_memory_bound():
    # M = 1 (one token): 2 x 1 x 8192 x 8192 FLOPs is tiny; the weight read dominates:
    # 2 bytes x (8192 + 8192^2 + 8192) / 1 TB/s.
    t = gemm_seconds(1, 8192, 8192, **GPU)
    assert t == pytest.approx(2 * (8192 + 8192**2 + 8192) / 1e12)


def test_a_ragged_dimension_pays_for_its_partial_tile():
    # M = 4097 needs 33 row tiles of 128 (4224 rows) for 4097 of data.
    ragged = gemm_seconds(4097, 4096, 4096, **GPU)
    assert ragged == pytest.approx(2 * 4224 * 4096 * 4096 / 80e12)


def test_training_gemms_are_three_forwards_and_frozen_weights_skip_one():
    fwd, bwd = training_gemm_seconds(4096, 4096, 4096, **GPU)
    assert bwd == pytest.approx(2 * fwd)
    fwd2, bwd2 = training_gemm_seconds(4096, 4096, 4096, trainable=False, **GPU)
    assert fwd2 == pytest.approx(fwd) and bwd2 == pytest.approx(fwd)
