"""The ``transfer`` probe: host <-> device copy throughput, pinned and pageable.

Copies one host buffer to the device (``h2d``) and back (``d2h``), first from page-locked
("pinned") host memory, which the GPU's copy engines read directly, then from ordinary
pageable memory, which the driver stages through a pinned bounce buffer. Pinned copies show
what the host link (PCIe) carries; pageable ones what a data loader without
``pin_memory=True`` gets.

Buffers: 16 MiB (tiny), 256 MiB (quick), 1 GiB (full), but never more than the device's
budget (:meth:`Device.budget_bytes`) nor :data:`HOST_SHARE` of the host's available RAM.
Each direction gets a warm-up and several timed copies (``kit.bench``); figures are the
median and the best copy, in GB/s (10⁹ bytes per second), one buffer's bytes per copy:
``h2d_pinned_gb_s``, ``d2h_pinned_gb_s``, ``h2d_pageable_gb_s``, ``d2h_pageable_gb_s`` and
each with ``_max`` before ``_gb_s``.

``conditions.skipped`` maps what was not measured to why, as the matmul probe's does:
where pinning fails (no CUDA-like backend, or the OS refuses to lock that much memory) only
pageable copies are measured and ``skipped["pinned"]`` says why; on the CPU there is no
host-device link, so the result has no figures and ``skipped["transfer"]`` says so.
On Apple GPUs (MPS) memory is unified: the copies are measured but move data within one
RAM, not over PCIe (``conditions.unified_memory``). An out-of-memory halves the buffer and
retries, down to 1 MiB.

Runs in the worker (``kit`` is the worker module); imports neither torch nor gpuadvisor.
"""

from __future__ import annotations

import contextlib
import statistics

kit = None  # the worker module, set by kit.load_kernels before any probe runs

MiB = 1 << 20
GiB = 1 << 30

#: Buffer bytes, timing budget (seconds for the whole probe) and most timed batches per
#: copy, by suite name.
SIZES = {
    "tiny": {"buffer_bytes": 16 * MiB, "budget_s": 0.6, "max_batches": 5},
    "quick": {"buffer_bytes": 256 * MiB, "budget_s": 3.0, "max_batches": 10},
    "full": {"buffer_bytes": 1 * GiB, "budget_s": 10.0, "max_batches": 20},
}
#: The largest share of the host's available RAM the host buffer may take.
HOST_SHARE = 0.25
#: The smallest buffer tried after out-of-memory retries.
MIN_BYTES = 1 * MiB

CPU_SKIP = ("no host-device link on the CPU device: host and device memory are the same "
            "RAM; run the transfer probe on a GPU")
UNIFIED_NOTE = ("Apple GPUs share one memory with the CPU (unified memory): these copies "
                "move data within the same RAM, not over PCIe")

DIRECTIONS = ("h2d", "d2h")


