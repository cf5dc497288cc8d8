"""Command line: ``gpuadvisor estimate``, ``catalog list|show|validate``, ``detect``, ``probe``,
``gui``.

Contract (DESIGN.md §3): ``--json`` prints one JSON object on stdout; otherwise a table for
people. Bad input exits with status 2 and one line on stderr naming the bad field.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from . import __version__

EXIT_BAD_INPUT = 2


class InputError(Exception):
    """Bad user input: reported as one line on stderr with exit status 2."""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line naming the problem (exit 2)."""

    def error(self, message: str) -> None:  # argparse's API: must not return
        raise InputError(f"{self.prog}: {message}")


# --------------------------------------------------------------------------- value types
def _positive_int(text: str) -> int:
    """argparse type: a whole number above zero (argparse names the flag in its error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {value}")
    return value


def _count(flag: str):
    def parse(text: str) -> float:
        from .core.units import parse_count

        try:
            value = parse_count(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
        return value

    return parse


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


def _assumption(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


# --------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every verb."""
    from .core import plan as P

    parser = _Parser(prog="gpuadvisor", description=(
        "Will this training or inference plan fit my GPU, and how long will it take?"))
    parser.add_argument("--version", action="version", version=f"gpuadvisor {__version__}")
    parser.add_argument("--self-test", action="store_true",
                        help="check this installation without a screen: load the catalog, "
                             "estimate a plan, render every page; print one line, exit 0 "
                             "if all is well")
    verbs = parser.add_subparsers(dest="verb", parser_class=_Parser)

    est = verbs.add_parser("estimate", help="memory, time and fit for a plan",
                           description="Estimate VRAM per GPU and time for a plan.")
    est.add_argument("--model", required=True,
                     help="preset id (see 'catalog list --kind models') or a config.json path")
    est.add_argument("--task", choices=P.TASKS, default="full")
    est.add_argument("--precision", choices=P.PRECISIONS, default="bf16")
    est.add_argument("--optimizer", choices=P.OPTIMIZERS, default="adamw")
    est.add_argument("--micro-batch", type=_positive_int, default=1)
    est.add_argument("--grad-accum", type=_positive_int, default=1)
    est.add_argument("--seq", type=_positive_int, default=None,
                     help="sequence length (default: 2048, or the model's context if shorter)")
    est.add_argument("--checkpointing", choices=P.CHECKPOINTING, default="none")
    est.add_argument("--attention", choices=P.ATTENTION, default="flash")
    est.add_argument("--gpu", help="catalog GPU id (see 'catalog list'); checks the fit")
    est.add_argument("--gpus", type=_positive_int, default=1)
    est.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=0)
    est.add_argument("--offload", choices=P.OFFLOAD, default="none")
    data = est.add_mutually_exclusive_group()
    data.add_argument("--tokens", type=_count("--tokens"), help="training tokens, e.g. 2T, 300M")
    data.add_argument("--samples", type=_count("--samples"), help="samples per epoch")
    est.add_argument("--epochs", type=_count("--epochs"), default=None)
    est.add_argument("--lora-rank", type=_positive_int)
    est.add_argument("--lora-targets", choices=P.LORA_TARGETS, default="all")
    est.add_argument("--quant", choices=P.QUANT)
    est.add_argument("--new-tokens", type=_positive_int, default=256,
                     help="inference: tokens generated per sequence")
    est.add_argument("--kv-dtype", choices=P.KV_DTYPES)
    est.add_argument("--efficiency", type=_fraction, help="achieved fraction of peak, e.g. 0.4")
    est.add_argument("--assume", type=_assumption, action="append", default=[],
                     metavar="NAME=VALUE", help="override an assumption (repeatable)")
    est.add_argument("--no-measured", action="store_true",
                     help="ignore throughput measured on --gpu by 'gpuadvisor probe' "
                          "(default: the latest measurement calibrates the time)")
    est.add_argument("--units", choices=("GiB", "GB"), default="GiB")
    est.add_argument("--json", action="store_true", help="print one JSON object")

    cat = verbs.add_parser("catalog", help="list, show and validate catalog data")
    cat_verbs = cat.add_subparsers(dest="catalog_verb", parser_class=_Parser)
    lst = cat_verbs.add_parser("list", help="list GPUs, models or offers")
    lst.add_argument("--kind", choices=("gpus", "models", "offers"), default="gpus")
    lst.add_argument("--json", action="store_true")
    show = cat_verbs.add_parser("show", help="show one GPU, model or offer")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    val = cat_verbs.add_parser("validate", help="check a catalog file; exit 2 if it has problems")
    val.add_argument("path")
    upd = cat_verbs.add_parser(
        "update", help="install a newer catalog file from a path or an https:// URL",
        description="Read a catalog file (local path, or https:// URL: at most 5 MB, 20 s), "
                    "validate all of it, and swap it in for the shipped one in the user data "
                    "folder (catalog/updates/KIND.toml; the one it replaces is kept as "
                    "KIND.toml.previous). A bad file changes nothing. Nothing is downloaded "
                    "unless you run this.")
    upd.add_argument("--from", dest="source", required=True, metavar="PATH|URL",
                     help="the new catalog file: a local path or an https:// URL")
    upd.add_argument("--kind", choices=("offers", "gpus", "models"), default=None,
                     help="the catalog kind (default: told from the file name)")
    upd.add_argument("--json", action="store_true", help="print one JSON object")

    det = verbs.add_parser("detect", help="the GPUs and host of this machine (or a simulated rig)",
                           description="Detect GPUs (NVML, sysfs, Apple) and the host.")
    det.add_argument("--simulate", metavar="SPEC",
                     help="a simulated rig instead of this machine: catalog ids like "
                          "'2x rtx-3090', 'rtx-3090+rtx-3060-12gb', or a scenario "
                          "(one-gpu, mixed, unsupported-fields, gpu-lost, no-gpu)")
    det.add_argument("--data-dir", metavar="PATH", default=None,
                     help="folder whose free disk space to report (default: current folder)")
    det.add_argument("--no-torch", action="store_true",
                     help="skip asking a subprocess whether torch works (faster)")
    det.add_argument("--json", action="store_true", help="print one JSON object")

    prb = verbs.add_parser(
        "probe", help="measure this machine's GPU (or CPU) with torch in a subprocess",
        description="Measure matmul throughput and memory bandwidth on this machine. The "
                    "probes run torch in a worker subprocess, with this interpreter or --python.")
    suite = prb.add_mutually_exclusive_group()
    suite.add_argument("--quick", dest="suite", action="store_const", const="quick",
                       help="small sizes, under a minute (the default)")
    suite.add_argument("--full", dest="suite", action="store_const", const="full",
                       help="larger sizes, a few minutes")
    prb.set_defaults(suite="quick")
    prb.add_argument("--device", type=_probe_device, default="auto",
                     help="GPU index N, or cpu (default: the first GPU, else the CPU)")
    prb.add_argument("--python", metavar="PATH",
                     help="interpreter (or virtual environment) with torch to run the probes "
                          "in, e.g. your training environment; remembered for the next runs "
                          "(default: the remembered one, else this one if it has torch, else "
                          "the first with torch in conda envs, virtualenvs or on PATH)")
    prb.add_argument("--no-remember", action="store_true",
                     help="do not remember --python in the settings")
    prb.add_argument("--list-pythons", action="store_true",
                     help="list the interpreters found (conda envs, virtualenvs, PATH) with "
                          "their torch version and accelerators, and exit")
    prb.add_argument("--probes", type=_probe_names, default=None, metavar="NAMES",
                     help="comma-separated probes to run (default: the suite: "
                          "matmul, bandwidth, transfer, step)")
    prb.add_argument("--plan", metavar="FILE",
                     help="check a .gpuplan on this device: build the planned model at depth "
                          "1 and 2, time training steps (and peak memory on a GPU), "
                          "extrapolate to the full depth and show it next to the estimate")
    prb.add_argument("--data", metavar="FOLDER",
                     help="also measure how fast the dataset folder reads (sequential, "
                          "page cache dropped where the OS allows) and whether it keeps up "
                          "with the training step's tokens/s")
    prb.add_argument("--token-format", choices=("uint16", "uint32", "text"), default="uint16",
                     help="how the dataset stores tokens, for --data: uint16/uint32 "
                          "pre-tokenized ids (2/4 bytes per token) or raw text (~4 bytes "
                          "per token); default uint16")
    prb.add_argument("--history", action="store_true",
                     help="show the stored runs per device (oldest first, with the change "
                          "from the previous run) and exit")
    prb.add_argument("--timeout", type=_positive_seconds, default=None, metavar="SECONDS",
                     help="stop the worker after this long (default: 180 quick, 900 full or "
                          "--plan, burn-in length + 10%% + 300)")
    prb.add_argument("--burn-in", type=_burn_in_minutes, default=None, metavar="MIN",
                     help="run only the burn-in for MIN minutes (fractions allowed, at most "
                          f"{BURN_IN_MAX_MIN}): sustained matmuls, every result checked "
                          "exactly, throughput per time window, with the GPU's temperature, "
                          "clocks and power recorded; exit status 0: no wrong result, 1: "
                          "wrong results found (or the run failed), 2: bad input")
    prb.add_argument("--temp-limit", type=_temp_limit, default=None, metavar="C",
                     help="with --burn-in: stop early when the GPU reaches C °C (default: "
                          "3 °C below the card's slowdown temperature, else 85)")
    prb.add_argument("--no-save", action="store_true",
                     help="do not record the results in the probe history (default: record "
                          "them; 'estimate --gpu' then uses them)")
    prb.add_argument("--json", action="store_true", help="print one JSON object")

    gui = verbs.add_parser("gui", help="open the desktop app (the default with no arguments)",
                           description="Open the desktop app, or render it offscreen to a PNG.")
    add_gui_arguments(gui)
    _add_export_parser(verbs, est)
    _add_suggest_parser(verbs, est)
    return parser


