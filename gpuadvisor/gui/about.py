"""Who the app is: name, version, icon, the catalog's date, and the licences of what it ships.

The version has one source, ``gpuadvisor.__version__`` (the wheel's metadata and the
installers read it too). The icon and the licence notices live in ``resources/icons`` and
``resources/licenses`` of a source checkout; the wheel and the installers carry them as
``gpuadvisor/icons`` and ``gpuadvisor/licenses``, looked up first.
"""

from __future__ import annotations

import html
import importlib.metadata
import importlib.resources
import platform
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSize, Qt, QUrl, qVersion
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor import __version__

#: The program's name (commands, folders) and the name people read.
APP_NAME = "gpuadvisor"
DISPLAY_NAME = "GPU Advisor"
_SOURCE_RESOURCES = Path(__file__).resolve().parents[2] / "resources"


@dataclass(frozen=True)
class Component:
    """A component the installers ship: its name, licence and the notice file about it.

    Attributes:
        name: as people know it.
        distribution: the Python distribution whose version is shown (None: see ``version``).
        licence: SPDX-style licence name.
        notice: file in the licences folder that names the licence and holds or points to
            its full text.
    """

    name: str
    distribution: str | None
    licence: str
    notice: str


COMPONENTS = (
    Component("Python", None, "PSF-2.0", "Python-PSF-2.0.txt"),
    Component("Qt", None, "LGPL-3.0", "Qt-PySide6.txt"),
    Component("PySide6, Shiboken6", "PySide6-Essentials", "LGPL-3.0", "Qt-PySide6.txt"),
    Component("pyqtgraph", "pyqtgraph", "MIT", "third-party.txt"),
    Component("NumPy", "numpy", "BSD-3-Clause", "third-party.txt"),
    Component("psygnal", "psygnal", "BSD-3-Clause", "third-party.txt"),
    Component("platformdirs", "platformdirs", "MIT", "third-party.txt"),
    Component("nvidia-ml-py", "nvidia-ml-py", "BSD-3-Clause", "third-party.txt"),
    Component("psutil", "psutil", "BSD-3-Clause", "third-party.txt"),
)


def resource_dir(name: str) -> Path | None:
    """The folder of ``icons`` or ``licenses``: packaged (wheel, installer) or the checkout's."""
    packaged = importlib.resources.files("gpuadvisor") / name
    if packaged.is_dir():
        return Path(str(packaged))
    source = _SOURCE_RESOURCES / name
    return source if source.is_dir() else None


def icon_files() -> list[Path]:
    """The app icon's PNGs (16 to 256 pixels), smallest first; empty if none is found."""
    folder = resource_dir("icons")
    if folder is None:
        return []
    return sorted(folder.glob("gpuadvisor-*.png"),
                  key=lambda p: int(p.stem.rsplit("-", 1)[1]))


def app_icon() -> QIcon:
    """The app icon, every size (Qt picks one per use: title bar, task bar, About box)."""
    icon = QIcon()
    for path in icon_files():
        icon.addFile(str(path))
    return icon


def catalog_date() -> str | None:
    """The day of the newest price in the catalog in effect (``YYYY-MM-DD``), or None."""
    from gpuadvisor import catalog

    try:
        offers = catalog.load_offers()
    except Exception:  # the About box must open even when the catalog does not load
        return None
    days = [offer.as_of for offer in offers.values() if offer.as_of]
    return max(days) if days else None


def component_version(component: Component) -> str:
    """The version of ``component`` running now ("" when unknown)."""
    if component.name == "Python":
        return platform.python_version()
    if component.name == "Qt":
        return qVersion()
    try:
        return importlib.metadata.version(component.distribution or component.name)
    except importlib.metadata.PackageNotFoundError:
        if component.distribution == "PySide6-Essentials":  # the full PySide6 instead
            import PySide6

            return PySide6.__version__
        return ""


