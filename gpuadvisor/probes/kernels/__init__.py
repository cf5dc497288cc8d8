"""Probe kernels: modules the worker loads by path (:func:`gpuadvisor.probes.worker.load_kernels`).

Each module defines ``PROBES = {"name": fn}`` where ``fn(torch, device, suite, channel,
options)`` returns ``{"figures": {...}, "units": {...}, "conditions": {...}}`` or raises
``kit.ProbeFailed(kind, message)``. ``kit`` (set by the loader) is the worker module itself:
its Device, bench, sig, is_oom, ProbeFailed and stop_requested are shared. Like the worker,
these modules need only the standard library and the ``torch`` they are handed: they must
never import torch or gpuadvisor themselves, since they run in the user's own interpreter.
"""
