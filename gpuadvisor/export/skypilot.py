"""A SkyPilot task YAML for a cloud or rental option: ``sky launch task.yaml`` runs the plan.

Fields follow SkyPilot's YAML reference (https://docs.skypilot.co/en/latest/reference/
yaml-spec.html): ``name``, ``workdir``, ``num_nodes``, ``resources.infra`` (the cloud;
releases before ``infra`` existed call it ``cloud``), ``resources.accelerators``
(``NAME:COUNT`` per node), ``resources.use_spot``, ``setup`` and ``run``. Multi-node runs take
the node rank and the head node's address from ``$SKYPILOT_NODE_RANK`` and
``$SKYPILOT_NODE_IPS`` (https://docs.skypilot.co/en/stable/running-jobs/distributed-jobs.html).

Cloud and accelerator names are SkyPilot's, per cloud, as one SkyPilot release uses them
(``catalog/skypilot.toml``, read by :mod:`.skypilot_names`; :data:`SKYPILOT_VERSION`): the task
for a RunPod H100 SXM offer asks for ``H100-SXM`` (RunPod's ``H100`` is the PCIe card), a Lambda
A6000 for ``A6000``. A cloud whose catalog does not list the GPU leaves the cloud open (and
says so); a cloud where SkyPilot runs one node per cluster (RunPod, Vast, Verda, ...) gets the
whole job as one instance when one is that large, and a job larger than that is refused with
SkyPilot's reason. An fp8 plan installs Transformer Engine (NVIDIA) or torchao (others).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

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
    NodeLayout,
    launch_line,
    node_layout,
    uses_deepspeed,
)
from .skypilot_catalog import InstalledCatalog, installed_catalog, names_like
from .skypilot_names import SkyCloud, skypilot_naming
from .yamltext import dump

_NAMING = skypilot_naming()

#: The SkyPilot release whose names the tasks use (``catalog/skypilot.toml``).
SKYPILOT_VERSION = _NAMING.skypilot_version

#: Catalog GPU id -> SkyPilot's accelerator name when no cloud is pinned (``sky show-gpus``).
#: PCIe and SXM variants share a name where SkyPilot does (``A100`` is the 40 GB card,
#: ``A100-80GB`` the 80 GB one). A pinned cloud may name the card otherwise: see
#: :func:`skypilot_accelerator` and ``catalog/skypilot.toml``.
SKYPILOT_ACCELERATORS = dict(_NAMING.any)

#: Normalised provider name (lower case, letters and digits only) -> SkyPilot cloud.
SKYPILOT_CLOUDS = {key: c.name for c in _NAMING.clouds.values() for key in c.providers}

#: GPUs per instance assumed without an offer: the estimator's node size (8, the usual
#: largest cloud instance).
DEFAULT_GPUS_PER_NODE = DEFAULT_ASSUMPTIONS.gpus_per_node


def skypilot_accelerator(gpu: GpuSpec, cloud: str | None = None, count: int | None = None) -> str:
    """SkyPilot's name for a catalog GPU, on ``cloud`` when one is pinned.

    Args:
        gpu: the card.
        cloud: a SkyPilot cloud (``runpod``); None: the name used when no cloud is pinned.
        count: GPUs per node, for the few catalogs that name an instance by its size.

    Raises:
        ValueError: a GPU SkyPilot does not rent under a name we know (on that cloud).
    """
    sky_cloud = _NAMING.clouds.get(cloud) if cloud else None
    if sky_cloud is not None:
        name = sky_cloud.accelerator(gpu.id, count)
        if name is None:
            raise ValueError(f"gpu: SkyPilot {SKYPILOT_VERSION}'s {sky_cloud.label} catalog lists "
                             f"no {gpu.name} ({gpu.id}); see 'sky show-gpus --infra "
                             f"{sky_cloud.name}' and pass accelerator=NAME")
        return name
    name = SKYPILOT_ACCELERATORS.get(gpu.id)
    if name is None:
        raise ValueError(f"gpu: no SkyPilot accelerator name known for {gpu.name} ({gpu.id}); "
                         "see 'sky show-gpus -a' and pass accelerator=NAME")
    return name


def skypilot_cloud(provider: str | None) -> str | None:
    """SkyPilot's cloud name for a provider (``"Vast.ai"`` -> ``vast``); None if it has none."""
    sky_cloud = _NAMING.cloud_for_provider(provider)
    return sky_cloud.name if sky_cloud else None


