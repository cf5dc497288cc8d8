#!/usr/bin/env bash
# Build the Linux artifacts from a checkout, in one command:
#
#   packaging/build.sh
#
# -> dist/gpuadvisor_<version>_<arch>.deb         installs to /opt/gpuadvisor, with launchers
#                                                 in /usr/bin, a menu entry and an icon
#    dist/gpuadvisor-<version>-linux-<arch>.tar.xz the same folder, portable: unpack, run
#                                                 gpuadvisor/gpuadvisor-gui
#
# It uses the project's virtual environment (.venv, created with the app's runtime
# dependencies when missing; PYTHON=... picks another interpreter) and installs PyInstaller
# there. Needs dpkg-deb and xz (Debian/Ubuntu: dpkg and xz-utils). Prints the artifacts'
# sizes at the end. BUILD_DIR (default build/packaging) holds intermediate files;
# DIST_DIR (default dist) the artifacts.
#
#   --deb-only      skip the .tar.xz (the smoke test installs only the .deb)
#   DEB_XZ_LEVEL=N  xz level of the .deb (default 6, as Debian's own; the smoke test uses 1:
#                   same content, a larger file, a minute less on a small machine)
set -euo pipefail
TARBALL_TOO=1
for arg in "$@"; do
    case "$arg" in
        --deb-only) TARBALL_TOO=0 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown argument $arg (try --help)" >&2; exit 2 ;;
    esac
done
DEB_XZ_LEVEL="${DEB_XZ_LEVEL:-6}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PYINSTALLER_VERSION=6.22.3
BUILD_DIR="${BUILD_DIR:-$ROOT/build/packaging}"
DIST_DIR="${DIST_DIR:-$ROOT/dist}"

for tool in dpkg-deb xz; do
    command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing (apt-get install dpkg xz-utils)" >&2; exit 2; }
done

if [[ -z "${PYTHON:-}" ]]; then
    if [[ ! -x .venv/bin/python ]]; then
        echo "build.sh: creating .venv with the app's dependencies"
        python3 -m venv .venv
        .venv/bin/pip install -q -e .
    fi
    PYTHON="$ROOT/.venv/bin/python"
fi
if ! "$PYTHON" -m PyInstaller --version 2>/dev/null | grep -qx "$PYINSTALLER_VERSION"; then
    "$PYTHON" -m pip install -q "pyinstaller==$PYINSTALLER_VERSION"
fi

VERSION="$("$PYTHON" -c 'import gpuadvisor; print(gpuadvisor.__version__)')"
ARCH="$(dpkg --print-architecture)"   # amd64, arm64
MACHINE="$(uname -m)"                 # x86_64, aarch64

# ------------------------------------------------------------------ 1. the frozen folder
rm -rf "$BUILD_DIR" && mkdir -p "$BUILD_DIR" "$DIST_DIR"
"$PYTHON" -m PyInstaller --noconfirm --log-level WARN --clean \
    --distpath "$BUILD_DIR/dist" --workpath "$BUILD_DIR/work" packaging/gpuadvisor.spec
APP="$BUILD_DIR/dist/gpuadvisor"
[[ -x "$APP/gpuadvisor" && -x "$APP/gpuadvisor-gui" ]] || { echo "build.sh: PyInstaller made no app" >&2; exit 1; }

# ------------------------------------------------------------------ 2. the .deb
DEB_ROOT="$BUILD_DIR/deb"
mkdir -p "$DEB_ROOT/opt" "$DEB_ROOT/usr/bin" "$DEB_ROOT/usr/share/applications" \
         "$DEB_ROOT/usr/share/doc/gpuadvisor" "$DEB_ROOT/DEBIAN"
cp -a "$APP" "$DEB_ROOT/opt/gpuadvisor"
# The launchers are symlinks: PyInstaller's loader finds its folder through the real path.
ln -s /opt/gpuadvisor/gpuadvisor "$DEB_ROOT/usr/bin/gpuadvisor"
ln -s /opt/gpuadvisor/gpuadvisor-gui "$DEB_ROOT/usr/bin/gpuadvisor-gui"
install -m 644 resources/gpuadvisor.desktop "$DEB_ROOT/usr/share/applications/gpuadvisor.desktop"
# The .gpuplan file type: the menu entry declares it, so a double-click opens a plan.
install -D -m 644 resources/mime/gpuadvisor.xml "$DEB_ROOT/usr/share/mime/packages/gpuadvisor.xml"
for png in resources/icons/gpuadvisor-*.png; do
    size="${png##*-}"; size="${size%.png}"
    install -D -m 644 "$png" "$DEB_ROOT/usr/share/icons/hicolor/${size}x${size}/apps/gpuadvisor.png"
