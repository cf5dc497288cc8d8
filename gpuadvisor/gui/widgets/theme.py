"""The window's style sheets: the desktop look and the high-contrast presentation look, in
the colours of the palette in use (light or dark, :mod:`gpuadvisor.gui.appearance`).

Meaningful colours come from the charts' Okabe–Ito palette (``gui/charts/style.py``) so the
verdict banner, the lever buttons and the charts agree, and stay distinguishable with
colour-vision deficiencies. Every colour that carries meaning is paired with words on screen.
Texts and backgrounds are derived from the palette (never fixed), so a dark desktop gets
light text on dark panels.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import shutil
import tempfile
from pathlib import Path

from gpuadvisor.gui.appearance import Colors, colors_for, contrast_ratio, light_palette, mix

#: The charts' colours (``gui/charts/style.py``), repeated here so that styling the window
#: does not import pyqtgraph before the first paint; a test keeps the two in step.
OKABE_ITO = {"yellow": "#F0E442", "blue": "#0072B2"}
CATEGORY_COLORS = {0: "#009E73", 1: "#E69F00", 2: "#D55E00", 3: "#D0D0D0"}
CATEGORY_TEXT_COLORS = {0: "#FFFFFF", 1: "#000000", 2: "#FFFFFF", 3: "#000000"}

_FITS, _TIGHT, _NOFIT, _NONE = 0, 1, 2, 3

_COMMON = """
QLabel#fieldError {{ color: {error}; font-weight: bold; }}
QLabel[role="note"] {{ color: {note}; }}
QLabel[role="source"] {{ color: {note}; font-style: italic; }}
QLabel[role="warning"] {{ color: {warning}; }}
QLabel[role="subheading"] {{ font-weight: bold; margin-top: 4px; }}
QLabel[role="chartTitle"] {{ font-weight: bold; color: {text}; }}
QLabel[role="headline"] {{ font-weight: bold; font-size: {headline}pt; }}
QLabel[role="pageTitle"] {{ font-size: {page_title}pt; font-weight: bold; }}
QLabel[role="badge"] {{ background: {yellow}; color: #000000; padding: 2px 10px;
    border-radius: 3px; font-weight: bold; }}
QLabel[role="fieldName"] {{ color: {note}; }}
QLabel[role="lostBadge"] {{ background: #D55E00; color: #FFFFFF; padding: 1px 8px;
    border-radius: 3px; font-weight: bold; }}
QLabel[severity="error"] {{ color: {error}; font-weight: bold; }}
QLabel[severity="warning"] {{ color: {warning}; }}
QLabel[severity="ok"] {{ color: {ok}; font-weight: bold; }}
QLabel#torchMissing {{ background: {notice_bg}; border: 1px solid {notice_border};
    border-radius: 4px; padding: 8px; color: {text}; }}
QFrame#firstRunPanel {{ background: {notice_bg}; border: 1px solid {notice_border};
    border-radius: 4px; }}
QFrame#firstRunPanel QLabel {{ color: {text}; background: transparent; }}
QFrame#gpuTile {{ border: 1px solid {tile_border}; border-radius: 4px; }}
QLabel#verdictBanner {{ font-size: {banner}pt; font-weight: bold; padding: {pad}px 12px;
    border-radius: 4px; }}
QLabel#verdictBanner[verdict="fits"] {{ background: {fits_bg}; color: {fits_fg}; }}
QLabel#verdictBanner[verdict="tight"] {{ background: {tight_bg}; color: {tight_fg}; }}
QLabel#verdictBanner[verdict="nofit"] {{ background: {nofit_bg}; color: {nofit_fg}; }}
QLabel#verdictBanner[verdict="none"] {{ background: {neutral_bg}; color: {neutral_text}; }}
QLabel#hostRam[verdict="fits"] {{ color: {note}; }}
QLabel#hostRam[verdict="short"] {{ color: {error}; font-weight: bold; }}
QPushButton#leverButton {{ text-align: left; padding: {pad}px 10px; color: {text};
    background: {button_bg}; border: {border_px}px solid {border}; border-radius: 3px; }}
QPushButton#leverButton:hover {{ background: {hover_bg}; }}
QPushButton#leverButton:pressed {{ background: {pressed_bg}; }}
QPushButton#leverButton[fits="true"] {{ border-left: {stripe}px solid {fits_bg}; }}
QPushButton#leverButton[fits="false"] {{ border-left: {stripe}px solid {nofit_bg}; }}
QLabel#compareAnswer {{ font-size: {answer}pt; padding: {pad}px 12px; border-radius: 4px;
    color: {text}; background: {answer_bg}; border: {border_px}px solid {fits_bg}; }}
