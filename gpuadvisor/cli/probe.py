"""``gpuadvisor probe``: measure this machine with torch in a worker subprocess.

The quick or full suite (and ``--data``) run here; ``--plan`` (:mod:`.plan_check`),
``--burn-in`` (:mod:`.burnin`), ``--history`` (:mod:`.probe_history`) and
``--list-pythons`` (:mod:`.probe_run`) have modules of their own.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from . import burnin, plan_check, probe_history
from .args import InputError, json_text, path_text
from .probe_run import (
    find_probe_python,
    list_pythons,
    print_run_errors,
    print_save_problems,
    print_torch_missing,
    probe_python,
    run_worker,
)


def add_parser(verbs) -> None:
    """Add the ``probe`` verb to ``verbs``."""
    prb = verbs.add_parser(
        "probe", help="measure this machine's GPU (or CPU) with torch in a subprocess",
        description="Measure matmul throughput, memory bandwidth, the bandwidth a decode "
                    "step reaches per weight format (GEMV) and the host's RAM bandwidth on "
                    "this machine. The probes run torch in a worker subprocess, with this "
                    "interpreter or --python.")
    suite = prb.add_mutually_exclusive_group()
    suite.add_argument("--quick", dest="suite", action="store_const", const="quick",
                       help="small sizes, under a minute (the default)")
    suite.add_argument("--full", dest="suite", action="store_const", const="full",
                       help="larger sizes, a few minutes")
    prb.set_defaults(suite="quick")
    prb.add_argument("--device", type=_probe_device, default="auto",
                     help="GPU index N, or cpu (default: the first GPU, else the CPU)")
    prb.add_argument("--python", metavar="PATH", type=path_text("--python"),
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
    prb.add_argument("--inference", action="store_true",
                     help="measure what inference estimates use: the memory bandwidth a "
                          "decode step reaches per weight format (fp16, bf16, int8, 4-bit "
                          "GEMV) and the host's RAM bandwidth (CPU inference, layers left "
                          "in RAM): these two alone, or added to --probes")
    prb.add_argument("--plan", metavar="FILE", type=path_text("--plan"),
                     help="check a .gpuplan on this device: build the planned model at depth "
                          "1 and 2, time training steps (and peak memory on a GPU) or, for "
                          "an inference plan, a decode loop with the KV cache growing, "
                          "extrapolate to the full depth and show it next to the estimate")
    prb.add_argument("--data", metavar="FOLDER", type=path_text("--data"),
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
    prb.add_argument("--burn-in", type=burnin.burn_in_minutes, default=None, metavar="MIN",
                     help="run only the burn-in for MIN minutes (fractions allowed, at most "
                          f"{burnin.BURN_IN_MAX_MIN}): sustained matmuls, every result checked "
                          "exactly, throughput per time window, with the GPU's temperature, "
                          "clocks and power recorded; exit status 0: no wrong result, 1: "
                          "wrong results found (or the run failed), 2: bad input")
    prb.add_argument("--temp-limit", type=burnin.temp_limit, default=None, metavar="C",
                     help="with --burn-in: stop early when the GPU reaches C °C (default: "
                          "3 °C below the card's slowdown temperature, else 85)")
    prb.add_argument("--no-save", action="store_true",
                     help="do not record the results in the probe history (default: record "
                          "them; 'estimate --gpu' then uses them)")
    prb.add_argument("--json", action="store_true", help="print one JSON object")


# --------------------------------------------------------------------------- value types
def _probe_device(text: str) -> str:
    import re

    value = text.strip().lower()
    if value in ("auto", "cpu", "mps") or re.fullmatch(r"\d+|(cuda|xpu):\d+", value):
        return value
    raise argparse.ArgumentTypeError(f"expected a GPU index N or cpu, got {text!r}")


def _probe_names(text: str) -> tuple[str, ...]:
    from gpuadvisor.probes.runner import PROBES

    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in PROBES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown probe {', '.join(unknown) or text!r}; known: {', '.join(PROBES)}")
    return names


#: Longest ``--timeout`` (seconds): a week.
MAX_TIMEOUT_S = 7 * 24 * 3600.0


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if not 0 < value <= MAX_TIMEOUT_S or math.isnan(value):
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds, at most {MAX_TIMEOUT_S:g} (a week), "
            f"got {text[:40]}")
    return value


# --------------------------------------------------------------------------- the verb
def command(args: argparse.Namespace) -> int:
    """``probe``: the suite (or ``--probes``), or one of the modes (history, list-pythons,
    burn-in, plan check); the exit status (1 when the run failed or torch is missing)."""
    if args.history:
        return probe_history.command(args)
    from gpuadvisor.probes import runner

    if args.list_pythons:
        return list_pythons(args)
    if args.burn_in is not None or args.temp_limit is not None:
        burnin.check_burn_in_flags(args)
    checked_plan = plan_check.plan_check_input(args) if args.plan is not None else None
    if args.python is not None:
        python, no_torch_note = probe_python(args.python), ""
    else:
        python, no_torch_note = find_probe_python()
    if args.burn_in is not None:
        return burnin.command(args, python, no_torch_note)
    if checked_plan is not None:
        return plan_check.command(args, checked_plan, python, no_torch_note)
    probes = tuple(args.probes or (() if args.inference else runner.SUITE_PROBES))
    if args.inference:
        probes = (*[p for p in probes if p not in runner.INFERENCE_PROBES],
                  *runner.INFERENCE_PROBES)
    options = None
    if args.data is not None:
        if not args.data.strip() or "\0" in args.data:
            raise InputError("--data: give the dataset folder (the path is empty)")
        folder = Path(args.data).expanduser()
        if not folder.is_dir():
            raise InputError(f"--data {args.data}: not a folder")
        probes = (*[p for p in probes if p != "dataread"], "dataread")
        options = {"dataread": {"path": str(folder.resolve())}}
    outcome = run_worker(args, probes, python, options)
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
        print(json_text(data))
    else:
        print(_probe_text(run, args.suite))
        if verdict is not None:
            print(f"Data pipeline: {verdict.message}")
        for path in saved:
            print(f"Saved to the probe history: {path}")
    print_save_problems(save_problems)
    if run.torch_missing:
        print_torch_missing(python, no_torch_note)
        return 1
    if not run.ok:
        if not args.json:
            print_run_errors(run)
        return 1
    return 0


def _data_verdict(run, token_format: str):
    """The dataset disk against the measured training step's tokens/s, or None."""
    from gpuadvisor.probes.pipeline import BYTES_PER_TOKEN, data_read_verdict

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


