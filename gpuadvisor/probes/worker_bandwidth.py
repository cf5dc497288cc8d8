"""The ``bandwidth`` probe: device memory bandwidth from ``copy`` and ``triad``.

``copy`` moves read + write: 2 x buffer bytes; ``triad`` (a = b + s·c) 3 x buffer bytes; on
buffers many times L2 (modest ones on the CPU). Figures in GB/s (10⁹ bytes per second). An
out-of-memory retries at half the buffer.

Part of the probe worker (:mod:`gpuadvisor.probes.worker`, which re-exports these names
as the ``kit`` the kernels use). Like the worker it needs only the standard library and
the ``torch`` handed to it, runs on Python 3.8+, and never imports torch or gpuadvisor:
run by path, the worker imports it from its own folder.
"""

from __future__ import annotations

import statistics

from .worker_devices import Device
from .worker_kit import Channel, MiB, ProbeFailed, bench, is_oom, sig

#: Buffers are at least this many times L2 where L2's size is known.
L2_MULTIPLE = 64


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
