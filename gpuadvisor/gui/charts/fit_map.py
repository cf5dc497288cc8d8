"""Fit map: which micro-batch × sequence-length combinations fit the target GPU."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QWidget

from gpuadvisor.core.units import format_bytes
from gpuadvisor.core.verdict import TIGHT_FRACTION

from .base import ChartBase, as_float_array, format_number, short_power_of_two
from .style import (
    CATEGORY_COLORS,
    CATEGORY_TEXT_COLORS,
    DOES_NOT_FIT,
    FITS,
    TIGHT,
    UNKNOWN,
    verdict_labels,
)

_CONTEXT = "FitMapChart"
#: The smallest font (points) a cell's value is written in before it is left out.
MIN_CELL_PT = 7
#: The same on a projector (its axes at 16 pt): smaller values are left out.
PRESENTATION_MIN_CELL_PT = 11

#: How far inside its cell the plan's outline is drawn (a share of the cell).
OUTLINE_INSET = 0.04

#: RGBA per category, indexed by the category number (see :mod:`.style`).
_RGBA = np.array(
    [QColor(CATEGORY_COLORS[c]).getRgb() for c in (FITS, TIGHT, DOES_NOT_FIT, UNKNOWN)],
    dtype=np.ubyte,
)
#: Text colour on each category's fill.
_TEXT_COLORS = [QColor(CATEGORY_TEXT_COLORS[c]) for c in (FITS, TIGHT, DOES_NOT_FIT, UNKNOWN)]


def fit_categories(total_bytes: np.ndarray, capacity_bytes: float | None) -> np.ndarray:
    """Category per cell: 0 fits, 1 tight (over ``TIGHT_FRACTION`` of capacity), 2 does not fit.

    Mirrors :func:`gpuadvisor.core.estimate.verdict_for` on arrays. Non-finite totals (a plan
    the core could not size) count as "does not fit"; without a capacity every cell is 3
    (unknown).
    """
    total = np.asarray(total_bytes, dtype=float)
    if capacity_bytes is None:
        return np.full(total.shape, UNKNOWN, dtype=np.int8)
    grid = np.full(total.shape, FITS, dtype=np.int8)
    grid[total > TIGHT_FRACTION * capacity_bytes] = TIGHT
    grid[(total > capacity_bytes) | ~np.isfinite(total)] = DOES_NOT_FIT
    return grid


def _frontier_segments(mask: np.ndarray) -> tuple[list[float], list[float]]:
    """Edges between cells where ``mask`` changes, as ``connect="pairs"`` coordinates."""
    xs: list[float] = []
    ys: list[float] = []
    for i, j in zip(*np.nonzero(mask[:, 1:] != mask[:, :-1]), strict=True):
        xs += [j + 1, j + 1]
        ys += [i, i + 1]
    for i, j in zip(*np.nonzero(mask[1:, :] != mask[:-1, :]), strict=True):
        xs += [j, j + 1]
        ys += [i + 1, i + 1]
    return xs, ys


def _nearest(values: np.ndarray, value: float) -> int:
    """Index of the entry of ``values`` nearest to ``value`` on a log scale."""
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = np.abs(np.log(np.where(values > 0, values, np.nan)) - np.log(value))
    return int(np.nanargmin(distance)) if np.isfinite(distance).any() else 0


def _cell_outline(i: int, j: int, inset: float) -> tuple[list[float], list[float]]:
    """A closed rectangle just inside cell ``(i, j)``."""
    x0, x1, y0, y1 = j + inset, j + 1 - inset, i + inset, i + 1 - inset
    return [x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0]


class CellValues(QGraphicsItem):
    """Every cell's memory written in its middle, in one item: one paint for the whole grid
    (56 text items cost a repaint more than all the rest of the chart). The texts keep their
    size in pixels whatever the zoom.

    Cell ``(i, j)`` spans ``[j, j+1] x [i, i+1]`` in view coordinates, as in the chart.
    """

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.colors: list[QColor] = []
        self.columns = 1
        self.font = None
        self.shown = True

    def set_cells(self, texts: list[str], colors: list[QColor], columns: int, font) -> None:
        """The texts row by row (bottom row first), their colours, the grid's width."""
        self.prepareGeometryChange()
        self.texts, self.colors, self.columns, self.font = texts, colors, max(columns, 1), font
        metrics = QFontMetrics(font)
        self._widths = [metrics.horizontalAdvance(text) for text in texts]
        self._half_height = metrics.height() / 2
        self.update()

    def boundingRect(self) -> QRectF:
        rows = math.ceil(len(self.texts) / self.columns) if self.texts else 0
        return QRectF(0, 0, self.columns, rows)

    def paint(self, painter, _option, _widget=None) -> None:
        if not self.texts or not self.shown:
            return
        to_device = painter.transform()
        painter.save()
        painter.resetTransform()
        if self.font is not None:
            painter.setFont(self.font)
        half_h = self._half_height
        pen = None
        for k, text in enumerate(self.texts):
            i, j = divmod(k, self.columns)
            centre = to_device.map(QPointF(j + 0.5, i + 0.5))
            width = self._widths[k]
            if self.colors[k] != pen:
                pen = self.colors[k]
                painter.setPen(pen)
            painter.drawText(QRectF(centre.x() - width / 2 - 2, centre.y() - half_h,
                                    width + 4, 2 * half_h), Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class _CellLabel:
    """One cell's text as :attr:`FitMapChart._value_labels` offers it (``toPlainText``,
    ``isVisible``), for readers that look at cells one by one."""

    def __init__(self, cells: CellValues, index: int) -> None:
        self._cells, self._index = cells, index

    def toPlainText(self) -> str:
        return self._cells.texts[self._index]

    def isVisible(self) -> bool:
        return self._cells.shown and self._cells.isVisible()


class FitMapChart(ChartBase):
    """Micro-batch (rows, y) × sequence length (columns, x), coloured by fit.

    Cell ``(i, j)`` spans ``[j, j+1] × [i, i+1]`` in view coordinates; axis ticks at the
    cell centres carry the real micro-batch and sequence values, and each cell shows its
    memory per GPU in the display unit while cells are large enough to hold the text.

    Attributes:
        image_item: the ImageItem (row-major RGBA: one pixel per cell).
        current_marker: PlotDataItem outlining the current plan's cell (empty when none).
    """

    def __init__(
        self, parent: QWidget | None = None, *, units: str = "GiB", show_values: bool = True
    ) -> None:
        super().__init__(parent, units=units)
        self.setAccessibleName(QCoreApplication.translate(
            "FitMapChart", "Fit map"))
        self._micro_batches = np.zeros(0)
        self._seq_lens = np.zeros(0)
        self._total = np.zeros((0, 0))
        self._grid = np.zeros((0, 0), dtype=np.int8)
        self._queued = False  # the cells' verdicts given (vLLM): "tight" is "requests wait"
        self._cell_pt = 0  # the cell values' font size (0: the theme's)
        self._capacity: float | None = None
        self._current: tuple[int, int] | None = None
        self._current_exact = False
        self._show_values = show_values
        self._left_tick_sample = "0000"

        self.plot_item.showGrid(x=False, y=False)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.image_item)

        # Thin background-coloured lines between cells: neighbouring cells of one colour
        # otherwise merge into a block and the eye loses the row/column.
        self._cell_lines = pg.PlotDataItem(connect="pairs")
        self._cell_lines.setZValue(5)
        self.plot_item.addItem(self._cell_lines, ignoreBounds=True)

        # The fits / does-not-fit frontier as a dark staircase: it carries the answer even
        # for readers who cannot tell the two fills apart (greyscale print, colour vision).
        self._frontier = pg.PlotDataItem(connect="pairs")
        self._frontier.setZValue(15)
        self.plot_item.addItem(self._frontier, ignoreBounds=True)

        self.current_marker = pg.PlotDataItem()
        self.current_marker.setZValue(20)
        self.plot_item.addItem(self.current_marker, ignoreBounds=True)
        # A light inner frame makes the plan's cell read as "selected", unlike the frontier.
        self._current_inner = pg.PlotDataItem()
        self._current_inner.setZValue(21)
        self.plot_item.addItem(self._current_inner, ignoreBounds=True)

        self._cells = CellValues()
        self._cells.setZValue(10)
        self.plot_item.addItem(self._cells, ignoreBounds=True)

        self._legend_swatches = {c: pg.PlotDataItem() for c in (FITS, TIGHT, DOES_NOT_FIT, UNKNOWN)}
        self._legend_current = pg.PlotDataItem()

        # Tick and cell texts fit or not depending on the cells' size in pixels.
        self.plot_item.vb.sigRangeChanged.connect(self._update_density)

        self._apply_axis_style()
        self._redraw()

    def _apply_axis_style(self) -> None:
        super()._apply_axis_style()
        # No tick marks: the cells' edges mark the rows and columns, and pyqtgraph draws
        # ticks inward, where the left one read as a minus sign before the first column's
        # value ("-47.8") and the bottom one underlined the bottom row's.
        for name in ("left", "bottom"):
            self.plot_item.getAxis(name).setStyle(tickLength=0)

    # -- public API ----------------------------------------------------------------------

    def set_data(
        self,
        micro_batches,
        seq_lens,
        total_bytes,
        capacity_bytes: float | None,
        current: tuple[float, float] | None = None,
        verdicts=None,
    ) -> None:
        """Draw the map.

        Args:
            micro_batches: row values (y), increasing, e.g. ``[1, 2, 4, 8]``.
            seq_lens: column values (x), increasing, e.g. ``[512, 1024, 2048]``.
            total_bytes: memory per GPU, shape ``(len(micro_batches), len(seq_lens))``
                (what :func:`gpuadvisor.core.estimate.sweep_fit_map` returns).
            capacity_bytes: the target GPU's memory (None: cells grey, no verdict).
            current: the plan's ``(micro_batch, seq_len)`` *values*, or None. The marker goes
                on the cell with those values; a plan between grid values (micro-batch 3)
                gets a dashed marker on the nearest cell (nearest on a log scale).
            verdicts: each cell's verdict ("fits", "tight", "does not fit") where the bytes
                alone do not say it (vLLM, which reserves the same share of the card at
                every cell: there "tight" means some requests wait), or None: the cells'
                bytes against ``capacity_bytes``.

        Raises:
            ValueError: shapes that do not match, or a non-positive ``current``.
        """
        mbs = as_float_array(micro_batches, "micro_batches")
        seqs = as_float_array(seq_lens, "seq_lens")
        total = np.asarray(total_bytes, dtype=float)
        if total.shape != (mbs.size, seqs.size):
            raise ValueError(
                f"total_bytes has shape {total.shape}, expected "
                f"({mbs.size}, {seqs.size}) (micro_batches x seq_lens)"
            )
        cell = None
        exact = False
        if current is not None and total.size:
            mb, seq = (float(v) for v in current)
            if mb <= 0 or seq <= 0:
                raise ValueError(f"current must be positive (micro_batch, seq_len), got {current}")
            i, j = _nearest(mbs, mb), _nearest(seqs, seq)
            cell, exact = (i, j), bool(mbs[i] == mb and seqs[j] == seq)
        self._start_data()
        self._micro_batches, self._seq_lens, self._total = mbs, seqs, total
        self._capacity = None if capacity_bytes is None else float(capacity_bytes)
        self._current = cell
        self._current_exact = exact
        self._queued = verdicts is not None and self._capacity is not None
        if self._queued:
            codes = {"fits": FITS, "tight": TIGHT, "does not fit": DOES_NOT_FIT}
            given = np.asarray(verdicts, dtype=object)
            if given.shape != total.shape:
                raise ValueError(f"verdicts has shape {given.shape}, expected {total.shape}")
            self._grid = np.vectorize(lambda v: codes.get(v, DOES_NOT_FIT),
                                      otypes=[np.int8])(given)
        else:
            self._grid = fit_categories(total, self._capacity)
        self._redraw()

    def current_cell(self) -> tuple[int, int] | None:
        """``(row, column)`` of the marked cell, or None."""
        return self._current

    def category_grid(self) -> np.ndarray:
        """The categories used for colouring, ``[micro-batch, seq]``: 0 fits, 1 tight,
        2 does not fit (3 everywhere when no GPU is chosen). A copy."""
        return self._grid.copy()

    def value_texts(self) -> list[str]:
        """The texts written in the cells, row by row (bottom row first)."""
        return list(self._cells.texts)

    @property
    def _value_labels(self) -> list[_CellLabel]:
        """Each cell's text, row by row (bottom row first)."""
        return [_CellLabel(self._cells, k) for k in range(len(self._cells.texts))]

    # -- drawing --------------------------------------------------------------------------

    def _redraw(self) -> None:
        theme = self.theme
        rows, cols = self._grid.shape
        # On every slider move: each item is set only when what it shows changed.
        if self._changed("image", (self._grid.tobytes(), rows, cols)):
            self.image_item.setImage(
                _RGBA[self._grid] if self._grid.size else np.zeros((1, 1, 4), dtype=np.ubyte),
                levels=(0, 255),
                autoLevels=False,
            )
            self.image_item.setRect(0, 0, max(cols, 1), max(rows, 1))
            fx, fy = _frontier_segments(self._grid == DOES_NOT_FIT)
            self._frontier.setData(
                fx, fy, connect="pairs", pen=pg.mkPen(theme.foreground, width=theme.line_px)
            )

        if self._changed("cell_lines", (rows, cols, theme.background, theme.outline_px,
                                        theme.foreground, theme.line_px)):
            xs, ys = [], []
            for j in range(1, cols):
                xs += [j, j]
                ys += [0, rows]
            for i in range(1, rows):
                xs += [0, cols]
                ys += [i, i]
            self._cell_lines.setData(
                xs, ys, connect="pairs", pen=pg.mkPen(theme.background, width=theme.outline_px)
            )
            self._frontier.setPen(pg.mkPen(theme.foreground, width=theme.line_px))

        if not self._changed("current", (self._current, self._current_exact, theme.line_px,
                                         theme.foreground)):
            pass
        elif self._current is not None:
            i, j = self._current
            outer = _cell_outline(i, j, OUTLINE_INSET)  # inset: clear of the grid lines
            inner = _cell_outline(i, j, OUTLINE_INSET + 0.03 * theme.line_px / 2)
            style = Qt.PenStyle.SolidLine if self._current_exact else Qt.PenStyle.DashLine
            self.current_marker.setData(
                *outer, pen=pg.mkPen(theme.foreground, width=theme.line_px + 1, style=style)
            )
            self._current_inner.setData(
                *inner, pen=pg.mkPen(theme.background, width=theme.line_px / 2 + 0.5)
            )
        else:
            self.current_marker.setData([], [])
            self._current_inner.setData([], [])

        self._draw_values()

        if self._queued:  # a server's map: rows of requests at once, columns of prompts
            self._set_axis_labels(
                QCoreApplication.translate("FitMapChart", "prompt length (tokens)"),
                QCoreApplication.translate("FitMapChart", "requests at once"),
                QCoreApplication.translate("FitMapChart", "requests"),
                "",
            )
        else:
            self._set_axis_labels(
                QCoreApplication.translate("FitMapChart", "sequence length (tokens)"),
                QCoreApplication.translate("FitMapChart", "micro-batch (sequences)"),
                QCoreApplication.translate("FitMapChart", "micro-batch"),
                "",
            )

        labels = verdict_labels()
        if getattr(self, "_swatch_theme", None) is not self.theme:  # only on theme change
            self._swatch_theme = self.theme
            self._style_legend_swatches()
        entries = [
            (self._legend_swatches[FITS], labels[FITS]),
            (
                self._legend_swatches[TIGHT],
                QCoreApplication.translate("FitMapChart", "tight: requests wait")
                if self._queued else
                QCoreApplication.translate("FitMapChart", "tight (over {pct:.0f}%)").format(
                    pct=100 * TIGHT_FRACTION
                ),
            ),
            (self._legend_swatches[DOES_NOT_FIT], labels[DOES_NOT_FIT]),
        ]
        if self._capacity is None:
            entries = [(self._legend_swatches[UNKNOWN], labels[UNKNOWN])]
        entries.append(
            (self._legend_current, QCoreApplication.translate("FitMapChart", "your plan"))
        )
        self._set_legend(entries if self._grid.size else [])

        self._frame()
        self._update_description()

    def describe(self) -> str:
        """The map in a sentence: its ranges, how many cells fit, and the plan's cell."""
        grid = self._grid
        if not grid.size:
            return ""
        translate = QCoreApplication.translate
        parts = [translate("FitMapChart", "Fit map, micro-batch {mb0} to {mb1} by sequence "
                                          "length {s0} to {s1}:").format(
            mb0=format_number(self._micro_batches[0]),
            mb1=format_number(self._micro_batches[-1]),
            s0=format_number(self._seq_lens[0]), s1=format_number(self._seq_lens[-1]))]
        if self._capacity is None:
            parts.append(translate("FitMapChart", "no GPU chosen."))
        else:
            parts.append(translate("FitMapChart", "{fits} of {cells} fit, {tight} tight, "
                                                  "{over} do not fit.").format(
                fits=int(np.count_nonzero(grid == FITS)), cells=grid.size,
                tight=int(np.count_nonzero(grid == TIGHT)),
                over=int(np.count_nonzero(grid == DOES_NOT_FIT))))
        if self._current is not None:
            i, j = self._current
            parts.append(translate("FitMapChart", "Your plan: micro-batch {mb}, sequence "
                                                  "{seq}, {size}.").format(
                mb=format_number(self._micro_batches[i]), seq=format_number(self._seq_lens[j]),
                size=format_bytes(self._total[i, j], self.units)))
        return " ".join(parts)

    def _frame(self) -> None:
        rows, cols = self._grid.shape
        # Panning stops at the grid's edges: there is nothing beyond them.
        if self._changed("limits", (rows, cols)):
            self.plot_item.vb.setLimits(xMin=0, xMax=max(cols, 1), yMin=0, yMax=max(rows, 1))
        self._set_range((0, max(cols, 1)), (0, max(rows, 1)))
        self._update_density()

    def _style_legend_swatches(self) -> None:
        # Dummy data: the legend only styles a PlotDataItem's symbol once it has points.
        for category, swatch in self._legend_swatches.items():
            swatch.setData(
                [0],
                [0],
                pen=None,
                symbol="s",
                symbolSize=16,
                symbolBrush=CATEGORY_COLORS[category],
                symbolPen=pg.mkPen(None),
            )
        self._legend_current.setData(
            [0],
            [0],
            pen=None,
            symbol="s",
            symbolSize=16,
            symbolBrush=None,
            symbolPen=pg.mkPen(self.theme.foreground, width=3),
        )

    def _draw_values(self) -> None:
        theme = self.theme
        rows, cols = self._grid.shape
        texts, colors = [], []
        if self._show_values:
            values = self._total / self.unit_bytes
            for i in range(rows):
                for j in range(cols):
                    value = values[i, j]
                    texts.append(f"{value:.1f}" if value < 100 else f"{value:.0f}")
                    colors.append(_TEXT_COLORS[int(self._grid[i, j])])
        pt = self._cell_pt or theme.annotation_pt
        key = (tuple(texts), tuple(c.name() for c in colors), cols, pt)
        if self._changed("cells", key):
            self._cells.set_cells(texts, colors, cols, theme.font(pt))

    def _update_density(self, *_args) -> None:
        """Fit the texts to the cells' size in pixels (it changes with resize and zoom).

        Tick labels: powers of two as "16k" (as the memory-vs-sequence chart writes them,
        at every size: a map of "1024 2048" beside a curve of "1k 2k" read as two
        scales), every second (third...) one when they do not fit a cell. Cell values:
        shown only when they fit inside a cell.
        """
        width, height = self.plot_item.vb.viewPixelSize()  # data units per pixel
        cell_w = 1 / width if width else 0.0
        cell_h = 1 / height if height else 0.0
        theme = self.theme
        if not self._changed("density", (round(cell_w, 3), round(cell_h, 3), theme.tick_pt,
                                         theme.annotation_pt, tuple(self._seq_lens),
                                         tuple(self._micro_batches))):
            return
        tick_metrics = QFontMetrics(theme.font(theme.tick_pt))

        texts = [short_power_of_two(v) for v in self._seq_lens]
        widest = max((tick_metrics.horizontalAdvance(t) for t in texts), default=0) + 8
        step = max(1, math.ceil(widest / cell_w)) if cell_w else 1
        self.plot_item.getAxis("bottom").setTicks(
            [[(j + 0.5, text) for j, text in enumerate(texts) if j % step == 0], []]
        )
        # Numbers need their digits' height, not the line's (which has room for descenders
        # and CJK glyphs: in Chinese the values and every second tick went missing).
        digits_h = tick_metrics.tightBoundingRect("0123456789").height()
        step = max(1, math.ceil((digits_h + 6) / cell_h)) if cell_h else 1
        self.plot_item.getAxis("left").setTicks(
            [
                [
                    (i + 0.5, format_number(v))
                    for i, v in enumerate(self._micro_batches)
                    if i % step == 0
                ],
                [],
            ]
        )

        # The values at the theme's size, else a point or two smaller (down to
        # MIN_CELL_PT), else not at all: a short map (a Chinese page's taller lines leave the
        # charts less height) keeps its numbers.
        # On a projector no smaller than PRESENTATION_MIN_CELL_PT: 7-point digits read as
        # noise from the room (the colours and the axes still say what fits).
        least = PRESENTATION_MIN_CELL_PT if self.presentation else MIN_CELL_PT
        fits, chosen = False, theme.annotation_pt
        # clear of the plan's cell outline on each side (drawn inside its cell: a dark
        # line centred at its inset, a light one inside it, as the current marker below
        # draws them), and a pixel more: a projector's thick outline ran through "25.0"
        side = min(cell_w, cell_h)
        edge = max(OUTLINE_INSET * side + (theme.line_px + 1) / 2,
                   (OUTLINE_INSET + 0.03 * theme.line_px / 2) * side
                   + (theme.line_px / 2 + 0.5) / 2) + 1
        # Where no size keeps that clearance (a Chinese projector's 1280 x 720 map lost
        # every number), three pixels: the digits may meet the plan's outline in its one
        # cell, rather than every cell lose its value.
        for clear in (edge, 3.0):
            for pt in range(int(theme.annotation_pt), least - 1, -1):
                metrics = QFontMetrics(theme.font(pt))
                if (cell_w >= metrics.horizontalAdvance("000.0") + 2 * clear
                        and cell_h >= metrics.tightBoundingRect("0123456789").height()
                        + 2 * clear):
                    fits, chosen = True, pt
                    break
            if fits:
                break
        if chosen != self._cell_pt:
            self._cell_pt = chosen
            self._draw_values()
        if fits != self._cells.shown:
            self._cells.shown = fits
            self._cells.update()

    # -- hover ----------------------------------------------------------------------------

    def _hover_text_at(self, x: float, y: float) -> str | None:
        rows, cols = self._grid.shape
        i, j = int(np.floor(y)), int(np.floor(x))
        if not (0 <= i < rows and 0 <= j < cols):
            return None
        text = QCoreApplication.translate(
            "FitMapChart", "micro-batch {mb}, seq {seq}: {size}"
        ).format(
            mb=format_number(self._micro_batches[i]),
            seq=format_number(self._seq_lens[j]),
            size=format_bytes(self._total[i, j], self.units),
        )
        category = int(self._grid[i, j])
        if category != UNKNOWN:
            text = QCoreApplication.translate("FitMapChart", "{cell} — {verdict}").format(
                cell=text, verdict=verdict_labels()[category]
            )
        return text
