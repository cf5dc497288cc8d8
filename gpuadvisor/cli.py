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
def _positive_int(flag: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(
                f"must be a positive whole number, got {value}")
        return value

    return parse


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
    verbs = parser.add_subparsers(dest="verb", parser_class=_Parser)

    est = verbs.add_parser("estimate", help="memory, time and fit for a plan",
                           description="Estimate VRAM per GPU and time for a plan.")
    est.add_argument("--model", required=True,
                     help="preset id (see 'catalog list --kind models') or a config.json path")
    est.add_argument("--task", choices=P.TASKS, default="full")
    est.add_argument("--precision", choices=P.PRECISIONS, default="bf16")
    est.add_argument("--optimizer", choices=P.OPTIMIZERS, default="adamw")
    est.add_argument("--micro-batch", type=_positive_int("--micro-batch"), default=1)
    est.add_argument("--grad-accum", type=_positive_int("--grad-accum"), default=1)
    est.add_argument("--seq", type=_positive_int("--seq"), default=None,
                     help="sequence length (default: 2048, or the model's context if shorter)")
    est.add_argument("--checkpointing", choices=P.CHECKPOINTING, default="none")
    est.add_argument("--attention", choices=P.ATTENTION, default="flash")
    est.add_argument("--gpu", help="catalog GPU id (see 'catalog list'); checks the fit")
    est.add_argument("--gpus", type=_positive_int("--gpus"), default=1)
    est.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=0)
    est.add_argument("--offload", choices=P.OFFLOAD, default="none")
    data = est.add_mutually_exclusive_group()
    data.add_argument("--tokens", type=_count("--tokens"), help="training tokens, e.g. 2T, 300M")
    data.add_argument("--samples", type=_count("--samples"), help="samples per epoch")
    est.add_argument("--epochs", type=_count("--epochs"), default=None)
    est.add_argument("--lora-rank", type=_positive_int("--lora-rank"))
    est.add_argument("--lora-targets", choices=P.LORA_TARGETS, default="all")
    est.add_argument("--quant", choices=P.QUANT)
    est.add_argument("--new-tokens", type=_positive_int("--new-tokens"), default=256,
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
    lst = cat_verbs.add_parser("list", help="list GPUs or models")
    lst.add_argument("--kind", choices=("gpus", "models", "offers"), default="gpus")
    lst.add_argument("--json", action="store_true")
    show = cat_verbs.add_parser("show", help="show one GPU or model")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    val = cat_verbs.add_parser("validate", help="check a catalog file; exit 2 if it has problems")
    val.add_argument("path")

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
    prb.add_argument("--history", action="store_true",
                     help="show the stored runs per device (oldest first, with the change "
                          "from the previous run) and exit")
    prb.add_argument("--timeout", type=_positive_seconds, default=None, metavar="SECONDS",
                     help="stop the worker after this long (default: 180 quick, 900 full)")
    prb.add_argument("--no-save", action="store_true",
                     help="do not record the results in the probe history (default: record "
                          "them; 'estimate --gpu' then uses them)")
    prb.add_argument("--json", action="store_true", help="print one JSON object")

    gui = verbs.add_parser("gui", help="open the desktop app (the default with no arguments)",
                           description="Open the desktop app, or render it offscreen to a PNG.")
    add_gui_arguments(gui)
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
        else:
            from .report import catalog_table

            print(catalog_table(args.kind, items))
        return 0
    if args.catalog_verb == "show":
        for kind in ("gpus", "models"):
            for item in _catalog_items(kind):
                if item["id"] == args.id:
                    if args.json:
                        print(json.dumps(item, indent=2, default=_json_default))
                    else:
                        width = max(len(k) for k in item)
                        print("\n".join(f"{k:<{width}}  {v}" for k, v in item.items()))
                    return 0
        known = [i["id"] for k in ("gpus", "models") for i in _catalog_items(k)]
        raise InputError(f"catalog show: unknown id {args.id!r}{_suggest(args.id, known)}")
    raise InputError("catalog: say list, show or validate")


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
    raise InputError("catalog list --kind offers: the offers catalog is not available yet")


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
PROBE_TIMEOUT_S = {"quick": 180.0, "full": 900.0}


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
    from .probes.protocol import Progress

    if args.list_pythons:
        return _list_pythons(args)
    if args.python is not None:
        python, no_torch_note = _probe_python(args.python), ""
    else:
        python, no_torch_note = _find_probe_python()
    probes = args.probes or runner.SUITE_PROBES
    show_progress = not args.json and sys.stderr.isatty()

    def on_message(message) -> None:
        if show_progress and isinstance(message, Progress):
            print(f"\r\x1b[K{message.probe:<10} {message.fraction:4.0%}  {message.message}",
                  end="", file=sys.stderr, flush=True)

    try:
        run = runner.run_probes(probes, python=python, device=args.device,
                                timeout_s=args.timeout or PROBE_TIMEOUT_S[args.suite],
                                quick=args.suite == "quick", on_message=on_message,
                                worker=runner.WORKER_SCRIPT)
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
    if args.json:
        data = run.to_json()
        data["history"] = [str(path) for path in saved]
        print(json.dumps(data, indent=2, default=_json_default))
    else:
        print(_probe_text(run, args.suite))
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
