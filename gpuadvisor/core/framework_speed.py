"""Fine-tuning frameworks' speed: what a framework's own kernels change in a training step's
time (:mod:`.frameworks` holds what each keeps in memory).

Unsloth's fused kernels move fewer bytes per token (:func:`fused_bytes_saved_per_token`)
and do a little more arithmetic (:func:`extra_flops_per_token`); its offloaded checkpoints
cross the host link each step (:func:`offload_bytes_per_step`). :func:`step_seconds`
puts these onto the compute time of a step.
"""

from __future__ import annotations

import numpy as np

from .frameworks import (
    DEFAULT_HOST_LINK_GB_S,
    LOSS_BYTES_PER_VOCAB,
    UNSLOTH_OFFLOAD_MIN_BYTES,
    routed_width,
    training_framework,
)
from .model import ModelLike, model_shape
from .plan import Plan


def fused_bytes_saved_per_token(model: ModelLike, plan: Plan) -> float:
    """Bytes per training token the unfused PyTorch ops move that Unsloth's kernels do not.

    Per block, counting reads + writes of 16-bit tensors (fp32 where HF upcasts):

    * RMSNorm, two per block: HF's ``LlamaRMSNorm`` runs ``to(fp32)``, ``pow``, ``mean``,
      ``x * rsqrt``, ``to(bf16)``, ``weight *``: 36 bytes per element forward, ~72 backward;
      a fused kernel reads 2 and writes 2 forward, moves 6 backward: 32 + 66 saved.
    * Rotary embedding on Q and K: ``q * cos + rotate_half(q) * sin`` is ~6 passes (24 bytes
      per element) against one in-place pass (4), forward and backward: 20 + 20 saved.
    * SwiGLU: ``silu(gate)`` then ``* up`` (10 bytes per f element) against one kernel (6):
      4 saved forward, 4 backward.
    * LoRA: PEFT scales ``lora_B``'s output, adds it to the base output and (4-bit) clones
      the result: 14 bytes per output element forward, 4 backward; Unsloth's ``addmm_``
      writes into the matmul's output: all saved.
    * Cross-entropy (once per token): the fp32 upcast, log-softmax and their backward move
      the bytes per vocabulary entry that Cut Cross-Entropy never writes
      (:data:`~.frameworks.LOSS_BYTES_PER_VOCAB`: 40 against 0).

    Forward passes count twice with full checkpointing (the recomputation).
    """
    m = model_shape(model)
    fw = training_framework(plan)
    if fw is None or not fw.fused_elementwise or not plan.is_adapter or m.kind != "decoder":
        return 0.0
    forwards = 2 if plan.checkpointing == "full" else 1
    total = 0.0
    for blk, count in m.blocks:
        h, f = blk.d_model, routed_width(blk)
        outputs = blk.q_dim + 2 * blk.kv_dim + h  # q, k, v, o outputs
        if plan.lora_targets == "qv":
            outputs = 2 * blk.q_dim if blk.q_dim == blk.kv_dim else blk.q_dim + blk.kv_dim
        if plan.lora_targets == "all":
            outputs += (blk.mlp_matrices - 1) * f + h
        per = (2 * h * (32 * forwards + 66) + (blk.q_dim + blk.kv_dim) * 20 * (forwards + 1)
               + (f * (4 * forwards + 4) if blk.gated_mlp else 0)
               + outputs * (14 * forwards + 4))
        total += count * per
    if fw.loss == "cce":
        total += (LOSS_BYTES_PER_VOCAB["upcast"] - LOSS_BYTES_PER_VOCAB["cce"]) * m.vocab_size
    return float(total)


def extra_flops_per_token(model: ModelLike, plan: Plan) -> float:
    """FLOPs per token a framework adds: Cut Cross-Entropy recomputes the logits in the
    backward pass (``2 h V``)."""
    m = model_shape(model)
    fw = training_framework(plan)
    if fw is None or fw.loss != "cce" or m.kind != "decoder":
        return 0.0
    return 2.0 * m.d_model * m.vocab_size


def offload_bytes_per_step(model: ModelLike, plan: Plan) -> float:
    """Bytes offloaded checkpoints move over the host link per optimizer step: each
    offloaded block input out in the forward pass and back in the backward pass,
    ``2 (L - 1) b s h x 2``."""
    m = model_shape(model)
    fw = training_framework(plan)
    if (fw is None or not fw.offload_checkpoints or plan.checkpointing != "full"
            or m.kind != "decoder"):
        return 0.0
    per_input = plan.micro_batch * plan.seq_len * m.d_model * 2.0
    if per_input <= UNSLOTH_OFFLOAD_MIN_BYTES:
        return 0.0
    return 2.0 * max(m.n_layers - 1, 0) * per_input * plan.grad_accum


def step_seconds(model: ModelLike, plan: Plan, compute_s, achieved_flops, *,
                 bandwidth_gb_s=None, host_link_gb_s=None, bandwidth_efficiency: float = 0.8):
    """A training step's compute time under the plan's framework.

    ``compute_s`` is the Hugging Face step (matmul FLOPs over the achieved rate); the
    framework removes :func:`fused_bytes_saved_per_token` at the GPU's achieved bandwidth
    (``bandwidth_gb_s x bandwidth_efficiency``), adds :func:`extra_flops_per_token` at
    ``achieved_flops`` (FLOP/s) and the part of the :func:`offload_bytes_per_step` transfer
    (over ``host_link_gb_s``, PCIe 4.0 x16 when unknown) that outlasts the step's compute.
    The removed passes never take more than half the step. Without a bandwidth the step is
    left as it is (the frameworks differ by memory traffic, which needs one). Arrays
    broadcast.
    """
    fw = training_framework(plan)
    if fw is None or fw.id in ("auto", "hf", "axolotl") or bandwidth_gb_s is None:
        return compute_s
    m = model_shape(model)
    tokens = plan.micro_batch * plan.seq_len * plan.grad_accum
    achieved = np.asarray(achieved_flops, dtype=float)
    step = compute_s + tokens * extra_flops_per_token(m, plan) / achieved
    saved = tokens * fused_bytes_saved_per_token(m, plan) / (
        np.asarray(bandwidth_gb_s, dtype=float) * 1e9 * bandwidth_efficiency)
    step = np.maximum(step - saved, 0.5 * compute_s)
    moved = offload_bytes_per_step(m, plan)
    if moved:
        link = DEFAULT_HOST_LINK_GB_S if host_link_gb_s is None else host_link_gb_s
        transfer = moved / (np.asarray(link, dtype=float) * 1e9)
        step = step + np.maximum(0.0, transfer - step)
    return step


__all__ = ["DEFAULT_HOST_LINK_GB_S", "extra_flops_per_token", "fused_bytes_saved_per_token",
           "offload_bytes_per_step", "step_seconds"]
