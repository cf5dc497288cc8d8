"""Chart widgets for the Plan page: thin pyqtgraph views over numbers the core computed.

Each chart is a ``QWidget`` wrapping one ``pyqtgraph.PlotWidget``; it creates its items once and
updates them in ``set_data(...)``, shows exact numbers on hover, zooms and pans with the mouse,
shows bytes in ``"GiB"`` or ``"GB"`` (``set_units``), and has a presentation mode
(``set_presentation``). Colours and sizes live in :mod:`.style`.
"""

from .curves import MemoryCurveChart
from .fit_map import FitMapChart
from .vram_bar import VramBreakdownChart

__all__ = ["FitMapChart", "MemoryCurveChart", "VramBreakdownChart"]
