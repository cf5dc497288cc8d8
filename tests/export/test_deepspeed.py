"""DeepSpeed ZeRO JSON: parsed back and checked field by field against the plan.

Field names: DeepSpeed's configuration reference, https://www.deepspeed.ai/docs/config-json/.
"""

from __future__ import annotations

import json

import pytest

from gpuadvisor.core.plan import Plan
from gpuadvisor.export import deepspeed_config, deepspeed_json


def test_zero2_bf16_four_gpus_with_optimizer_offload_gives_exactly_these_fields():
    plan = Plan(task="full", precision="bf16", n_gpus=4, zero_stage=2, offload="optimizer",
                micro_batch=2, grad_accum=8)
    assert json.loads(deepspeed_json(plan)) == {
        # DeepSpeed checks train_batch_size == micro-batch x accumulation x world size: 2*8*4.
        "train_batch_size": 64,
        "train_micro_batch_size_per_gpu": 2,
        "gradient_accumulation_steps": 8,
        "gradient_clipping": 1.0,
        "zero_optimization": {
            "stage": 2,
            "offload_optimizer": {"device": "cpu", "pin_memory": True},
        },
        "bf16": {"enabled": True},
    }


def test_zero3_with_parameter_offload_offloads_parameters_and_optimizer_states():
    plan = Plan(precision="bf16", n_gpus=8, zero_stage=3, offload="params")
    zero = deepspeed_config(plan)["zero_optimization"]
    assert zero["stage"] == 3
    assert zero["offload_param"] == {"device": "cpu", "pin_memory": True}
    assert zero["offload_optimizer"] == {"device": "cpu", "pin_memory": True}


def test_fp16_gets_dynamic_loss_scaling_and_no_bf16_block():
    config = deepspeed_config(Plan(precision="fp16", n_gpus=2, zero_stage=1))
    assert config["fp16"] == {"enabled": True, "loss_scale": 0}
    assert "bf16" not in config


def test_fp32_single_gpu_without_zero_is_a_plain_config():
    config = deepspeed_config(Plan(precision="fp32", micro_batch=4, grad_accum=2))
    assert config == {"train_batch_size": 8, "train_micro_batch_size_per_gpu": 4,
                      "gradient_accumulation_steps": 2, "gradient_clipping": 1.0,
                      "zero_optimization": {"stage": 0}}


def test_fp8_plans_train_with_the_bf16_block():
    assert deepspeed_config(Plan(precision="fp8", n_gpus=8, zero_stage=2))["bf16"] == {
        "enabled": True}


def test_gradient_clipping_is_written_as_given():
    assert deepspeed_config(Plan(), gradient_clipping=0.5)["gradient_clipping"] == 0.5


@pytest.mark.parametrize(("plan", "field"), [
    (Plan(task="infer"), "task"),
    (Plan(precision="bf16-pure", n_gpus=2, zero_stage=2), "precision"),
    (Plan(optimizer="adamw8bit", n_gpus=2, zero_stage=2, offload="optimizer"), "optimizer"),
])
def test_combinations_deepspeed_cannot_run_as_planned_are_refused_naming_the_field(plan, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        deepspeed_json(plan)


def test_parameter_offload_below_zero3_is_refused_by_the_plan_and_by_the_export():
    with pytest.raises(ValueError, match="zero_stage 3"):
        Plan(n_gpus=2, zero_stage=2, offload="params")
    # A plan that slipped past validation (e.g. built by hand) is still refused.
    plan = Plan(n_gpus=2, zero_stage=3, offload="params")
    object.__setattr__(plan, "zero_stage", 2)
    with pytest.raises(ValueError, match=r"^offload: parameter offload needs ZeRO stage 3"):
        deepspeed_config(plan)
