"""The Plan page's "Make it fit" panel: the levers that free memory, cheapest first, one
button each, and the words each lever is shown with (the page, the summary and the help
speak of a lever the same way)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSize, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui import numbers as N

from . import labels as L


class LeverButton(QPushButton):
    """A lever's button: "title: before → after, verdict" on one line, or broken after the
    colon onto two lines when the button is too narrow for one (never clipped); a
    combination of levers ("A + B + C") then puts each lever on a line of its own. The
    broken form does not depend on the width, so a resize never re-wraps it again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""

    def full_text(self) -> str:
        """The one-line text, however the button shows it."""
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setAccessibleName(text)  # one line, however the button breaks it
        self._fit_text()

    def _two_lines(self) -> str:
        # after the title's colon: ": " in English, "：" in Chinese
        head, sep, tail = self._full.partition(": ")
        if not sep:
            head, sep, tail = self._full.partition("：")
        head = head.replace(" + ", " +\n")
        return f"{head}{sep.strip()}\n{tail}" if sep else self._full

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        metrics = self.fontMetrics()
        widest = max((metrics.horizontalAdvance(line) for line in self._two_lines().split("\n")),
                     default=0)
        return QSize(min(hint.width(), widest + 40), hint.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_text()

    def _fit_text(self) -> None:
        room = self.width() - 30  # padding and the coloured stripe
        if self.text() != self._full:
            # Back to one line only with a scroll bar's width to spare: in a panel that
            # scrolls while the button takes two lines and not while it takes one, the
            # scroll bar's coming and going flipped the text (and the layout) without end.
            room -= self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent) + 4
        one_line = self.fontMetrics().horizontalAdvance(self._full) <= room
        text = self._full if one_line else self._two_lines()
        if text != self.text():
            self.setText(text)


#: Levers shown on a projector (those that make the plan fit, cheapest first).
MAX_LEVERS_COMPACT = 2


class LeversPanel(QGroupBox):
    """The levers of "Make it fit", cheapest first, one button each; a click applies it."""

    lever_clicked = Signal(object)  # a core Lever

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Make it fit"), parent)
        self.setObjectName("leversPanel")
        self._layout = QVBoxLayout(self)
        self.header = QLabel(self)
        self.header.setObjectName("leversHeader")
        self.header.setWordWrap(True)
        self._layout.addWidget(self.header)
        self._rows = QVBoxLayout()
        self._rows.setSpacing(4)
        self._layout.addLayout(self._rows)
        self._layout.addStretch(1)
        self._buttons: list[QPushButton] = []
        self._levers: list = []

    def buttons(self) -> list[LeverButton]:
        """The lever buttons now shown, in order."""
        return list(self._buttons)

    def levers(self) -> list:
        """The levers now shown, in order."""
        return list(self._levers)

    def set_levers(self, levers: list, estimate, units: str, *,
                   fitting_only: bool = False) -> None:
        """Show ``levers`` (cheapest first) for the plan of ``estimate``; with
        ``fitting_only`` (a projector) only those that make it fit, when any does."""
        if fitting_only and any(lever.fits for lever in levers):
            levers = [lever for lever in levers if lever.fits][:MAX_LEVERS_COMPACT]
        self._levers = list(levers)
        if estimate.gpu is None:
            self.header.setText(self.tr("Choose a target GPU to see what would make the plan "
                                        "fit."))
        elif estimate.verdict == "tight" and any(lv.requests_before for lv in levers):
            self.header.setText(self.tr("Requests wait. To run more at once:") if fitting_only
                                else self.tr("Requests wait for room in the KV pool. Each "
                                             "change below lets more run at once:"))
        elif estimate.fits and levers and fitting_only:
            # A projector's panel holds two levers under a one-line header.
            self.header.setText(self.tr("It fits. To free memory:"))
        elif estimate.fits and levers:
            self.header.setText(self.tr("It fits. These changes would free memory for a "
                                        "larger batch or longer sequences:"))
        elif estimate.fits:
            self.header.setText(self.tr("It fits; nothing to change."))
        elif levers and levers[0].id == "combination":
            self.header.setText(self.tr("It does not fit, and no change alone is enough. The "
                                        "first row is the fastest set of changes that fits; "
                                        "the others each on its own (click to apply):"))
        elif levers and fitting_only and all(lever.fits for lever in levers):
            self.header.setText(self.tr("It does not fit. Each of these makes it fit:"))
        elif levers:
            self.header.setText(self.tr("It does not fit. Each change below on its own, "
                                        "cheapest first (click to apply):"))
        else:
            self.header.setText(self.tr("It does not fit, and no single change helps: try a "
                                        "smaller model or a larger GPU."))
        while len(self._buttons) < len(levers):
            button = LeverButton(self)
            button.setObjectName("leverButton")
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            index = len(self._buttons)
            button.clicked.connect(lambda _=False, i=index: self._clicked(i))
            self._rows.addWidget(button)
            self._buttons.append(button)
        for button, lever in zip(self._buttons, levers, strict=False):
            text = lever_text(lever, units)
            if text != button.full_text():
                button.set_full_text(text)
            tip = lever_tooltip(lever)
            if tip != button.toolTip():
                button.setToolTip(tip)
                button.setAccessibleDescription(tip)
            if button.property("fits") != bool(lever.fits):
                # A new property needs the style sheet applied again: a relayout and a
                # repaint, so only when the colour changes.
                button.setProperty("fits", bool(lever.fits))
                button.style().unpolish(button)
                button.style().polish(button)
            button.show()
        for button in self._buttons[len(levers):]:
            button.hide()

    def _clicked(self, index: int) -> None:
        if index < len(self._levers):
            self.lever_clicked.emit(self._levers[index])


