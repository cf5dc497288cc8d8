"""A Megatron-LM launch: ``pretrain_gpt.py`` under ``torchrun`` with the estimate's layout.

Hugging Face scripts under DeepSpeed or accelerate run data parallelism and ZeRO/FSDP; the
layouts the estimate times with tensor, pipeline (interleaved), context or expert
parallelism, partial recomputation and fp8 are Megatron-LM's own. This export writes that
plan as Megatron-LM's training script takes it, so the layout that was priced is the one
that runs.

Every option below is one of ``pretrain_gpt.py``'s (the parser of
``megatron/training/arguments.py``; tests/export/engine_sources/megatron_pretrain_gpt_flags.txt
lists them, read from NVIDIA/Megatron-LM at the commit its header names):

=====================  =========================================================================
the plan               Megatron-LM
=====================  =========================================================================
TP, SP                 ``--tensor-model-parallel-size``, ``--sequence-parallel``
PP, VPP                ``--pipeline-model-parallel-size``,
                       ``--num-virtual-stages-per-pipeline-rank``; layers that do not divide
                       evenly over the stages: ``--pipeline-model-parallel-layout`` (the
                       busiest rank holds ``ceil(L / PP)`` blocks, as priced)
CP, EP                 ``--context-parallel-size``, ``--expert-model-parallel-size`` (folded
                       over the tensor-parallel ranks: ``--expert-tensor-parallel-size 1``)
ZeRO-1                 ``--use-distributed-optimizer`` (sharded over the data-parallel group;
                       hybrid: ``--num-distributed-optimizer-instances``, one per shard group)
ZeRO-2 / ZeRO-3        Megatron-FSDP: ``--use-megatron-fsdp --data-parallel-sharding-strategy
                       optim_grads`` / ``optim_grads_params`` (``--ckpt-format fsdp_dtensor``,
                       which Megatron-FSDP requires)
batch                  ``--micro-batch-size``, ``--global-batch-size`` (micro x accumulation x
                       data-parallel replicas), ``--seq-length``, ``--train-iters`` (the
                       estimate's steps)
bf16 / fp16 / fp8      ``--bf16`` / ``--fp16`` (fp32 main weights in the optimizer);
                       fp8: ``--bf16 --fp8-format hybrid --fp8-recipe tensorwise``
                       (Transformer Engine, current scaling)
checkpointing          selective: ``--recompute-granularity selective``; full:
                       ``--recompute-granularity full --recompute-method uniform
                       --recompute-num-layers 1``; N layers: ``--recompute-method block
                       --recompute-num-layers N / (PP x VPP)`` (Megatron counts per model chunk)
optimizer offload      ``--optimizer-cpu-offload --optimizer-offload-fraction 1.0``
=====================  =========================================================================

The model's shape is written out flag by flag (layers, widths, heads and query groups, MLP,
norm, position embedding, biases, experts). A full fine-tune loads a Megatron checkpoint of
the model (``--finetune --load``); the data is synthetic (``--mock-data``) until the user
names theirs, so the script first checks that the plan runs as priced.
"""

from __future__ import annotations

from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.parallel.layout import Layout, shard_group
from gpuadvisor.core.plan import Plan

from .launch import MASTER_PORT, NodeLayout
from .quoting import comment_text

#: Megatron-LM's training script for GPT-style decoders.
SCRIPT = "pretrain_gpt.py"
#: The Megatron-LM commit whose options the export writes (and the tests check).
MEGATRON_COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
#: NVIDIA's PyTorch container the SkyPilot task runs in: ``docker/.ngc_version.dev`` at
#: :data:`MEGATRON_COMMIT` (PyTorch, NCCL and Transformer Engine inside).
NGC_IMAGE = "nvcr.io/nvidia/pytorch:26.06-py3"
#: Where the script expects a Megatron-LM checkout (``$MEGATRON_LM`` overrides it).
CHECKOUT = "Megatron-LM"

#: Learning rates written as a start (the plan does not decide them): the peak of a cosine
#: schedule, a tenth of it at the end.
PRETRAIN_LR = 3e-4
FINETUNE_LR = 1e-5

#: Optimizers Megatron-LM builds, by the plan's name for them (``adam`` is decoupled
#: weight decay: AdamW).
OPTIMIZERS = {"adamw": "adam", "sgd": "sgd", "lion": "lion"}

ZERO_SHARDING = {2: "optim_grads", 3: "optim_grads_params"}


