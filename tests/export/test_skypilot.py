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
from gpuadvisor.export.skypilot import SKYPILOT_VERSION
from gpuadvisor.export.skypilot_names import parse_naming, skypilot_naming

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
    # RunPod runs one node per cluster in SkyPilot: two GPUs are one 2-GPU pod, not two nodes.
    two = task(models, gpus, Plan(task="qlora"), offer, gpu="rtx-4090", n_gpus=2)
    assert "num_nodes" not in two and two["resources"]["accelerators"] == "RTX4090:2"


def test_without_an_offer_cloud_and_spot_come_from_the_arguments(models, gpus):
    config = task(models, gpus, Plan(n_gpus=4), gpu="h100-sxm", cloud="gcp", spot=True)
    assert config["resources"] == {"infra": "gcp", "accelerators": "H100:4", "use_spot": True}


@pytest.mark.parametrize(("provider", "cloud"), [
    ("AWS", "aws"), ("Google Cloud", "gcp"), ("GCP", "gcp"), ("Microsoft Azure", "azure"),
    ("Lambda", "lambda"), ("Lambda Labs", "lambda"), ("RunPod (community cloud)", "runpod"),
    ("Vast.ai", "vast"), ("Nebius", "nebius"), ("CoreWeave", None), ("", None),
    ("Verda (DataCrunch)", "verda"), ("DigitalOcean", "do"), ("Akash Network", None)])
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

    naming = skypilot_naming()
    checked = 0
    for offer in catalog.load_offers().values():
        if not offer.is_rent or offer.gpu_id not in SKYPILOT_ACCELERATORS:
            continue
        config = task(models, gpus, Plan(n_gpus=offer.gpus_per_instance), offer,
                      gpu=offer.gpu_id)
        resources = config["resources"]
        assert resources["use_spot"] is offer.spot, offer.id
        cloud = naming.clouds.get(skypilot_cloud(offer.provider) or "")
        if cloud is not None and offer.gpu_id in cloud.accelerators:
            assert resources["infra"] == cloud.name, offer.id
            name = cloud.accelerator(offer.gpu_id, offer.gpus_per_instance)
        else:  # not a SkyPilot cloud, or its catalog lacks the GPU: the cloud is left open
            assert "infra" not in resources, offer.id
            name = SKYPILOT_ACCELERATORS[offer.gpu_id]
        assert resources["accelerators"] == f"{name}:{offer.gpus_per_instance}", offer.id
        checked += 1
    assert checked >= 20


# -- per-cloud names, single-node clouds, fp8, SkyPilot's own parser -------------------------

def shipped_rent_offers():
    from gpuadvisor import catalog

    return [o for o in catalog.load_offers().values() if o.is_rent]


def rent(gpu_id, provider, instance="1x", **fields):
    return make_offer(id=f"t-{gpu_id}", kind="rent", gpu_id=gpu_id, provider=provider,
                      gpus_per_instance=fields.pop("gpus_per_instance", 1), instance=instance,
                      region=None, **fields)


@pytest.mark.parametrize(("gpu_id", "provider", "expected"), [
    ("h100-sxm", "RunPod", "H100-SXM"),  # RunPod's H100 is the PCIe card
    ("h100-pcie", "RunPod", "H100"),
    ("a100-pcie-80gb", "RunPod", "A100-80GB"),
    ("a100-sxm-80gb", "RunPod", "A100-80GB-SXM"),
    ("h200-sxm", "RunPod", "H200-SXM"),
    ("rtx-pro-6000-blackwell", "RunPod", "RTXPRO6000-WK"),
    ("rtx-pro-6000-blackwell-server", "RunPod", "RTXPRO6000"),
    ("rtx-pro-6000-blackwell", "Vast.ai", "RTXPRO6000WS"),
    ("rtx-a6000", "Lambda", "A6000"),
    ("rtx-a6000", "Verda (DataCrunch)", "RTX-A6000"),
    ("h100-sxm", "AWS", "H100"),
    ("h100-nvl", "Azure", "H100"),
])
def test_each_cloud_gets_the_accelerator_name_of_its_own_catalog(models, gpus, gpu_id, provider,
                                                                 expected):
    config = task(models, gpus, Plan(), rent(gpu_id, provider), gpu=gpu_id)
    assert config["resources"]["accelerators"] == f"{expected}:1"
    assert config["resources"]["infra"] == skypilot_cloud(provider)


def test_verda_is_a_skypilot_cloud_and_names_eight_a100s_by_their_memory(models, gpus):
    config = task(models, gpus, Plan(n_gpus=8),
                  rent("a100-sxm-80gb", "Verda (DataCrunch)", gpus_per_instance=8))
    assert config["resources"]["infra"] == "verda"
    assert config["resources"]["accelerators"] == "A100-80GB-640GB:8"


def test_eight_gpus_of_a_one_gpu_runpod_offer_are_one_eight_gpu_pod(models, gpus):
    text = skypilot_task(models["llama-3.1-8b"], Plan(n_gpus=8), gpus["h100-sxm"],
                         rent("h100-sxm", "RunPod"))
    config = yaml.safe_load(text)
    assert "num_nodes" not in config
    assert config["resources"]["accelerators"] == "H100-SXM:8"
    assert "# RunPod runs one node per cluster in SkyPilot" in text
    assert config["run"].strip() == "torchrun --standalone --nproc_per_node 8 train.py"


