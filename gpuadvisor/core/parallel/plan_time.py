"""Time of a training plan under the best (or the user's) parallel layout.

This ties the pieces together for one plan on one kind of GPU: the GPU's achievable rates
(:mod:`.rates`, or what a probe measured), the cluster it runs in (:mod:`.links`,
:mod:`.cluster`), the layout search (:mod:`.search`) and the whole job's time:
``steps = tokens / (global batch x sequence)``, ``time = steps x step``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan

from .cluster import Cluster
from .insitu import KERNEL_LAUNCH_S, gpu_rates  # noqa: F401 (re-exported)
from .links import LinkClass, default_network, intra_link, network
from .search import Constraints, LayoutResult, search_layouts
from .step import GpuRates

#: Share of wall-clock time a job spanning several nodes spends making progress: Llama 3's
#: pre-training "achieved higher than 90% effective training time" despite 466 interruptions
#: in 54 days on 16k H100s (Llama 3 paper, arXiv 2407.21783, §3.3.4). Restarts, checkpoint
#: writes and evaluation cost the rest. Applied to every multi-node job (the in-situ factor
#: of :mod:`.insitu` is measured with it in place).
MULTI_NODE_GOODPUT = 0.90
#: Layout modes: ``auto`` searches, ``manual`` evaluates the pinned degrees only.
LAYOUT_MODES = ("auto", "manual")
#: Elementwise kernels: ``eager`` PyTorch (Hugging Face and plain modules) or ``fused``
#: (Megatron/Transformer Engine, llm.c, torch.compile, Liger/Unsloth kernels).
KERNEL_MODES = ("eager", "fused")


@dataclass(frozen=True)
class LayoutRequest:
    """What the user asked of the layout.

    Attributes:
        mode: ``auto`` (search every free degree) or ``manual`` (only what is pinned,
            the rest 1 / DDP).
        constraints: pinned degrees (``None`` = free).
        global_batch: sequences per optimizer step (``None``: the plan's
            ``micro_batch x grad_accum x n_gpus``).
        gpus_per_node: GPUs per node (``None``: 8, or fewer when the job is smaller).
        network: network class name (``None``: the GPU class's usual one).
        kernels: ``eager`` or ``fused`` elementwise kernels (see :data:`KERNEL_MODES`).
        kernels_source: why those kernels (``given``, or the framework whose own they are).
    """

    mode: str = "auto"
    constraints: Constraints = field(default_factory=Constraints)
    global_batch: int | None = None
    gpus_per_node: int | None = None
    network: str | None = None
    kernels: str = "eager"
    kernels_source: str = "given"

    def __post_init__(self) -> None:
        if self.kernels not in KERNEL_MODES:
            raise ValueError(f"kernels: expected one of {', '.join(KERNEL_MODES)}, "
                             f"got {self.kernels!r}")
        if self.mode not in LAYOUT_MODES:
            raise ValueError(f"layout: expected one of {', '.join(LAYOUT_MODES)}, "
                             f"got {self.mode!r}")
        if self.global_batch is not None and self.global_batch < 1:
            raise ValueError(f"global_batch must be >= 1, got {self.global_batch}")
        if self.gpus_per_node is not None and not 1 <= self.gpus_per_node <= 72:
            raise ValueError(f"gpus_per_node must be 1..72, got {self.gpus_per_node}")
        if self.network is not None:
            network(self.network)  # raises with the known names


@dataclass(frozen=True)
class LayoutEstimate:
    """The chosen layout, its runners-up and the whole job's time.

    Attributes:
        chosen: the fastest layout that fits (or the fastest overall when none fits).
        alternatives: the runners-up, fastest first.
        fits: whether ``chosen`` fits the GPU's memory.
        global_batch: sequences per optimizer step.
        steps, seconds, gpu_hours: the job (``seconds = steps x step / goodput``: the
            wall clock, restarts included).
        tokens_per_s: the training throughput while it runs (global batch x sequence over
            the step), as published benchmark tables and MFU count it; the wall clock
            averages ``goodput`` x this.
        goodput: share of wall-clock time spent training (:data:`MULTI_NODE_GOODPUT` for
            jobs over several nodes, else 1).
        intra, net: the link classes used; gpus_per_node: node size.
        rates: the GPU's rates used (and ``rates_source``).
        kernels: the elementwise kernels timed (:data:`KERNEL_MODES`), and
            ``kernels_source`` why.
    """

    chosen: LayoutResult
    alternatives: tuple[LayoutResult, ...]
    fits: bool
    global_batch: int
    steps: float
    seconds: float
    gpu_hours: float
    tokens_per_s: float
    n_gpus: int
    intra: LinkClass
    net: LinkClass
    gpus_per_node: int
    rates: GpuRates
    rates_source: str
    goodput: float = 1.0
    kernels: str = "eager"
    kernels_source: str = "given"

    def to_json(self) -> dict:
        """``layout``, ``breakdown_seconds_per_step``, ``mfu``, ``hfu``, ``alternatives``,
        ``cluster`` for the CLI's ``time`` object."""
        return {
            "layout": self.chosen.layout.as_dict(),
            "layout_text": self.chosen.layout.describe(),
            "layout_fits": self.fits,
            "layout_memory_per_gpu_bytes": self.chosen.memory_per_gpu_bytes,
            "global_batch": self.global_batch,
            "goodput": self.goodput,
            "kernels": self.kernels,
            "breakdown_seconds_per_step": self.chosen.parts.as_dict(),
            "mfu": self.chosen.mfu,
            "hfu": self.chosen.hfu,
            "alternatives": [
                {"layout": alt.layout.as_dict(), "layout_text": alt.layout.describe(),
                 "step_seconds": alt.step_seconds, "fits": alt.fits,
                 "memory_per_gpu_bytes": alt.memory_per_gpu_bytes,
                 "seconds": alt.step_seconds * self.steps / self.goodput}
                for alt in self.alternatives],
            "cluster": {"gpus_per_node": self.gpus_per_node, "intra_node": self.intra.name,
                        "intra_busbw_gb_s": self.intra.busbw_gb_s, "network": self.net.name,
                        "network_busbw_gb_s": self.net.busbw_gb_s},
            "rates": {"matmul_fraction": self.rates.matmul_fraction,
                      "attention_fraction": self.rates.attention_fraction,
                      "bandwidth_gb_s": self.rates.bandwidth_b_s / 1e9,
                      "source": self.rates_source},
        }


def cluster_for(gpu: GpuSpec, n_gpus: int, gpus_per_node: int | None = None,
                network_name: str | None = None) -> tuple[Cluster, LinkClass, LinkClass, int]:
    """The cluster a job of ``n_gpus`` of ``gpu`` runs in: node size and link classes."""
    per_node = gpus_per_node or min(8, n_gpus)
    intra = intra_link(gpu.p2p_link, gpu.pcie_gen, gpu.name, segment=gpu.segment,
                       vendor=gpu.vendor)
    net = network(network_name) if network_name else default_network(gpu.p2p_link)
    net_busbw = net.busbw_gb_s / per_node if net.per_node else net.busbw_gb_s
    return (Cluster(per_node, intra.busbw_gb_s, intra.latency_s, net_busbw, net.latency_s,
                    intra.label, net.label, intra.wide_busbw_gb_s), intra, net, per_node)


def layout_estimate(model, plan: Plan, gpu: GpuSpec, assumptions: Assumptions, *,
                    dtype: str, tokens: float, request: LayoutRequest = LayoutRequest(),
                    matmul_tflops: float | None = None, bandwidth_gb_s: float | None = None,
                    mixed_master: bool = True,
                    anchor_seconds_per_token: float | None = None,
                    timed: Plan | None = None) -> LayoutEstimate | None:
    """The plan's time on ``plan.n_gpus`` of ``gpu`` with the best (or pinned) layout.

    ``anchor_seconds_per_token``: what one GPU's forward and backward work (compute and
    memory-bound kernels) costs per token of the plan, as the single-GPU estimate says (the card's
    achievable rate: assumed, or measured by a probe). When given, the GPU's rates are scaled
    so that the layout model's one-GPU work per token equals it
    (:func:`anchored_rates`): the layouts then add what several GPUs change (their split
    shapes, communication, the bubble) to the card's achievable rate rather than to
    best-case kernel rates.

    ``timed``: the plan as its steps are timed (:func:`..compute.time_plan`: sequences of
    its data set's padded length); memory per layout is sized with ``plan``.

    Returns ``None`` when no layout can hold the global batch (it does not divide over
    the data-parallel ranks of any layout).
    """
    timed = timed or plan
    n = plan.n_gpus
    global_batch = request.global_batch or plan.micro_batch * plan.grad_accum * n
    constraints = request.constraints
    if request.mode == "manual":
        c = constraints
        constraints = Constraints(
            tp=c.tp or 1, pp=c.pp or 1, vpp=c.vpp or 1, cp=c.cp or 1, ep=c.ep or 1,
            zero=plan.zero_stage if c.zero is None else c.zero,
            hybrid_shard=bool(c.hybrid_shard),
            micro_batch=c.micro_batch or plan.micro_batch)
    rates, source = gpu_rates(gpu, dtype, matmul_tflops=matmul_tflops,
                              bandwidth_gb_s=bandwidth_gb_s)
    if anchor_seconds_per_token:
        rates, scale = anchored_rates(model, timed, rates, anchor_seconds_per_token,
                                      mixed_master=mixed_master)
        source = (f"one GPU's rate as the single-GPU estimate gives it (kernel rates x "
                  f"{scale:.2f}); {source}")
    cluster, intra, net, per_node = cluster_for(gpu, n, request.gpus_per_node,
                                                request.network)
    found = search_layouts(model, plan, n_gpus=n, global_batch=global_batch, rates=rates,
                           cluster=cluster, capacity_bytes=float(gpu.usable_bytes),
                           assumptions=assumptions, constraints=constraints, keep=3,
                           mixed_master=mixed_master, kernels=request.kernels,
                           time_seq=timed.seq_len)
    if not found:
        return None
    chosen = found[0]
    per_step = global_batch * timed.seq_len
    steps = tokens / per_step
    # The in-situ factor is measured against runs timed with this goodput (see .insitu).
    goodput = MULTI_NODE_GOODPUT if n > per_node else 1.0
    seconds = steps * chosen.step_seconds / goodput
    return LayoutEstimate(
        chosen=chosen, alternatives=tuple(found[1:]), fits=chosen.fits,
        global_batch=global_batch, steps=steps, seconds=seconds,
        gpu_hours=seconds * n / 3600.0,
        tokens_per_s=per_step / chosen.step_seconds if chosen.step_seconds > 0 else math.inf,
        n_gpus=n,
        intra=intra, net=net, gpus_per_node=per_node, rates=rates, rates_source=source,
        goodput=goodput, kernels=request.kernels, kernels_source=request.kernels_source)


def anchored_rates(model, plan: Plan, rates: GpuRates, anchor_seconds_per_token: float, *,
                   mixed_master: bool = True) -> tuple[GpuRates, float]:
    """``rates`` scaled so that one GPU running ``plan`` alone (no parallelism) with eager
    kernels spends ``anchor_seconds_per_token`` per token on its forward and backward work
    (compute and memory-bound kernels; the optimizer step is per step, not per token, and
    stays as the layout shards it), and the scale.

    Every such term is inversely proportional to the matmul, attention and memory rates, so
    one factor ``k = model time / anchor`` applied to all three makes them agree exactly.
    The single-GPU estimate describes eager PyTorch (its framework terms aside), so the
    scale is taken with eager kernels whatever kernels the layout then runs: fused kernels
    keep their saved memory traffic.
    """
    from dataclasses import replace

    from .insitu import one_gpu_work_seconds

    tokens = plan.micro_batch * plan.seq_len * plan.grad_accum
    modelled = one_gpu_work_seconds(model, plan, rates, mixed_master=mixed_master,
                                    kernels="eager") / tokens
    scale = modelled / anchor_seconds_per_token
    return replace(rates, matmul_fraction=rates.matmul_fraction * scale,
                   attention_fraction=rates.attention_fraction * scale,
                   bandwidth_b_s=rates.bandwidth_b_s * scale), scale
