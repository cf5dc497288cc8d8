"""SkyPilot task YAML: parsed back with PyYAML and checked against the plan and the offer.

Accelerator names: ``sky show-gpus -a`` (https://docs.skypilot.co/en/stable/compute/gpus.html);
fields: https://docs.skypilot.co/en/latest/reference/yaml-spec.html.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

from gpuadvisor.core.plan import Plan
from gpuadvisor.export import (
    SKYPILOT_ACCELERATORS,
    accelerate_config,
    deepspeed_config,
    node_layout,
    skypilot_cloud,
    skypilot_task,
)

from .conftest import make_offer


def task(models, gpus, plan, offer=None, gpu="a100-sxm-80gb", **kwargs) -> dict:
    return yaml.safe_load(skypilot_task(models["llama-3.1-8b"], plan, gpus[gpu], offer,
                                        **kwargs))


def heredoc(setup: str, filename: str) -> str:
    """The text a ``cat > FILE <<'EOF'`` in the setup writes."""
    match = re.search(rf"cat > {re.escape(filename)} <<'EOF'\n(.*?)\nEOF\n", setup, re.S)
    assert match, setup
    return match.group(1)


def test_eight_a100_80gb_on_one_instance(models, gpus):
    config = task(models, gpus, Plan(n_gpus=8), make_offer())
    assert config["resources"]["accelerators"] == "A100-80GB:8"
    assert config["resources"]["infra"] == "aws"
    assert config["resources"]["use_spot"] is False
    assert "num_nodes" not in config
    assert config["workdir"] == "."
    assert config["run"].strip() == "torchrun --standalone --nproc_per_node 8 train.py"


def test_a_spot_offer_asks_for_spot_instances(models, gpus):
    config = task(models, gpus, Plan(n_gpus=8), make_offer(spot=True, price_usd=1.9))
    assert config["resources"]["use_spot"] is True


def test_sixteen_gpus_of_an_eight_gpu_instance_take_two_nodes(models, gpus):
    config = task(models, gpus, Plan(n_gpus=16), make_offer())
    assert config["num_nodes"] == 2
    assert config["resources"]["accelerators"] == "A100-80GB:8"
    run = config["run"]
    assert 'MASTER_ADDR=$(echo "$SKYPILOT_NODE_IPS" | head -n1)' in run
    assert "--nnodes 2 --nproc_per_node 8 --node_rank $SKYPILOT_NODE_RANK" in run


def test_a_gpu_count_that_does_not_fill_whole_instances_is_refused(models, gpus):
    with pytest.raises(ValueError, match=r"^gpus: 12 GPUs"):
        task(models, gpus, Plan(n_gpus=12), make_offer())


def test_a_single_gpu_rental_and_the_count_override(models, gpus):
    offer = make_offer(id="runpod-4090", kind="rent", gpu_id="rtx-4090", provider="RunPod",
                       gpus_per_instance=1, instance="1x RTX 4090", region=None)
    config = task(models, gpus, Plan(task="qlora"), offer, gpu="rtx-4090")
    assert config["resources"] == {"infra": "runpod", "accelerators": "RTX4090:1",
                                   "use_spot": False}
    assert "pip install torch accelerate peft bitsandbytes" in config["setup"]
    two = task(models, gpus, Plan(task="qlora"), offer, gpu="rtx-4090", n_gpus=2)
    assert two["num_nodes"] == 2 and two["resources"]["accelerators"] == "RTX4090:1"


def test_without_an_offer_cloud_and_spot_come_from_the_arguments(models, gpus):
    config = task(models, gpus, Plan(n_gpus=4), gpu="h100-sxm", cloud="gcp", spot=True)
    assert config["resources"] == {"infra": "gcp", "accelerators": "H100:4", "use_spot": True}


@pytest.mark.parametrize(("provider", "cloud"), [
    ("AWS", "aws"), ("Google Cloud", "gcp"), ("GCP", "gcp"), ("Microsoft Azure", "azure"),
    ("Lambda", "lambda"), ("Lambda Labs", "lambda"), ("RunPod (community cloud)", "runpod"),
    ("Vast.ai", "vast"), ("Nebius", "nebius"), ("CoreWeave", None), ("", None)])
def test_providers_map_to_skypilot_clouds(provider, cloud):
    assert skypilot_cloud(provider) == cloud


def test_a_provider_skypilot_does_not_know_leaves_the_cloud_open_and_says_so(models, gpus):
    text = skypilot_task(models["llama-3.1-8b"], Plan(n_gpus=8), gpus["h100-sxm"],
                         make_offer(gpu_id="h100-sxm", provider="CoreWeave"))
    assert "infra" not in yaml.safe_load(text)["resources"]
    assert "# CoreWeave is not a SkyPilot cloud" in text


def test_the_deepspeed_config_written_by_the_setup_is_the_plans(models, gpus):
    plan = Plan(n_gpus=16, zero_stage=3, offload="params", micro_batch=2, grad_accum=4)
    config = task(models, gpus, plan, make_offer())
    written = json.loads(heredoc(config["setup"], "ds_config.json"))
    assert written == deepspeed_config(plan)
    assert written["train_batch_size"] == 2 * 4 * 16
    assert config["run"].rstrip().endswith("train.py --deepspeed ds_config.json")
    assert "pip install torch deepspeed" in config["setup"]


def test_the_accelerate_launcher_writes_its_config_in_the_setup(models, gpus):
    plan = Plan(n_gpus=16, zero_stage=2, offload="optimizer")
    config = task(models, gpus, plan, make_offer(), launcher="accelerate")
    written = yaml.safe_load(heredoc(config["setup"], "accelerate.yaml"))
    assert written["num_processes"] == 16 and written["num_machines"] == 2
    assert written == accelerate_config(plan, node_layout(16, 8))
    assert "accelerate launch --config_file accelerate.yaml --machine_rank" in config["run"]


def test_offers_that_cannot_be_rented_for_this_gpu_are_refused(models, gpus):
    buy = make_offer(kind="buy-used", gpus_per_instance=1, instance=None)
    with pytest.raises(ValueError, match=r"^offer: .* buy"):
        task(models, gpus, Plan(), buy)
    with pytest.raises(ValueError, match=r"^offer: .* offers a100-sxm-80gb, not h100-sxm"):
        task(models, gpus, Plan(), make_offer(), gpu="h100-sxm")


def test_a_gpu_without_a_skypilot_name_is_refused_unless_named(models, gpus):
    with pytest.raises(ValueError, match=r"^gpu: no SkyPilot accelerator name"):
        task(models, gpus, Plan(precision="fp32"), gpu="m2-max")
    config = task(models, gpus, Plan(precision="fp32"), gpu="m2-max", accelerator="M2Max")
    assert config["resources"]["accelerators"] == "M2Max:1"


def test_every_mapped_gpu_is_in_the_catalog(gpus):
    assert set(SKYPILOT_ACCELERATORS) <= set(gpus)
    assert SKYPILOT_ACCELERATORS["a100-sxm-80gb"] == "A100-80GB"
    assert SKYPILOT_ACCELERATORS["a100-sxm-40gb"] == "A100"


def test_the_task_name_is_a_valid_cluster_name_even_for_odd_model_names(models, gpus):
    from dataclasses import replace

    odd = replace(models["llama-3.1-8b"], id="My Model/v2 <beta>")
    config = yaml.safe_load(skypilot_task(odd, Plan(), gpus["l4"]))
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", config["name"])


def test_every_shipped_rent_offer_with_a_skypilot_gpu_gives_a_task_that_matches_it(
        models, gpus):
    from gpuadvisor import catalog

    checked = 0
    for offer in catalog.load_offers().values():
        if not offer.is_rent or offer.gpu_id not in SKYPILOT_ACCELERATORS:
            continue
        config = task(models, gpus, Plan(n_gpus=offer.gpus_per_instance), offer,
                      gpu=offer.gpu_id)
        resources = config["resources"]
        assert resources["use_spot"] is offer.spot, offer.id
        assert resources.get("infra") == skypilot_cloud(offer.provider), offer.id
        assert resources["accelerators"] == (
            f"{SKYPILOT_ACCELERATORS[offer.gpu_id]}:{offer.gpus_per_instance}"), offer.id
        checked += 1
    assert checked >= 20
