"""A training step's efficiency from its own kernels: published kernel rates x an in-situ factor.

One constant efficiency for every plan (the former default, 40% of peak) cannot see what
changes a step's speed: the GEMM shapes (hidden size, tokens per micro-batch, LoRA's thin
rank), the share of memory-bound work (norms, activations, the loss over the vocabulary),
recomputation, and the GPU generation (an H100's matmul peak grew 3.2x over an A100's, its
memory bandwidth 1.6x). This module times one GPU's forward and backward work with the step
model of :mod:`.step` at the GPU's published kernel rates (:mod:`.rates`: the best-shape
matmul fraction, the FlashAttention fraction, STREAM bandwidth) and divides by the
**in-situ factor** ``k`` (``Assumptions.insitu_factor``): the share of those microbenchmark
rates that kernels keep inside a real training step.

Where ``k`` comes from, and why it is below 1 (sources in
``benchmarks/calibration/insitu.json``):

* sustained clocks under a whole node's power and heat (A100 HPL runs at 1305 of 1410 MHz;
  random inputs cost an 8192^3 GEMM 13% at 400 W: CLK004, CLK005);
* compute that overlaps communication runs 18.9% slower on average (INT001);
* launch gaps, synchronisation and host work between kernels that a kernel benchmark never
  sees; the same hardware moves 10-23% with compilation alone (STP006, STP007).

No published source isolates each share for a whole step, so ``k`` is measured as a whole:
it is the median, over 54 published runs (Meta's LLaMA and Llama 2, Pythia as configured,
MosaicML's llm-foundry tables, Megatron-LM 2021-22 and Megatron-Core 2024 at their own
layouts; ``benchmarks/accuracy.py`` prints every ratio), of published throughput over this
model's throughput at kernel rates: 0.73 (0.725), interquartile range 0.66-0.80. The spread is the
software stack of each run; a user who knows theirs passes ``--assume insitu_factor=...``,
and a probe's measured rate replaces the published matmul fraction (:func:`gpu_rates`).
"""

from __future__ import annotations

from dataclasses import replace

from gpuadvisor.core.gpu import GpuSpec, ecc_read_share
from gpuadvisor.core.plan import Plan

from .rates import comm_sm_share, fp8_matmul_fraction, kernel_fractions
from .shape import optimizer_traffic, recompute_share, step_shape
from .step import GpuRates, GroupLinks, step_parts

#: Precisions whose published kernel fractions exist: 16-bit matmuls, and fp8 linears with
#: Transformer Engine's casts (:func:`.step.fp8_cast_bytes_per_token`). fp32 (TF32 or not)
#: keeps the assumed efficiency.
KERNEL_PRECISIONS = ("fp16", "bf16", "bf16-pure", "fp8")
#: Host-side cost of one kernel launch in eager PyTorch: 2.4-2.6 us per back-to-back kernel
#: on A100 and H200 (RRZE-HPC gpu-benches, kernels.json ``launch_overhead``).
KERNEL_LAUNCH_S = 2.5e-6