# --------------------------------------------------------------------------- text
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
        for fmt, info in (conditions.get("formats") or {}).items():
            if isinstance(info, dict):
                lines.append(f"  ({fmt}: {info.get('kernel')}; {info.get('matrices')} "
                             f"matrices, {info.get('bytes_per_pass', 0) / 2**20:.0f} MiB a "
                             "pass)")
        for dtype, reason in (conditions.get("skipped") or {}).items():
            lines.append(f"  ({dtype} skipped: {reason})")
        if "buffer_bytes" in conditions:
            from gpuadvisor.core.units import format_bytes

            lines.append(f"  (buffer {format_bytes(conditions['buffer_bytes'], 'GiB', 2)}; "
                         f"{conditions.get('bytes_counted', '')})")
    for error in run.errors:
        lines.append(f"{error.probe or 'run'}: error ({error.kind}): {error.message}")
    return "\n".join(lines)


def _versus_catalog(run) -> dict:
    """(probe, figure) -> VersusRow for the run's figures on a catalog card ({} if none)."""
    try:
        from gpuadvisor import catalog
        from gpuadvisor.probes.compare import versus_catalog
        from gpuadvisor.probes.history import stored_runs_of

        gpus = catalog.load_gpus()
        rows = {}
        for stored in stored_runs_of(run):
            gpu = gpus.get(stored.catalog_id) if stored.catalog_id else None
            rows.update({(r.probe, r.figure): r for r in versus_catalog(stored, gpu)})
        return rows
    except Exception:  # a broken catalog must not hide the measurements
        return {}
