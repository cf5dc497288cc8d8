"""The Probe page's run buttons: Quick, Full, Burn-in (minutes, temperature limit), Plan
check, Dataset disk…, Stop and Cancel. The page connects the buttons to its runs."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSpinBox, QWidget

from gpuadvisor.probes import runner, telemetry

from . import format as fmt
from .widgets import translate

#: Burn-in minutes (lowest, highest, default) and the temperature limit in °C; the limit's
#: default follows the card's slowdown threshold once a card is read
#: (:func:`gpuadvisor.probes.telemetry.default_temp_limit_c`).
BURNIN_MINUTES = (1, 240, 10)
TEMPERATURE_LIMIT_C = (30, 105, round(telemetry.DEFAULT_TEMP_LIMIT_C))


class RunControls(QWidget):
    """The buttons that start and end probe runs, and the burn-in's settings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.limit_edited = False
        actions = QHBoxLayout(self)
        actions.setContentsMargins(0, 0, 0, 0)
        self.quick_button = QPushButton(translate("ProbePage", "Quick"), self)
        suite = fmt.probe_names(runner.SUITE_PROBES, translate)
        self.quick_button.setToolTip(translate("ProbePage", "{probes}, at small sizes").format(
            probes=suite))
        self.full_button = QPushButton(translate("ProbePage", "Full"), self)
        self.full_button.setToolTip(translate(
            "ProbePage", "{probes}, at larger sizes: minutes").format(probes=suite))
        actions.addWidget(self.quick_button)
        actions.addWidget(self.full_button)
        actions.addSpacing(18)
        self.burnin_button = QPushButton(translate("ProbePage", "Burn-in"), self)
        self.burnin_button.setToolTip(translate(
            "ProbePage", "Sustained load with every result checked: do clocks and throughput "
            "hold up as the GPU heats up, and are its results right?"))
        self.burnin_minutes = QSpinBox(self)
        self.burnin_minutes.setObjectName("burninMinutes")
        low, high, default = BURNIN_MINUTES
        self.burnin_minutes.setRange(low, high)
        self.burnin_minutes.setValue(default)
        self.burnin_minutes.setSuffix(translate("ProbePage", " min"))
        self.burnin_minutes.setToolTip(translate("ProbePage",
                                                 "How long the burn-in keeps the device busy"))
        self.temperature_limit = QSpinBox(self)
        self.temperature_limit.setObjectName("temperatureLimit")
        low, high, default = TEMPERATURE_LIMIT_C
        self.temperature_limit.setRange(low, high)
        self.temperature_limit.setValue(default)
        self.temperature_limit.setSuffix(" °C")
        self.temperature_limit.setToolTip(translate(
            "ProbePage", "The burn-in is asked to stop when the GPU reaches this temperature"))
        actions.addWidget(self.burnin_button)
        actions.addWidget(self.burnin_minutes)
        actions.addWidget(QLabel(translate("ProbePage", "stop at"), self))
        actions.addWidget(self.temperature_limit)
        actions.addSpacing(18)
        self.plancheck_button = QPushButton(translate("ProbePage", "Plan check"), self)
        self.plancheck_button.setToolTip(translate(
            "ProbePage", "Build the Plan page's model at depths 1 and 2, train a few steps at "
            "the plan's batch and sequence length, and compare memory and time with the "
            "estimate"))
        actions.addWidget(self.plancheck_button)
        self.dataread_button = QPushButton(translate("ProbePage", "Dataset disk…"), self)
        self.dataread_button.setToolTip(translate(
            "ProbePage", "Pick your dataset folder: how fast it reads, and whether that keeps "
            "up with the tokens per second the plan trains at"))
        actions.addWidget(self.dataread_button)
        actions.addStretch(1)
        self.stop_button = QPushButton(translate("ProbePage", "Stop"), self)
        self.stop_button.setToolTip(translate("ProbePage",
                                              "End the burn-in early and keep what it measured"))
        self.cancel_button = QPushButton(translate("ProbePage", "Cancel"), self)
        self.cancel_button.setToolTip(translate("ProbePage",
                                                "Stop the probe now; nothing is saved"))
        actions.addWidget(self.stop_button)
        actions.addWidget(self.cancel_button)
        self.temperature_limit.valueChanged.connect(self._on_limit_edited)

    @property
    def start_buttons(self) -> tuple[QPushButton, ...]:
        """The buttons that start a run."""
        return (self.quick_button, self.full_button, self.burnin_button,
                self.plancheck_button, self.dataread_button)

    def set_state(self, ready: bool, running: bool, can_stop: bool) -> None:
        """Enable the start buttons when a run can start, Cancel while one runs, Stop while
        a burn-in runs that was not asked to stop yet."""
        for button in self.start_buttons:
            button.setEnabled(ready)
        self.cancel_button.setEnabled(running)
        self.stop_button.setEnabled(can_stop)

    def suggest_temperature_limit(self, limit_c: float) -> None:
        """Set the card's own limit as the default, until the user sets one."""
        if not self.limit_edited:
            with QSignalBlocker(self.temperature_limit):
                self.temperature_limit.setValue(round(limit_c))

    def _on_limit_edited(self, _value: int) -> None:
        self.limit_edited = True


__all__ = ["BURNIN_MINUTES", "TEMPERATURE_LIMIT_C", "RunControls"]
