"""The Probe page's old import path: the page lives in :mod:`gpuadvisor.gui.pages.probe`."""

from gpuadvisor.gui.pages.probe.controls import BURNIN_MINUTES, TEMPERATURE_LIMIT_C
from gpuadvisor.gui.pages.probe.format import PROBE_NAMES, UNIT_TITLES, figure_label
from gpuadvisor.gui.pages.probe.history_panel import PREFERRED_FIGURES, HistoryPanel
from gpuadvisor.gui.pages.probe.page import ProbePage
from gpuadvisor.gui.pages.probe.telemetry_panel import SAMPLE_INTERVAL_MS
from gpuadvisor.gui.pages.probe.widgets import probe_name

__all__ = ["BURNIN_MINUTES", "PREFERRED_FIGURES", "PROBE_NAMES", "SAMPLE_INTERVAL_MS",
           "TEMPERATURE_LIMIT_C", "UNIT_TITLES", "HistoryPanel", "ProbePage", "figure_label",
           "probe_name"]
