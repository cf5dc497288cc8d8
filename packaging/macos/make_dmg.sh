#!/usr/bin/env bash
# macOS: build "GPU Advisor.app" and a .dmg to drag it to Applications from.
#
#   packaging/macos/make_dmg.sh        (on a Mac, from the repository root)
#
# -> dist/GPU Advisor.app                    (PyInstaller BUNDLE, Info.plist from the spec)
#    dist/gpuadvisor-<version>-macos-<arch>.dmg
#
# The .app is signed ad hoc (enough to run on the Mac that built it, and on Apple silicon at
# all). To hand it to others without Gatekeeper's warning, sign it with a Developer ID and
# notarize it before making the .dmg:
#   codesign --force --deep --options runtime --timestamp -s "Developer ID Application: NAME" "dist/GPU Advisor.app"
#   xcrun notarytool submit dist/<the .dmg> --keychain-profile PROFILE --wait
#   xcrun stapler staple dist/<the .dmg>
# The icon is resources/icons/gpuadvisor.icns (made by packaging/make_icons.py; on a Mac,
# `iconutil` can rebuild it from an .iconset of the PNGs too).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
"$PYTHON" -m PyInstaller --version 2>/dev/null | grep -qx 6.22.3 || "$PYTHON" -m pip install -q pyinstaller==6.22.3
VERSION="$("$PYTHON" -c 'import gpuadvisor; print(gpuadvisor.__version__)')"
APP="dist/GPU Advisor.app"

"$PYTHON" -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
    packaging/gpuadvisor.spec
[[ -d $APP ]] || { echo "make_dmg.sh: PyInstaller made no $APP" >&2; exit 1; }
codesign --force --deep -s - "$APP"
"$APP/Contents/MacOS/gpuadvisor" --self-test

STAGE="build/dmg"
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
DMG="dist/gpuadvisor-$VERSION-macos-$(uname -m).dmg"
rm -f "$DMG"
hdiutil create -volname "GPU Advisor $VERSION" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
echo "make_dmg.sh: $DMG ($(du -h "$DMG" | cut -f1))"
