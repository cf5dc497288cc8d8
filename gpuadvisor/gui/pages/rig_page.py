"""The Rig page's old import path: the page lives in :mod:`gpuadvisor.gui.pages.rig`."""

from functools import partial

from gpuadvisor.gui.pages.rig import format as _format
from gpuadvisor.gui.pages.rig.demo_picker import DEMO_CATALOG_RIGS
from gpuadvisor.gui.pages.rig.jobs import detect_open, sample_backend
from gpuadvisor.gui.pages.rig.page import SAMPLE_INTERVAL_MS, RigPage
from gpuadvisor.gui.pages.rig.tiles import ERROR_CODES, GpuTile
from gpuadvisor.gui.pages.rig.widgets import translate

#: The texts in the user's language, as this module offered them.
gpu_rows = partial(_format.gpu_rows, translate=translate)
catalog_text = partial(_format.catalog_text, translate=translate)
host_rows = partial(_format.host_rows, translate=translate)

__all__ = ["DEMO_CATALOG_RIGS", "ERROR_CODES", "SAMPLE_INTERVAL_MS", "GpuTile", "RigPage",
           "catalog_text", "detect_open", "gpu_rows", "host_rows", "sample_backend"]
