"""llama.cpp's CUDA matrix-vector kernel: the bytes its resident threads keep in flight set a
ceiling on a decode step's streaming rate (Little's law), below the memory on HBM cards."""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.calibration import Measurement
from gpuadvisor.core.engines import llamacpp
from gpuadvisor.core.engines.base import (
    GPU_CLASSES,
    loaded_latency,
    max_threads_per_sm,
    resident_read_gb_s,
    resident_threads,
)
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()


def plan(**kw):
    base = dict(task="infer", framework="llama.cpp", quant="q4_0", seq_len=1, new_tokens=128)
    return Plan(**(base | kw))


def test_resident_threads_follow_the_register_file_and_the_thread_limit():
    a100, t4, rtx3090 = GPUS["a100-pcie-80gb"], GPUS["t4"], GPUS["rtx-3090"]
    assert [max_threads_per_sm(g) for g in (a100, t4, rtx3090)] == [2048, 1024, 1536]
    # 64 registers x 128 threads = 8,192 of 65,536: 8 blocks, 1,024 threads on every card
    for g in (a100, t4, rtx3090):
        assert resident_threads(g, 128, 64) == 1024
    # 89 registers round up to 96: 65,536 // (96 x 128) = 5 blocks (PR #23729's fused
    # Q4_K kernel, whose occupancy fell by 61% against the 64-register one)
    assert resident_threads(a100, 128, 89) == 640
    # 32 registers would allow 16 blocks: the thread limit stops them first
    assert resident_threads(a100, 128, 32) == 2048
    assert resident_threads(t4, 128, 32) == 1024
    assert resident_threads(rtx3090, 128, 32) == 1536


def test_littles_law_gives_back_the_measured_read_at_that_occupancy():
    """gpu-stream's read kernel (one 8-byte load per thread) at 1,024 threads per SM
    (te42kyfo/gpu-benches @1c36d509 gpu-stream/*.txt, blockSize 512, two blocks an SM) read
    1,122 GB/s on an A100-80, 1,042 on an A100-40, 1,261 on an H100 PCIe, 746 on a V100 and
    1,707 on an H200: each card's own latency gives its own read back; a card without a
    sweep takes its class's median."""
    for gpu_id, sms, read in (("a100-pcie-80gb", 108, 1122), ("a100-sxm-80gb", 108, 1122),
                              ("a100-sxm-40gb", 108, 1042), ("h100-pcie", 114, 1261),
                              ("v100-sxm2-32gb", 80, 746), ("h200-sxm", 132, 1707)):
        gpu = GPUS[gpu_id]
        assert gpu.sm_count == sms
        latency, source = loaded_latency(gpu)
        assert latency == pytest.approx(sms * 1024 * 8 / (read * 1e9))
        assert "gpu-stream/" in source
        assert resident_read_gb_s(gpu, 1024, 8) == pytest.approx(read)
    h100 = GPUS["h100-sxm"]  # no sweep of its own
    assert loaded_latency(h100)[0] == GPU_CLASSES["nvidia-hbm"].loaded_latency_s
    assert resident_read_gb_s(h100, 1024, 8) == pytest.approx(
        132 * 1024 * 8 / GPU_CLASSES["nvidia-hbm"].loaded_latency_s / 1e9)
    # no SM count, or a class without an occupancy sweep: no ceiling
    assert resident_read_gb_s(GPUS["m2-max"], 1024, 8) is None
    assert resident_read_gb_s(GPUS["rx-7900-xtx"], 1024, 8) is None


