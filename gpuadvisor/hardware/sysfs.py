"""AMD and Intel GPUs on Linux, read from sysfs (``/sys/class/drm/card*/device``).

No extra dependency and no driver library: the amdgpu and i915/xe kernel drivers publish PCI
ids, link speed/width and (amdgpu) VRAM total/used as plain files. The kernel knows ids, not
marketing names, so names come from :data:`PCI_NAMES` (extend it as cards are confirmed; an
unknown id is shown as ``"AMD GPU [1002:xxxx]"`` and left unmatched).

Integrated GPUs are reported but marked ``integrated=True`` and never counted as training GPUs:
an Intel GPU at PCI ``00:02.0`` (where Intel puts its iGPU) or without a discrete-Arc id, and an
AMD GPU with at most :data:`APU_VRAM_MAX_BYTES` of VRAM (an APU's BIOS carve-out).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .base import GpuInfo

VENDOR_IDS = {"0x1002": "amd", "0x8086": "intel"}
NVIDIA_VENDOR_ID = "0x10de"
APU_VRAM_MAX_BYTES = 2 * 1024**3

#: (vendor, device, revision or None) -> device name as ROCm/oneAPI report it.
PCI_NAMES: dict[tuple[str, str, str | None], str] = {
    ("0x1002", "0x744c", "0xc8"): "AMD Radeon RX 7900 XTX",
    ("0x1002", "0x744c", "0xcc"): "AMD Radeon RX 7900 XT",
    ("0x1002", "0x744c", "0xce"): "AMD Radeon RX 7900 GRE",
    ("0x1002", "0x7448", None): "AMD Radeon PRO W7900",
    ("0x1002", "0x740f", None): "AMD Instinct MI210",
    ("0x1002", "0x740c", None): "AMD Instinct MI250X/MI250",
    ("0x1002", "0x74a1", None): "AMD Instinct MI300X",
    ("0x1002", "0x74a5", None): "AMD Instinct MI325X",
    ("0x8086", "0x56a0", None): "Intel(R) Arc(TM) A770 Graphics",
    ("0x8086", "0x56a1", None): "Intel(R) Arc(TM) A750 Graphics",
    ("0x8086", "0xe20b", None): "Intel(R) Arc(TM) B580 Graphics",
}
# Intel discrete GPU device-id prefixes: Alchemist (0x56xx), Battlemage (0xe2xx),
# Ponte Vecchio / Data Center GPU Max (0x0bdx).
_INTEL_DISCRETE_PREFIXES = ("0x56", "0xe2", "0x0bd")
_CARD = re.compile(r"^card(\d+)$")
_GT_S_TO_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _int(path: Path) -> int | None:
    text = _read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _pcie_gen(text: str | None) -> int | None:
    """``"16.0 GT/s PCIe"`` -> 4."""
    if not text:
        return None
    match = re.match(r"\s*([\d.]+)\s*GT/s", text)
    return _GT_S_TO_GEN.get(float(match.group(1))) if match else None


def _pci_slot(device: Path) -> str | None:
    for line in (_read(device / "uevent") or "").splitlines():
        if line.startswith("PCI_SLOT_NAME="):
            return line.partition("=")[2]
    name = os.path.basename(os.path.realpath(device))
    return name if re.match(r"^[0-9a-f]{4}:[0-9a-f]{2}:", name) else None


def _hwmon(device: Path) -> tuple[float | None, float | None]:
    """(temperature °C, power W) from the card's hwmon, when the driver publishes them."""
    hwmon = device / "hwmon"
    if not hwmon.is_dir():
        return None, None
    for entry in sorted(hwmon.iterdir()):
        temp = _int(entry / "temp1_input")  # millidegrees
        power = _int(entry / "power1_average") or _int(entry / "power1_input")  # microwatts
        return (None if temp is None else temp / 1000.0,
                None if power is None else power / 1e6)
    return None, None


