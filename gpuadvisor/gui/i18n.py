"""Translations: Qt Linguist ``.ts`` sources compiled to ``.qm`` by the project.

Sources live in ``resources/i18n/gpuadvisor_<lang>.ts`` (edit them with Qt Linguist or by
hand); the wheel ships them as ``gpuadvisor/i18n/``. Compiled catalogs are looked up, in order:

1. ``gpuadvisor/i18n/*.qm`` next to the sources (a frozen app bundles precompiled ones);
2. a per-user cache, compiled from the ``.ts`` source with ``lrelease`` — which ships with
   PySide6-Essentials, a dependency — the first time a language is used, and again whenever
   the source is newer.
"""

from __future__ import annotations

import importlib.resources
import shutil
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
SOURCE_DIR = Path(__file__).resolve().parents[2] / "resources" / "i18n"


def _packaged(name: str) -> Path | None:
    resource = importlib.resources.files("gpuadvisor") / "i18n" / name
    return Path(str(resource)) if resource.is_file() else None


def ts_path(language: str) -> Path:
    """The ``.ts`` source of ``language``: the packaged copy, else the source checkout's."""
    name = f"gpuadvisor_{language}.ts"
    return _packaged(name) or SOURCE_DIR / name


def lrelease_command() -> list[str] | None:
    """How to run Qt's ``lrelease`` (shipped with PySide6), or None when it is missing."""
    exe = Path(sys.executable).with_name("pyside6-lrelease")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("pyside6-lrelease") or shutil.which("lrelease")
    return [found] if found else None


def compile_ts(source: Path, target: Path) -> Path:
    """Compile one ``.ts`` file to ``.qm`` with ``lrelease``.

    Raises:
        RuntimeError: ``lrelease`` is missing or fails, with its message.
    """
    command = lrelease_command()
    if command is None:
        raise RuntimeError("pyside6-lrelease not found: install PySide6-Essentials")
    target.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([*command, "-silent", str(source), "-qm", str(target)],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0 or not target.exists():
        raise RuntimeError(f"lrelease failed for {source.name}: {result.stderr.strip()}")
    return target


def _cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("gpuadvisor")) / "i18n"


def qm_path(language: str) -> Path | None:
    """The compiled catalog for ``language``: packaged, or compiled on demand; None if none."""
    packaged = _packaged(f"gpuadvisor_{language}.qm")
    if packaged is not None:
        return packaged
    source = ts_path(language)
    if not source.exists():
        return None
    cached = _cache_dir() / f"gpuadvisor_{language}.qm"
    if not cached.exists() or cached.stat().st_mtime < source.stat().st_mtime:
        try:
            compile_ts(source, cached)
        except RuntimeError:
            return None
    return cached


def resolve_language(setting: str) -> str:
    """Map the settings value (``system``, ``en``, ``zh_CN``) to a catalog language."""
    if setting in LANGUAGES:
        return setting
    name = QLocale.system().name()  # e.g. "zh_CN", "en_US"
    if name.startswith("zh"):
        return "zh_CN"
    return "en"


_installed: list[QTranslator] = []
#: The language in effect (what :func:`install_language` returned last).
_language = ["en"]


def current_language() -> str:
    """The language the app speaks now (``en`` until another is installed)."""
    return _language[0]


#: Languages whose script a Latin-only font cannot show, and Qt's writing system for each.
CJK_LANGUAGES = {"zh_CN": "SimplifiedChinese"}


def missing_font(language: str) -> str | None:
    """A one-line warning when no installed font can show ``language``'s script (Chinese on
    a Linux machine without a CJK font renders as empty boxes), else None."""
    system = CJK_LANGUAGES.get(language)
    if system is None:
        return None
    from PySide6.QtGui import QFontDatabase

    if QFontDatabase.families(getattr(QFontDatabase.WritingSystem, system)):
        return None
    return (f"gpuadvisor: no installed font can show {language} text (it would show as "
            "boxes): install Noto Sans CJK (Debian/Ubuntu: sudo apt install fonts-noto-cjk)")


def install_language(setting: str) -> str:
    """Install the translator for ``setting`` on the running application.

    English is the source language (no catalog). Returns the language in effect; a missing
    catalog falls back to English rather than failing.
    """
    app = QCoreApplication.instance()
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    language = resolve_language(setting)
    _language[0] = "en"
    if language == "en":
        return "en"
    path = qm_path(language)
    translator = QTranslator(app)
    if path is None or not translator.load(str(path)):
        return "en"
    _language[0] = language
    app.installTranslator(translator)
    _installed.append(translator)
    # Qt's own texts (OK/Cancel, file dialogs) come from the catalogs PySide6 ships.
    qt_catalogs = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    base = QTranslator(app)
    if base.load(f"qtbase_{language}", qt_catalogs):
        app.installTranslator(base)
        _installed.append(base)
    return language
