"""accelerate config YAML: parsed back with PyYAML and checked against the plan.

Allowed top-level keys: accelerate's ``ClusterConfig`` and ``BaseConfig`` fields
(``src/accelerate/commands/config/config_args.py``); accelerate refuses any other key.
"""

from __future__ import annotations

import pytest
import yaml

from gpuadvisor.core.plan import Plan
from gpuadvisor.export import accelerate_config, accelerate_yaml, node_layout

CLUSTER_CONFIG_KEYS = {
    "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug",
    "num_processes", "machine_rank", "num_machines", "gpu_ids", "main_process_ip",
    "main_process_port", "rdzv_backend", "same_network", "main_training_function",
    "enable_cpu_affinity", "fp8_config", "deepspeed_config", "fsdp_config", "tp_config",
    "megatron_lm_config", "ipex_config", "mpirun_config", "downcast_bf16", "tpu_name",
    "tpu_zone", "tpu_use_cluster", "tpu_use_sudo", "command_file", "commands", "tpu_vm",
    "tpu_env", "dynamo_config",
}


def parsed(plan: Plan, **kwargs) -> dict:
    return yaml.safe_load(accelerate_yaml(plan, **kwargs))


def test_bf16_on_four_gpus_is_multi_gpu_with_four_processes():
    config = parsed(Plan(precision="bf16", n_gpus=4))
    assert config["compute_environment"] == "LOCAL_MACHINE"
    assert config["distributed_type"] == "MULTI_GPU"
    assert config["mixed_precision"] == "bf16"
    assert config["num_processes"] == 4
    assert config["num_machines"] == 1
    assert "deepspeed_config" not in config and "fsdp_config" not in config


def test_fp32_on_one_gpu_is_a_plain_config_whose_no_stays_a_string():
    config = parsed(Plan(precision="fp32"))
    assert config["distributed_type"] == "NO"
    # YAML 1.1 reads a bare no as False: the writer must quote it.
    assert config["mixed_precision"] == "no"
    assert config["num_processes"] == 1


@pytest.mark.parametrize(("precision", "expected"), [
    ("fp16", "fp16"), ("bf16", "bf16"), ("fp32", "no"), ("bf16-pure", "no")])
def test_mixed_precision_follows_the_plan(precision, expected):
    assert parsed(Plan(precision=precision, n_gpus=2))["mixed_precision"] == expected


def test_zero2_with_optimizer_offload_fills_the_deepspeed_section():
    plan = Plan(precision="bf16", n_gpus=4, zero_stage=2, offload="optimizer", grad_accum=8)
    config = parsed(plan)
    assert config["distributed_type"] == "DEEPSPEED"
    assert config["deepspeed_config"] == {
        "zero_stage": 2, "offload_optimizer_device": "cpu", "offload_param_device": "none",
        "gradient_accumulation_steps": 8, "gradient_clipping": 1.0, "zero3_init_flag": False}


def test_zero3_parameter_offload_on_two_nodes_uses_the_standard_multinode_launcher():
    plan = Plan(precision="bf16", n_gpus=16, zero_stage=3, offload="params")
    config = parsed(plan, layout=node_layout(16, 8))
    assert (config["num_machines"], config["num_processes"]) == (2, 16)
    ds = config["deepspeed_config"]
    assert ds["offload_param_device"] == ds["offload_optimizer_device"] == "cpu"
    assert ds["zero3_init_flag"] is True and ds["zero3_save_16bit_model"] is True
    assert ds["deepspeed_multinode_launcher"] == "standard"
    assert config["rdzv_backend"] == "static"


