"""A SkyPilot task YAML for a cloud or rental option: ``sky launch task.yaml`` runs the plan.

Fields follow SkyPilot's YAML reference (https://docs.skypilot.co/en/latest/reference/
yaml-spec.html): ``name``, ``workdir``, ``num_nodes``, ``resources.infra`` (the cloud;
releases before ``infra`` existed call it ``cloud``), ``resources.accelerators``
(``NAME:COUNT`` per node), ``resources.use_spot``, ``setup`` and ``run``. Multi-node runs take
the node rank and the head node's address from ``$SKYPILOT_NODE_RANK`` and
``$SKYPILOT_NODE_IPS`` (https://docs.skypilot.co/en/stable/running-jobs/distributed-jobs.html).

Accelerator names are SkyPilot's, as ``sky show-gpus -a`` lists them
(https://docs.skypilot.co/en/stable/compute/gpus.html and ``docs/source/compute/
show-gpus-all.txt`` in the SkyPilot repository). Cloud names are SkyPilot's cloud modules
(``sky/clouds/__init__.py``: AWS, GCP, Azure, Lambda, RunPod, Vast, Fluidstack, Paperspace,
Cudo, Nebius, OCI, DO, Hyperbolic, ...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.offers import Offer
from gpuadvisor.core.plan import TASK_LABELS, Plan

from .accelerate import accelerate_yaml
from .deepspeed import DEFAULT_GRADIENT_CLIPPING, OFFLOAD_NOTE, deepspeed_json, describe
from .launch import (
    ACCELERATE_FILE,
    DEEPSPEED_FILE,
    SCRIPT_NOTE,
    launch_line,
    node_layout,
    uses_deepspeed,
)
from .yamltext import dump

#: Catalog GPU id -> SkyPilot accelerator name. PCIe and SXM variants share a name where
#: SkyPilot does (``A100`` is the 40 GB card, ``A100-80GB`` the 80 GB one, ``H100`` the
#: H100 that clouds rent as 8-GPU SXM nodes).
SKYPILOT_ACCELERATORS = {
    "t4": "T4",
    "v100-sxm2-16gb": "V100",
    "v100-sxm2-32gb": "V100-32GB",
    "a10": "A10",
    "a10g": "A10G",
    "l4": "L4",
    "l40s": "L40S",
    "a40": "A40",
    "a100-pcie-40gb": "A100",
    "a100-sxm-40gb": "A100",
    "a100-pcie-80gb": "A100-80GB",
    "a100-sxm-80gb": "A100-80GB",
    "h100-pcie": "H100",
    "h100-sxm": "H100",
    "h100-nvl": "H100-NVL",
    "h200-sxm": "H200",
    "b200": "B200",
    "mi300x": "MI300X",
    "rtx-3060-12gb": "RTX3060",
    "rtx-3090": "RTX3090",
    "rtx-4070": "RTX4070",
    "rtx-4090": "RTX4090",
    "rtx-5080": "RTX5080",
    "rtx-5090": "RTX5090",
    "rtx-a4000": "RTXA4000",
    "rtx-a5000": "RTXA5000",
    "rtx-a6000": "RTXA6000",
    "rtx-4000-ada": "RTX4000-Ada",
    "rtx-6000-ada": "RTX6000-Ada",
}

#: Normalised provider name (lower case, letters and digits only) -> SkyPilot cloud.
SKYPILOT_CLOUDS = {
    "aws": "aws", "amazon": "aws", "amazonwebservices": "aws",
    "gcp": "gcp", "google": "gcp", "googlecloud": "gcp", "googlecloudplatform": "gcp",
    "azure": "azure", "microsoftazure": "azure",
    "lambda": "lambda", "lambdalabs": "lambda", "lambdacloud": "lambda",
    "runpod": "runpod",
    "vast": "vast", "vastai": "vast",
    "fluidstack": "fluidstack",
    "paperspace": "paperspace",
    "cudo": "cudo", "cudocompute": "cudo",
    "nebius": "nebius",
    "oci": "oci", "oracle": "oci", "oraclecloud": "oci",
    "do": "do", "digitalocean": "do",
    "hyperbolic": "hyperbolic",
    "primeintellect": "primeintellect",
    "shadeform": "shadeform",
    "ibm": "ibm",
}

#: GPUs per instance assumed without an offer: the estimator's node size (8, the usual
#: largest cloud instance).
DEFAULT_GPUS_PER_NODE = DEFAULT_ASSUMPTIONS.gpus_per_node


def skypilot_accelerator(gpu: GpuSpec) -> str:
    """SkyPilot's name for a catalog GPU.

    Raises:
        ValueError: a GPU SkyPilot does not rent under a name we know.
    """
    name = SKYPILOT_ACCELERATORS.get(gpu.id)
    if name is None:
        raise ValueError(f"gpu: no SkyPilot accelerator name known for {gpu.name} ({gpu.id}); "
                         "see 'sky show-gpus -a' and pass accelerator=NAME")
    return name


def skypilot_cloud(provider: str | None) -> str | None:
    """SkyPilot's cloud name for a provider (``"Vast.ai"`` -> ``vast``); None if it has none."""
    if not provider:
        return None
    text = provider.split("(")[0].lower()
    whole = re.sub(r"[^a-z0-9]", "", text)
    first = re.sub(r"[^a-z0-9]", "", (re.split(r"[\s/,]+", text.strip()) or [""])[0])
    return SKYPILOT_CLOUDS.get(whole) or SKYPILOT_CLOUDS.get(first)


