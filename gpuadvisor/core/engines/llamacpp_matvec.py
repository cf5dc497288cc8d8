"""llama.cpp's matrix-vector kernels at a decode step, as read ceilings.

CUDA: how many weight bytes their resident threads keep in flight over the memory's loaded
latency (Little's law, :func:`.base.resident_read_gb_s`). A card whose memory gives more than
those threads ask for decodes at the kernel's rate, not the memory's.

Vulkan on Intel Arc: the mat-vec shaders' own measured read rate, a share of the card's
datasheet bandwidth by weight format (:data:`INTEL_VULKAN_MATVEC`), from ``test-backend-ops
perf -o MUL_MAT`` rows Intel's and llama.cpp's developers posted (weights of ``m x k`` =
4096 x 14336, bytes read = the weight matrix over the time a run takes)."""

from __future__ import annotations

from functools import lru_cache

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.engines.base import (
    max_threads_per_sm,
    resident_read_gb_s,
    resident_threads,
)
from gpuadvisor.core.ggml_types import ggml_type_named
from gpuadvisor.core.gguf_quant import gguf_tensors
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
#: Each quantized type's loop in that kernel, ``(QR, VDR)``: a block of ``qk`` weights is
#: read by ``qi / vdr`` threads (``qi = qk / (4 x QR)``, ggml-common.h; ``VDR_*_Q8_1_MMVQ``,
#: ggml-cuda/vecdotq.cuh, ggml-org/ggml @d99724f), so a thread has ``vdr x type_size / qi``
#: of the block's bytes (quants and scales) in flight a trip: 9 for Q4_0 and Q4_K, 6.56 for
#: Q6_K (one 32-bit word of low bits, half a word of high bits: VDR 1), 11 for Q5_K.
#: Q1_0 and Q2_0 count ``qi = qk / 32`` (QR 8 here).
MMVQ_LOOPS = {
    "Q1_0": (8, 1), "Q2_0": (8, 1), "Q4_0": (2, 2), "Q4_1": (2, 2), "Q5_0": (2, 2),
    "Q5_1": (2, 2), "Q8_0": (1, 2), "MXFP4": (2, 2), "NVFP4": (2, 4), "Q2_K": (4, 1),
    "Q3_K": (4, 1), "Q4_K": (2, 2), "Q5_K": (2, 2), "Q6_K": (2, 1), "IQ2_XXS": (4, 2),
    "IQ2_XS": (4, 2), "IQ2_S": (4, 2), "IQ3_XXS": (4, 2), "IQ3_S": (4, 2), "IQ1_S": (8, 1),
    "IQ1_M": (8, 1), "IQ4_NL": (2, 2), "IQ4_XS": (2, 4),
}
#: The CUDA batch-1 matrix-vector kernel for 16- and 32-bit weights (ggml-cuda/mmvf.cu
#: ``mul_mat_vec_f``): blocks of up to 256 threads, each thread reading one ``half2`` (4
#: bytes; ``float2`` for F32) a loop trip; used up to 3 sequences on Ampere and later
#: (``ggml_cuda_should_use_mmvf``: ``ne11 <= 3``, 4 on Turing). Its register count is not
#: published: the SM's thread limit bounds its resident threads.
MMVF_MAX_BATCH = 3
MMVF_BYTES_PER_THREAD = {"F16": 4, "BF16": 4, "F32": 8}