def add_gui_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``gui`` verb's flags (shared with the ``gpuadvisor-gui`` entry point)."""
    parser.add_argument("--screenshot", metavar="PATH",
                        help="render the window offscreen, write a PNG to PATH and exit")
    parser.add_argument("--page", choices=("rig", "probe", "plan", "compare"), default=None,
                        help="page to show first (default: plan)")
    parser.add_argument("--plan", metavar="FILE", help="open a .gpuplan file")
    parser.add_argument("--size", metavar="WxH", type=_size, default=None,
                        help="window size for --screenshot (default 1600x1000)")
    parser.add_argument("--presentation", action="store_true",
                        help="start in presentation mode (large fonts, high contrast)")
    parser.add_argument("--simulate", metavar="SPEC", default=None,
                        help="show a demo rig instead of this machine: catalog ids like "
                             "'2x rtx-3090', 'h100-sxm', or a scenario (one-gpu, mixed, "
                             "unsupported-fields, gpu-lost, no-gpu)")
    parser.add_argument("--startup-probe", action="store_true", help=argparse.SUPPRESS)


def _probe_device(text: str) -> str:
    import re

    value = text.strip().lower()
    if value in ("auto", "cpu", "mps") or re.fullmatch(r"\d+|(cuda|xpu):\d+", value):
        return value
    raise argparse.ArgumentTypeError(f"expected a GPU index N or cpu, got {text!r}")


def _probe_names(text: str) -> tuple[str, ...]:
    from .probes.runner import PROBES

    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in PROBES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown probe {', '.join(unknown) or text!r}; known: {', '.join(PROBES)}")
    return names


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


#: The longest ``probe --burn-in``, in minutes (a day).
BURN_IN_MAX_MIN = 24 * 60
#: ``--temp-limit`` range, °C: below it no GPU can work under load, above it none survives.
TEMP_LIMIT_RANGE_C = (30.0, 120.0)


def _burn_in_minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of minutes: {text!r}") from None
    if not 0 < value <= BURN_IN_MAX_MIN:
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {BURN_IN_MAX_MIN} minutes (24 h), got {text}")
    return value


def _temp_limit(text: str) -> float:
    low, high = TEMP_LIMIT_RANGE_C
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a temperature in °C: {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(
            f"must be between {low:g} and {high:g} °C, got {text}")
    return value


def _size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        size = (0, 0)
    if not sep or min(size) < 200 or max(size) > 10000:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT like 1600x1000, got {text!r}")
    return size


# --------------------------------------------------------------------------- verbs
def _load_model(ref: str):
    from . import catalog
    from .core.model import spec_from_hf_config

    path = Path(ref)
    if ref.endswith(".json") or path.is_file():
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"--model: file not found: {ref}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"--model: cannot read {ref}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"--model: {ref} is not valid JSON: {exc}") from None
        if not isinstance(config, dict):
            raise InputError(f"--model: {ref} must hold a JSON object (a config.json)")
        try:
            return spec_from_hf_config(config, model_id=path.stem, name=path.parent.name or None)
        except ValueError as exc:
            raise InputError(f"--model: {ref}: {exc}") from None
    models = catalog.load_models()
    if ref not in models:
        raise InputError(f"--model: unknown preset {ref!r}{_suggest(ref, models)}")
    return models[ref]


def _load_gpu(ref: str | None):
    from . import catalog

    gpus = catalog.load_gpus()
    if ref is None:
        return None, gpus
    if ref not in gpus:
        raise InputError(f"--gpu: unknown GPU {ref!r}{_suggest(ref, gpus)}")
    return gpus[ref], gpus


def _suggest(name: str, known) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    if close:
        return f" (did you mean {', '.join(close)}?)"
    return " (see 'gpuadvisor catalog list')"


def plan_from_args(args: argparse.Namespace, model):
    """Build a Plan from parsed ``estimate`` flags; ValueError names the bad field."""
    from .core.plan import Plan

    seq = args.seq
    if seq is None:
        limit = getattr(model, "max_positions", 0) or 2048
        seq = min(2048, limit) if model.kind != "opaque" else 1
    data = {}
    if args.tokens is not None:
        data["dataset_tokens"] = args.tokens
    if args.samples is not None:
        data["dataset_samples"] = args.samples
    if args.epochs is not None:
        if args.samples is None:
            raise InputError("--epochs: give --samples with --epochs (--tokens counts all epochs)")
        data["epochs"] = args.epochs
    return Plan(
        task=args.task,
        precision=args.precision,
        optimizer=args.optimizer,
        micro_batch=args.micro_batch,
        grad_accum=args.grad_accum,
        seq_len=seq,
        checkpointing=args.checkpointing,
        attention=args.attention,
        lora_rank=args.lora_rank,
        lora_targets=args.lora_targets,
        quant=args.quant,
        n_gpus=args.gpus,
        zero_stage=args.zero,
        offload=args.offload,
        new_tokens=args.new_tokens,
        kv_dtype=args.kv_dtype,
        efficiency=args.efficiency,
        **data,
    )


def _estimate(args: argparse.Namespace) -> int:
    from .core.assumptions import DEFAULT_ASSUMPTIONS
    from .core.estimate import REFERENCE_GPU_ID, estimate

    model = _load_model(args.model)
    gpu, gpus = _load_gpu(args.gpu)
    try:
        plan = plan_from_args(args, model)
    except ValueError as exc:
        raise InputError(f"plan: {exc}") from None
    try:
        assumptions = DEFAULT_ASSUMPTIONS.with_overrides(dict(args.assume))
    except ValueError as exc:
        raise InputError(f"--assume: {exc}") from None
    measurement = None
    if gpu is not None and not args.no_measured:
        measurement = _stored_measurement(gpu, plan)
    try:
        result = estimate(model, plan, gpu, assumptions, reference_gpu=gpus[REFERENCE_GPU_ID],
                          measurement=measurement)
    except ValueError as exc:
        raise InputError(f"estimate: {exc}") from None
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=_json_default))
    else:
        from .report import estimate_table

        print(estimate_table(result, units=args.units))
    return 0


