"""Burn-in: sustained matrix multiplies, every result checked, throughput per time window.

Loaded by the worker by path (see :mod:`gpuadvisor.probes.kernels`); ``kit`` is the worker.

How wrong results are caught
----------------------------
The inputs ``A`` and ``B`` (n x n) hold random *integers* in ``[-v, v]`` (``v`` at most 16),
drawn once on the device. Every product of two such numbers is an integer, and every partial
sum of a row times a column is an integer of magnitude at most ``n * v**2``; ``v`` is chosen so
that this stays below 2**24, where fp32 -- the accumulator of fp32, tf32, bf16 and fp16
matmuls -- holds every integer exactly. So the exact product is computed *whatever order* the
library sums in (tiles, split-K), and the only rounding is the final one to the output dtype
(round to nearest even of an exact value: deterministic). Reduced-precision reductions
(``torch.backends.cuda.matmul.allow_bf16/fp16_reduced_precision_reduction``) and TF32 for the
fp32 label are switched off for the run (and restored), so nothing else rounds. For fp16 the
bound is also kept below fp16's largest finite value (65504).

Hence the check is exact, with no tolerance: the first product is the reference; it is itself
checked against an independent computation -- :data:`REFERENCE_ROWS` rows spread over the
matrix, recomputed on the CPU in float64 from the same inputs and rounded to the dtype -- and
every later product must equal it bit for bit (``torch.ne(out, ref)`` counts the elements that
differ; NaN and Inf always differ). Any difference is a hardware fault (or an overclock too
far), never rounding. The first :data:`MISMATCHES_KEPT` wrong products are recorded with their
iteration, the number of wrong elements, and the largest finite absolute difference.

Timing: each iteration is one matmul between two device syncs (its time is the matmul's, not
the check's), then the check, read back with one more sync. Throughput is 2·n³ FLOPs per
matmul over the summed matmul time of each window; windows last ``min(10 s, seconds / 10)``
(at least ``seconds / 360``, so a day-long run keeps 360 windows). A falling figure from the
first window to the last is throttling (heat or power).

Options (``--options '{"burnin": {...}}'``):
    seconds: how long to run (default: 1 s tiny, 60 s quick, 600 s full).
    dtype: ``bf16`` (default on a GPU that supports it), ``fp32`` (default otherwise), ``tf32``
        or ``fp16``.
    n: matrix size (default: :data:`SIZES` by device and suite; halved to fit the memory).
    window_s: the throughput window.
    error_limit: stop after this many wrong products (default :data:`ERROR_LIMIT`).
    inject_fault_at / inject_fault_kind: tests only -- corrupt the product of that iteration
        (element [0, 0] becomes ``3·ref + 7``, never equal to an integer ``ref``; or NaN with
        kind ``nan``) to prove the check catches it.

Figures: ``iterations``, ``mismatches`` (wrong products, the reference included),
``duration_s``, ``tflops_median`` (over windows), ``tflops_first_window``,
``tflops_last_window``, ``slowdown_pct`` (last window vs first; positive = slower). Conditions
include ``windows`` (``[[t_s, tflops], ...]``), ``stopped_by``, ``verdict``,
``first_mismatches`` and, on CUDA/ROCm where ``torch.cuda.temperature`` works, the worker's own
reading per window in ``windows_temperature_c`` (a backup: the app's telemetry is the primary
source).

The run ends at ``seconds`` (``stopped_by: "time"``), at a stop request from the app
(``kit.stop_requested()``, e.g. the temperature limit: ``"stop-request"``) or at the error
limit (``"error-limit"``); it always does at least one checked iteration and always reports.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time

kit = None  # the worker module, set by the loader

#: Matrix size n per (device kind, suite): large enough to keep a GPU at full power.
SIZES = {
    ("cpu", "tiny"): 128, ("cpu", "quick"): 1024, ("cpu", "full"): 2048,
    ("gpu", "tiny"): 1024, ("gpu", "quick"): 8192, ("gpu", "full"): 16384,
}
#: Seconds of burn-in when the options do not say.
DEFAULT_SECONDS = {"tiny": 1.0, "quick": 60.0, "full": 600.0}
#: dtype label -> (torch dtype name, fp32 matmul precision).
DTYPES = {
    "fp32": ("float32", "highest"),
    "tf32": ("float32", "high"),
    "bf16": ("bfloat16", "highest"),
    "fp16": ("float16", "highest"),
}
#: Input values are integers in [-v, v] with v at most this (bf16 holds integers to 256).
MAX_VALUE = 16
#: fp32 (the accumulator) holds every integer up to this exactly.
EXACT_INTEGER_LIMIT = 2 ** 24
#: The largest finite fp16 value: fp16 outputs must not overflow.
FP16_MAX = 65504
#: Rows of the first product checked against float64 on the CPU.
REFERENCE_ROWS = 32
#: Bytes of float64 the CPU reference handles at a time.
REFERENCE_CHUNK_BYTES = 64 << 20
#: Stop after this many wrong products (a faulty GPU does not get better by running on).
ERROR_LIMIT = 10
#: Wrong products described in the conditions.
MISMATCHES_KEPT = 5
#: Seconds between progress messages.
PROGRESS_EVERY_S = 1.0
#: Windows kept at most (longer runs get longer windows).
MAX_WINDOWS = 360
#: The longest throughput window for runs of a few minutes.
WINDOW_S = 10.0
SMALLEST_N = 64

_OPTIONS = ("seconds", "dtype", "n", "window_s", "error_limit", "inject_fault_at",
            "inject_fault_kind")


def probe_burnin(torch, device, suite, channel, options):
    opts = read_options(options, suite["name"], device.kind)
    label, dtype = pick_dtype(torch, device, opts["dtype"])
    saved = exact_matmul(torch, DTYPES[label][1])
    try:
        problem = build_problem(torch, device, dtype, label, opts["n"], channel)
        measured = run_loop(torch, device, channel, problem, opts)
    finally:
        restore_matmul(torch, saved)
    return report(device, torch, label, problem, measured, opts)


# --------------------------------------------------------------------------- options
def read_options(options, suite_name, device_kind):
    """The options with defaults; ``ProbeFailed("exception")`` names a bad one."""
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise kit.ProbeFailed("exception", "burnin: unknown option(s) " + ", ".join(unknown)
                              + "; known: " + ", ".join(_OPTIONS))
    seconds = options.get("seconds", DEFAULT_SECONDS.get(suite_name, 60.0))
    if not _number(seconds) or not 0 < seconds < math.inf:
        raise kit.ProbeFailed("exception", f"burnin: seconds must be a positive number, got "
                                           f"{seconds!r}")
    dtype = options.get("dtype")
    if dtype is not None and dtype not in DTYPES:
        raise kit.ProbeFailed("exception", f"burnin: dtype must be one of "
                                           f"{', '.join(DTYPES)}, got {dtype!r}")
    n = options.get("n", SIZES.get((device_kind, suite_name), 1024))
    if not _whole(n) or n < 16:
        raise kit.ProbeFailed("exception", f"burnin: n must be a whole number >= 16, got {n!r}")
    default_window = max(min(WINDOW_S, seconds / 10.0), seconds / MAX_WINDOWS)
    window_s = options.get("window_s", default_window)
    if not _number(window_s) or not 0 < window_s < math.inf:
        raise kit.ProbeFailed("exception", f"burnin: window_s must be a positive number, got "
                                           f"{window_s!r}")
    error_limit = options.get("error_limit", ERROR_LIMIT)
    if not _whole(error_limit) or error_limit < 1:
        raise kit.ProbeFailed("exception", f"burnin: error_limit must be a whole number >= 1, "
                                           f"got {error_limit!r}")
    fault_at = options.get("inject_fault_at")
    if fault_at is not None and (not _whole(fault_at) or fault_at < 1):
        raise kit.ProbeFailed("exception", f"burnin: inject_fault_at must be an iteration >= 1, "
                                           f"got {fault_at!r}")
    fault_kind = options.get("inject_fault_kind", "value")
    if fault_kind not in ("value", "nan"):
        raise kit.ProbeFailed("exception", f"burnin: inject_fault_kind must be value or nan, "
                                           f"got {fault_kind!r}")
    return {"seconds": float(seconds), "dtype": dtype, "n": int(n), "window_s": float(window_s),
            "error_limit": int(error_limit), "inject_fault_at": fault_at,
            "inject_fault_kind": fault_kind}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(value):
    return _number(value) and float(value).is_integer()


def pick_dtype(torch, device, requested):
    """``(label, torch dtype)``: the requested one, else bf16 on a GPU that has it, else fp32."""
    if requested is None:
        requested = "fp32"
        if device.kind == "gpu" and kit.dtype_unsupported(torch, device, torch.bfloat16) is None:
            requested = "bf16"
    dtype = getattr(torch, DTYPES[requested][0])
    if requested != "fp32":
        reason = kit.dtype_unsupported(torch, device, dtype)
        if reason is not None:
            raise kit.ProbeFailed("unsupported", f"burnin: {requested} on {device.id}: {reason}")
    return requested, dtype


def exact_matmul(torch, precision):
    """Switch off every reduced-precision shortcut (see the module docstring); returns what
    :func:`restore_matmul` puts back."""
    saved = {"precision": torch.get_float32_matmul_precision()}
    torch.set_float32_matmul_precision(precision)
    flags = getattr(getattr(torch.backends, "cuda", None), "matmul", None)
    for name in ("allow_bf16_reduced_precision_reduction",
                 "allow_fp16_reduced_precision_reduction"):
        try:
            saved[name] = getattr(flags, name)
            setattr(flags, name, False)
        except Exception:  # an older or newer torch without the flag: nothing to switch
            saved.pop(name, None)
    return saved


def restore_matmul(torch, saved):
    torch.set_float32_matmul_precision(saved["precision"])
    flags = getattr(getattr(torch.backends, "cuda", None), "matmul", None)
    for name, value in saved.items():
        if name != "precision":
            with contextlib.suppress(Exception):
                setattr(flags, name, value)


# --------------------------------------------------------------------------- the problem
def value_bound(label, n):
    """The largest input magnitude v for which every partial sum (at most n·v²) is exact in
    the fp32 accumulator, and, for fp16, finite in the output (fp16 needs n <= 65504)."""
    limit = FP16_MAX if label == "fp16" else EXACT_INTEGER_LIMIT - 1
    return max(1, min(MAX_VALUE, math.isqrt(limit // n)))


def build_problem(torch, device, dtype, label, n, channel):
    """Inputs, output and the checked reference, at n or (after out-of-memory) smaller."""
    element = torch.tensor([], dtype=dtype).element_size()
    budget = device.budget_bytes()
    notes = []
    oom_retries = 0
    while label == "fp16" and n > FP16_MAX:  # even inputs of +-1 could overflow fp16
        n //= 2
        notes.append(f"n halved to {n}: fp16 sums of more terms could overflow")
    if budget is not None:
        # A, B, out, ref in the dtype; the check's bool mask; the fp32 draw of one input.
        while n > SMALLEST_N and n * n * (4 * element + 1 + 4) > budget:
            n //= 2
            notes.append(f"n halved to {n} to fit the memory allowed")
    while True:
        try:
            return make_problem(torch, device, dtype, label, n, notes, oom_retries, channel)
        except Exception as exc:
            if not kit.is_oom(exc) or n <= SMALLEST_N:
                raise
        device.empty_cache()
        n //= 2
        oom_retries += 1
        notes.append(f"out of memory; retried at n={n}")


def make_problem(torch, device, dtype, label, n, notes, oom_retries, channel):
    v = value_bound(label, n)
    channel.progress("burnin", 0.0, f"{label} {n}x{n}: drawing integer inputs and the reference")

    def draw():
        return torch.randint(-v, v + 1, (n, n), device=device.id, dtype=torch.float32).to(dtype)

    a, b = draw(), draw()
    out = torch.empty(n, n, device=device.id, dtype=dtype)
    torch.matmul(a, b, out=out)
    device.sync()
    ref = out.clone()
    check = check_reference(torch, a, b, ref, n)
    return {"a": a, "b": b, "out": out, "ref": ref, "n": n, "max_value": v, "notes": notes,
            "oom_retries": oom_retries, "reference": check}


def check_reference(torch, a, b, ref, n):
    """Compare :data:`REFERENCE_ROWS` rows of the first product with float64 on the CPU."""
    count = min(REFERENCE_ROWS, n)
    rows = sorted({round(i * (n - 1) / max(count - 1, 1)) for i in range(count)})
    index = torch.tensor(rows, device=ref.device)
    a_rows = a.index_select(0, index).cpu().double()
    expected = torch.empty(len(rows), n, dtype=torch.float64)
    step = max(1, REFERENCE_CHUNK_BYTES // (8 * n))
    for start in range(0, n, step):
        chunk = b[:, start:start + step].cpu().double()
        expected[:, start:start + step] = a_rows @ chunk
    expected = expected.to(ref.dtype)
    got = ref.index_select(0, index).cpu()
    finite = bool(torch.isfinite(got).all())
    if finite and torch.equal(got, expected):
        return {"ok": True, "rows": len(rows), "max_abs_diff": 0.0, "non_finite": 0}
    diff = (got.double() - expected.double()).abs()
    finite_diff = diff[torch.isfinite(diff)]
    return {"ok": False, "rows": len(rows),
            "max_abs_diff": float(finite_diff.max()) if finite_diff.numel() else None,
            "non_finite": int((~torch.isfinite(got)).sum()),
            "wrong_elements": int(torch.count_nonzero(torch.ne(got, expected)))}


# --------------------------------------------------------------------------- the loop
def worker_temperature(torch, device):
    """A function reading the GPU's temperature through torch (CUDA/ROCm only, where
    ``torch.cuda.temperature`` works), or ``None``: a backup to the app's telemetry."""
    if device.type not in ("cuda", "rocm"):
        return None
    read = getattr(torch.cuda, "temperature", None)
    if read is None:
        return None
    try:
        read(device.id)
    except Exception:  # no pynvml / amdsmi in this interpreter
        return None
    return lambda: float(read(device.id))