def _fp8_packages(gpu: GpuSpec) -> list[str]:
    """What an fp8 plan installs: Transformer Engine on NVIDIA, torchao's float8 elsewhere."""
    return ["'transformer-engine[pytorch]'"] if gpu.vendor == "nvidia" else ["torchao"]


def _packages(plan: Plan, launcher: str, backend: str, gpu: GpuSpec) -> list[str]:
    packages = ["torch"]
    if launcher == "accelerate" or plan.is_adapter:
        packages.append("accelerate")
    if uses_deepspeed(plan, backend):
        packages.append("deepspeed")
    if plan.is_adapter:
        packages.append("peft")
    if plan.effective_quant in ("int8", "nf4", "nf4-dq") or plan.optimizer == "adamw8bit":
        packages.append("bitsandbytes")
    if plan.precision == "fp8":
        packages += _fp8_packages(gpu)
    return packages


def _heredoc(filename: str, text: str) -> list[str]:
    return [f"cat > {filename} <<'EOF'", *text.rstrip("\n").split("\n"), "EOF"]


def skypilot_task(model: ModelSpec, plan: Plan, gpu: GpuSpec, offer: Offer | None = None, *,
                  n_gpus: int | None = None, gpus_per_node: int | None = None,
                  cloud: str | None = None, spot: bool | None = None,
                  accelerator: str | None = None, launcher: str = "torchrun",
                  backend: str = "deepspeed", script: str = "train.py",
                  script_args: Sequence[str] = (), name: str | None = None,
                  gradient_clipping: float = DEFAULT_GRADIENT_CLIPPING,
                  serve: str | None = None, need_bytes: float | None = None,
                  catalog_gpus: Mapping[str, GpuSpec] | None = None,
                  hybrid_group: int | None = None,
                  megatron: Callable[[NodeLayout], str] | None = None) -> str:
    """A SkyPilot task YAML that runs ``plan`` on ``gpu``, rented as ``offer`` says.

    ``need_bytes`` (the estimate's memory per GPU) and ``catalog_gpus`` (the GPU catalog):
    where the cloud's name for the card also names a smaller one (Vast's ``A100`` is the
    40 GB and the 80 GB card), a plan that needs more than the smaller card holds is
    refused, naming the clouds that tell the two apart.

    An inference plan is served, not trained: ``serve`` is its ``vllm serve`` line (from
    :func:`~.serve.vllm_serve_line`, with the estimate's settings); the task installs vLLM,
    opens :data:`SERVE_PORT` and runs the server there (its readiness: ``GET /health``).

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
        hybrid_group: GPUs a ZeRO-3/FSDP shard spans when the layout shards inside nodes
            and replicates across them (written into the DeepSpeed/accelerate config).
        megatron: with ``launcher`` ``megatron``, builds the Megatron-LM script for the
            task's nodes (:func:`~.megatron.megatron_script` with ``skypilot=True``); the
            task runs it in NVIDIA's PyTorch container on a Megatron-LM checkout.

    Returns:
        The YAML text. The setup writes ``ds_config.json`` / ``accelerate.yaml`` on every
        node, so the task needs nothing but the user's working folder.

    Raises:
        ValueError: the offer is a card to buy or is for another GPU, no SkyPilot name for
            the GPU, a GPU count that does not fill whole nodes, a plan the DeepSpeed /
            accelerate config refuses, or an inference plan without its serve line.
    """
    if not plan.is_training and not serve:
        raise ValueError("task: a SkyPilot task serves an inference plan with vLLM: estimate "
                         "it with --framework vllm")
    if offer is not None:
        if not offer.is_rent:
            raise ValueError(f"offer: {offer.id} is a card to buy; SkyPilot rents cloud GPUs")
        if offer.gpu_id != gpu.id:
            raise ValueError(f"offer: {offer.id} offers {offer.gpu_id}, not {gpu.id}")
    if n_gpus is not None and n_gpus != plan.n_gpus:
        plan = plan.with_changes(n_gpus=n_gpus)
    use_spot = bool(spot if spot is not None else (offer.spot if offer else False))
    provider = offer.provider if offer else None
    infra = cloud or skypilot_cloud(provider)
    notes: list[str] = []
    sky_cloud = _NAMING.clouds.get(infra) if infra else None
    if sky_cloud is not None and accelerator is None and gpu.id not in sky_cloud.accelerators:
        if cloud:
            skypilot_accelerator(gpu, sky_cloud.name)  # raises, naming the cloud
        elsewhere = ", ".join(_NAMING.clouds_renting(gpu.id)) or "no cloud"
        notes.append(f"SkyPilot {SKYPILOT_VERSION}'s {sky_cloud.label} catalog lists no "
                     f"{gpu.name}: the cloud is left open (SkyPilot lists it on: {elsewhere})")
        infra, sky_cloud = None, None
    if use_spot and sky_cloud is not None and not sky_cloud.spot:
        spot_clouds = ", ".join(sorted(c.name for c in _NAMING.clouds.values()
                                       if c.spot and gpu.id in c.accelerators))
        raise ValueError(f"spot: SkyPilot {SKYPILOT_VERSION} refuses spot instances on "
                         f"{sky_cloud.label} ('{sky_cloud.spot_reason}'); rent on demand "
                         f"there, or spot on a cloud that has it "
                         f"({spot_clouds or 'none lists this GPU'})")
    per_node = gpus_per_node or (offer.gpus_per_instance if offer else DEFAULT_GPUS_PER_NODE)
    per_node = _single_node(sky_cloud, gpu, plan.n_gpus, per_node, notes)
    layout = node_layout(plan.n_gpus, per_node)
    if accelerator is None:
        accelerator = (skypilot_accelerator(gpu, sky_cloud.name, layout.gpus_per_node)
                       if sky_cloud is not None else skypilot_accelerator(gpu))
    installed = (installed_catalog(sky_cloud.name, _NAMING.catalog_schema)
                 if sky_cloud is not None else None)
    if installed is not None:
        notes.append(_check_installed_catalog(installed, sky_cloud, gpu, accelerator,
                                              layout.gpus_per_node, use_spot, need_bytes))
    elif sky_cloud is not None and need_bytes and catalog_gpus:
        _check_name_holds_the_plan(sky_cloud, gpu, need_bytes, catalog_gpus)

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
    header += notes
    if plan.precision == "fp8":
        header.append("fp8: the setup installs " + (
            "Transformer Engine; wrap the model's layers in te.fp8_autocast"
            if gpu.vendor == "nvidia" else
            "torchao; convert the model with torchao.float8.convert_to_float8_training"))
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

    if not plan.is_training:
        return _serve_task(model, plan, header, resources, name, serve, layout)
    if launcher == "megatron":
        if megatron is None:
            raise ValueError("launcher: a Megatron-LM task needs its script")
        return _megatron_task(model, plan, header, resources, name, megatron(layout), layout,
                              infra)
    setup = ["set -e", "if [ -f requirements.txt ]; then pip install -r requirements.txt; fi",
             "pip install " + " ".join(_packages(plan, launcher, backend, gpu))]
    if launcher == "accelerate":
        setup += _heredoc(ACCELERATE_FILE, accelerate_yaml(
            plan, layout, backend=backend, gpu=gpu, gradient_clipping=gradient_clipping,
            hybrid_group=hybrid_group))
    elif uses_deepspeed(plan, backend):
        setup += _heredoc(DEEPSPEED_FILE, deepspeed_json(
            plan, gradient_clipping=gradient_clipping, hybrid_group=hybrid_group))
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


