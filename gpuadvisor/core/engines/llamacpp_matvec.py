"""llama.cpp's CUDA matrix-vector kernels at a decode step, as read ceilings: how many weight
bytes their resident threads keep in flight over the memory's loaded latency (Little's law,
:func:`.base.resident_read_gb_s`). A card whose memory gives more than those threads ask for
decodes at the kernel's rate, not the memory's."""

from __future__ import annotations

from gpuadvisor.core.engines.base import (
    max_threads_per_sm,
    resident_read_gb_s,
    resident_threads,
)
from gpuadvisor.core.gpu import GpuSpec

#: The CUDA batch-1 matrix-vector kernel for quantized weights (ggml-cuda/mmvq.cu
#: ``mul_mat_vec_q``, NVIDIA's generic table): 4 warps (128 threads) a block, one row a
#: block for one column, two for 2-8 columns (``calc_nwarps``, ``calc_rows_per_block``);
#: ``MMVQ_MAX_BATCH_SIZE`` 8 columns at most, beyond that the matrix kernels take over.
MMVQ_BLOCK_THREADS = 128
MMVQ_MAX_BATCH = 8
#: Its registers per thread: Nsight Compute's launch statistics give 64 for the Q4_0 and
#: (unfused) Q4_K kernels (ggml-org/llama.cpp PR #23729, 2026-05, CUDA 12.8), so 8 blocks
#: (1,024 threads) share an SM's 64K registers.
MMVQ_REGISTERS = 64
#: Weight bytes each thread has in flight a row: ``vdr`` (2) 32-bit words of quants per
#: loop trip (``vec_dot_q4_0_q8_1`` & co. read ``vdr`` ints of the block's quants), the
#: next trip's loads issued after this one's multiply-adds.
MMVQ_BYTES_PER_THREAD = 8
#: The CUDA batch-1 matrix-vector kernel for 16- and 32-bit weights (ggml-cuda/mmvf.cu
#: ``mul_mat_vec_f``): blocks of up to 256 threads, each thread reading one ``half2`` (4
#: bytes; ``float2`` for F32) a loop trip; used up to 3 sequences on Ampere and later
#: (``ggml_cuda_should_use_mmvf``: ``ne11 <= 3``, 4 on Turing). Its register count is not
#: published: the SM's thread limit bounds its resident threads.
MMVF_MAX_BATCH = 3
MMVF_BYTES_PER_THREAD = {"F16": 4, "BF16": 4, "F32": 8}


def mmvq_read_gb_s(gpu: GpuSpec, sequences: int) -> float | None:
    """The most llama.cpp's CUDA matrix-vector kernel for quantized weights reads a second
    on ``gpu`` at a decode step of ``sequences`` (GB/s; None past
    :data:`MMVQ_MAX_BATCH` or without the GPU's SM count): its resident threads, each with
    :data:`MMVQ_BYTES_PER_THREAD` of every row it takes in flight, over the class's loaded
    latency (:func:`.base.resident_read_gb_s`).

    On cards whose memory gives more than 1,024 threads per SM can ask for (an A100's
    1,935 GB/s over 108 SMs) the kernel, not the memory, sets the decode rate: the
    scoreboard's A100 80 GB decodes Llama 2 7B Q4_0 at 191-201 tokens/s (ggml-org/llama.cpp
    discussion #15013), about 1.1 TB/s of weights, where the memory would give 1.9.
    """
    if not 1 <= sequences <= MMVQ_MAX_BATCH:
        return None
    threads = resident_threads(gpu, MMVQ_BLOCK_THREADS, MMVQ_REGISTERS)
    rows = 1 if sequences == 1 else 2
    return resident_read_gb_s(gpu, threads, MMVQ_BYTES_PER_THREAD * rows)


def mmvf_read_gb_s(gpu: GpuSpec, sequences: int, kind: str) -> float | None:
    """The most llama.cpp's CUDA matrix-vector kernel for 16-bit (or 32-bit) weights reads a
    second on ``gpu`` at a step of ``sequences`` (GB/s): at most the SM's thread limit
    resident (:func:`.base.max_threads_per_sm`), each with one ``half2`` (``float2``) of
    weights in flight (:data:`MMVF_BYTES_PER_THREAD`), over the loaded latency. None past
    :data:`MMVF_MAX_BATCH` sequences (cuBLAS), for a type it does not take, or without the
    GPU's SM count.

    XiongjieDai/GPU-Benchmarks-on-LLM-Inference @aa72e0e (README, LLaMA 3 8B F16, tg512):
    an H100 PCIe decodes at 68.03 tokens/s (1.09 TB/s of its 2.0), an A100 80 GB at 53-55
    (0.87 TB/s of 1.94-2.04), where GDDR cards stream at 79-93% of their datasheet.
    """
    per_thread = MMVF_BYTES_PER_THREAD.get(kind)
    if per_thread is None or not 1 <= sequences <= MMVF_MAX_BATCH:
        return None
    return resident_read_gb_s(gpu, max_threads_per_sm(gpu), per_thread)


__all__ = ["MMVF_BYTES_PER_THREAD", "MMVF_MAX_BATCH", "MMVQ_BLOCK_THREADS", "MMVQ_BYTES_PER_THREAD",
           "MMVQ_MAX_BATCH", "MMVQ_REGISTERS", "mmvf_read_gb_s", "mmvq_read_gb_s"]