def run_loop(torch, device, channel, problem, opts):
    a, b, out, ref = problem["a"], problem["b"], problem["out"], problem["ref"]
    n = problem["n"]
    flops = 2.0 * n ** 3
    seconds, window_s = opts["seconds"], opts["window_s"]
    fault_at, fault_kind = opts["inject_fault_at"], opts["inject_fault_kind"]
    temperature = worker_temperature(torch, device)
    mismatches, first_mismatches = 0, []
    if not problem["reference"]["ok"]:
        mismatches = 1
        first_mismatches.append(dict(problem["reference"], iteration=0))
    windows, temperatures = [], []
    window = {"start": 0.0, "iterations": 0, "matmul_s": 0.0}
    iterations = 0
    stopped_by = "time"
    start = time.perf_counter()
    last_progress = start
    while True:
        t0 = time.perf_counter()
        torch.matmul(a, b, out=out)
        device.sync()
        matmul_s = time.perf_counter() - t0
        iterations += 1
        if iterations == fault_at:
            inject_fault(out, ref, fault_kind)
        wrong = int(torch.count_nonzero(torch.ne(out, ref)))
        if wrong:
            mismatches += 1
            if len(first_mismatches) < MISMATCHES_KEPT:
                first_mismatches.append(describe_mismatch(torch, out, ref, iterations, wrong))
        now = time.perf_counter()
        elapsed = now - start
        window["iterations"] += 1
        window["matmul_s"] += matmul_s
        if elapsed - window["start"] >= window_s:
            windows.append(close_window(window, elapsed, flops))
            if temperature is not None:
                temperatures.append(read_temperature(temperature))
            window = {"start": elapsed, "iterations": 0, "matmul_s": 0.0}
        if now - last_progress >= PROGRESS_EVERY_S:
            last_progress = now
            rate = f", {windows[-1][1]:.4g} TFLOPS" if windows else ""
            channel.progress("burnin", elapsed / seconds,
                             f"{elapsed:.0f}/{seconds:.0f} s, {iterations} iterations, "
                             f"{mismatches} wrong{rate}")
        if mismatches >= opts["error_limit"]:
            stopped_by = "error-limit"
            break
        if kit.stop_requested():
            stopped_by = "stop-request"
            break
        if elapsed >= seconds:
            break
    duration_s = time.perf_counter() - start
    if window["iterations"]:
        short = duration_s - window["start"] < window_s / 2
        if windows and short:  # a sliver of a window: fold it into the last one
            last = windows.pop()
            window = {"iterations": window["iterations"] + last[2],
                      "matmul_s": window["matmul_s"] + last[3]}
            if temperatures:
                temperatures.pop()
        windows.append(close_window(window, duration_s, flops))
        if temperature is not None:
            temperatures.append(read_temperature(temperature))
    return {"iterations": iterations, "mismatches": mismatches,
            "first_mismatches": first_mismatches, "duration_s": duration_s,
            "windows": windows, "temperatures": temperatures, "stopped_by": stopped_by,
            "worker_temperature": temperature is not None}