#: Clouds whose SkyPilot driver runs no Docker image: ``CloudImplementationFeatures.
#: DOCKER_IMAGE`` among the unsupported features in ``sky/clouds/<cloud>.py``
#: (``_CLOUD_UNSUPPORTED_FEATURES``; IBM and OCI ``_unsupported_features_for_resources``;
#: Slurm where its cluster has no container runtime), SkyPilot 0.14.1.
NO_DOCKER_CLOUDS = frozenset({"cudo", "hyperbolic", "ibm", "oci", "primeintellect", "scp",
                              "shadeform", "slurm", "verda", "vsphere"})


def _megatron_task(model, plan, header, resources, name, script: str, layout, infra) -> str:
    """A task that runs Megatron-LM's ``pretrain_gpt.py`` (``script``) in NVIDIA's PyTorch
    container, on a checkout of the commit whose options the script uses."""
    from .megatron import MEGATRON_COMMIT, NGC_IMAGE

    if infra in NO_DOCKER_CLOUDS:
        raise ValueError(f"cloud: SkyPilot runs no Docker image on {infra}, and Megatron-LM's "
                         f"task runs in NVIDIA's PyTorch container ({NGC_IMAGE}); rent on a "
                         "cloud that runs containers (aws, gcp, azure, lambda, runpod, "
                         "kubernetes, ...)")
    header = [line for line in header if line != SCRIPT_NOTE and not line.startswith("fp8:")]
    header.append(f"Runs Megatron-LM's pretrain_gpt.py (commit {MEGATRON_COMMIT[:12]}) in "
                  f"{NGC_IMAGE}, which has Transformer Engine")
    resources["image_id"] = f"docker:{NGC_IMAGE}"
    setup = ["set -e", "export PIP_CONSTRAINT=",
             "if [ ! -d Megatron-LM ]; then git clone https://github.com/NVIDIA/Megatron-LM.git"
             " Megatron-LM; fi",
             f"git -C Megatron-LM checkout {MEGATRON_COMMIT}",
             'pip install --no-build-isolation -e "./Megatron-LM[training]"']
    task: dict = {"name": _slug(name or f"{model.id}-{plan.task}"), "workdir": "."}
    if layout.nodes > 1:
        task["num_nodes"] = layout.nodes
    task["resources"] = resources
    task["setup"] = "\n".join(setup) + "\n"
    task["run"] = script
    return dump(task, header)


