"""llama.cpp's Vulkan backend on Intel Arc: its mat-vec shaders' measured read rate at a decode
step and its prompt matmul (XMX through KHR_coopmat on Xe2, the vector engines on Alchemist)."""

from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.engines import llamacpp
from gpuadvisor.core.engines.base import gpu_class
from gpuadvisor.core.engines.llamacpp_matvec import (
    ALCHEMIST_TO_XE2,
    INTEL_VULKAN_MATVEC,
    intel_vulkan_format,
    intel_vulkan_matvec_gb_s,
)
from gpuadvisor.core.engines.prompt_rates import (
    INTEL_XE2_COOPMAT_FRACTION,
    llamacpp_prompt_rate,
)
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan

GPUS = catalog.load_gpus()
MODELS = catalog.load_models()
M, K = 4096, 14336  # test-backend-ops MUL_MAT's weight matrix


def read_gb_s(gflops: float, n: int, bytes_per_block: float, block: int) -> float:
    """GB/s a MUL_MAT run read: its weight matrix over 2 m n k / the printed GFLOPS."""
    seconds = 2.0 * M * n * K / (gflops * 1e9)
    return M * K * bytes_per_block / block / seconds / 1e9


def test_the_read_shares_are_the_published_kernel_runs():
    # ggml block layouts: q4_0 18 bytes per 32 weights, q4_K 144 per 256, q8_0 34 per 32
    xe2, xe = INTEL_VULKAN_MATVEC["Xe2"], INTEL_VULKAN_MATVEC["Xe"]
    legacy_xe2 = [read_gb_s(1830, 3, 18, 32) / 380,     # B570, Mesa 26.1.3, PR #17374
                  read_gb_s(3720, 3, 18, 32) / 456]     # B580, Windows, PR #17374
    assert xe2["legacy"] == pytest.approx(statistics.median(legacy_xe2), abs=0.01)
    legacy_xe = read_gb_s(815.09, 1, 18, 32) / 560      # A770, Windows, PR #24404
    assert xe["legacy"] == pytest.approx(legacy_xe, abs=0.01)
    k_quants = [read_gb_s(3490, 4, 144, 256) / 456, read_gb_s(2990, 4, 144, 256) / 380]
    assert xe2["k"] == pytest.approx(statistics.mean(k_quants), abs=0.01)
    q8 = [read_gb_s(2110, 3, 34, 32) / 456, read_gb_s(1590, 3, 34, 32) / 380]
    assert xe2["q8_0"] == pytest.approx(statistics.mean(q8), abs=0.01)
    # 16- and 32-bit weights: 2 and 4 bytes per weight
    floats_xe = [read_gb_s(383.57, 1, 2, 1) / 560, read_gb_s(200.96, 1, 4, 1) / 560]
    floats_xe2 = [read_gb_s(180.67, 1, 4, 1) / 380, read_gb_s(108.82, 1, 4, 1) / 224]
    assert xe["float"] == pytest.approx(statistics.mean(floats_xe), abs=0.01)
    assert xe2["float"] == pytest.approx(statistics.mean(floats_xe2), abs=0.01)
    # Alchemist's unmeasured formats: Battlemage's x the mean ratio of the measured two
    ratio = (legacy_xe / statistics.median(legacy_xe2)
             + statistics.mean(floats_xe) / statistics.mean(floats_xe2)) / 2
    assert pytest.approx(ratio, abs=0.01) == ALCHEMIST_TO_XE2
    assert xe["k"] == pytest.approx(statistics.mean(k_quants) * ratio, abs=0.01)
    assert xe["q8_0"] == pytest.approx(statistics.mean(q8) * ratio, abs=0.01)


@pytest.mark.parametrize("kind, row", [("Q4_0", "legacy"), ("Q5_1", "legacy"),
                                       ("Q4_K_M", "k"), ("Q6_K", "k"), ("IQ4_XS", "k"),
                                       ("Q8_0", "q8_0"), ("F16", "float"), ("BF16", "float")])
def test_each_file_type_reads_at_its_formats_rate(kind, row):
    assert intel_vulkan_format(kind) == row
    a770, b580 = GPUS["arc-a770-16gb"], GPUS["arc-b580"]
    assert intel_vulkan_matvec_gb_s(a770, kind) == pytest.approx(
        INTEL_VULKAN_MATVEC["Xe"][row] * 560)
    assert intel_vulkan_matvec_gb_s(b580, kind) == pytest.approx(
        INTEL_VULKAN_MATVEC["Xe2"][row] * 456)
    # Alchemist reads every format slower than Battlemage (a share of the datasheet)
    assert INTEL_VULKAN_MATVEC["Xe"][row] < INTEL_VULKAN_MATVEC["Xe2"][row]


