"""A parallel layout: how a training job splits its model and its batch over GPUs.

The layout's degrees multiply to the GPU count: ``tp x pp x cp x dp = n_gpus``
(Megatron-LM's ordering: tensor parallel innermost, inside a node; then context, data and
pipeline parallel; Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
GPU Clusters Using Megatron-LM", §3). Expert parallelism reuses the data-parallel ranks (an
MoE layer's experts are split over ``ep`` of the ``dp x cp`` ranks; Megatron-Core MoE docs),
or, folded, the tensor-parallel ranks too (:func:`expert_tp`), so it does not change the
product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ZERO_STAGES = (0, 1, 2, 3)


@dataclass(frozen=True)
class Layout:
    """Degrees of parallelism and the batch shape of one optimizer step.

    Attributes:
        tp: tensor-parallel ranks (Megatron column/row split of every block's matmuls).
        pp: pipeline stages (consecutive blocks per stage).
        vpp: virtual stages per pipeline rank (interleaved 1F1B; 1 = plain 1F1B).
        cp: context-parallel ranks (the sequence split; ring attention).
        ep: expert-parallel ranks (MoE experts split over ``ep`` data-parallel ranks, or
            over data- and tensor-parallel ranks: :func:`expert_tp`).
        dp: data-parallel replicas (each sees different samples).
        zero: ZeRO stage over the data-parallel group: 0 = DDP, 1 = optimizer states
            sharded, 2 = + gradients, 3 = + parameters (= FSDP full shard).
        hybrid_shard: ZeRO/FSDP shards only inside a node and replicates across nodes
            (FSDP ``HYBRID_SHARD``; ZeRO++ hpZ).
        sequence_parallel: with ``tp > 1``, norms and dropout work on 1/tp of the sequence
            and all-reduces become reduce-scatter + all-gather (Korthikanti et al. 2022).
        micro_batch: sequences per micro-batch on one data-parallel replica.
        grad_accum: micro-batches per optimizer step on one replica (the pipeline's ``m``).
    """

    tp: int = 1
    pp: int = 1
    vpp: int = 1
    cp: int = 1
    ep: int = 1
    dp: int = 1
    zero: int = 0
    hybrid_shard: bool = False
    sequence_parallel: bool = True
    micro_batch: int = 1
    grad_accum: int = 1

    def __post_init__(self) -> None:
        for name in ("tp", "pp", "vpp", "cp", "ep", "dp", "micro_batch", "grad_accum"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"layout {name} must be a whole number >= 1, got {value!r}")
        if self.zero not in ZERO_STAGES:
            raise ValueError(f"layout zero must be one of 0, 1, 2, 3, got {self.zero!r}")
        if self.vpp > 1 and self.pp == 1:
            raise ValueError("layout vpp > 1 needs pp > 1 (virtual stages interleave a pipeline)")
        if (self.tp * self.dp * self.cp) % self.ep:
            raise ValueError(f"layout ep={self.ep} must divide tp x dp x cp = "
                             f"{self.tp * self.dp * self.cp}")

    @property
    def etp(self) -> int:
        """Tensor-parallel ranks each expert is split over (:func:`expert_tp`)."""
        return int(expert_tp(self.tp, self.dp, self.cp, self.ep))

    @property
    def n_gpus(self) -> int:
        """GPUs the layout occupies: ``tp x pp x cp x dp``."""
        return self.tp * self.pp * self.cp * self.dp

    @property
    def global_batch(self) -> int:
        """Sequences per optimizer step: ``micro_batch x grad_accum x dp``."""
        return self.micro_batch * self.grad_accum * self.dp

    def degrees(self) -> list[str]:
        """The degrees as words, ``["TP 2 (SP)", "PP 4 (VPP 2)", "DP 8"]``: every door that
        names the layout (the CLI, the Plan page) writes these."""
        parts = []
        if self.tp > 1:
            parts.append(f"TP {self.tp}" + (" (SP)" if self.sequence_parallel else ""))
        if self.pp > 1:
            parts.append(f"PP {self.pp}" + (f" (VPP {self.vpp})" if self.vpp > 1 else ""))
        if self.cp > 1:
            parts.append(f"CP {self.cp}")
        if self.ep > 1:
            parts.append(f"EP {self.ep}" + (" (ETP 1)" if self.tp > 1 and self.etp == 1
                                             else ""))
        parts.append(f"DP {self.dp}")
        return parts

    def describe(self) -> str:
        """Short text such as ``"TP 2 x PP 4 (VPP 2) x DP 8, ZeRO-1, micro-batch 1 x 16"``."""
        parts = self.degrees()
        zero = {0: "DDP", 1: "ZeRO-1", 2: "ZeRO-2", 3: "ZeRO-3/FSDP"}[self.zero]
        if self.dp == 1:
            zero = "no data parallel"
        elif self.hybrid_shard and self.zero >= 1:
            zero += " (hybrid: shard in node)"
        return (" x ".join(parts) + f", {zero}, micro-batch {self.micro_batch}"
                f" x {self.grad_accum} accumulation")

    def as_dict(self) -> dict:
        """Plain fields for JSON: tp, pp, vpp, cp, ep, dp, zero, micro_batch, grad_accum, ..."""
        return {"tp": self.tp, "pp": self.pp, "vpp": self.vpp, "cp": self.cp, "ep": self.ep,
                "dp": self.dp, "zero": self.zero, "hybrid_shard": self.hybrid_shard,
                "sequence_parallel": self.sequence_parallel,
                "micro_batch": self.micro_batch, "grad_accum": self.grad_accum}


def expert_tp(tp, dp, cp, ep):
    """Tensor-parallel ranks each expert is split over (arrays broadcast).

    Experts are split like the attention, over the ``tp`` ranks, with ``ep`` expert groups
    taken from the data- and context-parallel ranks, when ``ep`` divides ``dp x cp``.
    Otherwise the expert groups span the tensor-parallel ranks too and each expert stays
    whole (expert tensor parallel 1): Megatron-Core's MoE parallel folding (Liu et al. 2025,
    arXiv:2504.14960; ``--expert-tensor-parallel-size 1``), which needs ``ep`` to divide
    ``tp x dp x cp``.
    """
    tp = np.asarray(tp)
    folded = (np.asarray(dp) * np.asarray(cp)) % np.asarray(ep) != 0
    return np.where(folded, 1, tp)


def shard_group(layout: Layout, gpus_per_node: int) -> int:
    """Ranks a ZeRO/FSDP shard is split over.

    Plain sharding splits over the whole data-parallel group (``dp``). Hybrid sharding splits
    only over the data-parallel ranks inside one node: a node holds
    ``gpus_per_node / (tp x cp)`` of them when TP and CP stay inside the node (at least 1,
    at most ``dp``).
    """
    if not layout.hybrid_shard:
        return layout.dp
    inner = max(1, gpus_per_node // (layout.tp * layout.cp))
    return max(1, min(layout.dp, inner))


def bubble_fraction(pp: int, grad_accum: int, vpp: int = 1) -> float:
    """Idle fraction of a pipeline step relative to its useful work: ``(p-1) / (m v)``.

    1F1B with ``p`` stages and ``m`` micro-batches per step spends ``(p-1)`` micro-batch
    slots filling and draining; interleaving ``v`` virtual stages per rank makes each slot
    ``v`` times shorter (Narayanan et al. 2021, §2.2.1-2.2.2). ``0`` without a pipeline.
    """
    if pp <= 1:
        return 0.0
    return (pp - 1) / (grad_accum * vpp)


def layers_in_flight(n_layers: int, pp: int, grad_accum: int, vpp: int = 1) -> float:
    """Block activations (one micro-batch each) the busiest pipeline rank holds at once.

    Without a pipeline every block's activations of one micro-batch: ``L``. With 1F1B the
    first stage runs ``min(p, m)`` forwards before its first backward, each over its
    ``L / p`` blocks: ``L/p x min(p, m)``. Interleaving adds the warm-up of the extra
    virtual stages: ``x (1 + (p-1)/(p v))`` (Korthikanti et al. 2022, "Reducing Activation
    Recomputation in Large Transformer Models", §4.2.3).
    """
    if pp <= 1:
        return float(n_layers)
    held = n_layers / pp * min(pp, grad_accum)
    if vpp > 1:
        held *= 1.0 + (pp - 1) / (pp * vpp)
    return held