def _stored_measurement(gpu, plan):
    """What the probe history measured on ``gpu`` (a list of core Measurements; the
    estimate picks the step/matmul one at the plan's dtype and the newest bandwidth).

    History problems (an unreadable file, moved aside) are reported on stderr; they never
    stop an estimate.
    """
    from .probes import history

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


def _json_default(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _catalog(args: argparse.Namespace) -> int:
    from . import catalog

    if args.catalog_verb == "validate":
        problems = catalog.validate_file(args.path)
        if problems:
            for line in problems:
                print(line, file=sys.stderr)
            return EXIT_BAD_INPUT
        print(f"{args.path}: OK")
        return 0
    if args.catalog_verb == "list":
        items = _catalog_items(args.kind)
        if args.json:
            print(json.dumps({"items": items}, indent=2, default=_json_default))
        elif args.kind == "offers":
            print(_offers_table(items))
        else:
            from .report import catalog_table

            print(catalog_table(args.kind, items))
        for warning in catalog.catalog_warnings():
            print(f"gpuadvisor catalog: {warning}", file=sys.stderr)
        return 0
    if args.catalog_verb == "show":
        for kind in ("gpus", "models", "offers"):
            for item in _catalog_items(kind):
                if item["id"] == args.id:
                    if args.json:
                        print(json.dumps(item, indent=2, default=_json_default))
                    else:
                        width = max(len(k) for k in item)
                        print("\n".join(f"{k:<{width}}  {v}" for k, v in item.items()))
                    return 0
        known = [i["id"] for k in ("gpus", "models", "offers") for i in _catalog_items(k)]
        raise InputError(f"catalog show: unknown id {args.id!r}{_suggest(args.id, known)}")
    if args.catalog_verb == "update":
        return _catalog_update(args)
    raise InputError("catalog: say list, show, validate or update")


def _catalog_update(args: argparse.Namespace) -> int:
    """``catalog update --from PATH|URL [--kind K]``: install, then say what changed."""
    from . import catalog

    try:
        result = catalog.update_catalog(args.source, args.kind)
    except catalog.UpdateError as exc:
        raise InputError(f"catalog update: {exc}") from None
    changes = result.changes
    if args.json:
        print(json.dumps({
            "kind": result.kind, "source": result.source, "path": str(result.path),
            "backup": str(result.backup) if result.backup else None,
            "size_bytes": result.size_bytes,
            "added": list(changes.added), "removed": list(changes.removed),
            "changed": {k: [list(d) for d in v] for k, v in changes.changed.items()},
        }, indent=2, default=_json_default))
        return 0
    print(f"{result.kind}: installed {result.path} ({result.size_bytes} bytes) from "
          f"{result.source}")
    if result.backup:
        print(f"previous file kept as {result.backup}")
    print(f"{result.kind}: {changes.summary()}" if not changes.unchanged
          else f"{result.kind}: no entries changed")
    for line in changes.lines():
        print(f"  {line}")
    return 0


def _offers_table(items: list[dict]) -> str:
    """A compact table of offers: price per card (buy) or per GPU-hour (rent, cloud)."""
    header = (f"{'id':<34}{'kind':<9}{'gpu':<24}{'provider':<20}{'price':>11}  "
              f"{'as of':<11}")
    rows = []
    for i in items:
        unit = "" if i["kind"].startswith("buy") else "/h"
        flags = ("*" if i["estimate"] else "") + (" spot" if i["spot"] else "") + (
            " (yours)" if i["user"] else "")
        price = f"${i['price_usd']:,.2f}{unit}"
        rows.append(f"{i['id'][:33]:<34}{i['kind']:<9}{i['gpu_id'][:23]:<24}"
                    f"{i['provider'][:19]:<20}{price:>11}  {i['as_of']:<11}{flags}")
    return "\n".join([header, *rows, f"({len(items)} offers; * estimate; rent and cloud "
                                      "prices are per GPU-hour)"])


def _catalog_items(kind: str) -> list[dict]:
    from dataclasses import asdict

    from . import catalog

    if kind == "gpus":
        return [asdict(g) for g in catalog.load_gpus().values()]
    if kind == "models":
        items = []
        for spec in catalog.load_models().values():
            item = asdict(spec)
            item.pop("extra", None)
            counts = spec.params()
            item["params_total"] = counts.total
            item["params_active"] = counts.active
            items.append(item)
        return items
    if kind == "offers":
        items = []
        gpus = catalog.load_gpus()
        for offer in catalog.load_offers().values():
            item = asdict(offer)
            gpu = gpus.get(offer.gpu_id)
            what = offer.instance or (gpu.name if gpu else offer.gpu_id)
            item["name"] = f"{offer.provider}: {what}"
            items.append(item)
        return items
    raise InputError(f"catalog list: unknown kind {kind!r}")


def _detect(args: argparse.Namespace) -> int:
    from .hardware import detect

    try:
        result = detect(args.simulate, data_dir=args.data_dir, probe_torch=not args.no_torch)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=_json_default))
    else:
        from .hardware.text import detection_text

        print(detection_text(result))
    return 0


#: Seconds a whole probe run may take before the worker is stopped.


def _probe_python(text: str | None) -> str:
    """The interpreter for the worker: this one, or ``--python`` (a venv folder is accepted)."""
    if text is None:
        return sys.executable
    path = Path(text).expanduser()
    if path.is_dir():
        for candidate in (path / "bin" / "python", path / "Scripts" / "python.exe",
                          path / "python.exe"):
            if candidate.is_file():
                return str(candidate)
        raise InputError(f"--python: no Python interpreter in the folder {text}")
    if not path.is_file():
        raise InputError(f"--python: not found: {text}")
    return str(path)


def _probe(args: argparse.Namespace) -> int:
    if args.history:
        return _probe_history(args)
    from .probes import runner

    if args.list_pythons:
        return _list_pythons(args)
    if args.burn_in is not None or args.temp_limit is not None:
        _check_burn_in_flags(args)
    plan_check = _plan_check_input(args) if args.plan is not None else None
    if args.python is not None:
        python, no_torch_note = _probe_python(args.python), ""
    else:
        python, no_torch_note = _find_probe_python()
    if args.burn_in is not None:
        return _burn_in(args, python, no_torch_note)
    if plan_check is not None:
        return _probe_plan(args, plan_check, python, no_torch_note)
    probes = tuple(args.probes or runner.SUITE_PROBES)
    options = None
    if args.data is not None:
        folder = Path(args.data).expanduser()
        if not folder.is_dir():
            raise InputError(f"--data {args.data}: not a folder")
        probes = (*[p for p in probes if p != "dataread"], "dataread")
        options = {"dataread": {"path": str(folder.resolve())}}
    outcome = _run_worker(args, probes, python, options)
    if isinstance(outcome, int):
        return outcome
    run, saved, save_problems = outcome
    verdict = _data_verdict(run, args.token_format)
    if args.json:
        data = run.to_json()
        data["history"] = [str(path) for path in saved]
        if verdict is not None:
            data["data_pipeline"] = {"read_mb_s": verdict.read_mb_s,
                                     "needed_mb_s": verdict.needed_mb_s,
                                     "headroom": verdict.headroom,
                                     "bottleneck": verdict.bottleneck,
                                     "message": verdict.message}
        print(json.dumps(data, indent=2, default=_json_default))
    else:
        print(_probe_text(run, args.suite))
        if verdict is not None:
            print(f"Data pipeline: {verdict.message}")
        for path in saved:
            print(f"Saved to the probe history: {path}")
    for problem in save_problems:
        print(f"gpuadvisor probe: {problem}".replace("\n", " "), file=sys.stderr)
    if run.torch_missing:
        print(f"gpuadvisor probe: torch is not installed in {python}{no_torch_note}; install "
              "it there (pip install torch) or use your training environment: "
              "--python /path/to/your/training/env/bin/python", file=sys.stderr)
        return 1
    if not run.ok:
        for error in run.errors:
            if not args.json:
                print(f"gpuadvisor probe: {error.probe or 'run'}: {error.kind}: "
                      f"{error.message}".replace("\n", " "), file=sys.stderr)
        return 1
    return 0