def close_window(window, t_s, flops):
    """``[t_s, tflops, iterations, matmul_s]`` (the last two are dropped from the report)."""
    tflops = flops * window["iterations"] / max(window["matmul_s"], 1e-12) / 1e12
    return [round(t_s, 3), kit.sig(tflops), window["iterations"], window["matmul_s"]]


def read_temperature(read):
    try:
        return read()
    except Exception:
        return None


def inject_fault(out, ref, kind):
    """Tests only: make one element of this product wrong (see the module docstring)."""
    if kind == "nan":
        out[0, 0] = float("nan")
    else:
        out[0, 0] = ref[0, 0] * 3 + 7


def describe_mismatch(torch, out, ref, iteration, wrong):
    entry = {"iteration": iteration, "wrong_elements": wrong, "max_abs_diff": None,
             "non_finite": None}
    try:
        finite = torch.isfinite(out)
        entry["non_finite"] = int(out.numel() - int(torch.count_nonzero(finite)))
        diff = (out.float() - ref.float()).abs()
        diff = diff[finite]
        if diff.numel():
            entry["max_abs_diff"] = float(diff.max())
    except Exception as exc:  # out of memory for the details: the count is what matters
        entry["detail_error"] = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
    return entry


# --------------------------------------------------------------------------- the report
def verdict(measured):
    iterations, mismatches = measured["iterations"], measured["mismatches"]
    if not mismatches:
        return f"stable: {iterations} iterations, no wrong result"
    first = measured["first_mismatches"][0]
    where = ("the first product already differed from the exact result"
             if first["iteration"] == 0 else f"first at iteration {first['iteration']}")
    non_finite = any(m.get("non_finite") for m in measured["first_mismatches"])
    kind = " (NaN/Inf among them)" if non_finite else ""
    return (f"UNSTABLE: {mismatches} wrong result(s){kind} in {iterations} iterations, "
            f"{where}: this device computes wrong results under load (overclock, power, "
            f"heat or a faulty card); do not trust it for training")


