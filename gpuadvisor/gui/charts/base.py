"""The common frame of the charts: a PlotWidget, a theme, units, a legend and a hover label.

Each chart creates its pyqtgraph items once and updates them with ``setData()``/``setOpts()``
on every ``set_data`` call: the Plan page redraws on each slider move, and recreating items
would allocate, relayout and flicker.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QAccessible, QFont, QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QVBoxLayout, QWidget

from .edge_labels import EdgeLabels
from .items import PointMarks, format_number, nice_ceiling, short_power_of_two
from .style import UNIT_BYTES, ChartTheme, chart_theme, check_units

# The helpers of ticks, ranges and points, where the charts have always found them.
__all__ = ["BADGE_MARGIN", "ChartBase", "PointMarks", "as_float_array", "format_number",
           "nice_ceiling", "short_power_of_two"]

#: Hover updates per second: mouse-move events arrive far faster than anyone can read, and
#: each update re-renders a text item.
HOVER_RATE_LIMIT = 30
#: Pixels between a badge in the plot's top-left corner and the view's edges.
BADGE_MARGIN = 8
#: The PlotItem grid row under the bottom axis, where the legend goes, spanning all the
#: columns (left axis, plot, right axis).
_LEGEND_ROW, _LEGEND_COLUMNS = 4, 3
#: Legend geometry in pixels: a sample is 20 wide, then this spacing, then the label with
#: this text margin on each side, then (between columns) the column gap.
_LEGEND_SAMPLE_SPACING, _LEGEND_TEXT_MARGIN, _LEGEND_COLUMN_GAP = 6, 1, 18
_LEGEND_ENTRY_EXTRA = 20 + _LEGEND_SAMPLE_SPACING + 2 * _LEGEND_TEXT_MARGIN + _LEGEND_COLUMN_GAP + 2


class ChartBase(EdgeLabels, QWidget):
    """Base of the chart widgets: one :class:`pyqtgraph.PlotWidget` and shared behaviour.

    Subclasses build their items in ``__init__``, draw from their stored data in
    :meth:`_redraw` (called again when units or theme change), set the visible range in
    :meth:`_frame` (called again on resize until the user zooms or pans), and describe a
    view position in :meth:`_hover_text_at`.

    Attributes:
        plot_widget: the wrapped PlotWidget.
        plot_item: its PlotItem (axes, view box).
        legend: the legend, laid out under the plot and its axis (as many columns as fit,
            tight rows) so that it never covers data and takes as little height as it can.
    """

    def __init__(self, parent: QWidget | None = None, *, units: str = "GiB",
                 axis_items: dict | None = None) -> None:
        super().__init__(parent)
        self._units = check_units(units)
        self._presentation = False
        self._theme: ChartTheme = chart_theme(self.palette())
        self._hover = ""
        self._legend_entries: list[tuple[object, str]] = []
        self._legend_key: tuple | None = None
        #: Whether the view follows the data; a manual zoom or pan turns it off until the
        #: next set_data.
        self._auto_frame = True
        #: Widest tick label expected on the left axis; sizes the axis.
        self._left_tick_sample = "000.0"
        self._edge_labels: list[pg.TextItem] = []
        #: A corner badge that edge labels must not run under (None: no check).
        self._edge_badge: pg.TextItem | None = None
        self._axis_texts: tuple[str, tuple[str, ...]] = ("", ("",))  # bottom, left choices

        self.plot_widget = pg.PlotWidget(background=self._theme.background,
                                         axisItems=axis_items)
        # Items keep their painter state as they found it, and nothing here draws outside its
        # bounds: Qt need not save the state or widen each repaint by a pixel.
        flags = self.plot_widget.optimizationFlags()
        self.plot_widget.setOptimizationFlags(
            flags | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.showGrid(x=False, y=True, alpha=0.12)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot_widget)

        self.legend = pg.LegendItem(frame=False)
        self.plot_item.layout.addItem(self.legend, _LEGEND_ROW, 0, 1, _LEGEND_COLUMNS)

        # Parented to the view box (not its child group): positioned in pixels, so the
        # tooltip keeps its size and place while the user zooms.
        self._hover_label = pg.TextItem(anchor=(0, 0))
        self._hover_label.setParentItem(self.plot_item.vb)
        self._hover_label.setZValue(1000)
        self._hover_label.textItem.document().setDocumentMargin(6)
        self._hover_label.hide()

        # threadSafe=False: everything runs on the GUI thread, and a plain QTimer is one
        # object fewer to outlive the widget.
        self._hover_proxy = pg.SignalProxy(self.plot_widget.scene().sigMouseMoved,
                                           rateLimit=HOVER_RATE_LIMIT,
                                           slot=self._on_mouse_moved, threadSafe=False)
        self.plot_widget.installEventFilter(self)
        self.plot_item.vb.sigRangeChangedManually.connect(self._on_manual_range)
        self.plot_item.vb.sigResized.connect(self._on_resized)
        self.plot_item.vb.sigRangeChanged.connect(self._place_edge_labels)

    # -- public API ----------------------------------------------------------------------

    @property
    def units(self) -> str:
        """Unit of byte axes and labels: ``"GiB"`` or ``"GB"``."""
        return self._units

    def set_units(self, units: str) -> None:
        """Show bytes in ``"GiB"`` (binary) or ``"GB"`` (decimal) and redraw."""
        self._units = check_units(units)
        self._redraw()

    @property
    def presentation(self) -> bool:
        """Whether presentation mode (large text, thick lines) is on."""
        return self._presentation

    def set_presentation(self, enabled: bool) -> None:
        """Switch presentation mode: 16 pt text, 3–4 px lines, high contrast."""
        self._presentation = bool(enabled)
        self._theme = chart_theme(self.palette(), self._presentation)
        self._restyle()

    def _restyle(self) -> None:
        """Apply the theme's sizes and colours to everything and draw again."""
        self.plot_widget.setBackground(self._theme.background)
        self._apply_axis_style()
        self._legend_key = None  # the legend's text colour
        self._layout_legend()
        self._redraw()
        self._update_description()

    def _on_palette_changed(self) -> None:
        # Light or dark: the colours follow the palette the window gives the chart.
        theme = chart_theme(self.palette(), self._presentation)
        if theme != self._theme:
            self._theme = theme
            self._restyle()

    # -- accessibility -----------------------------------------------------------------

    def describe(self) -> str:
        """The chart's data in a sentence (its accessible description); "" without data."""
        return ""

    def _update_description(self) -> None:
        """Give screen readers the data as a sentence (set only when it changed).

        Only while an assistive technology listens (``QAccessible.isActive()``): the Plan
        page redraws on every slider move, and nobody reads the sentence otherwise. The
        next redraw after one starts listening brings it up to date."""
        if not QAccessible.isActive():
            return
        text = self.describe()
        if self._changed("description", text):
            self.setAccessibleDescription(text)

    def hover_text(self) -> str:
        """The tooltip text now shown ("" when none)."""
        return self._hover

    def hover_at(self, scene_pos: QPointF) -> str:
        """Show the tooltip for a scene position and return its text ("" off the data).

        This is what mouse moves call (rate-limited); tests call it directly.
        """
        vb = self.plot_item.vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            self._hide_hover()
            return ""
        view = vb.mapSceneToView(scene_pos)
        text = self._hover_text_at(view.x(), view.y()) or ""
        if not text:
            self._hide_hover()
            return ""
        self._hover = text
        label = self._hover_label
        label.setText(text)
        # Beside the cursor (up and right), flipped or pushed back so that it stays
        # inside the view: a tooltip cut off at the plot's edge is unreadable.
        local = vb.mapFromScene(scene_pos)
        rect = vb.boundingRect()
        size = label.textItem.boundingRect()
        offset = 12
        left = local.x() + offset
        if left + size.width() > rect.width():
            left = local.x() - offset - size.width()
        top = local.y() - offset - size.height()
        if top < 0:
            top = local.y() + offset
        left = min(max(left, 0.0), max(rect.width() - size.width(), 0.0))
        top = min(max(top, 0.0), max(rect.height() - size.height(), 0.0))
        label.setPos(left, top)
        label.show()
        return text

    # -- for subclasses ------------------------------------------------------------------

    @property
    def theme(self) -> ChartTheme:
        """The theme in use."""
        return self._theme

    @property
    def unit_bytes(self) -> float:
        """Bytes per display unit."""
        return UNIT_BYTES[self._units]

    def _redraw(self) -> None:
        raise NotImplementedError

    def _frame(self) -> None:
        """Set the visible range for the current data and widget size."""

    def _hover_text_at(self, x: float, y: float) -> str | None:
        raise NotImplementedError

    def _start_data(self) -> None:
        """New data: the view follows it again, whatever the user zoomed to before."""
        self._auto_frame = True

    def _changed(self, key: str, value) -> bool:
        """Whether ``value`` differs from the one last given under ``key`` (remembered).

        Setting a font, a colour or a text on a pyqtgraph item re-lays it out, and the Plan
        page redraws on every slider move: setters run only when something changed.
        """
        memo = self.__dict__.setdefault("_memo", {})
        if key in memo and memo[key] == value:
            return False
        memo[key] = value
        return True

    def _set_text(self, item: pg.TextItem, text: str) -> None:
        """``item.setText(text)`` unless it shows ``text`` already."""
        if self._changed(f"text:{id(item)}", text):
            item.setText(text)

    def _set_range(self, x_range: tuple[float, float], y_range: tuple[float, float]) -> bool:
        """Show this range (no padding) unless the view shows it already: a new range
        regenerates both axes' pictures, the dearest part of a repaint. Whether it moved
        (a moved range re-places the line labels through the view's range signal)."""
        vb = self.plot_item.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        want = (*x_range, *y_range)
        if all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
               for a, b in zip((x0, x1, y0, y1), want, strict=True)):
            return False
        vb.setRange(xRange=x_range, yRange=y_range, padding=0)
        return True

    def _top_clear_of_badge(self, values: list[float], badge: pg.TextItem | None,
                            label_pt: int, fallback: float) -> tuple[float, bool]:
        """The top of the y range that keeps ``values`` (plus a label above each) below the
        badge in the top-left corner.

        Args:
            values: heights that carry a label just above them (capacity, bar totals).
            badge: the corner badge (None or hidden: only a small margin is kept).
            label_pt: font size of the labels above the values.
            fallback: ``max(values) * fallback`` when the view is too small to compute.

        Returns:
            The top, and whether the plot had room for it (False: the fallback was used and
            labels near the top may meet the badge).
        """
        highest = max(values, default=0.0)
        if highest <= 0:
            return 1.0, True
        height = self.plot_item.vb.height()
        reserve = QFontMetrics(self._theme.font(label_pt)).height() + 6
        if badge is not None and badge.isVisible():
            reserve += BADGE_MARGIN + badge.textItem.boundingRect().height()
        if height <= 2 * reserve:  # not laid out yet, or tiny: proportional headroom
            return highest * fallback, False
        return max(highest * 1.08, highest / (1 - reserve / height)), True

    def _legend_entry_shown(self, item: object) -> bool:
        """Whether a legend entry is shown now; charts hide those they label directly."""
        return True

    def _fit_badge(self, badge: pg.TextItem, *, bold: bool = True) -> None:
        """Size a corner badge to the view box's width: the theme's badge font, smaller
        (down to the axis-label size) when the text is wider than the plot, and wrapped onto
        more lines when even that is too wide. A badge cut off at the plot's edge loses
        its number, which is what it is there for."""
        font = self._badge_font(bold=bold)
        text_item = badge.textItem
        text = text_item.toPlainText()
        margin = text_item.document().documentMargin()
        available = self.plot_item.vb.width() - badge.pos().x() - BADGE_MARGIN
        if not self._changed(f"badge:{id(badge)}", (text, font.pointSize(), bold, available,
                                                     margin)):
            return
        if available > 0 and text:
            floor = min(self._theme.label_pt, font.pointSize())
            while (font.pointSize() > floor and QFontMetrics(font).horizontalAdvance(text)
                   + 2 * margin + 2 > available):
                font.setPointSize(font.pointSize() - 1)
        badge.setFont(font)
        wide = QFontMetrics(font).horizontalAdvance(text) + 2 * margin + 2
        width = available if available > 0 and wide > available else -1
        if text_item.textWidth() != width:
            text_item.setTextWidth(width)
            badge.updateTextPos()

    def _badge_font(self, *, bold: bool = True) -> QFont:
        """The corner badge's font: the theme's large size, smaller when the plot is short
        (a 24 pt badge would cover a third of a 200-pixel plot)."""
        theme = self._theme
        points = theme.verdict_pt
        if self.plot_item.vb.height() < 14 * points:
            points = max(theme.label_pt + 2, int(self.plot_item.vb.height() / 14))
        return theme.font(points, bold=bold)

    def _set_axis_labels(self, bottom: str, *lefts: str) -> None:
        """Axis titles; the left one is the first of ``lefts`` that fits the plot's height
        (the last one, which may be "", when none does)."""
        self._axis_texts = (bottom, lefts or ("",))
        self._apply_axis_labels()

    def _apply_axis_labels(self, *, activate: bool = True) -> None:
        theme = self._theme
        bottom, lefts = self._axis_texts
        height = self.plot_item.vb.height()
        if not self._changed("axis_labels", (bottom, lefts, height, theme.label_pt,
                                             theme.tick_pt, theme.foreground)):
            return
        metrics = QFontMetrics(theme.font(theme.label_pt))
        # A rotated title a little shorter than the plot: it is centred on the plot, and a
        # title as long as the plot runs off the chart's edge.
        left = next((text for text in lefts
                     if not height or metrics.horizontalAdvance(text) + 16 <= 0.85 * height),
                    lefts[-1])
        key = (bottom, left, theme.label_pt, theme.tick_pt, theme.foreground)
        if key == getattr(self, "_axis_key", None):
            return
        self._axis_key = key
        style = {"color": theme.foreground, "font-size": f"{theme.label_pt}pt"}
        self.plot_item.setLabel("bottom", bottom, **style)
        self.plot_item.setLabel("left", left, **style)
        # pyqtgraph centres a title on its axis only when the axis resizes: a new title of
        # another length ("GiB" -> "memory (GiB)") kept the old one's place and ran off the
        # chart's top. Centre it now.
        for name in ("left", "bottom"):
            self.plot_item.getAxis(name).resizeEvent()
        # pyqtgraph reserves only 80% of the label's height below the ticks; at 16 pt that
        # clips the label's descenders, so the tick space takes the rest.
        label_px = QFontMetrics(theme.font(theme.label_pt)).height() if bottom else 0
        tick_px = QFontMetrics(theme.font(theme.tick_pt)).height() + 4
        self.plot_item.getAxis("bottom").setStyle(tickTextHeight=tick_px + label_px // 4)
        # Apply new axis sizes now, not on the next event-loop pass: a grab() or export right
        # after set_data would otherwise draw labels at the old sizes, clipped. (Not from
        # inside a resize, which is itself a layout pass.)
        if activate:
            self.plot_item.layout.activate()

    def _apply_axis_style(self) -> None:
        theme = self._theme
        pen = pg.mkPen(theme.foreground, width=max(1.0, theme.outline_px))
        tick_font = theme.font(theme.tick_pt)
        metrics = QFontMetrics(tick_font)
        # Axis space sized from the font up front: pyqtgraph otherwise grows it only after a
        # paint that skipped the labels (first frames and grabs lose them), and a fixed width
        # keeps the plot from jumping sideways as values change under a slider.
        self.plot_item.getAxis("bottom").setStyle(
            autoExpandTextSpace=False, tickTextHeight=metrics.height() + 4)
        self.plot_item.getAxis("left").setStyle(
            autoExpandTextSpace=False,
            tickTextWidth=metrics.horizontalAdvance(self._left_tick_sample) + 4)
        # Room right of the plot for half of the last tick label ("32768" centred on the
        # last cell or point would otherwise be cut off by the widget's edge).
        self.plot_item.layout.setContentsMargins(
            2, 4, metrics.horizontalAdvance("32768") // 2 + 2, 2)
        for name in ("left", "bottom"):
            axis = self.plot_item.getAxis(name)
            # A repaint of the plot repaints its axes too: cached as pixels, an unchanged
            # axis costs a copy instead of drawing every tick label again.
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            axis.setPen(pen)
            axis.setTextPen(theme.foreground)
            axis.setStyle(tickFont=tick_font, tickTextOffset=6, maxTickLevel=1)
        self._hover_label.setFont(theme.font(theme.hover_pt))
        self._hover_label.setColor(theme.foreground)
        self._hover_label.fill = pg.mkBrush(theme.background)
        self._hover_label.border = pg.mkPen(theme.foreground, width=1)

    def _set_legend(self, entries: list[tuple[object, str]]) -> None:
        """Show these (item, name) rows; the legend is rebuilt only when something changed."""
        self._legend_entries = list(entries)
        self._layout_legend()

    def _layout_legend(self) -> None:
        theme = self._theme
        entries = self._legend_entries
        entries = [(item, name) for item, name in entries if self._legend_entry_shown(item)]
        # Each entry: sample + spacing + text (and its margins) + the gap to the next column.
        names = tuple(name for _, name in entries)
        if self._changed("legend_names", (names, theme.legend_pt)):
            metrics = QFontMetrics(theme.font(theme.legend_pt))
            self._legend_widths = [metrics.horizontalAdvance(name) + _LEGEND_ENTRY_EXTRA
                                   for name in names]
        widths = self._legend_widths
        # The widget's width, not the view box's: the view box is narrowed by whatever the
        # legend claimed last time, which would keep a too-wide legend too wide.
        # The legend spans the whole width (under the left axis too), not just the plot's.
        left, _, right, _ = self.plot_item.layout.getContentsMargins()
        available = self.plot_widget.width() - left - right - 8 + _LEGEND_COLUMN_GAP
        columns = 1
        for count in range(len(entries), 1, -1):  # as many columns as fit, rows filled first
            column_widths = [max(widths[k::count]) for k in range(count)]
            if sum(column_widths) <= available:
                columns = count
                break
        key = (tuple((id(item), name) for item, name in entries), theme.legend_pt, columns,
               theme.foreground)
        if key == self._legend_key:
            return
        self._legend_key = key
        # A fresh LegendItem: pyqtgraph's cannot re-flow its rows into another column count
        # once its grid has grown, and the legend changes only with the set of entries, the
        # theme or the width, never per data update.
        layout = self.plot_item.layout
        layout.removeItem(self.legend)
        if self.legend.scene() is not None:
            self.legend.scene().removeItem(self.legend)
        self.legend = pg.LegendItem(frame=False, colCount=columns,
                                    labelTextSize=f"{theme.legend_pt}pt",
                                    labelTextColor=theme.foreground,
                                    horSpacing=_LEGEND_SAMPLE_SPACING)
        for item, name in entries:
            self.legend.addItem(item, name)
        # Tight rows: a label's default 4-pixel text margins make each row a third taller
        # than its text, and at 16 pt three rows would take as much height as the plot.
        for _, label in self.legend.items:
            label.item.document().setDocumentMargin(_LEGEND_TEXT_MARGIN)
            label.updateMin()
        # Repainted with the plot on every data change, changed only here: kept as pixels.
        self.legend.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # a few pixels under the x axis's title: touching it, "micro-batch" and the first
        # entry read as one line ("micro-batch your plan")
        self.legend.layout.setContentsMargins(0, max(3, theme.legend_pt // 3), 0, 0)
        for column in range(1, 2 * columns - 1, 2):  # after each label but the last
            self.legend.layout.setColumnSpacing(column, _LEGEND_COLUMN_GAP)
        # In a grid cell the legend would stretch to the cell and spread its rows apart;
        # pin it to its content's size.
        hint = self.legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize)
        self.legend.setFixedHeight(hint.height() if entries else 0)
        # Never wider than the plot allows: a legend's minimum width would widen the
        # PlotItem past its widget and push the right edge of the chart out of sight.
        self.legend.setMinimumWidth(0)
        self.legend.setMaximumWidth(hint.width() + 8 if entries else 0)
        layout.addItem(self.legend, _LEGEND_ROW, 0, 1, _LEGEND_COLUMNS)
        layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignHCenter)
        # LegendItem.updateSize() moved it to (0, 0); lay out now rather than on the next
        # event-loop pass, so that a grab() or export straight after set_data is right.
        self.legend.layout.activate()
        layout.activate()

    def _hide_hover(self) -> None:
        self._hover = ""
        self._hover_label.hide()

    # -- Qt plumbing ----------------------------------------------------------------------

    def _on_mouse_moved(self, args: tuple) -> None:
        self.hover_at(args[0])

    def _on_manual_range(self, *_args) -> None:
        self._auto_frame = False

    def _on_resized(self, *_args) -> None:
        self._layout_legend()
        self._apply_axis_labels(activate=False)
        if self._auto_frame:
            self._frame()
        self._place_edge_labels()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._on_palette_changed()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.plot_widget and event.type() == QEvent.Type.Leave:
            self._hide_hover()
        return super().eventFilter(watched, event)

    def hideEvent(self, event) -> None:
        # A hover still queued in the proxy's timer would fire into a hidden (possibly
        # soon deleted) widget; drop it.
        self._hover_proxy.timer.stop()
        self._hover_proxy.args = None
        super().hideEvent(event)


def as_float_array(values, name: str) -> np.ndarray:
    """``values`` as a 1-D float array, raising ``ValueError`` naming ``name`` otherwise."""
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    return array