def _is_integrated(vendor: str, device_id: str, slot: str | None, vram: int | None) -> bool:
    if vendor == "intel":
        on_igpu_slot = slot is not None and slot.endswith("00:02.0")
        return on_igpu_slot or not device_id.startswith(_INTEL_DISCRETE_PREFIXES)
    return vram is not None and vram <= APU_VRAM_MAX_BYTES


def card_info(device: Path, index: int) -> GpuInfo | None:
    """One ``card*/device`` folder as a :class:`GpuInfo`; ``None`` when not AMD/Intel."""
    vendor_id = (_read(device / "vendor") or "").lower()
    vendor = VENDOR_IDS.get(vendor_id)
    if vendor is None:
        return None
    device_id = (_read(device / "device") or "").lower()
    revision = (_read(device / "revision") or "").lower() or None
    name = (PCI_NAMES.get((vendor_id, device_id, revision))
            or PCI_NAMES.get((vendor_id, device_id, None))
            or _read(device / "product_name")
            or f"{vendor.upper() if vendor == 'amd' else 'Intel'} GPU "
               f"[{vendor_id[2:]}:{device_id[2:]}]")
    total = _int(device / "mem_info_vram_total")
    used = _int(device / "mem_info_vram_used")
    slot = _pci_slot(device)
    temp, power = _hwmon(device)
    busy = _int(device / "gpu_busy_percent")
    width_now = _int(device / "current_link_width")
    width_max = _int(device / "max_link_width")
    return GpuInfo(
        index=index,
        name=name,
        vendor=vendor,
        backend="sysfs",
        pci_bus_id=slot,
        memory_total_bytes=total,
        memory_used_bytes=used,
        memory_free_bytes=total - used if total is not None and used is not None else None,
        pcie_gen_current=_pcie_gen(_read(device / "current_link_speed")),
        pcie_gen_max=_pcie_gen(_read(device / "max_link_speed")),
        pcie_width_current=width_now or None,
        pcie_width_max=width_max or None,
        temperature_c=temp,
        power_draw_w=power,
        utilization_gpu_pct=None if busy is None else float(busy),
        integrated=_is_integrated(vendor, device_id, slot, total),
    )


class SysfsBackend:
    """:class:`~gpuadvisor.hardware.base.GpuBackend` over ``/sys/class/drm``.

    Args:
        root: File-system root (``/``; tests pass a fake tree).
    """

    name = "sysfs"

    def __init__(self, root: str | os.PathLike[str] = "/") -> None:
        self.root = Path(root)
        self._snapshot: list[GpuInfo] | None = None

    def _cards(self) -> list[Path]:
        drm = self.root / "sys/class/drm"
        if not drm.is_dir():
            return []
        found = []
        for entry in drm.iterdir():
            match = _CARD.match(entry.name)
            if match and (entry / "device").is_dir():
                found.append((int(match.group(1)), entry / "device"))
        return [path for _, path in sorted(found)]

    def refresh(self) -> None:
        """Re-read every card (discrete cards first in index order, then integrated)."""
        infos: list[GpuInfo] = []
        seen: set[str] = set()
        for device in self._cards():
            info = card_info(device, len(infos))
            if info is None:
                continue
            key = info.pci_bus_id or str(device)
            if key in seen:
                continue
            seen.add(key)
            infos.append(info)
        ordered = [g for g in infos if not g.integrated] + [g for g in infos if g.integrated]
        self._snapshot = [_reindex(g, i) for i, g in enumerate(ordered)]

    def devices(self) -> list[GpuInfo]:
        """The cards as of the last refresh (the first call refreshes)."""
        if self._snapshot is None:
            self.refresh()
        return list(self._snapshot or [])

    def close(self) -> None:
        """Nothing to release."""


def _reindex(gpu: GpuInfo, index: int) -> GpuInfo:
    from dataclasses import replace

    return gpu if gpu.index == index else replace(gpu, index=index)
