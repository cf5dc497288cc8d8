"""The main window: page navigation (Rig, Probe, Plan, Compare), settings, plan files; its
menus are built in :mod:`.menus`.

Messages for the user go through :meth:`MainWindow.report`, which records the message,
shows it in the status bar and, when the window is interactive, in a window-modal message
box opened with ``open()`` (never ``exec()``), so nothing here blocks a test. File dialogs
go through the ``ask_*`` methods, which tests replace.
"""

from __future__ import annotations

import base64
import contextlib
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)

from gpuadvisor.planfile import PLAN_SUFFIX, PlanFileError, load_plan, save_plan
from gpuadvisor.settings import Settings, save_settings
from gpuadvisor.state import PlanState

from .i18n import LANGUAGES, resolve_language
from .local_models import (
    ModelFiles,
    cannot_open_title,
    dropped_kind,
    dropped_paths,
    not_openable,
    opened_model,
    reading,
)
from .menus import build_menus, fill_recent_menu
from .page_holders import Fit as _Fit
from .page_holders import Holder as _Holder
from .pages.plan import PlanPage
from .pages.probe_page import ProbePage
from .pages.rig_page import RigPage
from .widgets.theme import presentation_palette, style_sheet

PAGES = ("rig", "probe", "plan", "compare")


class MainWindow(QMainWindow):
    """The app's window.

    Attributes:
        state: the shared plan every page reads and writes.
        settings: the user's settings (saved on close when ``persist``).
        plan_page: the Plan page.
        pages: page name -> page widget.
        plan_path: the plan file last opened or saved (None: untitled).
        last_message: (kind, title, text) of the last message reported, or None.
    """

    def __init__(self, state: PlanState | None = None, settings: Settings | None = None,
                 settings_warning: str | None = None, *, persist: bool = True,
                 interactive: bool = True, defer_charts: bool = False,
                 simulate: str | None = None, detect: bool = False,
                 rig_options: dict | None = None, probe_options: dict | None = None,
                 compare_options: dict | None = None, parent: QWidget | None = None) -> None:
        """Build the window.

        Args:
            state: the shared plan (default: a new one on the shipped catalog).
            settings: the user's settings (default: defaults).
            settings_warning: why the settings file could not be used, shown once.
            persist: save the settings on close.
            interactive: show message boxes (False: status bar and ``last_message`` only).
            defer_charts: draw the Plan page's charts after the first paint (app start).
            simulate: a demo rig (``--simulate SPEC``) for the Rig page instead of this machine.
            detect: detect the rig at once (the Plan page then targets the detected card);
                otherwise detection starts when the Rig page is first shown.
            rig_options: extra arguments of the Rig page (tests: backend options, host).
            probe_options: extra arguments of the Probe page (tests: a fake worker).
            compare_options: extra arguments of the Compare page (tests: offers, the day).
            parent: Qt parent.
        """
        super().__init__(parent)
        self._defer_charts = defer_charts
        self._simulate = simulate
        self._rig_options = dict(rig_options or {})
        self._probe_options = dict(probe_options or {})
        self._compare_options = dict(compare_options or {})
        self.setObjectName("mainWindow")
        self.state = state if state is not None else PlanState()
        self.settings = settings if settings is not None else Settings()
        self._persist = persist
        self._interactive = interactive
        self._pending_warning = settings_warning
        self._presentation = False
        self._was_maximized = False
        self._base_palette = QPalette(self.palette())
        # Texts are translated as the window is built: a new language needs a restart.
        self._language_in_effect = resolve_language(self.settings.language)
        self.plan_path: Path | None = None
        self.last_message: tuple[str, str, str] | None = None

        self.status_label = QLabel(self)
        self.status_label.setObjectName("statusMessage")
        self.statusBar().addWidget(self.status_label, 1)
        self._build_pages()
        self._build_menus()
        self._build_drops()
        if detect:
            self.rig_page.refresh()
        self.setStyleSheet(style_sheet(presentation=False))
        self.resize(1440, 900)
        self._restore_geometry()
        self.set_units(self.settings.units)
        if self.settings.presentation_mode:
            self.set_presentation(True, full_screen=interactive)
        self.show_page("plan")
        self.state.changed.connect(self._on_state_changed)
        self._listening = True
        self._update_title()
        if settings_warning:
            self.status_label.setText(settings_warning)

    # ================================================================== building
    def _build_pages(self) -> None:
        central = QWidget(self)
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.nav = QListWidget(central)
        self.nav.setObjectName("navigation")
        self.nav.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.stack = QStackedWidget(central)
        self.plan_page = PlanPage(self.state, units=self.settings.units,
                                  defer_charts=self._defer_charts)
        self.plan_page.status.connect(self.status_label.setText)
        self.rig_page = RigPage(self.state, units=self.settings.units,
                                simulate=self._simulate, **self._rig_options)
        self.rig_page.status.connect(self.status_label.setText)
        self.rig_page.first_shown.connect(self._on_rig_first_shown)
        self.probe_page = ProbePage(self.state, units=self.settings.units,
                                    settings=self.settings, simulate=self._simulate,
                                    **self._probe_options)
        self.probe_page.status.connect(self.status_label.setText)
        self.probe_page.run_finished.connect(lambda _run: self.load_measurements())
        self.load_measurements()
        # The Compare page (and its charts, and pyqtgraph with them) is built when first
        # shown or asked for: the window paints first.
        self._compare_page = None
        self._compare_holder = _Holder(self._build_compare_page)
        self.pages: dict[str, QWidget] = {
            "rig": self.rig_page, "probe": self.probe_page, "plan": self.plan_page,
            "compare": self._compare_holder,
        }
        titles = {"rig": self.tr("Rig"), "probe": self.tr("Probe"), "plan": self.tr("Plan"),
                  "compare": self.tr("Compare")}
        tips = {
            "rig": self.tr("What is in this machine: GPUs, host, live readings"),
            "probe": self.tr("Measure this machine: throughput, bandwidth, history"),
            "plan": self.tr("Will it fit, how long, what to change"),
            "compare": self.tr("Your rig, buy, rent or cloud: time and cost of each"),
        }
        for name in PAGES:
            item = QListWidgetItem(titles[name], self.nav)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(tips[name])
            self.stack.addWidget(_Fit(self.pages[name], self.stack))
            if name not in ("plan", "compare"):
                self.pages[name].go_to_plan.connect(lambda: self.show_page("plan"))
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self._fit_nav_width()

    @property
    def compare_page(self):
        """The Compare page (built on first use)."""
        return self._build_compare_page()

    def _build_compare_page(self):
        if self._compare_page is None:
            from .pages.compare import ComparePage

            page = ComparePage(self.state, self.settings, **self._compare_options)
            page.status.connect(self.status_label.setText)
            page.go_to_plan.connect(lambda: self.show_page("plan"))
            page.set_presentation(self._presentation)
            self._compare_page = page
            self._compare_holder.hold(page)
        return self._compare_page

    def load_measurements(self) -> None:
        """Give the plan state what the probe history measured on catalog cards, so time
        estimates for a measured card use its measured training step (or matmul) and
        bandwidth. A history problem is one line in the status bar, never an error."""
        from gpuadvisor.probes import history

        warnings: list[str] = []
        try:
            found = [m for run in history.runs(warnings=warnings) if run.catalog_id
                     for m in run.measurements()]
        except OSError as exc:
            warnings.append(str(exc))
            found = []
        self.state.set_measurements(found)
        if warnings:
            self.status_label.setText(warnings[0])

    def _fit_nav_width(self) -> None:
        metrics = self.nav.fontMetrics()
        widest = max(metrics.horizontalAdvance(self.nav.item(i).text())
                     for i in range(self.nav.count()))
        self.nav.setFixedWidth(widest + 56)

    def _build_menus(self) -> None:
        build_menus(self, PAGES)
        self._fill_recent_menu()

    # ================================================================== pages
    def show_page(self, name: str) -> None:
        """Show the page called ``name`` (rig, probe, plan or compare)."""
        self.nav.setCurrentRow(PAGES.index(name))

    def current_page(self) -> str:
        """The name of the page shown."""
        return PAGES[self.stack.currentIndex()]

    def flush(self) -> None:
        """Finish any pending detection and redraw (before a screenshot)."""
        if self.rig_page.busy:
            self.rig_page.wait()
        if self.current_page() == "probe":
            self.probe_page.flush()
        if self.current_page() == "compare":
            self.compare_page.flush()
        self.plan_page.flush()

    def _on_rig_first_shown(self) -> None:
        if self.rig_page.result is None and not self.rig_page.busy:
            self.rig_page.refresh()

    # ================================================================== messages
    def report(self, kind: str, title: str, text: str) -> None:
        """Tell the user something: status bar always, a message box when interactive.

        Args:
            kind: "info", "warning" or "error".
            title: the box's title.
            text: what happened, in words.
        """
        self.last_message = (kind, title, text)
        self.status_label.setText(text)
        if not self._interactive:
            return
        icon = {"info": QMessageBox.Icon.Information, "warning": QMessageBox.Icon.Warning,
                "error": QMessageBox.Icon.Critical}.get(kind, QMessageBox.Icon.NoIcon)
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()

    def fit_to_screen(self) -> None:
        """Never larger than the screen the window is on (a saved size from a larger monitor,
        the default size on a 1366 x 768 laptop): shrunk to its available area."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None or self.isFullScreen() or self.isMaximized():
            return
        room = screen.availableGeometry()
        frame = self.frameGeometry().size() - self.geometry().size()
        width = min(self.width(), room.width() - frame.width())
        height = min(self.height(), room.height() - frame.height())
        if (width, height) != (self.width(), self.height()) and width > 0 and height > 0:
            self.resize(width, height)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._interactive:
            # Screenshots and tests set their own size; a window on a screen fits it.
            self.fit_to_screen()
        if self._pending_warning:
            warning, self._pending_warning = self._pending_warning, None
            self.report("warning", self.tr("Settings were reset"), warning)

    def show_about(self) -> None:
        """The About box: version, catalog date, the licences of bundled components."""
        from .about import AboutDialog, about_text

        if not self._interactive:
            self.report("info", self.tr("About gpuadvisor"), about_text())
            return
        dialog = AboutDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()  # window-modal, never blocking: exec() would run a nested event loop

    # ================================================================== plan files
    def ask_open_path(self) -> str | None:
        """Ask which plan file to open (tests replace this)."""
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open plan"), self._dialog_folder(),
            self.tr("gpuadvisor plans (*{suffix});;All files (*)").format(suffix=PLAN_SUFFIX))
        return path or None

    def ask_save_path(self) -> str | None:
        """Ask where to save the plan (tests replace this)."""
        suggested = str(self.plan_path) if self.plan_path else str(
            Path(self._dialog_folder()) / f"{self.state.model_id}{PLAN_SUFFIX}")
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save plan"), suggested,
            self.tr("gpuadvisor plans (*{suffix})").format(suffix=PLAN_SUFFIX))
        return path or None

    def ask_png_path(self) -> str | None:
        """Ask where to write the page's PNG (tests replace this)."""
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export page as PNG"),
            str(Path(self._dialog_folder()) / f"{self.current_page()}.png"),
            self.tr("PNG images (*.png)"))
        return path or None

    def _dialog_folder(self) -> str:
        if self.plan_path is not None:
            return str(self.plan_path.parent)
        if self.settings.recent_files:
            return str(Path(self.settings.recent_files[0]).parent)
        return str(Path.home())

    def open_plan_dialog(self) -> bool:
        path = self.ask_open_path()
        return self.open_plan(path) if path else False

    def open_plan(self, path: str | Path) -> bool:
        """Load a plan file into the shared plan; on any problem say what and change nothing."""
        try:
            data = load_plan(path)
            self.state.from_dict(data)
        except PlanFileError as exc:
            self.report("error", self.tr("Cannot open plan"), str(exc))
            return False
        self.plan_path = Path(path).resolve()
        self.settings.add_recent(self.plan_path)
        self._fill_recent_menu()
        self.setWindowModified(False)
        self._update_title()
        self.status_label.setText(self.tr("Opened {path}").format(path=self.plan_path))
        return True

    def save_plan(self) -> bool:
        """Save to the current file (asks for one when the plan is untitled)."""
        if self.plan_path is None:
            return self.save_plan_as()
        return self._save_to(self.plan_path)

    def save_plan_as(self) -> bool:
        path = self.ask_save_path()
        if not path:
            return False
        target = Path(path)
        if target.suffix != PLAN_SUFFIX:
            target = target.with_name(target.name + PLAN_SUFFIX)
        return self._save_to(target)

    def _save_to(self, path: Path) -> bool:
        try:
            written = save_plan(self.state, path)
        except PlanFileError as exc:
            self.report("error", self.tr("Cannot save plan"), str(exc))
            return False
        self.plan_path = Path(written).resolve()
        self.settings.add_recent(self.plan_path)
        self._fill_recent_menu()
        self.setWindowModified(False)
        self._update_title()
        self.status_label.setText(self.tr("Saved {path}").format(path=self.plan_path))
        return True

    def _fill_recent_menu(self) -> None:
        fill_recent_menu(self.recent_menu, self.settings.recent_files, self._open_recent,
                         self._clear_recent)

    def _open_recent(self, path: str) -> None:
        if not self.open_plan(path) and not Path(path).exists():
            self.settings.remove_recent(path)
            self._fill_recent_menu()

    def _clear_recent(self) -> None:
        self.settings.recent_files = []
        self._fill_recent_menu()

    def _on_state_changed(self, _estimate=None) -> None:
        self.setWindowModified(True)

    def _update_title(self) -> None:
        name = self.plan_path.name if self.plan_path else self.tr("Untitled plan")
        self.setWindowTitle(f"{name}[*] — gpuadvisor")

    # ================================================================== drag and drop
    def _build_drops(self) -> None:
        # A model file is read off the GUI thread (a GGUF header can take a moment).
        self.setAcceptDrops(True)
        self.model_files = ModelFiles(self)
        self.model_files.loaded.connect(self._on_dropped_model)
        self.model_files.failed.connect(
            lambda message: self.report("error", cannot_open_title(), message))

    def dragEnterEvent(self, event) -> None:
        if any(dropped_kind(path) for path in dropped_paths(event.mimeData())):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        paths = dropped_paths(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        # Several files: the first one that opens (else the first, to say why not).
        self.open_dropped(next((p for p in paths if dropped_kind(p)), paths[0]))

    def open_dropped(self, path: str | Path) -> bool:
        """Open what was dropped on the window: a plan as File → Open does; a config.json,
        a model folder or a GGUF file as the plan's model (read in the background, then
        the Plan page shows it). Anything else is reported; False when nothing opens."""
        path = Path(path)
        kind = dropped_kind(path)
        if kind == "plan":
            return self.open_plan(path)
        if kind is None:
            self.report("error", cannot_open_title(), not_openable(path))
            return False
        self.status_label.setText(reading(path))
        self.model_files.open_path(path)
        return True

    def _on_dropped_model(self, spec, _what: str) -> None:
        if self.state.set_model(spec):
            self.show_page("plan")
            self.status_label.setText(opened_model(spec.name))

    # ================================================================== export
    def export_png_dialog(self) -> bool:
        path = self.ask_png_path()
        return self.export_png(path) if path else False

    def export_png(self, path: str | Path) -> bool:
        """Write the current page (charts and numbers) as a PNG."""
        self.flush()
        image = self.stack.currentWidget().widget().grab()
        if not image.save(str(path), "PNG"):
            self.report("error", self.tr("Cannot export"),
                        self.tr("Could not write {path}").format(path=path))
            return False
        self.status_label.setText(self.tr("Wrote {path}").format(path=path))
        return True

    def copy_summary(self) -> str:
        """Put the plan's Markdown summary on the clipboard; returns it."""
        text = self.plan_page.summary_markdown()
        QGuiApplication.clipboard().setText(text)
        self.status_label.setText(self.tr("Summary copied to the clipboard as Markdown"))
        return text

    # ================================================================== view
    @property
    def presentation(self) -> bool:
        return self._presentation

    def set_presentation(self, enabled: bool, *, full_screen: bool = True) -> None:
        """Presentation mode: full screen, large fonts, thick lines, high contrast."""
        enabled = bool(enabled)
        self._presentation = enabled
        self.settings.presentation_mode = enabled
        self.presentation_action.setChecked(enabled)
        self.setPalette(presentation_palette(self._base_palette) if enabled
                        else self._base_palette)
        self.setStyleSheet(style_sheet(presentation=enabled))
        self.plan_page.set_presentation(enabled)
        self.rig_page.set_presentation(enabled)
        self.probe_page.set_presentation(enabled)
        if self._compare_page is not None:
            self._compare_page.set_presentation(enabled)
        # The room goes to the charts: pages stay one shortcut away (Ctrl+1..4).
        self.nav.setVisible(not enabled)
        self._fit_nav_width()
        if not full_screen:
            return
        if enabled and not self.isFullScreen():
            self._was_maximized = self.isMaximized()
            self.showFullScreen()
        elif not enabled and self.isFullScreen():
            if self._was_maximized:
                self.showMaximized()
            else:
                self.showNormal()

    def set_units(self, units: str) -> None:
        """Show memory in "GiB" or "GB"."""
        self.settings.units = units
        self.units_actions[units].setChecked(True)
        if self.plan_page.units != units:
            self.plan_page.set_units(units)
            self.rig_page.set_units(units)
            self.probe_page.set_units(units)
        if self._compare_page is not None:  # it reads the same settings: redraw it
            self._compare_page.set_units(units)

    def set_language(self, language: str) -> None:
        """Choose the language (``system``, ``en`` or ``zh_CN``) used from the next start.

        The window's texts are translated when it is built, so the choice is stored in the
        settings (saved on close) and the user is told that it applies after a restart.
        """
        self.language_actions[language].setChecked(True)
        if language == self.settings.language:
            return
        self.settings.language = language
        name = (self.tr("the system language") if language == "system"
                else LANGUAGES[language])
        if resolve_language(language) == self._language_in_effect:
            self.status_label.setText(self.tr("Language: {language}").format(language=name))
            return
        self.report("info", self.tr("Language"), self.tr(
            "gpuadvisor will use {language} after a restart.").format(language=name))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        # Leaving full screen with the window manager's keys ends presentation mode too.
        if (event.type() == QEvent.Type.WindowStateChange and self._presentation
                and not self.isFullScreen()
                and event.oldState() & Qt.WindowState.WindowFullScreen):
            self.set_presentation(False, full_screen=False)

    # ================================================================== settings
    def _restore_geometry(self) -> None:
        geometry = self.settings.window_geometry
        if not geometry:
            return
        with contextlib.suppress(ValueError, TypeError):
            self.restoreGeometry(QByteArray(base64.b64decode(geometry)))

    def save_settings(self) -> None:
        """Write geometry, units, language and presentation mode (problems go to the status bar)."""
        self.settings.window_geometry = base64.b64encode(
            bytes(self.saveGeometry().data())).decode("ascii")
        try:
            save_settings(self.settings)
        except (OSError, ValueError) as exc:
            self.status_label.setText(self.tr("Could not save settings: {error}").format(
                error=exc))

    def closeEvent(self, event) -> None:
        # Stop the page's timer and the state's callbacks before Qt deletes the widgets.
        self.plan_page.shutdown()
        self.rig_page.shutdown()
        self.probe_page.shutdown()
        if self._compare_page is not None:
            self._compare_page.shutdown()
        if self._listening:
            self._listening = False
            self.state.changed.disconnect(self._on_state_changed)
        if self._persist:
            self.save_settings()
        super().closeEvent(event)
