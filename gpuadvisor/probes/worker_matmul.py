"""The ``matmul`` probe: throughput of square matrix multiplies per dtype.

fp32, tf32 on CUDA >= sm80, bf16 and fp16 where supported (fp16 is skipped on a CPU without
fast fp16), fp8 e4m3 via ``torch._scaled_mm`` on NVIDIA GPUs of compute capability >= 8.9;
a few sizes from the free memory and the time budget, after warm-up; inputs rotate over
enough copies to exceed L2 where L2's size is known. Figures: ``<dtype>_median_tflops``
(median over timed iterations at the largest size measured) and ``<dtype>_max_tflops`` (best
iteration at any size); FLOPs counted as 2·n³ per multiply. The dtype helpers
(:func:`dtype_unsupported`, :func:`fp8_matmul`, ...) serve the kernels too.

Part of the probe worker (:mod:`gpuadvisor.probes.worker`, which re-exports these names
as the ``kit`` the kernels use). Like the worker it needs only the standard library and
the ``torch`` handed to it, runs on Python 3.8+, and never imports torch or gpuadvisor:
run by path, the worker imports it from its own folder.
"""

from __future__ import annotations

import math
import statistics

from .worker_devices import Device
from .worker_kit import MIN_BATCHES, Channel, ProbeFailed, bench, is_oom, one_call_s, sig

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
