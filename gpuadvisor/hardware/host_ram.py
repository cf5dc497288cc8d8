"""Does a plan's CPU offload fit in this machine's RAM? One verdict, with its numbers.

Offloading optimizer states (and parameters) to the CPU moves them into host RAM: the plan's
``memory.cpu_bytes`` (one node holds the offloaded shards of all its GPUs). The check compares
it with the RAM available now: what programs can take without swapping (swap does not count:
an offload that pages to disk runs orders of magnitude slower). Qt-free; the sentence is marked
for translation (context :data:`CONTEXT`) so the GUI can show it in the user's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuadvisor.core.units import format_bytes

from .base import QT_TRANSLATE_NOOP

# Needing more than this share of the available RAM fits, but only just: other programs,
# the data loader's workers and pinned buffers need the rest.
TIGHT_FRACTION = 0.85
# Translation context of the verdict templates (the QT_TRANSLATE_NOOP calls below).
CONTEXT = "HostRam"

VERDICTS: dict[str, str] = {
    "fits": QT_TRANSLATE_NOOP(
        "HostRam", "The plan needs {needed} of host RAM; {available} of {total} is available: "
        "it fits."),
    "tight": QT_TRANSLATE_NOOP(
        "HostRam", "The plan needs {needed} of host RAM; {available} of {total} is available: it "
        "fits, but only just; close other programs first."),
    "short": QT_TRANSLATE_NOOP(
        "HostRam", "The plan needs {needed} of host RAM but only {available} of {total} is "
        "available: free {short} (close programs), offload less, or spread the job over more "
        "machines."),
    "over_total": QT_TRANSLATE_NOOP(
        "HostRam", "The plan needs {needed} of host RAM, more than this machine's {total}: "
        "offload less or spread the job over more machines (each holds its own GPUs' share); "
        "swap is far too slow to count."),
    "unknown": QT_TRANSLATE_NOOP(
        "HostRam", "The plan needs {needed} of host RAM; this machine's available RAM could "
        "not be read."),
}


@dataclass(frozen=True)
class HostRamCheck:
    """A plan's host-RAM need against this machine.

    Attributes:
        needed_bytes: Host RAM the offload needs (the estimate's ``memory.cpu_bytes``).
        available_bytes / total_bytes: This machine's RAM (``None`` when unknown).
        fits: Whether the need fits in the available RAM (``None`` when unknown).
        code: ``fits``, ``tight``, ``short``, ``over_total`` or ``unknown``.
        template: The English sentence (:data:`VERDICTS`), ``{name}`` placeholders.
        params: Values for the placeholders, formatted.
    """

    needed_bytes: float
    available_bytes: int | None
    total_bytes: int | None
    fits: bool | None
    code: str
    template: str
    params: tuple = ()

    @property
    def verdict(self) -> str:
        """The sentence, in English."""
        return self.template.format(**dict(self.params))

    def to_json(self) -> dict[str, Any]:
        """``{needed_bytes, available_bytes, total_bytes, fits, code, verdict}``."""
        return {"needed_bytes": self.needed_bytes, "available_bytes": self.available_bytes,
                "total_bytes": self.total_bytes, "fits": self.fits, "code": self.code,
                "verdict": self.verdict}


def check_host_ram(needed_bytes: float, available_bytes: int | None,
                   total_bytes: int | None = None, *, units: str = "GiB") -> HostRamCheck:
    """Compare an offload's host-RAM need with the RAM this machine has available.

    Args:
        needed_bytes: Host RAM for the offloaded states, bytes.
        available_bytes: RAM programs can take now without swapping, bytes (``None``: unknown).
        total_bytes: Installed RAM, bytes (``None``: unknown).
        units: ``GiB`` or ``GB`` for the sentence.

    Returns:
        The verdict: ``fits`` when the need is at most the available RAM (``tight`` above
        :data:`TIGHT_FRACTION` of it), ``short`` when it is not available now but the machine
        has that much, ``over_total`` when it exceeds the installed RAM.
    """
    def b(n: float | None) -> str:
        return format_bytes(n, units) if n is not None else "n/a"

    if available_bytes is None and total_bytes is not None and needed_bytes > total_bytes:
        code, fits = "over_total", False
    elif available_bytes is None:
        code, fits = "unknown", None
    elif needed_bytes <= available_bytes:
        code, fits = ("tight" if needed_bytes > TIGHT_FRACTION * available_bytes
                      else "fits"), True
    elif total_bytes is not None and needed_bytes > total_bytes:
        code, fits = "over_total", False
    else:
        code, fits = "short", False
    short = needed_bytes - available_bytes if available_bytes is not None else None
    params = (("needed", b(needed_bytes)), ("available", b(available_bytes)),
              ("total", b(total_bytes)), ("short", b(short)))
    return HostRamCheck(needed_bytes, available_bytes, total_bytes, fits, code,
                        VERDICTS[code], params)


def check_this_machine(needed_bytes: float, *, units: str = "GiB",
                       psutil: Any = None) -> HostRamCheck:
    """:func:`check_host_ram` against the RAM of the machine this runs on (psutil, else the
    system's files)."""
    from .host_facts import available_ram

    total, available = available_ram(psutil)
    return check_host_ram(needed_bytes, available, total, units=units)


__all__ = ["CONTEXT", "TIGHT_FRACTION", "VERDICTS", "HostRamCheck", "check_host_ram",
           "check_this_machine"]