def _run_worker(args: argparse.Namespace, probes, python: str, options,
                kind: str | None = None):
    """Run ``probes`` in the worker with a progress line on a terminal, then the common
    aftermath: a bad ``--device`` is bad input, a working ``--python`` is remembered, the
    results go to the history (unless ``--no-save``). ``kind`` picks the default time limit
    (:data:`gpuadvisor.probes.runner.TIMEOUTS_S`; default: the suite's).

    Returns:
        ``(run, saved files, save problems)``, or 130 when interrupted (Ctrl-C).
    """
    from .probes import runner
    from .probes.protocol import Progress

    show_progress = not args.json and sys.stderr.isatty()

    def on_message(message) -> None:
        if show_progress and isinstance(message, Progress):
            print(f"\r\x1b[K{message.probe:<10} {message.fraction:4.0%}  {message.message}",
                  end="", file=sys.stderr, flush=True)

    try:
        run = runner.run_probes(probes, python=python, device=args.device,
                                timeout_s=args.timeout
                                or runner.TIMEOUTS_S[kind or args.suite],
                                quick=args.suite == "quick", on_message=on_message,
                                worker=runner.WORKER_SCRIPT, options=options)
    except KeyboardInterrupt:  # run_probes has stopped the worker on the way out
        print("\ngpuadvisor probe: cancelled", file=sys.stderr)
        return 130
    finally:
        if show_progress:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
    bad_device = next((e for e in run.errors if e.kind == "bad-device"), None)
    if bad_device is not None:
        raise InputError(bad_device.message)
    if (args.python is not None and not args.no_remember and run.hello is not None
            and run.hello.torch is not None):
        _remember_probe_python(python)
    saved, save_problems = ([], []) if args.no_save else _record_probe_run(run)
    return run, saved, save_problems


def _data_verdict(run, token_format: str):
    """The dataset disk against the measured training step's tokens/s, or None."""
    from .probes.pipeline import BYTES_PER_TOKEN, data_read_verdict

    read, step = run.result("dataread"), run.result("step")
    if read is None or step is None or "read_mb_s" not in read.figures:
        return None
    tokens_per_s = step.figures.get("tokens_per_s")
    if not tokens_per_s:
        return None
    cache = read.conditions.get("cache")
    cached = bool(cache.get("likely_cached")) if isinstance(cache, dict) else False
    return data_read_verdict(read.figures["read_mb_s"], tokens_per_s,
                             BYTES_PER_TOKEN[token_format], likely_cached=cached)


# --------------------------------------------------------------------------- probe --plan
def _plan_check_input(args: argparse.Namespace):
    """``probe --plan FILE``: the plan document and the worker options, or InputError."""
    from .planfile import PlanFileError, load_plan, parse_plan_dict
    from .probes import plancheck

    if args.probes or args.burn_in is not None:
        raise InputError("--plan: the plan check runs plancheck and step on its own; leave "
                         "out --probes and --burn-in")
    try:
        document = parse_plan_dict(load_plan(args.plan), path=args.plan)
    except PlanFileError as exc:
        raise InputError(f"--plan: {exc}") from None
    try:
        options = plancheck.probe_options(document.model, document.plan)
    except ValueError as exc:
        raise InputError(f"--plan: {args.plan}: {exc}") from None
    return document, options


def _probe_plan(args: argparse.Namespace, plan_check, python: str, no_torch_note: str) -> int:
    """Run plancheck (and step at the plan's shape), then show measured vs estimated."""
    from .probes import plancheck

    document, options = plan_check
    probes = [p for p in plancheck.PLAN_PROBES if p in options]
    outcome = _run_worker(args, probes, python, options, kind="plancheck")
    if isinstance(outcome, int):
        return outcome
    run, saved, save_problems = outcome
    comparison = None
    if run.result("plancheck") is not None:
        try:
            comparison = plancheck.compare(run, plancheck.estimate_for(document, run))
        except ValueError as exc:
            raise InputError(f"--plan: {exc}") from None
    if args.json:
        data = {"status": run.status, "plan_file": str(args.plan),
                "comparison": comparison.to_json() if comparison else None,
                "errors": [{"probe": e.probe, "kind": e.kind, "message": e.message}
                           for e in run.errors],
                "run": run.to_json(), "history": [str(path) for path in saved]}
        print(json.dumps(data, indent=2, default=_json_default))
    else:
        if comparison is not None:
            print(plancheck.format_comparison(comparison))
        for error in run.errors:
            print(f"{error.probe or 'run'}: error ({error.kind}): {error.message}")
        for path in saved:
            print(f"Saved to the probe history: {path}")
    for problem in save_problems:
        print(f"gpuadvisor probe: {problem}".replace("\n", " "), file=sys.stderr)
    if run.torch_missing:
        print(f"gpuadvisor probe: torch is not installed in {python}{no_torch_note}; install "
              "it there (pip install torch) or use your training environment: "
              "--python /path/to/your/training/env/bin/python", file=sys.stderr)
        return 1
    if not run.ok:
        for error in run.errors:
            print(f"gpuadvisor probe: {error.probe or 'run'}: {error.kind}: "
                  f"{error.message}".replace("\n", " "), file=sys.stderr)
        return 1
    return 0


def _find_probe_python() -> tuple[str, str]:
    """The interpreter for a probe run without ``--python`` (the remembered one, this one,
    or one found with torch), and a note for the torch-missing message. Says in one line on
    stderr when it is not this interpreter."""
    import os

    from .probes import interpreters
    from .settings import load_settings

    settings, _ = load_settings()
    chosen, checked = interpreters.find_probe_interpreter(settings.probe_python)
    if chosen is None:
        others = len(checked) - 1
        note = (f" (nor in {others} other interpreter(s) found: gpuadvisor probe "
                "--list-pythons)") if others > 0 else ""
        return sys.executable, note
    if os.path.abspath(chosen.python) != os.path.abspath(sys.executable):
        how = ("remembered" if chosen.python == settings.probe_python
               else "this Python has no torch")
        print(f"gpuadvisor probe: running the probes in {chosen.python} ({chosen.summary()}; "
              f"{how}; --python to choose another)", file=sys.stderr)
    return chosen.python, ""


def _remember_probe_python(python: str) -> None:
    """Save ``python`` as the ``probe_python`` setting; a failure is one line on stderr."""
    import os

    from .settings import load_settings, save_settings

    settings, _ = load_settings()
    path = os.path.abspath(python)
    if settings.probe_python == path:
        return
    settings.probe_python = path
    try:
        save_settings(settings)
    except (OSError, ValueError) as exc:
        print(f"gpuadvisor probe: could not remember --python in the settings: {exc}",
              file=sys.stderr)


def _list_pythons(args: argparse.Namespace) -> int:
    """``probe --list-pythons``: each interpreter found, checked by the worker's handshake."""
    import os

    from .probes import interpreters
    from .settings import load_settings

    settings, _ = load_settings()
    pythons = [Path(p) for p in interpreters.candidate_pythons()]
    remembered = settings.probe_python
    keys = {os.path.abspath(p) for p in pythons}
    if remembered and os.path.abspath(remembered) not in keys:
        pythons.insert(0, Path(remembered))
    infos = interpreters.check_all(pythons)
    current = os.path.abspath(sys.executable)
    rows = []
    for info in infos:
        row = info.to_json()
        row["current"] = os.path.abspath(info.python) == current
        row["remembered"] = bool(remembered) and os.path.abspath(info.python) == os.path.abspath(
            remembered)
        rows.append(row)
    if args.json:
        print(json.dumps({"pythons": rows}, indent=2))
        return 0
    for info, row in zip(infos, rows, strict=True):
        marks = [m for m in ("current", "remembered") if row[m]]
        suffix = f"  [{', '.join(marks)}]" if marks else ""
        print(f"{info.python}  {info.summary()}{suffix}")
    if not any(info.usable for info in infos):
        print("gpuadvisor probe: no interpreter found has torch; install it (pip install torch) "
              "or name yours: --python /path/to/your/training/env/bin/python", file=sys.stderr)
    return 0