def test_more_gpus_than_one_node_on_a_single_node_cloud_are_refused_with_the_reason(models,
                                                                                   gpus):
    with pytest.raises(ValueError, match=r"^gpus: 16 GPUs need more than one node") as err:
        task(models, gpus, Plan(n_gpus=16), rent("rtx-4090", "Vast.ai"), gpu="rtx-4090")
    assert "interconnection among nodes are non-trivial on Vast" in str(err.value)
    with pytest.raises(ValueError, match=r"multi-node clusters \(aws, gcp, azure, oci, lambda"):
        task(models, gpus, Plan(n_gpus=16), rent("h100-sxm", "RunPod"), gpu="h100-sxm")


def test_a_cloud_whose_catalog_lacks_the_gpu_leaves_the_cloud_open_and_says_where(models, gpus):
    offer = rent("mi300x", "DigitalOcean")
    text = skypilot_task(models["llama-3.1-8b"], Plan(), gpus["mi300x"], offer)
    config = yaml.safe_load(text)
    assert "infra" not in config["resources"]
    assert config["resources"]["accelerators"] == "MI300X:1"
    assert "DigitalOcean catalog lists no AMD Instinct MI300X" in text
    assert "runpod" in text


def test_a_pinned_cloud_without_the_gpu_is_refused(models, gpus):
    with pytest.raises(ValueError, match=r"^gpu: SkyPilot .* RunPod catalog lists no"):
        task(models, gpus, Plan(), gpu="t4", cloud="runpod")


@pytest.mark.parametrize(("gpu_id", "package"), [
    ("h100-sxm", "'transformer-engine[pytorch]'"), ("mi300x", "torchao")])
def test_fp8_plans_install_transformer_engine_or_torchao(models, gpus, gpu_id, package):
    text = skypilot_task(models["llama-3.1-8b"], Plan(precision="fp8"), gpus[gpu_id])
    config = yaml.safe_load(text)
    assert package in config["setup"]
    assert "# fp8: the setup installs" in text
    bf16 = yaml.safe_load(skypilot_task(models["llama-3.1-8b"], Plan(), gpus[gpu_id]))
    assert "transformer-engine" not in bf16["setup"] and "torchao" not in bf16["setup"]


def test_every_shipped_rent_offer_exports_to_names_skypilot_knows_for_its_cloud(models, gpus):
    """The issue's bar: accelerator and cloud exist in SkyPilot's naming for that cloud (or,
    for a provider SkyPilot does not know, the cloud is left open with the reason)."""
    naming = skypilot_naming()
    any_names = set(naming.any.values())
    for offer in shipped_rent_offers():
        text = skypilot_task(models["llama-3.1-8b"], Plan(n_gpus=offer.gpus_per_instance),
                             gpus[offer.gpu_id], offer)
        resources = yaml.safe_load(text)["resources"]
        name, count = resources["accelerators"].rsplit(":", 1)
        assert int(count) == offer.gpus_per_instance, offer.id
        if "infra" in resources:
            cloud = naming.clouds[resources["infra"]]
            assert name in cloud.names(), offer.id
        else:
            assert name in any_names, offer.id
            assert ("is not a SkyPilot cloud" in text or "catalog lists no" in text), offer.id


def test_the_naming_file_records_the_skypilot_version_and_every_cloud_it_knows():
    naming = skypilot_naming()
    assert SKYPILOT_VERSION == naming.skypilot_version == "0.14.1"
    assert naming.catalog_schema == "v8"
    assert {"aws", "gcp", "azure", "lambda", "runpod", "vast", "verda", "nebius",
            "do"} <= set(naming.clouds)
    single = {c.name for c in naming.clouds.values() if not c.multi_node}
    assert {"runpod", "vast", "verda"} <= single
    assert all(c.multi_node_reason for c in naming.clouds.values() if not c.multi_node)


def test_a_broken_naming_file_names_the_key():
    with pytest.raises(ValueError, match=r"\[clouds.x\]: 'multi_node_reason' is required"):
        parse_naming('skypilot_version = "1"\ncatalog_schema = "v8"\nread_on = "2026-01-01"\n'
                     '[any]\n[clouds.x]\nlabel = "X"\nproviders = ["x"]\nmulti_node = false\n'
                     'max_gpus_per_node = 8\n')


def test_skypilot_itself_parses_every_exported_task(models, gpus, tmp_path):
    """SkyPilot's own Task.from_yaml, when the optional `skypilot` extra is installed."""
    task_module = pytest.importorskip("sky.task")
    plans = [Plan(n_gpus=o.gpus_per_instance) for o in shipped_rent_offers()]
    for offer, plan in zip(shipped_rent_offers(), plans, strict=True):
        path = tmp_path / f"{offer.id}.yaml"
        path.write_text(skypilot_task(models["llama-3.1-8b"], plan, gpus[offer.gpu_id], offer),
                        encoding="utf-8")
        parsed = task_module.Task.from_yaml(str(path))
        (resources,) = parsed.resources
        assert resources.accelerators, offer.id
        assert parsed.num_nodes >= 1, offer.id
