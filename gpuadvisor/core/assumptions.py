"""The constants the estimator assumes, each visible, documented and overridable.

Every estimate reports the assumptions it used (name -> value) so the user can see them and
pass their own values back in. Sources are given next to each default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from .limits import ASSUMPTION_BOUNDS, check_table
from .units import GiB


@dataclass(frozen=True)
class Assumptions:
    """Overridable constants of the memory and time model.

    Attributes:
        cuda_context_bytes: memory the CUDA context and preloaded kernels take before any
            tensor exists. 0.90 GiB measured on an A100 with torch 1.13 (0.47-0.92 GiB with
            torch 2.1 depending on lazy loading; 1.78 GiB with torch 1.10) — stas00,
            ml-engineering, training/performance "Preloaded CUDA kernels memory usage".
        nccl_bytes: extra memory once torch.distributed/NCCL is initialised for a job of
            8 GPUs or more: 0.55 -> 2.00 GiB measured on 8 A100s (same source,
            "torch.distributed memory usage"). Smaller groups open fewer connections:
            :func:`nccl_memory`.
        vllm_non_torch_bytes: what vLLM's memory profile calls ``non_torch_memory``: memory
            outside PyTorch's allocator that grows while vLLM loads and profiles the model
            (cuBLAS workspaces, NCCL and custom all-reduce buffers). 0.2 GiB = the median
            its logs print: 0.35 (RTX 3090, 0.6.4, vllm#10517), 0.16 (H100, 0.7 dev,
            vllm#12126), 0.26 (80 GB card, 0.6.5, GPTQ Phi-4), 0.20 (24 GB cards with
            TP, 0.8, vllm#14447), 0.01 GiB (T4, 0.7.2). ``check-log`` replaces it with the
            figure your own log printed.
        allocator_reserve_fraction: memory PyTorch's caching allocator holds beyond what
            tensors use (fragmentation, rounding to blocks), as a fraction of tensor memory.
        mixed_style: how fp16/bf16 mixed precision keeps weights: ``amp`` (torch.autocast:
            fp32 parameters and gradients, 16-bit copies of the weights made in the forward
            pass; 4+2 + 4 + 8 = 18 bytes/param with AdamW, the Hugging Face accounting) or
            ``master`` (DeepSpeed/Megatron: 16-bit parameters and gradients, fp32 master
            weights kept with the optimizer; 2 + 2 + 12 = 16 bytes/param, the ZeRO paper's
            accounting). ``auto`` = ``amp`` without ZeRO, ``master`` with ZeRO 1-3.
        efficiency_train: achieved fraction of the GPU's dense peak for training matmuls
            (model FLOPs utilisation) where the step cannot be timed from kernel rates
            (models given by parameter count only, fp32; see ``insitu_factor`` for the
            rest). 0.40 sits inside published runs: Llama-2 7B implies ~45% on A100
            (184,320 GPU-hours for 2T tokens), Pythia 6.9B ~35%, MPT on A100 40-64%, on
            H100 40-46% (llm-foundry benchmarks).
        insitu_factor: share of the published kernel rates (best-shape matmul, FlashAttention,
            STREAM bandwidth) that a 16-bit training step's kernels keep in a real run:
            sustained clocks, communication overlapping compute, launch gaps and host work.
            0.73 = the median ratio of published throughput to the kernel-rate step model
            over 54 published runs (LLaMA, Llama 2, Pythia, llm-foundry, Megatron-LM/Core;
            interquartile range 0.66-0.80, benchmarks/accuracy.py prints each); see
            gpuadvisor.core.parallel.insitu.
        efficiency_fp8: achieved fraction of the fp8 peak with fp8 training (MPT-3B: 27.7%)
            for models given by parameter count (layered models: ``insitu_factor``).
        efficiency_infer_prefill: achieved fraction of peak during inference prefill.
        bandwidth_efficiency: achieved fraction of the memory bandwidth during decode.
        comm_overlap: fraction of gradient/parameter communication hidden behind compute.
        inter_node_gb_s: per-GPU network bandwidth (one direction) between nodes, used
            when a job spans more than ``gpus_per_node`` GPUs (200 Gb/s per GPU = 25 GB/s).
        gpus_per_node: GPUs sharing one node's fast interconnect.
        qlora_dequant_overhead: extra time factor for dequantizing 4/8-bit base weights in
            every matmul (bitsandbytes; QLoRA is commonly ~1.3x slower than 16-bit LoRA).
        opaque_checkpoint_keep: for models given by parameter count only, the fraction of
            activations kept with full checkpointing (no block structure to reason about).
        matmul_to_step: when a probe measured this GPU's matmul (``gpuadvisor probe``) and
            the plan's model has no layers to time kernel by kernel (a model given by
            parameter count, fp32, fp8), the fraction of the measured matmul throughput a
            whole training step achieves (attention, norms, activations, the optimizer and
            data loading are slower than a large matmul). 0.6 ~= the default
            efficiency_train (0.40) over a typical matmul efficiency (0.6-0.7 of peak).
            Layered 16-bit plans put the measured rate into their kernel model instead.
    """

    cuda_context_bytes: float = 0.90 * GiB
    nccl_bytes: float = 1.45 * GiB
    vllm_non_torch_bytes: float = 0.20 * GiB
    allocator_reserve_fraction: float = 0.05
    mixed_style: str = "auto"
    efficiency_train: float = 0.40
    insitu_factor: float = 0.73
    efficiency_fp8: float = 0.30
    efficiency_infer_prefill: float = 0.50
    bandwidth_efficiency: float = 0.80
    comm_overlap: float = 0.50
    inter_node_gb_s: float = 25.0
    gpus_per_node: int = 8
    qlora_dequant_overhead: float = 1.30
    opaque_checkpoint_keep: float = 0.30
    matmul_to_step: float = 0.60

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "mixed_style":
                if value not in ("auto", "amp", "master"):
                    raise ValueError("mixed_style must be auto, amp or master")
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"assumption {f.name} must be a non-negative number")
        for name in ("efficiency_train", "efficiency_fp8", "efficiency_infer_prefill",
                     "bandwidth_efficiency", "matmul_to_step", "insitu_factor"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"assumption {name} must be in (0, 1]")
        if self.comm_overlap > 1 or self.allocator_reserve_fraction > 1:
            raise ValueError("comm_overlap and allocator_reserve_fraction must be <= 1")
        if self.gpus_per_node < 1:
            raise ValueError("assumption gpus_per_node must be >= 1")
        # Finite and inside a physical range (NaN, inf and 1e300 refused, named as a plan
        # file and --assume write them).
        check_table({f.name: getattr(self, f.name) for f in fields(self)
                     if f.name != "mixed_style"}, ASSUMPTION_BOUNDS, prefix="assumptions.")

    def with_overrides(self, overrides: dict[str, object]) -> Assumptions:
        """A copy with some values replaced; unknown names raise ``ValueError``."""
        known = {f.name: f for f in fields(self)}
        clean = {}
        for name, value in overrides.items():
            if name not in known:
                raise ValueError(f"unknown assumption {name!r}; known: {', '.join(known)}")
            if name == "mixed_style":
                clean[name] = value
                continue
            if isinstance(value, bool):  # JSON's true is not the number 1
                raise ValueError(f"assumptions.{name}: {str(value).lower()} is not a number")
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"assumptions.{name}: not a number: {value!r}") from None
            if not math.isfinite(number):
                raise ValueError(f"assumptions.{name} must be a finite number, got {value!r}")
            if ASSUMPTION_BOUNDS[name].integer:
                if not number.is_integer():
                    raise ValueError(f"assumptions.{name} must be a whole number, got {value!r}")
                clean[name] = int(number)
            else:
                clean[name] = number
        return replace(self, **clean)


DEFAULT_ASSUMPTIONS = Assumptions()

#: NCCL's memory for groups smaller than 8 GPUs, measured after a first all-reduce on A100s
#: over NVLink, PyTorch's own memory excluded: 544 MB for a group of 2, 688 MB for 3 or 4
#: (NVIDIA/nccl issue 964). NCCL's buffers grow with its channels and connections ("the
#: memory usage is linearly tied to the number of channels", NVIDIA/nccl issue 986).
NCCL_SMALL_GROUP_BYTES = ((2, 544e6), (4, 688e6))


def nccl_memory(assumptions: Assumptions, n_gpus):
    """NCCL's memory per GPU in a job of ``n_gpus`` (arrays broadcast): none on one GPU,
    the measured small-group figures up to 4 (never above ``nccl_bytes``), ``nccl_bytes``
    from 5 on."""

    n = np.asarray(n_gpus)
    full = assumptions.nccl_bytes
    out = np.where(n > 4, full, 0.0)
    out = np.where((n > 2) & (n <= 4), min(full, NCCL_SMALL_GROUP_BYTES[1][1]), out)
    return np.where(n == 2, min(full, NCCL_SMALL_GROUP_BYTES[0][1]), out)
