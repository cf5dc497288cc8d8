"""Light and dark: the palettes of View → Theme, and every colour of the window derived from
the palette in use.

``system`` follows the desktop (the palette Qt gives the application, dark when the system is
dark); ``light`` and ``dark`` are this module's own palettes. Nothing in the window hard-codes
a text or background colour: :func:`colors_for` derives them from the palette (notes are the
text colour mixed towards the background, warnings and errors pick a shade that reads on that
background), and the charts do the same (:func:`gpuadvisor.gui.charts.style.chart_theme`).

Readability is measured, not assumed: :func:`contrast_ratio` is WCAG 2.x's ratio of relative
luminances (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio), and the tests require 4.5:1
(WCAG's AA level for body text) for every text colour here on both palettes.

Imports QtGui only (no widgets, no pyqtgraph): the window styles itself before the charts load.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette

#: View → Theme choices (``Settings.theme``).
THEMES = ("system", "light", "dark")

#: WCAG 2.x AA contrast for normal text.
MIN_TEXT_CONTRAST = 4.5

_ROLES = QPalette.ColorRole

# The two palettes, role -> colour. The dark one keeps text at about 15:1 on the window and
# a selection colour that white text reads on (the Okabe-Ito blue, 5.1:1).
_LIGHT = {
    _ROLES.Window: "#EFEFEF", _ROLES.WindowText: "#000000", _ROLES.Base: "#FFFFFF",
    _ROLES.AlternateBase: "#F5F5F5", _ROLES.Text: "#000000", _ROLES.Button: "#EFEFEF",
    _ROLES.ButtonText: "#000000", _ROLES.BrightText: "#FFFFFF", _ROLES.Highlight: "#0072B2",
    _ROLES.HighlightedText: "#FFFFFF", _ROLES.ToolTipBase: "#FFFFDC",
    _ROLES.ToolTipText: "#000000", _ROLES.PlaceholderText: "#6E6E6E", _ROLES.Link: "#0057A0",
    _ROLES.LinkVisited: "#6A3D9A", _ROLES.Light: "#FFFFFF", _ROLES.Midlight: "#E3E3E3",
    _ROLES.Mid: "#A0A0A0", _ROLES.Dark: "#6E6E6E", _ROLES.Shadow: "#000000",
}
_DARK = {
    _ROLES.Window: "#202124", _ROLES.WindowText: "#E8E8E8", _ROLES.Base: "#17181A",
    _ROLES.AlternateBase: "#26272B", _ROLES.Text: "#E8E8E8", _ROLES.Button: "#2D2E32",
    _ROLES.ButtonText: "#E8E8E8", _ROLES.BrightText: "#FFFFFF", _ROLES.Highlight: "#0072B2",
    _ROLES.HighlightedText: "#FFFFFF", _ROLES.ToolTipBase: "#2D2E32",
    _ROLES.ToolTipText: "#F0F0F0", _ROLES.PlaceholderText: "#9A9A9A", _ROLES.Link: "#7CB8F0",
    _ROLES.LinkVisited: "#C39BE8", _ROLES.Light: "#3C3D42", _ROLES.Midlight: "#34353A",
    _ROLES.Mid: "#5A5B60", _ROLES.Dark: "#111214", _ROLES.Shadow: "#000000",
}
_DISABLED = {"light": "#8A8A8A", "dark": "#7C7C7C"}


def _palette(roles: dict, disabled: str) -> QPalette:
    palette = QPalette()
    for role, color in roles.items():
        palette.setColor(role, QColor(color))  # every group
    for role in (_ROLES.WindowText, _ROLES.Text, _ROLES.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return palette


def light_palette() -> QPalette:
    """The light palette of View → Theme → Light."""
    return _palette(_LIGHT, _DISABLED["light"])


def dark_palette() -> QPalette:
    """The dark palette of View → Theme → Dark."""
    return _palette(_DARK, _DISABLED["dark"])


def palette_for(theme: str, system: QPalette) -> QPalette:
    """The palette of a View → Theme choice; ``system`` is the desktop's own."""
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {', '.join(THEMES)}, got {theme!r}")
    if theme == "light":
        return light_palette()
    if theme == "dark":
        return dark_palette()
    return QPalette(system)


# ----------------------------------------------------------------------------- measuring
def relative_luminance(color: QColor | str) -> float:
    """WCAG 2.x relative luminance of an sRGB colour, 0 (black) to 1 (white).

    Each channel c in [0, 1] is linearised (c / 12.92 at or below 0.04045, else
    ((c + 0.055) / 1.055) ** 2.4), then L = 0.2126 R + 0.7152 G + 0.0722 B
    (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance).
    """
    c = QColor(color)

    def linear(channel: int) -> float:
        v = channel / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(c.red()) + 0.7152 * linear(c.green()) + 0.0722 * linear(c.blue())