def lever_title(lever) -> str:
    """The lever's name for people, translated ("2 GPUs with ZeRO-3" for more GPUs)."""
    if lever.id == "more_gpus":
        n = lever.changes.get("n_gpus", 0)
        if lever.plan is not None and not lever.plan.is_training:
            return QCoreApplication.translate(
                "LeversPanel", "{n} GPUs, the model split across them").format(n=n)
        return QCoreApplication.translate("LeversPanel", "{n} GPUs with ZeRO-3").format(n=n)
    if lever.id == "combination":  # the fastest set of levers that fits, named one by one
        return " + ".join(L.label(L.LEVERS, part, title) for part, title in lever.parts)
    if lever.id == "gpu_layers":
        return QCoreApplication.translate(
            "LeversPanel", "{n} layers on the GPU, the rest in host RAM (-ngl)").format(
                n=lever.changes.get("gpu_layers", 0))
    return L.label(L.LEVERS, lever.id, lever.title)


def lever_text(lever, units: str) -> str:
    """"gradient checkpointing: 31.2 GiB → 18.4 GiB, fits"; the time instead where the
    memory stays put and the time does not (llama.cpp's --fit fills each card again: a
    second GPU keeps more layers on the cards, and the gain is speed, "3.3 min → 1.7 min")."""
    if lever.requests_before and lever.requests_after != lever.requests_before:
        # vLLM takes the same share of the card either way: what moves is how many of the
        # plan's requests its KV pool runs at once.
        return QCoreApplication.translate(
            "LeversPanel", "{title}: {before} → {after} requests at once, {verdict}").format(
            title=lever_title(lever), before=lever.requests_before,
            after=lever.requests_after,
            verdict=QCoreApplication.translate("LeversPanel", "none wait") if lever.fits
            else QCoreApplication.translate("LeversPanel", "some still wait"))
    before = format_bytes(lever.before_bytes, units)
    after = format_bytes(lever.after_bytes, units)
    same_memory = abs(lever.after_bytes - lever.before_bytes) <= 0.02 * lever.before_bytes
    if same_memory and lever.seconds_before > 0 and \
            abs(lever.seconds_after / lever.seconds_before - 1) > 0.05:
        before, after = N.duration(lever.seconds_before), N.duration(lever.seconds_after)
    if lever.fits:
        verdict = QCoreApplication.translate("LeversPanel", "fits")
    else:
        verdict = QCoreApplication.translate("LeversPanel", "still too big")
    return QCoreApplication.translate(
        "LeversPanel", "{title}: {before} → {after}, {verdict}").format(
        title=lever_title(lever), before=before, after=after, verdict=verdict)


def lever_tooltip(lever) -> str:
    """What the lever changes, what it costs and its effect on time."""
    from gpuadvisor.gui.data_words import lever_text as words

    return "\n".join((
        words(lever.detail),
        QCoreApplication.translate("LeversPanel", "cost: {cost}").format(cost=words(lever.cost)),
        QCoreApplication.translate("LeversPanel", "time: {before} → {after}").format(
            before=N.duration(lever.seconds_before),
            after=N.duration(lever.seconds_after)),
    ))

