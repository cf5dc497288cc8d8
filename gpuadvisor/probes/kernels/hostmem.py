"""The ``hostmem`` probe: host RAM bandwidth, for CPU inference and partial offload.

A CPU decoding a model (llama.cpp without a GPU, or the layers ``-ngl`` leaves in host
RAM) reads those weights from RAM once per token with every core, so its speed is the host
memory's read bandwidth with all threads, not one core's. This probe times, on a buffer of
float32 many times the last-level cache (:data:`decode_shape.CACHE_MULTIPLE` x L3 where
sysfs says its size, or the suite's size where larger; at most :data:`HOST_SHARE` of the
available RAM):

``read``
    ``buffer.sum()``: every byte read once, a running sum in registers (torch's reduction
    runs on all intra-op threads). Bytes counted: the buffer once.
``copy``
    ``dst.copy_(src)``: read + write, counted as 2 x the buffer (the STREAM convention;
    write-allocate caches may move a third buffer's worth, not counted).

each with one thread and with every thread torch uses (``torch.get_num_threads()``),
restoring the thread count after. It measures the host whatever ``--device`` says, and
reports its result on the CPU device (``conditions.device`` is ``cpu``), so the history
keeps it with the host's other runs.

Figures (GB/s, 10⁹ bytes per second): ``read_gb_s`` and ``copy_gb_s`` (all threads,
median of timed batches), ``read_max_gb_s``, ``read_1t_gb_s`` and ``copy_1t_gb_s``
(one thread). An out-of-memory halves the buffer and retries.

Runs in the worker (``kit`` is the worker module); imports neither torch nor gpuadvisor.
"""

from __future__ import annotations

import statistics

from .decode_shape import CACHE_MULTIPLE, GiB, MiB, gb_s, host_cache_bytes

kit = None  # the worker module, set by the loader before any probe runs

#: Buffer bytes (float32), time per kernel and thread count, most timed batches, by suite.
SIZES = {
    "tiny": {"buffer_bytes": 16 * MiB, "budget_s": 0.05, "max_batches": 4, "cache_multiple": 0},
    "quick": {"buffer_bytes": 512 * MiB, "budget_s": 0.5, "max_batches": 10},
    "full": {"buffer_bytes": 2 * GiB, "budget_s": 2.0, "max_batches": 20},
}
#: The largest share of the host's available RAM the buffers (two for copy) may take.
HOST_SHARE = 0.25
#: The smallest buffer tried after out-of-memory retries.
MIN_BYTES = 1 * MiB

BYTES_COUNTED = "read: 1 x buffer; copy: 2 x buffer (read + write)"


def buffer_bytes(sizing: dict, cache: int | None, available: int | None) -> tuple:
    """``(bytes of one buffer, what decided it)``: the suite's size, raised to the cache
    multiple of the last-level cache, capped so two buffers stay within :data:`HOST_SHARE`
    of the available RAM; whole MiB, at least :data:`MIN_BYTES`."""
    size, why = int(sizing["buffer_bytes"]), "suite"
    multiple = int(sizing.get("cache_multiple", CACHE_MULTIPLE))
    if cache and multiple * cache > size:
        size, why = multiple * int(cache), f"{multiple} x cache"
    if available is not None and available * HOST_SHARE / 2 < size:
        size, why = int(available * HOST_SHARE / 2), "available RAM"
    return max(MIN_BYTES, (size // MiB) * MiB), why


def probe_hostmem(torch, device, suite: dict, channel, options: dict) -> dict:
    """Measure host RAM read and copy bandwidth; see the module docstring."""
    sizing = SIZES.get(suite.get("name"), SIZES["quick"])
    cache = host_cache_bytes()
    size, decided_by = buffer_bytes(sizing, cache, kit.host_memory()[1])
    oom_retries = 0
    while True:
        try:
            figures, measured = _measure(torch, size, sizing, channel)
            break
        except Exception as exc:
            if not kit.is_oom(exc):
                raise
            if size <= MIN_BYTES:
                raise kit.ProbeFailed("out-of-memory", f"hostmem: not even a "
                                      f"{MIN_BYTES // MiB} MiB buffer fits: {exc}") from exc
        size = max(MIN_BYTES, size // 2)
        oom_retries += 1
        channel.progress("hostmem", 0.0, f"out of memory; retrying with {size // MiB} MiB")
    cpu = next((d for d in kit.list_devices(torch) if d.get("id") == "cpu"), {})
    conditions = {"device": "cpu", "device_name": cpu.get("name") or kit.cpu_name(),
                  "buffer_bytes": size, "buffer_decided_by": decided_by,
                  "cache_bytes": cache, "exceeds_cache": bool(cache) and size >= 2 * cache,
                  "dtype": "fp32", "oom_retries": oom_retries, "bytes_counted": BYTES_COUNTED,
                  "timing": "batches of whole-buffer passes; median and best batch"}
    conditions.update(measured)
    if device.kind != "cpu":
        conditions["note"] = (f"the host's memory, measured while probing {device.id}: it "
                              "does not depend on the device")
    units = {name: "GB/s" for name in figures}
    return {"figures": figures, "units": units, "conditions": conditions}


def _measure(torch, size: int, sizing: dict, channel):
    """Time read and copy with one thread and with all: ``(figures, conditions)``."""
    numel = size // 4
    src = torch.ones(numel, dtype=torch.float32)
    dst = torch.empty(numel, dtype=torch.float32)
    dst.fill_(0.0)  # fault the pages in before timing
    threads = int(torch.get_num_threads())
    kernels = (("read", 1, lambda: src.sum()), ("copy", 2, lambda: dst.copy_(src)))
    counts = [("1t", 1), ("", threads)] if threads > 1 else [("", 1)]
    figures, iterations = {}, {}
    steps = len(kernels) * len(counts)
    step = 0
    try:
        for suffix, count in counts:
            torch.set_num_threads(count)
            for name, passes, fn in kernels:
                label = f"{name}_{suffix}" if suffix else name
                channel.progress("hostmem", step / steps,
                                 f"{name}, {count} thread(s), {size // MiB} MiB")
                times, _reps, _ = kit.bench(fn, lambda: None, sizing["budget_s"],
                                            sizing["max_batches"])
                rates = [gb_s(passes * size, t) for t in times]
                figures[f"{label}_gb_s"] = kit.sig(statistics.median(rates))
                if not suffix:
                    figures[f"{label}_max_gb_s"] = kit.sig(max(rates))
                iterations[label] = len(times)
                step += 1
    finally:
        torch.set_num_threads(threads)
    channel.progress("hostmem", 1.0, f"read {figures['read_gb_s']:.4g} GB/s "
                                     f"({threads} threads)")
    return figures, {"threads": threads, "iterations": iterations}


PROBES = {"hostmem": probe_hostmem}