def _check_name_holds_the_plan(sky_cloud: SkyCloud, gpu: GpuSpec, need_bytes: float,
                               catalog_gpus: Mapping[str, GpuSpec]) -> None:
    """Refuse a task whose cloud may start a smaller card under the same name: SkyPilot
    picks among every card the name covers, so the plan must fit the smallest of them."""
    name = sky_cloud.accelerators.get(gpu.id)
    if name is None:
        return
    covered = [catalog_gpus[g] for g, n in sky_cloud.accelerators.items()
               if n == name and g in catalog_gpus]
    smallest = min(covered, key=lambda g: g.memory_bytes, default=gpu)
    if smallest.memory_bytes >= need_bytes or smallest.memory_bytes >= gpu.memory_bytes:
        return
    apart = sorted(c.name for c in _NAMING.clouds.values()
                   if gpu.id in c.accelerators and all(
                       c.accelerators.get(o.id) != c.accelerators[gpu.id]
                       for o in covered if o.id != gpu.id))
    raise ValueError(
        f"cloud: on {sky_cloud.label}, {name!r} is also the {smallest.name} "
        f"({smallest.memory_bytes / 2**30:.0f} GiB), which SkyPilot may start; the plan "
        f"needs {need_bytes / 2**30:.1f} GiB per GPU. Rent it where the card has a name of "
        f"its own ({', '.join(apart) or 'no cloud in SkyPilot ' + SKYPILOT_VERSION}), or "
        f"give --accelerator with a name that only this card has")


def _check_installed_catalog(installed: InstalledCatalog, sky_cloud: SkyCloud, gpu: GpuSpec,
                             accelerator: str, per_node: int, use_spot: bool,
                             need_bytes: float | None) -> str:
    """Check the task against the cloud's table as the installed SkyPilot has it (the name,
    the count per node, spot, the smallest card the name covers); the header line saying
    so, or ``ValueError`` with SkyPilot's table as the reason."""
    where = installed.described()
    if accelerator not in installed.names():
        alike = names_like(installed, gpu.memory_bytes / 2**30)
        raise ValueError(
            f"cloud: {where} lists no {accelerator!r} on {sky_cloud.label}"
            + (f"; names there for a card of {gpu.memory_bytes / 2**30:.0f} GiB: "
               f"{', '.join(alike)} (give one with --accelerator)" if alike else "")
            + "; or leave --cloud out and SkyPilot picks a cloud that has it")
    if not installed.rows_for(accelerator, per_node):
        counts = ", ".join(str(c) for c in installed.counts(accelerator))
        raise ValueError(f"gpus: {where} has no instance with {per_node} x {accelerator} "
                         f"on {sky_cloud.label} (it has {counts} per instance)")
    if use_spot and not installed.has_spot(accelerator, per_node):
        raise ValueError(f"spot: {where} has no spot price for {per_node} x {accelerator} "
                         f"on {sky_cloud.label}, so SkyPilot finds no spot instance for it; "
                         "rent it on demand")
    sizes = installed.card_sizes_gib(accelerator)
    if need_bytes and sizes and sizes[0] * 2**30 < need_bytes:
        raise ValueError(
            f"cloud: on {sky_cloud.label}, {accelerator!r} also covers cards of "
            f"{sizes[0]:g} GiB ({where}), which SkyPilot may start; the plan needs "
            f"{need_bytes / 2**30:.1f} GiB per GPU. Give --accelerator with a name only "
            "the larger card has, or rent it on another cloud")
    host = installed.host_gib_per_gpu(accelerator, per_node)
    return (f"Checked against {where}: {per_node} x {accelerator}"
            + (f", from {host:.0f} GiB of host memory per GPU" if host else ""))


