"""The launch line: ``torchrun`` or ``accelerate launch`` for a plan's GPUs and nodes.

``train.py`` stands for the user's own training script everywhere in the exports; every
snippet says so in a comment. With DeepSpeed (a plan with a ZeRO stage) under ``torchrun``
the script gets ``--deepspeed ds_config.json``, the Hugging Face ``TrainingArguments``
convention; under ``accelerate launch`` the DeepSpeed or FSDP settings live in the
accelerate config file instead.

Multi-node lines take the node rank and the first node's address from the environment:
``$NODE_RANK`` and ``$MASTER_ADDR`` for a plain launch (set them on each node), SkyPilot's
``$SKYPILOT_NODE_RANK`` and the first line of ``$SKYPILOT_NODE_IPS`` in a SkyPilot task
(https://docs.skypilot.co/en/stable/running-jobs/distributed-jobs.html).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuadvisor.core.plan import Plan

from .deepspeed import OFFLOAD_NOTE
from .quoting import comment_text, shell_word

LAUNCHERS = ("torchrun", "accelerate")
DEFAULT_SCRIPT = "train.py"
DEEPSPEED_FILE = "ds_config.json"
ACCELERATE_FILE = "accelerate.yaml"
MASTER_PORT = 29500
SCRIPT_NOTE = (f"{DEFAULT_SCRIPT} stands for your own training script: put yours (and its "
               "arguments) in its place.")


@dataclass(frozen=True)
class NodeLayout:
    """How a job's GPUs are spread over machines.

    Attributes:
        nodes: machines (instances) in the job.
        gpus_per_node: GPUs used on each machine (the same on every one).
    """

    nodes: int
    gpus_per_node: int

    @property
    def n_gpus(self) -> int:
        return self.nodes * self.gpus_per_node


def node_layout(n_gpus: int, gpus_per_node: int) -> NodeLayout:
    """Spread ``n_gpus`` over machines of ``gpus_per_node`` GPUs each.

    Up to one machine's worth the job is one node with ``n_gpus``; beyond that it takes
    whole machines, so ``n_gpus`` must be a multiple of ``gpus_per_node`` (``torchrun``
    starts the same number of processes on every node).

    Raises:
        ValueError: a count that does not fill whole machines, naming the nearest that do.
    """
    for name, value in (("n_gpus", n_gpus), ("gpus_per_node", gpus_per_node)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    if n_gpus <= gpus_per_node:
        return NodeLayout(1, n_gpus)
    if n_gpus % gpus_per_node:
        low = n_gpus // gpus_per_node * gpus_per_node
        raise ValueError(
            f"gpus: {n_gpus} GPUs do not fill whole {gpus_per_node}-GPU machines; "
            f"use {low} or {low + gpus_per_node}")
    return NodeLayout(n_gpus // gpus_per_node, gpus_per_node)


def uses_deepspeed(plan: Plan, backend: str = "deepspeed") -> bool:
    """Whether the plan runs under DeepSpeed: a ZeRO stage with the DeepSpeed backend."""
    return plan.zero_stage > 0 and backend == "deepspeed"


def launch_line(plan: Plan, layout: NodeLayout | None = None, *, launcher: str = "torchrun",
                backend: str = "deepspeed", script: str = DEFAULT_SCRIPT,
                script_args: Sequence[str] = (), skypilot: bool = False) -> str:
    """The one command that starts ``script`` on every GPU of one node.

    Args:
        plan: the plan (its ``n_gpus`` when ``layout`` is None: one node).
        layout: nodes and GPUs per node; its GPU count must equal ``plan.n_gpus``.
        launcher: ``torchrun`` or ``accelerate`` (``accelerate launch --config_file
            accelerate.yaml``).
        backend: ``deepspeed`` or ``fsdp`` for a plan with a ZeRO stage (only DeepSpeed
            adds ``--deepspeed ds_config.json`` under torchrun).
        script, script_args: the user's training script and its arguments.
        skypilot: take node rank and master address from SkyPilot's variables.

    Raises:
        ValueError: an unknown launcher, or a layout that disagrees with the plan.
    """
    if launcher not in LAUNCHERS:
        raise ValueError(f"launcher must be one of {', '.join(LAUNCHERS)}, got {launcher!r}")
    layout = layout or NodeLayout(1, plan.n_gpus)
    if layout.n_gpus != plan.n_gpus:
        raise ValueError(f"gpus: the layout has {layout.n_gpus} GPUs, the plan {plan.n_gpus}")
    rank = "$SKYPILOT_NODE_RANK" if skypilot else "$NODE_RANK"
    multi = layout.nodes > 1
    args = [script, *script_args]
    if launcher == "torchrun":
        words = ["torchrun"]
        if multi:
            words += ["--nnodes", str(layout.nodes), "--nproc_per_node",
                      str(layout.gpus_per_node), "--node_rank", rank,
                      "--master_addr", "$MASTER_ADDR", "--master_port", str(MASTER_PORT)]
        else:
            words += ["--standalone", "--nproc_per_node", str(layout.gpus_per_node)]
        if uses_deepspeed(plan, backend):
            args += ["--deepspeed", DEEPSPEED_FILE]
    else:
        words = ["accelerate", "launch", "--config_file", ACCELERATE_FILE]
        if multi:
            words += ["--machine_rank", rank, "--main_process_ip", "$MASTER_ADDR",
                      "--main_process_port", str(MASTER_PORT)]
    return " ".join(words + [_quote(a) for a in args])


def launch_script(plan: Plan, layout: NodeLayout | None = None, *,
                  launcher: str = "torchrun", backend: str = "deepspeed",
                  script: str = DEFAULT_SCRIPT, script_args: Sequence[str] = (),
                  title: str = "") -> str:
    """A short shell snippet: comments saying what to replace, then :func:`launch_line`."""
    layout = layout or NodeLayout(1, plan.n_gpus)
    line = launch_line(plan, layout, launcher=launcher, backend=backend, script=script,
                       script_args=script_args)
    lines = [f"# {comment_text(title)}"] if title else []
    lines.append(f"# {SCRIPT_NOTE}")
    if launcher == "accelerate":
        lines.append(f"# Needs {ACCELERATE_FILE}: gpuadvisor export accelerate ... --out "
                     f"{ACCELERATE_FILE}")
    elif uses_deepspeed(plan, backend):
        lines.append(f"# Needs {DEEPSPEED_FILE}: gpuadvisor export deepspeed ... --out "
                     f"{DEEPSPEED_FILE}; the script must accept --deepspeed (Hugging Face "
                     "TrainingArguments does).")
    if uses_deepspeed(plan, backend) and plan.offload != "none":
        lines.append(f"# {OFFLOAD_NOTE}")
    if layout.nodes > 1:
        lines.append(f"# Run on each of the {layout.nodes} nodes with NODE_RANK set to 0.."
                     f"{layout.nodes - 1} and MASTER_ADDR set to node 0's address.")
    lines.append(line)
    return "\n".join(lines) + "\n"


def _quote(word: str) -> str:
    """Shell-quote one of the user's words (script, arguments): always, so ``$(...)``,
    ``;`` or a newline in it are text, never a command. The line's own ``$VARIABLES`` are
    added unquoted by :func:`launch_line` itself."""
    return shell_word(word)


__all__ = ["ACCELERATE_FILE", "DEEPSPEED_FILE", "LAUNCHERS", "SCRIPT_NOTE", "NodeLayout",
           "launch_line", "launch_script", "node_layout", "uses_deepspeed"]
