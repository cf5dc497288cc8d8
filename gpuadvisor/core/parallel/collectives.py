"""Time of the collectives a parallel training step issues, from bus bandwidth and latency.

Bandwidths here are NCCL *bus* bandwidths (``busbw``) as nccl-tests prints them
(github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md): the rate at which each GPU's link is
busy, independent of the GPU count. nccl-tests defines, for ``n`` ranks and a buffer of ``S``
bytes finished in ``t`` seconds, ``algbw = S / t`` and

* all-reduce: ``busbw = algbw x 2 (n-1) / n``  (a ring does a reduce-scatter then an
  all-gather; each rank sends ``2 (n-1)/n x S``),
* all-gather and reduce-scatter: ``busbw = algbw x (n-1) / n`` with ``S`` the *whole* buffer
  (the gathered output, or the input being reduced),
* all-to-all: ``busbw = algbw x (n-1) / n`` with ``S`` the bytes each rank holds,
* send/receive (point to point): ``busbw = algbw``.

Inverting gives the bandwidth term of each function below. The latency term is the ring's
``(steps) x alpha`` with ``alpha`` the per-hop latency of the slowest link; NCCL switches to a
tree for small all-reduces, whose latency grows with ``2 log2(n)`` hops instead of
``2 (n-1)`` (Sanders et al., "Two-tree algorithms for full bandwidth broadcast, reduction and
scan", 2009; NCCL 2.4 release notes), so the all-reduce takes the smaller of the two.

All functions take and return plain floats or NumPy arrays (they broadcast); sizes are bytes,
bandwidths decimal GB/s, times seconds. ``n <= 1`` costs nothing.
"""

from __future__ import annotations

import numpy as np


def _ranks(n):
    return np.maximum(np.asarray(n, dtype=float), 1.0)


def _bandwidth_b_s(busbw_gb_s):
    return np.asarray(busbw_gb_s, dtype=float) * 1e9


def all_reduce_s(size_bytes, n, busbw_gb_s, latency_s=0.0):
    """All-reduce of ``size_bytes`` over ``n`` ranks.

    ``t = 2 (n-1)/n x S / busbw + latency``, latency = ``alpha x min(2 (n-1), 2 ceil(log2 n))``
    (ring or tree, whichever NCCL would pick for a latency-bound message).
    """
    n = _ranks(n)
    volume = 2.0 * (n - 1.0) / n * np.asarray(size_bytes, dtype=float)
    hops = np.minimum(2.0 * (n - 1.0), 2.0 * np.ceil(np.log2(n)))
    t = volume / _bandwidth_b_s(busbw_gb_s) + hops * latency_s
    return np.where(n > 1, t, 0.0)


def all_gather_s(total_bytes, n, busbw_gb_s, latency_s=0.0):
    """All-gather whose gathered output is ``total_bytes`` (each rank contributes 1/n).

    ``t = (n-1)/n x S / busbw + (n-1) alpha`` (a ring passes n-1 pieces).
    """
    n = _ranks(n)
    volume = (n - 1.0) / n * np.asarray(total_bytes, dtype=float)
    t = volume / _bandwidth_b_s(busbw_gb_s) + (n - 1.0) * latency_s
    return np.where(n > 1, t, 0.0)


def reduce_scatter_s(total_bytes, n, busbw_gb_s, latency_s=0.0):
    """Reduce-scatter of a ``total_bytes`` input (each rank keeps 1/n of the reduced result).

    Same cost as the all-gather of the same buffer: ``(n-1)/n x S / busbw + (n-1) alpha``.
    """
    return all_gather_s(total_bytes, n, busbw_gb_s, latency_s)


def all_to_all_s(bytes_per_rank, n, busbw_gb_s, latency_s=0.0):
    """All-to-all where each rank holds ``bytes_per_rank`` and keeps 1/n of it.

    ``t = (n-1)/n x S / busbw + (n-1) alpha`` (n-1 pairwise exchanges).
    """
    return all_gather_s(bytes_per_rank, n, busbw_gb_s, latency_s)


def send_recv_s(size_bytes, busbw_gb_s, latency_s=0.0):
    """One point-to-point transfer of ``size_bytes``: ``S / bw + alpha``."""
    return np.asarray(size_bytes, dtype=float) / _bandwidth_b_s(busbw_gb_s) + latency_s
