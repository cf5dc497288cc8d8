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
It needs nothing but the standard library and torch, and runs on Python 3.8+.

Probes:

- ``matmul``: throughput of square matrix multiplies per dtype (fp32, tf32 on CUDA >= sm80,
  bf16 and fp16 where supported; fp16 is skipped on a CPU without fast fp16; fp8 e4m3 via
  ``torch._scaled_mm`` on NVIDIA GPUs of compute capability >= 8.9, skipped with its reason
  elsewhere), a few sizes from the free memory and the time budget, after warm-up; inputs
  rotate over enough copies to exceed L2 where L2's size is known. Figures:
  ``<dtype>_median_tflops`` (median over timed iterations at the largest size measured) and
  ``<dtype>_max_tflops`` (best iteration at any size); FLOPs counted as 2·n³ per multiply.
- ``bandwidth``: device memory bandwidth from ``copy`` (read + write: 2 × buffer bytes) and
  ``triad`` (a = b + s·c: 3 × buffer bytes) on buffers many times L2 (modest ones on CPU).
  Figures in GB/s (10⁹ bytes per second).
- ``transfer`` (kernels/transfer.py): host<->device copies from pinned and pageable memory,
  ``h2d_pinned_gb_s``, ``d2h_pageable_max_gb_s``, ... in GB/s; no figures on the CPU and
  pageable only where pinning fails, ``conditions.skipped`` saying why.
- ``dataread`` (kernels/dataread.py): sequential reads from the folder in its ``path``
  option: ``read_mb_s`` (MB/s), ``bytes_read``, ``files_read``; says whether the page cache
  likely served them.

An out-of-memory is caught, retried at half the size, and reported in ``conditions``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import threading
import time
import traceback

PROTOCOL_VERSION = 1  # must equal gpuadvisor.probes.protocol.PROTOCOL_VERSION (tested)
#: Probes defined in this file; more come from the files in ``kernels/`` (see load_kernels).
BUILTIN_PROBES = ("matmul", "bandwidth")
#: The folder of kernel modules, loaded by path next to this file.
KERNEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")

MiB = 1 << 20
GiB = 1 << 30

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
#: The largest share of the device's free memory one probe may take.
MEMORY_SHARE = 0.25
#: Buffers are at least this many times L2 where L2's size is known.
L2_MULTIPLE = 64
MIN_BATCHES = 3


