"""Colours, fonts and line widths shared by every chart, defined once.

The palette is Okabe & Ito's eight colours ("Color Universal Design", 2008,
https://jfly.uni-koeln.de/color/), chosen so that people with the common forms of colour-vision
deficiency can still tell every pair apart. Each memory term has one colour here, so the VRAM
bar, the legend and any other view of a breakdown always agree.

Two themes: :data:`NORMAL` for the desktop and :data:`PRESENTATION` for a projector (16 pt text,
3–4 px lines, black on white). Their colours follow the palette in use (:func:`chart_theme`):
a dark palette gives light text and lines on a dark plot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QFont, QPalette

from gpuadvisor.core.memory import TERMS
from gpuadvisor.core.units import GB, GiB
from gpuadvisor.gui.appearance import is_dark, mix, readable

#: Okabe–Ito colour-blind-safe palette (plus its usual neutral grey).
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#999999",
}

#: One colour per memory term (keys are :data:`gpuadvisor.core.memory.TERMS`). Neighbours in
#: the stacking order never share a hue family, so adjacent segments stay distinguishable.
TERM_COLORS = {
    "weights": OKABE_ITO["blue"],
    "gradients": OKABE_ITO["orange"],
    "optimizer": OKABE_ITO["reddish_purple"],
    "activations": OKABE_ITO["bluish_green"],
    "logits": OKABE_ITO["vermillion"],
    "kv_cache": OKABE_ITO["sky_blue"],
    "overhead": OKABE_ITO["grey"],
}
assert tuple(TERM_COLORS) == TERMS, "one colour per memory term, in core's order"

#: Fit categories used by the fit map and the verdict badge.
FITS, TIGHT, DOES_NOT_FIT, UNKNOWN = 0, 1, 2, 3

#: Fill colour per fit category: green / amber / red in their colour-blind-safe forms (the
#: three also differ in lightness, so they survive greyscale printing), grey when no GPU.
CATEGORY_COLORS = {
    FITS: OKABE_ITO["bluish_green"],
    TIGHT: OKABE_ITO["orange"],
    DOES_NOT_FIT: OKABE_ITO["vermillion"],
    UNKNOWN: "#D0D0D0",
}
#: Text colour that stays readable on each category's fill (large bold text, ≥ 3:1).
CATEGORY_TEXT_COLORS = {FITS: "#FFFFFF", TIGHT: "#000000", DOES_NOT_FIT: "#FFFFFF",
                        UNKNOWN: "#000000"}

#: The core's verdict strings (``Estimate.verdict``) mapped to categories.
VERDICT_CATEGORY = {"fits": FITS, "tight": TIGHT, "does not fit": DOES_NOT_FIT}

#: Colour of the plotted quantity in line charts.
CURVE_COLOR = OKABE_ITO["blue"]

#: Bytes per display unit. Memory of GPUs is marketed in "GB" that are really GiB; the user
#: picks which unit the axes use.
UNIT_BYTES = {"GiB": float(GiB), "GB": float(GB)}


def check_units(units: str) -> str:
    """Return ``units`` if it is a known byte unit for axes, else raise ``ValueError``."""
    if units not in UNIT_BYTES:
        raise ValueError(f"units must be one of {sorted(UNIT_BYTES)}, got {units!r}")
    return units


def term_labels() -> dict[str, str]:
    """Human labels of the seven memory terms, translated at call time.

    The literal ``translate`` calls let ``pyside6-lupdate`` find the strings.
    """
    return {
        "weights": QCoreApplication.translate("MemoryTerms", "weights"),
        "gradients": QCoreApplication.translate("MemoryTerms", "gradients"),
        "optimizer": QCoreApplication.translate("MemoryTerms", "optimizer states"),
        "activations": QCoreApplication.translate("MemoryTerms", "activations"),
        "logits": QCoreApplication.translate("MemoryTerms", "logits / loss"),
        "kv_cache": QCoreApplication.translate("MemoryTerms", "KV cache"),
        "overhead": QCoreApplication.translate("MemoryTerms", "overhead"),
    }


def verdict_labels() -> dict[int, str]:
    """Human labels of the fit categories, translated at call time."""
    return {
        FITS: QCoreApplication.translate("FitCategories", "fits"),
        TIGHT: QCoreApplication.translate("FitCategories", "tight"),
        DOES_NOT_FIT: QCoreApplication.translate("FitCategories", "does not fit"),
        UNKNOWN: QCoreApplication.translate("FitCategories", "no GPU chosen"),
    }


@dataclass(frozen=True)
class ChartTheme:
    """Sizes and colours of one look (normal or presentation).

    Attributes:
        background: plot background colour.
        foreground: axes, tick labels and ordinary text.
        tick_pt, label_pt, legend_pt, hover_pt, annotation_pt: font sizes in points.
        verdict_pt: font size of the big verdict badge.
        line_px: width of data lines (curves).
        capacity_px: width of the target GPU's capacity / out-of-memory line.
        reference_px: width of the dashed reference lines (common card sizes).
        reference_color: colour of reference lines and their labels.
        outline_px: width of bar and cell outlines.
        marker_size: diameter of point markers in pixels.
        curve: colour of the plotted quantity (the Okabe-Ito blue; sky blue on dark).
        good_text, bad_text: "fits" and "does not fit" as text on the plot (>= 4.5:1).
        label_fill: (r, g, b, a) behind labels drawn over data.
        peak_fill, peak_line: the light bar of a catalog peak behind a measured one.
        mark: markers that carry no category (your own rig in the Compare chart).
        buy_new: the "buy new" markers of the Compare chart: the Okabe-Ito blue, moved
            towards the text colour until it stands out at 4.5:1 (the blue itself is 2.7 to
            3.6:1 on dark plots, where small markers vanished).
    """

    background: str
    foreground: str
    tick_pt: int
    label_pt: int
    legend_pt: int
    hover_pt: int
    annotation_pt: int
    verdict_pt: int
    line_px: float
    capacity_px: float
    reference_px: float
    reference_color: str
    outline_px: float
    marker_size: int
    curve: str = "#0072B2"
    good_text: str = "#00664A"
    bad_text: str = "#A04000"
    label_fill: tuple[int, int, int, int] = (255, 255, 255, 225)
    peak_fill: str = "#E4E4E4"
    peak_line: str = "#7A7A7A"
    mark: str = "#000000"
    buy_new: str = "#0072B2"

    def font(self, points: int, *, bold: bool = False) -> QFont:
        """A font of ``points`` size (bold optional) in the application's family."""
        font = QFont()
        font.setPointSize(points)
        font.setBold(bold)
        return font

    def color(self, name: str) -> QColor:
        """``name`` (a hex string or a theme attribute name) as a QColor."""
        return QColor(getattr(self, name, name))


