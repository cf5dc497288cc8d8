"""Where a memory curve's annotations go: the out-of-memory label and the fit badge, placed
clear of every point, marker and line (:class:`~.curves.MemoryCurveChart`)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, QSizeF
from PySide6.QtGui import QFontMetrics

from .base import BADGE_MARGIN


class CurveAnnotations:
    """The placement of :class:`~.curves.MemoryCurveChart`'s out-of-memory label and fit
    badge (a mixin: it reads the chart's view, data, markers and labels)."""

    #: The widget size (width, height) at which the out-of-memory label was hidden for lack
    #: of room (see :meth:`_place_annotations`).
    _oom_hidden_at: tuple[int, int] | None = None

    def _place_annotations(self, x0: float, x1: float, top: float) -> float:
        """Put the out-of-memory label and the badge where no point, marker or line is.

        Memory rises with x: above the line at the left and under it at the right are the
        usual free spots for the label; the badge tries the four corners. The y range's top
        (returned, maybe raised) makes room when no corner is free.
        """
        vb = self.plot_item.vb
        width, height = vb.width(), vb.height()
        if width <= 20 or height <= 20 or not self._x.size or x1 <= x0 or top <= 0:
            return top
        theme = self.theme

        def pixels(xs, ys, top_):
            return ((np.asarray(xs) - x0) / (x1 - x0) * width,
                    height - np.asarray(ys) / top_ * height)

        xs, ys = self._view_x(self._x), self._y_bytes / self.unit_bytes
        ok = np.isfinite(xs) & np.isfinite(ys)
        xs, ys = xs[ok], ys[ok]

        def obstacles(top_) -> np.ndarray:
            """Rows of (x, y, radius) in view-box pixels: the curve every few pixels along
            its segments, its points and the two markers."""
            px, py = pixels(xs, ys, top_)
            rows = [np.column_stack([px, py, np.full(px.shape, theme.marker_size / 2 + 2)])]
            if px.size > 1:
                steps = np.maximum(np.abs(np.diff(px)), np.abs(np.diff(py))) // 4 + 1
                k = np.repeat(np.arange(px.size - 1), steps.astype(int))
                t = np.concatenate([np.arange(n) / n for n in steps.astype(int)])
                rows.append(np.column_stack([px[k] + t * (px[k + 1] - px[k]),
                                             py[k] + t * (py[k + 1] - py[k]),
                                             np.full(k.shape, theme.line_px / 2 + 2)]))
            for item, scale in ((self.current_marker, 1.1), (self.largest_fit_marker, 1.25)):
                mx, my = item.getOriginalDataset()
                if mx is not None and len(mx):
                    cx, cy = pixels(self._view_x(mx), my, top_)
                    rows.append(np.array([[cx[0], cy[0], theme.marker_size * scale + 2]]))
            return np.vstack(rows)

        def free(rect: QRectF, points: np.ndarray) -> bool:
            if not QRectF(0, 0, width, height).contains(rect):
                return False
            x, y, r = points[:, 0], points[:, 1], points[:, 2]
            return not np.any((x >= rect.left() - r) & (x <= rect.right() + r)
                              & (y >= rect.top() - r) & (y <= rect.bottom() + r))

        label = self.oom_label
        line_y = None
        if self._capacity is not None:
            line_y = height - (self._capacity / self.unit_bytes) / top * height
        label_rect = None
        if line_y is not None and label.edge_value is not None:
            points = obstacles(top)
            inset, gap = 6.0, theme.capacity_px / 2 + 1
            chosen = None
            # Measured, not set, until one fits: setting a text lays the item out again.
            metrics = QFontMetrics(label.textItem.font())
            pad = 2 * label.textItem.document().documentMargin()
            for text in getattr(self, "_oom_texts", ()):
                size = QSizeF(metrics.horizontalAdvance(text) + pad + 2, metrics.height() + pad)
                for side, below in (("left", False), ("right", True), ("right", False),
                                    ("left", True)):
                    left = inset if side == "left" else width - inset - size.width()
                    y = line_y + gap if below else line_y - gap - size.height()
                    rect = QRectF(left, y, size.width(), size.height())
                    if free(rect, points):
                        chosen = (side, below, rect)
                        break
                if chosen is not None:
                    self._set_text(label, text)
                    break
            suppressed = chosen is None and self._fit_label.isVisible()
            # Hidden at this very widget size, the label stays hidden: its legend row took
            # the plot's room, and giving the row back would make room for the label again
            # - a flip on every layout pass, without end. A new size decides afresh.
            size = (self.plot_widget.width(), self.plot_widget.height())
            if label.edge_suppressed and not suppressed and self._oom_hidden_at == size:
                suppressed = True
            if chosen is not None and not suppressed:
                label.edge_side, label.edge_below, label_rect = chosen
            if suppressed != label.edge_suppressed:
                label.edge_suppressed = suppressed
                self._oom_hidden_at = size if suppressed else None
                self._layout_legend()

        badge = self._fit_label
        if not badge.isVisible():
            return top
        size = badge.textItem.boundingRect().size()
        margin = BADGE_MARGIN

        def corners():
            return [QRectF(margin + 2, margin, size.width(), size.height()),
                    QRectF(width - margin - size.width(), margin, size.width(), size.height()),
                    QRectF(width - margin - size.width(), height - margin - size.height(),
                           size.width(), size.height()),
                    QRectF(margin + 2, height - margin - size.height(), size.width(),
                           size.height())]

        def blocked(top_) -> np.ndarray:
            points = obstacles(top_)
            if line_y is not None:
                y = height - (self._capacity / self.unit_bytes) / top_ * height
                line = np.arange(0, width, 4)
                points = np.vstack([points, np.column_stack(
                    [line, np.full(line.shape, y), np.full(line.shape,
                                                           theme.capacity_px / 2 + 2)])])
            return points

        points = blocked(top)
        for rect in corners():
            if free(rect, points) and (label_rect is None or not rect.intersects(label_rect)):
                badge.setPos(rect.topLeft())
                return top
        # No free corner: the top-left one, with the range raised until the curve under it
        # passes below it.
        badge.setPos(margin + 2, margin)
        span = QRectF(margin + 2, 0, size.width(), height)
        px, _ = pixels(xs, ys, top)
        under = [y for x, y in zip(px, ys, strict=True) if span.left() <= x <= span.right()]
        if under:
            room = 1 - (margin + size.height() + theme.marker_size) / height
            if room > 0.2:
                top = max(top, max(under) / room)
        if label_rect is not None and not label.edge_below and label_rect.left() < size.width():
            # the out-of-memory label over its line at the left: the line goes a label's
            # height under the badge, so that the label fits between them
            room = 1 - (margin + size.height() + label_rect.height() + 6) / height
            if room > 0.2:
                top = max(top, (self._capacity / self.unit_bytes) / room)
        if label_rect is not None and not label.edge_below:
            # The out-of-memory label over its line would sit under the badge (it showed
            # through it): it goes under the line, on the same side.
            y = height - (self._capacity / self.unit_bytes) / top * height
            above = QRectF(label_rect.left(), y - (line_y - label_rect.top()),
                           label_rect.width(), label_rect.height())
            if above.intersects(QRectF(margin + 2, margin, size.width(), size.height())):
                label.edge_below = True
        return top


__all__ = ["CurveAnnotations"]