def test_fsdp_backend_is_fsdp2_resharding_for_zero3_and_not_for_zero2():
    # FSDP2 (accelerate >= 1.10): reshard_after_forward true is FULL_SHARD (ZeRO-3), false
    # SHARD_GRAD_OP (ZeRO-2); FSDP1's sharding_strategy key is not written.
    full = parsed(Plan(n_gpus=8, zero_stage=3, offload="params"), backend="fsdp")
    assert full["distributed_type"] == "FSDP"
    assert full["fsdp_config"]["fsdp_version"] == 2
    assert full["fsdp_config"]["fsdp_reshard_after_forward"] is True
    assert "fsdp_sharding_strategy" not in full["fsdp_config"]
    assert full["fsdp_config"]["fsdp_offload_params"] is True
    grad_op = parsed(Plan(n_gpus=8, zero_stage=2), backend="fsdp")
    assert grad_op["fsdp_config"]["fsdp_reshard_after_forward"] is False
    assert grad_op["fsdp_config"]["fsdp_offload_params"] is False
    assert "parallelism_config" not in grad_op  # plain sharding over every GPU


def test_fsdp2_writes_the_n_d_mesh_of_a_tensor_parallel_or_hybrid_layout():
    from gpuadvisor.export.launch import NodeLayout

    tp = parsed(Plan(n_gpus=8, zero_stage=3, tp=4), backend="fsdp")
    assert tp["parallelism_config"] == {
        "parallelism_config_dp_replicate_size": 1, "parallelism_config_dp_shard_size": 2,
        "parallelism_config_tp_size": 4, "parallelism_config_cp_size": 1}
    hybrid = accelerate_config(Plan(n_gpus=16, zero_stage=3), NodeLayout(2, 8),
                               backend="fsdp", hybrid_group=8)
    mesh = hybrid["parallelism_config"]
    assert (mesh["parallelism_config_dp_replicate_size"],
            mesh["parallelism_config_dp_shard_size"]) == (2, 8)
    with pytest.raises(ValueError, match="pipeline"):
        accelerate_config(Plan(n_gpus=8, zero_stage=3, pp=2), backend="fsdp")


@pytest.mark.parametrize("plan", [Plan(n_gpus=4, zero_stage=1),
                                  Plan(n_gpus=4, zero_stage=2, offload="optimizer")])
def test_fsdp_refuses_what_it_cannot_shard_or_offload(plan):
    with pytest.raises(ValueError, match="FSDP"):
        accelerate_config(plan, backend="fsdp")


@pytest.mark.parametrize(("plan", "backend"), [
    (Plan(precision="fp32"), "deepspeed"), (Plan(n_gpus=4), "deepspeed"),
    (Plan(n_gpus=8, zero_stage=3, offload="params"), "deepspeed"),
    (Plan(n_gpus=8, zero_stage=3, offload="params"), "fsdp"),
    (Plan(n_gpus=16, zero_stage=2, offload="optimizer"), "deepspeed")])
def test_only_keys_accelerate_knows_are_written(plan, backend):
    config = parsed(plan, layout=node_layout(plan.n_gpus, 8), backend=backend)
    assert set(config) <= CLUSTER_CONFIG_KEYS


def test_fp8_is_refused_on_a_gpu_without_fp8_and_kept_on_one_with_it(gpus):
    plan = Plan(precision="fp8", n_gpus=8)
    with pytest.raises(ValueError, match=r"^precision: .*no fp8"):
        accelerate_config(plan, gpu=gpus["a100-sxm-80gb"])
    assert accelerate_config(plan, gpu=gpus["h100-sxm"])["mixed_precision"] == "fp8"


def test_inference_plans_and_layouts_that_disagree_are_refused():
    with pytest.raises(ValueError, match=r"^task:"):
        accelerate_config(Plan(task="infer"))
    with pytest.raises(ValueError, match=r"^gpus:"):
        accelerate_config(Plan(n_gpus=4), node_layout(8, 8))


def test_gradient_accumulation_outside_deepspeed_is_explained_in_a_comment():
    text = accelerate_yaml(Plan(n_gpus=2, grad_accum=4))
    assert "# Gradient accumulation (4 steps)" in text
    assert "Accelerator(gradient_accumulation_steps=4)" in text