#: Achieved read rate of llama.cpp's Vulkan mat-vec shaders on Intel Arc, as a share of the
#: card's datasheet bandwidth, by Xe generation (:attr:`.GpuSpec.intel_xe`) and weight
#: format (test-backend-ops ``MUL_MAT m=4096 k=14336``; bytes = the weight matrix, time =
#: 2 m n k / the printed GFLOPS). The generations are kept apart: wherever a format was
#: measured on both, Alchemist's shaders read about 0.7 of what Battlemage's do (legacy 0.41
#: vs 0.61, 16/32-bit 0.71 vs 0.96), so one median over both would be wrong for each.
#:
#: ``Xe2`` (Battlemage, Arc B-series and Pro B):
#:
#: * ``legacy`` (Q4_0, Q4_1, Q5_0, Q5_1): 0.61, the median of a B570 (Mesa 26.1.3) q4_0
#:   n=3 1,830 GFLOPS = 172 GB/s of 380 (0.45) and a B580 (Windows 32.0.101.8860) 3,720
#:   GFLOPS = 349 GB/s of 456 (0.77; both PR #17374). On Intel the int-dot mat-vec (MMVQ)
#:   is off for Q4_0 (``ggml_vk_should_use_mmvq``, "from tests on A770 Linux"), so the
#:   dequantizing shader reads them;
#: * ``k`` (K-quants and the other block formats): 0.55, B580 q4_K n=4 3,490 GFLOPS = 245
#:   GB/s (0.54) and B570 2,990 = 210 GB/s (0.55; PR #17374);
#: * ``q8_0``: 0.78, B580 n=3 2,110 GFLOPS = 374 GB/s (0.82), B570 1,590 = 282 (0.74);
#: * ``float`` (F16/BF16/F32): 0.96, B570 f32 n=1 180.67 GFLOPS = 361 GB/s (0.95) and Pro
#:   B50 108.82 = 218 of 224 (0.97; Mesa 26.1.4, PR #25380).
#:
#: ``Xe`` (Alchemist, Arc A-series, and the Xe integrated GPUs):
#:
#: * ``legacy``: 0.41, an A770 (Windows driver 32.0.101.8826, build b9588) q4_0 n=1 815.09
#:   GFLOPS = 229 GB/s of 560 (PR #24404);
#: * ``float``: 0.71, the mean of the same A770's f16 n=1 383.57 GFLOPS = 384 GB/s (0.69)
#:   and f32 200.96 = 402 GB/s (0.72; PR #24404);
#: * ``k`` and ``q8_0``: no Alchemist run published; Battlemage's rate x
#:   :data:`ALCHEMIST_TO_XE2`, the mean Alchemist/Battlemage ratio of the two formats
#:   measured on both (0.41 / 0.61 and 0.71 / 0.96).
_XE2 = {"legacy": 0.61, "k": 0.55, "q8_0": 0.78, "float": 0.96}
_XE_MEASURED = {"legacy": 0.41, "float": 0.71}
ALCHEMIST_TO_XE2 = round(sum(_XE_MEASURED[f] / _XE2[f] for f in _XE_MEASURED)
                         / len(_XE_MEASURED), 3)
INTEL_VULKAN_MATVEC = {
    "Xe2": _XE2,
    "Xe": {f: _XE_MEASURED.get(f, round(_XE2[f] * ALCHEMIST_TO_XE2, 2)) for f in _XE2},
}
_LEGACY = ("Q4_0", "Q4_1", "Q5_0", "Q5_1")


def intel_vulkan_format(kind: str) -> str:
    """The :data:`INTEL_VULKAN_MATVEC` row of a GGUF file type (``Q4_K_M`` -> ``k``)."""
    kind = kind.upper()
    if kind in ("F16", "BF16", "F32"):
        return "float"
    if kind.startswith("Q8_0"):
        return "q8_0"
    if kind.startswith(_LEGACY):
        return "legacy"
    return "k"


def intel_vulkan_matvec_gb_s(gpu: GpuSpec, kind: str) -> float | None:
    """The most llama.cpp's Vulkan mat-vec shaders read a second on an Intel Arc card with
    weights of GGUF type ``kind`` (GB/s): its Xe generation's :data:`INTEL_VULKAN_MATVEC`
    share x its datasheet bandwidth (a later generation than Xe2 takes Xe2's, the nearest
    measured). None for other cards (Gaudi included)."""
    if gpu.intel_xe is None:
        return None
    table = INTEL_VULKAN_MATVEC["Xe" if gpu.intel_xe == "Xe" else "Xe2"]
    return table[intel_vulkan_format(kind)] * gpu.memory_bandwidth_gb_s


