"""Apple silicon GPUs on macOS, from ``sysctl`` and ``system_profiler SPDisplaysDataType -json``.

The GPU shares the system's unified memory with the CPU, so ``memory_total_bytes`` is the
machine's RAM (``hw.memsize``) and ``unified_memory`` is true: a training job competes with
everything else running for it. Free memory is left ``None``: macOS has no honest "free" figure
for the GPU's share.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

from .base import GpuInfo

Runner = Callable[..., subprocess.CompletedProcess]


def _run(run: Runner, args: list[str]) -> str | None:
    try:
        proc = run(args, capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    return int(text) if text.isdigit() else None


def read_apple_gpus(run: Runner = subprocess.run) -> list[GpuInfo]:
    """The Apple GPU(s) of this Mac; empty on other machines or Intel Macs without one.

    Args:
        run: ``subprocess.run`` or a stand-in that answers ``sysctl -n NAME`` and
            ``system_profiler SPDisplaysDataType -json`` (tests).
    """
    chip = (_run(run, ["sysctl", "-n", "machdep.cpu.brand_string"]) or "").strip()
    memory = _int(_run(run, ["sysctl", "-n", "hw.memsize"]))
    profile = _run(run, ["system_profiler", "SPDisplaysDataType", "-json"])
    try:
        displays = json.loads(profile).get("SPDisplaysDataType", []) if profile else []
    except (json.JSONDecodeError, AttributeError):
        displays = []
    gpus = []
    for item in displays:
        vendor = str(item.get("sppci_vendor", "")) + str(item.get("spdisplays_vendor", ""))
        model = item.get("sppci_model") or item.get("_name") or ""
        if "apple" not in vendor.lower() and not model.startswith("Apple"):
            continue
        gpus.append(GpuInfo(
            index=len(gpus),
            name=model or chip or "Apple GPU",
            vendor="apple",
            backend="apple",
            memory_total_bytes=memory,
            gpu_cores=_int(str(item.get("sppci_cores", ""))),
            unified_memory=True,
        ))
    if not gpus and chip.startswith("Apple M"):
        # system_profiler missing or silent: the chip still tells us the GPU.
        gpus.append(GpuInfo(index=0, name=chip, vendor="apple", backend="apple",
                            memory_total_bytes=memory, unified_memory=True))
    return gpus


class AppleBackend:
    """:class:`~gpuadvisor.hardware.base.GpuBackend` for Apple silicon."""

    name = "apple"

    def __init__(self, run: Runner = subprocess.run) -> None:
        self._run = run
        self._snapshot: list[GpuInfo] | None = None

    def refresh(self) -> None:
        """Re-read (identity only: macOS publishes no live GPU figures without sudo)."""
        self._snapshot = read_apple_gpus(self._run)

    def devices(self) -> list[GpuInfo]:
        """The GPU(s) as of the last refresh (the first call refreshes)."""
        if self._snapshot is None:
            self.refresh()
        return list(self._snapshot or [])

    def close(self) -> None:
        """Nothing to release."""
