"""Layout search: the fastest layout that fits, holding the global batch the user asked for.

Every candidate ``tp x pp x cp x dp = n_gpus`` (TP within a node and dividing the heads, the
query groups and the MLP; PP dividing the layers; CP for long sequences; EP for MoE), each
ZeRO stage (and hybrid sharding across nodes), each interleaving depth and each micro-batch
that divides the global batch is evaluated at once (NumPy arrays through
:func:`.step.step_parts` and :func:`layout_memory`). The fastest that fits wins; the two
next-fastest distinct layouts are the runners-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpuadvisor.core.assumptions import Assumptions, nccl_memory
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan

from .cluster import Cluster, layout_links
from .layout import Layout, expert_tp, layers_in_flight
from .shape import (
    activation_parts,
    optimizer_traffic,
    per_param_state_bytes,
    recompute_share,
    step_shape,
)
from .step import GpuRates, StepParts, StepShape, blocks_per_stage, local_params, step_parts

#: Largest micro-batch the search tries (sequences); beyond it memory, not speed, decides.
MAX_MICRO_BATCH = 64
#: Context-parallel degrees tried when the sequence is at least 8k tokens.
CP_DEGREES = (1, 2, 4, 8)
#: Virtual pipeline stages tried per pipeline rank (interleaved 1F1B), where a rank's
#: micro-batches come in whole groups of PP (Megatron-LM's schedules.py at d98e8a64: the
#: group, ``microbatch_group_size_per_vp_stage``, defaults to PP; a remainder of 1 to PP - 1
#: micro-batches raises). A virtual stage may hold a single block: Megatron-LM's
#: ``--num-layers-per-virtual-pipeline-stage`` counts the blocks in one (its README,
#: "interleaved pipelining schedule"; 1 included), so a rank of ``L / pp`` blocks takes up to
#: ``L / pp`` virtual stages.
VPP_DEGREES = (1, 2, 4)


@dataclass(frozen=True)
class Constraints:
    """Degrees the user pinned (``None`` = free for the search)."""

    tp: int | None = None
    pp: int | None = None
    vpp: int | None = None
    cp: int | None = None
    ep: int | None = None
    zero: int | None = None
    hybrid_shard: bool | None = None
    micro_batch: int | None = None


@dataclass(frozen=True)
class LayoutResult:
    """One evaluated layout: its step time by part, memory per GPU and whether it fits."""

    layout: Layout
    parts: StepParts
    memory_per_gpu_bytes: float
    memory: dict = field(default_factory=dict)
    fits: bool = True
    mfu: float = 0.0
    hfu: float = 0.0

    @property
    def step_seconds(self) -> float:
        return float(self.parts.step)


def _divisors(n: int, limit: int | None = None) -> list[int]:
    return [d for d in range(1, (limit or n) + 1) if n % d == 0]


def _candidates(shape: StepShape, n_gpus: int, global_batch: int, seq: int, cluster: Cluster,
                n_heads: int, kv_heads: int, constraints: Constraints, multi_node: bool):
    """Arrays of every candidate layout's degrees."""
    rows = []
    tps = [t for t in _divisors(n_gpus, min(n_gpus, cluster.gpus_per_node))
           if n_heads % t == 0 and kv_heads % t == 0 and shape.d_ff % t == 0]
    cps = [c for c in CP_DEGREES if seq >= 8192 * c // 2 and seq % (2 * c) == 0] or [1]
    for tp in tps if constraints.tp is None else [constraints.tp]:
        for cp in cps if constraints.cp is None else [constraints.cp]:
            rest = n_gpus // (tp * cp) if n_gpus % (tp * cp) == 0 else 0
            if not rest:
                continue
            # Stages may hold unequal block counts (Megatron: the busiest holds
            # ceil(L / p)); at least two blocks a stage.
            pps = [p for p in _divisors(rest) if 2 * p <= shape.n_layers or p == 1]
            for pp in pps if constraints.pp is None else [constraints.pp]:
                if rest % pp:
                    continue
                dp = rest // pp
                if global_batch % dp:
                    continue
                per_replica = global_batch // dp
                vpps = [v for v in VPP_DEGREES if pp > 1 and pp * v <= shape.n_layers]
                vpps = vpps or [1]
                if constraints.vpp is not None:
                    vpps = [constraints.vpp]
                eps = [1]
                if shape.n_experts > 1:
                    # folded over the tensor-parallel ranks too (layout.expert_tp)
                    eps = [e for e in _divisors(tp * dp * cp) if shape.n_experts % e == 0]
                if constraints.ep is not None:
                    eps = [constraints.ep]
                mbs = [b for b in _divisors(per_replica, MAX_MICRO_BATCH)]
                if constraints.micro_batch is not None:
                    mbs = [constraints.micro_batch] if per_replica % constraints.micro_batch \
                        == 0 else []
                zeros = [0, 1, 2, 3] if dp > 1 else [0]
                if constraints.zero is not None:
                    zeros = [constraints.zero]
                hybrids = [False, True] if multi_node and dp > 1 else [False]
                if constraints.hybrid_shard is not None:
                    hybrids = [constraints.hybrid_shard]
                for vpp in vpps:
                    for ep in eps:
                        for zero in zeros:
                            for hybrid in hybrids:
                                if hybrid and zero == 0:
                                    continue
                                for mb in mbs:
                                    if vpp > 1 and (per_replica // mb) % pp:
                                        # interleaved: Megatron-LM runs the micro-batches
                                        # in groups of PP (microbatch_group_size_per_vp_
                                        # stage) and refuses a remainder below PP
                                        continue
                                    rows.append((tp, pp, vpp, cp, ep, dp, zero, hybrid, mb,
                                                 per_replica // mb))
    if not rows:
        return None
    return np.array(rows, dtype=float).T


def layout_memory(model, plan: Plan, assumptions: Assumptions, shape: StepShape, *, tp, pp,
                  vpp, cp, ep, dp, zero, shard, micro_batch, grad_accum, sequence_parallel=True,
                  seq_len=None, kernels: str = "eager"):
    """Bytes per GPU (busiest rank) for layouts given as arrays; returns ``(total, terms)``.

    * weights, gradients, optimizer: the single-GPU bytes per parameter at the layout's
      ZeRO stage (:func:`.shape.per_param_state_bytes`) x the parameters on this rank
      (:func:`.step.local_params`), divided by the ZeRO group for the sharded states
      (stage 1: optimizer; 2: + gradients; 3: + weights; Rajbhandari et al. 2020, §5): the
      data- and context-parallel ranks (``shard x cp``; experts ``shard x cp / ep``).
    * activations: one micro-batch of ``s / cp`` tokens through all blocks
      (:func:`..memory.activation_bytes`; the SwiGLU fused with pipeline parallelism or
      ``kernels`` fused, as Megatron-Core runs it) x the blocks in flight on the first pipeline
      rank / L (:func:`.layout.layers_in_flight`), split by ``tp`` with sequence
      parallelism (Korthikanti et al. 2022: ``sbh (34/t + 5as/(ht))``), otherwise only the
      24 of 34 parts inside the tensor-parallel regions.
    * logits: the last stage's loss buffers over the vocabulary (as the plan's framework runs
      its loss under ``kernels``, :func:`..frameworks.loss_bytes`) split ``tp`` ways.
    * overhead: CUDA context, NCCL buffers, allocator reserve, the DDP gradient buckets
      (ZeRO-0) and ZeRO-3's gathered block and prefetch (two 16-bit blocks / tp).

    ``seq_len`` (an array, optional) replaces the plan's sequence length, for sweeps.
    """
    zero = np.asarray(zero)
    amp, master = (per_param_state_bytes(model, plan, assumptions, z) for z in (0, 1))
    per = {k: np.where(zero >= 1, master[k], amp[k]) for k in amp}
    etp = expert_tp(tp, dp, cp, ep).astype(float)
    params_here = local_params(shape, tp, pp, ep, etp)
    # Context-parallel ranks hold the same parameters (they split the sequence), so ZeRO
    # shards over the data- and context-parallel ranks together: Megatron-Core's
    # distributed optimizer uses the data-parallel group "with context parallel", FSDP2
    # meshes (torchtitan, accelerate) shard over dp_shard x cp. Experts are replicated
    # over dp x cp / ep ranks only.
    experts_here = (blocks_per_stage(shape.n_layers, pp) * shape.expert_params
                    / (etp * np.asarray(ep, dtype=float)))
    replicas = np.asarray(shard, dtype=float) * np.asarray(cp, dtype=float)
    # an expert shard is held by dp x cp x (tp / etp) / ep ranks
    expert_replicas = np.maximum(
        1.0, replicas * np.asarray(tp, dtype=float) / etp / np.asarray(ep, dtype=float))

    def sharded(bytes_per_param, stage):
        on = zero >= stage
        return bytes_per_param * ((params_here - experts_here) / np.where(on, replicas, 1.0)
                                  + experts_here / np.where(on, expert_replicas, 1.0))

    weights = sharded(per["weights"], 3)
    gradients = sharded(per["gradients"], 2)
    optimizer = sharded(per["optimizer"], 1)
    seq = (plan.seq_len if seq_len is None else np.asarray(seq_len, dtype=float)) \
        / np.asarray(cp, dtype=float)
    acts, logits = activation_parts(model, plan, assumptions, np.asarray(micro_batch), seq,
                                    kernels=kernels)
    if model_shape(model).block is not None and model_shape(model).block.gated_mlp:
        # Pipeline parallelism runs in Megatron-LM / NeMo (or torchtitan, compiled), whose
        # SwiGLU is fused; so does any layout with fused kernels.
        fused, _ = activation_parts(model, plan, assumptions, np.asarray(micro_batch), seq,
                                    fused_mlp=True)
        acts = np.where((np.asarray(pp) > 1) | (kernels == "fused"), fused, acts)
    flight = layers_in_flight(shape.n_layers, 1, 1) if np.ndim(pp) == 0 and pp == 1 else None
    if flight is None:
        pp_ = np.asarray(pp, dtype=float)
        m = np.asarray(grad_accum, dtype=float)
        v = np.asarray(vpp, dtype=float)
        flight = np.where(pp_ > 1, np.ceil(shape.n_layers / pp_) * np.minimum(pp_, m)
                          * np.where(v > 1, 1.0 + (pp_ - 1) / (pp_ * v), 1.0), shape.n_layers)
    tp_ = np.asarray(tp, dtype=float)
    split = np.where(np.asarray(sequence_parallel), tp_, 1.0 / (10 / 34 + 24 / 34 / tp_))
    activations = acts * flight / shape.n_layers / split
    logits = logits / tp_
    tensors = weights + gradients + optimizer + activations + logits
    gpus = tp_ * np.asarray(pp) * np.asarray(cp) * np.asarray(dp)
    context = assumptions.cuda_context_bytes + nccl_memory(assumptions, gpus)
    extra = np.where((zero == 0) & (np.asarray(dp) > 1), gradients, 0.0)
    block16 = 2.0 * (shape.block_params / tp_ + shape.expert_params / np.asarray(ep) / etp)
    extra = extra + np.where(zero >= 3, 2.0 * block16, 0.0)
    overhead = context + assumptions.allocator_reserve_fraction * tensors + extra
    terms = {"weights": weights, "gradients": gradients, "optimizer": optimizer,
             "activations": activations, "logits": logits, "kv_cache": 0.0 * weights,
             "overhead": overhead}
    return tensors + overhead, terms


def search_layouts(model, plan: Plan, *, n_gpus: int, global_batch: int, rates: GpuRates,
                   cluster: Cluster, capacity_bytes: float, assumptions: Assumptions,
                   constraints: Constraints = Constraints(), keep: int = 3,
                   mixed_master: bool = True, kernels: str = "fused",
                   time_seq: int | None = None) -> list[LayoutResult]:
    """The ``keep`` fastest layouts that fit, fastest first; when none fits, the ``keep``
    that need the least memory per GPU (so the verdict names the closest one).

    Memory is sized at the plan's sequence length; ``time_seq`` (default: the same) is the
    sequence length the steps are timed at (a data set padded per micro-batch).

    Returns an empty list when no layout divides the global batch over the GPUs.
    """
    shape = step_shape(model, plan)
    block = model_shape(model).block
    head_dim = block.q_dim // max(block.n_heads, 1)
    kv_heads = max(1, block.kv_dim // max(head_dim, 1))
    multi_node = n_gpus > cluster.gpus_per_node
    grid = _candidates(shape, n_gpus, global_batch, plan.seq_len, cluster, block.n_heads,
                       kv_heads, constraints, multi_node)
    if grid is None:
        return []
    tp, pp, vpp, cp, ep, dp, zero, hybrid, mb, ga = grid
    hybrid = hybrid.astype(bool)
    inner = np.maximum(1.0, np.floor(cluster.gpus_per_node / (tp * cp)))
    shard = np.where(hybrid, np.minimum(dp, inner), dp)
    links = layout_links(cluster, tp=tp, cp=cp, ep=ep, dp=dp, pp=pp, shard=shard)
    e = 4.0 if plan.precision == "fp32" else 2.0
    parts = step_parts(
        shape, seq=time_seq or plan.seq_len, micro_batch=mb, grad_accum=ga, tp=tp, pp=pp,
        vpp=vpp, cp=cp,
        ep=ep, dp=dp, zero=zero, shard=shard, hybrid=hybrid, sequence_parallel=True,
        rates=rates, links=links, activation_bytes=e,
        matmul_bytes=1.0 if plan.precision == "fp8" else e,
        flash=plan.attention == "flash", recompute=plan.checkpointing,
        recompute_share=recompute_share(shape, plan),
        optimizer_bytes_per_param=optimizer_traffic(plan, mixed_master),
        grad_bytes_per_param=4.0 if (plan.precision == "fp32" or plan.is_adapter) else 2.0,
        param_bytes_per_param=e, kernels=kernels)
    total, terms = layout_memory(model, plan, assumptions, shape, tp=tp, pp=pp, vpp=vpp, cp=cp,
                                 ep=ep, dp=dp, zero=zero, shard=shard, micro_batch=mb,
                                 grad_accum=ga, kernels=kernels)
    fits = total <= capacity_bytes
    step = np.asarray(parts.step, dtype=float)
    total = np.broadcast_to(total, step.shape)
    # Fitting layouts fastest first; when none fits, the one closest to fitting first.
    order = np.lexsort((step, ~fits)) if fits.any() else np.lexsort((step, total))
    results: list[LayoutResult] = []
    seen: set[tuple] = set()
    for i in order:
        layout = Layout(tp=int(tp[i]), pp=int(pp[i]), vpp=int(vpp[i]), cp=int(cp[i]),
                        ep=int(ep[i]), dp=int(dp[i]), zero=int(zero[i]),
                        hybrid_shard=bool(hybrid[i]), micro_batch=int(mb[i]),
                        grad_accum=int(ga[i]))
        key = (layout.tp, layout.pp, layout.cp, layout.ep, layout.zero, layout.hybrid_shard)
        if key in seen:
            continue
        seen.add(key)
        picked = StepParts(**{name: float(np.broadcast_to(getattr(parts, name), step.shape)[i])
                              for name in StepParts.__dataclass_fields__})
        peak_time = picked.step * rates.peak_flops
        results.append(LayoutResult(
            layout=layout, parts=picked, memory_per_gpu_bytes=float(total[i]),
            memory={k: float(np.broadcast_to(v, step.shape)[i]) for k, v in terms.items()},
            fits=bool(fits[i]), mfu=picked.flops_per_gpu / peak_time,
            hfu=picked.hardware_flops_per_gpu / peak_time))
        if len(results) >= keep:
            break
    return results


def layout_memory_along(model, plan: Plan, assumptions: Assumptions, layout: Layout,
                        gpus_per_node: int, *, micro_batch=None, seq_len=None,
                        kernels: str = "eager"):
    """Bytes per GPU of ``plan`` run in ``layout`` with the micro-batch and/or sequence length
    swept (arrays that broadcast; ``None`` keeps the layout's / the plan's): the Plan page's
    curves and fit map follow the layout the time was computed for.

    Returns ``(total, terms)`` as :func:`layout_memory`.
    """
    shape = step_shape(model, plan)
    inner = max(1, gpus_per_node // (layout.tp * layout.cp))
    shard = min(layout.dp, inner) if layout.hybrid_shard else layout.dp
    mb = layout.micro_batch if micro_batch is None else np.asarray(micro_batch, dtype=float)
    return layout_memory(model, plan, assumptions, shape, tp=layout.tp, pp=layout.pp,
                         vpp=layout.vpp, cp=layout.cp, ep=layout.ep, dp=layout.dp,
                         zero=layout.zero, shard=shard, micro_batch=mb,
                         grad_accum=layout.grad_accum,
                         sequence_parallel=layout.sequence_parallel, seq_len=seq_len,
                         kernels=kernels)
