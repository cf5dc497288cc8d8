"""The window's colours: the palette of View → Theme (system, light, dark), presentation
mode's high-contrast palette over it, and the style sheet derived from what is in use.

The palette is the application's, so menus, combo-box lists, tooltips, dialogs and widgets
the style sheet styles all follow it (a palette set on the window alone would not reach
them: Qt's style-sheet style gives styled widgets palettes of their own). A window that does
not own the application (a test) gives the application its own palette back when it closes.
With ``system`` the colours follow the desktop: a change of its colour scheme restyles.
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from .appearance import Colors, colors_for, palette_for
from .widgets.theme import presentation_palette, style_sheet

#: Qt styles that draw with the system's own colours and ignore an application palette
#: (Windows' classic native style): a forced light or dark theme uses Fusion instead.
_PALETTE_BLIND_STYLES = frozenset({"windowsvista"})


class WindowTheme:
    """Applies a theme to one window (see the module)."""

    def __init__(self, window: QWidget, *, own_app: bool = False) -> None:
        self._window = window
        self._own_app = own_app
        self._style_name: str | None = None  # the style replaced by Fusion, to restore
        self._set_app_palette = False
        self.theme = "system"
        self.presentation = False
        self.colors: Colors | None = None
        self._sheet_key = None
        self._listening = False
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._on_scheme_changed)
            self._listening = True

    def apply(self, theme: str | None = None, presentation: bool | None = None) -> None:
        """Use ``theme`` (``system``, ``light``, ``dark``) and presentation mode (None: as
        before): the application's palette, then the style sheet in its colours."""
        if theme is not None:
            palette_for(theme, QPalette())  # refuses an unknown theme before anything changes
            self.theme = theme
        if presentation is not None:
            self.presentation = bool(presentation)
        app = QApplication.instance()
        if app is None:
            return
        scheme = None if self.theme == "system" else palette_for(self.theme, QPalette())
        if self._own_app:
            self._use_style_for(app, scheme is not None)
        if scheme is None and self._set_app_palette:
            app.setPalette(QPalette())  # the desktop's own again
            self._set_app_palette = False
        target = presentation_palette(scheme or app.palette()) if self.presentation else scheme
        if target is not None:
            app.setPalette(target)
            self._set_app_palette = True
        self._window.setPalette(QPalette())  # nothing of its own: the application's
        self._restyle(target if target is not None else app.palette())

    def _restyle(self, palette: QPalette) -> None:
        colors = colors_for(palette, self.presentation)
        key = (colors, self.presentation)
        if key == self._sheet_key:
            return
        self._sheet_key = key
        self.colors = colors
        self._window.setStyleSheet(style_sheet(self.presentation, colors))

    def _use_style_for(self, app, forced: bool) -> None:
        name = app.style().name().lower()
        if forced and name in _PALETTE_BLIND_STYLES:
            self._style_name = name
            app.setStyle("Fusion")
        elif not forced and self._style_name is not None:
            app.setStyle(self._style_name)
            self._style_name = None

    def _on_scheme_changed(self, _scheme=None) -> None:
        if self.theme == "system":
            # The desktop went light or dark: Qt gives the application its new palette
            # (presentation mode's palette is made over the new one).
            self.apply()

    def system_palette_changed(self) -> None:
        """The application's palette changed (the desktop's colours, or ours): restyle."""
        self._restyle(QGuiApplication.palette())

    def close(self) -> None:
        """Stop following the desktop; a window that does not own the application gives it
        its own palette back."""
        if self._listening:
            self._listening = False
            hints = QGuiApplication.styleHints()
            if hints is not None:
                hints.colorSchemeChanged.disconnect(self._on_scheme_changed)
        app = QApplication.instance()
        if self._set_app_palette and not self._own_app and app is not None:
            app.setPalette(QPalette())
            self._set_app_palette = False


__all__ = ["WindowTheme"]