def check_megatron(model: ModelSpec, plan: Plan) -> None:
    """Refuse what ``pretrain_gpt.py`` cannot run as planned, one reason each.

    Raises:
        ValueError: naming the field first (an inference or adapter plan, a model Megatron's
            GPT options cannot describe, an optimizer or precision it does not have).
    """
    if not plan.is_training:
        raise ValueError("task: a Megatron-LM launch trains; an inference plan is served "
                         "(export vllm, llama-server or ollama)")
    if plan.is_adapter:
        raise ValueError(f"task: Megatron-LM trains every weight; {plan.task} runs with "
                         "tensor and pipeline parallelism in NeMo / Megatron-Bridge's PEFT "
                         "recipes (export deepspeed or accelerate run it data parallel)")
    if plan.quant not in (None, "none", ""):
        raise ValueError(f"quant: Megatron-LM trains 16-bit or fp8 weights, not {plan.quant}")
    if plan.precision == "bf16-pure":
        raise ValueError("precision: Megatron-LM's bf16 keeps fp32 main weights in the "
                         "optimizer; export the bf16 (mixed) plan")
    if plan.optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer: Megatron-LM has no {plan.optimizer}; it builds "
                         f"{', '.join(OPTIMIZERS)}")
    if plan.offload == "params":
        raise ValueError("offload: Megatron-LM offloads optimizer states, not parameters "
                         "(--offload optimizer)")
    if plan.offload == "optimizer" and plan.zero_stage == 0:
        raise ValueError("offload: Megatron-LM offloads the distributed optimizer's states: "
                         "optimizer offload needs ZeRO stage 1 or more")
    if plan.attention not in ("flash", "eager"):
        raise ValueError(f"attention: {plan.attention} has no Megatron-LM backend")
    why = _shape_problem(model)
    if why:
        raise ValueError(f"model: {model.id} {why}, which Megatron-LM's GPT options do not "
                         "describe")


def _shape_problem(m: ModelSpec) -> str | None:
    """Why the model's shape cannot be written as ``pretrain_gpt.py`` options (None: it can)."""
    if m.kind != "decoder" or m.n_layers <= 0 or m.d_model <= 0:
        return "is not a decoder given layer by layer"
    checks = (
        (m.attention != "gqa", "uses latent attention"),
        (m.sliding_window > 0, "mixes windowed and global attention"),
        (m.attention_sinks, "has attention sinks"),
        (m.qk_norm == "full", "normalises the whole query and key projections"),
        (m.norms_per_layer != 2, f"has {m.norms_per_layer} norms per layer"),
        (m.embedding_norm, "normalises its embeddings"),
        (m.lm_head_bias, "has a bias on its output layer"),
        (m.mlp not in ("gated", "gelu"), f"has a {m.mlp} MLP"),
        (m.position not in ("rope", "learned"), f"has {m.position} position embeddings"),
        (m.out_bias != m.mlp_bias, "has biases on some of its linear layers only"),
        (m.vision_params > 0, "has a vision tower"),
        (m.shared_expert_gate, "gates its shared expert"),
    )
    for bad, why in checks:
        if bad:
            return why
    return None


def megatron_args(model: ModelSpec, plan: Plan, layout: Layout, *, steps: int,
                  gpus_per_node: int) -> list[list[str]]:
    """``pretrain_gpt.py``'s options for ``plan`` run with ``layout``, in groups (model,
    parallelism, batch, precision and recomputation, optimizer, data, logging).

    Args:
        model: the model (its shape is written out).
        plan: the plan as it will run (its layout written in).
        layout: the estimate's chosen layout.
        steps: optimizer steps, the estimate's.
        gpus_per_node: GPUs per machine (for hybrid sharding's groups).

    Raises:
        ValueError: see :func:`check_megatron`; partial recomputation that does not divide
            evenly over the model chunks; hybrid sharding above ZeRO-1.
    """
    check_megatron(model, plan)
    return [_model_args(model, plan), _parallel_args(layout, gpus_per_node, model.n_layers),
            _batch_args(plan, layout, steps), _precision_args(model, plan, layout),
            _optimizer_args(plan), _data_args(model, plan)]


def _num(x: float) -> str:
    return f"{x:g}"


