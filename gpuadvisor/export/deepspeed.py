"""A DeepSpeed ZeRO config (JSON) matching a plan's precision, ZeRO stage, offload and batch.

Field names follow DeepSpeed's configuration reference
(https://www.deepspeed.ai/docs/config-json/, ``docs/_pages/config-json.md`` in the DeepSpeed
repository): ``train_batch_size`` (= micro-batch x accumulation x GPUs, which DeepSpeed
checks), ``train_micro_batch_size_per_gpu``, ``gradient_accumulation_steps``,
``gradient_clipping``, ``zero_optimization.stage``, ``zero_optimization.offload_optimizer``
and ``offload_param`` (``device: cpu``, ``pin_memory``), and the ``bf16`` / ``fp16`` blocks
(``fp16.loss_scale: 0`` is dynamic loss scaling).

What the plan does not decide is left out, so the user's script keeps its own optimizer and
scheduler. With optimizer offload DeepSpeed refuses a plain torch optimizer unless told
otherwise: build ``deepspeed.ops.adam.DeepSpeedCPUAdam`` in the script (the Hugging Face
Trainer does this for you).
"""

from __future__ import annotations

import json

from gpuadvisor.core.plan import PRECISION_LABELS, Plan

#: Gradient clipping written when the caller gives none (max global L2 norm; 1.0 is the
#: Hugging Face Trainer's default ``max_grad_norm``).
DEFAULT_GRADIENT_CLIPPING = 1.0


#: What a user with optimizer offload must know (said in the launch and SkyPilot comments).
OFFLOAD_NOTE = ("Optimizer offload: DeepSpeed wants its CPU Adam; build "
                "deepspeed.ops.adam.DeepSpeedCPUAdam in the script (the Hugging Face Trainer "
                "does this for you).")


def check_training(plan: Plan, what: str) -> None:
    """Training configs are for training plans; ``ValueError`` naming ``what`` otherwise."""
    if not plan.is_training:
        raise ValueError(f"task: {what} is for training; an inference plan has no optimizer, "
                         "ZeRO stage or gradient accumulation to configure")


def check_deepspeed(plan: Plan) -> None:
    """Refuse plans DeepSpeed cannot run as planned, each with a one-line reason.

    Raises:
        ValueError: an inference plan, parameter offload below ZeRO-3, optimizer offload
            without ZeRO, pure bf16 (DeepSpeed's bf16 mode keeps fp32 master weights, so
            memory would not match the plan), or 8-bit AdamW with optimizer offload
            (bitsandbytes keeps its states on the GPU).
    """
    check_training(plan, "a DeepSpeed config")
    if plan.offload == "params" and plan.zero_stage != 3:
        raise ValueError("offload: parameter offload needs ZeRO stage 3 "
                         f"(the plan has stage {plan.zero_stage})")
    if plan.offload == "optimizer" and plan.zero_stage == 0:
        raise ValueError("offload: optimizer offload needs ZeRO stage 1, 2 or 3")
    if plan.precision == "bf16-pure":
        raise ValueError("precision: DeepSpeed's bf16 mode keeps fp32 master weights; "
                         "choose bf16 (mixed) for DeepSpeed, or train pure bf16 without it")
    if plan.optimizer == "adamw8bit" and plan.offload != "none":
        raise ValueError("optimizer: 8-bit AdamW (bitsandbytes) keeps its states on the GPU "
                         "and cannot be offloaded; use adamw with offload, or no offload")


def deepspeed_config(plan: Plan, *, gradient_clipping: float = DEFAULT_GRADIENT_CLIPPING,
                     hybrid_group: int | None = None) -> dict:
    """The DeepSpeed config for ``plan`` as a dict (see the module docstring for fields).

    fp8 plans get the ``bf16`` block: their weights and non-matmul math are bf16, and the
    fp8 matmuls come from the model's own kernels (Transformer Engine), not from DeepSpeed.
    ``hybrid_group``: a layout that shards inside nodes of that many GPUs and replicates
    across nodes is written as ZeRO++'s hierarchical partitioning
    (``zero_hpz_partition_size``, ZeRO-3).

    Raises:
        ValueError: see :func:`check_deepspeed`.
    """
    check_deepspeed(plan)
    zero: dict = {"stage": plan.zero_stage}
    if hybrid_group and plan.zero_stage == 3:
        zero["zero_hpz_partition_size"] = int(hybrid_group)
    if plan.offload in ("optimizer", "params"):
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if plan.offload == "params":
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    config: dict = {
        "train_batch_size": plan.global_batch,
        "train_micro_batch_size_per_gpu": plan.micro_batch,
        "gradient_accumulation_steps": plan.grad_accum,
        "gradient_clipping": float(gradient_clipping),
        "zero_optimization": zero,
    }
    if plan.precision in ("bf16", "fp8"):
        config["bf16"] = {"enabled": True}
    elif plan.precision == "fp16":
        config["fp16"] = {"enabled": True, "loss_scale": 0}
    return config


def deepspeed_json(plan: Plan, *, gradient_clipping: float = DEFAULT_GRADIENT_CLIPPING,
                   hybrid_group: int | None = None) -> str:
    """:func:`deepspeed_config` as indented JSON text (JSON has no comments: the plan it
    matches is described by the launch snippet and the report)."""
    return json.dumps(deepspeed_config(plan, gradient_clipping=gradient_clipping,
                                       hybrid_group=hybrid_group), indent=2) + "\n"


def describe(plan: Plan) -> str:
    """One line naming what a config was made for (used in comments)."""
    parts = [plan.task, PRECISION_LABELS[plan.precision], f"{plan.n_gpus} GPU(s)"]
    if plan.zero_stage:
        parts.append(f"ZeRO-{plan.zero_stage}")
    if plan.offload != "none":
        parts.append(f"offload {plan.offload}")
    parts.append(f"micro-batch {plan.micro_batch} x accum {plan.grad_accum}")
    return ", ".join(parts)


__all__ = ["DEFAULT_GRADIENT_CLIPPING", "OFFLOAD_NOTE", "check_deepspeed", "check_training",
           "deepspeed_config", "deepspeed_json", "describe"]