def test_the_decode_step_reads_no_faster_than_the_kernel_lets_it():
    gpu = GPUS["a100-pcie-80gb"]
    ceiling = llamacpp.mmvq_read_gb_s(gpu, 1)
    assert ceiling == pytest.approx(1122)  # its 1,024 threads per SM x 8 bytes, as measured
    assert ceiling < gpu.memory_bandwidth_gb_s * GPU_CLASSES["nvidia-hbm"].read_fraction
    e = estimate(MODELS["llama-2-7b"], plan(), gpu)
    d = e.engine.decode
    # The Q4_0 file's blocks are Q4_0 (32 layers x (4 x 4096^2 + 3 x 4096 x 11008) weights,
    # 18 bytes a 32) and its output Q6_K (32,000 x 4,096, 210 bytes a 256), whose threads
    # hold 6.5625 of the block's bytes to Q4_0's 9: the times add.
    q4 = 32 * (4 * 4096**2 + 3 * 4096 * 11008) * 18 / 32
    q6 = 32000 * 4096 * 210 / 256
    per_thread = (q4 + q6) / (q4 / 8 + q6 / (8 * 6.5625 / 9))
    assert d.kernel_read_gb_s == pytest.approx(ceiling * per_thread / 8)
    assert e.assumptions["engine_kernel_read_gb_s"] == round(d.kernel_read_gb_s, 1)
    ceiling = d.kernel_read_gb_s
    # Llama 2 7B's KV rows: K and V of 4,096 fp16 elements in 32 layers, at 1 + 64 cells
    assert e.engine.kv_bytes_per_token == 2 * 32 * 4096 * 2
    read = e.engine.weights + e.engine.kv_bytes_per_token * (1 + 128 / 2)
    assert 1 / e.time.decode_tokens_per_s == pytest.approx(read / (ceiling * 1e9) + d.fixed_s,
                                                           rel=1e-9)
    # Llama 2 7B Q4_0 tg128 on the A100 80 GB: 190.88 (FA off) and 200.90 (FA on) tokens/s,
    # ggml-org/llama.cpp discussion #15013, commit 5143fa8; without the ceiling 270+
    assert 180 < e.time.decode_tokens_per_s < 215


def test_a_measured_bandwidth_does_not_lift_the_kernels_ceiling():
    gpu = GPUS["a100-pcie-80gb"]
    probe = Measurement(None, None, "2026-01-01T00:00:00Z", kind="bandwidth",
                        bandwidth_gb_s=1800.0, gpu_id=gpu.id)
    base = estimate(MODELS["llama-2-7b"], plan(), gpu)
    probed = estimate(MODELS["llama-2-7b"], plan(), gpu, measurement=probe)
    assert probed.time.decode_tokens_per_s == pytest.approx(base.time.decode_tokens_per_s)
    # a slow measured card reads at its own rate, under the ceiling
    slow = Measurement(None, None, "2026-01-01T00:00:00Z", kind="bandwidth",
                       bandwidth_gb_s=600.0, gpu_id=gpu.id)
    probed = estimate(MODELS["llama-2-7b"], plan(), gpu, measurement=slow)
    assert probed.time.decode_tokens_per_s < base.time.decode_tokens_per_s


def test_the_ceiling_is_for_mmvq_alone():
    shape = model_shape(MODELS["llama-2-7b"])
    gpu = GPUS["a100-pcie-80gb"]
    # two to eight sequences: two rows a block, twice the bytes in flight
    assert llamacpp.mmvq_read_gb_s(gpu, 8) == pytest.approx(2 * llamacpp.mmvq_read_gb_s(gpu, 1))
    # more than MMVQ_MAX_BATCH: the matrix kernels, no ceiling
    assert llamacpp.mmvq_read_gb_s(gpu, 9) is None
    assert llamacpp.evaluate(shape, plan(micro_batch=16), gpu, A).decode.kernel_read_gb_s == 0
    # Vulkan runs its own shaders: no ceiling measured for them
    assert llamacpp.evaluate(shape, plan(), gpu, A, backend="vulkan").decode \
        .kernel_read_gb_s == 0
    # a GDDR card whose memory the kernel can fill: the ceiling is above the memory's rate
    rtx = GPUS["rtx-4090"]
    ceiling = llamacpp.mmvq_read_gb_s(rtx, 1)
    assert ceiling > rtx.memory_bandwidth_gb_s * GPU_CLASSES["nvidia-gddr"].read_fraction