def contrast_ratio(a: QColor | str, b: QColor | str) -> float:
    """WCAG 2.x contrast ratio (L1 + 0.05) / (L2 + 0.05), 1 to 21, L1 the lighter."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def is_dark(palette: QPalette) -> bool:
    """Whether ``palette`` is a dark one (its window darker than its text)."""
    return relative_luminance(palette.color(_ROLES.Window)) < relative_luminance(
        palette.color(_ROLES.WindowText))


def mix(a: QColor | str, b: QColor | str, t: float) -> str:
    """``a`` moved a share ``t`` (0..1) of the way towards ``b``, as ``#RRGGBB``."""
    ca, cb = QColor(a), QColor(b)
    channels = (round(x + (y - x) * t) for x, y in (
        (ca.red(), cb.red()), (ca.green(), cb.green()), (ca.blue(), cb.blue())))
    return "#{:02X}{:02X}{:02X}".format(*channels)


def readable(color: str, background: str, text: str, minimum: float = MIN_TEXT_CONTRAST) -> str:
    """``color`` moved towards ``text`` (the palette's text colour) in steps of 10 % until it
    reads on ``background`` at ``minimum`` contrast."""
    for step in range(11):
        candidate = mix(color, text, step / 10)
        if contrast_ratio(candidate, background) >= minimum:
            return candidate
    return text


# ----------------------------------------------------------------------------- the colours
#: Okabe & Ito's colours the window uses (the charts' full set is in charts/style.py).
_BLUE, _GREEN, _ORANGE, _VERMILLION = "#0072B2", "#009E73", "#E69F00", "#D55E00"


@dataclass(frozen=True)
class Colors:
    """The window's colours for one palette, as ``#RRGGBB`` (see :func:`colors_for`).

    Attributes:
        dark: whether the palette is dark.
        window, base, text: the palette's window, base (fields, charts) and text colours.
        note: secondary text (notes, sources), at least 4.5:1 on the window.
        warning, error, ok: coloured texts (a warning, a field's error, a good result).
        nav_bg, nav_text: the page list on the left.
        button_bg, hover_bg, pressed_bg, border: the lever buttons.
        answer_bg, answer_none_bg, busy_bg, busy_border: the Compare page's answer box.
        neutral_bg, neutral_text: the verdict banner when no GPU is chosen.
        notice_bg, notice_border: a hint box (first-run panel, "torch is missing").
        tile_border: the Rig page's GPU tiles.
    """

    dark: bool
    window: str
    base: str
    text: str
    note: str
    warning: str
    error: str
    ok: str
    nav_bg: str
    nav_text: str
    button_bg: str
    hover_bg: str
    pressed_bg: str
    border: str
    answer_bg: str
    answer_none_bg: str
    busy_bg: str
    busy_border: str
    neutral_bg: str
    neutral_text: str
    notice_bg: str
    notice_border: str
    tile_border: str


def colors_for(palette: QPalette, presentation: bool = False) -> Colors:
    """Every colour of the window's style sheet, derived from ``palette``.

    Secondary and coloured texts start from a hue (the light shades are the desktop's
    former fixed colours; the dark ones their lighter forms) and are moved towards the text
    colour until they reach 4.5:1 on the background they sit on (:func:`readable`).
    """
    dark = is_dark(palette)
    window = palette.color(_ROLES.Window).name().upper()
    base = palette.color(_ROLES.Base).name().upper()
    text = palette.color(_ROLES.WindowText).name().upper()
    note = readable(mix(text, window, 0.2 if presentation else 0.33), window, text)
    shades = ({"warning": "#F2B867", "error": "#FF8A80", "ok": "#5BD6A4"} if dark
              else {"warning": "#8A4B00", "error": "#B3261E", "ok": "#00664A"})
    # Coloured texts sit on the window and on the base (fields, panels): readable on both.
    worst = min((window, base), key=lambda bg: contrast_ratio(shades["ok"], bg))
    coloured = {name: readable(shade, worst, text) for name, shade in shades.items()}
    return Colors(
        dark=dark,
        window=window,
        base=base,
        text=text,
        note=note,
        nav_bg=base if presentation else mix(window, text, 0.06),
        nav_text=text,
        button_bg=base if presentation else mix(base, window, 0.5),
        hover_bg=mix(base, _BLUE, 0.25 if dark else 0.12),
        pressed_bg=mix(base, _BLUE, 0.4 if dark else 0.22),
        border=text if presentation else mix(window, text, 0.4),
        answer_bg=mix(base, _GREEN, 0.18 if dark else 0.09),
        answer_none_bg=mix(base, _VERMILLION, 0.2 if dark else 0.12),
        busy_bg=mix(base, text, 0.05),
        busy_border=mix(base, text, 0.3),
        neutral_bg=mix(window, text, 0.15),
        neutral_text=text,
        notice_bg=mix(base, _ORANGE, 0.2 if dark else 0.15),
        notice_border=_ORANGE,
        tile_border=mix(window, text, 0.3),
        **coloured,
    )


__all__ = ["MIN_TEXT_CONTRAST", "THEMES", "Colors", "colors_for", "contrast_ratio",
           "dark_palette", "is_dark", "light_palette", "mix", "palette_for", "readable",
           "relative_luminance"]