QLabel#compareAnswer[state="none"] {{ background: {answer_none_bg}; border-color: {nofit_bg}; }}
QLabel#compareAnswer[state="busy"] {{ background: {busy_bg}; border-color: {busy_border}; }}
QToolButton#exportButton {{ padding: 3px 18px 3px 8px; }}
QToolButton#exportButton::menu-indicator {{ subcontrol-position: right center;
    subcontrol-origin: padding; right: 4px; }}
QListWidget#navigation {{ font-size: {nav}pt; border: none; background: {nav_bg}; }}
QListWidget#navigation::item {{ padding: {nav_pad}px 12px; color: {nav_text}; }}
QListWidget#navigation::item:selected {{ background: {blue}; color: #FFFFFF; }}
"""

_PRESENTATION_EXTRA = """
QWidget {{ font-size: 14pt; }}
QWidget#planInputsBody, QWidget#planInputsBody QWidget {{ font-size: 14pt; }}
QWidget#planInputsBody QGroupBox {{ font-size: 15pt; }}
QMenuBar, QMenu, QStatusBar, QStatusBar QLabel {{ font-size: 14pt; }}
QMainWindow, QScrollArea, QWidget#planInputsBody, QWidget#comparePage {{ background: {base}; }}
QLabel, QCheckBox, QGroupBox, QRadioButton {{ color: {text}; }}
QGroupBox {{ font-weight: bold; background: {base}; }}
QPushButton#leverButton {{ font-size: 15pt; }}
QLabel[role="chartTitle"] {{ font-size: 15pt; }}
QFrame#gpuTile QLabel {{ font-size: 11pt; }}
QFrame#gpuTile QLabel[role="subheading"] {{ font-size: 15pt; }}
"""


#: Dark theme only (a light one is drawn well by the desktop's style): Fusion draws a check
#: box's and a radio button's frame a shade darker than the window, a black square on the
#: dark window with no edge to see. The indicators get a frame that reads on the window
#: (3:1, WCAG's contrast for the parts of a control), their marks drawn as images (a styled
#: indicator draws none of its own), and a disabled button's text is a step lighter than the
#: palette's (it read at 3.2:1 on the button, faint for a label that is still to be read).
_DARK_EXTRA = """
QCheckBox::indicator, QRadioButton::indicator {{ width: 12px; height: 12px;
    border: 1px solid {check_border}; background: {base}; }}
QCheckBox::indicator {{ border-radius: 2px; }}
QRadioButton::indicator {{ border-radius: 7px; }}
QCheckBox::indicator:hover, QRadioButton::indicator:hover {{ border-color: {text}; }}
QCheckBox::indicator:checked {{ image: url("{check_image}"); }}
QCheckBox::indicator:indeterminate {{ image: url("{partial_image}"); }}
QRadioButton::indicator:checked {{ background: qradialgradient(cx: 0.5, cy: 0.5,
    radius: 0.5, fx: 0.5, fy: 0.5, stop: 0 {text}, stop: 0.45 {text},
    stop: 0.55 {base}, stop: 1 {base}); }}
QCheckBox::indicator:disabled, QRadioButton::indicator:disabled {{
    border-color: {check_border_disabled}; background: {window}; }}
