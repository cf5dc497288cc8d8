"""The Rig page's Host box: CPU, RAM, disk, OS and Python, and PyTorch."""

from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QGroupBox, QLabel, QWidget

from gpuadvisor.hardware import HostInfo

from . import format as fmt
from .widgets import fill_grid, pair_text, translate


class HostPanel(QGroupBox):
    """The host's fields, two (name, value) pairs per line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(translate("RigPage", "Host"), parent)
        self._grid = QGridLayout(self)
        self._grid.setHorizontalSpacing(10)
        self._grid.setVerticalSpacing(2)
        self._grid.setColumnStretch(1, 1)
        self._grid.setColumnStretch(3, 1)
        self.labels: list[tuple[QLabel, QLabel]] = []

    def set_host(self, host: HostInfo, units: str) -> None:
        """Show ``host``, sizes in ``units``."""
        fill_grid(self._grid, self.labels, fmt.host_rows(host, units, translate), self,
                  columns=2)

    def text(self) -> str:
        """Every field, one ``name: value`` per line."""
        return "\n".join(pair_text(n, v) for n, v in self.labels)


__all__ = ["HostPanel"]
