"""``gpuadvisor probe --plan FILE``: build the planned model at depth 1 and 2 on this device,
time its training steps (a training plan) or its decode loop (an inference plan), and show
the extrapolation to the full depth next to the estimate."""

from __future__ import annotations

import argparse

from .args import InputError, json_text
from .probe_run import (
    print_run_errors,
    print_save_problems,
    print_torch_missing,
    run_worker,
)


def plan_check_input(args: argparse.Namespace):
    """``probe --plan FILE``: the plan document and the worker options, or InputError."""
    from gpuadvisor.probes import decode_plan
    from gpuadvisor.workspace.planfile import PlanFileError, load_plan, parse_plan_dict

    if args.probes or args.burn_in is not None or getattr(args, "inference", False):
        raise InputError("--plan: the plan check runs its probes on its own (plancheck and "
                         "step for training, decodecheck and decode for inference); leave "
                         "out --probes, --inference and --burn-in")
    try:
        document = parse_plan_dict(load_plan(args.plan), path=args.plan)
    except PlanFileError as exc:
        raise InputError(f"--plan: {exc}") from None
    try:
        options = decode_plan.check_probe_options(document.model, document.plan)
    except ValueError as exc:
        raise InputError(f"--plan: {args.plan}: {exc}") from None
    return document, options


def command(args: argparse.Namespace, plan_check, python: str, no_torch_note: str) -> int:
    """Run the plan check, then show measured vs estimated: plancheck (and step at the
    plan's shape) for a training plan, decodecheck (and the decode probe's GEMV of the
    plan's weight format) for an inference plan.

    Args:
        plan_check: what :func:`plan_check_input` returned.
    """
    from gpuadvisor.probes import decode_plan, plancheck

    document, options = plan_check
    probes = decode_plan.check_probes(options)
    outcome = run_worker(args, probes, python, options, kind="plancheck")
    if isinstance(outcome, int):
        return outcome
    run, saved, save_problems = outcome
    comparison = None
    if run.result(probes[0]) is not None:
        try:
            comparison = decode_plan.check_compare(run, document)
        except ValueError as exc:
            raise InputError(f"--plan: {exc}") from None
    if args.json:
        data = {"status": run.status, "plan_file": str(args.plan),
                "comparison": comparison.to_json() if comparison else None,
                "errors": [{"probe": e.probe, "kind": e.kind, "message": e.message}
                           for e in run.errors],
                "run": run.to_json(), "history": [str(path) for path in saved]}
        print(json_text(data))
    else:
        if comparison is not None:
            print(plancheck.format_comparison(comparison))
        for error in run.errors:
            print(f"{error.probe or 'run'}: error ({error.kind}): {error.message}")
        for path in saved:
            print(f"Saved to the probe history: {path}")
    print_save_problems(save_problems)
    if run.torch_missing:
        print_torch_missing(python, no_torch_note)
        return 1
    if not run.ok:
        print_run_errors(run)
        return 1
    return 0
