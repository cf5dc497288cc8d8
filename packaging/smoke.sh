#!/usr/bin/env bash
# Smoke test of the Linux installer, run by .ci/run (as root, on Debian or Ubuntu):
#
#   1. build the app afresh (PyInstaller) and its .deb             packaging/build.sh
#   2. frozen self-test offscreen (no display at all)
#   3. frozen self-test under Xvfb with Qt's real X11 (xcb) platform plugin
#   4. install the .deb with apt (which pulls in its declared dependencies)
#   5. self-test of the installed app: /usr/bin/gpuadvisor --self-test
#   6. remove it with apt, and check nothing is left in /opt or /usr/bin
#
# Installs what it needs from Debian (Xvfb, the X11/xcb libraries, dpkg-dev tools) first.
# With SMOKE_VENV=DIR it builds from its own environment in DIR (the app's dependencies and
# PyInstaller, nothing of the test extras), so that it can run beside the test suite's
# install and run (.ci/run); without it, from .venv as packaging/build.sh does.
# Prints one line per step with the seconds elapsed; exits non-zero at the first failure,
# after removing the package if it got installed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
START=$SECONDS
say() { echo "smoke: $* [$((SECONDS - START)) s]"; }
fail() { echo "smoke: FAILED: $*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || fail "run as root (it installs packages with apt-get)"
export DEBIAN_FRONTEND=noninteractive

INSTALLED=0
cleanup() {
    if [[ $INSTALLED == 1 ]]; then
        apt-get remove -y -qq gpuadvisor >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT
# stopped from outside (CI stops it when the tests fail): the package goes too
trap 'cleanup; INSTALLED=0; exit 143' TERM INT

# ------------------------------------------------------------------ 0. tools and libraries
# The xcb libraries are those the .deb declares (packaging/build.sh): step 3 runs the
# folder before the .deb exists.
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    xvfb xauth xz-utils binutils desktop-file-utils \
    libgl1 libegl1 libxcb1 libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 \
    libxcb-shape0 libxcb-render-util0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 \
    >/dev/null
say "system packages ready"

# ------------------------------------------------------------------ 1. build
if [[ -n ${SMOKE_VENV:-} ]]; then
    python3 -m venv "$SMOKE_VENV"
    "$SMOKE_VENV/bin/pip" install -q -e "$ROOT"
    export PYTHON="$SMOKE_VENV/bin/python"
    say "own environment ready in $SMOKE_VENV"
fi
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
export BUILD_DIR="$ROOT/build/smoke" DIST_DIR="$ROOT/build/smoke/dist"
DEB_XZ_LEVEL=1 packaging/build.sh --deb-only
APP="$BUILD_DIR/dist/gpuadvisor"
DEBS=("$DIST_DIR"/gpuadvisor_*.deb)
[[ ${#DEBS[@]} == 1 && -f ${DEBS[0]} ]] || fail "expected one .deb in $DIST_DIR"
DEB="${DEBS[0]}"
say "built $(basename "$DEB")"
# torch and CUDA never travel with the app (probes use the user's own Python).
leaked="$(find "$APP" \( -iname '*torch*' -o -iname 'libcuda*' -o -iname 'libcudnn*' -o -iname 'libcublas*' \) | head -3)"
[[ -z $leaked ]] || fail "the bundle contains torch/CUDA files: $leaked"
desktop-file-validate resources/gpuadvisor.desktop || fail "resources/gpuadvisor.desktop is not valid"

self_test() {  # self_test LABEL EXPECTED_PLATFORM COMMAND...
    local label=$1 platform=$2 out
    shift 2
    out="$("$@" 2>&1)" || fail "$label: $out"
    [[ $out == *"self-test passed"*", $platform, "* ]] || fail "$label: unexpected output: $out"
    say "$label: $out"
}

# ------------------------------------------------------------------ 2-3. the frozen folder
self_test "frozen, offscreen" offscreen env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM \
    "$APP/gpuadvisor" --self-test
self_test "frozen, Xvfb + xcb" xcb env QT_QPA_PLATFORM=xcb \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$APP/gpuadvisor" --self-test

# ------------------------------------------------------------------ 4-5. install, run
apt-get install -y -qq "$DEB" >/dev/null
INSTALLED=1
for path in /usr/bin/gpuadvisor /usr/bin/gpuadvisor-gui /opt/gpuadvisor/_internal \
            /usr/share/applications/gpuadvisor.desktop /usr/share/mime/packages/gpuadvisor.xml \
            /usr/share/icons/hicolor/256x256/apps/gpuadvisor.png; do
    [[ -e $path ]] || fail "the .deb did not install $path"
done
version="$(/usr/bin/gpuadvisor --version)"
[[ $version == "gpuadvisor $("$PYTHON" -c 'import gpuadvisor; print(gpuadvisor.__version__)')" ]] \
    || fail "installed version: $version"
say "installed ($version, $(du -sh /opt/gpuadvisor | cut -f1) in /opt/gpuadvisor)"
self_test "installed, offscreen" offscreen env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM \
    /usr/bin/gpuadvisor --self-test
self_test "installed, Xvfb + xcb" xcb env QT_QPA_PLATFORM=xcb \
    xvfb-run -a -s "-screen 0 1600x1000x24" /usr/bin/gpuadvisor --self-test

# ------------------------------------------------------------------ 6. remove
apt-get remove -y -qq gpuadvisor >/dev/null
INSTALLED=0
for path in /usr/bin/gpuadvisor /usr/bin/gpuadvisor-gui /opt/gpuadvisor/gpuadvisor; do
    [[ ! -e $path ]] || fail "apt-get remove left $path"
done
say "removed; smoke test passed"
