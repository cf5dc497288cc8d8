"""``gpuadvisor estimate``: memory, time and fit for a plan.

Its plan flags are shared: ``suggest`` and ``export`` take the ``estimate`` parser as their
argparse parent, and build their plan with :func:`plan_from_args`.
"""

from __future__ import annotations

import argparse
import sys

from .args import (
    EXIT_NO_FIT,
    MODEL_HELP,
    InputError,
    assumption,
    count,
    float_in,
    fraction,
    int_in,
    json_text,
    load_gpu,
    load_model,
    positive_int,
    quant_name,
)
from .engine_flags import add_engine_flags


def add_parser(verbs) -> argparse.ArgumentParser:
    """Add the ``estimate`` verb to ``verbs``; the parser (the plan flags' parent)."""
    from gpuadvisor.core import limits as L
    from gpuadvisor.core import plan as P

    est = verbs.add_parser("estimate", help="memory, time and fit for a plan",
                           description="Estimate VRAM per GPU and time for a plan.")
    source = est.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help=MODEL_HELP)
    source.add_argument("--plan", metavar="FILE", action=PlanFileDefaults,
                        help="a .gpuplan file (saved by the app): its model, GPU, "
                             "assumptions and plan, pinned layout included (tp, pp, vpp, "
                             "cp, ep, global batch), are the defaults; the flags given "
                             "override them")
    est.add_argument("--task", choices=P.TASKS, default="full",
                     help="pretrain, full fine-tune, lora, qlora (4-bit base) or infer")
    est.add_argument("--precision", choices=P.PRECISIONS, default="bf16",
                     help="numerics: fp16/bf16 mixed (fp32 master weights), bf16-pure, fp32, "
                          "or fp8 matmuls")
    est.add_argument("--optimizer", choices=P.OPTIMIZERS, default="adamw",
                     help="optimizer whose states are kept (adamw: 2 fp32 states per "
                          "trainable weight; adamw8bit: 2 bytes)")
    est.add_argument("--micro-batch", type=int_in(1, L.MAX_BATCH), default=1,
                     help="sequences per GPU per forward/backward pass (inference: concurrent "
                          "sequences)")
    est.add_argument("--grad-accum", type=int_in(1, L.MAX_BATCH), default=1,
                     help="micro-batches accumulated per optimizer step")
    est.add_argument("--seq", type=int_in(1, L.MAX_SEQ_TOKENS, tokens=True), default=None,
                     help="tokens per sequence, e.g. 4096 or 8k (k = 1024) (default: 2048, or the "
                          "model's context if shorter)")
    est.add_argument("--checkpointing", choices=P.CHECKPOINTING, default=None,
                     help="activation recomputation: none, selective (attention core) or full "
                          "(each block's input kept); default: the framework's own (Hugging "
                          "Face fine-tunes, Unsloth and torchtune: full; pre-training and "
                          "Axolotl: none)")
    est.add_argument("--attention", choices=P.ATTENTION, default="flash",
                     help="flash (FlashAttention/SDPA) or eager (the score matrix is stored)")
    est.add_argument("--gpu", help="catalog GPU id (see 'catalog list') or its name as the "
                          "driver prints it (\"RTX 4090\", \"Tesla P40\"); checks the fit")
    est.add_argument("--gpus", type=int_in(1, L.MAX_GPUS), default=1,
                     help="GPUs working together on the job")
    est.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=None,
                     help="ZeRO stage / FSDP (3 = full shard); default 0, or searched with "
                          "--layout auto")
    lay = est.add_argument_group(
        "parallel layout (training on several GPUs)",
        "With --gpus N the time comes from the fastest layout that fits (--layout auto): "
        "tensor, pipeline, context and expert parallel degrees, ZeRO stage and micro-batch "
        "are searched while the global batch stays as asked. Pin any degree with its flag; "
        "--layout manual uses exactly the pinned degrees (the rest 1).")
    lay.add_argument("--layout", choices=("auto", "manual", "off"), default=None,
                     help="auto (default with --gpus > 1), manual, or off (flat data "
                          "parallel, the plan's ZeRO stage)")
    for flag, what in (("--tp", "tensor-parallel ranks (within a node)"),
                       ("--pp", "pipeline stages"),
                       ("--vpp", "virtual pipeline stages per rank (interleaved 1F1B)"),
                       ("--cp", "context-parallel ranks (sequence split)"),
                       ("--ep", "expert-parallel ranks (MoE)")):
        lay.add_argument(flag, type=positive_int, default=None, help=what)
    lay.add_argument("--hybrid-shard", action="store_true",
                     help="ZeRO/FSDP shards inside a node and replicates across nodes")
    lay.add_argument("--global-batch", type=count("--global-batch"), default=None,
                     help="sequences per optimizer step (default: micro-batch x "
                          "grad-accum x GPUs)")
    lay.add_argument("--gpus-per-node", type=int_in(1, 72), default=None,
                     help="GPUs sharing a node's links (default 8, or the job's GPU count)")
    lay.add_argument("--kernels", choices=("eager", "fused"), default=None,
                     help="elementwise kernels of the training code: eager PyTorch (Hugging "
                          "Face, plain modules) or fused (Megatron/Transformer Engine, "
                          "torch.compile, llm.c); default: the framework's own (fused for "
                          "megatron, eager for the others)")
    lay.add_argument("--network", default=None, type=network_name,
                     help="network between nodes, per GPU: 100g, 200g, 400g, 800g, "
                          "ib-hdr-200g, roce-400g, ethernet-25g, ... (default by GPU class)")
    est.add_argument("--offload", choices=P.OFFLOAD, default="none",
                     help="keep optimizer states (optimizer) or parameters too (params) in "
                          "CPU RAM (DeepSpeed ZeRO-Offload)")
    data = est.add_mutually_exclusive_group()
    data.add_argument("--tokens", type=count("--tokens"), help="training tokens, e.g. 2T, 300M")
    data.add_argument("--samples", type=count("--samples"), help="samples per epoch")
    from gpuadvisor.core.datasets import DATASETS

    est.add_argument("--dataset", choices=sorted(DATASETS), default=None,
                     help="train on this data set: its samples at their measured token "
                          "lengths (default for fine-tunes: alpaca; with --samples, that "
                          "many of its samples)")
    est.add_argument("--packing", action="store_true", default=False,
                     help="pack samples into full --seq sequences (TRL packing=True) "
                          "instead of padding each micro-batch to its longest sample")
    est.add_argument("--epochs", type=count("--epochs", high=1e6), default=None,
                     help="passes over --samples or --dataset (default 1)")
    est.add_argument("--recompute-layers", type=int_in(1, 65_536), default=None, metavar="N",
                     help="with --checkpointing full: recompute only N of the model's layers "
                          "and keep the others' activations (Megatron-LM / NeMo "
                          "--recompute-method block; default: every layer)")
    est.add_argument("--lora-rank", type=int_in(1, 65_536),
                     help="LoRA rank for lora/qlora (default 16)")
    est.add_argument("--lora-targets", choices=P.LORA_TARGETS, default="all",
                     help="adapted matrices: qv, attn (q,k,v,o) or all linear layers")
    est.add_argument("--quant", type=quant_name, metavar="QUANT",
                     help="base-weight quantization: none, int8, nf4, nf4-dq, int4, int3, "
                          "mxfp4, nvfp4, fp8; a GGUF file type (q4_k_m, q8_0, iq4_xs, ...: "
                          "runs on llama.cpp unless --framework says otherwise); exl2 or "
                          "exl2-<bits> (ExLlamaV2)")
    est.add_argument("--bpw", type=float_in(*P.EXL2_BITS_RANGE), default=None,
                     metavar="BITS", help="ExLlamaV2: bits per weight (same as "
                                          "--quant exl2-BITS)")
    est.add_argument("--new-tokens", type=int_in(1, L.MAX_SEQ_TOKENS, tokens=True), default=256,
                     help="inference: tokens generated per sequence")
    est.add_argument("--kv-dtype", choices=P.ALL_KV_DTYPES,
                     help="KV-cache type (q8_0/q4_0: llama.cpp's quantized cache, needs "
                          "--attention flash; ExLlamaV2's Q8/Q4 cache)")
    add_engine_flags(est)
    est.add_argument("--framework", choices=P.FRAMEWORKS, default="auto",
                     help="software that runs it: hf, unsloth, torchtune, axolotl, megatron "
                          "(training; only megatron runs tensor, pipeline, context and expert "
                          "parallelism); transformers, llama.cpp, ollama, vllm, exllamav2, mlx "
                          "(inference); default: megatron to pre-train or with --tp/--pp/"
                          "--cp/--ep, else hf; for inference by the weights' format "
                          "(GGUF: llama.cpp, EXL2: ExLlamaV2) and the platform (Apple: MLX), "
                          "else transformers")
    est.add_argument("--efficiency", type=fraction, help="achieved fraction of peak, e.g. 0.4")
    est.add_argument("--assume", type=assumption, action="append", default=[],
                     metavar="NAME=VALUE", help="override an assumption (repeatable)")
    est.add_argument("--no-measured", action="store_true",
                     help="ignore throughput measured on --gpu by 'gpuadvisor probe' "
                          "(default: the latest measurement calibrates the time)")
    est.add_argument("--units", choices=("GiB", "GB"), default="GiB",
                     help="memory in binary (GiB = 2^30 bytes) or decimal (GB) units")
    est.add_argument("--json", action="store_true", help="print one JSON object")
    return est