def gpu_rates(gpu: GpuSpec, dtype: str, *, matmul_tflops: float | None = None,
              bandwidth_gb_s: float | None = None) -> tuple[GpuRates, str]:
    """Achievable rates of ``gpu`` at ``dtype``: published fractions, or measured figures.

    A measured matmul rate (``gpuadvisor probe``) replaces the published matmul fraction and
    scales the attention fraction with it; a measured copy bandwidth replaces the published
    memory fraction.
    """
    peak = float(gpu.peak_tflops(dtype) or gpu.peak_tflops("fp32")) * 1e12
    frac = kernel_fractions(gpu.id)
    matmul = frac.matmul
    attention = frac.attention
    source = frac.source
    head = None
    if dtype == "fp8":
        # Transformer Engine's recipe: the blocks' linears in fp8; attention and the output
        # layer stay 16-bit, so their fractions are of the 16-bit peak, expressed per fp8 peak.
        peak16 = float(gpu.peak_tflops("bf16") or gpu.peak_tflops("fp16") or 0.0) * 1e12
        ratio = peak16 / peak if peak16 else 1.0
        head = matmul * ratio
        attention = attention * ratio
        matmul = fp8_matmul_fraction(gpu.id)
        source = f"fp8 matmul {matmul:.3f} (mamf-fp8); " + source
    if matmul_tflops:
        measured = matmul_tflops * 1e12 / peak
        attention = attention * measured / matmul
        matmul = measured
        source = f"measured matmul {matmul_tflops:.0f} TFLOPS; " + source
    if bandwidth_gb_s:  # measured on the card as it runs, ECC and all
        bandwidth = bandwidth_gb_s * 1e9
    else:
        # the published copy fractions were measured with ECC off (an A40 copies at 0.95)
        ecc, ecc_source = ecc_read_share(gpu)
        bandwidth = gpu.memory_bandwidth_gb_s * 1e9 * frac.memory * ecc
        if ecc != 1.0:
            source = f"{source}; memory x {ecc:.3f}: {ecc_source}"
    return GpuRates(peak_flops=peak, matmul_fraction=matmul, attention_fraction=attention,
                    bandwidth_b_s=bandwidth, kernel_launch_s=KERNEL_LAUNCH_S,
                    comm_sm_share=comm_sm_share(gpu.id, gpu.p2p_link),
                    head_fraction=head), source


#: Recent :func:`one_gpu_work_seconds` answers: the estimate and the layout anchored to it
#: ask for the same plan at the same rates, and the app asks again for every redraw.
_WORK: dict[tuple, float] = {}
_WORK_KEPT = 512


def one_gpu_work_seconds(model, plan: Plan, rates: GpuRates, *, mixed_master: bool = True,
                         kernels: str = "eager", shape=None) -> float:
    """Seconds one GPU running ``plan`` alone spends per optimizer step on its forward and
    backward work (compute and memory-bound kernels, no communication, no optimizer) at
    ``rates``; launch overheads are left out (a block's work dwarfs them at these sizes).
    Recent answers are kept (specs, plans and rates are frozen)."""
    key = (model, plan, rates, mixed_master, kernels)
    try:
        found = _WORK.get(key)
    except TypeError:  # a spec with unhashable extras: computed each time
        return _one_gpu_work(model, plan, rates, mixed_master, kernels, shape)
    if found is None:
        if len(_WORK) >= _WORK_KEPT:
            _WORK.pop(next(iter(_WORK)))
        found = _WORK[key] = _one_gpu_work(model, plan, rates, mixed_master, kernels, shape)
    return found


def _one_gpu_work(model, plan: Plan, rates: GpuRates, mixed_master: bool, kernels: str,
                  shape) -> float:
    shape = step_shape(model, plan, shape)
    e = 4.0 if plan.precision == "fp32" else 2.0
    nowhere = GroupLinks(*(1.0, 0.0) * 5)
    one = step_parts(
        shape, seq=plan.seq_len, micro_batch=plan.micro_batch, grad_accum=plan.grad_accum,
        tp=1, pp=1, vpp=1, cp=1, ep=1, dp=1, zero=0, shard=1, hybrid=False,
        sequence_parallel=True, rates=replace(rates, kernel_launch_s=0.0), links=nowhere,
        activation_bytes=e, matmul_bytes=1.0 if plan.precision == "fp8" else e,
        flash=plan.attention == "flash", recompute=plan.checkpointing,
        recompute_share=recompute_share(shape, plan),
        optimizer_bytes_per_param=optimizer_traffic(plan, mixed_master), kernels=kernels)
    return float(one.compute + one.memory_bound)


