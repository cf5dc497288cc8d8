"""Light and dark (issue 17): colours come from the palette, View → Theme switches them, and
a dark palette keeps every chart's text readable (WCAG contrast computed here, by hand)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtGui import QColor, QPalette

from gpuadvisor.gui import appearance
from gpuadvisor.gui.charts.style import chart_theme
from gpuadvisor.gui.widgets.theme import style_sheet
from gpuadvisor.workspace.settings import load_settings

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints\(\)|raise\(\)|grabbing the keyboard)")


def wcag_contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio, written out from the definition
    (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio and #dfn-relative-luminance)."""
    def luminance(color: str) -> float:
        c = QColor(color)
        channels = []
        for value in (c.red(), c.green(), c.blue()):
            s = value / 255
            channels.append(s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4)
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_contrast_formula_gives_wcags_own_figures():
    # Black on white is 21:1 by definition; #767676 on white is the lightest grey that
    # passes AA for body text (4.54:1), #777777 just fails it (4.48:1).
    assert appearance.contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert appearance.contrast_ratio("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)
    assert appearance.contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert wcag_contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("palette", [appearance.light_palette, appearance.dark_palette],
                         ids=["light", "dark"])
def test_every_text_colour_reads_at_4_5_to_1_on_its_background(qapp, palette):
    colors = appearance.colors_for(palette())
    for name in ("text", "note", "warning", "error", "ok"):
        for background in (colors.window, colors.base):
            ratio = wcag_contrast(getattr(colors, name), background)
            assert ratio >= 4.5, f"{name} on {background}: {ratio:.2f}"
    assert wcag_contrast(colors.nav_text, colors.nav_bg) >= 4.5
    assert wcag_contrast(colors.text, colors.answer_bg) >= 4.5
    assert wcag_contrast(colors.text, colors.notice_bg) >= 4.5


def test_a_dark_palette_gives_chart_text_that_reads_on_a_dark_plot(qapp):
    theme = chart_theme(appearance.dark_palette())
    assert QColor(theme.background).lightness() < 40  # a dark plot, not a white one
    for name in ("foreground", "good_text", "bad_text"):
        ratio = wcag_contrast(getattr(theme, name), theme.background)
        assert ratio >= 4.5, f"{name}: {ratio:.2f}"
    assert wcag_contrast(theme.reference_color, theme.background) >= 3.0  # a line, not text
    # The light desktop look is what it always was: #222222 text on white.
    light = chart_theme(appearance.light_palette())
    assert (light.background, light.foreground) == ("#FFFFFF", "#222222")


def test_the_dark_style_sheet_has_no_fixed_dark_text(qapp):
    dark = style_sheet(False, appearance.colors_for(appearance.dark_palette()))
    light = style_sheet(False)
    # The chart titles were #1A1A1A, invisible on a dark window (the report).
    assert "#1A1A1A" not in dark and "#1A1A1A" not in light
    assert 'QLabel[role="chartTitle"] { font-weight: bold; color: #E8E8E8; }' in dark


def test_view_theme_dark_turns_window_and_charts_dark_and_is_remembered(
        qtbot, make_window, config_dir):
    window = make_window()
    window.plan_page.flush()
    chart = window.plan_page.vram_chart
    assert QColor(chart.theme.background).lightness() > 200
    window.theme_actions["dark"].trigger()
    qtbot.wait(5)
    assert window.settings.theme == "dark"
    assert window.theme_actions["dark"].isChecked()
    background = chart.plot_widget.backgroundBrush().color().name()
    assert QColor(background).lightness() < 40
    axis_text = chart.plot_item.getAxis("left").textPen().color().name()
    assert wcag_contrast(axis_text, background) >= 4.5
    title = window.plan_page.chart_titles["vramChart"]
    assert window.palette().color(QPalette.ColorRole.Window).lightness() < 60
    assert wcag_contrast(window.colors.text, window.colors.window) >= 4.5
    assert f"color: {window.colors.text}" in window.styleSheet()
    assert title.property("role") == "chartTitle"
    window.close()
    settings, _ = load_settings()
    assert settings.theme == "dark"  # saved for the next start


def test_presentation_mode_is_black_on_white_even_in_the_dark_theme(qtbot, make_window):
    window = make_window()
    window.set_theme("dark")
    window.set_presentation(True, full_screen=False)
    qtbot.wait(5)
    palette = window.palette()
    assert palette.color(QPalette.ColorRole.Window).name() == "#ffffff"
    assert palette.color(QPalette.ColorRole.WindowText).name() == "#000000"
    window.plan_page.flush()
    assert window.plan_page.vram_chart.theme.background == "#FFFFFF"
    window.set_presentation(False, full_screen=False)
    qtbot.wait(5)
    assert QColor(window.plan_page.vram_chart.theme.background).lightness() < 40
    window.set_theme("light")
    qtbot.wait(5)
    assert window.plan_page.vram_chart.theme.background == "#FFFFFF"


@pytest.mark.parametrize("make_palette", [appearance.light_palette, appearance.dark_palette])
def test_the_compare_tables_muted_and_stale_rows_read_at_4_5_to_1(qapp, make_palette):
    from PySide6.QtGui import QGuiApplication

    from gpuadvisor.gui.pages.compare.table import MUTED_COLOR, STALE_COLOR, readable_color

    before = QGuiApplication.palette()
    palette = make_palette()
    QGuiApplication.setPalette(palette)
    try:
        base = palette.color(QPalette.ColorRole.Base)
        for color in (MUTED_COLOR, STALE_COLOR):
            assert appearance.contrast_ratio(readable_color(color), base) >= 4.5
    finally:
        QGuiApplication.setPalette(before)


def test_dark_check_boxes_and_radio_buttons_have_a_frame_that_reads_on_the_window(qapp):
    # Fusion drew an unchecked box a shade darker than the dark window, with no edge:
    # "Allow changes to the plan" and "fits only" had no box to see.
    import re
    from pathlib import Path

    from PySide6.QtGui import QImage

    colors = appearance.colors_for(appearance.dark_palette())
    dark = style_sheet(False, colors)
    rule = re.search(r"QCheckBox::indicator, QRadioButton::indicator \{[^}]*"
                     r"border: 1px solid (#[0-9A-F]{6})", dark)
    assert rule is not None
    for background in (colors.window, colors.base):  # WCAG 1.4.11: a control's edge, 3:1
        assert wcag_contrast(rule.group(1), background) >= 3.0
    # A styled indicator draws no tick of its own: the checked ones show an image of one.
    images = re.findall(r'QCheckBox::indicator:(checked|indeterminate)(?::disabled)? '
                        r'\{ image: url\("([^"]+)"\); \}', dark)
    assert {state for state, _ in images} == {"checked", "indeterminate"}
    assert len(images) == 4
    for _state, path in images:
        assert Path(path).is_file()
        assert not QImage(path).isNull(), path
    # The light look and presentation mode (black on white) keep the desktop's boxes.
    from gpuadvisor.gui.widgets.theme import presentation_palette

    projector = appearance.colors_for(presentation_palette(appearance.dark_palette()), True)
    for sheet in (style_sheet(False), style_sheet(True), style_sheet(True, projector)):
        assert "::indicator" not in sheet and ":disabled" not in sheet


def test_a_disabled_button_in_the_dark_theme_reads_at_4_5_to_1(qapp):
    # "Stop" and "Cancel" read at 3.2:1, faint beside the enabled buttons.
    import re

    palette = appearance.dark_palette()
    button = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Button).name()
    palette_text = palette.color(QPalette.ColorGroup.Disabled,
                                 QPalette.ColorRole.ButtonText).name()
    assert wcag_contrast(palette_text, button) < 4.5
    dark = style_sheet(False, appearance.colors_for(palette))
    found = re.search(r"QPushButton:disabled[^{]*\{ color: (#[0-9A-F]{6}); \}", dark)
    assert found is not None
    disabled = found.group(1)
    assert wcag_contrast(disabled, button) >= 4.5
    # Still dimmer than an enabled button's text: disabled looks disabled.
    enabled = palette.color(QPalette.ColorRole.ButtonText).name()
    assert wcag_contrast(disabled, button) < wcag_contrast(enabled, button) / 1.5
