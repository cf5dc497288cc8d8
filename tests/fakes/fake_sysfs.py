"""Build a fake ``/sys`` tree (and a little ``/proc``) under a tmp folder, shaped like Linux's."""

from __future__ import annotations

from pathlib import Path

GIB = 1024**3


def add_card(root: Path, card: int, *, vendor: str, device: str, slot: str,
             revision: str = "0x00", vram_total: int | None = None,
             vram_used: int | None = None, link: tuple[str, str, int, int] | None = None,
             temp_mc: int | None = None, power_uw: int | None = None, busy_pct: int | None = None,
             pci_class: str = "0x030000") -> Path:
    """Add ``sys/class/drm/cardN/device`` (+ a connector entry and the PCI-bus entry).

    ``link`` is ``(current_speed, max_speed, current_width, max_width)``, speeds as the kernel
    writes them ("16.0 GT/s PCIe").
    """
    drm = root / "sys/class/drm"
    device_dir = drm / f"card{card}" / "device"
    device_dir.mkdir(parents=True)
    (drm / f"card{card}-DP-1").mkdir()  # connectors live beside cards and must be skipped
    files = {"vendor": vendor, "device": device, "revision": revision, "class": pci_class,
             "uevent": f"DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_SLOT_NAME={slot}\n"}
    if vram_total is not None:
        files["mem_info_vram_total"] = str(vram_total)
    if vram_used is not None:
        files["mem_info_vram_used"] = str(vram_used)
    if link is not None:
        speed_now, speed_max, width_now, width_max = link
        files.update(current_link_speed=speed_now, max_link_speed=speed_max,
                     current_link_width=str(width_now), max_link_width=str(width_max))
    if busy_pct is not None:
        files["gpu_busy_percent"] = str(busy_pct)
    for name, text in files.items():
        (device_dir / name).write_text(text + "\n")
    if temp_mc is not None or power_uw is not None:
        hwmon = device_dir / "hwmon/hwmon3"
        hwmon.mkdir(parents=True)
        if temp_mc is not None:
            (hwmon / "temp1_input").write_text(f"{temp_mc}\n")
        if power_uw is not None:
            (hwmon / "power1_average").write_text(f"{power_uw}\n")
    add_pci_device(root, slot, vendor=vendor, pci_class=pci_class)
    return device_dir


def add_pci_device(root: Path, slot: str, *, vendor: str, pci_class: str = "0x030000") -> None:
    """Add ``sys/bus/pci/devices/SLOT`` with vendor and class (what the NVML hint looks at)."""
    pci = root / "sys/bus/pci/devices" / slot
    pci.mkdir(parents=True, exist_ok=True)
    (pci / "vendor").write_text(vendor + "\n")
    (pci / "class").write_text(pci_class + "\n")


def rx_7900_xtx(root: Path, card: int = 1, slot: str = "0000:03:00.0", **kw) -> Path:
    """An RX 7900 XTX: 24 GiB VRAM, PCIe 4.0 x16."""
    options = {"revision": "0xc8", "vram_total": 24 * GIB, "vram_used": 512 * 1024**2,
               "link": ("16.0 GT/s PCIe", "16.0 GT/s PCIe", 16, 16), "temp_mc": 43000,
               "power_uw": 21_000_000, "busy_pct": 2}
    options.update(kw)
    return add_card(root, card, vendor="0x1002", device="0x744c", slot=slot, **options)


def amd_apu(root: Path, card: int = 0, slot: str = "0000:c4:00.0") -> Path:
    """A Ryzen APU's Radeon 780M: 512 MiB carve-out."""
    return add_card(root, card, vendor="0x1002", device="0x15bf", slot=slot,
                    vram_total=512 * 1024**2, vram_used=100 * 1024**2)


def intel_igpu(root: Path, card: int = 0) -> Path:
    """An Intel UHD iGPU at 0000:00:02.0."""
    return add_card(root, card, vendor="0x8086", device="0x4680", slot="0000:00:02.0")


def arc_a770(root: Path, card: int = 1, slot: str = "0000:03:00.0") -> Path:
    """An Intel Arc A770 (i915: no VRAM files), PCIe 4.0 x16."""
    return add_card(root, card, vendor="0x8086", device="0x56a0", slot=slot,
                    link=("16.0 GT/s PCIe", "16.0 GT/s PCIe", 16, 16))