def _packages(plan: Plan, launcher: str, backend: str) -> list[str]:
    packages = ["torch"]
    if launcher == "accelerate" or plan.is_adapter:
        packages.append("accelerate")
    if uses_deepspeed(plan, backend):
        packages.append("deepspeed")
    if plan.is_adapter:
        packages.append("peft")
    if plan.effective_quant in ("int8", "nf4", "nf4-dq") or plan.optimizer == "adamw8bit":
        packages.append("bitsandbytes")
    return packages


def _heredoc(filename: str, text: str) -> list[str]:
    return [f"cat > {filename} <<'EOF'", *text.rstrip("\n").split("\n"), "EOF"]


def skypilot_task(model: ModelSpec, plan: Plan, gpu: GpuSpec, offer: Offer | None = None, *,
                  n_gpus: int | None = None, gpus_per_node: int | None = None,
                  cloud: str | None = None, spot: bool | None = None,
                  accelerator: str | None = None, launcher: str = "torchrun",
                  backend: str = "deepspeed", script: str = "train.py",
                  script_args: Sequence[str] = (), name: str | None = None,
                  gradient_clipping: float = DEFAULT_GRADIENT_CLIPPING) -> str:
    """A SkyPilot task YAML that runs ``plan`` on ``gpu``, rented as ``offer`` says.

    Args:
        model, plan, gpu: what to run and on which card.
        offer: a rent/cloud offer for ``gpu``: its provider picks the cloud, ``spot`` the
            spot market, ``gpus_per_instance`` how many GPUs one node has.
        n_gpus: GPUs in the job (default ``plan.n_gpus``; given, it replaces the plan's).
        gpus_per_node, cloud, spot: override (or, without an offer, give) what the offer
            would say. Without either, nodes of :data:`DEFAULT_GPUS_PER_NODE` GPUs, any
            cloud, on demand.
        accelerator: SkyPilot's name, to override :func:`skypilot_accelerator`.
        launcher, backend, script, script_args: the launch line (:mod:`.launch`).
        name: the task's name (default: from the model and task).
        gradient_clipping: written into the DeepSpeed/accelerate config.

    Returns:
        The YAML text. The setup writes ``ds_config.json`` / ``accelerate.yaml`` on every
        node, so the task needs nothing but the user's working folder.

    Raises:
        ValueError: the offer is a card to buy or is for another GPU, no SkyPilot name for
            the GPU, a GPU count that does not fill whole nodes, or a plan the DeepSpeed /
            accelerate config refuses.
    """
    if offer is not None:
        if not offer.is_rent:
            raise ValueError(f"offer: {offer.id} is a card to buy; SkyPilot rents cloud GPUs")
        if offer.gpu_id != gpu.id:
            raise ValueError(f"offer: {offer.id} offers {offer.gpu_id}, not {gpu.id}")
    if n_gpus is not None and n_gpus != plan.n_gpus:
        plan = plan.with_changes(n_gpus=n_gpus)
    per_node = gpus_per_node or (offer.gpus_per_instance if offer else DEFAULT_GPUS_PER_NODE)
    layout = node_layout(plan.n_gpus, per_node)
    accelerator = accelerator or skypilot_accelerator(gpu)
    use_spot = bool(spot if spot is not None else (offer.spot if offer else False))
    provider = offer.provider if offer else None
    infra = cloud or skypilot_cloud(provider)

    header = [f"SkyPilot task written by gpuadvisor: {model.name}, {TASK_LABELS[plan.task]}",
              f"Plan: {describe(plan)} on {plan.n_gpus} x {gpu.name}"]
    if offer is not None:
        where = ", ".join(x for x in (offer.instance, offer.region) if x)
        header.append(f"Priced from offer {offer.id}: {offer.provider}"
                      + (f" ({where})" if where else "")
                      + f", ${offer.price_usd:g}/GPU-h{' spot' if offer.spot else ''}"
                      f" as of {offer.as_of}")
    if offer is not None and layout.gpus_per_node < offer.gpus_per_instance:
        header.append(f"The offer's instance has {offer.gpus_per_instance} GPUs; this task "
                      f"asks for {layout.gpus_per_node} (SkyPilot looks for such an instance)")
    if uses_deepspeed(plan, backend) and plan.offload != "none":
        header.append(OFFLOAD_NOTE)
    if provider and infra is None:
        header.append(f"{provider} is not a SkyPilot cloud: SkyPilot picks the cheapest cloud "
                      "that has these GPUs (CoreWeave and others: infra: k8s)")
    header += [f"Launch: sky launch -c {_slug(name or model.id)} task.yaml"
               + (" (managed spot with recovery: sky jobs launch task.yaml)" if use_spot else ""),
               SCRIPT_NOTE]

    resources: dict = {}
    if infra:
        resources["infra"] = infra
    resources["accelerators"] = f"{accelerator}:{layout.gpus_per_node}"
    resources["use_spot"] = use_spot

    setup = ["set -e", "if [ -f requirements.txt ]; then pip install -r requirements.txt; fi",
             "pip install " + " ".join(_packages(plan, launcher, backend))]
    if launcher == "accelerate":
        setup += _heredoc(ACCELERATE_FILE, accelerate_yaml(
            plan, layout, backend=backend, gpu=gpu, gradient_clipping=gradient_clipping))
    elif uses_deepspeed(plan, backend):
        setup += _heredoc(DEEPSPEED_FILE, deepspeed_json(
            plan, gradient_clipping=gradient_clipping))
    run = []
    if layout.nodes > 1:
        run.append('MASTER_ADDR=$(echo "$SKYPILOT_NODE_IPS" | head -n1)')
    run.append(launch_line(plan, layout, launcher=launcher, backend=backend, script=script,
                           script_args=script_args, skypilot=True))

    task: dict = {"name": _slug(name or f"{model.id}-{plan.task}"), "workdir": "."}
    if layout.nodes > 1:
        task["num_nodes"] = layout.nodes
    task["resources"] = resources
    task["setup"] = "\n".join(setup) + "\n"
    task["run"] = "\n".join(run) + "\n"
    return dump(task, header)


def _slug(text: str) -> str:
    """A cluster/task name SkyPilot accepts: lower case letters, digits and dashes."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "gpuadvisor-task"


__all__ = ["DEFAULT_GPUS_PER_NODE", "SKYPILOT_ACCELERATORS", "SKYPILOT_CLOUDS",
           "skypilot_accelerator", "skypilot_cloud", "skypilot_task"]
