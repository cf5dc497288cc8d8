"""A double-click on a plan opens it (issue 17): the Linux MIME type and menu entry, the
Windows installer's registry entries and the macOS document type all name .gpuplan and pass
the file to ``gpuadvisor-gui FILE``, which opens it."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import ast
import configparser
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from gpuadvisor.gui import app as gui_app
from gpuadvisor.workspace.planfile import PLAN_SUFFIX, save_plan
from gpuadvisor.workspace.state import PlanState

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")

ROOT = Path(__file__).resolve().parents[2]
MIME_TYPE = "application/x-gpuadvisor-plan"


def test_the_linux_mime_type_matches_plan_files():
    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    root = ET.parse(ROOT / "resources" / "mime" / "gpuadvisor.xml").getroot()
    (mime,) = root.findall("m:mime-type", ns)
    assert mime.get("type") == MIME_TYPE
    assert [g.get("pattern") for g in mime.findall("m:glob", ns)] == [f"*{PLAN_SUFFIX}"]
    assert mime.find("m:sub-class-of", ns).get("type") == "application/json"


def test_the_menu_entry_opens_files_of_that_type():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(ROOT / "resources" / "gpuadvisor.desktop", encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Exec"] == "gpuadvisor-gui %f"
    assert MIME_TYPE in desktop["MimeType"].split(";")
    build = (ROOT / "packaging" / "build.sh").read_text(encoding="utf-8")
    assert "resources/mime/gpuadvisor.xml" in build and "update-mime-database" in build


def test_the_windows_installer_associates_plans_with_the_app():
    iss = (ROOT / "packaging" / "windows" / "gpuadvisor.iss").read_text(encoding="utf-8")
    assert "ChangesAssociations=yes" in iss
    assert f'#define PlanExt "{PLAN_SUFFIX}"' in iss
    entries = [line for line in iss.splitlines() if line.startswith("Root: HKA; Subkey: ")]

    def value(subkey: str, name: str = "") -> str:
        start = f'Root: HKA; Subkey: "{subkey}"; ValueType: string; ValueName: "{name}"; '
        (line,) = [e for e in entries if e.startswith(start)]
        return line[len(start):].split("; Flags:")[0]

    # .gpuplan -> the ProgID; the ProgID's open command passes the file to the app (Inno
    # Setup doubles a quote inside a quoted value: "C:\...\gpuadvisor-gui.exe" "%1").
    assert value("Software\\Classes\\{#PlanExt}") == 'ValueData: "{#PlanProgId}"'
    assert value("Software\\Classes\\{#PlanProgId}\\shell\\open\\command") == (
        'ValueData: """{app}\\{#GuiExe}"" ""%1"""')


def test_the_macos_app_declares_plans_as_its_documents():
    spec = (ROOT / "packaging" / "gpuadvisor.spec").read_text(encoding="utf-8")
    tree = ast.parse(spec)
    plist = next(kw.value for node in ast.walk(tree) if isinstance(node, ast.Call)
                 for kw in node.keywords if kw.arg == "info_plist")
    keys = [k.value for k in plist.keys]
    assert "CFBundleDocumentTypes" in keys and "UTExportedTypeDeclarations" in keys
    exported = plist.values[keys.index("UTExportedTypeDeclarations")].elts[0]
    tags = exported.values[[k.value for k in exported.keys].index("UTTypeTagSpecification")]
    extensions = tags.values[[k.value for k in tags.keys].index(
        "public.filename-extension")].elts
    assert [e.value for e in extensions] == [PLAN_SUFFIX.lstrip(".")]


def test_gpuadvisor_gui_file_opens_that_plan(qapp, config_dir, tmp_path):
    other = PlanState()
    other.set_model("gpt2")
    plan = save_plan(other, tmp_path / "gpt2.gpuplan")
    args = gui_app.build_parser().parse_args([str(plan), "--screenshot",
                                              str(tmp_path / "shot.png"), "--size", "900x600"])
    assert args.file == str(plan)
    opened = []
    from gpuadvisor.gui.main_window import MainWindow

    original = MainWindow.open_dropped

    def spy(window, path):
        result = original(window, path)
        opened.append((str(path), result, window.state.model_id))
        return result

    MainWindow.open_dropped = spy
    try:
        assert gui_app.run(args) == 0
    finally:
        MainWindow.open_dropped = original
    assert opened == [(str(plan), True, "gpt2")]
    assert not QImage(str(tmp_path / "shot.png")).isNull()
