"""``gpuadvisor export KIND``: a plan as a SkyPilot task, an accelerate or DeepSpeed config,
a launch line or a Markdown/HTML report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpuadvisor.core import plan as P
from gpuadvisor.core.limits import MAX_CHART_FILE_BYTES

from .args import InputError, did_you_mean, json_text, load_gpu, load_model, path_text
from .estimate import checked_plan, estimate_from_args, resolve_options

EXPORT_KINDS = ("skypilot", "accelerate", "deepspeed", "launch", "megatron", "report",
                "ollama", "llama-server", "vllm")
#: Inference-serving exports and the engine each runs (``export ollama``, or
#: ``export --format ollama``).
SERVE_KINDS = {"ollama": "ollama", "llama-server": "llama.cpp", "vllm": "vllm"}
#: Largest PNG ``--chart`` embeds (a full-HD page is well under 2 MB).
MAX_CHART_BYTES = MAX_CHART_FILE_BYTES


def add_parser(verbs, est: argparse.ArgumentParser) -> None:
    """``export KIND <estimate's plan flags> ...``: the plan flags are copied from ``est``
    (argparse ``parents``; est's -h comes along, so the export parser adds none)."""
    exp = verbs.add_parser(
        "export", parents=[est], add_help=False, conflict_handler="resolve",
        help="write a SkyPilot task, accelerate/DeepSpeed config, launch line, Megatron-LM "
             "launch, report, or an Ollama Modelfile / llama-server / vllm serve line",
        description="Turn a plan into a SkyPilot task YAML, an accelerate config YAML, a "
                    "DeepSpeed ZeRO JSON, the torchrun/accelerate launch line, a Megatron-LM "
                    "launch (tensor/pipeline/context/expert parallel layouts as priced), a "
                    "Markdown/HTML report, or (inference plans) an Ollama Modelfile, a "
                    "llama-server line or a vllm serve line with the settings the estimate "
                    "used. Prints to stdout unless --out is given.")
    exp.add_argument("kind", choices=EXPORT_KINDS, nargs="?", default=None,
                     help="what to write (or give a serving format with --format)")
    exp.add_argument("--offer", metavar="ID",
                     help="a rent/cloud offer from the offers catalog (its GPU, provider, spot "
                          "price and GPUs per instance)")
    exp.add_argument("--spot", action="store_true", help="skypilot: use spot instances")
    exp.add_argument("--cloud", metavar="NAME",
                     help="skypilot: SkyPilot cloud (aws, gcp, azure, lambda, runpod, vast, ...)")
    # --gpus-per-node comes from the estimate flags (GPUs per machine; for an export the
    # default is the offer's instance, else 8). Declaring it again here would, with
    # conflict_handler="resolve", strip the option string from the shared parent action and
    # turn estimate's --gpus-per-node into a stray positional argument.
    exp.add_argument("--accelerator", metavar="NAME",
                     help="skypilot: SkyPilot's GPU name when gpuadvisor knows none "
                          "(see 'sky show-gpus -a')")
    exp.add_argument("--launcher", choices=("torchrun", "accelerate", "megatron"),
                     default="torchrun",
                     help="how the launch line or SkyPilot task starts training: torchrun or "
                          "accelerate launch with your script, or megatron (Megatron-LM's "
                          "pretrain_gpt.py with the estimate's layout, tensor and pipeline "
                          "parallelism included; the same as export megatron)")
    # --backend means two things with disjoint values: what runs a ZeRO stage under
    # accelerate, and (estimate's flag) llama.cpp's GPU backend. The inherited action is
    # taken out first: redeclaring it under conflict_handler="resolve" would strip the option
    # string from the action estimate's parser shares.
    _drop_inherited(exp, "--backend")
    exp.add_argument("--backend", choices=(*ZERO_BACKENDS, *P.BACKENDS), default=None,
                     help="accelerate: what runs a ZeRO stage, deepspeed (default) or fsdp; "
                          "llama-server / inference plans: llama.cpp's GPU backend, "
                          f"{', '.join(P.BACKENDS)} (as estimate --backend)")
    exp.add_argument("--script", default="train.py", type=path_text("--script"),
                     help="your training script, in the launch line (default: train.py)")
    exp.add_argument("--chart", metavar="PNG", action="append", default=[],
                     type=path_text("--chart"),
                     help="report: embed this PNG (repeatable), e.g. a page exported from "
                          "the app; the command line renders no charts itself")
    exp.add_argument("--format", choices=("markdown", "html", *SERVE_KINDS), default=None,
                     help="report: markdown or html (default html when --out ends in .html); "
                          "or a serving format: ollama, llama-server, vllm (the same as "
                          "giving it as KIND)")
    exp.add_argument("--no-advice", action="store_true",
                     help="report: leave out the ten best buy/rent/cloud options")
    exp.add_argument("--out", metavar="FILE", help="write here (atomically) instead of stdout")
    exp.add_argument("--force", action="store_true", help="overwrite an existing --out file")


#: What runs a ZeRO stage under accelerate (``export --backend``).
ZERO_BACKENDS = ("deepspeed", "fsdp")


def _drop_inherited(parser: argparse.ArgumentParser, option: str) -> None:
    """Take ``option``'s action, inherited from a parent parser, out of ``parser`` alone
    (the parent keeps it, its help included)."""
    action = parser._option_string_actions.pop(option)
    for other in action.option_strings:
        parser._option_string_actions.pop(other, None)
    for group in parser._action_groups:
        if action in group._group_actions:
            group._group_actions.remove(action)
    parser._actions.remove(action)


def split_backend(value: str | None) -> tuple[str, str | None]:
    """``export --backend``'s value as ``(accelerate's ZeRO backend, llama.cpp's GPU
    backend or None)``."""
    if value in ZERO_BACKENDS:
        return value, None
    return ZERO_BACKENDS[0], value


def command(args: argparse.Namespace) -> int:
    """``export KIND``: the text on stdout, or written atomically to ``--out`` (an existing
    file only with ``--force``)."""
    from gpuadvisor.userfiles import check_replaceable, write_atomic

    args.zero_backend, args.backend = split_backend(args.backend)

    if args.out is not None and (not args.out.strip() or "\0" in args.out):
        raise InputError("--out: the path is empty" if not args.out.strip()
                         else "--out: the path contains a NUL character")
    out = Path(args.out) if args.out else None
    if out is not None:
        try:  # a symlink, FIFO or device there is never replaced, --force or not
            check_replaceable(out)
        except OSError as exc:
            raise InputError(f"--out: {out} {exc.strerror}") from None
        if out.exists() and not args.force:
            raise InputError(f"--out: {out} exists; add --force to overwrite it")
        if not out.parent.is_dir():
            raise InputError(f"--out: no such folder: {out.parent}")
    # Text that is not valid Unicode (a lone surrogate from a file name) is written as an
    # escape; the shell and YAML exports have quoted or refused it already.
    text = _with_command(args, _export_text(args))
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if out is None:
        if args.json:
            print(json_text({"export": args.kind, "text": text}, indent=None))
        else:
            sys.stdout.write(text)
        return 0
    try:
        write_atomic(out, text)
    except OSError as exc:
        raise InputError(f"--out: cannot write {out}: {exc.strerror or exc}") from None
    if args.json:
        print(json_text({"export": args.kind, "path": str(out)}, indent=None))
    else:
        print(f"Wrote {out}", file=sys.stderr)
    return 0


def _with_command(args: argparse.Namespace, text: str) -> str:
    """``text`` starting with the ``gpuadvisor estimate`` line that reproduces its estimate:
    a comment in the export's own syntax. JSON has no comments, so the DeepSpeed config
    starts with a ``"gpuadvisor"`` key holding the line (DeepSpeed's config reader keeps
    unknown top-level keys and ignores them; tests/export/test_real_tools.py reads it with
    DeepSpeed's own ``DeepSpeedConfig``)."""
    command = getattr(args, "reproduce", None)
    if not command:
        return text
    from gpuadvisor.export.quoting import comment_text

    line = f"Reproduce this estimate: {command}"
    if args.kind == "deepspeed":
        import json

        config = json.loads(text)
        return json.dumps({"gpuadvisor": line, **config}, indent=2) + "\n"
    if args.kind in ("skypilot", "accelerate", "launch", "megatron", "ollama", "llama-server",
                     "vllm"):
        return f"# {comment_text(line)}\n{text}"
    if args.kind == "report":
        doctype = "<!DOCTYPE html>\n"
        if text.startswith(doctype):  # a comment before the doctype would switch modes
            comment = "<!-- " + comment_text(line).replace("-->", "-- >") + " -->\n"
            return doctype + comment + text[len(doctype):]
        title, sep, rest = text.partition("\n")  # Markdown: under the title, as code
        code = comment_text(command).replace("``", "` `")
        return f"{title}\n\nReproduce this estimate: `` {code} ``\n{sep}{rest}"
    return text


def _reproduce(args: argparse.Namespace, plan, gpu) -> None:
    """Remember the estimate line of the plan an export writes (see :func:`_with_command`)."""
    from gpuadvisor.export.command import estimate_command

    if getattr(args, "plan_model", None) is not None:
        return  # a custom model from a plan file: no --model reproduces it
    try:
        args.reproduce = estimate_command(args.model, plan, gpu.id if gpu else None,
                                          hybrid_shard=bool(getattr(args, "hybrid_shard",
                                                                    False)))
    except ValueError:
        args.reproduce = None  # a name that cannot be written as a shell word


def _export_offer(args: argparse.Namespace):
    """The ``--offer`` (None without one); sets ``args.gpu`` to the offer's GPU."""
    if not args.offer:
        return None
    from gpuadvisor import catalog

    load_offers = getattr(catalog, "load_offers", None)
    if load_offers is None:
        raise InputError("--offer: the offers catalog is not available in this version; "
                         "give --gpu ID --gpus N [--spot] [--cloud NAME] instead")
    offers = load_offers()
    if args.offer not in offers:
        raise InputError(f"--offer: unknown offer {args.offer!r}"
                         f"{did_you_mean(args.offer, offers)}")
    offer = offers[args.offer]
    if args.gpu:
        named, _ = load_gpu(args.gpu)  # a name as drivers print it ("RTX 4090") is fine
        if named.id != offer.gpu_id:
            raise InputError(f"--gpu: offer {offer.id} is for {offer.gpu_id}, not {named.id}")
    args.gpu = offer.gpu_id
    if args.gpus == 1 and offer.gpus_per_instance > 1:
        # An instance is rented whole: its GPUs run the job (as suggest priced it), unless
        # --gpus asks for another count.
        args.gpus = offer.gpus_per_instance
    return offer


def _resolve_kind(args: argparse.Namespace) -> None:
    """``args.kind`` from ``--format`` for the serving exports; InputError when neither or
    both disagree."""
    serve = args.format if args.format in SERVE_KINDS else None
    if args.kind is None:
        if serve is None:
            raise InputError(f"export: give what to export: {', '.join(EXPORT_KINDS)}")
        args.kind = serve
    elif serve is not None and serve != args.kind:
        raise InputError(f"--format {serve} disagrees with export {args.kind}")
    if args.kind != "report" and args.format in ("markdown", "html"):
        raise InputError(f"--format {args.format} is for the report, not {args.kind}")


def _export_serve(args: argparse.Namespace, model) -> str:
    """An Ollama Modelfile / llama-server / vllm serve line from the plan's estimate."""
    from gpuadvisor import export

    engine = SERVE_KINDS[args.kind]
    if args.model == "-":
        raise InputError(f"--model: a config.json piped in names no model {engine} can load; "
                         "give --model a preset id, a Hugging Face repo id or a file path")
    if args.framework not in ("auto", engine):
        raise InputError(f"--framework {args.framework}: export {args.kind} runs on {engine}")
    args.framework = engine
    if args.task != "infer":
        raise InputError(f"--task: export {args.kind} serves an inference plan (--task infer)")
    gpu, gpus = load_gpu(args.gpu, observed=not getattr(args, "no_measured", False))
    plan = checked_plan(args, model)
    result, _ = estimate_from_args(args, model, plan, gpu, gpus)
    _reproduce(args, plan, gpu)
    if result.fits is False:
        print(f"gpuadvisor export: warning: {result.verdict} on {gpu.name} as planned",
              file=sys.stderr)
    write = {"ollama": export.ollama_modelfile, "llama-server": export.llama_server_line,
             "vllm": export.vllm_serve_line}[args.kind]
    try:
        return write(result, args.model, ids=_serving_ids(args.model))
    except ValueError as exc:
        raise InputError(f"export {args.kind}: {exc}") from None


def _vllm_line_for_task(args, model, plan, gpu, gpus) -> tuple[str, float]:
    """The ``vllm serve`` line a SkyPilot task of an inference plan runs (the plan must be
    estimated on vLLM, so its memory and time are vLLM's), and its memory per GPU."""
    from gpuadvisor import export

    result, _ = estimate_from_args(args, model, plan, gpu, gpus)
    if result.engine_name != "vllm":
        raise InputError(f"--framework: a SkyPilot task serves the model with vLLM; this "
                         f"plan runs on {result.engine_name or 'no engine'}: give "
                         "--framework vllm (or export llama-server / ollama for your own "
                         "machine)")
    return (export.vllm_serve_line(result, args.model, ids=_serving_ids(args.model)),
            float(result.memory.total))


def _serving_ids(model_ref: str):
    """The serving identifiers of a preset id (None for a path, a repo id or a tag)."""
    from gpuadvisor import catalog

    try:
        return catalog.load_serving().get(model_ref)
    except catalog.CatalogError as exc:
        print(f"gpuadvisor export: {exc}".replace("\n", "; "), file=sys.stderr)
        return None


def _export_text(args: argparse.Namespace) -> str:
    from gpuadvisor import export

    _resolve_kind(args)
    if args.kind in SERVE_KINDS:
        return _export_serve(args, load_model(args.model))
    offer = _export_offer(args)
    model = load_model(args.model)
    gpu, gpus = load_gpu(args.gpu, observed=not getattr(args, "no_measured", False))
    plan = checked_plan(args, model)
    need = found = None
    if args.kind == "launch" and args.launcher == "megatron":
        args.kind = "megatron"
    if args.kind not in ("skypilot", "launch", "megatron") and args.launcher == "megatron":
        raise InputError(f"--launcher megatron: export {args.kind} has no launcher; give "
                         "export megatron or export skypilot --launcher megatron")
    megatron = args.kind == "megatron" or (args.kind == "skypilot"
                                           and args.launcher == "megatron")
    if megatron and not plan.is_training:
        raise InputError("--task: a Megatron-LM launch trains; an inference plan is served "
                         "(export vllm, llama-server or ollama)")
    if args.kind != "report" and plan.is_training:
        found = _runnable_plan(args, model, plan, gpu, gpus,
                               kind="megatron" if megatron else args.kind)
        plan, hybrid, need = found.plan, found.hybrid_group, float(found.estimate.memory.total)
    else:
        hybrid = None
    if args.kind != "report":
        _reproduce(args, plan, gpu)
    try:
        if args.kind == "report":
            return _export_report(args, model, plan, gpu, gpus)
        if args.kind == "deepspeed":
            return export.deepspeed_json(plan, hybrid_group=hybrid)
        if args.kind == "skypilot":
            if gpu is None:
                raise InputError("--gpu: a SkyPilot task needs a GPU: give --gpu ID or --offer ID")
            serve = None
            if not plan.is_training:
                serve, need = _vllm_line_for_task(args, model, plan, gpu, gpus)
            return export.skypilot_task(
                model, plan, gpu, offer, gpus_per_node=args.gpus_per_node,
                megatron=_megatron_writer(model, plan, found, skypilot=True) if megatron
                else None,
                cloud=args.cloud, spot=True if args.spot else None,
                accelerator=args.accelerator, launcher=args.launcher,
                backend=args.zero_backend, script=args.script, serve=serve,
                need_bytes=need, catalog_gpus=gpus, hybrid_group=hybrid)
        per_node = args.gpus_per_node or (offer.gpus_per_instance if offer else None)
        layout = export.node_layout(plan.n_gpus, per_node or export.DEFAULT_GPUS_PER_NODE)
        title = f"{model.name}: {plan.task} on {plan.n_gpus} GPU(s)"
        if args.kind == "megatron":
            return _megatron_writer(model, plan, found, title=title)(layout)
        if args.kind == "accelerate":
            return export.accelerate_yaml(plan, layout, backend=args.zero_backend, gpu=gpu,
                                          hybrid_group=hybrid)
        return export.launch_script(plan, layout, launcher=args.launcher,
                                    backend=args.zero_backend, script=args.script, title=title)
    except ValueError as exc:
        raise InputError(f"export {args.kind}: {exc}") from None


def _megatron_writer(model, plan, found, *, skypilot: bool = False, title: str = ""):
    """The Megatron-LM script of the runnable plan ``found`` for given nodes."""
    from gpuadvisor.export import megatron_script
    from gpuadvisor.export.runnable import chosen_layout, packed_steps

    chosen = chosen_layout(found.estimate)
    steps = packed_steps(found.estimate, chosen)
    data = found.estimate.assumptions.get("dataset")
    return lambda nodes: megatron_script(model, plan, chosen, nodes, steps=steps,
                                         skypilot=skypilot, title=title, data=data)


def _export_report(args, model, plan, gpu, gpus) -> str:
    from gpuadvisor.export import html_report, markdown_report

    result, assumptions = estimate_from_args(args, model, plan, gpu, gpus)
    from gpuadvisor.core.resolve import run_plan
    from gpuadvisor.userfiles import read_regular_file

    _reproduce(args, run_plan(result), gpu)

    charts = []
    for name in args.chart:
        try:
            charts.append((Path(name).stem, read_regular_file(name, MAX_CHART_BYTES)))
        except (OSError, ValueError) as exc:
            raise InputError(f"--chart: cannot read {name}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None
    html = args.format == "html" or (
        args.format is None and str(args.out or "").lower().endswith((".html", ".htm")))
    probes = _report_probes(gpu) if gpu is not None and not args.no_measured else None
    suggestions = None if args.no_advice else _report_suggestions(model, plan, gpus,
                                                                   assumptions)
    return (html_report if html else markdown_report)(result, charts=charts, probes=probes,
                                                      suggestions=suggestions)


def _report_probes(gpu) -> list[dict] | None:
    """The newest probe run on ``gpu`` from the history, as report rows (None if none)."""
    from gpuadvisor.probes import history

    try:
        return history.latest_results(gpu.id)
    except (OSError, ImportError):
        return None


def _report_suggestions(model, plan, gpus, assumptions, limit: int = 10) -> list | None:
    """The ten best options of ``suggest`` (no rig: a report travels), or None."""
    from datetime import UTC, datetime

    from gpuadvisor import catalog
    from gpuadvisor.core.advisor import advise
    from gpuadvisor.export.report import advice_rows
    from gpuadvisor.workspace.settings import load_settings

    try:
        offers = catalog.load_offers()
        settings, _problem = load_settings()
        advice = advise(model, plan, gpus, offers.values(), assumptions=assumptions,
                        usd_per_kwh=settings.electricity_usd_per_kwh,
                        today=datetime.now(UTC).date())
    except (catalog.CatalogError, ValueError) as exc:
        print(f"gpuadvisor export: report without suggestions: {exc}", file=sys.stderr)
        return None
    return advice_rows(advice.suggestions, limit)


def _runnable_plan(args, model, plan, gpu, gpus, *, kind: str):
    """The :class:`~gpuadvisor.export.runnable.RunnablePlan` export ``args.kind`` writes
    (:func:`gpuadvisor.export.runnable.runnable_plan`: the estimate's layout, or the fastest
    data-parallel one when the tool cannot run it, said on stderr)."""
    from gpuadvisor.core.resolve import resolve
    from gpuadvisor.core.units import format_bytes
    from gpuadvisor.export.runnable import runnable_plan

    result, assumptions = estimate_from_args(args, model, plan, gpu, gpus)

    def resolve_with(**changes):
        _, options = resolve_options(args, plan, gpu, gpus)
        # A ValueError (no layout holds the batch) goes back to runnable_plan, which tries
        # another plan or refuses with the reason (said as ``export KIND: ...``).
        return resolve(model, plan.with_changes(**changes), gpu, assumptions, strict=True,
                       **options)

    try:
        found = runnable_plan(result, kind, resolve_with, backend=args.zero_backend)
    except ValueError as exc:
        raise InputError(f"export {args.kind}: {exc}") from None
    if found.note:
        print(f"gpuadvisor export: {found.note}", file=sys.stderr)
    result = found.estimate
    if gpu is not None and result.fits is False:
        print(f"gpuadvisor export: warning: the plan needs "
              f"{format_bytes(result.memory.total)} per GPU and {gpu.name} has "
              f"{format_bytes(result.capacity_bytes, digits=0)}: it will not fit as planned "
              "(estimate --gpu lists the levers that make it fit)", file=sys.stderr)
    return found