def test_sixteen_bit_weights_take_mmvf_at_most_the_sms_thread_limit_of_half2_loads():
    """mul_mat_vec_f: each thread reads one half2 (4 bytes) a loop trip, at most 2,048
    threads an SM on an A100 or H100 (1,536 on an RTX 3090): 8 KB (6 KB) in flight."""
    shape = model_shape(MODELS["llama-2-7b"])
    h100, rtx3090 = GPUS["h100-pcie"], GPUS["rtx-3090"]
    hbm, gddr = loaded_latency(h100)[0], GPU_CLASSES["nvidia-gddr"].loaded_latency_s
    assert llamacpp.mmvf_read_gb_s(h100, 1, "F16") == pytest.approx(114 * 2048 * 4 / hbm / 1e9)
    assert llamacpp.mmvf_read_gb_s(rtx3090, 1, "BF16") == pytest.approx(
        82 * 1536 * 4 / gddr / 1e9)
    assert llamacpp.mmvf_read_gb_s(h100, 1, "F32") == pytest.approx(
        2 * llamacpp.mmvf_read_gb_s(h100, 1, "F16"))
    # four sequences or more: cuBLAS on Ampere and later; a quantized type is mmvq's
    assert llamacpp.mmvf_read_gb_s(h100, 4, "F16") is None
    assert llamacpp.mmvf_read_gb_s(h100, 1, "Q4_0") is None
    r = llamacpp.evaluate(shape, plan(quant="none"), h100, A)
    assert r.decode.kernel_read_gb_s == pytest.approx(llamacpp.mmvf_read_gb_s(h100, 1, "F16"))
    # Llama 3 8B F16 tg512 on an H100 PCIe: 68.03 tokens/s (XiongjieDai/GPU-Benchmarks-on-
    # LLM-Inference @aa72e0e README); the memory's rate alone would give about 106
    e = estimate(MODELS["llama-3.1-8b"], plan(quant="none", new_tokens=512), h100)
    assert e.time.decode_tokens_per_s == pytest.approx(68.03, rel=0.10)


def test_each_quant_type_holds_its_blocks_share_per_thread():
    # vdr x type_size / qi, qi = qk / (4 QR), relative to Q4_0's 2 x 18 / 4 = 9 bytes:
    # Q4_K 2 x 144 / 32 = 9, Q6_K 1 x 210 / 32 = 6.5625, Q5_K 2 x 176 / 32 = 11,
    # Q8_0 2 x 34 / 8 = 8.5 (ggml-common.h QI*/QR*, vecdotq.cuh VDR_*_Q8_1_MMVQ)
    from gpuadvisor.core.engines.llamacpp_matvec import mmvq_bytes_per_thread
    for kind, share in (("Q4_0", 9), ("Q4_K", 9), ("Q6_K", 6.5625), ("Q5_K", 11),
                        ("Q8_0", 8.5)):
        assert mmvq_bytes_per_thread([(kind, 1)]) == pytest.approx(8 * share / 9)
    # two types: their reading times add (1 GB at 8 and 1 GB at 8 x 6.5625 / 9)
    both = mmvq_bytes_per_thread([("Q4_K", 1e9), ("Q6_K", 1e9)])
    assert both == pytest.approx(2 / (1 / 8 + 1 / (8 * 6.5625 / 9)))
    # a Q4_K_M file keeps some layers' ffn_down and attn_v and the output in Q6_K, so the
    # kernel reads it slower per byte than the all-Q4_0 file on a kernel-bound A100
    gpu = GPUS["a100-pcie-80gb"]
    k_m = estimate(MODELS["llama-3.1-8b"], plan(quant="q4_k_m"), gpu).engine.decode
    q4_0 = estimate(MODELS["llama-3.1-8b"], plan(quant="q4_0"), gpu).engine.decode
    assert k_m.kernel_read_gb_s < 0.95 * q4_0.kernel_read_gb_s
