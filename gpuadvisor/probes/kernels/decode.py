"""The ``decode`` probe: the memory bandwidth a decode step reaches, per weight format.

Generating one token reads every weight once and does two FLOPs per weight: a
matrix-vector product (GEMV), bound by memory bandwidth, not compute. This probe times
exactly that: one *pass* multiplies a single activation vector by a row of weight matrices
shaped like a decoder layer's MLP (``ffn x hidden`` and ``hidden x ffn``, alternating)
that together hold many times the last-level cache (:data:`decode_shape.CACHE_MULTIPLE` x
L2 on a GPU, x L3 on the CPU, or the suite's size where larger), so no pass finds the
previous one's weights cached. Achieved bandwidth = the matrices' stored bytes / the pass's
time (:func:`decode_shape.gb_s`); the input and output vectors (well under 0.1% of the
bytes) are not counted.

Formats (:mod:`decode_formats` for the kernels, :mod:`decode_shape` for the bytes):
``fp16`` and ``bf16`` (plain GEMV), ``int8`` (weight-only, per-row scales) and ``q4``
(4-bit groups of 32 with a scale and zero each, llama.cpp ``Q4_1``'s 20 bytes per 32
weights). The quantized ones run through torch's fused weight-only kernels where this
torch has them for the device; elsewhere through dequantize-then-multiply, which writes and
reads a 16-bit copy of each matrix: that figure is reported as ``<fmt>_unfused_gb_s`` (the
stored bytes over the time, a lower bound of what a fused kernel reaches), never as the
card's bandwidth. bf16 is skipped where the device lacks it.

Figures (GB/s, 10⁹ bytes per second): ``<fmt>_gb_s`` (median over timed batches) and
``<fmt>_max_gb_s`` (best batch), or ``<fmt>_unfused_gb_s`` / ``<fmt>_unfused_max_gb_s``.
Conditions: per format the kernel, whether it is fused, the matrix shapes and count, the
bytes per pass and per weight, iterations; the activation dtype; the cache size and the
pass target; ``skipped`` (format -> why). An out-of-memory halves the pass and retries.

Runs in the worker (``kit`` is the worker module); imports neither torch nor gpuadvisor.
"""

from __future__ import annotations

import statistics

from .decode_formats import activation_dtype, make_weight
from .decode_shape import (
    DECODE_SIZES,
    FORMATS,
    MiB,
    gb_s,
    host_cache_bytes,
    pass_bytes,
    pass_target_bytes,
    plan_matrices,
)

kit = None  # the worker module, set by the loader before any probe runs

BYTES_COUNTED = ("the weight matrices' stored bytes per pass (values, and the int8 row "
                 "scales or the q4 group scales and zeros); input and output vectors not "
                 "counted")
#: Formats measured when the probe's options do not name them.
DEFAULT_FORMATS = FORMATS