def about_text() -> str:
    """The About box in plain text: version, catalog date, what it is, licences."""
    date = catalog_date()
    parts = [
        f"{APP_NAME} {__version__}",
        QCoreApplication.translate(
            "AboutDialog", "Can my GPU train this model, how long will it take, and what "
            "should I change? Estimates of memory per GPU and training time, with every "
            "assumption shown."),
        (QCoreApplication.translate("AboutDialog", "Catalog prices as of {date}")
         .format(date=date) if date else
         QCoreApplication.translate("AboutDialog", "Catalog date unknown")),
        QCoreApplication.translate(
            "AboutDialog", "gpuadvisor is free software under the MIT licence. It is built on "
            "{components}.").format(components="; ".join(
                f"{c.name} {component_version(c)} ({c.licence})".replace("  ", " ")
                for c in COMPONENTS)),
    ]
    return "\n\n".join(parts)


class AboutDialog(QDialog):
    """The About box: name, version, catalog date, and each bundled component's licence.

    Non-modal use: ``AboutDialog(parent).open()``; it never blocks the caller.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle(self.tr("About gpuadvisor"))
        self.setWindowIcon(app_icon())
        date = catalog_date()

        self.icon_label = QLabel(self)
        self.icon_label.setPixmap(app_icon().pixmap(QSize(96, 96)))
        self.icon_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.title_label = QLabel(f"<h2>{DISPLAY_NAME}</h2>", self)
        self.version_label = QLabel(self.tr("Version {version}").format(version=__version__),
                                    self)
        self.version_label.setObjectName("aboutVersion")
        self.version_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary_label = QLabel(self.tr(
            "Can my GPU train this model, how long will it take, and what should I change? "
            "Estimates of memory per GPU and training time, with every assumption shown."),
            self)
        self.summary_label.setWordWrap(True)
        self.catalog_label = QLabel(
            self.tr("Catalog prices as of {date}").format(date=date) if date
            else self.tr("Catalog date unknown"), self)
        self.catalog_label.setObjectName("aboutCatalogDate")

        heading = QVBoxLayout()
        for label in (self.title_label, self.version_label, self.summary_label,
                      self.catalog_label):
            heading.addWidget(label)
        top = QHBoxLayout()
        top.addWidget(self.icon_label)
        top.addLayout(heading, 1)

        self.licences = QTextBrowser(self)
        self.licences.setObjectName("aboutLicences")
        self.licences.setOpenExternalLinks(True)
        self.licences.setHtml(self._licences_html())
        self.licences.setMinimumSize(560, 260)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.licences, 1)
        layout.addWidget(buttons)

    def _licences_html(self) -> str:
        folder = resource_dir("licenses")

        def link(notice: str, text: str) -> str:
            if folder is None or not (folder / notice).is_file():
                return html.escape(text)
            return (f'<a href="{QUrl.fromLocalFile(str(folder / notice)).toString()}">'
                    f"{html.escape(text)}</a>")

        rows = "".join(
            f"<tr><td>{html.escape(c.name)}</td><td>{html.escape(component_version(c))}</td>"
            f"<td>{link(c.notice, c.licence)}</td></tr>" for c in COMPONENTS)
        # tr() outside the f-string: lupdate does not look inside f-string expressions.
        titles = (self.tr("Component"), self.tr("Version"), self.tr("Licence"))
        header = "<tr>" + "".join(f"<th align='left'>{html.escape(t)}</th>"
                                  for t in titles) + "</tr>"
        own = self.tr("gpuadvisor is free software under the MIT licence. It is built on these "
                      "components, each under its own licence:")
        lgpl = self.tr(
            "Qt, PySide6 and Shiboken6 are used under the GNU Lesser General Public License "
            "version 3. They are unmodified, dynamically linked libraries: you may replace "
            "them with your own build. Their source code is at {url}.").format(
                url='<a href="https://code.qt.io/">code.qt.io</a>')
        no_torch = self.tr("torch is not included: probes run in a Python environment of "
                           "yours that has it.")
        texts = (link("NOTICE.txt", self.tr("All licence texts"))
                 if folder is not None else "")
        return (f"<p>{html.escape(own)}</p><table cellspacing='0' cellpadding='3'>{header}"
                f"{rows}</table><p>{lgpl}</p><p>{html.escape(no_torch)}</p><p>{texts}</p>")