#: Plan field -> the ``estimate`` flag's dest that sets it, where the names differ.
_PLAN_DESTS = {"seq_len": "seq", "n_gpus": "gpus", "zero_stage": "zero",
               "dataset_tokens": "tokens", "dataset_samples": "samples",
               "layout_global_batch": "global_batch"}


class PlanFileDefaults(argparse.Action):
    """``--plan FILE``: read a plan file and make its values the defaults of the plan flags
    (a flag given with another value than its default, or after ``--plan``, wins).

    The file's model becomes ``--model`` (a custom model is kept as ``args.plan_model``),
    its GPU ``--gpu``, its assumption overrides the first ``--assume`` values, and its
    pinned layout ``--tp``/``--pp``/``--vpp``/``--cp``/``--ep``/``--global-batch``. A ZeRO
    stage of 0 leaves ``--zero`` to the layout search (as the app does).
    """

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from gpuadvisor.workspace.planfile import PlanFileError, load_plan, parse_plan_dict

        try:
            doc = parse_plan_dict(load_plan(values), path=values)
        except PlanFileError as exc:
            parser.error(f"--plan: {exc}")
        setattr(namespace, self.dest, values)
        if doc.preset_id is None and not parser.prog.endswith(" estimate"):
            parser.error(f"--plan: {values}: the model is a custom one; this verb reads "
                         "preset models from plan files (give --model and the plan flags)")
        namespace.model = doc.preset_id or doc.model.id
        namespace.plan_model = doc.model if doc.preset_id is None else None

        def default(dest: str, value) -> None:
            if value is not None and getattr(namespace, dest, None) == parser.get_default(
                    dest):
                setattr(namespace, dest, value)

        plan = doc.plan.to_dict()
        if plan["zero_stage"] == 0:
            del plan["zero_stage"]
        given_data = namespace.tokens is not None or namespace.samples is not None
        for name, value in plan.items():
            dest = _PLAN_DESTS.get(name, name)
            if dest in ("tokens", "samples", "epochs") and given_data:
                continue
            if name == "epochs" and plan["dataset_samples"] is None \
                    and plan.get("dataset") is None:
                continue  # epochs count passes over samples or a data set only
            if hasattr(namespace, dest):
                default(dest, value)
        default("gpu", doc.gpu_id)
        namespace.assume = [*doc.assumption_overrides.items(), *namespace.assume]