def _record_probe_run(run) -> tuple[list, list[str]]:
    """Record a run's results in the probe history: (files written, problems for stderr).

    Only results are recorded (a cancelled run or a run without torch has none).
    """
    from .probes import history

    if run.status == "cancelled" or not run.results:
        return [], []
    problems: list[str] = []
    try:
        return history.record(run, warnings=problems), problems
    except OSError as exc:
        return [], [*problems, f"could not save the probe history: {exc}"]


def _probe_text(run, suite: str) -> str:
    """The probe results for people: one line per figure, with how it was measured."""
    lines = []
    hello = run.hello
    if hello is not None:
        devices = {d["id"]: d for d in hello.devices}
        device_ids = {r.conditions.get("device") for r in run.results}
        names = ", ".join(f"{d} ({devices[d].get('name', d)})" for d in device_ids
                          if d in devices) or "no device"
        torch = f"torch {hello.torch}" if hello.torch else "no torch"
        lines.append(f"Probed {names}: {torch}, Python {hello.versions.get('python')}, "
                     f"{suite} suite, {run.duration_s:.1f} s")
    versus = _versus_catalog(run)
    for result in run.results:
        lines.append(f"{result.probe}")
        for name, value in result.figures.items():
            line = f"  {name:<24} {value:>10.4g} {result.units.get(name, '')}"
            row = versus.get((result.probe, name))
            if row is not None and row.percent is not None:
                line += (f"  ({row.percent:.0f}% of the {row.theoretical:.4g} {row.unit} "
                         f"{row.basis})")
            lines.append(line)
        conditions = result.conditions
        for dtype, info in (conditions.get("dtypes") or {}).items():
            sizes = ", ".join(str(shape[0]) for shape in info.get("shapes", []))
            lines.append(f"  ({dtype}: n = {sizes}; iterations {info.get('iterations')})")
        for dtype, reason in (conditions.get("skipped") or {}).items():
            lines.append(f"  ({dtype} skipped: {reason})")
        if "buffer_bytes" in conditions:
            from .core.units import format_bytes

            lines.append(f"  (buffer {format_bytes(conditions['buffer_bytes'], 'GiB', 2)}; "
                         f"{conditions.get('bytes_counted', '')})")
    for error in run.errors:
        lines.append(f"{error.probe or 'run'}: error ({error.kind}): {error.message}")
    return "\n".join(lines)


def _versus_catalog(run) -> dict:
    """(probe, figure) -> VersusRow for the run's figures on a catalog card ({} if none)."""
    try:
        from . import catalog
        from .probes.compare import versus_catalog
        from .probes.history import stored_runs_of

        gpus = catalog.load_gpus()
        rows = {}
        for stored in stored_runs_of(run):
            gpu = gpus.get(stored.catalog_id) if stored.catalog_id else None
            rows.update({(r.probe, r.figure): r for r in versus_catalog(stored, gpu)})
        return rows
    except Exception:  # a broken catalog must not hide the measurements
        return {}


def _probe_history(args: argparse.Namespace) -> int:
    """``probe --history``: stored runs per device, oldest first, with changes."""
    from .probes import history
    from .probes.compare import diff_runs

    warnings: list[str] = []
    try:
        stored = history.runs(warnings=warnings)
    except OSError as exc:
        raise InputError(f"probe history: cannot read {history.history_dir()}: {exc}") from None
    for warning in warnings:
        print(f"gpuadvisor probe: {warning}".replace("\n", " "), file=sys.stderr)
    if args.json:
        print(json.dumps({"folder": str(history.history_dir()),
                          "runs": [r.to_json() for r in stored]}, indent=2))
        return 0
    if not stored:
        print(f"No probe runs stored yet in {history.history_dir()} "
              "(run: gpuadvisor probe)")
        return 0
    by_device: dict[str, list] = {}
    for run in stored:
        by_device.setdefault(run.device_key, []).append(run)
    lines = [f"Probe history in {history.history_dir()}"]
    for runs in by_device.values():
        first = runs[-1]
        card = f" = {first.catalog_id}" if first.catalog_id else ""
        lines.append(f"\n{first.device_name}{card} ({len(runs)} run(s))")
        previous = None
        for run in runs:
            torch = run.versions.get("torch") or "?"
            lines.append(f"  {run.timestamp}  torch {torch}  probes: {', '.join(run.results)}")
            changes = {(d.probe, d.figure): d for d in diff_runs(previous, run)} \
                if previous is not None else {}
            for probe, result in run.results.items():
                for name, value in result.get("figures", {}).items():
                    if not isinstance(value, int | float) or name.endswith("_max_tflops"):
                        continue
                    unit = result.get("units", {}).get(name, "")
                    change = changes.get((probe, name))
                    note = (f"  ({change.change_pct:+.1f}% vs previous)"
                            if change is not None and change.change_pct is not None else "")
                    lines.append(f"    {probe + '.' + name:<34} {value:>10.4g} {unit}{note}")
            previous = run
    print("\n".join(lines))
    return 0


# --------------------------------------------------------------------------- probe --burn-in
def _check_burn_in_flags(args: argparse.Namespace) -> None:
    if args.burn_in is None:
        raise InputError("--temp-limit: only with --burn-in MIN")
    if args.probes is not None:
        raise InputError("--probes: --burn-in runs the burnin probe alone; leave out --probes")
    if getattr(args, "plan", None) is not None:
        raise InputError("--plan: --burn-in runs alone; check the plan in a run of its own")


def _worker_device(hello, spec: str) -> dict | None:
    """The ``hello`` device the worker runs on for ``--device spec`` (as the worker picks)."""
    devices = list(hello.devices) if hello is not None else []
    gpus = [d for d in devices if d.get("type") != "cpu"]
    if spec == "auto":
        return gpus[0] if gpus else next((d for d in devices if d.get("id") == "cpu"), None)
    if spec.isdigit():
        return gpus[int(spec)] if int(spec) < len(gpus) else None
    spec = f"{spec}:0" if spec in ("cuda", "xpu") else spec
    return next((d for d in devices if d.get("id") == spec), None)


def _telemetry_backend():
    """``(backend or None, why none)``: this machine's GPU backend for live telemetry."""
    from .hardware.detect import open_backend

    try:
        backend, hints = open_backend()
    except Exception as exc:  # detection must never stop a burn-in
        return None, f"no GPU telemetry: hardware detection failed ({exc})"
    if backend is None:
        why = "; ".join(hints) or "no NVML/sysfs GPU found"
        return None, f"no GPU telemetry: {why}"
    return backend, ""


