"""What a llama.cpp build does by its date: whether its CUDA backend replays the decode as a
CUDA graph, and how much host (CPU) work each decoded token costs.

Host work per token: ggml-org/llama.cpp issue #7456 measured it on builds of May 2024
(NVIDIA's measurements: 10-15% of a token on A100/H100 is CPU work, ~6.1 ms per token for
Llama-2-7B Q4_K_M on H100), most of it rebuilding and re-splitting the graph for every
token: 0.76 ms (12.5% of 6.1 ms). Builds since graph reuse became the default (PR #14482
reuses a graph whose shapes did not change, on with the ``set_rows`` KV path that PR #14959
made the default, opened 2025-07-30 and merged in August 2025) skip the rebuild: PR #8366
(an earlier reuse attempt, closed unmerged) measured what skipping it saves, 3-7% of a token
on six machines (4% on an RTX 4090, 6% on an H100 SXM), leaving 0.4 ms (~7% of 6.1 ms).
"""

from __future__ import annotations

from gpuadvisor.core.gpu import GpuSpec

#: Host (CPU) work per decoded token on a GPU backend, a current build (see the module docstring).
HOST_S_PER_TOKEN = 0.4e-3
#: The same for a build that rebuilt the graph for every token (before graph reuse became the
#: default, :data:`GRAPH_REUSE_DEFAULT`): issue #7456's 10-15% of a 6.1 ms token, 12.5%.
HOST_S_PER_TOKEN_REBUILDING = 0.125 * 6.1e-3
#: The first month whose builds reuse the decode graph by default (PR #14959, August 2025).
GRAPH_REUSE_DEFAULT = "2025-08-01"
#: When llama.cpp's CUDA backend replays a decode step as a CUDA graph: ``(merged, lowest
#: compute capability)`` of each change, oldest first. None before PR #6766 (merged
#: 2024-05-08); that PR set ``disable_due_to_gpu_arch`` below Ampere (8.0) in ggml-cuda.cu,
#: and PR #25749 ("Enable CUDA graphs on Volta+Turing", merged 2026-07-16) lowered it to
#: Volta (``cc < GGML_CUDA_CC_VOLTA``), so Pascal still launches kernel by kernel.
CUDA_GRAPH_RULES = (("2024-05-08", 8.0), ("2026-07-16", 7.0))


def cuda_graphs_on(gpu: GpuSpec, build_date: str | None = None) -> bool:
    """Whether a llama.cpp CUDA build of ``build_date`` (``YYYY-MM-DD``; None = a current
    build) replays the decode on ``gpu`` as a CUDA graph (:data:`CUDA_GRAPH_RULES`)."""
    lowest = None
    for merged, cc in CUDA_GRAPH_RULES:
        if build_date is None or build_date >= merged:
            lowest = cc
    return lowest is not None and gpu.cc_number >= lowest


def host_s_per_token(build_date: str | None = None) -> float:
    """Host (CPU) seconds per decoded token of a build of ``build_date`` (``YYYY-MM-DD``, or an
    upper bound of it; None = a current build): :data:`HOST_S_PER_TOKEN_REBUILDING` before
    :data:`GRAPH_REUSE_DEFAULT`, :data:`HOST_S_PER_TOKEN` from it (see the module
    docstring)."""
    if build_date is not None and build_date < GRAPH_REUSE_DEFAULT:
        return HOST_S_PER_TOKEN_REBUILDING
    return HOST_S_PER_TOKEN


__all__ = ["CUDA_GRAPH_RULES", "GRAPH_REUSE_DEFAULT", "HOST_S_PER_TOKEN",
           "HOST_S_PER_TOKEN_REBUILDING", "cuda_graphs_on", "host_s_per_token"]