def network_name(text: str) -> str:
    """``--network``: a known network class or alias (the message lists them)."""
    from gpuadvisor.core.parallel.links import network

    try:
        network(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("network: ")) from None
    return text


def plan_problem(exc: Exception) -> InputError:
    """A refused plan as one line naming the flag that sets the field at fault
    (``--gpu-layers: gpu_layers is for inference plans, not 'full'``); ``plan:`` when no
    field is named."""
    import re

    from gpuadvisor.core.plan import Plan

    text = str(exc)
    fields = Plan.__dataclass_fields__
    for word in re.findall(r"[a-z_]+", text)[:3]:
        if word in fields:
            dest = _PLAN_DESTS.get(word, word)
            return InputError(f"--{dest.replace('_', '-')}: {text}")
    return InputError(f"plan: {text}")


def plan_from_args(args: argparse.Namespace, model):
    """Build a Plan from parsed ``estimate`` flags; ValueError names the bad field."""
    from gpuadvisor.core.plan import Plan, default_checkpointing

    seq = args.seq
    if seq is None:
        limit = getattr(model, "max_positions", 0) or 2048
        seq = min(2048, limit) if model.kind != "opaque" else 1
    data = {}
    if args.tokens is not None:
        data["dataset_tokens"] = args.tokens
    if args.samples is not None:
        data["dataset_samples"] = args.samples
    dataset = getattr(args, "dataset", None)
    if dataset is not None:
        if args.tokens is not None:
            raise InputError("--dataset: give --dataset or --tokens, not both (--tokens is "
                             "the whole job)")
        data["dataset"] = dataset
    if getattr(args, "packing", False):
        data["packing"] = True
    if args.epochs is not None:
        if args.samples is None and dataset is None:
            raise InputError("--epochs: give --samples or --dataset with --epochs (--tokens "
                             "counts all epochs)")
        data["epochs"] = args.epochs
    return Plan(
        task=args.task,
        precision=args.precision,
        optimizer=args.optimizer,
        micro_batch=args.micro_batch,
        grad_accum=args.grad_accum,
        seq_len=seq,
        checkpointing=args.checkpointing or default_checkpointing(args.task,
                                                                  args.framework)[0],
        attention=args.attention,
        lora_rank=args.lora_rank,
        lora_targets=args.lora_targets,
        quant=_quant(args),
        n_gpus=args.gpus,
        zero_stage=args.zero or 0,
        offload=args.offload,
        new_tokens=args.new_tokens,
        kv_dtype=args.kv_dtype,
        efficiency=args.efficiency,
        framework=args.framework,
        gpu_layers=getattr(args, "gpu_layers", None),
        n_cpu_moe=getattr(args, "n_cpu_moe", 0) or 0,
        gpu_memory_utilization=getattr(args, "gpu_memory_utilization", None),
        num_ctx=getattr(args, "num_ctx", None),
        max_num_batched_tokens=getattr(args, "max_num_batched_tokens", None),
        enforce_eager=bool(getattr(args, "enforce_eager", False)),
        engine_version=getattr(args, "engine_version", None),
        backend=getattr(args, "backend", None),
        recompute_layers=getattr(args, "recompute_layers", None),
        **_layout_pins(args),
        **data,
    )