def _burn_in(args: argparse.Namespace, python: str, no_torch_note: str) -> int:
    """``probe --burn-in MIN``: the burnin probe with live telemetry of its GPU.

    The GPU is watched through the hardware backend (NVML, sysfs) from the worker's ``hello``
    on; reaching the temperature limit asks the worker to stop (it still reports).
    """
    import dataclasses
    import threading

    from .probes import runner, telemetry
    from .probes.protocol import Hello, Progress

    seconds = args.burn_in * 60.0
    stop_event = threading.Event()
    backend, note = (None, "no GPU telemetry on the CPU") if args.device == "cpu" else (
        _telemetry_backend())
    recorder: telemetry.TelemetryRecorder | None = None
    show_progress = not args.json and sys.stderr.isatty()

    def on_message(message) -> None:
        nonlocal recorder, note
        if isinstance(message, Hello) and backend is not None:
            device = _worker_device(message, args.device)
            if device is None or device.get("type") == "cpu":
                note = "the burn-in runs on the CPU: no GPU telemetry"
                return
            try:
                index, how = telemetry.match_gpu_index(backend.devices(), device)
            except Exception as exc:
                index, how = None, f"the GPU backend failed: {exc}"
            if index is None:
                note = f"no GPU telemetry: {how}"
                return
            recorder = telemetry.TelemetryRecorder(backend, index, temp_limit_c=args.temp_limit,
                                                   stop_event=stop_event)
            recorder.start()
        elif show_progress and isinstance(message, Progress) and message.probe == "burnin":
            latest = recorder.latest if recorder is not None else None
            temp = (f"  GPU {latest.temperature_c:.0f} °C"
                    if latest is not None and latest.temperature_c is not None else "")
            print(f"\r\x1b[Kburn-in  {message.message}{temp}", end="", file=sys.stderr,
                  flush=True)

    try:
        run = runner.run_probes(["burnin"], python=python, device=args.device,
                                timeout_s=args.timeout or runner.burn_in_timeout(seconds),
                                quick=args.suite == "quick", on_message=on_message,
                                worker=runner.WORKER_SCRIPT,
                                options={"burnin": {"seconds": seconds}}, stop_event=stop_event)
    except KeyboardInterrupt:  # run_probes has stopped the worker on the way out
        print("\ngpuadvisor probe: cancelled", file=sys.stderr)
        return 130
    finally:
        if show_progress:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
        if recorder is not None:
            recorder.stop()
        if backend is not None:
            backend.close()
    bad_device = next((e for e in run.errors if e.kind == "bad-device"), None)
    if bad_device is not None:
        raise InputError(bad_device.message)
    summary = recorder.summary().to_json() if recorder is not None else None
    if summary is not None:  # the history keeps the summary with the result (not the samples)
        run = dataclasses.replace(run, results=tuple(
            dataclasses.replace(r, conditions={**r.conditions, "telemetry": summary})
            if r.probe == "burnin" else r for r in run.results))
    saved, save_problems = ([], []) if args.no_save else _record_probe_run(run)
    result = run.result("burnin")
    if args.json:
        data = run.to_json()
        data["burnin"] = ({"figures": result.figures, "units": result.units,
                           "conditions": result.conditions} if result is not None else None)
        data["telemetry"] = recorder.to_json() if recorder is not None else None
        if recorder is None:
            data["telemetry_note"] = note
        data["history"] = [str(path) for path in saved]
        print(json.dumps(data, indent=2, default=_json_default))
    else:
        print(_burn_in_text(run, result, summary, note))
        for path in saved:
            print(f"Saved to the probe history: {path}")
    for problem in save_problems:
        print(f"gpuadvisor probe: {problem}".replace("\n", " "), file=sys.stderr)
    if run.torch_missing:
        print(f"gpuadvisor probe: torch is not installed in {python}{no_torch_note}; install "
              "it there (pip install torch) or use your training environment: "
              "--python /path/to/your/training/env/bin/python", file=sys.stderr)
        return 1
    if result is None or not run.ok:
        for error in run.errors:
            if not args.json:
                print(f"gpuadvisor probe: {error.probe or 'run'}: {error.kind}: "
                      f"{error.message}".replace("\n", " "), file=sys.stderr)
        return 1
    return 1 if result.figures.get("mismatches", 0) > 0 else 0


