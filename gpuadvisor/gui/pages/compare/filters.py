"""What the Compare page's table and chart show: the :class:`Filters` and the row of
widgets above the table that sets them."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLineEdit, QWidget

from gpuadvisor.core.advisor import OPTION_KINDS, Suggestion
from gpuadvisor.core.apis import API_KIND
from gpuadvisor.core.token_costs import TokenCost
from gpuadvisor.gui.charts.compare_charts import kind_labels

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: Minimum memory choices of the filter (GB as marketed; 0: any).
MIN_VRAM_CHOICES = (0, 12, 16, 24, 32, 40, 48, 80, 141)


@dataclass
class Filters:
    """What the table and the chart show.

    Attributes:
        kinds: option kinds shown (:data:`~gpuadvisor.core.advisor.OPTION_KINDS` and
            ``api``, the hosted APIs of an inference plan).
        vendor: GPU vendor, or "" for any.
        min_vram_gb: least memory per GPU in GB as marketed (0: any).
        provider: seller or cloud, or "" for any.
        spot: "any", "on-demand" or "spot".
        fits_only: hide options the plan does not fit.
        text: words that must all appear in the option's name, provider or region.
    """

    kinds: frozenset[str] = frozenset((*OPTION_KINDS, API_KIND))
    vendor: str = ""
    min_vram_gb: int = 0
    provider: str = ""
    spot: str = "any"
    fits_only: bool = False
    text: str = ""

    def accepts(self, s: Suggestion | TokenCost) -> bool:
        """Whether an option (or an inference plan's per-token row) is shown."""
        if isinstance(s, TokenCost):
            if s.suggestion is not None:
                return self.accepts(s.suggestion)
            return self._accepts_api(s)
        option = s.option
        offer = option.offer
        if option.kind not in self.kinds:
            return False
        if self.vendor and option.gpu.vendor != self.vendor:
            return False
        # Marketed "80 GB" cards have 79.x GiB usable in some catalogs: compare with slack.
        if self.min_vram_gb and option.gpu.memory_gib < self.min_vram_gb * 0.93:
            return False
        if self.provider and (offer is None or offer.provider != self.provider):
            return False
        if self.spot != "any":
            spot = bool(offer is not None and offer.spot)
            if spot != (self.spot == "spot"):
                return False
        if self.fits_only and not s.fits:
            return False
        if self.text:
            haystack = " ".join(filter(None, (
                option.label, option.gpu.name, offer.provider if offer else "",
                offer.region if offer else "", offer.instance if offer else ""))).lower()
            if not all(word in haystack for word in self.text.lower().split()):
                return False
        return True


    def _accepts_api(self, row: TokenCost) -> bool:
        """A hosted API: no GPU to filter on (a maker or memory filter hides it), on demand."""
        api = row.api
        if API_KIND not in self.kinds or self.vendor or self.min_vram_gb:
            return False
        if self.provider and api.provider != self.provider:
            return False
        if self.spot == "spot":
            return False
        if self.text:
            haystack = f"{api.provider} {api.model_name} {row.label}".lower()
            if not all(word in haystack for word in self.text.lower().split()):
                return False
        return True


class _SearchField(QLineEdit):
    """The search box: its examples where it is wide enough for them ("Search: 4090,
    RunPod, us-east…"), else "Search…" (at 1280 x 720 the examples were cut to
    "Search: …"); the examples stay in its tooltip."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._hints = (translate("ComparePage", "Search: 4090, RunPod, us-east…"),
                       translate("ComparePage", "Search…"))
        self.setPlaceholderText(self._hints[0])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        room = self.width() - 40  # the frame, its margins and the clear button
        full, short = self._hints
        hint = full if self.fontMetrics().horizontalAdvance(full) <= room else short
        if self.placeholderText() != hint:
            self.setPlaceholderText(hint)


class FilterBar(QWidget):
    """Kinds to show, maker, least memory, seller, spot or on-demand, fits only, search.

    Emits ``changed`` on every user edit (not on :meth:`set_filters` or
    :meth:`fill_choices`).
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.kind_boxes: dict[str, QCheckBox] = {}
        for kind, text in kind_labels().items():
            check = QCheckBox(text, self)
            check.setToolTip(translate("ComparePage", "Show the options of this kind in the "
                                       "table and the chart"))
            check.setChecked(True)
            check.toggled.connect(lambda _on: self.changed.emit())
            row.addWidget(check)
            self.kind_boxes[kind] = check
        # Hosted APIs: an inference plan's rows only (hidden for training plans).
        check = QCheckBox(translate("ComparePage", "hosted API"), self)
        check.setToolTip(translate("ComparePage", "Show the hosted APIs' per-token prices"))
        check.setChecked(True)
        check.toggled.connect(lambda _on: self.changed.emit())
        check.hide()
        row.addWidget(check)
        self.kind_boxes[API_KIND] = check
        row.addSpacing(8)
        self.vendor_combo = QComboBox(self)
        self.vendor_combo.setToolTip(translate("ComparePage", "GPU maker"))
        self.vram_combo = QComboBox(self)
        self.vram_combo.setToolTip(translate("ComparePage", "Least memory per GPU"))
        for gb in MIN_VRAM_CHOICES:
            self.vram_combo.addItem(translate("ComparePage", "any memory") if gb == 0 else
                                    translate("ComparePage", "≥ {gb} GB").format(gb=gb), gb)
        self.provider_combo = QComboBox(self)
        self.provider_combo.setToolTip(translate("ComparePage", "Seller, marketplace or cloud"))
        self.spot_combo = QComboBox(self)
        for value, text in (("any", translate("ComparePage", "spot and on-demand")),
                            ("on-demand", translate("ComparePage", "on-demand only")),
                            ("spot", translate("ComparePage", "spot only"))):
            self.spot_combo.addItem(text, value)
        self.spot_combo.setToolTip(translate(
            "ComparePage", "Spot (interruptible) prices are cheaper; the job may be stopped "
            "and must resume from checkpoints"))
        self.fits_box = QCheckBox(translate("ComparePage", "fits only"), self)
        self.fits_box.setToolTip(translate("ComparePage", "Hide the options the plan does not "
                                           "fit"))
        self.search = _SearchField(self)
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(translate("ComparePage", "Keep the rows whose words contain "
                                         "all of these (a card, a seller, a region)"))
        for combo in (self.vendor_combo, self.vram_combo, self.provider_combo, self.spot_combo):
            combo.currentIndexChanged.connect(lambda _i: self.changed.emit())
            row.addWidget(combo)
        self.fits_box.toggled.connect(lambda _on: self.changed.emit())
        self.search.textChanged.connect(lambda _t: self.changed.emit())
        row.addWidget(self.fits_box)
        row.addWidget(self.search, 1)

    def show_api_kind(self, shown: bool) -> None:
        """Offer the hosted-API box (an inference plan) or not."""
        self.kind_boxes[API_KIND].setVisible(shown)

    def fill_choices(self, vendors: list[str], providers: list[str]) -> None:
        """The makers and sellers to choose from (after "any")."""
        for combo, values, anything in (
                (self.vendor_combo, vendors, translate("ComparePage", "any maker")),
                (self.provider_combo, providers, translate("ComparePage",
                                                           "any seller or cloud"))):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(anything, "")
            for value in values:
                combo.addItem(value, value)
            combo.blockSignals(False)

    def filters(self) -> Filters:
        """The filters as the widgets set them."""
        return Filters(
            kinds=frozenset(k for k, box in self.kind_boxes.items() if box.isChecked()),
            vendor=self.vendor_combo.currentData() or "",
            min_vram_gb=int(self.vram_combo.currentData() or 0),
            provider=self.provider_combo.currentData() or "",
            spot=self.spot_combo.currentData() or "any",
            fits_only=self.fits_box.isChecked(),
            text=self.search.text().strip())

    def set_filters(self, **changes) -> Filters:
        """Change some filters (``kinds``, ``vendor``, ``min_vram_gb``, ``provider``, ``spot``,
        ``fits_only``, ``text``) without emitting ``changed``; returns them all.

        Raises:
            ValueError: an unknown filter, or a choice the widgets do not offer.
        """
        f = self.filters()
        for name, value in changes.items():
            if not hasattr(f, name):
                raise ValueError(f"unknown filter {name!r}")
            setattr(f, name, value)
        widgets = [*self.kind_boxes.values(), self.vendor_combo, self.vram_combo,
                   self.provider_combo, self.spot_combo, self.fits_box, self.search]
        for widget in widgets:
            widget.blockSignals(True)
        try:
            for kind, box in self.kind_boxes.items():
                box.setChecked(kind in f.kinds)
            for combo, value in ((self.vendor_combo, f.vendor),
                                 (self.vram_combo, f.min_vram_gb),
                                 (self.provider_combo, f.provider), (self.spot_combo, f.spot)):
                index = combo.findData(value)
                if index < 0:
                    raise ValueError(f"no such choice: {value!r}")
                combo.setCurrentIndex(index)
            self.fits_box.setChecked(f.fits_only)
            self.search.setText(f.text)
        finally:
            for widget in widgets:
                widget.blockSignals(False)
        return f


__all__ = ["MIN_VRAM_CHOICES", "FilterBar", "Filters"]
