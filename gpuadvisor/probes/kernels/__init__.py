"""Probe kernels: modules the worker loads by path (:func:`gpuadvisor.probes.worker.load_kernels`).

Each probe module defines ``PROBES = {"name": fn}`` where ``fn(torch, device, suite,
channel, options)`` returns ``{"figures": {...}, "units": {...}, "conditions": {...}}`` or
raises ``kit.ProbeFailed(kind, message)``. A module without ``PROBES`` is a helper of its
neighbours (``step_shape`` and ``step_model`` serve ``step``), imported by them with
relative imports: the worker imports this folder as a private package, so those work from
any interpreter. ``kit`` (set by the loader on every module here) is the worker module
itself: its Device, bench, sig, is_oom, ProbeFailed and stop_requested are shared. Like the
worker, these modules need only the standard library and the ``torch`` they are handed:
they must never import torch or gpuadvisor themselves, since they run in the user's own
interpreter.
"""
