"""From a model and a plan to the numbers the step model and the layout memory need."""

from __future__ import annotations

from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.frameworks import loss_bytes, plan_loss
from gpuadvisor.core.memory import (
    QUANT_BYTES,
    activation_bytes,
    gradient_bytes,
    logits_bytes,
    optimizer_bytes,
    trainable_params,
    weight_bytes,
)
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan

from .step import StepShape, optimizer_traffic_bytes


def step_shape(model, plan: Plan, shape=None) -> StepShape:
    """The :class:`StepShape` of a decoder or encoder for a training plan.

    ``model`` is the spec (its position encoding and norm are read from it); ``shape`` its
    already derived :class:`~gpuadvisor.core.architecture.ModelShape`, when the caller has it.

    Raises:
        ValueError: for models given by parameter count only (no block to split).
    """
    m = shape if shape is not None else model_shape(model)
    if m.block is None:
        raise ValueError("a model given by parameter count only has no layers to split")
    block = m.block
    moe = block.experts > 1
    expert = block.experts * block.expert_weights if moe else 0
    top_k = block.experts_per_token
    if len(m.blocks) > 1 or block.shared_d_ff:
        block, expert, top_k = _mixed_stack(m)
    outside = m.params.embedding + m.params.lm_head
    per_block = (m.params.total - outside) / max(m.n_layers, 1) - expert
    adapter_mats = 0
    rank = 0
    if plan.is_adapter:
        rank = plan.effective_lora_rank
        adapter_mats = {"qv": 2, "attn": 4,
                        "all": 4 + block.mlp_matrices * top_k}[plan.lora_targets]
    quant = plan.effective_quant if plan.is_adapter else "none"
    frozen = QUANT_BYTES.get(quant, 0.0) if quant not in ("none", None) else 0.0
    position = getattr(model, "position", "rope")
    return StepShape(
        n_layers=m.n_layers, d_model=m.d_model, q_dim=block.q_dim, kv_dim=block.kv_dim,
        d_ff=block.d_ff, vocab=m.vocab_size, mlp_mats=block.mlp_matrices,
        n_experts=block.experts, top_k=top_k,
        causal=m.kind == "decoder", rope=position == "rope", dropout=m.dropout,
        head=m.head_matmul_params(plan.task) > 0, block_params=per_block,
        expert_params=expert, outside_params=outside,
        trainable_params=float(trainable_params(m, plan)), adapter_rank=rank,
        adapter_mats=adapter_mats, frozen_bytes_per_param=frozen,
        rmsnorm=getattr(model, "norm", "rmsnorm") == "rmsnorm", loss=plan_loss(plan))


def _mixed_stack(m):
    """Per-layer averages of a stack that mixes block kinds (or has shared experts).

    Returns ``(block, expert_params, top_k)``: the routed experts' block kind (the most
    common kind for a dense stack), the routed experts' parameters per layer on average,
    and the MLP work per token per layer in units of one routed expert (top-k, plus the
    shared expert and the dense layers' MLPs averaged over the layers), so the step
    model's MLP FLOPs equal the stack's.
    """
    moe_kinds = [(blk, count) for blk, count in m.blocks if blk.experts > 1]
    block = max(moe_kinds, key=lambda item: item[1])[0] if moe_kinds else m.block
    layers = max(m.n_layers, 1)
    expert = sum(count * blk.experts * blk.expert_weights for blk, count in moe_kinds) / layers
    active = sum(count * (blk.experts_per_token * blk.expert_weights + blk.shared_weights
                          if blk.experts > 1 else blk.expert_weights)
                 for blk, count in m.blocks) / layers
    return block, expert, active / max(block.expert_weights, 1)


def per_param_state_bytes(model, plan: Plan, assumptions: Assumptions,
                          zero: int = 0) -> dict[str, float]:
    """Bytes per parameter of weights, gradients and optimizer states on one unsharded GPU.

    Taken from :mod:`..memory` (so the layout's memory agrees with the single-GPU
    breakdown term by term) and divided by the parameter count. ``zero`` is the layout's
    ZeRO stage: it decides how 16-bit mixed precision keeps its fp32 copy
    (:func:`..memory.mixed_style`: torch.amp's fp32 weights without ZeRO, 16-bit weights
    and an fp32 master copy among the optimizer states with it).
    """
    single = plan.with_changes(n_gpus=1, zero_stage=min(int(zero), 1), offload="none")
    total = float(model_shape(model).params.total)
    return {
        "weights": float(weight_bytes(model, single, assumptions, 1)) / total,
        "gradients": float(gradient_bytes(model, single, assumptions, 1)) / total,
        "optimizer": float(optimizer_bytes(model, single, assumptions, 1)) / total,
    }


def activation_parts(model, plan: Plan, assumptions: Assumptions, micro_batch, seq, *,
                     fused_mlp: bool = False, kernels: str = "eager"):
    """Activations (all blocks, one micro-batch) and the loss buffers on one GPU, unsplit
    (``fused_mlp``: the SwiGLU fused, as Megatron-Core runs it; the loss as the plan's
    framework runs it in a step of ``kernels``, :func:`~..frameworks.loss_bytes`, the
    figure the single-GPU memory model uses)."""
    single = plan.with_changes(n_gpus=1, zero_stage=0)
    acts = activation_bytes(model, single, assumptions, b=micro_batch, s=seq,
                            fused_mlp=fused_mlp)
    logits = loss_bytes(model, single, micro_batch, seq,
                        logits_bytes(model, single, b=micro_batch, s=seq), kernels)
    return acts, logits


def recompute_share(shape, plan: Plan) -> float:
    """The share of the model's blocks recomputed under full checkpointing (1 = all; with
    ``Plan.recompute_layers``, those layers of the model's); ``shape`` is its
    :class:`~.step.StepShape`."""
    layers = shape.n_layers
    return plan.recomputed_layers(layers) / layers if layers else 1.0


def optimizer_traffic(plan: Plan, mixed_master: bool) -> float:
    """Bytes the optimizer update moves per trainable parameter for this plan."""
    grad = 4.0 if (plan.precision == "fp32" or plan.is_adapter) else 2.0
    return optimizer_traffic_bytes(plan.optimizer, mixed_master or plan.is_adapter, grad)