def _layout_pins(args: argparse.Namespace) -> dict:
    """The pinned layout the flags (or a ``--plan`` file) give, as plan fields."""
    pins = {name: getattr(args, name, None) for name in ("tp", "pp", "vpp", "cp", "ep")}
    batch = getattr(args, "global_batch", None)
    pins["layout_global_batch"] = int(batch) if batch else None
    return pins


def _quant(args: argparse.Namespace) -> str | None:
    """``--quant``, with ``--bpw`` folded in (``exl2-<bits>``); InputError when the two
    disagree."""
    bpw = getattr(args, "bpw", None)
    if bpw is None:
        return args.quant
    if args.quant not in (None, "exl2") and not str(args.quant).startswith("exl2-"):
        raise InputError(f"--bpw: bits per weight are ExLlamaV2's; --quant {args.quant} "
                         "is another format")
    if args.quant not in (None, "exl2") and args.quant != f"exl2-{bpw:g}":
        raise InputError(f"--bpw {bpw:g} disagrees with --quant {args.quant}")
    return f"exl2-{bpw:g}"


def command(args: argparse.Namespace) -> int:
    """``estimate``: the estimate as a table, or one JSON object with ``--json``."""
    model = getattr(args, "plan_model", None) or load_model(args.model)
    gpu, gpus = load_gpu(args.gpu, observed=not args.no_measured)
    plan = checked_plan(args, model)
    result, _assumptions = estimate_from_args(args, model, plan, gpu, gpus)
    host_ram = host_ram_check(result, args.units)
    advice = fit_advice(args, model, plan, gpu, gpus) if result.fits is False else None
    serving = serving_capacity(args, result, gpus)
    if args.json:
        data = result.to_json()
        if host_ram is not None:
            data["memory"]["host_ram"] = host_ram.to_json()
        if advice is not None:
            data["to_fit"] = advice_json(advice)
        if serving is not None:
            data["serving"] = serving.to_json()
        print(json_text(data))
    else:
        from gpuadvisor.report import estimate_table, serving_text

        print(estimate_table(result, units=args.units))
        if serving is not None:
            print(serving_text(serving))
        if result.layout is not None:
            from gpuadvisor.report import layout_text

            print(layout_text(result.layout, units=args.units))
        if host_ram is not None:
            print(f"host RAM: {host_ram.verdict}")
        if advice is not None:
            print()
            print(advice_text(advice, args.units))
    return EXIT_NO_FIT if result.verdict == "does not fit" else 0