def _model_args(m: ModelSpec, plan: Plan) -> list[str]:
    head = m.head_dim or m.d_model // m.n_heads
    words = ["--num-layers", str(m.n_layers), "--hidden-size", str(m.d_model),
             "--ffn-hidden-size", str(m.d_ff if m.n_experts <= 1 or m.dense_layers
                                      else (m.moe_d_ff or m.d_ff)),
             "--num-attention-heads", str(m.n_heads)]
    if head * m.n_heads != m.d_model:
        words += ["--kv-channels", str(head)]
    kv_heads = m.n_kv_heads or m.n_heads
    if kv_heads != m.n_heads:
        words += ["--group-query-attention", "--num-query-groups", str(kv_heads)]
    positions = max(m.max_positions, plan.seq_len)
    words += ["--max-position-embeddings", str(positions),
              "--position-embedding-type", "rope" if m.position == "rope" else
              "learned_absolute",
              "--normalization", "RMSNorm" if m.norm == "rmsnorm" else "LayerNorm"]
    if m.mlp == "gated":
        words.append("--swiglu")
    if not (m.out_bias or m.mlp_bias):
        words.append("--disable-bias-linear")
        if m.qkv_bias:
            words.append("--add-qkv-bias")
    if m.qk_norm == "head":
        words.append("--qk-layernorm")
    if not m.tied_embeddings:
        words.append("--untie-embeddings-and-output-weights")
    if m.n_experts > 1:
        words += ["--num-experts", str(m.n_experts), "--moe-router-topk",
                  str(m.experts_per_token), "--moe-grouped-gemm"]
        if m.moe_d_ff and m.dense_layers:
            words += ["--moe-ffn-hidden-size", str(m.moe_d_ff)]
        if m.shared_d_ff:
            words += ["--moe-shared-expert-intermediate-size", str(m.shared_d_ff)]
        if m.dense_layers:
            moe = m.n_layers - m.dense_layers
            words += ["--moe-layer-freq", f"([0]*{m.dense_layers}+[1]*{moe})"]
    return words


