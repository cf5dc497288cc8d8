"""The Probe page's pickers: the Python environment the probes run in, and the device.

The picker holds the interpreters found (each checked by the worker's handshake) and
remembers the one picked in the settings. Looking for them and checking a browsed one run
on the page's pool; the page hands their answers back here (:meth:`PythonPicker.on_answer`),
and an answer to an older scan than the latest is dropped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QWidget,
)

from gpuadvisor.gui.pages.tasks import PageTasks
from gpuadvisor.gui.probe_jobs import Interpreter, check_python, discover_interpreters
from gpuadvisor.gui.widgets.fields import ElidingComboBox

from . import format as fmt
from .widgets import translate


def same_path(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name the same file (case-insensitively where the OS is)."""
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def worker_discover(worker: str, args: Sequence[str]) -> Callable[[str | None],
                                                                   list[Interpreter]]:
    """``discover(preferred)``: every interpreter worth offering, checked with ``worker``."""
    def discover(preferred: str | None) -> list[Interpreter]:
        return discover_interpreters(
            preferred, worker=worker,
            check=lambda p: check_python(p, worker=worker, extra_args=args))
    return discover


def worker_check(worker: str, args: Sequence[str]) -> Callable[[str], Interpreter]:
    """``check(python)``: the worker's handshake in ``python``."""
    return lambda python: check_python(python, worker=worker, extra_args=args)


class FittingComboBox(ElidingComboBox):
    """A picker whose shown text is shortened by a rule that knows what the text is made of
    (``fit(data, width, room) -> text``, given the current item's data, a measure and the
    room), never cut mid-word: Qt's eliding had "cpu — Inte…, 23.5 GiB" and
    "/work/main/.venv/bin/p…h 2.13.0+cpu". Items without data (and a rule's text still too
    wide) lose their middle to an ellipsis as before. Where the text is shortened, the
    tooltip starts with the whole of it."""

    def __init__(self, parent: QWidget | None,
                 fit: Callable[[object, Callable[[str], float], float], str | None]) -> None:
        super().__init__(parent, elide=Qt.TextElideMode.ElideMiddle)
        self._fit = fit
        self._tip_base: str | None = None  # the tooltip before a whole text was put first
        self._tip_shown: str | None = None
        self.currentTextChanged.connect(lambda _text: self.refit())

    def _room(self) -> int:
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        return self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                           QStyle.SubControl.SC_ComboBoxEditField,
                                           self).width()

    def shown_text(self, room: int | None = None) -> str:
        """The current item's text as the box shows it."""
        text = self.currentText()
        room = self._room() if room is None else room
        metrics = self.fontMetrics()
        if metrics.horizontalAdvance(text) <= room:
            return text
        data = self.currentData()
        fitted = self._fit(data, metrics.horizontalAdvance, room) if data is not None else None
        if fitted and metrics.horizontalAdvance(fitted) <= room:
            return fitted
        return metrics.elidedText(fitted or text, self.elide_mode, room)

    def refit(self) -> str:
        """Work out the shown text and keep the tooltip in step; returns the text."""
        shown = self.shown_text()
        own = self.toolTip()
        base = self._tip_base if own == self._tip_shown and self._tip_shown is not None \
            else own
        whole = self.currentText()
        tip = "\n".join(t for t in (whole, base) if t) if shown != whole else base
        if tip != own:
            self._tip_base, self._tip_shown = base, tip
            self.setToolTip(tip)
        return shown

    def paintEvent(self, _event) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.refit()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.refit()