def serving_capacity(args: argparse.Namespace, result, gpus):
    """How many users the plan serves at once (:func:`gpuadvisor.core.serving_load.capacity`,
    resolved as the estimate was), or None for a plan that does not serve many."""
    from gpuadvisor.core import serving_load

    if not serving_load.serves_many(result) or result.fits is False:
        return None
    assumptions, options = resolve_options(args, result.plan, result.gpu, gpus)
    targets = {"min_tokens_per_s": getattr(args, "min_tokens_per_s", None),
               "max_first_token_s": getattr(args, "max_first_token", None)}
    try:
        return serving_load.capacity(result, assumptions=assumptions,
                                     **{k: v for k, v in targets.items() if v is not None},
                                     **options)
    except (ArithmeticError, ValueError) as exc:
        print(f"gpuadvisor estimate: serving capacity: {exc}", file=sys.stderr)
        return None


def checked_plan(args: argparse.Namespace, model):
    """The plan the flags give, refused (one line naming the flag) when a field or a pinned
    layout degree is wrong: what every verb that estimates a plan starts from."""
    try:
        plan = plan_from_args(args, model)
    except ValueError as exc:
        raise plan_problem(exc) from None
    check_layout_pins(plan)
    return plan


def check_layout_pins(plan) -> None:
    """Pinned degrees the GPU count cannot hold, refused naming their flag (``--pp 8k`` on
    8 GPUs: "--pp: pp 8000 does not divide n_gpus 8")."""
    from gpuadvisor.core.layout_pins import layout_pin_problem
    from gpuadvisor.workspace.planfile import plan_field_in_message

    problem = layout_pin_problem(plan)
    if problem is None:
        return
    name = plan_field_in_message(problem, prefer=("tp", "pp", "vpp", "cp", "ep"))
    flag = {"layout_global_batch": "--global-batch", "n_gpus": "--gpus"}.get(
        name or "", f"--{name}" if name else "layout")
    raise InputError(f"{flag}: {problem}")


def host_ram_check(result, units: str = "GiB"):
    """A plan that offloads to the CPU, checked against this machine's available RAM
    (``hardware.host_ram.HostRamCheck``); ``None`` when nothing is offloaded."""
    if not result.memory.cpu_bytes:
        return None
    from gpuadvisor.hardware.host_ram import check_this_machine

    return check_this_machine(result.memory.cpu_bytes, units=units)


def estimate_from_args(args: argparse.Namespace, model, plan, gpu, gpus):
    """``(estimate, assumptions)`` for the plan flags: ``--assume`` overrides, the probe
    history's measurement on ``gpu`` unless ``--no-measured``; InputError names what is
    refused. The estimate is :func:`gpuadvisor.core.resolve.resolve`'s, as every door's."""
    from gpuadvisor.core.resolve import resolve

    assumptions, options = resolve_options(args, plan, gpu, gpus)
    try:
        result = resolve(model, plan, gpu, assumptions, strict=True, **options)
    except ValueError as exc:
        text = str(exc)
        if text.startswith("layout:"):
            raise InputError(f"{text}; give --global-batch or other degrees") from None
        raise InputError(f"estimate: {text}") from None
    return result, assumptions


def resolve_options(args: argparse.Namespace, plan, gpu, gpus) -> tuple:
    """``(assumptions, options)``: what :func:`~gpuadvisor.core.resolve.resolve` takes
    besides the model, plan and GPU, from the flags (layout settings, the probe's
    measurement, host bandwidth); InputError names the flag."""
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
    from gpuadvisor.core.estimate import REFERENCE_GPU_ID

    try:
        assumptions = DEFAULT_ASSUMPTIONS.with_overrides(dict(args.assume))
    except ValueError as exc:
        raise InputError(f"--assume: {exc}") from None
    measurement = None
    if gpu is not None and not args.no_measured and plan.task == "infer" \
            and plan.framework == "vllm" \
            and "vllm_non_torch_bytes" not in dict(args.assume):
        from gpuadvisor.probes import observed

        assumptions, _ = observed.observed_assumptions(assumptions, observed.load(), gpu.id,
                                                       "vllm")
    if gpu is not None and not args.no_measured:
        # The probe history is read once per command, however many plans it resolves
        # (an export's runnable layout, the levers of a plan that does not fit).
        kept = args.__dict__.setdefault("_measurements", {})
        if gpu.id not in kept:
            kept[gpu.id] = stored_measurement(gpu, plan)
        measurement = kept[gpu.id]
    host_gb_s = getattr(args, "host_bandwidth", None)
    host_source = "--host-bandwidth"
    if host_gb_s is None and measurement:
        # This machine's RAM as the hostmem probe measured it (probe --inference).
        from gpuadvisor.core.calibration import host_bandwidth

        host = host_bandwidth(measurement)
        if host is not None and host.bandwidth_gb_s:
            host_gb_s = host.bandwidth_gb_s
            host_source = f"measured {host.when[:10]}"
    try:
        settings = layout_settings(args)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return assumptions, dict(settings=settings, reference_gpu=gpus[REFERENCE_GPU_ID],
                             measurement=measurement, host_bandwidth_gb_s=host_gb_s,
                             host_bandwidth_source=host_source)


