"""The main window's menus: File (plans, PNG export, Markdown summary, quit), Edit (undo,
redo), View (presentation mode, theme, units, language, pages) and Help (help, welcome,
about).

Every action is added to the window too, so its shortcut works in full screen, where the
menu bar hides. The actions call the window's methods; the texts are translated in the
window's context ("MainWindow").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from .actions import add_action
from .edit_menu import build_edit_menu
from .i18n import LANGUAGES

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


def build_menus(window, pages: Sequence[str]) -> None:
    """Fill ``window``'s menu bar. The actions become the window's attributes:
    ``open_action``, ``save_action``, ``save_as_action``, ``recent_menu``, ``export_action``,
    ``copy_action``, ``quit_action``, ``undo_action``, ``redo_action``,
    ``presentation_action``, ``theme_actions`` (theme -> action), ``units_actions`` (units ->
    action), ``language_menu``, ``language_actions`` (language -> action), ``page_actions``
    (page name -> action, Ctrl+1.. in the order of ``pages``), ``help_action`` (F1),
    ``welcome_action`` and ``about_action``."""
    bar = window.menuBar()
    file_menu = bar.addMenu(translate("MainWindow", "&File"))
    window.open_action = add_action(window, translate("MainWindow", "&Open plan…"),
                                    window.open_plan_dialog, QKeySequence.StandardKey.Open)
    window.save_action = add_action(window, translate("MainWindow", "&Save plan…"),
                                    window.save_plan, QKeySequence.StandardKey.Save)
    window.save_as_action = add_action(window, translate("MainWindow", "Save plan &as…"),
                                       window.save_plan_as, QKeySequence.StandardKey.SaveAs)
    file_menu.addAction(window.open_action)
    window.recent_menu = file_menu.addMenu(translate("MainWindow", "Recent plans"))
    file_menu.addAction(window.save_action)
    file_menu.addAction(window.save_as_action)
    file_menu.addSeparator()
    window.export_action = add_action(window, translate("MainWindow", "&Export page as PNG…"),
                                      window.export_png_dialog, QKeySequence("Ctrl+E"))
    window.copy_action = add_action(window, translate("MainWindow",
                                                      "&Copy summary as Markdown"),
                                    window.copy_summary, QKeySequence("Ctrl+Shift+C"))
    file_menu.addAction(window.export_action)
    file_menu.addAction(window.copy_action)
    file_menu.addSeparator()
    window.quit_action = add_action(window, translate("MainWindow", "&Quit"), window.close,
                                    QKeySequence.StandardKey.Quit)
    window.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    file_menu.addAction(window.quit_action)

    build_edit_menu(window, bar.addMenu(translate("MainWindow", "&Edit")))
    _build_view_menu(window, bar.addMenu(translate("MainWindow", "&View")), pages)

    help_menu = bar.addMenu(translate("MainWindow", "&Help"))
    window.help_action = add_action(window, translate("MainWindow", "gpuadvisor &Help"),
                                    window.show_help, QKeySequence.StandardKey.HelpContents)
    help_menu.addAction(window.help_action)
    window.welcome_action = add_action(window, translate("MainWindow", "&Welcome"),
                                       window.show_welcome)
    window.welcome_action.setToolTip(translate(
        "MainWindow", "Show the first-run hints again: a demo rig, or measuring this GPU"))
    help_menu.addAction(window.welcome_action)
    help_menu.addSeparator()
    window.about_action = add_action(window, translate("MainWindow", "&About gpuadvisor"),
                                     window.show_about)
    window.about_action.setMenuRole(QAction.MenuRole.AboutRole)
    help_menu.addAction(window.about_action)


def _build_view_menu(window, view_menu: QMenu, pages: Sequence[str]) -> None:
    window.presentation_action = add_action(
        window, translate("MainWindow", "&Presentation mode"),
        lambda on: window.set_presentation(on), QKeySequence("F11"), checkable=True)
    window.presentation_action.setToolTip(translate(
        "MainWindow",
        "Full screen, large fonts, thick chart lines, high contrast: for projectors"))
    view_menu.addAction(window.presentation_action)
    theme_menu = view_menu.addMenu(translate("MainWindow", "&Theme"))
    theme_menu.setToolTip(translate("MainWindow", "Colours of the window and the charts: "
                                    "follow the system, or always light or dark"))
    group = QActionGroup(window)
    group.setExclusive(True)
    window.theme_actions = {}
    for theme, text in (("system", translate("MainWindow", "Follow the &system")),
                        ("light", translate("MainWindow", "&Light")),
                        ("dark", translate("MainWindow", "&Dark"))):
        action = add_action(window, text, lambda _on=False, t=theme: window.set_theme(t),
                            checkable=True)
        group.addAction(action)
        theme_menu.addAction(action)
        window.theme_actions[theme] = action
    window.theme_actions[window.settings.theme].setChecked(True)
    units_menu = view_menu.addMenu(translate("MainWindow", "&Units"))
    group = QActionGroup(window)
    group.setExclusive(True)
    window.units_actions = {}
    for units, text in (("GiB", translate("MainWindow", "GiB (binary, 1024³ bytes)")),
                        ("GB", translate("MainWindow", "GB (decimal, 1000³ bytes)"))):
        action = add_action(window, text, lambda _on=False, u=units: window.set_units(u),
                            checkable=True)
        group.addAction(action)
        units_menu.addAction(action)
        window.units_actions[units] = action
    window.language_menu = view_menu.addMenu(translate("MainWindow", "&Language"))
    group = QActionGroup(window)
    group.setExclusive(True)
    window.language_actions = {}
    # Each language by its own name, so whoever reads it can find theirs.
    for language, text in (("system", translate("MainWindow", "System")),
                           *LANGUAGES.items()):
        action = add_action(window, text,
                            lambda _on=False, lang=language: window.set_language(lang),
                            checkable=True)
        group.addAction(action)
        window.language_menu.addAction(action)
        window.language_actions[language] = action
    window.language_actions[window.settings.language].setChecked(True)
    view_menu.addSeparator()
    window.page_actions = {}
    for index, name in enumerate(pages):
        action = add_action(window, window.nav.item(index).text(),
                            lambda _on=False, n=name: window.show_page(n),
                            QKeySequence(f"Ctrl+{index + 1}"))
        view_menu.addAction(action)
        window.page_actions[name] = action


def fill_recent_menu(menu: QMenu, paths: Sequence[str], open_recent: Callable[[str], None],
                     clear: Callable[[], None]) -> None:
    """The recent plans, newest first, and "Clear list" (or "No recent plans")."""
    menu.clear()
    for path in paths:
        action = menu.addAction(path)
        action.triggered.connect(lambda _c=False, p=path: open_recent(p))
    if not paths:
        empty = menu.addAction(translate("MainWindow", "No recent plans"))
        empty.setEnabled(False)
    else:
        menu.addSeparator()
        menu.addAction(translate("MainWindow", "Clear list"), clear)


__all__ = ["add_action", "build_menus", "fill_recent_menu"]