def pipeline_layout(n_layers: int, pp: int, vpp: int = 1) -> str | None:
    """Megatron-LM's ``--pipeline-model-parallel-layout`` for ``n_layers`` blocks over
    ``pp`` ranks of ``vpp`` virtual stages each, or None when they divide evenly (then
    ``--pipeline-model-parallel-size`` and ``--num-virtual-stages-per-pipeline-rank`` say
    it, and Megatron-LM asserts ``L % PP == 0`` and ``(L / PP) % VPP == 0``).

    The string lists the ``pp x vpp`` stages in model order (virtual stage ``v`` of rank
    ``r`` is the ``v x pp + r``-th), ``|`` between stages, ``t`` a block, ``E`` the
    embedding at the start of the first, ``L`` the loss at the end of the last
    (megatron/core/transformer/pipeline_parallel_layer_layout.py). The blocks are spread
    as evenly as they go, the first ``L mod (pp x vpp)`` stages taking one more: a rank
    then holds at most ``ceil(L / pp)``, the busiest stage the estimate priced.
    """
    stages = pp * vpp
    if pp <= 1 or (n_layers % pp == 0 and (n_layers // pp) % vpp == 0):
        return None
    if n_layers < stages:
        raise ValueError(f"layout: {n_layers} layers cannot fill {pp} pipeline ranks x "
                         f"{vpp} virtual stages (one layer a stage at least)")
    base, extra = divmod(n_layers, stages)
    counts = [base + (i < extra) for i in range(stages)]
    parts = [f"t*{c}" if c > 1 else "t" for c in counts]
    parts[0] = "E" + parts[0]
    parts[-1] = parts[-1] + "L"
    return "|".join(parts)


def _parallel_args(lay: Layout, gpus_per_node: int, n_layers: int) -> list[str]:
    words = ["--tensor-model-parallel-size", str(lay.tp),
             "--pipeline-model-parallel-size", str(lay.pp)]
    if lay.tp > 1 and lay.sequence_parallel:
        words.append("--sequence-parallel")
    uneven = pipeline_layout(n_layers, lay.pp, lay.vpp)
    if uneven is not None:
        # one of the three may be given (arguments.py); the layout sets VPP itself
        words += ["--pipeline-model-parallel-layout", uneven]
    elif lay.vpp > 1:
        words += ["--num-virtual-stages-per-pipeline-rank", str(lay.vpp)]
    if lay.cp > 1:
        words += ["--context-parallel-size", str(lay.cp)]
    if lay.ep > 1:
        # Experts on other ranks: tokens travel all-to-all (the default gathers every
        # token on every rank).
        words += ["--expert-model-parallel-size", str(lay.ep),
                  "--moe-token-dispatcher-type", "alltoall"]
        if lay.tp > 1 and lay.etp != lay.tp:
            # the expert groups span the tensor-parallel ranks: each expert whole
            words += ["--expert-tensor-parallel-size", str(lay.etp)]
    if lay.zero == 1:
        words.append("--use-distributed-optimizer")
        if lay.hybrid_shard:
            group = shard_group(lay, gpus_per_node)
            if lay.dp % group == 0 and lay.dp // group > 1:
                words += ["--num-distributed-optimizer-instances", str(lay.dp // group)]
    elif lay.zero >= 2:
        if lay.hybrid_shard:
            raise ValueError(f"zero: ZeRO-{lay.zero} sharded inside nodes only is not "
                             "written for Megatron-FSDP; export deepspeed runs it "
                             "(zero_hpz_partition_size)")
        words += ["--use-megatron-fsdp", "--data-parallel-sharding-strategy",
                  ZERO_SHARDING[lay.zero], "--ckpt-format", "fsdp_dtensor"]
    if lay.zero >= 1 and lay.dp > 1:
        words += ["--overlap-grad-reduce", "--overlap-param-gather"]
    return words


def _batch_args(plan: Plan, lay: Layout, steps: int) -> list[str]:
    return ["--seq-length", str(plan.seq_len), "--micro-batch-size", str(lay.micro_batch),
            "--global-batch-size", str(lay.global_batch), "--train-iters", str(steps)]


def _precision_args(m: ModelSpec, plan: Plan, lay: Layout) -> list[str]:
    words = {"bf16": ["--bf16"], "fp16": ["--fp16"], "fp32": [],
             "fp8": ["--bf16", "--fp8-format", "hybrid", "--fp8-recipe", "tensorwise"]
             }[plan.precision]
    words += ["--attention-backend", "auto" if plan.attention == "flash" else "unfused"]
    if plan.checkpointing == "selective":
        words += ["--recompute-granularity", "selective"]
    elif plan.checkpointing == "full":
        words += ["--recompute-granularity", "full"]
        if plan.recompute_layers is None:
            words += ["--recompute-method", "uniform", "--recompute-num-layers", "1"]
        else:
            chunks = lay.pp * lay.vpp
            layers = plan.recomputed_layers(m.n_layers)
            if layers % chunks:
                raise ValueError(
                    f"recompute_layers: Megatron-LM recomputes the same number of layers in "
                    f"each of the {chunks} model chunks (PP {lay.pp} x VPP {lay.vpp}); "
                    f"{layers} does not divide evenly: give a multiple of {chunks}")
            words += ["--recompute-method", "block", "--recompute-num-layers",
                      str(layers // chunks)]
    return words


def _optimizer_args(plan: Plan) -> list[str]:
    lr = PRETRAIN_LR if plan.task == "pretrain" else FINETUNE_LR
    words = ["--optimizer", OPTIMIZERS[plan.optimizer], "--lr", _num(lr),
             "--min-lr", _num(lr / 10), "--lr-decay-style", "cosine",
             "--lr-warmup-fraction", "0.01", "--weight-decay", "0.1", "--clip-grad", "1.0"]
    if plan.offload == "optimizer":
        words += ["--optimizer-cpu-offload", "--optimizer-offload-fraction", "1.0",
                  "--overlap-cpu-optimizer-d2h-h2d"]
    return words


def _data_args(m: ModelSpec, plan: Plan) -> list[str]:
    words = ["--mock-data", "--tokenizer-type", "NullTokenizer", "--vocab-size",
             str(m.vocab_size), "--eval-iters", "0", "--log-interval", "10",
             "--log-throughput", "--save", "$SAVE_DIR"]
    if plan.task == "full":
        words += ["--load", "$MEGATRON_CHECKPOINT", "--finetune", "--exit-on-missing-checkpoint"]
    return words


def megatron_script(model: ModelSpec, plan: Plan, layout: Layout, nodes: NodeLayout, *,
                    steps: int, skypilot: bool = False, title: str = "",
                    data: str | None = None) -> str:
    """A bash script that starts ``pretrain_gpt.py`` on every GPU of one node with the
    plan's layout (run it on each node).

    Args:
        model, plan, layout, steps: see :func:`megatron_args`.
        nodes: machines and GPUs per machine; their product must be the layout's GPUs.
        skypilot: take the node rank and the first node's address from SkyPilot's variables.
        title: a first comment line.
        data: the estimate's training data in words (said beside ``--train-iters``).

    Raises:
        ValueError: see :func:`megatron_args`, or nodes that disagree with the layout.
    """
    if nodes.n_gpus != layout.n_gpus:
        raise ValueError(f"gpus: {nodes.n_gpus} GPUs on the machines, {layout.n_gpus} in the "
                         "layout")
    groups = megatron_args(model, plan, layout, steps=steps,
                           gpus_per_node=nodes.gpus_per_node)
    lines = [f"# {comment_text(title)}"] if title else []
    lines += [
        f"# Megatron-LM's {SCRIPT} with the layout the estimate priced: "
        f"{comment_text(layout.describe())}.",
        f"# Run from a Megatron-LM checkout (NVIDIA/Megatron-LM; options as of commit "
        f"{MEGATRON_COMMIT[:12]}) inside an NGC PyTorch container, "
        "which has Transformer Engine.",
        "# The data are synthetic tokens (--mock-data) to check the plan runs as priced; for "
        "yours, preprocess it with tools/preprocess_data.py and replace --mock-data "
        "--tokenizer-type NullTokenizer --vocab-size with --data-path PREFIX --tokenizer-type "
        "HuggingFaceTokenizer --tokenizer-model REPO.",
    ]
    if plan.task == "full":
        lines.append("# A full fine-tune loads the model as a Megatron checkpoint: convert the "
                     "Hugging Face weights first (Megatron-Bridge's AutoBridge, or "
                     "tools/checkpoint/convert.py) and set MEGATRON_CHECKPOINT to its folder.")
    lines.append(f"# --train-iters {steps}: the estimate's tokens"
                 + (f" ({comment_text(data)})" if data else "")
                 + f" packed into full {plan.seq_len}-token sequences, "
                 f"{layout.global_batch} per step.")
    lines.append("# Learning rates and weight decay are a start: the plan does not decide "
                 "them.")
    lines += ["set -euo pipefail", f'cd "${{MEGATRON_LM:-{CHECKOUT}}}"',
              'SAVE_DIR="${SAVE_DIR:-checkpoints}"']
    if plan.task == "full":
        lines.append('MEGATRON_CHECKPOINT="${MEGATRON_CHECKPOINT:?set it to the converted '
                     'checkpoint folder}"')
    if layout.zero < 2:
        # Megatron orders its tensor-parallel communication behind the compute on one
        # connection; Megatron-FSDP refuses a single one.
        lines.append("export CUDA_DEVICE_MAX_CONNECTIONS=1")
    if nodes.nodes > 1:
        if skypilot:
            lines += ['NODE_RANK="$SKYPILOT_NODE_RANK"',
                      'MASTER_ADDR="$(echo "$SKYPILOT_NODE_IPS" | head -n1)"']
        else:
            lines += [f"# Run on each of the {nodes.nodes} nodes with NODE_RANK set to "
                      f"0..{nodes.nodes - 1} and MASTER_ADDR set to node 0's address.",
                      'NODE_RANK="${NODE_RANK:?set NODE_RANK to this node\'s rank}"',
                      'MASTER_ADDR="${MASTER_ADDR:?set MASTER_ADDR to node 0\'s address}"']
        launch = (f"torchrun --nnodes {nodes.nodes} --nproc-per-node {nodes.gpus_per_node} "
                  f'--node-rank "$NODE_RANK" --master-addr "$MASTER_ADDR" '
                  f"--master-port {MASTER_PORT}")
    else:
        launch = f"torchrun --standalone --nproc-per-node {nodes.gpus_per_node}"
    body = [f"{launch} {SCRIPT}"] + ["  " + " ".join(_word(w) for w in group)
                                     for group in groups if group]
    lines.append(" \\\n".join(body))
    return "\n".join(lines) + "\n"


def _word(w: str) -> str:
    """An option or value as a shell word: the script's own ``$VARIABLES`` in double quotes,
    a ``--moe-layer-freq`` pattern in single quotes, everything else as is (they are
    numbers, option names and fixed choices)."""
    if w.startswith("$"):
        return f'"{w}"'
    if any(c in w for c in "()[]*+"):
        return f"'{w}'"
    return w


__all__ = ["MEGATRON_COMMIT", "NGC_IMAGE", "SCRIPT", "check_megatron", "megatron_args",
           "megatron_script", "pipeline_layout"]