def fit_advice(args: argparse.Namespace, model, plan, gpu, gpus):
    """What makes a plan that does not fit ``gpu`` fit: the fastest combination of levers
    (:func:`gpuadvisor.core.fit.make_it_fit`, each combination resolved as ``estimate``
    resolves the plan), as ``suggest`` and the app search it."""
    from gpuadvisor.core.advisor import DESKTOP_HOST_RAM_BYTES
    from gpuadvisor.core.fit import make_it_fit
    from gpuadvisor.core.resolve import resolve

    assumptions, options = resolve_options(args, plan, gpu, gpus)

    def timed(m, p, g, a):
        return resolve(m, p, g, a, **options)

    return make_it_fit(model, plan, gpu, assumptions, timed=timed,
                       host_ram_bytes=DESKTOP_HOST_RAM_BYTES)


def advice_json(advice) -> dict:
    """The ``to_fit`` object of ``estimate --json`` for a plan that does not fit."""
    data: dict = {"fits": advice.fits,
                  "levers": [{"id": s.id, "title": s.title, "detail": s.detail,
                              "cost": s.cost} for s in advice.steps]}
    if advice.fits and advice.result is not None:
        r = advice.result
        data.update(memory={"per_gpu_bytes": float(r.memory.total),
                            "cpu_offload_bytes": float(r.memory.cpu_bytes)},
                    time={"seconds": float(r.time.seconds),
                          "gpu_hours": float(r.time.gpu_hours)},
                    n_gpus=r.plan.n_gpus)
    return data


def advice_text(advice, units: str = "GiB") -> str:
    """The levers that make the plan fit, in words, with the memory and time of the plan as
    it will run with them."""
    from gpuadvisor.core.units import format_bytes, format_duration

    if not advice.fits:
        return ("To make it fit: no combination of levers is enough on this GPU (a shorter "
                "sequence, a smaller model or more GPUs than 16)")
    r = advice.result
    lines = ["To make it fit (the fastest combination that fits):"]
    lines += [f"  + {s.title}: {s.detail} ({s.cost})" for s in advice.steps]
    host = (f", {format_bytes(r.memory.cpu_bytes, units)} in host RAM"
            if r.memory.cpu_bytes else "")
    gpus = f" on {r.plan.n_gpus} GPUs" if r.plan.n_gpus > 1 else ""
    lines.append(f"  = {format_bytes(r.memory.total, units)} per GPU{host}{gpus}, "
                 f"{format_duration(r.time.seconds)}")
    return "\n".join(lines)


def layout_settings(args: argparse.Namespace):
    """The layout flags as :class:`~gpuadvisor.core.resolve.LayoutSettings` (the plan's own
    pins travel in the plan); ValueError names the flag."""
    from gpuadvisor.core.resolve import LayoutSettings

    return LayoutSettings(
        mode=getattr(args, "layout", None) or "auto",
        zero_pinned=getattr(args, "zero", None) is not None,
        hybrid_shard=bool(getattr(args, "hybrid_shard", False)),
        gpus_per_node=getattr(args, "gpus_per_node", None),
        network=getattr(args, "network", None),
        kernels=getattr(args, "kernels", None))


def stored_measurement(gpu, plan):
    """What the probe history measured on ``gpu`` (a list of core Measurements; the
    estimate picks the step/matmul one at the plan's dtype and the newest bandwidth).

    History problems (an unreadable file, moved aside) are reported on stderr; they never
    stop an estimate.
    """
    from gpuadvisor.probes import history

    warnings: list[str] = []
    try:
        found = history.measurements_for(gpu.id, warnings=warnings)
    except OSError as exc:
        warnings.append(f"probe history unavailable: {exc}")
        found = []
    except ImportError:  # a bare install without platformdirs: no history to read
        found = []
    for warning in warnings:
        print(f"gpuadvisor estimate: {warning}".replace("\n", " "), file=sys.stderr)
    return found or None