class PythonPicker(QWidget):
    """Python and Device pickers, with Browse… and Rescan.

    Signals:
        interpreter_changed(): another interpreter is picked (its devices are listed).
        device_changed(): another device is picked.
        ready(): the interpreters were listed (a scan or a check ended).
        scan_failed(str): looking for interpreters failed; what to say.
        checked(str): a browsed interpreter was checked; what it is.
        check_failed(str): checking it failed; why.
    """

    interpreter_changed = Signal()
    device_changed = Signal()
    ready = Signal()
    scan_failed = Signal(str)
    checked = Signal(str)
    check_failed = Signal(str)

    def __init__(self, settings, units: str, preferred: str | None, tasks: PageTasks,
                 discover: Callable[[str | None], list[Interpreter]],
                 check: Callable[[str], Interpreter], parent: QWidget | None = None) -> None:
        """Build the pickers.

        Args:
            settings: the app's Settings (``probe_python`` is read, and set on a pick).
            units: "GiB" or "GB" for device memory.
            preferred: the interpreter to preselect instead of the remembered one.
            tasks: the page's pool, for ``discover`` and ``check``.
            discover: ``discover(preferred) -> [Interpreter]`` (blocking).
            check: ``check(python) -> Interpreter`` (blocking).
            parent: Qt parent.
        """
        super().__init__(parent)
        self.settings = settings
        self.units = units
        self.preferred = preferred
        self._tasks = tasks
        self._discover = discover
        self._check = check
        self.generation = 0
        self.interpreters: list[Interpreter] = []
        self.discovering = False
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel(translate("ProbePage", "Python:"), self))
        # Both ends of a picker's text matter (the path and its PyTorch, the device and its
        # memory): where the bar is narrow, on a projector, the path loses folders from its
        # middle, the device's name its noise and then its first words (whole ones).
        self.python_combo = FittingComboBox(self, self._fit_interpreter)
        self.python_combo.setObjectName("probePython")
        self.python_combo.setToolTip(translate(
            "ProbePage", "The Python environment the probes run in: one with PyTorch, such "
            "as your training environment"))
        self.python_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.python_combo.setMinimumContentsLength(22)
        bar.addWidget(self.python_combo, 2)
        self.browse_button = QPushButton(translate("ProbePage", "Browse…"), self)
        self.browse_button.setToolTip(translate("ProbePage",
                                                "Choose a python executable with PyTorch"))
        bar.addWidget(self.browse_button)
        self.rescan_button = QPushButton(translate("ProbePage", "Rescan"), self)
        self.rescan_button.setToolTip(translate("ProbePage",
                                                "Look for Python environments again"))
        bar.addWidget(self.rescan_button)
        bar.addSpacing(12)
        bar.addWidget(QLabel(translate("ProbePage", "Device:"), self))
        self.device_combo = FittingComboBox(self, self._fit_device)
        self.device_combo.setObjectName("probeDevice")
        self.device_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_combo.setMinimumContentsLength(14)
        bar.addWidget(self.device_combo, 1)
        self.python_combo.activated.connect(self._on_python_picked)
        self.device_combo.currentIndexChanged.connect(lambda _i: self.device_changed.emit())

    def _fit_interpreter(self, data, width, room) -> str | None:
        if not isinstance(data, Interpreter):
            return None
        return fmt.fitted_interpreter_text(data.info, width, room, translate)

    def _fit_device(self, data, width, room) -> str | None:
        if not isinstance(data, dict):
            return None
        return fmt.fitted_device_text(data, self.units, width, room)

    # ------------------------------------------------------------------ what is picked
    @property
    def wanted_python(self) -> str | None:
        """The interpreter to look for first: the one asked for, else the remembered one."""
        return self.preferred or self.settings.probe_python

    def current_python(self) -> str | None:
        """The interpreter picked (None while none)."""
        found = self.current_interpreter()
        return found.python if found is not None else None

    def current_interpreter(self) -> Interpreter | None:
        data = self.python_combo.currentData()
        return data if isinstance(data, Interpreter) else None

    def current_device(self) -> dict | None:
        """The device picked (a ``hello`` device: ``id``, ``name``, ``type``...), or None."""
        data = self.device_combo.currentData()
        return data if isinstance(data, dict) else None

    def device_note(self, simulate: str | None) -> str:
        """The line under the pickers (see :func:`.format.device_note`)."""
        found = self.current_interpreter()
        return fmt.device_note(self.current_device(), found.info if found else None,
                               len(found.devices) if found else 0,
                               discovering=self.discovering, simulate=simulate,
                               translate=translate)

    def torch_problem(self) -> str | None:
        """What to say about PyTorch in the banner, or None (all is well, or still looking)."""
        if self.discovering:
            return None
        found = self.current_interpreter()
        if any(i.usable for i in self.interpreters):
            if found is not None and not found.usable:
                return fmt.torch_missing_text(found.python, translate)
            return None
        return fmt.no_torch_text(translate)

    # ------------------------------------------------------------------ looking
    def rescan(self) -> int:
        """Empty the pickers and look for interpreters in the background; returns the
        scan's generation."""
        self.generation += 1
        self.discovering = True
        self.python_combo.clear()
        self.python_combo.addItem(translate("ProbePage",
                                            "Looking for Python environments with PyTorch…"))
        self.device_combo.clear()
        preferred, discover = self.wanted_python, self._discover
        self._tasks.start(self.generation, "discover", lambda: discover(preferred))
        return self.generation

    def check(self, path: str) -> None:
        """Check ``path`` in the background; it becomes the preferred interpreter."""
        self.preferred = path
        self.python_combo.setEnabled(False)
        check = self._check
        self._tasks.start(self.generation, "check", lambda: check(path))

    def on_answer(self, generation: int, kind: str, result, error) -> None:
        """The answer of a scan (``discover``) or a check (``check``), on the GUI thread."""
        if kind == "discover":
            if generation != self.generation:
                return  # a newer scan is on its way
            self.discovering = False
            if error is not None:
                self.fill_pythons([])
                self.scan_failed.emit(translate(
                    "ProbePage", "Looking for Python environments failed: {error}").format(
                    error=error))
            else:
                self.fill_pythons(result)
            self.ready.emit()
        elif kind == "check":
            if error is not None:
                self.check_failed.emit(str(error))
                return
            self.add_checked(result)
            self.checked.emit(fmt.interpreter_text(result.info, translate))
            self.ready.emit()

    # ------------------------------------------------------------------ filling

    def fill_pythons(self, found: list[Interpreter], select: str | None = None) -> None:
        """List ``found`` and pick ``select``, else the wanted one if usable, else the first
        usable with an accelerator, else the first usable."""
        self.interpreters = list(found)
        combo = self.python_combo
        with QSignalBlocker(combo):
            combo.clear()
            for item in self.interpreters:
                combo.addItem(fmt.interpreter_text(item.info, translate), item)
                combo.setItemData(combo.count() - 1, item.python, Qt.ItemDataRole.ToolTipRole)
            if not self.interpreters:
                combo.addItem(translate("ProbePage", "No Python environment found"))
            wanted = select or self.wanted_python
            usable = [i for i in self.interpreters if i.usable]
            chosen = next((i for i in self.interpreters if wanted and same_path(i.python, wanted)
                           and (i.usable or select)), None)
            chosen = chosen or next((i for i in usable if i.info.accelerators),
                                    usable[0] if usable else None)
            combo.setCurrentIndex(self.interpreters.index(chosen) if chosen else 0)
        view = combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 24)
        self._fill_devices()

    def add_checked(self, checked: Interpreter) -> None:
        """A browsed interpreter was checked: list it first and pick it (remembered if it
        has PyTorch)."""
        found = [i for i in self.interpreters if not same_path(i.python, checked.python)]
        self.fill_pythons([checked, *found], select=checked.python)
        if checked.usable:
            self.settings.probe_python = os.path.abspath(checked.python)

    def set_units(self, units: str) -> None:
        """Show device memory in ``units``."""
        self.units = units
        for i in range(self.device_combo.count()):
            device = self.device_combo.itemData(i)
            if isinstance(device, dict):
                self.device_combo.setItemText(i, fmt.device_text(device, units))

    def set_idle(self, idle: bool) -> None:
        """Pickers work only while no probe runs."""
        for widget in (self.python_combo, self.browse_button, self.rescan_button):
            widget.setEnabled(idle)
        self.device_combo.setEnabled(idle and self.device_combo.count() > 0)

    def _on_python_picked(self, _index: int) -> None:
        found = self.current_interpreter()
        if found is not None and found.usable:
            # Remembered like ``gpuadvisor probe --python``; the window saves the settings.
            self.settings.probe_python = os.path.abspath(found.python)
        self._fill_devices()

    def _fill_devices(self) -> None:
        found = self.current_interpreter()
        combo = self.device_combo
        with QSignalBlocker(combo):
            combo.clear()
            for device in (found.devices if found is not None else ()):
                combo.addItem(fmt.device_text(device, self.units), dict(device))
        self.interpreter_changed.emit()


__all__ = ["FittingComboBox", "PythonPicker", "same_path", "worker_check", "worker_discover"]
