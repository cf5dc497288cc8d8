"""Render the app icon from its SVG source: PNGs, a Windows .ico and a macOS .icns.

    .venv/bin/python packaging/make_icons.py

Reads ``resources/icons/gpuadvisor.svg`` and writes, beside it, ``gpuadvisor-<N>.png`` for
N in 16..256, ``gpuadvisor.ico`` (PNG-compressed entries, 16-256 px; Windows Vista and later)
and ``gpuadvisor.icns`` (PNG entries 16-1024 px; macOS 10.7 and later). Rendering uses Qt's
SVG renderer (PySide6-Essentials), so no other tool is needed on any system. The outputs are
checked in; run this again after editing the SVG.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ICON_DIR = Path(__file__).resolve().parents[1] / "resources" / "icons"
SOURCE = ICON_DIR / "gpuadvisor.svg"
#: PNG sizes shipped for the window icon and the Linux desktop entry (hicolor theme sizes).
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
#: macOS icon types holding PNG data, by pixel size.
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08",
              512: b"ic09", 1024: b"ic10"}


def render_png(size: int) -> bytes:
    """The SVG drawn at ``size`` x ``size`` pixels, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: cannot read {SOURCE}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows icon file holding one PNG-compressed image per size."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, png in sorted(pngs.items()):
        dim = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset)
        blobs += png
        offset += len(png)
    return header + entries + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS icon file holding one PNG per size."""
    body = b"".join(ICNS_TYPES[size] + struct.pack(">I", 8 + len(png)) + png
                    for size, png in sorted(pngs.items()))
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    pngs = {size: render_png(size) for size in sorted({*PNG_SIZES, *ICO_SIZES, *ICNS_TYPES})}
    for size in PNG_SIZES:
        (ICON_DIR / f"gpuadvisor-{size}.png").write_bytes(pngs[size])
    (ICON_DIR / "gpuadvisor.ico").write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    (ICON_DIR / "gpuadvisor.icns").write_bytes(icns_bytes({s: pngs[s] for s in ICNS_TYPES}))
    written = [*(f"gpuadvisor-{s}.png" for s in PNG_SIZES), "gpuadvisor.ico", "gpuadvisor.icns"]
    print(f"make_icons: wrote {len(written)} files to {ICON_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