QCheckBox::indicator:checked:disabled {{ image: url("{check_disabled_image}"); }}
QCheckBox::indicator:indeterminate:disabled {{ image: url("{partial_disabled_image}"); }}
QPushButton:disabled, QToolButton:disabled, QComboBox:disabled {{ color: {disabled_text}; }}
"""

#: The marks of a dark theme's check boxes (12 x 12, the indicator's inside): a tick, and
#: the bar of a partly checked box.
_CHECK_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="12" height="12" '
              'viewBox="0 0 12 12"><path d="M2.5 6.2 L5 8.7 L9.6 3.3" fill="none" '
              'stroke="{color}" stroke-width="1.8" stroke-linecap="round" '
              'stroke-linejoin="round"/></svg>')
_PARTIAL_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="12" height="12" '
                'viewBox="0 0 12 12"><rect x="2.5" y="5" width="7" height="2" '
                'fill="{color}"/></svg>')


def dark_control_colors(c: Colors) -> dict[str, str]:
    """The dark theme's colours of check-box and radio-button frames and of disabled
    buttons' text, from the window's colours: a frame at 3:1 or more on the window, a
    disabled label at 4.5:1 or more on a button (a shade lighter than the window)."""
    button = mix(c.window, c.text, 0.07)  # the dark palette's button, near enough
    disabled = mix(c.window, c.text, 0.6)
    while contrast_ratio(disabled, button) < 4.5 and disabled != c.text:
        disabled = mix(disabled, c.text, 0.1)
    return {
        "check_border": mix(c.window, c.text, 0.5),
        "check_border_disabled": mix(c.window, c.text, 0.3),
        "disabled_text": disabled,
        "check_mark_disabled": mix(c.window, c.text, 0.45),
    }


@functools.cache
def _image_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="gpuadvisor-theme-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@functools.cache
def indicator_image(kind: str, color: str) -> str:
    """The path of a check box's mark (``check`` or ``partial``) in ``color``, written once
    per process into a folder of its own (a style sheet's image is a file), with ``/``."""
    svg = (_CHECK_SVG if kind == "check" else _PARTIAL_SVG).format(color=color)
    name = f"{kind}-{hashlib.sha1(svg.encode()).hexdigest()[:10]}.svg"
    path = _image_folder() / name
    if not path.exists():
        path.write_text(svg, encoding="utf-8")
    return path.as_posix()


def presentation_palette(base):
    """``base`` (a QPalette) made high-contrast: black text on white, dark blue selection.

    A projector washes out dark greys, so presentation mode is black on white whatever the
    theme."""
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette(base)
    roles = QPalette.ColorRole
    for role, color in (
        (roles.Window, "#FFFFFF"), (roles.WindowText, "#000000"), (roles.Base, "#FFFFFF"),
        (roles.AlternateBase, "#F2F2F2"), (roles.Text, "#000000"), (roles.Button, "#F2F2F2"),
        (roles.ButtonText, "#000000"), (roles.Highlight, "#004C80"),
        (roles.HighlightedText, "#FFFFFF"), (roles.ToolTipBase, "#FFFFFF"),
        (roles.ToolTipText, "#000000"), (roles.PlaceholderText, "#505050"),
        (roles.Mid, "#000000"), (roles.Dark, "#000000"), (roles.Shadow, "#000000"),
        (roles.Light, "#FFFFFF"), (roles.Midlight, "#F2F2F2"), (roles.Link, "#004C80"),
    ):
        # Every group: a disabled button or combo box kept the dark theme's grey fill
        # (dark grey text on charcoal) on the white page.
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive,
                      QPalette.ColorGroup.Disabled):
            palette.setColor(group, role, QColor(color))
    palette.setColor(QPalette.ColorGroup.Disabled, roles.Text, QColor("#6B6B6B"))
    palette.setColor(QPalette.ColorGroup.Disabled, roles.WindowText, QColor("#6B6B6B"))
    palette.setColor(QPalette.ColorGroup.Disabled, roles.ButtonText, QColor("#6B6B6B"))
    palette.setColor(QPalette.ColorGroup.Disabled, roles.Window, QColor("#FFFFFF"))
    palette.setColor(QPalette.ColorGroup.Disabled, roles.Base, QColor("#F2F2F2"))
    return palette


def style_sheet(presentation: bool = False, colors: Colors | None = None) -> str:
    """The window's style sheet for the desktop (False) or a projector (True), in
    ``colors`` (default: those of the light palette)."""
    c = colors if colors is not None else colors_for(light_palette(), presentation)
    values = {
        **{name: getattr(c, name) for name in Colors.__dataclass_fields__ if name != "dark"},
        "headline": 24 if presentation else 13,
        "page_title": 24 if presentation else 20,
        "banner": 22 if presentation else 12,
        "answer": 17 if presentation else 11,
        "pad": 8 if presentation else 5,
        "yellow": OKABE_ITO["yellow"],
        "blue": OKABE_ITO["blue"],
        "fits_bg": CATEGORY_COLORS[_FITS],
        "fits_fg": CATEGORY_TEXT_COLORS[_FITS],
        "tight_bg": CATEGORY_COLORS[_TIGHT],
        "tight_fg": CATEGORY_TEXT_COLORS[_TIGHT],
        "nofit_bg": CATEGORY_COLORS[_NOFIT],
        "nofit_fg": CATEGORY_TEXT_COLORS[_NOFIT],
        "border_px": 2 if presentation else 1,
        "stripe": 8 if presentation else 5,
        "nav": 18 if presentation else 11,
        "nav_pad": 14 if presentation else 9,
    }
    sheet = _COMMON.format(**values)
    if presentation:
        sheet += _PRESENTATION_EXTRA.format(**values)
    elif c.dark:
        controls = dark_control_colors(c)
        sheet += _DARK_EXTRA.format(
            **values, **controls,
            check_image=indicator_image("check", c.text),
            partial_image=indicator_image("partial", c.text),
            check_disabled_image=indicator_image("check", controls["check_mark_disabled"]),
            partial_disabled_image=indicator_image("partial", controls["check_mark_disabled"]))
    return sheet