NORMAL = ChartTheme(
    background="#FFFFFF",
    foreground="#222222",
    tick_pt=9,
    label_pt=10,
    legend_pt=9,
    hover_pt=9,
    annotation_pt=9,
    verdict_pt=14,
    line_px=2.0,
    capacity_px=2.0,
    reference_px=1.0,
    reference_color="#8A8A8A",
    outline_px=1.0,
    marker_size=8,
)

PRESENTATION = ChartTheme(
    background="#FFFFFF",
    foreground="#000000",
    tick_pt=16,
    label_pt=16,
    legend_pt=16,
    hover_pt=16,
    annotation_pt=16,
    verdict_pt=24,
    line_px=4.0,
    capacity_px=4.0,
    reference_px=2.0,
    reference_color="#555555",
    outline_px=2.0,
    marker_size=16,
)


def chart_theme(palette: QPalette, presentation: bool = False) -> ChartTheme:
    """:data:`NORMAL` or :data:`PRESENTATION` in the colours of ``palette``.

    The plot is the palette's base colour; text and axes are its text colour (softened by
    34/255 of the way towards the plot on the desktop: #222222 on white); reference
    lines sit about halfway.
    Coloured texts start from the light theme's shades and are moved towards the text colour
    until they read at 4.5:1 on the plot (``appearance.readable``).
    """
    base = PRESENTATION if presentation else NORMAL
    background = palette.color(QPalette.ColorRole.Base).name().upper()
    text = palette.color(QPalette.ColorRole.Text).name().upper()
    dark = is_dark(palette)
    foreground = text if presentation else mix(text, background, 34 / 255)
    fill = QColor(background)
    return replace(
        base,
        background=background,
        foreground=foreground,
        reference_color=readable(mix(foreground, background, 0.4 if presentation else 0.45),
                                 background, foreground, 3.0),
        curve=OKABE_ITO["sky_blue"] if dark else OKABE_ITO["blue"],
        good_text=readable("#5BD6A4" if dark else "#00664A", background, foreground),
        bad_text=readable("#FF9E6B" if dark else "#A04000", background, foreground),
        label_fill=(fill.red(), fill.green(), fill.blue(), 225),
        peak_fill=mix(background, foreground, 0.14),
        peak_line=mix(background, foreground, 0.5),
        mark=foreground,
        buy_new=readable(OKABE_ITO["blue"], background, foreground),
    )
