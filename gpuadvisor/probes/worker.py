"""The probe worker: measures this device with torch and reports in JSON lines.

Run as ``python -m gpuadvisor.probes.worker`` or, from another interpreter (the user's
training environment, where gpuadvisor is not installed), by path::

    python /path/to/worker.py --probes matmul,bandwidth --device auto|cpu|0|cuda:0 [--quick|--full]
    python /path/to/worker.py --hello-only       # the handshake only: versions, devices

It speaks the protocol of :mod:`gpuadvisor.probes.protocol` on stdout: ``hello`` (versions,
accelerators, devices), then per probe ``progress`` lines and a ``result`` or an ``error``,
then ``done``. Stray output (a library printing to stdout, C code writing to fd 1) is sent to
stderr, so stdout carries protocol lines only.

This is the only module that imports torch, and only inside functions: without torch it
still says hello (``versions.torch: null``) and reports ``torch-missing`` for each probe.
It needs nothing but the standard library and torch, and runs on Python 3.8+. This file
parses the command line and runs the probes; its neighbours, imported from this folder even
when it runs by path, hold the rest: ``worker_kit.py`` (the channel, stop requests,
ProbeFailed, timing), ``worker_devices.py`` (hello, the device list, :class:`Device`), and
the built-in probes ``worker_matmul.py`` and ``worker_bandwidth.py``.

Probes:

- ``matmul`` (worker_matmul.py): throughput of square matrix multiplies per dtype (fp32,
  tf32 on CUDA >= sm80, bf16 and fp16 where supported; fp16 is skipped on a CPU without
  fast fp16; fp8 e4m3 via ``torch._scaled_mm`` on NVIDIA GPUs of compute capability >= 8.9,
  skipped with its reason elsewhere), a few sizes from the free memory and the time budget,
  after warm-up; inputs rotate over enough copies to exceed L2 where L2's size is known.
  Figures: ``<dtype>_median_tflops`` (median over timed iterations at the largest size
  measured) and ``<dtype>_max_tflops`` (best iteration at any size); FLOPs counted as 2·n³
  per multiply.
- ``bandwidth`` (worker_bandwidth.py): device memory bandwidth from ``copy`` (read + write:
  2 × buffer bytes) and ``triad`` (a = b + s·c: 3 × buffer bytes) on buffers many times L2
  (modest ones on CPU). Figures in GB/s (10⁹ bytes per second).
- ``transfer`` (kernels/transfer.py): host<->device copies from pinned and pageable memory,
  ``h2d_pinned_gb_s``, ``d2h_pageable_max_gb_s``, ... in GB/s; no figures on the CPU and
  pageable only where pinning fails, ``conditions.skipped`` saying why.
- ``dataread`` (kernels/dataread.py): sequential reads from the folder in its ``path``
  option: ``read_mb_s`` (MB/s), ``bytes_read``, ``files_read``; says whether the page cache
  likely served them.
- ``step`` and ``plancheck`` (kernels/step.py), ``burnin`` (kernels/burnin.py): see there.

An out-of-memory is caught, retried at half the size, and reported in ``conditions``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import traceback

#: This file's folder: its neighbours (worker_*.py) and the kernels/ folder live here.
HERE = os.path.dirname(os.path.abspath(__file__))


def private_package(name: str, folder: str):
    """Register an empty package ``name`` whose modules are the files in ``folder``.

    Run by path, this file and the kernels import their neighbours with relative imports
    through such a package: from any interpreter, with or without gpuadvisor installed,
    and without putting the folder on ``sys.path`` (where its files could shadow modules
    torch imports).
    """
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [folder]
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    return package


if not __package__:  # run by path: this folder as a private package (PEP 366)
    private_package("_gpuadvisor_probes", HERE)
    __package__ = "_gpuadvisor_probes"

# The kit the kernels use (``kit.Device``, ``kit.bench``, ...): re-exported here, since a
# kernel's ``kit`` is this module.
from .worker_bandwidth import L2_MULTIPLE, bandwidth_at, probe_bandwidth  # noqa: E402
from .worker_devices import (  # noqa: E402
    MEMORY_SHARE,
    Device,
    cpu_device,
    cpu_name,
    hello_message,
    host_memory,
    list_devices,
    resolve_device,
)
from .worker_kit import (  # noqa: E402
    MIN_BATCHES,
    PROTOCOL_VERSION,
    STOP,
    Channel,
    GiB,
    MiB,
    ProbeFailed,
    bench,
    is_oom,
    listen_for_stop,
    one_call_s,
    sig,
    stop_requested,
)
from .worker_matmul import (  # noqa: E402
    FP8_NEEDS,
    cpu_fp16_too_slow,
    dtype_unsupported,
    fp8_matmul,
    fp8_unavailable,
    is_fp8,
    matmul_after_oom,
    matmul_at,
    matmul_dtypes,
    probe_matmul,
)

__all__ = [
    "FP8_NEEDS", "L2_MULTIPLE", "MEMORY_SHARE", "MIN_BATCHES", "PROTOCOL_VERSION", "STOP",
    "Channel", "Device", "GiB", "MiB", "ProbeFailed", "bandwidth_at", "bench", "cpu_device",
    "cpu_fp16_too_slow", "cpu_name", "dtype_unsupported", "fp8_matmul", "fp8_unavailable",
    "hello_message", "host_memory", "is_fp8", "is_oom", "list_devices", "listen_for_stop",
    "load_kernels", "main", "matmul_after_oom", "matmul_at", "matmul_dtypes", "one_call_s",
    "probe_bandwidth", "probe_matmul", "resolve_device", "sig", "stop_requested",
]

#: What runs without ``--probes``: the built-in probes of this worker's neighbours; more come
#: from the files in ``kernels/`` (see load_kernels).
BUILTIN_PROBES = ("matmul", "bandwidth")
#: The folder of kernel modules, loaded by path next to this file.
KERNEL_DIR = os.path.join(HERE, "kernels")
#: The private package the kernels are imported under (see :func:`private_package`).
KERNEL_PACKAGE = "_gpuadvisor_kernels"

#: Sizes and time budgets per (device class, suite). Matmul sizes are n of n×n×n problems;
#: budgets are seconds per probe (timing only, not counting torch's start-up).
SUITES = {
    ("cpu", "tiny"): {"matmul_sizes": (64, 128), "matmul_budget_s": 0.4,
                      "buffer_bytes": 4 * MiB, "bandwidth_budget_s": 0.2, "max_batches": 5},
    ("cpu", "quick"): {"matmul_sizes": (256, 512, 1024), "matmul_budget_s": 3.0,
                       "buffer_bytes": 64 * MiB, "bandwidth_budget_s": 1.0, "max_batches": 10},
    ("cpu", "full"): {"matmul_sizes": (512, 1024, 2048), "matmul_budget_s": 15.0,
                      "buffer_bytes": 256 * MiB, "bandwidth_budget_s": 4.0, "max_batches": 20},
    ("gpu", "tiny"): {"matmul_sizes": (256, 512), "matmul_budget_s": 1.0,
                      "buffer_bytes": 64 * MiB, "bandwidth_budget_s": 0.5, "max_batches": 5},
    ("gpu", "quick"): {"matmul_sizes": (2048, 4096, 8192), "matmul_budget_s": 8.0,
                       "buffer_bytes": 2 * GiB, "bandwidth_budget_s": 3.0, "max_batches": 10},
    ("gpu", "full"): {"matmul_sizes": (4096, 8192, 16384), "matmul_budget_s": 30.0,
                      "buffer_bytes": 8 * GiB, "bandwidth_budget_s": 10.0, "max_batches": 30},
}


# --------------------------------------------------------------------------- torch
def import_torch():
    """``(torch, None)``, or ``(None, "why")`` when torch cannot be imported."""
    try:
        import torch
    except Exception as exc:  # ImportError, or a broken install raising anything
        return None, f"{type(exc).__name__}: {exc}".splitlines()[0]
    return torch, None


# --------------------------------------------------------------------------- main
#: Probe name -> ``fn(torch, device, suite, channel, options) -> {"figures", "units",
#: "conditions"}``; kernels add theirs (load_kernels).
RUNNERS = {"matmul": probe_matmul, "bandwidth": probe_bandwidth}


def load_kernels(folder: str = KERNEL_DIR) -> list:
    """Import every ``kernels/*.py`` and add its ``PROBES`` to :data:`RUNNERS`.

    A kernel module defines ``PROBES = {"name": fn}`` with the signature of
    :data:`RUNNERS`; a module without ``PROBES`` is a helper of the others (imported by
    them with relative imports). Each gets this module as its ``kit`` attribute (Device,
    bench, sig, ProbeFailed, is_oom, stop_requested, ...) before its probes run. The
    modules are imported afresh under the private package :data:`KERNEL_PACKAGE` over
    ``folder``, which keeps this working from any interpreter without gpuadvisor
    installed. Returns the problems (a kernel that failed to load), for stderr.
    """
    problems = []
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        return [f"no kernels folder {folder}: {exc}"]
    kernel_package(folder)
    for name in names:
        if not name.endswith(".py") or name.startswith("_"):
            continue
        try:
            module = import_kernel(name[:-3], folder)
            RUNNERS.update(getattr(module, "PROBES", {}))
        except Exception as exc:  # one broken kernel must not take the others down
            problems.append(f"kernel {name} failed to load: {type(exc).__name__}: {exc}")
    return problems


def kernel_package(folder: str = KERNEL_DIR):
    """A fresh :data:`KERNEL_PACKAGE` over ``folder``: kernels imported before are
    forgotten, so the next import runs their files again."""
    prefix = KERNEL_PACKAGE + "."
    for name in [n for n in sys.modules if n == KERNEL_PACKAGE or n.startswith(prefix)]:
        del sys.modules[name]
    return private_package(KERNEL_PACKAGE, folder)


def import_kernel(name: str, folder: str = KERNEL_DIR):
    """The kernel module ``name`` (a file ``name.py`` in ``folder``), imported under
    :data:`KERNEL_PACKAGE`; it and every neighbour it imported get this module as ``kit``."""
    package = sys.modules.get(KERNEL_PACKAGE)
    if package is None or list(getattr(package, "__path__", ())) != [folder]:
        kernel_package(folder)
    module = importlib.import_module(f"{KERNEL_PACKAGE}.{name}")
    this = sys.modules[__name__]
    prefix = KERNEL_PACKAGE + "."
    for loaded_name, loaded in list(sys.modules.items()):
        if loaded_name.startswith(prefix) and loaded is not None:
            loaded.kit = this
    return module


def known_probes() -> tuple:
    return tuple(RUNNERS)


def parse_options(text: str | None) -> dict:
    """``--options``: a JSON object, probe name -> that probe's options (an object)."""
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError as exc:
        raise ProbeFailed("exception", f"--options is not JSON: {exc}") from None
    if not isinstance(options, dict) or not all(isinstance(v, dict) for v in options.values()):
        raise ProbeFailed("exception", "--options must be a JSON object mapping probe names "
                                       "to objects")
    return options


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="gpuadvisor-probe-worker",
                                     description="Measure this device; speaks JSON lines.")
    parser.add_argument("--probes", default=",".join(BUILTIN_PROBES),
                        help="comma-separated probe names")
    parser.add_argument("--device", default="auto", help="auto, cpu, N, cuda:N, xpu:N or mps")
    parser.add_argument("--quick", dest="suite", action="store_const", const="quick",
                        help="small sizes, seconds (the default)")
    parser.add_argument("--full", dest="suite", action="store_const", const="full",
                        help="larger sizes, longer runs")
    parser.add_argument("--options", default=None, metavar="JSON",
                        help='per-probe options: {"step": {...}, "dataread": {"path": ...}}')
    # Tests: the smallest sizes, fractions of a second; wins over --quick/--full.
    parser.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--hello-only", action="store_true",
                        help="say hello (versions, accelerators, devices) and done; no probes")
    parser.set_defaults(suite="quick")
    args = parser.parse_args(argv)
    if args.tiny:
        args.suite = "tiny"
    return args


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    channel = Channel()
    for problem in load_kernels():
        print(f"worker: {problem}", file=sys.stderr)
    listen_for_stop()
    probes = [p.strip() for p in args.probes.split(",") if p.strip()]
    torch, torch_error = import_torch()
    hello = hello_message(torch, torch_error)
    channel.send(hello)
    if args.hello_only:
        channel.send({"type": "done"})
        return 0
    if torch is None:
        for probe in probes:
            channel.error(probe, "torch-missing", f"torch is not installed in {sys.executable}"
                                                  f" ({torch_error})")
        channel.send({"type": "done"})
        return 0
    try:
        options = parse_options(args.options)
        device = resolve_device(torch, args.device, hello["devices"])
    except ProbeFailed as exc:
        for probe in probes:
            channel.error(probe, exc.kind, str(exc))
        channel.send({"type": "done"})
        return 0
    suite = dict(SUITES[(device.kind, args.suite)], name=args.suite)
    for probe in probes:
        runner = RUNNERS.get(probe)
        if runner is None:
            channel.error(probe, "unknown-probe", f"unknown probe {probe!r}; known: "
                          + ", ".join(known_probes()))
            continue
        channel.progress(probe, 0.0, f"starting on {device.id} ({device.name})")
        try:
            measured = runner(torch, device, suite, channel, options.get(probe, {}))
        except ProbeFailed as exc:
            channel.error(probe, exc.kind, str(exc))
        except Exception as exc:
            traceback.print_exc()
            kind = "out-of-memory" if is_oom(exc) else "exception"
            first_line = (str(exc).splitlines() or [""])[0][:300]
            channel.error(probe, kind, f"{type(exc).__name__}: {first_line}")
        else:
            measured["conditions"]["suite"] = args.suite
            channel.send({"type": "result", "probe": probe, **measured})
        finally:
            device.empty_cache()
    channel.send({"type": "done"})
    return 0


if __name__ == "__main__":
    # Run by path, this file's folder is sys.path[0]; drop it so its neighbours
    # (protocol.py, runner.py) cannot shadow modules torch imports.
    if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(
            os.path.abspath(__file__)):
        del sys.path[0]
    sys.exit(main())
