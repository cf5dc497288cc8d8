"""Achieved fractions of a GPU's datasheet rates, from published kernel benchmarks.

The rows, with full sources, are in ``benchmarks/calibration/kernels.json`` (ids below):

* matmul: the "maximum achievable matmul FLOPS" sweeps of stas00/ml-engineering
  (``mamf-*``) and single submissions of square ``torch.mm`` (``zzc-*``): the best bf16/fp16
  GEMM over shapes, divided by the dense datasheet peak.
* memory: STREAM-style copy kernels (one load + one store stream, RRZE-HPC gpu-benches,
  ``gpustream-*-scale``): what norms, activations and the optimizer's elementwise kernels
  reach.
* attention: FlashAttention-2 forward + backward reaches 203 TFLOP/s on A100 (0.65 of
  312) and 338 on H100 SXM (0.34 of 989) (Dao 2023, the FlashAttention-2 README figures);
  FlashAttention-3 reaches 0.75 of H100's peak forward (Shah et al. 2024).

A GPU without a published figure takes its architecture's (same family) or the
:data:`DEFAULT` row, and the record says which. A probe's measurement replaces the matmul
and memory fractions for the user's own card.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelFractions:
    """Achieved fraction of peak for matmuls, attention and memory bandwidth."""

    matmul: float
    attention: float
    memory: float
    source: str


#: Catalog id -> fractions. Attention: FA2 forward+backward figures (A100 0.65; H100 0.34;
#: other NVIDIA parts take the A100 fraction of their own matmul, 0.65 / 0.87).
_BY_GPU = {
    "a100-sxm-80gb": KernelFractions(0.87, 0.65, 0.85, "mamf-bf16-nvidia-a100-sxm; "
                                     "gpustream-a100-80-scale; FA2 203/312"),
    "a100-sxm-40gb": KernelFractions(0.87, 0.65, 0.89, "mamf-bf16-nvidia-a100-sxm; "
                                     "gpustream-a100-40-scale; FA2 203/312"),
    "a100-pcie-80gb": KernelFractions(0.81, 0.61, 0.85, "mamf-bf16-nvidia-a100-pcie; "
                                      "gpustream-a100-80-scale"),
    "a100-pcie-40gb": KernelFractions(0.75, 0.56, 0.89, "zzc-bf16-a100-pcie-40gb-l112; "
                                      "gpustream-a100-40-scale"),
    "h100-sxm": KernelFractions(0.80, 0.34, 0.85, "mamf-bf16-nvidia-h100-sxm; "
                                "gpustream-h100-pcie-scale; FA2 338/989"),
    "h100-pcie": KernelFractions(0.66, 0.28, 0.85, "zzc-bf16-h100-pcie-l101; "
                                 "gpustream-h100-pcie-scale"),
    "h100-nvl": KernelFractions(0.66, 0.28, 0.85, "as h100-pcie (zzc-bf16-h100-pcie-l101)"),
    "h200-sxm": KernelFractions(0.80, 0.34, 0.66, "zzc-bf16-h200-l57; gpustream-h200-scale"),
    "b200": KernelFractions(0.78, 0.33, 0.85, "mamf-bf16-nvidia-b200-sxm"),
    "l40s": KernelFractions(0.74, 0.55, 0.93, "zzc-bf16-l40s-l55; gpustream-l40-scale"),
    "l4": KernelFractions(0.59, 0.44, 0.85, "zzc-bf16-l4-l124"),
    "a40": KernelFractions(0.80, 0.60, 0.95, "as rtx-a6000 (same GA102); gpustream-a40-scale"),
    "rtx-a6000": KernelFractions(0.80, 0.60, 0.95, "zzc-bf16-rtx-a6000-l58; "
                                 "gpustream-a40-scale (same GA102)"),
    "v100-sxm2-16gb": KernelFractions(0.76, 0.57, 0.90, "zzc-fp16-tesla-v100-sxm2-16gb-l65; "
                                      "gpustream-v100-scale"),
    "v100-sxm2-32gb": KernelFractions(0.76, 0.57, 0.90, "as v100-sxm2-16gb"),
    "rtx-4090": KernelFractions(1.0, 0.75, 0.85, "zzc-bf16-geforce-rtx-4090-l64 (clocks above "
                                "rated boost)"),
    "mi300x": KernelFractions(0.51, 0.38, 0.77, "mamf-bf16-amd-mi300x; gpustream-mi300x-scale"),
    "mi325x": KernelFractions(0.60, 0.45, 0.77, "mamf-bf16-amd-mi325x"),
    "mi250x": KernelFractions(0.77, 0.58, 0.77, "mamf-v1-bf16-amd-mi250x-gcd"),
    "gaudi-2": KernelFractions(0.97, 0.73, 0.85, "mamf-bf16-intel-gaudi2"),
    "gaudi-3": KernelFractions(0.74, 0.55, 0.85, "mamf-bf16-intel-gaudi3"),
}

#: No published figure: the median matmul fraction of the NVIDIA rows above (0.80), the
#: A100 attention-to-matmul ratio (0.65/0.87 = 0.75) and the median copy fraction (0.85).
DEFAULT = KernelFractions(0.80, 0.60, 0.85, "no published figure: medians of kernels.json")


#: FP8 (e4m3) GEMM fractions of the dense fp8 peak, mamf-finder sweeps (kernels.json
#: ``mamf-fp8-*``); other GPUs with fp8 units take the median of the NVIDIA rows (0.74).
FP8_MATMUL = {"h100-sxm": 0.709, "h100-nvl": 0.709, "h200-sxm": 0.734, "b200": 0.763,
              "b300": 0.745, "gb200": 0.723, "gh200": 0.776, "gaudi-2": 0.955,
              "gaudi-3": 0.769}
FP8_MATMUL_DEFAULT = 0.74


def fp8_matmul_fraction(gpu_id: str | None) -> float:
    """Fraction of the dense fp8 peak that large fp8 GEMMs reach (:data:`FP8_MATMUL`)."""
    return FP8_MATMUL.get(gpu_id or "", FP8_MATMUL_DEFAULT)


def kernel_fractions(gpu_id: str | None) -> KernelFractions:
    """The published fractions for catalog GPU ``gpu_id`` (or :data:`DEFAULT`)."""
    return _BY_GPU.get(gpu_id or "", DEFAULT)


#: Streaming multiprocessors per GPU (kernels.json ``gemm_tiling``: NVIDIA datasheets).
SM_COUNT = {"a100-sxm-80gb": 108, "a100-sxm-40gb": 108, "a100-pcie-80gb": 108,
            "a100-pcie-40gb": 108, "h100-sxm": 132, "h200-sxm": 132, "h100-pcie": 114,
            "h100-nvl": 132, "b200": 148}
#: SMs NCCL's kernels hold during a collective on an NVSwitch node: 16 (an NCCL
#: maintainer, nvidia/nccl#689; insitu.json). Published only for DGX-class nodes, so the
#: share is applied to NVLink/NVSwitch GPUs and left out elsewhere.
NCCL_SMS_NVSWITCH = 16


def comm_sm_share(gpu_id: str | None, p2p_link: str | None) -> float:
    """Share of the GPU's SMs NCCL holds while it communicates (0 where unpublished)."""
    sms = SM_COUNT.get(gpu_id or "")
    if sms is None or p2p_link not in ("nvlink3", "nvlink4", "nvlink5"):
        return 0.0
    return NCCL_SMS_NVSWITCH / sms