def probe_decode(torch, device, suite: dict, channel, options: dict) -> dict:
    """Measure GEMV bandwidth per format; see the module docstring.

    Options (all optional): ``formats`` (a list of :data:`decode_shape.FORMATS`),
    ``hidden``, ``ffn`` (the matrix shapes), ``target_bytes`` (bytes per pass, as given:
    not grown to a multiple of the cache), ``fused``
    (``false``: dequantize-then-multiply even where a fused kernel exists, to compare).
    """
    sizes = dict(DECODE_SIZES[(device.kind, suite.get("name", "quick"))])
    formats = _formats(options)
    for name in ("hidden", "ffn", "target_bytes"):
        if name in options:
            value = options[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 32:
                raise kit.ProbeFailed("bad-option", f"decode: {name} must be a whole number "
                                                    f"of at least 32, got {value!r}")
            sizes[name] = value
    if "target_bytes" in options:  # asked for: not grown with the cache
        sizes["cache_multiple"] = 0
    fused = options.get("fused", True)
    if not isinstance(fused, bool):
        raise kit.ProbeFailed("bad-option", f"decode: fused must be true or false, got "
                                            f"{fused!r}")
    cache = device.l2_bytes() if device.kind == "gpu" else host_cache_bytes()
    limit = device.budget_bytes()
    target, decided_by = pass_target_bytes(sizes, cache or None, limit)
    act_dtype = activation_dtype(torch, device)
    figures, units, measured, skipped = {}, {}, {}, {}
    oom_retries = 0
    for index, fmt in enumerate(formats):
        if fmt == "bf16" and kit.dtype_unsupported(torch, device, torch.bfloat16):
            skipped[fmt] = kit.dtype_unsupported(torch, device, torch.bfloat16)
            continue
        size = target
        while True:
            try:
                info, rates = _time_format(torch, device, fmt, size, sizes, act_dtype,
                                           channel, index / len(formats), fused)
                break
            except Exception as exc:
                if not kit.is_oom(exc):
                    raise
                if size <= MiB:
                    raise kit.ProbeFailed("out-of-memory", f"decode {fmt}: not even a 1 MiB "
                                                           f"pass fits: {exc}") from exc
            device.empty_cache()
            size = max(MiB, size // 2)
            oom_retries += 1
            channel.progress("decode", index / len(formats),
                             f"{fmt}: out of memory; retrying with {size // MiB} MiB")
        name = fmt if info["fused"] else f"{fmt}_unfused"
        figures[f"{name}_gb_s"] = kit.sig(statistics.median(rates))
        figures[f"{name}_max_gb_s"] = kit.sig(max(rates))
        measured[fmt] = info
        device.empty_cache()
    for name in figures:
        units[name] = "GB/s"
    first = next(iter(figures), None)
    channel.progress("decode", 1.0, f"{first}: {figures[first]:.4g} GB/s" if first
                     else "nothing measured")
    conditions = {
        "device": device.id, "device_name": device.name, "formats": measured,
        "skipped": skipped, "activation_dtype": str(act_dtype).replace("torch.", ""),
        "cache_bytes": cache or None, "cache": "L2" if device.kind == "gpu" else "CPU last level",
        "target_bytes": target, "target_decided_by": decided_by,
        "exceeds_cache": bool(cache) and target >= 2 * cache,
        "oom_retries": oom_retries, "bytes_counted": BYTES_COUNTED,
        "timing": "one pass = a GEMV per matrix, back to back, one activation vector; "
                  "batches of passes between device syncs; median and best batch"}
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


def _formats(options: dict) -> tuple:
    formats = options.get("formats", DEFAULT_FORMATS)
    if (not isinstance(formats, (list, tuple)) or not formats
            or any(f not in FORMATS for f in formats)):
        raise kit.ProbeFailed("bad-option", f"decode: formats must be a list of "
                                            f"{', '.join(FORMATS)}, got {formats!r}")
    return tuple(dict.fromkeys(formats))


def _time_format(torch, device, fmt, target, sizes, act_dtype, channel, fraction,
                 fused=True):
    """Build one pass of ``fmt`` matrices holding ``target`` bytes and time it:
    ``(conditions of the format, GB/s per timed batch)``."""
    matrices = plan_matrices(target, sizes["hidden"], sizes["ffn"], fmt)
    channel.progress("decode", fraction, f"{fmt}: {len(matrices)} matrices, "
                                         f"{pass_bytes(matrices, fmt) / MiB:.0f} MiB")
    weights = [make_weight(torch, device, rows, cols, fmt, act_dtype, fused)
               for rows, cols in matrices]
    inputs = {cols: torch.randn(1, cols, device=device.id).to(act_dtype)
              for _, cols in matrices}
    if fmt in ("fp16", "bf16"):
        inputs = {cols: x.to(weights[0].tensors[0].dtype) for cols, x in inputs.items()}
    pairs = [(w.apply, inputs[w.cols]) for w in weights]

    def one_pass():
        for apply, x in pairs:
            apply(x)

    stored = sum(w.nbytes for w in weights)
    times, reps, _ = kit.bench(one_pass, device.sync, sizes["budget_s"], sizes["max_batches"])
    rates = [gb_s(stored, t) for t in times]
    info = {"kernel": weights[0].kernel, "fused": weights[0].fused,
            "matrices": len(weights), "shapes": [list(s) for s in dict.fromkeys(matrices)],
            "bytes_per_pass": stored,
            "bytes_per_weight": stored / sum(r * c for r, c in matrices),
            "iterations": len(times), "calls_per_iteration": reps}
    return info, rates


PROBES = {"decode": probe_decode}
