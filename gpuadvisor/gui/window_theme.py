"""The window's colours: the palette of View → Theme (system, light, dark), presentation
mode's high-contrast palette over it, and the style sheet derived from what is in use.

When the window owns the application (the app itself, a screenshot run), the theme's palette
is the application's, so menus, combo-box lists, tooltips and dialogs follow it too; in tests
the palette is the window's own, and nothing outlives the window. With ``system`` the colours
follow the desktop: a change of its colour scheme repaints the window.
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
        before): palette, then the style sheet in its colours."""
        if theme is not None:
            palette_for(theme, QPalette())  # refuses an unknown theme before anything changes
            self.theme = theme
        if presentation is not None:
            self.presentation = bool(presentation)
        app = QApplication.instance()
        forced = None if self.theme == "system" else palette_for(self.theme, QPalette())
        if self._own_app and app is not None:
            self._use_style_for(app, forced is not None)
            app.setPalette(forced if forced is not None else QPalette())
            forced = None  # the window inherits the application's
        base = forced if forced is not None else QGuiApplication.palette()
        if self.presentation:
            self._window.setPalette(presentation_palette(base))
        else:
            self._window.setPalette(forced if forced is not None else QPalette())
        self._restyle(presentation_palette(base) if self.presentation else base)

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
            # The desktop went light or dark: Qt gives the application its new palette.
            self.apply()

    def system_palette_changed(self) -> None:
        """The application's palette changed (the desktop's colours): restyle."""
        if self.theme == "system":
            base = QGuiApplication.palette()
            self._restyle(presentation_palette(base) if self.presentation else base)

    def close(self) -> None:
        """Stop following the desktop; give the application its own palette back."""
        if self._listening:
            self._listening = False
            hints = QGuiApplication.styleHints()
            if hints is not None:
                hints.colorSchemeChanged.disconnect(self._on_scheme_changed)


__all__ = ["WindowTheme"]