def kernel_applies(model, plan: Plan, dtype: str) -> bool:
    """Whether a plan is timed from kernel rates: training a model with layers, with 16-bit
    or fp8 matmuls, and without an efficiency of its own."""
    return (plan.is_training and getattr(model, "kind", "decoder") != "opaque"
            and plan.efficiency is None and plan.precision in KERNEL_PRECISIONS
            and dtype in ("fp16", "bf16", "fp8"))


def kernel_efficiency(model, plan: Plan, gpu, dtype: str, *, train_flops_per_step: float,
                      insitu_factor: float, dequant_factor: float = 1.0,
                      shape=None, matmul_tflops: float | None = None) -> float:
    """The fraction of ``gpu``'s ``dtype`` peak that makes the flat time model
    (``train_flops_per_step / (peak x efficiency)``, times ``dequant_factor`` for QLoRA)
    equal one GPU's work at kernel rates over the in-situ factor.

    ``model`` is the spec; ``shape`` its derived shape when the caller holds it;
    ``matmul_tflops`` a probe's measured matmul rate (it replaces the published matmul
    fraction and scales attention with it, :func:`gpu_rates`).
    ``efficiency = flops x dequant / (peak x work / k)``: the flat model's FLOPs convention
    cancels, so every term of the kernel model (shapes, memory-bound bytes, recompute,
    dequantization) carries into the flat estimate, and a multi-GPU layout anchored to it
    (:func:`.plan_time.anchored_rates`) runs at exactly ``k`` x the kernel rates.
    """
    if not 0.0 < insitu_factor <= 1.0:
        raise ValueError(f"insitu_factor must be in (0, 1], got {insitu_factor}")
    rates, _ = gpu_rates(gpu, dtype, matmul_tflops=matmul_tflops)
    work = one_gpu_work_seconds(model, plan, rates, shape=shape)
    return train_flops_per_step * dequant_factor * insitu_factor / (rates.peak_flops * work)


def kernel_source(gpu, dtype: str, insitu_factor: float,
                  matmul_tflops: float | None = None) -> str:
    """Where the kernel-rate efficiency comes from, for ``assumptions``."""
    frac = kernel_fractions(gpu.id)
    if matmul_tflops:
        return (f"kernel rates of {gpu.id} at {dtype} with the measured matmul "
                f"({matmul_tflops:.4g} TFLOPS; memory {frac.memory:.2f} of peak: "
                f"{frac.source}) x in-situ factor {insitu_factor:.2f}")
    return (f"kernel rates of {gpu.id} at {dtype} (matmul {frac.matmul:.2f}, attention "
            f"{frac.attention:.2f}, memory {frac.memory:.2f} of peak: {frac.source}) x "
            f"in-situ factor {insitu_factor:.2f}")


def plan_kernel_seconds(model, shape, plan: Plan, gpu: GpuSpec, dtype: str, assumptions,
                        matmul_tflops: float | None = None
                        ) -> tuple[float | None, str | None]:
    """One GPU's training step of a 16-bit or fp8 plan of a layered model, timed from its
    kernels: ``work / k`` seconds (:func:`one_gpu_work_seconds` at ``gpu``'s kernel rates
    over the in-situ factor ``k``; ``shape`` is the model's derived ``ModelShape``;
    ``matmul_tflops``: a probe's measured matmul rate in place of the published fraction),
    and where the rates come from; ``(None, None)`` where the assumed efficiency applies.

    The estimate's step time is this figure; its efficiency (model FLOPs over peak) is
    derived from it for display, not the other way round."""
    if not kernel_applies(shape, plan, dtype):
        return None, None
    k = assumptions.insitu_factor
    if not 0.0 < k <= 1.0:
        return None, None
    try:
        rates, _ = gpu_rates(gpu, dtype, matmul_tflops=matmul_tflops)
        work = one_gpu_work_seconds(model, plan, rates, shape=shape)
    except ValueError:
        return None, None
    if not work > 0.0:
        return None, None
    return work / k, kernel_source(gpu, dtype, k, matmul_tflops=matmul_tflops)
