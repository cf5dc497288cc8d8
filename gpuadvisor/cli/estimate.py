"""``gpuadvisor estimate``: memory, time and fit for a plan.

Its plan flags are shared: ``suggest`` and ``export`` take the ``estimate`` parser as their
argparse parent, and build their plan with :func:`plan_from_args`.
"""

from __future__ import annotations

import argparse
import json
import sys

from .args import (
    InputError,
    assumption,
    count,
    fraction,
    json_default,
    load_gpu,
    load_model,
    positive_int,
)


def add_parser(verbs) -> argparse.ArgumentParser:
    """Add the ``estimate`` verb to ``verbs``; the parser (the plan flags' parent)."""
    from gpuadvisor.core import plan as P

    est = verbs.add_parser("estimate", help="memory, time and fit for a plan",
                           description="Estimate VRAM per GPU and time for a plan.")
    est.add_argument("--model", required=True,
                     help="preset id (see 'catalog list --kind models') or a config.json path")
    est.add_argument("--task", choices=P.TASKS, default="full")
    est.add_argument("--precision", choices=P.PRECISIONS, default="bf16")
    est.add_argument("--optimizer", choices=P.OPTIMIZERS, default="adamw")
    est.add_argument("--micro-batch", type=positive_int, default=1)
    est.add_argument("--grad-accum", type=positive_int, default=1)
    est.add_argument("--seq", type=positive_int, default=None,
                     help="sequence length (default: 2048, or the model's context if shorter)")
    est.add_argument("--checkpointing", choices=P.CHECKPOINTING, default="none")
    est.add_argument("--attention", choices=P.ATTENTION, default="flash")
    est.add_argument("--gpu", help="catalog GPU id (see 'catalog list'); checks the fit")
    est.add_argument("--gpus", type=positive_int, default=1)
    est.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=0)
    est.add_argument("--offload", choices=P.OFFLOAD, default="none")
    data = est.add_mutually_exclusive_group()
    data.add_argument("--tokens", type=count("--tokens"), help="training tokens, e.g. 2T, 300M")
    data.add_argument("--samples", type=count("--samples"), help="samples per epoch")
    est.add_argument("--epochs", type=count("--epochs"), default=None)
    est.add_argument("--lora-rank", type=positive_int)
    est.add_argument("--lora-targets", choices=P.LORA_TARGETS, default="all")
    est.add_argument("--quant", choices=P.QUANT)
    est.add_argument("--new-tokens", type=positive_int, default=256,
                     help="inference: tokens generated per sequence")
    est.add_argument("--kv-dtype", choices=P.KV_DTYPES)
    est.add_argument("--efficiency", type=fraction, help="achieved fraction of peak, e.g. 0.4")
    est.add_argument("--assume", type=assumption, action="append", default=[],
                     metavar="NAME=VALUE", help="override an assumption (repeatable)")
    est.add_argument("--no-measured", action="store_true",
                     help="ignore throughput measured on --gpu by 'gpuadvisor probe' "
                          "(default: the latest measurement calibrates the time)")
    est.add_argument("--units", choices=("GiB", "GB"), default="GiB")
    est.add_argument("--json", action="store_true", help="print one JSON object")
    return est


def plan_from_args(args: argparse.Namespace, model):
    """Build a Plan from parsed ``estimate`` flags; ValueError names the bad field."""
    from gpuadvisor.core.plan import Plan

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


def command(args: argparse.Namespace) -> int:
    """``estimate``: the estimate as a table, or one JSON object with ``--json``."""
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
    from gpuadvisor.core.estimate import REFERENCE_GPU_ID, estimate

    model = load_model(args.model)
    gpu, gpus = load_gpu(args.gpu)
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
        measurement = stored_measurement(gpu, plan)
    try:
        result = estimate(model, plan, gpu, assumptions, reference_gpu=gpus[REFERENCE_GPU_ID],
                          measurement=measurement)
    except ValueError as exc:
        raise InputError(f"estimate: {exc}") from None
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=json_default))
    else:
        from gpuadvisor.report import estimate_table

        print(estimate_table(result, units=args.units))
    return 0


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
