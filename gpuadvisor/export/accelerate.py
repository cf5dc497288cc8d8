"""A Hugging Face accelerate config (YAML) for a plan: precision, GPUs, machines, ZeRO/FSDP.

Keys are those of accelerate's ``ClusterConfig`` (``src/accelerate/commands/config/
config_args.py``; accelerate refuses unknown top-level keys) and of the questions ``accelerate
config`` asks (``commands/config/cluster.py``), https://huggingface.co/docs/accelerate:

* ``distributed_type``: ``NO`` (one GPU), ``MULTI_GPU`` (DDP), ``DEEPSPEED`` or ``FSDP``.
* ``mixed_precision``: ``no``, ``fp16``, ``bf16`` or ``fp8``.
* ``num_processes`` is the total over all machines, ``num_machines`` the machines.
* ``deepspeed_config``: ``zero_stage``, ``offload_optimizer_device``,
  ``offload_param_device``, ``gradient_accumulation_steps``, ``gradient_clipping``,
  ``zero3_init_flag``, ``zero3_save_16bit_model``, ``deepspeed_multinode_launcher``.
* ``fsdp_config`` for FSDP2 (``fsdp_version: 2``, ``torch.distributed.fsdp.fully_shard``;
  accelerate 1.10 and newer, read from accelerate 1.16's ``commands/config/cluster.py``):
  ``fsdp_reshard_after_forward`` (true = ZeRO-3 / FULL_SHARD, false = ZeRO-2 /
  SHARD_GRAD_OP), ``fsdp_offload_params`` (parameters, gradients and optimizer states
  together), ``fsdp_auto_wrap_policy``, ``fsdp_state_dict_type``,
  ``fsdp_cpu_ram_efficient_loading``, ``fsdp_activation_checkpointing``.
* ``parallelism_config`` (FSDP2 only): ``parallelism_config_dp_replicate_size``,
  ``_dp_shard_size``, ``_tp_size``, ``_cp_size`` — hybrid sharding (replicas of shards) and
  tensor / context parallelism, whose product is the GPU count.
"""

from __future__ import annotations

from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan

from .deepspeed import DEFAULT_GRADIENT_CLIPPING, check_deepspeed, check_training, describe
from .launch import ACCELERATE_FILE, MASTER_PORT, SCRIPT_NOTE, NodeLayout
from .yamltext import dump

BACKENDS = ("deepspeed", "fsdp")
MIXED_PRECISION = {"fp32": "no", "fp16": "fp16", "bf16": "bf16", "bf16-pure": "no",
                   "fp8": "fp8"}


def distributed_type(plan: Plan, backend: str = "deepspeed") -> str:
    """accelerate's ``distributed_type`` for the plan."""
    if plan.zero_stage > 0:
        return "DEEPSPEED" if backend == "deepspeed" else "FSDP"
    return "MULTI_GPU" if plan.n_gpus > 1 else "NO"


def check_fsdp(plan: Plan) -> None:
    """Refuse plans FSDP cannot express.

    Raises:
        ValueError: ZeRO-1 (FSDP shards gradients with the optimizer states or not at
            all) or optimizer-only offload (FSDP offloads parameters, gradients and
            optimizer states together).
    """
    if plan.zero_stage == 1:
        raise ValueError("zero: FSDP has no ZeRO-1 (optimizer-states-only) mode; use "
                         "--backend deepspeed, or ZeRO-2 (SHARD_GRAD_OP) / ZeRO-3 (FULL_SHARD)")
    if plan.offload == "optimizer":
        raise ValueError("offload: FSDP cannot offload only the optimizer states; use "
                         "--backend deepspeed, or offload params with ZeRO-3")