def test_the_xe_generation_is_read_from_the_architecture():
    assert GPUS["arc-b570"].intel_xe == "Xe2" and GPUS["arc-a770-16gb"].intel_xe == "Xe"
    assert GPUS["gaudi-2"].intel_xe is None and GPUS["rtx-3090"].intel_xe is None


def test_other_cards_have_no_intel_ceiling():
    for gpu in ("rtx-3090", "rx-7900-xtx", "gaudi-2", "m2-ultra"):
        assert intel_vulkan_matvec_gb_s(GPUS[gpu], "Q4_0") is None


def decode_step_s(gpu_id: str, quant: str) -> tuple[float, object]:
    shape = model_shape(MODELS["llama-2-7b"])
    plan = Plan(task="infer", framework="llama.cpp", quant=quant, precision="fp16",
                seq_len=1, new_tokens=128, gpu_layers=shape.n_layers + 1)
    result = llamacpp.evaluate(shape, plan, GPUS[gpu_id], A)
    return result, shape


def test_an_arc_decode_step_reads_its_weights_at_the_shaders_rate():
    result, _ = decode_step_s("arc-a770-16gb", "q4_0")
    d = result.decode
    assert result.settings["backend"] == "vulkan"
    assert d.kernel_read_gb_s == pytest.approx(0.41 * 560)  # the A770's own q4_0 run
    # the memory itself streams faster than the shader reads
    assert 560 * gpu_class(GPUS["arc-a770-16gb"]).read_fraction > d.kernel_read_gb_s
    assert "Intel Arc" in d.source


def test_a_cuda_card_keeps_its_own_ceiling():
    result, _ = decode_step_s("rtx-3090", "q4_0")
    assert "Intel" not in result.decode.source


def test_xe2_prompts_run_on_the_xmx_engines_alchemist_on_the_vector_engines():
    b570, a770 = GPUS["arc-b570"], GPUS["arc-a770-16gb"]
    # Xe2: KHR_coopmat at the measured share of the fp16 XMX rate (B570 20.15 of 92.2, Pro
    # B50 13.68 of 16 x 2,048 x 2.6 GHz = 85.2)
    measured = (20.15 / 92.2 + 13.68 / (16 * 2048 * 2.6e-3)) / 2
    assert pytest.approx(measured, abs=0.005) == INTEL_XE2_COOPMAT_FRACTION
    rate = llamacpp_prompt_rate(b570, "vulkan", "Q4_0")
    assert rate.tflops == pytest.approx(92.2 * INTEL_XE2_COOPMAT_FRACTION)
    # Alchemist: no coopmat; the vector engines' fp16 (2 x fp32) at the default efficiency
    rate = llamacpp_prompt_rate(a770, "vulkan", "Q4_0", default_efficiency=0.5)
    assert rate.tflops == pytest.approx(2 * 17.2 * 0.5)
    assert rate.peak_tflops == pytest.approx(34.4)
    assert rate.tflops < a770.fp16_tensor_tflops * 0.5  # never the XMX rate


def test_the_default_prefill_efficiency_is_the_assumption():
    shape = model_shape(MODELS["llama-2-7b"])
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_0", precision="fp16",
                seq_len=512, new_tokens=1)
    slower = replace(A, efficiency_infer_prefill=0.25)
    base = llamacpp.evaluate(shape, plan, GPUS["arc-a770-16gb"], A).decode.prompt
    half = llamacpp.evaluate(shape, plan, GPUS["arc-a770-16gb"], slower).decode.prompt
    assert half.tflops == pytest.approx(base.tflops / 2)


def test_a_card_with_its_own_measured_read_decodes_at_it():
    from gpuadvisor.core.engines.base import GPU_CLASSES, read_fraction

    t4, l4 = GPUS["t4"], GPUS["l4"]
    share, source = read_fraction(t4)
    assert share == pytest.approx(263.44 / 320)
    assert "263.44 of 320" in source and "clpeak" in source
    # a card without one keeps its class's share (the L4's inline ECC, on by default, keeps
    # 16 of every 17 bytes a stream reads)
    assert l4.stream_read_gb_s is None
    assert read_fraction(l4)[0] == pytest.approx(
        GPU_CLASSES["nvidia-gddr"].read_fraction * 16 / 17)
    shape = model_shape(MODELS["llama-2-7b"])
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_0", precision="fp16",
                seq_len=1, new_tokens=128)
    assert llamacpp.evaluate(shape, plan, t4, A).decode.bandwidth_efficiency == \
        pytest.approx(263.44 / 320)