done
install -D -m 644 resources/icons/gpuadvisor.svg \
    "$DEB_ROOT/usr/share/icons/hicolor/scalable/apps/gpuadvisor.svg"
{
    echo "gpuadvisor $VERSION, packaged for Debian and Ubuntu."
    echo
    echo "gpuadvisor is released under the MIT licence. The components it ships in"
    echo "/opt/gpuadvisor/_internal, and their licences, are listed in"
    echo "/opt/gpuadvisor/_internal/gpuadvisor/licenses/NOTICE.txt (Qt and PySide6: LGPL-3.0)."
} > "$DEB_ROOT/usr/share/doc/gpuadvisor/copyright"

# The oldest glibc the bundled binaries accept (they were built here, or on manylinux).
GLIBC_MIN="$(find "$APP" -type f \( -name '*.so*' -o -perm -u+x \) -print0 \
    | xargs -0 objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' \
    | sort -V | tail -1)"
# What the bundled Qt xcb platform plugin loads from the system (checked with ldd: the GL,
# EGL and xcb libraries that are not in the folder), plus the X11 helpers Qt needs at run
# time (cursor, image, shape, render-util, xkbcommon-x11), fonts and D-Bus. The folder
# carries copies of some of them; declaring them keeps the app working if those are dropped.
DEPENDS="libc6 (>= ${GLIBC_MIN:-2.31}), libgl1, libegl1, libxcb1, libxcb-icccm4, libxcb-keysyms1"
DEPENDS+=", libxcb-cursor0, libxcb-image0, libxcb-shape0, libxcb-render-util0, libxkbcommon-x11-0"
DEPENDS+=", libfontconfig1, libdbus-1-3"
INSTALLED_KB="$(du -sk --exclude=DEBIAN "$DEB_ROOT" | cut -f1)"
cat > "$DEB_ROOT/DEBIAN/control" <<CONTROL
Package: gpuadvisor
Version: $VERSION
Architecture: $ARCH
Maintainer: gpuadvisor developers <gpuadvisor@example.invalid>
Installed-Size: $INSTALLED_KB
Depends: $DEPENDS
Recommends: fonts-noto-cjk
Section: science
Priority: optional
Homepage: https://example.invalid/gpuadvisor
Description: will this model train on my GPU, how long, and what to use instead
 GPU Advisor estimates the memory per GPU and the training time of a plan (model, task,
 precision, batch, GPUs), shows what is in this machine, measures it with probes run in
 your own Python environment, and compares your rig with buying, renting or the cloud.
 .
 Self-contained: Python, Qt and the app are in /opt/gpuadvisor. torch is not included;
 probes use a Python environment of yours that has it.
CONTROL
cat > "$DEB_ROOT/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    command -v update-desktop-database >/dev/null && update-desktop-database -q /usr/share/applications || true
    command -v update-mime-database >/dev/null && update-mime-database /usr/share/mime || true
    command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true
fi
exit 0
SCRIPT
cp "$DEB_ROOT/DEBIAN/postinst" "$DEB_ROOT/DEBIAN/postrm"
sed -i 's/if \[ "\$1" = configure \]/if [ "$1" = remove ] || [ "$1" = purge ]/' "$DEB_ROOT/DEBIAN/postrm"
chmod 755 "$DEB_ROOT/DEBIAN/postinst" "$DEB_ROOT/DEBIAN/postrm"
DEB="$DIST_DIR/gpuadvisor_${VERSION}_${ARCH}.deb"
rm -f "$DEB"
dpkg-deb --root-owner-group -Zxz "-z$DEB_XZ_LEVEL" --build "$DEB_ROOT" "$DEB" >/dev/null

# ------------------------------------------------------------------ 3. the portable .tar.xz
TARBALL="$DIST_DIR/gpuadvisor-${VERSION}-linux-${MACHINE}.tar.xz"
rm -f "$TARBALL"
if [[ $TARBALL_TOO == 1 ]]; then
    tar -C "$BUILD_DIR/dist" --owner=0 --group=0 -cf - gpuadvisor | xz -T0 -6 > "$TARBALL"
fi

# ------------------------------------------------------------------ sizes
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
echo "build.sh: gpuadvisor $VERSION for $ARCH"
echo "  $(basename "$DEB")  $(mb "$(stat -c %s "$DEB")")  (installs $(mb $((INSTALLED_KB * 1024))))"
[[ -f $TARBALL ]] && echo "  $(basename "$TARBALL")  $(mb "$(stat -c %s "$TARBALL")")"
echo "  folder: $APP  $(mb $(( $(du -sk "$APP" | cut -f1) * 1024 )))"