#: The port a served model listens on (vLLM's default).
SERVE_PORT = 8000


def _serve_task(model, plan, header, resources, name, serve, layout) -> str:
    """The task of an inference plan: vLLM installed, the estimate's serve line on
    :data:`SERVE_PORT`, open to the outside."""
    if layout.nodes > 1:
        raise ValueError("gpus: a vLLM server here runs on one node; ask for at most "
                         f"{layout.gpus_per_node} GPUs")
    command = serve.strip().splitlines()[-1]
    downloads = [line[len("# Download first: "):] for line in serve.splitlines()
                 if line.startswith("# Download first: ")]
    header = [line for line in header if line != SCRIPT_NOTE]
    header.append(f"Serves on port {SERVE_PORT} (OpenAI-compatible API); ready when "
                  f"curl http://HEAD_IP:{SERVE_PORT}/health answers (sky status --ip NAME)")
    header.append("A gated repository needs your Hugging Face token: sky launch --env "
                  "HF_TOKEN ... passes the one set in your shell")
    resources["ports"] = SERVE_PORT
    setup = ["set -e", "pip install vllm"]
    if downloads:
        setup += ["pip install huggingface_hub", *downloads]
    run = [f"{command} --host 0.0.0.0 --port {SERVE_PORT}"]
    task: dict = {"name": _slug(name or f"{model.id}-{plan.task}"), "workdir": ".",
                  "resources": resources, "setup": "\n".join(setup) + "\n",
                  "run": "\n".join(run) + "\n"}
    return dump(task, header)


def _single_node(sky_cloud: SkyCloud | None, gpu: GpuSpec, n_gpus: int, per_node: int,
                 notes: list[str]) -> int:
    """GPUs per node on a cloud where SkyPilot runs one node per cluster (RunPod, Vast, ...):
    the whole job on one instance when the cloud sells one that large, else ``ValueError``
    with SkyPilot's reason and the clouds that can run it."""
    if sky_cloud is None or sky_cloud.multi_node or n_gpus <= per_node:
        return per_node
    reason = sky_cloud.multi_node_reason
    if n_gpus > sky_cloud.max_gpus_per_node:
        multi = [c.name for c in _NAMING.clouds.values()
                 if c.multi_node and gpu.id in c.accelerators]
        raise ValueError(
            f"gpus: {n_gpus} GPUs need more than one node, and SkyPilot {SKYPILOT_VERSION} runs "
            f"one node per cluster on {sky_cloud.label} ('{reason}'); ask for at most "
            f"{sky_cloud.max_gpus_per_node} GPUs there, or rent on a cloud with multi-node "
            f"clusters ({', '.join(multi) or 'none lists this GPU'})")
    notes.append(f"{sky_cloud.label} runs one node per cluster in SkyPilot ('{reason}'): the "
                 f"{n_gpus} GPUs are asked as one {n_gpus}-GPU instance, not "
                 f"{-(-n_gpus // per_node)} nodes of {per_node}")
    return n_gpus


def _slug(text: str) -> str:
    """A cluster/task name SkyPilot accepts: lower case letters, digits and dashes."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "gpuadvisor-task"


__all__ = ["DEFAULT_GPUS_PER_NODE", "SERVE_PORT", "SKYPILOT_ACCELERATORS", "SKYPILOT_CLOUDS",
           "SKYPILOT_VERSION", "skypilot_accelerator", "skypilot_cloud", "skypilot_task"]