def _burn_in_text(run, result, summary: dict | None, note: str) -> str:
    """The burn-in for people: verdict, throughput per window, then the GPU's telemetry."""
    lines = []
    if result is not None:
        c, f = result.conditions, result.figures
        lines.append(f"Burn-in on {c.get('device')} ({c.get('device_name')}): {c.get('dtype')} "
                     f"n={c.get('n')}, {f.get('duration_s', 0):.1f} s of "
                     f"{c.get('requested_s', 0):g} s (stopped by {c.get('stopped_by')})")
        lines.append(f"  {c.get('verdict')}")
        slowdown = f.get("slowdown_pct", 0.0)
        lines.append(f"  throughput: median {f.get('tflops_median', 0):.4g} TFLOPS; first "
                     f"window {f.get('tflops_first_window', 0):.4g}, last window "
                     f"{f.get('tflops_last_window', 0):.4g} ("
                     + (f"{slowdown:.1f} % slower" if slowdown >= 0 else
                        f"{-slowdown:.1f} % faster") + f"; windows of {c.get('window_s')} s)")
        for wrong in c.get("first_mismatches") or []:
            diff = wrong.get("max_abs_diff")
            lines.append(f"  wrong at iteration {wrong.get('iteration')}: "
                         f"{wrong.get('wrong_elements')} element(s), largest difference "
                         f"{'n/a' if diff is None else f'{diff:g}'}, non-finite "
                         f"{wrong.get('non_finite')}")
    if summary is not None:
        def value(key: str, unit: str, fmt: str = ".0f") -> str:
            number = summary.get(key)
            return "n/a" if number is None else f"{number:{fmt}} {unit}"

        limit = summary.get("temp_limit_c")
        lines.append(f"GPU {summary['device_index']} ({summary.get('device_name')}): "
                     f"{summary['sample_count']} samples; temperature max "
                     f"{value('temperature_max_c', '°C')}, mean "
                     f"{value('temperature_mean_c', '°C', '.1f')}"
                     + (f" (limit {limit:g} °C)" if limit is not None else ""))
        lines.append(f"  SM clock {value('sm_clock_min_mhz', 'MHz')} .. "
                     f"{value('sm_clock_max_mhz', 'MHz')}; power max "
                     f"{value('power_max_w', 'W')}")
        reasons = summary.get("throttle_reasons") or {}
        if reasons:
            lines.append("  clocks held down by: " + ", ".join(
                f"{name} ({share:.0%} of samples)" for name, share in reasons.items()))
        if summary.get("stopped_for_temperature"):
            lines.append(f"  STOPPED at the temperature limit: {summary.get('stop_reason')}")
        for text in summary.get("notes") or []:
            lines.append(f"  {text}")
    elif note:
        lines.append(note)
    for error in run.errors:
        lines.append(f"{error.probe or 'run'}: error ({error.kind}): {error.message}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- export
EXPORT_KINDS = ("skypilot", "accelerate", "deepspeed", "launch", "report")


def _add_suggest_parser(verbs, est: argparse.ArgumentParser) -> None:
    """``suggest <estimate's plan flags> ...``: own rig, buy, rent or cloud, ranked."""
    sug = verbs.add_parser(
        "suggest", parents=[est], add_help=False, conflict_handler="resolve",
        help="what to do: use your card, buy one, rent one or use a cloud, with costs",
        description="Estimate the plan on your own GPUs (detected), on cards to buy (1 to "
                    "--max-cards of them) and on every rent/cloud offer of the offers "
                    "catalog, then rank them: time, money (rent = hours x price; buy = "
                    "cards + electricity; your own = electricity), and the levers each "
                    "needs to fit. --gpu is ignored: every card is considered.")
    sug.add_argument("--goal", choices=("cheapest", "fastest"), default="cheapest",
                     help="rank by money or by time (default: cheapest)")
    sug.add_argument("--budget", type=_positive_float("--budget"), metavar="USD",
                     help="most you want to spend on this job, in US dollars")
    sug.add_argument("--deadline", type=_positive_float("--deadline"), metavar="HOURS",
                     help="the job must finish within this many hours")
    sug.add_argument("--max-cards", type=_positive_int, default=4,
                     help="buy at most this many cards of one kind (default 4)")
    sug.add_argument("--electricity", type=_non_negative_float("--electricity"),
                     metavar="USD_PER_KWH",
                     help="electricity price (default: the settings' price, 0.15)")
    sug.add_argument("--simulate", metavar="SPEC",
                     help="use a simulated rig as your own GPUs (e.g. '2x rtx-3090')")
    sug.add_argument("--no-rig", action="store_true",
                     help="do not look for local GPUs (buy/rent/cloud options only)")
    sug.add_argument("--limit", type=_positive_int, default=15,
                     help="rows to show (default 15; --json has them all)")
    sug.add_argument("--break-even", action="store_true",
                     help="also show after how many such jobs buying the best card beats "
                          "renting the cheapest rental that fits")


def _positive_float(flag: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (value > 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
        return value
    return parse


def _non_negative_float(flag: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (value >= 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be zero or more, got {text}")
        return value
    return parse


def _own_rig(args: argparse.Namespace, gpus) -> tuple[list, str]:
    """The user's own cards as catalog specs, and a note on where they come from."""
    if args.no_rig:
        return [], "no rig (--no-rig)"
    from dataclasses import replace as _replace

    from .hardware.detect import detect

    try:
        found = detect(args.simulate, probe_torch=False)
    except Exception as exc:  # detection must never stop the advice
        return [], f"no rig (detection failed: {exc})"
    own, unmatched = [], []
    for info in found.training_gpus:
        spec = gpus.get(info.catalog_id) if info.catalog_id else None
        if spec is None or not info.memory_total_bytes:
            unmatched.append(info.name)
            continue
        own.append(_replace(spec, memory_gib=info.memory_total_bytes / 2**30))
    where = "simulated" if args.simulate else "detected"
    note = (f"your rig ({where}): {', '.join(g.name for g in own)}" if own
            else f"no GPU {where}")
    if unmatched:
        note += f"; not in the catalog: {', '.join(unmatched)}"
    return own, note


def _suggest_command(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from . import catalog
    from .core.advisor import advise, best_break_even
    from .core.assumptions import DEFAULT_ASSUMPTIONS
    from .report import advice_table
    from .settings import load_settings

    model = _load_model(args.model)
    _gpu, gpus = _load_gpu(None)
    try:
        plan = plan_from_args(args, model)
        assumptions = DEFAULT_ASSUMPTIONS.with_overrides(dict(args.assume))
    except ValueError as exc:
        raise InputError(f"plan: {exc}") from None
    warnings: list[str] = []
    try:
        offers = catalog.load_offers(warnings=warnings)
    except catalog.CatalogError as exc:
        raise InputError(f"offers catalog: {exc}") from None
    for warning in warnings:
        print(f"gpuadvisor suggest: {warning}".replace("\n", " "), file=sys.stderr)
    settings, problem = load_settings()
    if problem:
        print(f"gpuadvisor suggest: {problem}", file=sys.stderr)
    price = args.electricity if args.electricity is not None else settings.electricity_usd_per_kwh
    own, rig_note = _own_rig(args, gpus)
    measurements = []
    for card in {g.id for g in own}:
        measurements += _stored_measurement(gpus[card], plan) or []
    today = datetime.now(UTC).date()
    try:
        advice = advise(model, plan, gpus, offers.values(), own=own, goal=args.goal,
                        budget_usd=args.budget, deadline_hours=args.deadline,
                        assumptions=assumptions, usd_per_kwh=price, today=today,
                        measurements=measurements, max_cards=args.max_cards)
    except ValueError as exc:
        raise InputError(f"suggest: {exc}") from None
    even = best_break_even(advice.suggestions) if args.break_even or args.json else None
    if args.json:
        print(json.dumps(_advice_json(advice, rig_note, price, even), indent=2,
                         default=_json_default))
        return 0
    print(f"{model.name}: {_plan_summary(plan)}; {rig_note}; electricity ${price:g}/kWh")
    print(advice_table(advice, limit=args.limit, money=settings.format_money))
    if even is not None:
        owned, rented, result = even
        if result.jobs is None:
            print(f"\nBreak-even: renting {rented.option.label} costs no more than the power "
                  f"for {owned.option.label}: buying never pays off on price alone.")
        else:
            print(f"\nBreak-even: {owned.option.label} "
                  f"({settings.format_money(result.hardware_usd)}) beats renting "
                  f"{rented.option.label} after {result.jobs:,.1f} such jobs "
                  f"({result.hours:,.0f} h of training on it).")
    return 0


def _plan_summary(plan) -> str:
    from .core.plan import TASK_LABELS

    return (f"{TASK_LABELS.get(plan.task, plan.task)}, {plan.precision}, micro-batch "
            f"{plan.micro_batch} x {plan.seq_len} tokens")


def _advice_json(advice, rig_note: str, price: float, even) -> dict:
    rows = []
    for s in advice.suggestions:
        offer = s.option.offer
        rows.append({
            "id": s.option.id, "kind": s.option.kind, "label": s.option.label,
            "gpu": s.option.gpu.id, "fits": s.fits, "gpus": s.n_gpus,
            "instances": s.instances, "hours": s.hours, "gpu_hours": s.gpu_hours,
            "cost_usd": s.cost_usd, "hardware_usd": s.hardware_usd,
            "energy_usd": s.energy_usd, "rent_usd": s.rent_usd, "levers": list(s.levers),
            "memory_bytes": s.memory_bytes, "capacity_bytes": s.capacity_bytes,
            "within_budget": s.within_budget, "within_deadline": s.within_deadline,
            "pareto": s.option.id in advice.pareto_ids, "why": s.why,
            "offer": None if offer is None else {
                "id": offer.id, "provider": offer.provider, "price_usd": offer.price_usd,
                "as_of": offer.as_of, "source": offer.source, "spot": offer.spot,
                "user": offer.user, "age_days": s.price_age_days, "stale": s.stale},
        })
    data = {"goal": advice.goal, "budget_usd": advice.budget_usd,
            "deadline_hours": advice.deadline_hours, "electricity_usd_per_kwh": price,
            "rig": rig_note, "nothing_fits": advice.nothing_fits,
            "best": advice.best.option.id if advice.best else None, "suggestions": rows}
    if even is not None:
        owned, rented, result = even
        data["break_even"] = {"buy": owned.option.id, "rent": rented.option.id,
                              "jobs": result.jobs, "hours": result.hours,
                              "hardware_usd": result.hardware_usd,
                              "own_per_job_usd": result.own_per_job_usd,
                              "rent_per_job_usd": result.rent_per_job_usd}
    return data


def _add_export_parser(verbs, est: argparse.ArgumentParser) -> None:
    """``export KIND <estimate's plan flags> ...``: the plan flags are copied from ``est``
    (argparse ``parents``; est's -h comes along, so the export parser adds none)."""
    exp = verbs.add_parser(
        "export", parents=[est], add_help=False, conflict_handler="resolve",
        help="write a SkyPilot task, accelerate/DeepSpeed config, launch line or report",
        description="Turn a plan into a SkyPilot task YAML, an accelerate config YAML, a "
                    "DeepSpeed ZeRO JSON, the torchrun/accelerate launch line, or a "
                    "Markdown/HTML report. Prints to stdout unless --out is given.")
    exp.add_argument("kind", choices=EXPORT_KINDS)
    exp.add_argument("--offer", metavar="ID",
                     help="a rent/cloud offer from the offers catalog (its GPU, provider, spot "
                          "price and GPUs per instance)")
    exp.add_argument("--spot", action="store_true", help="skypilot: use spot instances")
    exp.add_argument("--cloud", metavar="NAME",
                     help="skypilot: SkyPilot cloud (aws, gcp, azure, lambda, runpod, vast, ...)")
    exp.add_argument("--gpus-per-node", type=_positive_int, default=None,
                     help="GPUs per machine (default: the offer's instance, else 8)")
    exp.add_argument("--accelerator", metavar="NAME",
                     help="skypilot: SkyPilot's GPU name when gpuadvisor knows none "
                          "(see 'sky show-gpus -a')")
    exp.add_argument("--launcher", choices=("torchrun", "accelerate"), default="torchrun")
    exp.add_argument("--backend", choices=("deepspeed", "fsdp"), default="deepspeed",
                     help="what runs a ZeRO stage under accelerate (default: deepspeed)")
    exp.add_argument("--script", default="train.py",
                     help="your training script, in the launch line (default: train.py)")
    exp.add_argument("--chart", metavar="PNG", action="append", default=[],
                     help="report: embed this PNG (repeatable), e.g. a page exported from "
                          "the app; the command line renders no charts itself")
    exp.add_argument("--format", choices=("markdown", "html"), default=None,
                     help="report: default html when --out ends in .html, else markdown")
    exp.add_argument("--no-advice", action="store_true",
                     help="report: leave out the ten best buy/rent/cloud options")
    exp.add_argument("--out", metavar="FILE", help="write here (atomically) instead of stdout")
    exp.add_argument("--force", action="store_true", help="overwrite an existing --out file")


def _export_offer(args: argparse.Namespace):
    """The ``--offer`` (None without one); sets ``args.gpu`` to the offer's GPU."""
    if not args.offer:
        return None
    from . import catalog

    load_offers = getattr(catalog, "load_offers", None)
    if load_offers is None:
        raise InputError("--offer: the offers catalog is not available in this version; "
                         "give --gpu ID --gpus N [--spot] [--cloud NAME] instead")
    offers = load_offers()
    if args.offer not in offers:
        raise InputError(f"--offer: unknown offer {args.offer!r}{_suggest(args.offer, offers)}")
    offer = offers[args.offer]
    if args.gpu and args.gpu != offer.gpu_id:
        raise InputError(f"--gpu: offer {offer.id} is for {offer.gpu_id}, not {args.gpu}")
    args.gpu = offer.gpu_id
    return offer


def _export_report(args, model, plan, gpu, gpus) -> str:
    from .core.assumptions import DEFAULT_ASSUMPTIONS
    from .core.estimate import REFERENCE_GPU_ID, estimate
    from .export import html_report, markdown_report

    try:
        assumptions = DEFAULT_ASSUMPTIONS.with_overrides(dict(args.assume))
    except ValueError as exc:
        raise InputError(f"--assume: {exc}") from None
    measurement = None
    if gpu is not None and not args.no_measured:
        measurement = _stored_measurement(gpu, plan)
    result = estimate(model, plan, gpu, assumptions, reference_gpu=gpus[REFERENCE_GPU_ID],
                      measurement=measurement)
    charts = []
    for name in args.chart:
        try:
            charts.append((Path(name).stem, Path(name).read_bytes()))
        except OSError as exc:
            raise InputError(f"--chart: cannot read {name}: {exc.strerror or exc}") from None
    html = args.format == "html" or (
        args.format is None and str(args.out or "").lower().endswith((".html", ".htm")))
    probes = _report_probes(gpu) if gpu is not None and not args.no_measured else None
    suggestions = None if args.no_advice else _report_suggestions(model, plan, gpus,
                                                                   assumptions)
    return (html_report if html else markdown_report)(result, charts=charts, probes=probes,
                                                      suggestions=suggestions)


def _report_probes(gpu) -> list[dict] | None:
    """The newest probe run on ``gpu`` from the history, as report rows (None if none)."""
    from .probes import history

    try:
        return history.latest_results(gpu.id)
    except (OSError, ImportError):
        return None


def _report_suggestions(model, plan, gpus, assumptions, limit: int = 10) -> list | None:
    """The ten best options of ``suggest`` (no rig: a report travels), or None."""
    from datetime import UTC, datetime

    from . import catalog
    from .core.advisor import advise
    from .export.report import advice_rows
    from .settings import load_settings

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


def _export_text(args: argparse.Namespace) -> str:
    from . import export

    offer = _export_offer(args)
    model = _load_model(args.model)
    gpu, gpus = _load_gpu(args.gpu)
    try:
        plan = plan_from_args(args, model)
    except ValueError as exc:
        raise InputError(f"plan: {exc}") from None
    if gpu is not None and args.kind != "report":
        _warn_if_it_does_not_fit(model, plan, gpu)
    try:
        if args.kind == "report":
            return _export_report(args, model, plan, gpu, gpus)
        if args.kind == "deepspeed":
            return export.deepspeed_json(plan)
        if args.kind == "skypilot":
            if gpu is None:
                raise InputError("--gpu: a SkyPilot task needs a GPU: give --gpu ID or --offer ID")
            return export.skypilot_task(
                model, plan, gpu, offer, gpus_per_node=args.gpus_per_node,
                cloud=args.cloud, spot=True if args.spot else None,
                accelerator=args.accelerator, launcher=args.launcher,
                backend=args.backend, script=args.script)
        per_node = args.gpus_per_node or (offer.gpus_per_instance if offer else None)
        layout = export.node_layout(plan.n_gpus, per_node or export.DEFAULT_GPUS_PER_NODE)
        if args.kind == "accelerate":
            return export.accelerate_yaml(plan, layout, backend=args.backend, gpu=gpu)
        return export.launch_script(plan, layout, launcher=args.launcher,
                                    backend=args.backend, script=args.script,
                                    title=f"{model.name}: {plan.task} on {plan.n_gpus} GPU(s)")
    except ValueError as exc:
        raise InputError(f"export {args.kind}: {exc}") from None


def _warn_if_it_does_not_fit(model, plan, gpu) -> None:
    """One line on stderr when the exported plan will not fit the GPU (the files are still
    written: the user may know better, e.g. a different framework's memory use)."""
    from .core.estimate import estimate
    from .core.units import format_bytes

    try:
        result = estimate(model, plan, gpu)
    except ValueError:
        return
    if result.fits is False:
        print(f"gpuadvisor export: warning: the plan needs {format_bytes(result.memory.total)} "
              f"per GPU and {gpu.name} has {format_bytes(result.capacity_bytes, digits=0)}: it "
              "will not fit as planned (gpuadvisor suggest, or estimate --gpu, lists the "
              "levers)", file=sys.stderr)


def _export(args: argparse.Namespace) -> int:
    """``export KIND``: the text on stdout, or written atomically to ``--out`` (an existing
    file only with ``--force``)."""
    from .userfiles import write_atomic

    out = Path(args.out) if args.out else None
    if out is not None:
        if out.exists() and not args.force:
            raise InputError(f"--out: {out} exists; add --force to overwrite it")
        if not out.parent.is_dir():
            raise InputError(f"--out: no such folder: {out.parent}")
    text = _export_text(args)
    if out is None:
        if args.json:
            print(json.dumps({"export": args.kind, "text": text}))
        else:
            sys.stdout.write(text)
        return 0
    try:
        write_atomic(out, text)
    except OSError as exc:
        raise InputError(f"--out: cannot write {out}: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps({"export": args.kind, "path": str(out)}))
    else:
        print(f"Wrote {out}", file=sys.stderr)
    return 0


def _gui(args: argparse.Namespace) -> int:
    # Qt is imported only here: every other verb runs without PySide6 installed.
    try:
        from .gui.app import run
    except ImportError as exc:
        raise InputError(
            f"gpuadvisor gui: the desktop app needs PySide6 and pyqtgraph ({exc}); "
            "the command line works without them (gpuadvisor estimate --help)"
        ) from None
    return run(args)


#: What a bare ``gpuadvisor`` shows in a terminal without a display: a typical hobbyist plan.
HEADLESS_DEFAULT = ["estimate", "--model", "llama-3.1-8b", "--task", "qlora", "--gpu",
                    "rtx-4090", "--checkpointing", "full"]


def _bare_command() -> list[str]:
    """A bare ``gpuadvisor`` opens the desktop app; without a display (a server, SSH, CI)
    it says so in one line and shows a typical plan's estimate in the terminal instead."""
    from .gui.app import display_problem  # plain Python: no Qt import

    problem = display_problem()
    if problem is None:
        return ["gui"]
    print(f"{problem}. Showing: gpuadvisor {' '.join(HEADLESS_DEFAULT)}", file=sys.stderr)
    return list(HEADLESS_DEFAULT)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gpuadvisor`` command."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        argv = _bare_command()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.self_test:
            from .selftest import main as self_test

            return self_test()
        if args.verb == "estimate":
            return _estimate(args)
        if args.verb == "catalog":
            return _catalog(args)
        if args.verb == "detect":
            return _detect(args)
        if args.verb == "probe":
            return _probe(args)
        if args.verb == "gui":
            return _gui(args)
        if args.verb == "suggest":
            return _suggest_command(args)
        if args.verb == "export":
            return _export(args)
        parser.print_help()
        return 0
    except InputError as exc:
        print(str(exc).replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except _catalog_error() as exc:
        print(f"catalog: {exc}".replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0


def _catalog_error():
    from .catalog import CatalogError

    return CatalogError


if __name__ == "__main__":
    sys.exit(main())
