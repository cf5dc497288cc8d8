"""A small live chart of one GPU: temperature, SM clock, power and utilization over time.

The four readings have different units, so each is drawn as a percentage of its own limit
(temperature of the slowdown threshold, SM clock of its maximum, power of the enforced limit,
utilization as is) on one 0–100 % axis; the hover text gives the readings in their units.
A reading the driver does not report is a gap (NaN), never a zero.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QWidget

from .base import ChartBase
from .style import OKABE_ITO

#: Samples kept: two minutes at 2 Hz.
MAX_SAMPLES = 240
#: Top of the percent axis (a little over 100, so that a line at the limit shows).
Y_TOP = 110.0
#: Below 0 %: an idle card's 0 % utilization is a line of its own, not the x axis.
Y_BOTTOM = -4.0
#: Spacing of the percent axis's labels, the finest that fits the plot's height first.
PERCENT_STEPS = (20, 50, 100)
#: Series keys, in legend order.
SERIES = ("temperature", "sm_clock", "power", "utilization")
_COLORS = {
    "temperature": OKABE_ITO["vermillion"],
    "sm_clock": OKABE_ITO["blue"],
    "power": OKABE_ITO["orange"],
    "utilization": OKABE_ITO["bluish_green"],
}


def _percent(value: float | None, limit: float | None) -> float:
    if value is None or not limit:
        return math.nan
    return 100.0 * float(value) / float(limit)


def series_labels() -> dict[str, str]:
    """Legend labels, translated at call time."""
    return {
        "temperature": QCoreApplication.translate("LiveChart", "temperature"),
        "sm_clock": QCoreApplication.translate("LiveChart", "SM clock"),
        "power": QCoreApplication.translate("LiveChart", "power"),
        "utilization": QCoreApplication.translate("LiveChart", "utilization"),
    }


class LiveGpuChart(ChartBase):
    """Rolling readings of one GPU, each as a percentage of its limit.

    Attributes:
        curves: series key -> PlotDataItem; ``getData()`` is (seconds, percent).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(QCoreApplication.translate(
            "LiveChart", "Live readings of the GPU"))
        self._left_tick_sample = "100"
        self._t: deque[float] = deque(maxlen=MAX_SAMPLES)
        self._raw: deque[tuple] = deque(maxlen=MAX_SAMPLES)
        self._pct = {key: deque(maxlen=MAX_SAMPLES) for key in SERIES}
        self.curves: dict[str, pg.PlotDataItem] = {}
        for key in SERIES:
            curve = pg.PlotDataItem(connect="finite")
            self.plot_item.addItem(curve)
            self.curves[key] = curve
        self.plot_item.setMouseEnabled(x=False, y=False)
        self.plot_item.hideButtons()
        self.set_presentation(False)

    @property
    def sample_count(self) -> int:
        """Samples held now."""
        return len(self._t)

    def add_sample(self, t_s: float, gpu) -> None:
        """Append one reading of ``gpu`` (a GpuInfo) taken ``t_s`` seconds after the start."""
        self._t.append(float(t_s))
        self._raw.append((gpu.temperature_c, gpu.sm_clock_mhz, gpu.power_draw_w,
                          gpu.utilization_gpu_pct))
        self._pct["temperature"].append(_percent(gpu.temperature_c, gpu.temperature_slowdown_c))
        self._pct["sm_clock"].append(_percent(gpu.sm_clock_mhz, gpu.sm_clock_max_mhz))
        self._pct["power"].append(_percent(gpu.power_draw_w, gpu.power_limit_w))
        self._pct["utilization"].append(_percent(gpu.utilization_gpu_pct, 100.0))
        self._draw_data()

    def clear(self) -> None:
        """Forget every sample."""
        self._t.clear()
        self._raw.clear()
        for values in self._pct.values():
            values.clear()
        self._draw_data()

    # -- ChartBase ---------------------------------------------------------------------------

    def _redraw(self) -> None:
        theme = self.theme
        labels = series_labels()
        for key, curve in self.curves.items():
            # The clock's blue is the theme's curve colour (sky blue on a dark plot).
            color = theme.curve if key == "sm_clock" else _COLORS[key]
            curve.setPen(pg.mkPen(color, width=theme.line_px))
        self._set_axis_labels(QCoreApplication.translate("LiveChart", "seconds"),
                              QCoreApplication.translate("LiveChart", "% of limit"), "%")
        self._set_legend([(self.curves[key], labels[key]) for key in SERIES])
        self._draw_data()

    def _draw_data(self) -> None:
        t = np.fromiter(self._t, dtype=float, count=len(self._t))
        for key, curve in self.curves.items():
            values = np.fromiter(self._pct[key], dtype=float, count=len(self._pct[key]))
            curve.setData(t, values)
        self._frame()
        self._update_description()

    def describe(self) -> str:
        """The latest reading in a sentence (each in its unit)."""
        if not self._t:
            return ""
        return QCoreApplication.translate(
            "LiveChart", "Latest reading at {t:.0f} s: {readings}.").format(
            t=self._t[-1], readings=self._readings(len(self._t) - 1, ", "))

    def _readings(self, i: int, sep: str) -> str:
        temp, clock, power, util = self._raw[i]

        def v(value, unit: str) -> str:
            return QCoreApplication.translate("LiveChart", "n/a") if value is None \
                else f"{value:.0f} {unit}"

        labels = series_labels()
        return sep.join([
            f"{labels['temperature']}: {v(temp, '°C')}",
            f"{labels['sm_clock']}: {v(clock, 'MHz')}",
            f"{labels['power']}: {v(power, 'W')}",
            f"{labels['utilization']}: {v(util, '%')}",
        ])

    def _frame(self) -> None:
        end = self._t[-1] if self._t else 0.0
        self.plot_item.vb.setRange(xRange=(max(0.0, end - 60.0), max(end, 10.0)),
                                   yRange=(Y_BOTTOM, Y_TOP), padding=0)
        self._space_percent_ticks()

    def _space_percent_ticks(self) -> None:
        """Percent labels every 20 where they fit the plot's height, else every 50 or 100:
        pyqtgraph draws every major label however short the plot, and at a projector's
        16 pt five of them overlapped in a short chart."""
        height = self.plot_item.vb.height()
        if height <= 0:
            return
        room = 1.2 * QFontMetrics(self.theme.font(self.theme.tick_pt)).height()
        span = Y_TOP - Y_BOTTOM
        step = next((s for s in PERCENT_STEPS if s / span * height >= room), PERCENT_STEPS[-1])
        if step != getattr(self, "_percent_step", None):
            self._percent_step = step
            self.plot_item.getAxis("left").setTickSpacing(step, step / 2)

    def _hover_text_at(self, x: float, y: float) -> str | None:
        if not self._t:
            return None
        t = np.fromiter(self._t, dtype=float, count=len(self._t))
        i = int(np.argmin(np.abs(t - x)))
        return f"{t[i]:.1f} s\n" + self._readings(i, "\n")
