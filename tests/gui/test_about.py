"""The app identifies itself: one version, an icon, and an About box with the catalog's date
and the licence of every component the installers ship (Qt's LGPL among them)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QApplication

from gpuadvisor import __version__, catalog
from gpuadvisor.gui import about
from gpuadvisor.gui.app import create_application

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_has_one_source():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "gpuadvisor/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_catalog_date_is_the_newest_price_day():
    days = sorted(offer.as_of for offer in catalog.load_offers().values())
    assert about.catalog_date() == days[-1]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", about.catalog_date())


def test_the_app_icon_comes_in_every_size_from_16_to_256(qapp):
    sizes = [int(p.stem.rsplit("-", 1)[1]) for p in about.icon_files()]
    assert sizes == [16, 24, 32, 48, 64, 128, 256]
    create_application()
    icon = QApplication.windowIcon()
    assert not icon.isNull()
    assert {s.width() for s in icon.availableSizes()} == set(sizes)


def test_about_text_names_version_catalog_date_and_every_licence():
    text = about.about_text()
    assert text.startswith(f"gpuadvisor {__version__}\n")
    assert f"Catalog prices as of {about.catalog_date()}" in text
    for name, licence in (("Qt", "LGPL-3.0"), ("PySide6, Shiboken6", "LGPL-3.0"),
                          ("pyqtgraph", "MIT"), ("NumPy", "BSD-3-Clause"),
                          ("psygnal", "BSD-3-Clause"), ("platformdirs", "MIT"),
                          ("nvidia-ml-py", "BSD-3-Clause"), ("psutil", "BSD-3-Clause"),
                          ("Python", "PSF-2.0")):
        assert re.search(rf"{re.escape(name)} [\d.]+ \({re.escape(licence)}\)", text), name


def test_every_component_points_to_a_licence_notice_that_exists():
    folder = about.resource_dir("licenses")
    assert folder is not None
    for component in about.COMPONENTS:
        notice = (folder / component.notice).read_text(encoding="utf-8")
        assert component.name.split(",")[0] in notice, component
    lgpl = (folder / "LGPL-3.0.txt").read_text(encoding="utf-8")
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in lgpl and "Version 3, 29 June 2007" in lgpl
    assert "GNU GENERAL PUBLIC LICENSE" in (folder / "GPL-3.0.txt").read_text(encoding="utf-8")


def test_about_dialog_shows_version_date_and_licence_links(qtbot):
    dialog = about.AboutDialog()
    qtbot.addWidget(dialog)
    assert dialog.version_label.text() == f"Version {__version__}"
    assert dialog.catalog_label.text() == f"Catalog prices as of {about.catalog_date()}"
    html = dialog.licences.toHtml()
    assert "LGPL-3.0" in html and "code.qt.io" in html
    links = set(re.findall(r'href="([^"]+)"', html))
    files = {Path(QUrl(link).toLocalFile()).name for link in links if link.startswith("file:")}
    assert {"Qt-PySide6.txt", "third-party.txt", "Python-PSF-2.0.txt", "NOTICE.txt"} <= files
    assert all(Path(QUrl(link).toLocalFile()).is_file()
               for link in links if link.startswith("file:"))


@pytest.mark.qt_log_ignore("This plugin does not support")
def test_help_about_opens_a_dialog_without_blocking(qtbot, make_window):
    window = make_window(interactive=True)
    window.about_action.trigger()  # returns at once: open(), not exec()
    dialogs = [w for w in window.findChildren(about.AboutDialog) if w.isVisible()]
    assert len(dialogs) == 1
    assert dialogs[0].windowTitle() == "About gpuadvisor"
    dialogs[0].reject()


def test_help_about_without_dialogs_reports_the_text(make_window):
    window = make_window(interactive=False)
    window.about_action.trigger()
    kind, title, text = window.last_message
    assert (kind, title) == ("info", "About gpuadvisor")
    assert text == about.about_text()
    assert not window.findChildren(about.AboutDialog)