def report(device, torch, label, problem, measured, opts):
    windows = measured["windows"]
    rates = [w[1] for w in windows]
    first, last = rates[0], rates[-1]
    slowdown = (first - last) / first * 100.0 if first > 0 else 0.0
    figures = {
        "iterations": measured["iterations"],
        "mismatches": measured["mismatches"],
        "duration_s": round(measured["duration_s"], 3),
        "tflops_median": kit.sig(statistics.median(rates)),
        "tflops_first_window": first,
        "tflops_last_window": last,
        "slowdown_pct": round(slowdown, 2),
    }
    units = {"iterations": "iterations", "mismatches": "wrong results", "duration_s": "s",
             "tflops_median": "TFLOPS", "tflops_first_window": "TFLOPS",
             "tflops_last_window": "TFLOPS", "slowdown_pct": "%"}
    reference = problem["reference"]
    conditions = {
        "device": device.id, "device_name": device.name,
        "dtype": label, "n": problem["n"],
        "input_values": f"random integers in [-{problem['max_value']}, {problem['max_value']}]",
        "check": "every product equals the first exactly (integer inputs: no rounding "
                 "until the output); the first checked against float64 on "
                 f"{reference['rows']} rows",
        "reference_check": "exact" if reference["ok"] else "differs from float64",
        "windows": [[w[0], w[1]] for w in windows],
        "window_s": round(opts["window_s"], 3),
        "requested_s": opts["seconds"],
        "stopped_by": measured["stopped_by"],
        "verdict": verdict(measured),
        "first_mismatches": measured["first_mismatches"],
        "error_limit": opts["error_limit"],
        "flops_per_iteration": "2*n^3",
        "timing": "each matmul between device syncs; window TFLOPS = matmul FLOPs / matmul time",
        "tflops_median_of": "windows",
        "oom_retries": problem["oom_retries"],
        "notes": problem["notes"],
    }
    if measured["worker_temperature"]:
        conditions["windows_temperature_c"] = measured["temperatures"]
    if opts["inject_fault_at"] is not None:
        conditions["injected_fault"] = {"iteration": opts["inject_fault_at"],
                                        "kind": opts["inject_fault_kind"]}
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


PROBES = {"burnin": probe_burnin}
