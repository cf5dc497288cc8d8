"""The Rig page's background jobs: detect a rig and read its cards again.

Blocking, Qt-free functions that the page runs on its pool
(:class:`~gpuadvisor.gui.pages.tasks.PageTasks`); a backend returned here belongs to the
caller, which closes it.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpuadvisor.hardware import (
    DetectionResult,
    GpuInfo,
    HostInfo,
    health_warnings,
    matched_gpus,
    open_backend,
    rig_hints,
)


def _matched(gpus: list[GpuInfo], catalog: Mapping) -> list[GpuInfo]:
    # A MIG slice takes its card's catalog entry (hardware.matched_gpus).
    return matched_gpus(gpus, catalog)


def detect_open(spec: str | None, catalog: Mapping, host: HostInfo | None,
                options: Mapping | None = None):
    """Open a backend for ``spec`` (None: this machine) and read it once.

    Returns:
        ``(backend or None, DetectionResult)``; the caller owns (and closes) the backend.
    """
    backend, hints = open_backend(spec, **dict(options or {}))
    try:
        gpus = _matched(backend.devices(), catalog) if backend is not None else []
    except Exception:
        if backend is not None:
            backend.close()
        raise
    if host is None:
        from gpuadvisor.hardware.host import collect_host

        host = collect_host(probe_torch=False)
    warnings = tuple(w for g in gpus for w in health_warnings(g))
    result = DetectionResult(backend=backend.name if backend is not None else "none",
                             gpus=tuple(gpus), host=host, hints=(*hints, *rig_hints(gpus)),
                             warnings=warnings, hidden=tuple(getattr(backend, "hidden", ())),
                             cuda_visible_devices=getattr(backend, "cuda_visible_devices",
                                                          None))
    return backend, result


def sample_backend(backend, catalog: Mapping) -> list[GpuInfo]:
    """Refresh ``backend`` and return its cards, matched to the catalog."""
    backend.refresh()
    return _matched(backend.devices(), catalog)


__all__ = ["detect_open", "sample_backend"]
