"""The main window: page navigation (Rig, Probe, Plan, Compare), settings, undo and redo,
theme, help and the first-run hints; its menus are built in :mod:`.menus`, its plan files
(open, save, drops, unsaved changes) in :mod:`.window_files`, its colours in
:mod:`.window_theme`.

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
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.workspace.settings import Settings, save_settings
from gpuadvisor.workspace.state import PlanState

from .accessibility import describe_inputs
from .edit_menu import UndoKeys
from .first_run import FirstRunPanel
from .help_texts import change_name
from .i18n import LANGUAGES, resolve_language
from .menus import build_menus
from .page_holders import Fit as _Fit
from .page_holders import Holder as _Holder
from .pages.plan import PlanPage
from .pages.probe_page import ProbePage
from .pages.rig_page import RigPage
from .window_files import PlanFiles
from .window_theme import WindowTheme

PAGES = ("rig", "probe", "plan", "compare")


class MainWindow(PlanFiles, QMainWindow):
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
                 compare_options: dict | None = None, own_app: bool = False,
                 first_run: bool = False, parent: QWidget | None = None) -> None:
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
            own_app: the window is the application's (the app, a screenshot run): the theme's
                palette is the application's, for menus, lists and dialogs too.
            first_run: the app's first start (no settings yet): once the rig is detected, a
                panel offers a demo rig (no GPU found) or points at the Probe page.
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
        self._first_run = first_run
        self._theme = WindowTheme(self, own_app=own_app)
        self._help = None
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
        self._theme.apply(self.settings.theme, False)
        if detect:
            self.rig_page.refresh()
        self.resize(1440, 900)
        self._restore_geometry()
        self.set_units(self.settings.units)
        if self.settings.presentation_mode:
            self.set_presentation(True, full_screen=interactive)
        self.show_page("plan")
        self.state.history_changed.connect(self._on_history_changed)
        self._listening = True
        self.undo_keys = UndoKeys(self)
        self._describe(self)
        self._update_title()
        # A user catalog file (gpus.toml, models.toml, ...) set aside while the catalogs
        # loaded: told once, like a reset settings file, so no card or preset vanishes unsaid.
        from gpuadvisor import catalog

        self._pending_catalog = catalog.set_aside_notices()
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
        self.rig_page.detection_finished.connect(self._on_detected)
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
        # The first-run hints sit over the pages, hidden until the rig is detected.
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        right.setSpacing(0)
        self.first_run_panel = FirstRunPanel(central)
        self.first_run_panel.demo_requested.connect(self._use_demo_rig)
        self.first_run_panel.probe_requested.connect(lambda: self.show_page("probe"))
        right.addWidget(self.first_run_panel)
        right.addWidget(self.stack, 1)
        layout.addLayout(right, 1)
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
            self._describe(page)
        return self._compare_page

    def load_measurements(self) -> None:
        """Give the plan state what the probe history measured on catalog cards, so time
        estimates for a measured card use its measured training step (or matmul) and
        bandwidth. A history problem is one line in the status bar, never an error."""
        from gpuadvisor.probes import history, observed

        warnings: list[str] = []
        try:
            found = [m for run in history.runs(warnings=warnings) if run.catalog_id
                     for m in run.measurements()]
        except OSError as exc:
            warnings.append(str(exc))
            found = []
        self.state.set_measurements(found, observed.load(warnings))
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

    def _describe(self, root: QWidget) -> None:
        """Tooltips and accessible names for the inputs under ``root``."""
        describe_inputs(root)

    # ================================================================== first run
    def _on_detected(self, result) -> None:
        if self._first_run:
            self._first_run = False  # once: a demo rig picked later is not a first run
            self.first_run_panel.show_for(result.gpus)

    def show_welcome(self) -> None:
        """Help → Welcome: the first-run hints for the rig now shown (detected first)."""
        if self.rig_page.result is None:
            self._first_run = True
            if not self.rig_page.busy:
                self.rig_page.refresh()
            return
        self.first_run_panel.show_for(self.rig_page.result.gpus)

    def _use_demo_rig(self) -> None:
        self.rig_page.set_demo_rig(FirstRunPanel.DEMO_RIG)
        self.show_page("rig")
        self.status_label.setText(self.tr(
            "Demo rig \"{name}\": pick another under Demo rig on the Rig page").format(
            name=FirstRunPanel.DEMO_RIG))

    # ================================================================== undo
    def undo(self) -> bool:
        """Edit → Undo: take back the plan's last change."""
        what = change_name(self.state.undo_what)
        if not self.state.undo():
            return False
        self.status_label.setText(self.tr("Undid: {what}").format(what=what))
        return True

    def redo(self) -> bool:
        """Edit → Redo: make the last undone change again."""
        what = change_name(self.state.redo_what)
        if not self.state.redo():
            return False
        self.status_label.setText(self.tr("Redid: {what}").format(what=what))
        return True

    # ================================================================== help
    def show_help(self) -> None:
        """Help → gpuadvisor Help (F1): the offline help, in the window's language."""
        from .help_window import HelpWindow

        if self._help is None:
            self._help = HelpWindow(self._language_in_effect, self)
        self._help.show()
        self._help.raise_()
        self._help.activateWindow()

    @property
    def help_window(self):
        """The help window, once opened (else None)."""
        return self._help

    # ================================================================== messages
    def report(self, kind: str, title: str, text: str) -> None:
        """Tell the user something: status bar always, a message box when interactive.

        Args:
            kind: "info", "warning" or "error".
            title: the box's title.
            text: what happened, in words.
        """
        self.last_message = (kind, title, text)
        # The status bar is one line: a longer text's first line, all of it on hover.
        first, _, rest = text.partition("\n")
        self.status_label.setText(f"{first} …" if rest else text)
        self.status_label.setToolTip(text if rest else "")
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
        warning, self._pending_warning = self._pending_warning, None
        notices, self._pending_catalog = self._pending_catalog, []
        if warning and notices:
            self.report("warning", self.tr("Some of your files were set aside"),
                        "\n\n".join([warning, *notices]))
        elif warning:
            self.report("warning", self.tr("Settings were reset"), warning)
        elif notices:
            self.report("warning", self.tr("Your catalog file was not used"),
                        "\n\n".join(notices))

    def show_about(self) -> None:
        """The About box: version, catalog date, the licences of bundled components."""
        from .about import AboutDialog, about_text

        if not self._interactive:
            self.report("info", self.tr("About gpuadvisor"), about_text())
            return
        dialog = AboutDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()  # window-modal, never blocking: exec() would run a nested event loop

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
        self._theme.apply(presentation=enabled)
        self.first_run_panel.set_presentation(enabled)
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

    @property
    def theme(self) -> str:
        """View → Theme: ``system``, ``light`` or ``dark``."""
        return self.settings.theme

    @property
    def colors(self):
        """The colours in use (:class:`gpuadvisor.gui.appearance.Colors`)."""
        return self._theme.colors

    def set_theme(self, theme: str) -> None:
        """Colours: follow the system (``system``), or always ``light`` or ``dark``."""
        self._theme.apply(theme)
        self.settings.theme = theme
        self.theme_actions[theme].setChecked(True)

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
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self._theme.system_palette_changed()
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
        if not self.maybe_save():
            event.ignore()  # the user cancelled, or the save failed: the window stays
            return
        # Stop the page's timer and the state's callbacks before Qt deletes the widgets.
        self._theme.close()
        self.undo_keys.close()
        if self._help is not None:
            self._help.close()
        self.plan_page.shutdown()
        self.rig_page.shutdown()
        self.probe_page.shutdown()
        if self._compare_page is not None:
            self._compare_page.shutdown()
        if self._listening:
            self._listening = False
            self.state.history_changed.disconnect(self._on_history_changed)
        if self._persist:
            self.save_settings()
        super().closeEvent(event)
