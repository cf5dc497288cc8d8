"""``CUDA_VISIBLE_DEVICES``: which of the driver's devices a CUDA program started here sees.

The rules are CUDA's (CUDA C Programming Guide, "CUDA Environment Variables"; MIG User Guide,
"CUDA Device Enumeration"), as nvitop applies them (``nvitop/api/device.py``):

* unset: every device; set but empty: none;
* a comma-separated list of integer indices, or of UUIDs: ``GPU-<uuid>`` (a unique prefix is
  enough, e.g. ``GPU-8932f937``), ``MIG-<uuid>`` for a MIG slice, or
  ``MIG-GPU-<uuid>/<GPU instance id>/<compute instance id>``;
* the list stops at the first entry that names no device (``0,2,-1,1`` shows 0 and 2), and at
  an entry of the other kind (an index after UUIDs, or a UUID after indices);
* a device named twice makes CUDA see none.

A card in MIG mode is seen through its slices: naming the card shows them all, naming a slice
shows that one (the card stays listed beside it, for its power and temperature). Integer
entries are read in NVML's order (PCI bus); CUDA itself numbers the fastest card first unless
``CUDA_DEVICE_ORDER=PCI_BUS_ID``, which :func:`apply_cuda_visible_devices` says in a note when
the cards differ. Pure: no driver binding, no environment read here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .base import GpuInfo, HiddenGpu

#: The variable's name, for messages and ``os.environ``.
VARIABLE = "CUDA_VISIBLE_DEVICES"


@dataclass(frozen=True)
class Visibility:
    """What ``CUDA_VISIBLE_DEVICES`` leaves visible.

    Attributes:
        value: The variable as read (``None`` when unset).
        visible: The devices kept, in the driver's order.
        hidden: The devices hidden, each with its reason.
        notes: One line each for the user: what is hidden, an entry CUDA stops at, order.
    """

    value: str | None
    visible: tuple[GpuInfo, ...]
    hidden: tuple[HiddenGpu, ...] = ()
    notes: tuple[str, ...] = ()


def _entry(raw: str) -> str:
    """An entry as CUDA reads it: spaces dropped; an integer entry ends at its last digit."""
    text = raw.strip()
    digits = 1 if text[:1] in ("+", "-") else 0
    if text[digits:digits + 1].isdigit():
        end = digits
        while end < len(text) and text[end].isdigit():
            end += 1
        return text[:end]
    return text


def _by_prefix(prefix: str, gpus: Sequence[GpuInfo]) -> tuple[GpuInfo | None, str]:
    """The one device whose UUID starts with ``prefix`` (case-insensitive), or why not."""
    wanted = prefix.lower()
    found = [g for g in gpus if g.uuid and g.uuid.lower().startswith(wanted)]
    if len(found) == 1:
        return found[0], ""
    return None, ("matches no device" if not found
                  else f"matches {len(found)} devices (give more of the UUID)")


def _resolve(entry: str, physical: Sequence[GpuInfo],
             slices: Sequence[GpuInfo]) -> tuple[GpuInfo | None, str, str]:
    """``(device, kind, why-not)`` for one entry; kind is ``index`` or ``uuid``."""
    if entry[:1].isdigit() or entry[:1] in ("+", "-"):
        try:
            number = int(entry)
        except ValueError:
            return None, "index", "is not a device index"
        found = next((g for g in physical if g.index == number), None)
        return found, "index", "" if found else "is not a device index"
    upper = entry.upper()
    if upper.startswith("MIG-GPU-"):
        gpu_part, _, ids = entry[4:].partition("/")
        gi, _, ci = ids.partition("/")
        parent, why = _by_prefix(gpu_part, physical)
        if parent is None:
            return None, "uuid", why
        if not (gi.isdigit() and ci.isdigit()):
            return None, "uuid", "needs /<GPU instance id>/<compute instance id>"
        for s in slices:
            if (s.mig is not None and s.mig.parent_index == parent.index
                    and (s.mig.gpu_instance_id, s.mig.compute_instance_id) == (int(gi), int(ci))):
                return s, "uuid", ""
        return None, "uuid", "names no MIG slice of that GPU"
    if upper.startswith("MIG-"):
        found, why = _by_prefix(entry, slices)
        return found, "uuid", why
    if upper.startswith("GPU-"):
        found, why = _by_prefix(entry, physical)
        return found, "uuid", why
    return None, "", "is neither an index nor a GPU-/MIG- UUID"


def _selected(value: str, physical: Sequence[GpuInfo], slices: Sequence[GpuInfo],
              notes: list[str]) -> tuple[list[GpuInfo], str | None]:
    """The devices the list names, in its order, and a reason when it hides everything."""
    if not value.strip():
        return [], f"{VARIABLE} is set but empty"
    chosen: list[GpuInfo] = []
    kind: str | None = None
    for raw in value.split(","):
        entry = _entry(raw)
        found, entry_kind, why = _resolve(entry, physical, slices) if entry else (
            None, "", "is empty")
        if found is not None and kind is not None and entry_kind != kind:
            found, why = None, "mixes indices and UUIDs"
        if found is None:
            notes.append(f"{VARIABLE}: entry {raw.strip()!r} {why}; CUDA ignores it and every "
                         "entry after it.")
            break
        if any(found is c for c in chosen):
            notes.append(f"{VARIABLE} names {raw.strip()!r} twice: CUDA then sees no device.")
            return [], f"{VARIABLE} names a device twice"
        kind = kind or entry_kind
        chosen.append(found)
    return chosen, None


def _order_note(value: str, physical: Sequence[GpuInfo], device_order: str | None) -> str | None:
    uses_indices = any(_entry(raw)[:1].isdigit() for raw in value.split(","))
    if (not uses_indices or (device_order or "").strip().upper() == "PCI_BUS_ID"
            or len({g.name for g in physical}) < 2):
        return None
    return (f"{VARIABLE} indices are read in the driver's order (PCI bus); CUDA numbers the "
            "fastest card first unless CUDA_DEVICE_ORDER=PCI_BUS_ID: set it, or name cards by "
            "UUID (GPU-...).")


def apply_cuda_visible_devices(gpus: Sequence[GpuInfo], value: str | None,
                               device_order: str | None = None) -> Visibility:
    """Split ``gpus`` (physical cards and their MIG slices) into what CUDA would see and what
    ``CUDA_VISIBLE_DEVICES=value`` hides.

    Args:
        gpus: Every device the driver lists, slices carrying ``GpuInfo.mig``.
        value: The variable's value, ``None`` when unset (everything visible).
        device_order: ``CUDA_DEVICE_ORDER`` (for the note on integer indices).

    Returns:
        The split, with notes for the user (empty when nothing is hidden or odd).
    """
    slices = [g for g in gpus if g.mig is not None]
    notes: list[str] = []
    visible: tuple[GpuInfo, ...] = tuple(gpus)
    hidden: tuple[HiddenGpu, ...] = ()
    if value is not None:
        physical = [g for g in gpus if g.mig is None]
        chosen, hide_all = _selected(value, physical, slices, notes)
        keep: set[int] = set()
        for gpu in chosen:
            keep.add(id(gpu))
            if gpu.mig is not None:  # the slice's card stays listed beside it
                keep.update(id(p) for p in physical if p.index == gpu.mig.parent_index)
            else:  # a card in MIG mode is seen through its slices
                keep.update(id(s) for s in slices
                            if s.mig is not None and s.mig.parent_index == gpu.index)
        visible = tuple(g for g in gpus if id(g) in keep)
        reason = hide_all or f"not in {VARIABLE}={value}"
        hidden = tuple(HiddenGpu.of(g, reason) for g in gpus if id(g) not in keep)
        order = _order_note(value, physical, device_order)
        if order:
            notes.append(order)
        if hidden:
            shown = "; ".join(h.label for h in hidden[:4])
            more = f" and {len(hidden) - 4} more" if len(hidden) > 4 else ""
            notes.insert(0, f"{VARIABLE}={value} hides {shown}{more} from CUDA programs "
                            "started here.")
    if sum(1 for g in visible if g.mig is not None and g.is_training_gpu) > 1:
        notes.append(_one_slice_note())
    return Visibility(value, visible, hidden, tuple(notes))


def _one_slice_note() -> str:
    return ("A CUDA program sees one MIG slice (CUDA 11 and 12 enumerate only the first): give "
            f"each job its slice with {VARIABLE}=MIG-<uuid>; slices do not train together.")


__all__ = ["VARIABLE", "Visibility", "apply_cuda_visible_devices"]
