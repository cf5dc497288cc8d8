"""Chart parts of their own: point symbols drawn in one paint, the log2 axis of sequence
lengths, and the number helpers of ticks and ranges. Nothing here knows a chart."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import Symbols
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform


class PointMarks(pg.GraphicsObject):
    """Symbols (dots, rings, stars) at data points, all drawn in one paint at a size in
    pixels: pyqtgraph's scatter rebuilds its sprites on every ``setData``, which the Plan
    page does on each slider move.

    Points are in view coordinates (``log10(x)`` on a log axis, as pyqtgraph maps them).
    """

    def __init__(self, symbol: str = "o") -> None:
        super().__init__()
        self._x = np.zeros(0)
        self._y = np.zeros(0)
        self._path = Symbols[symbol]
        self._size = 8.0
        self._pen = pg.mkPen(None)
        self._brush = pg.mkBrush(None)
        self._bounds: QRectF | None = None  # boundingRect, until points or the view change

    def set_style(self, *, symbol: str, size: float, pen, brush) -> None:
        """The symbol (a pyqtgraph symbol name), its diameter in pixels, outline and fill."""
        self._path = Symbols[symbol]
        self._size = float(size)
        self._pen = pg.mkPen(pen) if pen is not None else pg.mkPen(None)
        self._brush = pg.mkBrush(brush) if brush is not None else pg.mkBrush(None)
        self.prepareGeometryChange()
        self._bounds = None
        self.update()

    def set_points(self, x, y) -> None:
        """Draw the symbol at these points (empty: nothing)."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if x.shape == self._x.shape and np.array_equal(x, self._x) and np.array_equal(y, self._y):
            return
        self.prepareGeometryChange()
        self._x, self._y = x, y
        self._bounds = None
        self.update()

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """The points drawn (x, y), in view coordinates."""
        return self._x.copy(), self._y.copy()

    def boundingRect(self) -> QRectF:
        # Asked for many times per paint: computed once per change.
        if self._bounds is None:
            self._bounds = self._compute_bounds()
        return QRectF(self._bounds)

    def _compute_bounds(self) -> QRectF:
        finite = np.isfinite(self._x) & np.isfinite(self._y)
        if not finite.any():
            return QRectF()
        x, y = self._x[finite], self._y[finite]
        try:
            px, py = self.pixelWidth(), self.pixelHeight()
        except Exception:  # not in a view yet
            px = py = 0.0
        pad_x = (self._size / 2 + 2) * (px or 0.0)
        pad_y = (self._size / 2 + 2) * (py or 0.0)
        return QRectF(x.min() - pad_x, y.min() - pad_y, x.max() - x.min() + 2 * pad_x,
                      y.max() - y.min() + 2 * pad_y)

    def viewTransformChanged(self) -> None:
        # The padding is in pixels: a zoom changes it in view coordinates.
        self.prepareGeometryChange()
        self._bounds = None

    def paint(self, painter, _option, _widget=None) -> None:
        if not self._x.size:
            return
        to_device = painter.transform()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(painter.RenderHint.Antialiasing, True)
        painter.setPen(self._pen)
        painter.setBrush(self._brush)
        radius = self._size / 2
        circle = self._path is Symbols["o"]
        if not circle:
            path = QTransform.fromScale(self._size, self._size).map(self._path)
        for x, y in zip(self._x, self._y, strict=True):
            if math.isfinite(x) and math.isfinite(y):
                centre = to_device.map(QPointF(x, y))
                if circle:  # the common case, and much cheaper than a path
                    painter.drawEllipse(centre, radius, radius)
                else:
                    painter.drawPath(path.translated(centre))
        painter.restore()


#: Mantissas a chart's top snaps up to (see :func:`nice_ceiling`).
_NICE_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k at or above ``value``.

    A chart's top snapped so stays put while a slider moves the data a little: a new range
    redraws both axes, the dearest part of a repaint.
    """
    if not math.isfinite(value) or value <= 0:
        return value
    power = 10.0 ** math.floor(math.log10(value))
    return next(m * power for m in _NICE_MANTISSAS if m * power >= value * (1 - 1e-12))


def format_number(value: float) -> str:
    """An axis value for people: integers without decimals, others with 3 significant."""
    if math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return f"{value:.3g}"


def short_power_of_two(value: float) -> str:
    """Tick text for powers of two: 512, 1k, 2k, ... 128k, 1M (k = 1024, as for contexts)."""
    for size, suffix in ((1 << 20, "M"), (1 << 10, "k")):
        if value >= size and (value / size).is_integer():
            return f"{int(value // size)}{suffix}"
    return format_number(value)


class PlainLogAxis(pg.AxisItem):
    """A log axis whose ticks read as numbers ("1,000", "100", "1", "0.1"): pyqtgraph
    writes "10³" beside "1" and "0.1" on one axis."""

    def logTickStrings(self, values, scale, spacing):
        out = []
        for value in values:
            number = 10 ** float(value) * scale
            out.append(f"{number:,.0f}" if number >= 1 else f"{number:.3g}")
        return out


class PowerOfTwoAxis(pg.AxisItem):
    """A bottom axis that, in log mode, ticks at powers of two (512, 1k, 2k, ...).

    pyqtgraph's log axis ticks at powers of ten, which never land on the sequence lengths
    people use. In linear mode this behaves like a plain AxisItem.
    """

    #: At most this many labelled ticks; beyond it every second (fourth...) power is shown.
    MAX_TICKS = 9

    #: Linear mode: only whole-number ticks (micro-batches are counts; "2.5" is no value).
    integer_only = False

    def tickValues(self, minVal, maxVal, size):
        if not self.logMode:
            levels = super().tickValues(minVal, maxVal, size)
            if self.integer_only:
                levels = [
                    (spacing, [v for v in values if float(v).is_integer()])
                    for spacing, values in levels
                    if spacing >= 1
                ]
            return levels
        lo = math.ceil(minVal / math.log10(2) - 1e-9)
        hi = math.floor(maxVal / math.log10(2) + 1e-9)
        if hi < lo:
            return super().tickValues(minVal, maxVal, size)
        step = max(1, math.ceil((hi - lo + 1) / self.MAX_TICKS))
        return [(step * math.log10(2), [k * math.log10(2) for k in range(lo, hi + 1, step)])]

    def tickStrings(self, values, scale, spacing):
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        return [short_power_of_two(round(10**v)) for v in values]


__all__ = ["PlainLogAxis", "PointMarks", "PowerOfTwoAxis", "format_number", "nice_ceiling",
           "short_power_of_two"]
