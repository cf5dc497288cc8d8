"""How long one matrix multiply takes on a GPU: a roofline with tile quantization.

A GEMM ``C[M, N] = A[M, K] @ B[K, N]`` does ``2 M N K`` FLOPs and moves at least
``e (M K + K N + M N)`` bytes (``e`` bytes per element). It runs at the slower of

* compute: ``2 M N K / (peak x matmul_fraction x tile_use)``, where ``matmul_fraction`` is
  the fraction of the datasheet peak that large, well-shaped GEMMs reach on that GPU (a
  measured figure: the matmul probe, or published "maximum achievable matmul FLOPS"), and
  ``tile_use`` the share of the launched output tiles that hold real data: the library
  computes ``C`` in ``T x T`` tiles, so a dimension ``d`` costs ``ceil(d / T) x T``
  (NVIDIA, "Matrix Multiplication Background User's Guide", *tile quantization*);
* memory: the bytes above over ``bandwidth x bandwidth_fraction``.

This is what makes the efficiency of a layout follow its shapes: tensor parallelism divides
``N`` or ``K`` by ``tp``, small micro-batches shrink ``M``, MoE experts see only their routed
tokens, and a LoRA adapter's rank is a thin dimension.
"""

from __future__ import annotations

import numpy as np

#: Output tile edge (elements) the GEMM libraries use for large half-precision problems:
#: 128 x 128 and 256 x 128 are the common cuBLAS tiles (NVIDIA, "Matrix Multiplication
#: Background User's Guide", §"Tile quantization"); 128 is the edge a dimension is rounded
#: to in both.
TILE = 128


def tile_use(d):
    """Share of a dimension's launched tiles that hold data: ``d / (ceil(d / T) T)``.

    Below one full tile the libraries pick a smaller tile (or a GEMV kernel for a single
    row), so ``T`` is the smaller of :data:`TILE` and the power of two that covers ``d``;
    such thin GEMMs are memory-bound anyway (their FLOPs per byte are at most ``d``).
    """
    d = np.maximum(np.asarray(d, dtype=float), 1.0)
    tile = np.minimum(TILE, 2.0 ** np.ceil(np.log2(d)))
    return d / (np.ceil(d / tile) * tile)


def gemm_seconds(m, n, k, *, peak_flops, matmul_fraction, bandwidth_b_s, element_bytes=2.0,
                 count=1.0):
    """Time of ``count`` GEMMs of shape ``[m, k] @ [k, n]`` (seconds; arrays broadcast).

    Args:
        m, n, k: the GEMM's dimensions (``m`` rows of the output, ``k`` the reduction).
        peak_flops: datasheet dense peak for the dtype, FLOP/s.
        matmul_fraction: achieved fraction of that peak on large GEMMs (0-1].
        bandwidth_b_s: achieved memory bandwidth, bytes/s.
        element_bytes: bytes per input/output element (2 for fp16/bf16, 1 for fp8 inputs).
        count: how many such GEMMs (e.g. MoE experts, or layers).
    """
    m = np.asarray(m, dtype=float)
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    flops = 2.0 * m * n * k
    compute = flops / (peak_flops * matmul_fraction * tile_use(m) * tile_use(n))
    memory = element_bytes * (m * k + k * n + m * n) / bandwidth_b_s
    return count * np.maximum(compute, memory)


def training_gemm_seconds(m, n, k, *, trainable=True, **gpu):
    """Forward, input-gradient and (when the weight trains) weight-gradient GEMMs of a linear.

    The forward is ``[m, k] @ [k, n]``; the input gradient ``[m, n] @ [n, k]``; the weight
    gradient ``[k, m] @ [m, n]`` (its reduction runs over the tokens). A frozen weight
    (LoRA/QLoRA base) needs no weight gradient. Returns ``(forward, backward)`` seconds.
    """
    forward = gemm_seconds(m, n, k, **gpu)
    backward = gemm_seconds(m, k, n, **gpu)
    if trainable:
        backward = backward + gemm_seconds(k, n, m, **gpu)
    return forward, backward
