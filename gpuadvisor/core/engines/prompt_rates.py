"""How fast an engine's prompt pass (prefill) runs: the achieved TFLOP/s of its matrix
multiplies, by backend and weight type, from published runs of each backend's kernels.

A prompt of hundreds of tokens is compute-bound: each pass multiplies a ``n_ubatch x k``
block of activations by every weight matrix. What sets its speed is the kernel the backend
runs for that product and the chip unit that kernel uses, not the plan's precision:

* **llama.cpp, CUDA, quantized weights** (every GGUF type but F16/BF16/F32): ``mul_mat_q``
  (MMQ) multiplies the quantized blocks as 8-bit integers with the ``mma`` int8 instructions
  (Turing and later: ggml-org/llama.cpp PRs #7676, #7860, #8062; MMQ is the default since
  PR #8075). Its speed follows the card's **SMs x clock**, not its datasheet int8 rate: the
  MMQ author's RTX 4090 figure, Llama 3 8B Q5_0 with ``n_ubatch`` 512, 10,491.78 tokens/s
  on a 2,048-token prompt (PR #8062, "t/s PR" column), is 163.1 TFLOP/s in this
  estimator's FLOP count (15.55 GFLOP per token: 2 x the matmul weights, LM head included,
  plus causal attention), :data:`MMQ_FLOP_PER_SM_CLOCK` per SM per clock (the 4090's 128
  SMs at 2.52 GHz: its 82.6 fp32 TFLOPS over 2 x 128 FP32 lanes per SM). On GeForce and
  RTX PRO cards that is 0.247 of the int8 rate, which is SMs x clock x 2,048; an A100 or
  A30 SM has twice those int8 units and a Hopper SM four times, and their prompt speeds
  on the CUDA scoreboard (discussion #15013: an A100 80 GB at 4,850-5,286 tokens/s, an
  RTX 3090 Ti at 6,567-6,924, the SM x clock products 152 and 162) follow the SMs and the
  clock: the kernel's loads, dequantization and instruction issue bound it, not the
  tensor units. SMs x clock is read from the catalog's fp32 rate over the FP32 lanes per
  SM of the architecture (:func:`fp32_lanes_per_sm`, NVIDIA's architecture whitepapers).
* **llama.cpp, CUDA, quantized weights, Pascal** (compute capability 6.1: no tensor cores,
  MMQ multiplies with ``dp4a``): :data:`MMQ_DP4A_FLOP_PER_SM_CLOCK` per SM per clock, from
  the MMQ author's own P40 row in the same setting as the 4090 anchor (PR #7716, "llama 8B
  Q5_0", ``n_ubatch`` 512, pp2048, "t/s PR" 831.19: 12.93 TFLOP/s over the P40's 30 SMs at
  1.53 GHz, its 11.8 fp32 TFLOPS over 2 x 128 lanes).
* **llama.cpp, ROCm on RDNA3** (``gfx11``, quantized weights): MMQ on the WMMA units at
  :data:`ROCM_RDNA3_FRACTION` of the fp16 rate, from the RDNA3 MMQ tuning PR's RX 7900 XTX
  row (ggml-org/llama.cpp PR #26284, "llama 8B Q4_K_M", ``n_ubatch`` 512, pp2048, 3,226.54
  t/s: 50.2 TFLOP/s in the estimator's count, of the card's 122.8 fp16 TFLOPS).
* **llama.cpp, Metal** (Apple GPUs): ``kernel_mul_mm`` dequantizes each block into
  threadgroup memory and multiplies 8 x 8 tiles with ``simdgroup_matrix`` at the GPU's
  FP32/FP16 FMA rate. :data:`METAL_FRACTION` is the median prompt rate of the llama.cpp
  Apple Silicon table (ggml-org/llama.cpp discussion #4167, LLaMA 2 7B Q4_0 and Q8_0,
  ``pp512``, 17 chips from the M1 Pro to the M4 Max) over each chip's catalog fp16 peak
  (cores x 256 FLOP x clock): 0.70 (M2 Ultra 0.61, M1 Pro 0.68, M3 Max 0.71, M4 0.70);
  ``benchmarks/prefill_accuracy.py`` prints the fraction of each chip and the error
  with the fraction taken from the other chips only.
* **llama.cpp, Vulkan on NVIDIA**: the cooperative-matrix shaders (``KHR_coopmat``) with
  fp32 accumulation; ``test-backend-ops`` ``MUL_MAT`` q4_0 at 4096 x 512 x 14336 measured
  45.46 TFLOP/s on an RTX 3090 (PR #11595) and 46.64 on an RTX 4070 (PR #12015): 0.640
  and 0.800 of their fp16 peaks, :data:`VULKAN_NVIDIA_FRACTION` their mean
  (``benchmarks/calibration/llamacpp_mulmat.json``).
* **llama.cpp, Vulkan on Intel Arc**: llama.cpp turns ``KHR_coopmat`` on for Intel's Xe2
  GPUs only (``ggml_vk_khr_cooperative_matrix_support``; on Alchemist it "reduces
  performance significantly", issue #12690, and an A770 forced to it ran f16 at 9% of the
  shader path, PR #24404). On Xe2 (Battlemage) the matrix engines run the prompt at
  :data:`INTEL_XE2_COOPMAT_FRACTION` of the fp16 XMX rate: ``MUL_MAT`` q4_K at 4096 x 512 x
  14336 measured 20.15 TFLOP/s on an Arc B570 (0.219 of its 92.2) and 13.68 on an Arc Pro
  B50 (0.161 of its 85.2; Mesa 26.1.4, build b9993, PR #25380). Alchemist (and Xe-LP)
  multiply on the vector engines: the vector fp16 rate (2 x fp32) x the default prefill
  efficiency (no published kernel rate of the current shaders).
* **MLX** (Apple GPUs): its ``steel`` GEMM, 18.9 TFLOP/s bf16 at 4096 x 4096 x 14336 on an
  M3 Ultra (60-core GPU), 0.887 of its 21.3 TFLOPS (``llamacpp_mulmat.json`` MLX row).

Other backends (ROCm on other AMD GPUs, Vulkan on AMD, CUDA with 16-bit weights,
the MMQ of the GTX 16 series (Turing without int8 tensor cores), Volta's cuBLAS, whose weight
conversion :mod:`.llamacpp` times apart, the P100 (no dp4a)) have no published kernel rate
here: their prompt is timed at the plan's peak x the default prefill efficiency, as before.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuadvisor.core.gpu import GpuSpec

#: FLOP per SM per clock of llama.cpp's MMQ prompt pass (see the module docstring: PR
#: #8062's RTX 4090 row, 163.17 TFLOP/s over the 4090's SMs x clock, its 82.6 fp32 TFLOPS
#: over 2 x 128 lanes: 163.17 / 0.3227 = 505.7).
MMQ_FLOP_PER_SM_CLOCK = 505.7
#: Its share of a GeForce card's int8 tensor rate (SMs x clock x 2,048): 163.1 / 660.6.
MMQ_INT8_FRACTION = 0.247
#: FLOP per SM per clock of MMQ's dp4a path on Pascal (see the module docstring: PR #7716's
#: P40 row, 831.19 tokens/s x 15.55 GFLOP = 12.93 TFLOP/s over 11.8 / 256 = 0.0461).
MMQ_DP4A_FLOP_PER_SM_CLOCK = 280.5
#: Achieved fraction of an RDNA3 card's fp16 (WMMA) rate of llama.cpp's ROCm MMQ prompt pass
#: (PR #26284's RX 7900 XTX row: 3,226.54 x 15.55 GFLOP / 122.8 TFLOPS).
ROCM_RDNA3_FRACTION = 0.4085
#: Median achieved fraction of an Apple GPU's fp16 peak of llama.cpp's Metal prompt pass
#: (discussion #4167, 34 rows).
METAL_FRACTION = 0.70
#: Mean fraction of the fp16 peak of llama.cpp's Vulkan ``KHR_coopmat`` q4_0 matrix multiply
#: on NVIDIA cards (45.46 / 71.0 and 46.64 / 58.3).
VULKAN_NVIDIA_FRACTION = 0.72
#: Mean fraction of an Intel Xe2 card's fp16 XMX rate of llama.cpp's Vulkan ``KHR_coopmat``
#: prompt matmul (q4_K, PR #25380): Arc B570 20.15 / 92.2 = 0.219, Arc Pro B50 13.68 / 85.2
#: = 0.161 (16 Xe2 cores x 2,048 FLOP x 2.6 GHz).
INTEL_XE2_COOPMAT_FRACTION = 0.19
#: MLX's bf16 GEMM on an M3 Ultra (60-core): 18.9 / 21.3.
MLX_FRACTION = 0.887

#: GGUF file types whose matrices run as 16- or 32-bit floats (cuBLAS on CUDA, not MMQ).
FLOAT_TYPES = frozenset({"F16", "BF16", "F32"})


@dataclass(frozen=True)
class PromptRate:
    """The achieved rate of a prompt pass's matrix multiplies on one GPU.

    Attributes:
        tflops: achieved TFLOP/s.
        fraction: its share of ``peak_tflops``.
        peak_tflops: the datasheet rate it is a fraction of.
        peak: which rate that is (``int8`` or ``fp16``).
        source: the kernel and the published figure behind ``fraction``, in a sentence.
        kernel: the kernel's short name (``llama.cpp MMQ``).
        cited: where ``fraction`` comes from, short (``llama.cpp PR #8062``).
    """

    tflops: float
    fraction: float
    peak_tflops: float
    peak: str
    source: str
    kernel: str = ""
    cited: str = ""

    def scaled(self, scale: float, why: str) -> PromptRate:
        """This rate times ``scale`` (a probe's measurement of this card), saying why."""
        return replace(self, tflops=self.tflops * scale, fraction=self.fraction * scale,
                       source=f"{self.source}; x {scale:.2f}: {why}")


def fp32_lanes_per_sm(cc: float) -> int:
    """FP32 lanes per SM of an NVIDIA architecture by compute capability (NVIDIA's
    whitepapers): 64 on the P100 (6.0), Volta (7.0, 7.2), Turing (7.5) and the A100/A30
    (8.0); 128 on the other Pascal chips (6.1, 6.2), GA10x (8.6, 8.7), Ada (8.9), Hopper
    (9.0) and Blackwell (10.x, 12.x)."""
    return 64 if round(cc, 1) in (6.0, 7.0, 7.2, 7.5, 8.0) else 128


def mmq_dp4a(gpu: GpuSpec) -> bool:
    """Whether llama.cpp's MMQ runs on ``gpu`` with ``dp4a`` alone: NVIDIA Pascal cards of
    compute capability 6.1/6.2 (``ggml_cuda_should_use_mmq``: no fp16 mma, so MMQ at every
    batch size)."""
    return gpu.vendor == "nvidia" and bool(gpu.fp32_tflops) and 6.1 <= gpu.cc_number < 7.0


def mmq_int8(gpu: GpuSpec) -> bool:
    """Whether llama.cpp's MMQ runs on ``gpu`` with the ``mma`` int8 instructions: NVIDIA
    cards of compute capability 7.5 (Turing) and later with int8 tensor cores, told by an
    int8 rate above 4x the fp32 rate (without them, on Pascal's ``dp4a`` and the GTX 16
    series' FP16 units, the datasheet int8 rate is 4x fp32)."""
    return (gpu.vendor == "nvidia" and bool(gpu.int8_tensor_tops) and bool(gpu.fp32_tflops)
            and gpu.cc_number >= 7.5 and gpu.int8_tensor_tops > 5 * gpu.fp32_tflops)


def sm_clock(gpu: GpuSpec) -> float:
    """An NVIDIA card's SMs x clock, in 10^12 SM-cycles per second: its fp32 rate over 2 x
    the FP32 lanes per SM (:func:`fp32_lanes_per_sm`)."""
    return gpu.fp32_tflops / (2 * fp32_lanes_per_sm(gpu.cc_number))


def mmq_tflops(gpu: GpuSpec) -> float:
    """MMQ's prompt-pass TFLOP/s on ``gpu``: :data:`MMQ_FLOP_PER_SM_CLOCK` x SMs x clock
    (:func:`sm_clock`), never above the int8 tensor rate."""
    return min(MMQ_FLOP_PER_SM_CLOCK * sm_clock(gpu), float(gpu.int8_tensor_tops))


def _mmq_rate(tflops: float, peak: float, per_clock: float, how: str, peak_name: str,
              anchor: str, kernel: str, cited: str) -> PromptRate:
    """An MMQ prompt rate of ``tflops`` on a card whose int8 rate (``peak_name``) is
    ``peak``, run with ``how`` at ``per_clock`` FLOP per SM per clock (``anchor``'s run)."""
    return PromptRate(tflops, tflops / peak, peak, "int8",
                      f"llama.cpp MMQ with {how}: {per_clock:.0f} FLOP per SM per clock "
                      f"({anchor}, {cited.removeprefix('llama.cpp ')}), "
                      f"{tflops / peak:.3f} of this card's {peak_name} rate",
                      kernel, cited)


def llamacpp_prompt_rate(gpu: GpuSpec, backend: str, gguf_type: str,
                         default_efficiency: float = 0.5) -> PromptRate | None:
    """The prompt pass's matmul rate of llama.cpp ``backend`` (``cuda``, ``hip``,
    ``metal``, ``vulkan``) with weights of GGUF type ``gguf_type`` (its label, e.g.
    ``Q4_K_M``; ``file`` for a local file's own mixture) on ``gpu``; None where no
    published kernel figure covers it (the default prefill efficiency applies to the
    plan's peak). ``default_efficiency``: that default, for a card whose kernel runs on
    other units than its datasheet peak's (Intel Alchemist's vector engines)."""
    quantized = gguf_type not in FLOAT_TYPES
    if backend == "cuda" and quantized and mmq_dp4a(gpu):
        # the dp4a int8 rate is 4x fp32 where the catalog gives none
        return _mmq_rate(MMQ_DP4A_FLOP_PER_SM_CLOCK * sm_clock(gpu),
                         float(gpu.int8_tensor_tops or 4 * gpu.fp32_tflops),
                         MMQ_DP4A_FLOP_PER_SM_CLOCK, "dp4a", "dp4a int8", "P40",
                         "llama.cpp MMQ (dp4a)",
                         "llama.cpp PR #7716")
    if backend == "cuda" and quantized and mmq_int8(gpu):
        return _mmq_rate(mmq_tflops(gpu), float(gpu.int8_tensor_tops),
                         MMQ_FLOP_PER_SM_CLOCK, "int8 mma", "int8", "RTX 4090",
                         "llama.cpp MMQ",
                         "llama.cpp PR #8062")
    fp16 = gpu.peak_tflops("fp16")
    if not fp16:
        return None
    if backend == "hip" and gpu.vendor == "amd" and quantized \
            and (gpu.gfx_target or "").startswith("gfx11"):
        return PromptRate(fp16 * ROCM_RDNA3_FRACTION, ROCM_RDNA3_FRACTION, fp16, "fp16",
                          f"llama.cpp ROCm MMQ on RDNA3: {ROCM_RDNA3_FRACTION} of the fp16 "
                          "rate (RX 7900 XTX, PR #26284)",
                          "llama.cpp ROCm MMQ", "llama.cpp PR #26284")
    if backend == "metal" and gpu.vendor == "apple":
        return PromptRate(fp16 * METAL_FRACTION, METAL_FRACTION, fp16, "fp16",
                          f"llama.cpp Metal kernel_mul_mm: {METAL_FRACTION} of the GPU's "
                          "fp16 rate (median of discussion #4167's pp512 rows)",
                          "llama.cpp Metal", "llama.cpp discussion #4167")
    if backend == "vulkan" and gpu.intel_xe is not None:
        return intel_vulkan_prompt_rate(gpu, fp16, default_efficiency)
    if backend == "vulkan" and gpu.vendor == "nvidia" and quantized:
        return PromptRate(fp16 * VULKAN_NVIDIA_FRACTION, VULKAN_NVIDIA_FRACTION, fp16,
                          "fp16", "llama.cpp Vulkan KHR_coopmat: "
                          f"{VULKAN_NVIDIA_FRACTION} of the fp16 rate (test-backend-ops, "
                          "RTX 3090 PR #11595, RTX 4070 PR #12015)",
                          "llama.cpp Vulkan", "llama.cpp PRs #11595, #12015")
    return None


def intel_vulkan_prompt_rate(gpu: GpuSpec, xmx_tflops: float,
                             default_efficiency: float) -> PromptRate:
    """llama.cpp's Vulkan prompt matmul on an Intel Arc card: the XMX engines through
    ``KHR_coopmat`` on Xe2, the vector engines elsewhere (see the module docstring)."""
    if gpu.intel_xe == "Xe2":
        frac = INTEL_XE2_COOPMAT_FRACTION
        return PromptRate(xmx_tflops * frac, frac, xmx_tflops, "fp16",
                          f"llama.cpp Vulkan KHR_coopmat on Intel Xe2: {frac} of the fp16 "
                          "XMX rate (Arc B570, Arc Pro B50, PR #25380)",
                          "llama.cpp Vulkan", "llama.cpp PR #25380")
    vector = 2.0 * gpu.fp32_tflops
    return PromptRate(vector * default_efficiency, default_efficiency, vector, "fp16 vector",
                      "llama.cpp Vulkan on Intel's vector engines (KHR_coopmat is on for "
                      "Xe2 only: ggml_vk_khr_cooperative_matrix_support, issue #12690): the "
                      f"vector fp16 rate, 2 x fp32, x the default prefill efficiency "
                      f"{default_efficiency:.2f}",
                      "llama.cpp Vulkan", "llama.cpp issue #12690")


def mlx_prompt_rate(gpu: GpuSpec) -> PromptRate | None:
    """MLX's prompt-pass matmul rate on an Apple GPU (None elsewhere)."""
    fp16 = gpu.peak_tflops("fp16")
    if gpu.vendor != "apple" or not fp16:
        return None
    return PromptRate(fp16 * MLX_FRACTION, MLX_FRACTION, fp16, "fp16",
                      f"MLX steel GEMM: {MLX_FRACTION} of the GPU's fp16 rate "
                      "(bf16 4096 x 4096 x 14336 on an M3 Ultra, 60-core)",
                      "MLX GEMM", "ml-explore/mlx#3196")


__all__ = [
    "FLOAT_TYPES",
    "INTEL_XE2_COOPMAT_FRACTION",
    "METAL_FRACTION",
    "MLX_FRACTION",
    "MMQ_DP4A_FLOP_PER_SM_CLOCK",
    "MMQ_FLOP_PER_SM_CLOCK",
    "MMQ_INT8_FRACTION",
    "ROCM_RDNA3_FRACTION",
    "VULKAN_NVIDIA_FRACTION",
    "PromptRate",
    "fp32_lanes_per_sm",
    "intel_vulkan_prompt_rate",
    "llamacpp_prompt_rate",
    "mlx_prompt_rate",
    "mmq_dp4a",
    "mmq_int8",
    "mmq_tflops",
    "sm_clock",
]
