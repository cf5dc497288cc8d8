"""Labels of a chart's horizontal lines, at the view's left or right edge ("RTX 3090 23.6
GiB", "12 GiB cards", the reading-speed floor): placed from the view range on every change,
clear of the chart's corner badge, of its other labels and of each other (a mixin of
:class:`~.base.ChartBase`: it reads the chart's view box, ``_edge_labels`` and
``_edge_badge``).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF


class EdgeLabels:
    """The placement of a chart's line labels (see the module docstring)."""

    def _add_edge_label(self, side: str) -> pg.TextItem:
        """A text that labels a horizontal line at the view's left or right edge.

        pyqtgraph's own InfiniteLine labels can keep a stale position after a resize (the
        label may update before its line), leaving them cut off at the edge; these are
        re-placed from the view range on every change. Set ``item.edge_value`` (the line's
        y, or None to hide) and call :meth:`_place_edge_labels`.
        """
        item = pg.TextItem(anchor=(1, 1) if side == "right" else (0, 1))
        item.edge_side = side
        item.edge_below = False  # under its line rather than over it
        item.edge_value = None
        item.edge_suppressed = False  # hidden for lack of room, whatever its value
        # pixels between the line's centre and the label: half the line's width and one,
        # so that a label with a fill does not cover its own line
        item.edge_gap = 0.0
        item.setZValue(50)
        self.plot_item.addItem(item, ignoreBounds=True)
        self._edge_labels.append(item)
        return item

    def _place_edge_labels(self, *_args) -> None:
        vb = self.plot_item.vb
        (x0, x1), _ = vb.viewRange()
        try:
            inset = 6 * vb.viewPixelSize()[0]  # six pixels in from the edge
        except Exception:  # not laid out yet: no pixel size
            inset = 0.0
        badge = self._edge_badge
        keep_out = None
        if badge is not None and badge.isVisible():
            keep_out = QRectF(badge.pos(), badge.textItem.boundingRect().size())
        others = self._edge_keep_outs()
        for item in self._edge_labels:
            if item.edge_value is None or item.edge_suppressed:
                item.hide()
                continue
            x = x1 - inset if item.edge_side == "right" else x0 + inset
            below = item.edge_below
            if (keep_out is not None or others) and getattr(item, "edge_flips", False):
                # Over its line unless the corner badge (or another label of the chart) is
                # there: then under it.
                item.edge_below = False
                over = self._edge_label_rect(item, x)
                below = (keep_out is not None and keep_out.intersects(over)) or any(
                    r.intersects(over) for r in others)
            item.edge_below = below
            anchor = (1 if item.edge_side == "right" else 0, 0 if below else 1)
            if tuple(item.anchor) != anchor:
                item.setAnchor(anchor)
            item.setPos(x, self._edge_y(item))
            # A label the corner badge would still cover is left out (a short, narrow
            # plot): the badge is the headline, and the line still shows (its hover names it).
            # So is one that flipped under its line onto another of the chart's labels (a
            # projector's "RTX 4090 23.4 GiB" over the bar's total beside it).
            rect = self._edge_label_rect(item, x)
            item.setVisible((keep_out is None or not keep_out.intersects(rect))
                            and not (below and getattr(item, "edge_flips", False)
                                     and any(r.intersects(rect) for r in others)))
        # A line label that had to flip under its line wins over the other lines' labels
        # it now lands on: such a label goes under its own line when that place is free
        # (inside the plot, clear of the badge and the chart's other labels), else it is
        # left out (its line still shows; its hover names it).
        flipped = [self._edge_label_rect(i, x1 - inset if i.edge_side == "right" else
                                         x0 + inset)
                   for i in self._edge_labels if getattr(i, "edge_flips", False)
                   and i.isVisible() and i.edge_below]
        box = QRectF(0, 0, vb.width(), vb.height())
        for item in self._edge_labels:
            if flipped and not getattr(item, "edge_flips", False) and item.isVisible():
                x = x1 - inset if item.edge_side == "right" else x0 + inset
                if any(r.intersects(self._edge_label_rect(item, x)) for r in flipped):
                    item.edge_below = not item.edge_below
                    other = self._edge_label_rect(item, x)
                    taken = [*flipped, *others] + ([keep_out] if keep_out is not None else [])
                    if box.contains(other) and not any(r.intersects(other) for r in taken):
                        item.setAnchor((1 if item.edge_side == "right" else 0,
                                        0 if item.edge_below else 1))
                        item.setPos(x, self._edge_y(item))
                        flipped.append(other)
                    else:
                        item.edge_below = not item.edge_below
                        item.setVisible(False)
        # Two lines close together (the 12 and 16 GiB cards' lines on a short plot) would
        # print their labels over each other: a later label goes to the other side of its
        # line when that is free, else it is left out (its line still shows and hovers).
        taken = [*others] + ([keep_out] if keep_out is not None else [])
        placed: list[QRectF] = []
        # The card's own line (the one that flips) is placed first: a reference line's label
        # ("16 GiB cards") gives way to it, never the other way round.
        for item in sorted(self._edge_labels, key=lambda i: not getattr(i, "edge_flips", False)):
            if not item.isVisible():
                continue
            x = x1 - inset if item.edge_side == "right" else x0 + inset
            rect = self._edge_label_rect(item, x)
            # a reference line's label keeps off the chart's other labels too (a bar's total
            # beside it read "21.9 GiB 12 GiB cards" as one phrase)
            clash = placed if getattr(item, "edge_flips", False) else [
                *placed, *(r.adjusted(-16, 0, 16, 0) for r in others)]  # a word's gap apart
            if any(r.intersects(rect) for r in clash):
                item.edge_below = not item.edge_below
                rect = self._edge_label_rect(item, x)
                if box.contains(rect) and not any(r.intersects(rect)
                                                  for r in (*placed, *taken)):
                    item.setAnchor((1 if item.edge_side == "right" else 0,
                                    0 if item.edge_below else 1))
                    item.setPos(x, self._edge_y(item))
                else:
                    item.edge_below = not item.edge_below
                    item.setVisible(False)
                    continue
            placed.append(rect)

    def _edge_keep_outs(self) -> list[QRectF]:
        """Other labels of the chart (view-box pixels) an edge label that flips keeps
        clear of; none by default."""
        return []

    def _edge_y(self, item: pg.TextItem) -> float:
        """The view y of the label's anchor: its line's value, ``edge_gap`` pixels away
        on the label's side."""
        if not item.edge_gap:
            return item.edge_value
        try:
            per_pixel = abs(self.plot_item.vb.viewPixelSize()[1])
        except Exception:  # not laid out yet: no pixel size
            return item.edge_value
        return item.edge_value + (-1 if item.edge_below else 1) * item.edge_gap * per_pixel

    def _edge_label_rect(self, item: pg.TextItem, x: float) -> QRectF:
        """Where an edge label at view x ``x`` lies, in view-box pixels."""
        anchor = self.plot_item.vb.mapFromView(QPointF(x, self._edge_y(item)))
        size = item.textItem.boundingRect().size()
        left = anchor.x() - size.width() if item.edge_side == "right" else anchor.x()
        top = anchor.y() if item.edge_below else anchor.y() - size.height()
        return QRectF(left, top, size.width(), size.height())


__all__ = ["EdgeLabels"]