def probe_transfer(torch, device, suite: dict, channel, options: dict) -> dict:
    """Measure host<->device copies; see the module docstring."""
    conditions = {"device": device.id, "device_name": device.name}
    if device.kind == "cpu":
        conditions["skipped"] = {"transfer": CPU_SKIP}
        return {"figures": {}, "units": {}, "conditions": conditions}
    sizing = SIZES.get(suite.get("name"), SIZES["quick"])
    size, limited_by = buffer_size(device, sizing["buffer_bytes"])
    oom_retries = 0
    while True:
        try:
            figures, measured = transfer_at(torch, device, size, sizing, channel)
            break
        except Exception as exc:
            if not kit.is_oom(exc):
                raise
            if size <= MIN_BYTES:
                raise kit.ProbeFailed("out-of-memory",
                                      f"not even a {MIN_BYTES // MiB} MiB buffer fits: "
                                      f"{exc}") from exc
        # Out of memory: retry smaller, now that the exception (and its tensors) is gone.
        device.empty_cache()
        size = max(MIN_BYTES, size // 2)
        oom_retries += 1
        channel.progress("transfer", 0.0, f"out of memory; retrying with {size // MiB} MiB")
    conditions.update(measured)
    conditions.update(buffer_bytes=size, buffer_limited_by=limited_by, oom_retries=oom_retries,
                      bytes_counted="one buffer per copy, one direction",
                      timing="copies between device syncs; median and best copy")
    if device.type == "mps":
        conditions["unified_memory"] = UNIFIED_NOTE
    units = {name: "GB/s" for name in figures}
    return {"figures": figures, "units": units, "conditions": conditions}


def buffer_size(device, wanted: int):
    """``(bytes, what limited it)``: ``wanted``, capped by the device's budget and by
    :data:`HOST_SHARE` of the host's available RAM, in whole MiB (at least 1 MiB)."""
    size, limited_by = wanted, "suite"
    budget = device.budget_bytes()
    if budget is not None and budget < size:
        size, limited_by = budget, "device memory"
    available = kit.host_memory()[1]
    if available is not None and int(available * HOST_SHARE) < size:
        size, limited_by = int(available * HOST_SHARE), "host memory"
    return max(MIN_BYTES, (size // MiB) * MiB), limited_by


def transfer_at(torch, device, size: int, sizing: dict, channel):
    """Time h2d and d2h copies of ``size`` bytes from pinned, then pageable, host memory.

    Returns ``(figures, conditions)``. A pinning failure that is not an out-of-memory is
    recorded (``skipped["pinned"]``) and only pageable copies are measured.
    """
    on_device = torch.empty(size, dtype=torch.uint8, device=device.id)
    on_device.fill_(1)
    figures, iterations, calls = {}, {}, {}
    skipped = {}
    budget_s = sizing["budget_s"] / (2 * len(DIRECTIONS))
    step = 0
    for memory in ("pinned", "pageable"):
        host = host_buffer(torch, size, pinned=memory == "pinned")
        if isinstance(host, str):  # pinning refused: say why, measure pageable only
            skipped["pinned"] = host
            step += len(DIRECTIONS)
            continue
        copies = copy_functions(on_device, host, asynchronous=memory == "pinned")
        for direction in DIRECTIONS:
            name = f"{direction}_{memory}"
            channel.progress("transfer", step / (2 * len(DIRECTIONS)),
                             f"{direction} {memory} {size // MiB} MiB")
            times, reps, _ = kit.bench(copies[direction], device.sync, budget_s,
                                       sizing["max_batches"])
            rates = [size / t / 1e9 for t in times]
            figures[f"{name}_gb_s"] = kit.sig(statistics.median(rates))
            figures[f"{name}_max_gb_s"] = kit.sig(max(rates))
            iterations[name] = len(times)
            calls[name] = reps
            step += 1
        del host, copies
        if memory == "pinned":
            release_pinned_cache(torch)
    first = next(iter(figures), None)
    channel.progress("transfer", 1.0, f"{first}: {figures[first]:.4g} GB/s" if first
                     else "nothing measured")
    return figures, {"pinned": "pinned" not in skipped, "skipped": skipped,
                     "iterations": iterations, "calls_per_iteration": calls}


def copy_functions(on_device, host, asynchronous: bool) -> dict:
    """``{"h2d": fn, "d2h": fn}``: one whole-buffer copy each. Pinned copies are issued
    asynchronously (the caller syncs the device after them), as a pinned data loader does."""
    return {"h2d": lambda: on_device.copy_(host, non_blocking=asynchronous),
            "d2h": lambda: host.copy_(on_device, non_blocking=asynchronous)}


def release_pinned_cache(torch) -> None:
    """Give cached pinned host blocks back to the OS, so later probes have that RAM."""
    empty = getattr(getattr(torch, "_C", None), "_host_emptyCache", None)
    if empty is not None:
        with contextlib.suppress(Exception):  # a private API: never let it fail the probe
            empty()


def host_buffer(torch, size: int, pinned: bool):
    """A host buffer of ``size`` bytes, touched so its pages exist before timing.

    Returns the tensor, or (pinned only) a string saying why pinning failed. An
    out-of-memory propagates, so the caller retries smaller.
    """
    if not pinned:
        host = torch.empty(size, dtype=torch.uint8)
        host.fill_(1)  # fault the pages in now, not during the first timed copy
        return host
    try:
        host = torch.empty(size, dtype=torch.uint8, pin_memory=True)
    except Exception as exc:
        if kit.is_oom(exc):
            raise
        first_line = (str(exc).splitlines() or [""])[0][:200]
        return (f"pinning {size // MiB} MiB of host memory failed: {type(exc).__name__}: "
                f"{first_line}")
    host.fill_(1)
    return host


PROBES = {"transfer": probe_transfer}