def accelerate_config(plan: Plan, layout: NodeLayout | None = None, *,
                      backend: str = "deepspeed", gpu: GpuSpec | None = None,
                      gradient_clipping: float = DEFAULT_GRADIENT_CLIPPING,
                      hybrid_group: int | None = None) -> dict:
    """The accelerate config for ``plan`` as a dict (see the module docstring).

    Args:
        plan: a training plan.
        layout: machines and GPUs per machine (default: all of ``plan.n_gpus`` on one).
        backend: ``deepspeed`` or ``fsdp``, for a plan with a ZeRO stage.
        gpu: the GPU, to refuse fp8 on a card without fp8 units.
        gradient_clipping: written into the DeepSpeed section (FSDP and DDP clip in the
            script: ``accelerator.clip_grad_norm_``).

    Raises:
        ValueError: an inference plan, an unknown backend, a combination DeepSpeed or FSDP
            cannot run (:func:`~.deepspeed.check_deepspeed`, :func:`check_fsdp`), fp8 on a
            GPU without fp8, or a layout that disagrees with the plan.
    """
    check_training(plan, "an accelerate config")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    layout = layout or NodeLayout(1, plan.n_gpus)
    if layout.n_gpus != plan.n_gpus:
        raise ValueError(f"gpus: the layout has {layout.n_gpus} GPUs, the plan {plan.n_gpus}")
    if plan.precision == "fp8" and gpu is not None and gpu.fp8_tensor_tflops is None:
        raise ValueError(f"precision: {gpu.name} has no fp8 units; fp8 training needs an "
                         "Ada, Hopper or newer GPU (use bf16)")
    kind = distributed_type(plan, backend)
    config: dict = {
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": kind,
        "mixed_precision": MIXED_PRECISION[plan.precision],
        "num_machines": layout.nodes,
        "num_processes": plan.n_gpus,
        "machine_rank": 0,
        "main_training_function": "main",
        "use_cpu": False,
        "debug": False,
    }
    if kind in ("NO", "MULTI_GPU"):
        config["gpu_ids"] = "all"
    if layout.nodes > 1:
        config.update(main_process_port=MASTER_PORT, rdzv_backend="static", same_network=True)
    if kind == "DEEPSPEED":
        check_deepspeed(plan)
        ds: dict = {
            "zero_stage": plan.zero_stage,
            "offload_optimizer_device": "cpu" if plan.offload != "none" else "none",
            "offload_param_device": "cpu" if plan.offload == "params" else "none",
            "gradient_accumulation_steps": plan.grad_accum,
            "gradient_clipping": float(gradient_clipping),
            "zero3_init_flag": plan.zero_stage == 3,
        }
        if plan.zero_stage == 3:
            ds["zero3_save_16bit_model"] = True
        if layout.nodes > 1:
            ds["deepspeed_multinode_launcher"] = "standard"
        config["deepspeed_config"] = ds
    elif kind == "FSDP":
        check_fsdp(plan)
        # FSDP2 (fully_shard): ZeRO-3 reshards the parameters after the forward pass,
        # ZeRO-2 (SHARD_GRAD_OP) keeps them gathered until the backward pass.
        config["fsdp_config"] = {
            "fsdp_version": 2,
            "fsdp_reshard_after_forward": plan.zero_stage == 3,
            "fsdp_offload_params": plan.offload == "params",
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
            "fsdp_state_dict_type": "SHARDED_STATE_DICT",
            "fsdp_cpu_ram_efficient_loading": True,
            "fsdp_activation_checkpointing": plan.checkpointing == "full",
        }
        mesh = parallelism_sizes(plan, layout, hybrid_group)
        if mesh is not None:
            config["parallelism_config"] = {f"parallelism_config_{k}": v
                                            for k, v in mesh.items()}
    elif (plan.tp or 1) > 1 or (plan.cp or 1) > 1:
        # Tensor parallelism with replicated (unsharded) data parallel ranks: plain
        # multi-GPU with the N-D mesh (accelerate's ParallelismConfig accepts tp without
        # dp_shard outside FSDP; FSDP2 would refuse a mesh with nothing to shard).
        if (plan.cp or 1) > 1:
            raise ValueError("layout: accelerate runs context parallelism under FSDP2 only: "
                             "the plan needs ZeRO-2 or ZeRO-3 (--zero)")
        tp = plan.tp or 1
        config["parallelism_config"] = {
            "parallelism_config_dp_replicate_size": plan.n_gpus // tp,
            "parallelism_config_dp_shard_size": 1, "parallelism_config_tp_size": tp,
            "parallelism_config_cp_size": 1}
    return config


def parallelism_sizes(plan: Plan, layout: NodeLayout, hybrid_group: int | None = None
                      ) -> dict[str, int] | None:
    """accelerate's N-D parallelism sizes for an FSDP2 plan with tensor or context
    parallelism or hybrid sharding (``dp_replicate_size x dp_shard_size x tp_size x
    cp_size = GPUs``); None for plain sharding over every GPU (no ``parallelism_config``).

    ``hybrid_group``: GPUs a shard spans when the layout shards inside nodes only."""
    tp, cp = plan.tp or 1, plan.cp or 1
    if (plan.pp or 1) > 1 or (plan.ep or 1) > 1:
        raise ValueError("layout: accelerate's FSDP2 runs data, tensor and context "
                         "parallelism; pipeline and expert parallelism need Megatron-LM, "
                         "NeMo or torchtitan")
    dp = plan.n_gpus // (tp * cp)
    shard = dp if not hybrid_group else max(1, hybrid_group // (tp * cp))
    if tp == cp == 1 and shard == dp:
        return None
    if dp % shard or shard * (dp // shard) * tp * cp != layout.n_gpus:
        raise ValueError(f"layout: {plan.n_gpus} GPUs do not split as dp {dp} x tp {tp} x "
                         f"cp {cp} with shards of {shard}")
    return {"dp_replicate_size": dp // shard, "dp_shard_size": shard, "tp_size": tp,
            "cp_size": cp}


def accelerate_yaml(plan: Plan, layout: NodeLayout | None = None, *,
                    backend: str = "deepspeed", gpu: GpuSpec | None = None,
                    gradient_clipping: float = DEFAULT_GRADIENT_CLIPPING,
                    title: str = "", hybrid_group: int | None = None) -> str:
    """:func:`accelerate_config` as YAML, with comments on how to use it."""
    config = accelerate_config(plan, layout, backend=backend, gpu=gpu,
                               gradient_clipping=gradient_clipping,
                               hybrid_group=hybrid_group)
    header = [title or "accelerate config written by gpuadvisor",
              f"Plan: {describe(plan)}",
              f"Use: accelerate launch --config_file {ACCELERATE_FILE} train.py",
              SCRIPT_NOTE]
    if config["distributed_type"] != "DEEPSPEED" and plan.grad_accum > 1:
        header.append(f"Gradient accumulation ({plan.grad_accum} steps) is set in the script: "
                      f"Accelerator(gradient_accumulation_steps={plan.grad_accum}).")
    if plan.precision == "bf16-pure":
        header.append("Pure bf16: load the model in torch.bfloat16 in the script "
                      "(mixed_precision stays 'no').")
    return dump(config, header)


__all__ = ["BACKENDS", "accelerate_config", "accelerate_yaml", "check_fsdp",
           "distributed_type", "parallelism_sizes"]
