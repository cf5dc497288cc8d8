"""``gpuadvisor detect``: the GPUs and host of this machine, or a simulated rig."""

from __future__ import annotations

import argparse

from .args import InputError, json_text


def add_parser(verbs) -> None:
    """Add the ``detect`` verb to ``verbs``."""
    det = verbs.add_parser("detect", help="the GPUs and host of this machine (or a simulated rig)",
                           description="Detect GPUs (NVML, sysfs, Apple) and the host. "
                                       "MIG slices are listed as devices of their own; "
                                       "devices CUDA_VISIBLE_DEVICES hides are left out and "
                                       "named apart (JSON: 'hidden').")
    det.add_argument("--simulate", metavar="SPEC",
                     help="a simulated rig instead of this machine: catalog ids like "
                          "'2x rtx-3090', 'rtx-3090+rtx-3060-12gb', or a scenario "
                          "(one-gpu, mixed, unsupported-fields, gpu-lost, no-gpu)")
    det.add_argument("--data-dir", metavar="PATH", default=None,
                     help="folder whose free disk space to report (default: current folder)")
    det.add_argument("--no-torch", action="store_true",
                     help="skip asking a subprocess whether torch works (faster)")
    det.add_argument("--json", action="store_true", help="print one JSON object")


def command(args: argparse.Namespace) -> int:
    """``detect``: what was found, as text or one JSON object."""
    from gpuadvisor.hardware import detect

    try:
        result = detect(args.simulate, data_dir=args.data_dir, probe_torch=not args.no_torch)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if args.json:
        print(json_text(result.to_json()))
    else:
        from gpuadvisor.hardware.text import detection_text

        print(detection_text(result))
    return 0