def _block_bytes_per_thread(kind: str) -> float | None:
    loop = MMVQ_LOOPS.get(kind)
    if loop is None:
        return None
    qr, vdr = loop
    t = ggml_type_named(kind)
    return vdr * t.type_size / (t.block_size / (4 * qr))


def mmvq_bytes_per_thread(mix) -> float:
    """Bytes in flight per thread of the mat-vec kernel over a file's matrices: ``mix`` is
    ``(ggml type name, bytes read a token)`` pairs. Each type's share of its blocks per
    thread (:data:`MMVQ_LOOPS`) scales :data:`MMVQ_BYTES_PER_THREAD`, which is Q4_0's; the
    types are combined as their reading times add up (the byte-weighted harmonic mean).
    Types the kernel does not take count as Q4_0."""
    base = _block_bytes_per_thread("Q4_0")
    total = seconds = 0.0
    for kind, nbytes in mix:
        own = _block_bytes_per_thread(kind) or base
        total += nbytes
        seconds += nbytes / (MMVQ_BYTES_PER_THREAD * own / base)
    return total / seconds if seconds else float(MMVQ_BYTES_PER_THREAD)


@lru_cache(maxsize=64)
def _matvec_mix(model: ModelShape, ftype: str) -> tuple[tuple[str, int, bool], ...]:
    """``(ggml type, bytes, routed expert)`` of the matrices a decode step multiplies, summed
    by type: every layer's (not its F32 norms) and the output (``token_embd``'s type when
    tied)."""
    sums: dict[tuple[str, bool], int] = {}
    embd = output = None
    for t in gguf_tensors(model, ftype):
        if t.layer >= 0 and t.kind.name != "F32":
            key = (t.kind.name, t.expert)
            sums[key] = sums.get(key, 0) + t.bytes
        elif t.name in ("output", "token_embd"):
            row = ((t.kind.name, False), t.bytes)
            output, embd = (row, embd) if t.name == "output" else (output, row)
    head = output or embd
    if head is not None:
        sums[head[0]] = sums.get(head[0], 0) + head[1]
    return tuple((kind, nbytes, expert) for (kind, expert), nbytes in sums.items())


def file_bytes_per_thread(model: ModelShape, ftype: str, routed: float = 1.0) -> float:
    """:func:`mmvq_bytes_per_thread` over a GGUF file of type ``ftype``: its matrices'
    types as the file stores them, routed experts at the share ``routed`` a step reads."""
    return mmvq_bytes_per_thread([(kind, nbytes * (routed if expert else 1.0))
                                  for kind, nbytes, expert in _matvec_mix(model, ftype)])


def mmvq_read_gb_s(gpu: GpuSpec, sequences: int,
                   bytes_per_thread: float = MMVQ_BYTES_PER_THREAD) -> float | None:
    """The most llama.cpp's CUDA matrix-vector kernel for quantized weights reads a second
    on ``gpu`` at a decode step of ``sequences`` (GB/s; None past
    :data:`MMVQ_MAX_BATCH` or without the GPU's SM count): its resident threads, each with
    ``bytes_per_thread`` (default Q4_0's :data:`MMVQ_BYTES_PER_THREAD`; a file's mixture:
    :func:`mmvq_bytes_per_thread`) of every row it takes in flight, over the class's loaded
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
    return resident_read_gb_s(gpu, threads, bytes_per_thread * rows)


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


__all__ = ["ALCHEMIST_TO_XE2", "INTEL_VULKAN_MATVEC", "MMVF_BYTES_PER_THREAD", "MMVF_MAX_BATCH",
           "MMVQ_BLOCK_THREADS", "MMVQ_BYTES_PER_THREAD", "MMVQ_LOOPS", "MMVQ_MAX_BATCH",
           "MMVQ_REGISTERS", "file_bytes_per_thread", "intel_vulkan_format",
           "intel_vulkan_matvec_gb_s", "mmvf_read_gb_s", "mmvq_bytes_per_thread",
           "mmvq_read_gb_s"]