# --------------------------------------------------------------------------- the channel
class Channel:
    """Writes protocol lines to the real stdout; everything else written to fd 1 (by Python
    or by C code) goes to stderr instead."""

    def __init__(self) -> None:
        try:
            sys.stdout.flush()
            fd = os.dup(sys.stdout.fileno())
            os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
            self._out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
            sys.stdout = sys.stderr
        except (OSError, ValueError, AttributeError):  # no real file descriptors: share stdout
            self._out = sys.stdout

    def send(self, message: dict) -> None:
        self._out.write(json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n")
        self._out.flush()

    def progress(self, probe: str, fraction: float, message: str) -> None:
        self.send({"type": "progress", "probe": probe,
                   "fraction": round(min(max(fraction, 0.0), 1.0), 4), "message": message})

    def error(self, probe: str | None, kind: str, message: str) -> None:
        self.send({"type": "error", "probe": probe, "kind": kind, "message": message})


#: Set when the app asks for a graceful stop (a line ``stop`` on stdin): long probes
#: (burn-in) end early and still report what they measured.
STOP = threading.Event()


def listen_for_stop(stream=None) -> None:
    """Watch stdin on a daemon thread; a line ``stop`` sets :data:`STOP`."""
    stream = stream if stream is not None else sys.stdin

    def watch():
        try:
            for line in stream:
                if line.strip().lower() == "stop":
                    STOP.set()
        except (OSError, ValueError):
            pass

    if stream is not None:
        threading.Thread(target=watch, daemon=True, name="stop-listener").start()


def stop_requested() -> bool:
    """Whether the app asked this worker to stop (see :data:`STOP`)."""
    return STOP.is_set()


class ProbeFailed(Exception):
    """A probe that cannot give a result; ``kind`` is the protocol error kind."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


# --------------------------------------------------------------------------- hello
def import_torch():
    """``(torch, None)``, or ``(None, "why")`` when torch cannot be imported."""
    try:
        import torch
    except Exception as exc:  # ImportError, or a broken install raising anything
        return None, f"{type(exc).__name__}: {exc}".splitlines()[0]
    return torch, None


def hello_message(torch, torch_error: str | None) -> dict:
    """The ``hello`` message: versions, accelerators, devices."""
    versions = {"python": platform.python_version(), "torch": None, "cuda": None, "hip": None,
                "platform": platform.platform()}
    accelerators = {"cuda": False, "rocm": False, "mps": False, "xpu": False, "cpu": True}
    devices = []
    if torch is not None:
        versions["torch"] = str(torch.__version__)
        versions["cuda"] = getattr(torch.version, "cuda", None)
        versions["hip"] = getattr(torch.version, "hip", None)
        devices = list_devices(torch)
        kinds = {d["type"] for d in devices}
        accelerators.update(cuda="cuda" in kinds, rocm="rocm" in kinds, mps="mps" in kinds,
                            xpu="xpu" in kinds)
    else:
        devices = [cpu_device(None)]
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "versions": versions,
            "accelerators": accelerators, "devices": devices, "torch_error": torch_error}


def list_devices(torch) -> list:
    """Every device torch can use, accelerators first, the CPU last."""
    devices = []
    try:
        if torch.cuda.is_available():
            kind = "rocm" if getattr(torch.version, "hip", None) else "cuda"
            for i in range(torch.cuda.device_count()):
                props = torch.cuda.get_device_properties(i)
                device = {"id": f"cuda:{i}", "type": kind, "name": props.name,
                          "memory_total_bytes": int(props.total_memory),
                          "capability": f"{props.major}.{props.minor}",
                          "multiprocessors": int(props.multi_processor_count)}
                l2 = getattr(props, "L2_cache_size", None)
                if l2:
                    device["l2_bytes"] = int(l2)
                uuid = getattr(props, "uuid", None)
                if uuid is not None:
                    device["uuid"] = str(uuid)
                devices.append(device)
    except Exception as exc:  # a broken driver: report it, keep the CPU
        print(f"worker: CUDA devices unavailable: {exc}", file=sys.stderr)
    try:
        xpu = getattr(torch, "xpu", None)
        if xpu is not None and xpu.is_available():
            for i in range(xpu.device_count()):
                props = xpu.get_device_properties(i)
                devices.append({"id": f"xpu:{i}", "type": "xpu", "name": props.name,
                                "memory_total_bytes": int(props.total_memory)})
    except Exception as exc:
        print(f"worker: XPU devices unavailable: {exc}", file=sys.stderr)
    try:
        if torch.backends.mps.is_available():
            device = {"id": "mps", "type": "mps", "name": "Apple GPU (MPS)"}
            recommended = getattr(torch.mps, "recommended_max_memory", None)
            if recommended is not None:
                device["memory_total_bytes"] = int(recommended())
            devices.append(device)
    except Exception as exc:
        print(f"worker: MPS unavailable: {exc}", file=sys.stderr)
    devices.append(cpu_device(torch))
    return devices


def cpu_device(torch) -> dict:
    total, available = host_memory()
    device = {"id": "cpu", "type": "cpu", "name": cpu_name(),
              "memory_total_bytes": total, "memory_free_bytes": available}
    if torch is not None:
        device["threads"] = int(torch.get_num_threads())
    return device


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def host_memory():
    """``(total_bytes, available_bytes)`` of host RAM; ``None`` where unknown."""
    try:
        info = {}
        with open("/proc/meminfo", encoding="utf-8") as meminfo:
            for line in meminfo:
                name, _, rest = line.partition(":")
                info[name] = int(rest.split()[0]) * 1024
        return info.get("MemTotal"), info.get("MemAvailable")
    except (OSError, ValueError, IndexError):
        pass
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        return page * os.sysconf("SC_PHYS_PAGES"), page * os.sysconf("SC_AVPHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None, None


# --------------------------------------------------------------------------- devices
class Device:
    """The device the probes run on: its torch name, kind, and how to sync and size on it."""

    def __init__(self, torch, info: dict) -> None:
        self.torch = torch
        self.info = info
        self.id = info["id"]
        self.type = info["type"]
        self.name = info.get("name", self.id)
        self.kind = "cpu" if self.type == "cpu" else "gpu"

    def sync(self) -> None:
        torch = self.torch
        if self.type in ("cuda", "rocm"):
            torch.cuda.synchronize(self.id)
        elif self.type == "xpu":
            torch.xpu.synchronize(self.id)
        elif self.type == "mps":
            torch.mps.synchronize()

    def free_bytes(self) -> int | None:
        torch = self.torch
        try:
            if self.type in ("cuda", "rocm"):
                return int(torch.cuda.mem_get_info(self.id)[0])
            if self.type == "xpu" and hasattr(torch.xpu, "mem_get_info"):
                return int(torch.xpu.mem_get_info(self.id)[0])
            if self.type == "mps":
                total = self.info.get("memory_total_bytes")
                used = torch.mps.driver_allocated_memory()
                return int(total - used) if total else None
        except Exception:
            pass
        if self.type == "cpu":
            return host_memory()[1]
        return self.info.get("memory_total_bytes")

    def budget_bytes(self) -> int | None:
        """The most one probe may allocate: a safe share of the free memory."""
        free = self.free_bytes()
        return int(free * MEMORY_SHARE) if free else None

    def l2_bytes(self) -> int:
        return int(self.info.get("l2_bytes") or 0)

    def empty_cache(self) -> None:
        torch = self.torch
        try:
            if self.type in ("cuda", "rocm"):
                torch.cuda.empty_cache()
            elif self.type == "xpu":
                torch.xpu.empty_cache()
            elif self.type == "mps":
                torch.mps.empty_cache()
        except Exception:
            pass


def resolve_device(torch, spec: str, devices: list) -> Device:
    """The device named by ``spec``: ``auto``, ``cpu``, an index ``N`` (the N-th GPU), or a
    torch name such as ``cuda:1``, ``xpu:0``, ``mps``. Raises ProbeFailed("bad-device")."""
    by_id = {d["id"]: d for d in devices}
    gpus = [d for d in devices if d["type"] != "cpu"]
    spec = (spec or "auto").strip().lower()
    if spec == "auto":
        return Device(torch, gpus[0] if gpus else by_id["cpu"])
    if spec.isdigit():
        index = int(spec)
        if not gpus:
            raise ProbeFailed("bad-device", f"--device {spec}: torch sees no GPU here (a "
                                            "CPU-only torch build?); use --device cpu")
        if index >= len(gpus):
            raise ProbeFailed("bad-device", f"--device {spec}: torch sees {len(gpus)} GPU(s): "
                              + ", ".join(d["id"] for d in gpus))
        return Device(torch, gpus[index])
    if spec in ("cuda", "xpu"):
        spec += ":0"
    if spec not in by_id:
        raise ProbeFailed("bad-device", f"--device {spec}: not available here; torch sees "
                          + ", ".join(by_id))
    return Device(torch, by_id[spec])


def is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return "out of memory" in text or "can't allocate memory" in text


# --------------------------------------------------------------------------- timing
def sig(value: float, digits: int = 4) -> float:
    """``value`` to ``digits`` significant figures (a tiny rate must not round to zero)."""
    return float(f"{value:.{digits}g}")


def bench(fn, sync, budget_s: float, max_batches: int):
    """Time ``fn`` in batches of back-to-back calls between device syncs.

    Warm-up: one call, one timed call (to size the batches) and one untimed batch. Then up to
    ``max_batches`` batches, at least MIN_BATCHES, until ``budget_s`` is spent.

    Returns:
        ``(seconds_per_call, reps_per_batch, warmup_calls)``: one entry per timed batch.
    """
    fn()
    sync()
    start = time.perf_counter()
    fn()
    sync()
    single_s = max(time.perf_counter() - start, 1e-7)
    reps = max(1, min(100_000, int(budget_s / (max_batches + 1) / single_s)))
    for _ in range(reps):
        fn()
    sync()
    times = []
    end = time.perf_counter() + budget_s
    for i in range(max_batches):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        times.append((time.perf_counter() - start) / reps)
        if i + 1 >= MIN_BATCHES and time.perf_counter() > end:
            break
    return times, reps, 2 + reps


def one_call_s(fn, sync) -> float:
    fn()
    sync()
    start = time.perf_counter()
    fn()
    sync()
    return max(time.perf_counter() - start, 1e-9)


# --------------------------------------------------------------------------- matmul
#: Why fp8 is skipped where :func:`fp8_unavailable` finds it cannot run.
FP8_NEEDS = ("fp8 matmul needs an NVIDIA GPU of compute capability 8.9+ (Ada/Hopper) and "
             "torch._scaled_mm")


def matmul_dtypes(torch, device: Device) -> list:
    """``(label, dtype, fp32 matmul precision)`` to try on ``device``, in order (fp8 only
    where :func:`fp8_unavailable` finds it can run)."""
    dtypes = [("fp32", torch.float32, "highest")]
    if device.type == "cuda":
        major = int(str(device.info.get("capability", "0.0")).split(".")[0])
        if major >= 8:
            dtypes.append(("tf32", torch.float32, "high"))
    dtypes.append(("bf16", torch.bfloat16, "highest"))
    dtypes.append(("fp16", torch.float16, "highest"))
    if fp8_unavailable(torch, device) is None:
        dtypes.append(("fp8", torch.float8_e4m3fn, "highest"))
    return dtypes


def fp8_unavailable(torch, device: Device) -> str | None:
    """Why fp8 (e4m3) matmuls cannot run on ``device``, or ``None`` if they may.

    fp8 tensor-core matmuls need CUDA (not ROCm, whose fp8 formats differ) on compute
    capability >= 8.9 and a torch with ``float8_e4m3fn`` and ``torch._scaled_mm``.
    """
    if device.type != "cuda":
        where = "a CPU" if device.type == "cpu" else f"a {device.type} device"
        return f"{FP8_NEEDS}; this is {where}"
    capability = str(device.info.get("capability", "0.0"))
    try:
        major, minor = (int(part) for part in capability.split(".")[:2])
    except ValueError:
        major, minor = 0, 0
    if (major, minor) < (8, 9):
        return f"{FP8_NEEDS}; this GPU is compute capability {capability}"
    if not (hasattr(torch, "_scaled_mm") and hasattr(torch, "float8_e4m3fn")):
        return f"{FP8_NEEDS}; torch {torch.__version__} lacks them"
    return None


def is_fp8(torch, dtype) -> bool:
    return dtype is not None and dtype == getattr(torch, "float8_e4m3fn", None)


def fp8_matmul(torch, a, b_col, scale):
    """``a @ b`` in fp8 with bf16 output through ``torch._scaled_mm``.

    Its layout rules: ``a`` row-major, ``b_col`` column-major (the ``.t()`` of a row-major
    tensor), both dims multiples of 16; per-tensor scales as float32 tensors (1.0 here).
    torch 2.1-2.3 returned ``(out, amax)``; later versions the tensor alone.
    """
    out = torch._scaled_mm(a, b_col, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)
    return out[0] if isinstance(out, tuple) else out


def probe_matmul(torch, device: Device, suite: dict, channel: Channel, options: dict) -> dict:
    sizes = list(suite["matmul_sizes"])
    dtypes = matmul_dtypes(torch, device)
    slot_s = suite["matmul_budget_s"] / (len(dtypes) * len(sizes))
    figures, units, per_dtype, skipped, notes = {}, {}, {}, {}, []
    if not any(label == "fp8" for label, _, _ in dtypes):
        skipped["fp8"] = fp8_unavailable(torch, device)
    oom_retries = 0
    steps, step = len(dtypes) * len(sizes), 0
    fp32_small_tflops = None
    previous_precision = torch.get_float32_matmul_precision()
    try:
        for label, dtype, precision in dtypes:
            torch.set_float32_matmul_precision(precision)
            reason = dtype_unsupported(torch, device, dtype)
            if reason is None and label == "fp16" and device.type == "cpu" and fp32_small_tflops:
                reason = cpu_fp16_too_slow(torch, device, sizes[0], fp32_small_tflops)
            if reason is not None:
                skipped[label] = reason
                step += len(sizes)
                channel.progress("matmul", step / steps, f"{label}: skipped ({reason})")
                continue
            rates_by_size, shapes, batches, reps_list, warmups, sets = {}, [], [], [], [], []
            all_rates, last_rates = [], []
            for index, n in enumerate(sizes):
                step += 1
                channel.progress("matmul", (step - 0.5) / steps, f"{label} {n}x{n}x{n}")
                out_of_memory = False
                try:
                    measured = matmul_at(torch, device, dtype, n, slot_s, suite["max_batches"],
                                         first=index == 0)
                except Exception as exc:
                    if not is_oom(exc):
                        raise
                    out_of_memory = True  # retried below, once the traceback's tensors are freed
                if out_of_memory:
                    measured, retries = matmul_after_oom(torch, device, dtype, n, slot_s,
                                                         suite["max_batches"])
                    oom_retries += retries
                    notes.append(f"{label} {n}: out of memory, retried at "
                                 f"{measured['n'] if measured else 'no size that fits'}")
                if measured is None:
                    break
                n_used = measured["n"]
                rates = [2.0 * n_used ** 3 / t / 1e12 for t in measured["times"]]
                rates_by_size[str(n_used)] = sig(statistics.median(rates))
                shapes.append([n_used, n_used, n_used])
                batches.append(len(rates))
                reps_list.append(measured["reps"])
                warmups.append(measured["warmup"])
                sets.append(measured["input_sets"])
                all_rates.extend(rates)
                last_rates = rates
                if label == "fp32" and index == 0:
                    fp32_small_tflops = statistics.median(rates)
                if measured.get("stop"):
                    notes.append(f"{label}: larger sizes skipped ({measured['stop']})")
                    break
            if not all_rates:
                skipped.setdefault(label, "no size fits in the memory allowed")
                continue
            figures[f"{label}_median_tflops"] = sig(statistics.median(last_rates))
            figures[f"{label}_max_tflops"] = sig(max(all_rates))
            units[f"{label}_median_tflops"] = units[f"{label}_max_tflops"] = "TFLOPS"
            per_dtype[label] = {"shapes": shapes, "iterations": batches,
                                "calls_per_iteration": reps_list, "warmup_calls": warmups,
                                "input_sets": sets, "median_tflops_by_size": rates_by_size}
            if label == "fp8":
                per_dtype[label]["kernel"] = ("torch._scaled_mm: e4m3 inputs, per-tensor "
                                              "scales 1.0, bf16 output")
            channel.progress("matmul", step / steps, f"{label}: "
                             f"{figures[label + '_median_tflops']:.3g} TFLOPS median")
    finally:
        torch.set_float32_matmul_precision(previous_precision)
    if not figures:
        kind = "out-of-memory" if oom_retries else "unsupported"
        raise ProbeFailed(kind, "no dtype could be measured: " + "; ".join(
            f"{k}: {v}" for k, v in skipped.items()))
    conditions = {"device": device.id, "device_name": device.name, "dtypes": per_dtype,
                  "skipped": skipped, "oom_retries": oom_retries, "notes": notes,
                  "flops_per_call": "2*n^3",
                  "timing": "batches of back-to-back matmuls between device syncs"}
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


def dtype_unsupported(torch, device: Device, dtype) -> str | None:
    """Why ``dtype`` matmuls cannot run on ``device``, or ``None`` if they can."""
    if device.type in ("cuda", "rocm") and dtype == torch.bfloat16:
        try:
            if not torch.cuda.is_bf16_supported():
                return "bf16 not supported by this GPU"
        except Exception:
            pass
    try:
        if is_fp8(torch, dtype):
            a = torch.ones(16, 16, device=device.id).to(dtype)
            scale = torch.ones((), device=device.id, dtype=torch.float32)
            fp8_matmul(torch, a, a.t(), scale).float().sum().item()
            return None
        a = torch.ones(16, 16, device=device.id, dtype=dtype)
        (a @ a).sum().item()
    except Exception as exc:
        return f"not supported: {str(exc).splitlines()[0][:120]}"
    return None


def cpu_fp16_too_slow(torch, device: Device, n: int, fp32_tflops: float) -> str | None:
    """On CPU, fp16 matmul is often emulated and many times slower than fp32: skip it then."""
    a = torch.randn(n, n, device=device.id).to(torch.float16)
    b = torch.randn(n, n, device=device.id).to(torch.float16)
    seconds = min(one_call_s(lambda: torch.matmul(a, b), device.sync) for _ in range(3))
    tflops = 2.0 * n ** 3 / seconds / 1e12
    if tflops < 0.25 * fp32_tflops:
        return (f"slow on this CPU ({tflops:.3g} TFLOPS at n={n} vs {fp32_tflops:.3g} for "
                "fp32): no fast fp16 matmul")
    return None


def matmul_at(torch, device: Device, dtype, n: int, budget_s: float, max_batches: int,
              first: bool) -> dict | None:
    """Measure n×n×n matmuls; ``None`` if even one set of inputs does not fit the budget.

    fp8 runs through :func:`fp8_matmul` (n rounded down to a multiple of 16, bf16 output).
    """
    fp8 = is_fp8(torch, dtype)
    if fp8:
        n = max(16, n - n % 16)
    element = torch.tensor([], dtype=dtype).element_size()
    out_element = 2 if fp8 else element  # fp8 writes bf16
    pair_bytes = 2 * n * n * element
    limit = device.budget_bytes()
    # Rotate over enough input pairs that they exceed L2 several times (where L2 is known).
    sets = max(1, min(8, math.ceil(4 * device.l2_bytes() / pair_bytes)))
    if limit is not None:
        while sets > 1 and sets * pair_bytes + n * n * out_element > limit:
            sets -= 1
        if pair_bytes + n * n * out_element > limit:
            return None

    def operand():
        return torch.randn(n, n, device=device.id).to(dtype)

    # fp8: the second operand column-major (the transpose of a row-major tensor).
    inputs = [(operand(), operand().t() if fp8 else operand()) for _ in range(sets)]
    counter = [0]
    if fp8:
        scale = torch.ones((), device=device.id, dtype=torch.float32)

        def call():
            a, b = inputs[counter[0] % sets]
            counter[0] += 1
            fp8_matmul(torch, a, b, scale)
    else:
        out = torch.empty(n, n, device=device.id, dtype=dtype)

        def call():
            a, b = inputs[counter[0] % sets]
            counter[0] += 1
            torch.matmul(a, b, out=out)

    single_s = one_call_s(call, device.sync)
    if not first and single_s * (MIN_BATCHES + 2) > 2 * budget_s:
        return {"n": n, "times": [single_s], "reps": 1, "warmup": 1, "input_sets": sets,
                "stop": f"one {n}x{n} matmul takes {single_s:.3g} s"}
    times, reps, warmup = bench(call, device.sync, budget_s, max_batches)
    return {"n": n, "times": times, "reps": reps, "warmup": warmup + 2, "input_sets": sets}


def matmul_after_oom(torch, device: Device, dtype, n: int, budget_s: float, max_batches: int):
    """Retry at half the size after an out-of-memory; ``(measured or None, retries)``."""
    retries = 0
    while n > 64:
        device.empty_cache()
        n //= 2
        retries += 1
        try:
            return matmul_at(torch, device, dtype, n, budget_s, max_batches, first=True), retries
        except Exception as exc:
            if not is_oom(exc):
                raise
    device.empty_cache()
    return None, retries


# --------------------------------------------------------------------------- bandwidth
def probe_bandwidth(torch, device: Device, suite: dict, channel: Channel,
                    options: dict) -> dict:
    target = suite["buffer_bytes"]
    if device.l2_bytes():
        target = min(max(target // 8, L2_MULTIPLE * device.l2_bytes()), target)
    limit = device.budget_bytes()
    if limit is not None:
        target = min(target, limit // 3)  # triad holds three buffers
    size = max(MiB, (target // MiB) * MiB)
    oom_retries = 0
    while True:
        try:
            figures, conditions = bandwidth_at(torch, device, size, suite, channel)
            break
        except Exception as exc:
            if not is_oom(exc):
                raise
            if size <= MiB:
                raise ProbeFailed("out-of-memory", f"not even a 1 MiB buffer fits: {exc}") from exc
        # Out of memory: retry smaller, now that the exception (and its tensors) is gone.
        device.empty_cache()
        size = max(MiB, size // 2)
        oom_retries += 1
        channel.progress("bandwidth", 0.0, f"out of memory; retrying with {size // MiB} MiB")
    units = {name: "GB/s" for name in figures}
    conditions.update(device=device.id, device_name=device.name, oom_retries=oom_retries,
                      l2_bytes=device.l2_bytes() or None,
                      bytes_counted="copy: 2 x buffer (read + write); triad: 3 x buffer")
    return {"figures": figures, "units": units, "conditions": conditions}


def bandwidth_at(torch, device: Device, size: int, suite: dict, channel: Channel):
    numel = size // 4
    a = torch.empty(numel, device=device.id, dtype=torch.float32)
    b = torch.ones(numel, device=device.id, dtype=torch.float32)
    c = torch.ones(numel, device=device.id, dtype=torch.float32)
    budget_s = suite["bandwidth_budget_s"] / 2
    figures, iterations, calls = {}, {}, {}
    kernels = (("copy", 2, lambda: a.copy_(b)),
               ("triad", 3, lambda: torch.add(b, c, alpha=2.0, out=a)))
    for index, (name, passes, fn) in enumerate(kernels):
        channel.progress("bandwidth", index / len(kernels), f"{name} {size // MiB} MiB")
        times, reps, _ = bench(fn, device.sync, budget_s, suite["max_batches"])
        rates = [passes * size / t / 1e9 for t in times]
        figures[f"{name}_gb_s"] = sig(statistics.median(rates))
        figures[f"{name}_max_gb_s"] = sig(max(rates))
        iterations[name] = len(times)
        calls[name] = reps
    channel.progress("bandwidth", 1.0, f"copy {figures['copy_gb_s']:.4g} GB/s")
    return figures, {"buffer_bytes": size, "dtype": "fp32", "iterations": iterations,
                     "calls_per_iteration": calls}


# --------------------------------------------------------------------------- main
#: Probe name -> ``fn(torch, device, suite, channel, options) -> {"figures", "units",
#: "conditions"}``; kernels add theirs (load_kernels).
RUNNERS = {"matmul": probe_matmul, "bandwidth": probe_bandwidth}


def load_kernels(folder: str = KERNEL_DIR) -> list:
    """Load every ``kernels/*.py`` by path and add its ``PROBES`` to :data:`RUNNERS`.

    A kernel module defines ``PROBES = {"name": fn}`` with the signature of
    :data:`RUNNERS`; it gets this module as its ``kit`` attribute (Device, bench, sig,
    ProbeFailed, is_oom, stop_requested, ...) before its probes run. Loading by path, under
    private module names, keeps this working from any interpreter without gpuadvisor
    installed. Returns the problems (a kernel that failed to load), for stderr.
    """
    problems = []
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        return [f"no kernels folder {folder}: {exc}"]
    this = sys.modules[__name__]
    for name in names:
        if not name.endswith(".py") or name.startswith("_"):
            continue
        path = os.path.join(folder, name)
        try:
            spec = importlib.util.spec_from_file_location(
                "_gpuadvisor_kernel_" + name[:-3], path)
            module = importlib.util.module_from_spec(spec)
            module.kit = this
            spec.loader.exec_module(module)
            module.kit = this
            RUNNERS.update(module.PROBES)
        except Exception as exc:  # one broken kernel must not take the others down
            problems.append(f"kernel {name} failed to load: {type(exc).__name__}: {exc}")
    return problems


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
