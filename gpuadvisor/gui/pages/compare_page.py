"""The Compare page: every way to run the plan — your rig, a card to buy, a rental, a cloud —
with its time and cost, ranked for the user's goal, budget and deadline.

What it shows:

- the answer in one or two sentences (the best option for the goal, and the fastest when that
  is another one), or why nothing fits and the smallest change that would;
- time against cost of every fitting option (log axes, Pareto front, hover, click to select);
- a table of every option, sortable by any column and filtered by kind, vendor, memory,
  provider and spot/on-demand; prices older than 90 days are marked, the user's own prices
  (from their overrides file) say so;
- the selected option in detail, and owning against renting (break-even) for it;
- exports of the selected option: SkyPilot task, accelerate config, DeepSpeed config, launch
  script, and a report (HTML with the charts inside, or Markdown).

The advice (:func:`gpuadvisor.core.advisor.advise`) runs on a page-owned ``QThreadPool``; each
request carries a generation and only the newest answer is shown. Requests are debounced and
made only while the page is shown: a plan edited on the Plan page is advised again when the
user comes back. Money is kept in US dollars and shown in the user's display currency at
their exchange rate (settings); the electricity price is theirs too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from PySide6.QtCore import (
    QAbstractTableModel,
    QBuffer,
    QCoreApplication,
    QIODevice,
    QSortFilterProxyModel,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor import catalog
from gpuadvisor.core.advisor import (
    DEFAULT_LOAD_FRACTION,
    GOALS,
    OPTION_KINDS,
    Advice,
    Suggestion,
    advise,
    best_break_even,
    estimate_of,
    pareto,
    rank,
)
from gpuadvisor.core.offers import STALE_AFTER_DAYS, Offer
from gpuadvisor.core.units import format_duration
from gpuadvisor.gui.background import Job, Relay
from gpuadvisor.gui.charts.compare_charts import (
    BreakEvenChart,
    CostTimeChart,
    Point,
    kind_labels,
)
from gpuadvisor.settings import CURRENCIES, Settings
from gpuadvisor.userfiles import write_atomic

#: Milliseconds between the last change and the new advice (typing a budget, a slider).
DEBOUNCE_MS = 150
#: Minimum memory choices of the filter (GB as marketed; 0: any).
MIN_VRAM_CHOICES = (0, 12, 16, 24, 32, 40, 48, 80, 141)
#: Export kinds of the buttons, in order.
EXPORT_KINDS = ("skypilot", "accelerate", "deepspeed", "launch", "report")
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
STALE_COLOR = QColor("#B35900")
MUTED_COLOR = QColor("#777777")


@dataclass
class Filters:
    """What the table and the chart show.

    Attributes:
        kinds: option kinds shown (:data:`~gpuadvisor.core.advisor.OPTION_KINDS`).
        vendor: GPU vendor, or "" for any.
        min_vram_gb: least memory per GPU in GB as marketed (0: any).
        provider: seller or cloud, or "" for any.
        spot: "any", "on-demand" or "spot".
        fits_only: hide options the plan does not fit.
        text: words that must all appear in the option's name, provider or region.
    """

    kinds: frozenset[str] = frozenset(OPTION_KINDS)
    vendor: str = ""
    min_vram_gb: int = 0
    provider: str = ""
    spot: str = "any"
    fits_only: bool = False
    text: str = ""

    def accepts(self, s: Suggestion) -> bool:
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


def option_label(option) -> str:
    """An option's name for people, translated (the core's label, in English, otherwise)."""
    translate = QCoreApplication.translate
    gpu = option.gpu.name
    offer = option.offer
    if option.kind == "own":
        return translate("ComparePage", "your {cards}").format(
            cards=option.label.removeprefix("your "))
    if option.kind in ("buy-new", "buy-used"):
        used = option.kind == "buy-used"
        if option.n_gpus > 1:
            text = (translate("ComparePage", "{n}x used {gpu}") if used
                    else translate("ComparePage", "{n}x new {gpu}"))
        else:
            text = (translate("ComparePage", "used {gpu}") if used
                    else translate("ComparePage", "new {gpu}"))
        return text.format(n=option.n_gpus, gpu=gpu)
    count = f"{offer.gpus_per_instance}x " if offer.gpus_per_instance > 1 else ""
    name = f"{offer.provider} {count}{gpu}"
    return translate("ComparePage", "{name} (spot)").format(name=name) if offer.spot else name


def _price_text(offer: Offer | None, money) -> str:
    if offer is None:
        return ""
    if offer.is_buy:
        return QCoreApplication.translate("ComparePage", "{price} per card").format(
            price=money(offer.price_usd))
    return QCoreApplication.translate("ComparePage", "{price}/GPU-h").format(
        price=money(offer.price_usd, 2))


class AdviceModel(QAbstractTableModel):
    """The ranked suggestions as table rows (display texts, sort keys, tooltips)."""

    COLUMNS = ("rank", "option", "kind", "fits", "gpus", "time", "cost", "price", "provider",
               "region", "price_date")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[Suggestion] = []
        self._money = lambda usd, digits=None: f"${usd:,.2f}"
        self._why: Callable[[Suggestion], str] = lambda s: s.why
        self._pareto: frozenset[str] = frozenset()
        self._headers = {
            "rank": self.tr("#"), "option": self.tr("Option"), "kind": self.tr("Kind"),
            "fits": self.tr("Fits"), "gpus": self.tr("GPUs"), "time": self.tr("Time"),
            "cost": self.tr("Cost"), "price": self.tr("Price"),
            "provider": self.tr("Seller / cloud"), "region": self.tr("Region"),
            "price_date": self.tr("Price seen"),
        }

    def set_rows(self, rows: Sequence[Suggestion], money, front: frozenset[str],
                 why: Callable[[Suggestion], str]) -> None:
        """Show ``rows``; ``money`` writes US dollars in the display currency, ``why`` gives
        a row's tooltip sentence, ``front`` are the ids to star."""
        self.beginResetModel()
        self.rows = list(rows)
        self._money, self._why, self._pareto = money, why, front
        self.endResetModel()

    def rowCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self.rows)

    def columnCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[self.COLUMNS[section]]
        return None

    def column(self, name: str) -> int:
        return self.COLUMNS.index(name)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        s = self.rows[index.row()]
        name = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(s, name, index.row())
        if role == SORT_ROLE:
            return self._sort_key(s, name, index.row())
        if role == ID_ROLE:
            return s.option.id
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._why(s)
        if role == Qt.ItemDataRole.ForegroundRole:
            if name == "price_date" and s.stale:
                return STALE_COLOR
            if not s.fits or not s.acceptable:
                return MUTED_COLOR
        if role == Qt.ItemDataRole.TextAlignmentRole and name in ("rank", "gpus", "time",
                                                                  "cost"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, s: Suggestion, name: str, row: int) -> str:
        offer = s.option.offer
        if name == "rank":
            star = "★ " if s.option.id in self._pareto else ""
            return f"{star}{row + 1}"
        if name == "option":
            return option_label(s.option)
        if name == "kind":
            return kind_labels().get(s.option.kind, s.option.kind)
        if name == "fits":
            if not s.fits:
                return self.tr("no ({need:.1f} of {have:.0f} GiB)").format(
                    need=s.memory_bytes / 2**30, have=s.capacity_bytes / 2**30)
            if s.levers:
                return self.tr("with {levers}").format(levers=", ".join(s.levers))
            return self.tr("yes")
        if name == "gpus":
            if s.instances > 1:
                return self.tr("{gpus} ({instances} instances)").format(
                    gpus=s.n_gpus, instances=s.instances)
            return str(s.n_gpus)
        if name == "time":
            return format_duration(s.hours * 3600.0) if s.fits else "—"
        if name == "cost":
            return self._money(s.cost_usd) if s.fits else "—"
        if name == "price":
            return _price_text(offer, self._money)
        if name == "provider":
            return offer.provider if offer else self.tr("this machine")
        if name == "region":
            return (offer.region or "") if offer else ""
        if name == "price_date":
            if offer is None:
                return ""
            if offer.user:
                return self.tr("{date} (your price)").format(date=offer.as_of)
            age = s.price_age_days
            mark = "⚠ " if s.stale else ""
            if age is None:
                return offer.as_of
            return self.tr("{mark}{date} · {days} days ago").format(
                mark=mark, date=offer.as_of, days=age)
        return ""

    def _sort_key(self, s: Suggestion, name: str, row: int):
        offer = s.option.offer
        unfit = 0 if s.fits else 1
        if name == "rank":
            return row
        if name == "gpus":
            return s.n_gpus
        if name == "time":
            return (unfit, s.hours)
        if name == "cost":
            return (unfit, s.cost_usd)
        if name == "price":
            return (offer.is_buy, offer.price_usd) if offer else (False, -1.0)
        if name == "price_date":
            return s.price_age_days if s.price_age_days is not None else -1
        if name == "fits":
            return (unfit, len(s.levers))
        return self._text(s, name, row).lower()


class _Proxy(QSortFilterProxyModel):
    """Filters with a :class:`Filters`; sorts by the model's sort keys. The page sets
    ``filters`` and then resets the model (the stars change with the filters too)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.filters = Filters()
        self.setSortRole(SORT_ROLE)

    def filterAcceptsRow(self, source_row, source_parent) -> bool:
        model = self.sourceModel()
        return self.filters.accepts(model.rows[source_row])

    def lessThan(self, left, right) -> bool:
        a = left.data(SORT_ROLE)
        b = right.data(SORT_ROLE)
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)


class ComparePage(QWidget):
    """Your rig, buy, rent or cloud: time and cost of each, for the current plan.

    Attributes:
        state: the shared plan.
        settings: the user's settings (display currency, exchange rates, electricity price;
            changed here, saved by the window).
        offers: the offers catalog in use (id -> Offer).
        catalog_problem: why the offers catalog could not be read ("" when it could).
        advice: the latest :class:`~gpuadvisor.core.advisor.Advice`, or None.
        shown: the suggestions the filters let through, in the table's ranking order.
        selected_id: the option selected in the table or chart (None: none).
        scatter, break_even_chart: the charts.
        table: the options table (``table.model()`` is the filter/sort proxy).
        answer: the answer banner.
        export_buttons: kind -> button.
        last_error: the last problem shown to the user ("" when none).
    """

    status = Signal(str)
    go_to_plan = Signal()
    advice_ready = Signal()

    def __init__(self, state, settings: Settings | None = None, parent: QWidget | None = None,
                 *, offers: Mapping[str, Offer] | None = None, today: date | None = None,
                 own=None) -> None:
        """Build the page.

        Args:
            state: the shared :class:`~gpuadvisor.state.PlanState`.
            settings: the user's settings (default: defaults).
            parent: Qt parent.
            offers: the offers to compare (default: the offers catalog with the user's
                overrides; tests pass their own).
            today: the day prices are aged against (default: today).
            own: the user's cards as GpuSpecs (default: the cards the Rig page detected or
                simulated, from the plan state).
        """
        super().__init__(parent)
        self.setObjectName("comparePage")
        self.state = state
        self.settings = settings if settings is not None else Settings()
        self._today = today
        self._own_override = list(own) if own is not None else None
        self.catalog_problem = ""
        self.catalog_warnings: list[str] = []
        if offers is None:
            offers = self._load_offers()
        self.offers: dict[str, Offer] = dict(offers)
        self.advice: Advice | None = None
        self.shown: list[Suggestion] = []
        self.selected_id: str | None = None
        self.last_error = ""
        self._budget_usd: float | None = None
        self._deadline_hours: float | None = None
        self._generation = 0
        self._dirty = True
        self._presentation = False
        self._shared = False  # the splitter's shares are set when the page is first shown
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = Relay(self)
        self._relay.done.connect(self._on_done)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._start)
        self._build()
        self._apply_money()
        state.changed.connect(self._on_plan_changed)
        state.detected_changed.connect(self._on_plan_changed)
        self._listening = True

    # ================================================================== building
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 8)
        outer.setSpacing(8)

        head = QHBoxLayout()
        title = QLabel(self.tr("Compare"), self)
        title.setProperty("role", "pageTitle")
        self.plan_label = QLabel(self)
        self.plan_label.setWordWrap(True)
        self.plan_button = QPushButton(self.tr("Change the plan"), self)
        self.plan_button.clicked.connect(self.go_to_plan)
        head.addWidget(title)
        head.addSpacing(12)
        head.addWidget(self.plan_label, 1)
        head.addWidget(self.plan_button)
        outer.addLayout(head)

        outer.addWidget(self._build_constraints())

        self.answer = QLabel(self)
        self.answer.setObjectName("compareAnswer")
        self.answer.setWordWrap(True)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        outer.addWidget(self.answer)

        self.splitter = split = QSplitter(Qt.Orientation.Vertical, self)
        split.setChildrenCollapsible(False)
        top = QSplitter(Qt.Orientation.Horizontal, split)
        top.setChildrenCollapsible(False)
        self.scatter = CostTimeChart(top)
        self.scatter.setMinimumSize(360, 240)
        self.scatter.point_clicked.connect(self.select)
        top.addWidget(self.scatter)
        top.addWidget(self._build_side(top))
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 2)
        split.addWidget(top)
        split.addWidget(self._build_table(split))
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        outer.addWidget(split, 1)

    def _build_constraints(self) -> QGroupBox:
        box = QGroupBox(self.tr("What matters to you"), self)
        grid = QGridLayout(box)
        grid.setHorizontalSpacing(10)
        self.goal_combo = QComboBox(box)
        for goal, text in (("cheapest", self.tr("Cheapest")), ("fastest", self.tr("Fastest"))):
            self.goal_combo.addItem(text, goal)
        self.goal_combo.currentIndexChanged.connect(lambda _i: self._rerank())

        self.budget_spin = QDoubleSpinBox(box)
        self.budget_spin.setRange(0.0, 1e9)
        self.budget_spin.setDecimals(0)
        self.budget_spin.setSingleStep(10.0)
        self.budget_spin.setSpecialValueText(self.tr("no limit"))
        self.budget_spin.setToolTip(self.tr("Most you want to spend on this job, in your "
                                            "currency (0: no limit)"))
        self.budget_spin.valueChanged.connect(self._on_budget)

        self.deadline_spin = QDoubleSpinBox(box)
        self.deadline_spin.setRange(0.0, 1e6)
        self.deadline_spin.setDecimals(1)
        self.deadline_spin.setSuffix(self.tr(" h"))
        self.deadline_spin.setSpecialValueText(self.tr("no limit"))
        self.deadline_spin.setToolTip(self.tr("Wall-clock hours the job may take (0: no limit)"))
        self.deadline_spin.valueChanged.connect(self._on_deadline)

        self.cards_spin = QSpinBox(box)
        self.cards_spin.setRange(1, 8)
        self.cards_spin.setValue(4)
        self.cards_spin.setToolTip(self.tr("Most cards you would buy (1, 2, 4 or 8 are tried)"))
        self.cards_spin.valueChanged.connect(lambda _v: self.schedule())

        self.power_spin = QDoubleSpinBox(box)
        self.power_spin.setRange(0.0, 1000.0)
        self.power_spin.setDecimals(3)
        self.power_spin.setSingleStep(0.01)
        self.power_spin.setToolTip(self.tr("Your electricity price per kWh, in your currency: "
                                           "it prices running your rig or a bought card"))
        self.power_spin.valueChanged.connect(self._on_power)

        self.currency_combo = QComboBox(box)
        for code in CURRENCIES:
            self.currency_combo.addItem(code, code)
        self.currency_combo.setCurrentIndex(CURRENCIES.index(self.settings.currency))
        self.currency_combo.currentIndexChanged.connect(self._on_currency)
        self.rate_spin = QDoubleSpinBox(box)
        self.rate_spin.setRange(0.0001, 1e6)
        self.rate_spin.setDecimals(4)
        self.rate_spin.setToolTip(self.tr("Your exchange rate: units of your currency per "
                                          "US dollar (the catalog's prices are in USD)"))
        self.rate_spin.valueChanged.connect(self._on_rate)

        pairs = [(self.tr("Goal"), self.goal_combo), (self.tr("Budget"), self.budget_spin),
                 (self.tr("Deadline"), self.deadline_spin),
                 (self.tr("Cards to buy, at most"), self.cards_spin),
                 (self.tr("Electricity per kWh"), self.power_spin),
                 (self.tr("Currency"), self.currency_combo)]
        column = 0
        for text, widget in pairs:
            label = QLabel(text, box)
            label.setBuddy(widget)
            grid.addWidget(label, 0, column)
            grid.addWidget(widget, 1, column)
            column += 1
        self.rate_label = QLabel(box)
        self.rate_label.setBuddy(self.rate_spin)
        grid.addWidget(self.rate_label, 0, column)
        grid.addWidget(self.rate_spin, 1, column)
        grid.setColumnStretch(column + 1, 1)
        return box

    def _build_side(self, parent: QWidget) -> QWidget:
        side = QWidget(parent)
        layout = QVBoxLayout(side)
        layout.setContentsMargins(8, 0, 0, 0)
        # The details scroll when long (a price's notes), so the chart keeps its room.
        scroll = QScrollArea(side)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setMinimumHeight(70)
        self.details = QLabel(scroll)
        self.details.setObjectName("compareDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setOpenExternalLinks(True)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        scroll.setWidget(self.details)
        self.break_even_chart = BreakEvenChart(side)
        self.break_even_chart.setMinimumHeight(170)
        inner = QSplitter(Qt.Orientation.Vertical, side)
        inner.setChildrenCollapsible(False)
        inner.addWidget(scroll)
        inner.addWidget(self.break_even_chart)
        inner.setStretchFactor(0, 1)
        inner.setStretchFactor(1, 3)
        layout.addWidget(inner, 1)
        self.break_even_label = QLabel(side)
        self.break_even_label.setWordWrap(True)
        layout.addWidget(self.break_even_label)
        buttons = QGridLayout()
        texts = {"skypilot": self.tr("SkyPilot task…"),
                 "accelerate": self.tr("accelerate config…"),
                 "deepspeed": self.tr("DeepSpeed config…"),
                 "launch": self.tr("Launch script…"),
                 "report": self.tr("Report…")}
        tips = {"skypilot": self.tr("A SkyPilot task YAML that rents this option "
                                    "(rent and cloud options)"),
                "accelerate": self.tr("A Hugging Face accelerate config for this plan"),
                "deepspeed": self.tr("A DeepSpeed ZeRO config for this plan"),
                "launch": self.tr("The torchrun line that starts the training"),
                "report": self.tr("The plan, the options and these charts as one HTML file "
                                  "(or Markdown: end the name with .md)")}
        self.export_buttons: dict[str, QPushButton] = {}
        for i, kind in enumerate(EXPORT_KINDS):
            button = QPushButton(texts[kind], side)
            button.setToolTip(tips[kind])
            button.clicked.connect(lambda _c=False, k=kind: self.export(k))
            buttons.addWidget(button, i // 3, i % 3)
            self.export_buttons[kind] = button
        layout.addLayout(buttons)
        return side

    def _build_table(self, parent: QWidget) -> QWidget:
        box = QWidget(parent)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 4, 0, 0)
        row = QHBoxLayout()
        self.kind_boxes: dict[str, QCheckBox] = {}
        for kind, text in kind_labels().items():
            check = QCheckBox(text, box)
            check.setChecked(True)
            check.toggled.connect(lambda _on: self._on_filters())
            row.addWidget(check)
            self.kind_boxes[kind] = check
        row.addSpacing(8)
        self.vendor_combo = QComboBox(box)
        self.vendor_combo.setToolTip(self.tr("GPU maker"))
        self.vram_combo = QComboBox(box)
        self.vram_combo.setToolTip(self.tr("Least memory per GPU"))
        for gb in MIN_VRAM_CHOICES:
            self.vram_combo.addItem(self.tr("any memory") if gb == 0 else
                                    self.tr("≥ {gb} GB").format(gb=gb), gb)
        self.provider_combo = QComboBox(box)
        self.provider_combo.setToolTip(self.tr("Seller, marketplace or cloud"))
        self.spot_combo = QComboBox(box)
        for value, text in (("any", self.tr("spot and on-demand")),
                            ("on-demand", self.tr("on-demand only")),
                            ("spot", self.tr("spot only"))):
            self.spot_combo.addItem(text, value)
        self.spot_combo.setToolTip(self.tr("Spot (interruptible) prices are cheaper; the job "
                                           "may be stopped and must resume from checkpoints"))
        self.fits_box = QCheckBox(self.tr("fits only"), box)
        self.search = QLineEdit(box)
        self.search.setPlaceholderText(self.tr("Search: 4090, RunPod, us-east…"))
        self.search.setClearButtonEnabled(True)
        for combo in (self.vendor_combo, self.vram_combo, self.provider_combo, self.spot_combo):
            combo.currentIndexChanged.connect(lambda _i: self._on_filters())
            row.addWidget(combo)
        self.fits_box.toggled.connect(lambda _on: self._on_filters())
        self.search.textChanged.connect(lambda _t: self._on_filters())
        row.addWidget(self.fits_box)
        row.addWidget(self.search, 1)
        layout.addLayout(row)
        self._fill_filter_choices()

        self.model = AdviceModel(self)
        self.proxy = _Proxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView(box)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(
            self.table.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        widths = {"rank": 48, "option": 300, "kind": 80, "fits": 150, "gpus": 60,
                  "time": 80, "cost": 90, "price": 120, "provider": 130, "region": 90}
        for name, width in widths.items():
            self.table.setColumnWidth(self.model.column(name), width)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current)
        layout.addWidget(self.table, 1)
        self.count_label = QLabel(box)
        self.count_label.setProperty("role", "note")
        layout.addWidget(self.count_label)
        return box

    def _fill_filter_choices(self) -> None:
        vendors = sorted({g.vendor for g in self.state.gpus.values()
                          if any(o.gpu_id == g.id for o in self.offers.values())})
        providers = sorted({o.provider for o in self.offers.values()})
        for combo, values, anything in ((self.vendor_combo, vendors, self.tr("any maker")),
                                        (self.provider_combo, providers,
                                         self.tr("any seller or cloud"))):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(anything, "")
            for value in values:
                combo.addItem(value, value)
            combo.blockSignals(False)

    # ================================================================== inputs
    def _load_offers(self) -> dict[str, Offer]:
        warnings: list[str] = []
        try:
            offers = catalog.load_offers(warnings=warnings)
        except catalog.CatalogError as exc:
            self.catalog_problem = self.tr(
                "The offers catalog could not be read, so only your rig is compared: "
                "{error}").format(error=exc)
            return {}
        self.catalog_warnings = warnings
        return dict(offers)

    @property
    def goal(self) -> str:
        """``cheapest`` or ``fastest``."""
        return self.goal_combo.currentData()

    def set_goal(self, goal: str) -> None:
        """Rank for ``goal`` (one of :data:`~gpuadvisor.core.advisor.GOALS`)."""
        if goal not in GOALS:
            raise ValueError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")
        self.goal_combo.setCurrentIndex(self.goal_combo.findData(goal))

    @property
    def budget_usd(self) -> float | None:
        """The budget in US dollars (None: no limit)."""
        return self._budget_usd

    @property
    def deadline_hours(self) -> float | None:
        """The deadline in hours (None: no limit)."""
        return self._deadline_hours

    def set_budget(self, amount: float | None) -> None:
        """The budget in the display currency (None or 0: no limit)."""
        self.budget_spin.setValue(amount or 0.0)

    def set_deadline(self, hours: float | None) -> None:
        """The deadline in hours (None or 0: no limit)."""
        self.deadline_spin.setValue(hours or 0.0)

    def set_filters(self, **changes) -> None:
        """Change the filters (the widgets follow): ``kinds``, ``vendor``, ``min_vram_gb``,
        ``provider``, ``spot``, ``fits_only``, ``text``."""
        f = self.filters()
        for name, value in changes.items():
            if not hasattr(f, name):
                raise ValueError(f"unknown filter {name!r}")
            setattr(f, name, value)
        widgets = [*self.kind_boxes.values(), self.vendor_combo, self.vram_combo,
                   self.provider_combo, self.spot_combo, self.fits_box, self.search]
        for widget in widgets:
            widget.blockSignals(True)
        for kind, box in self.kind_boxes.items():
            box.setChecked(kind in f.kinds)
        for combo, value in ((self.vendor_combo, f.vendor), (self.vram_combo, f.min_vram_gb),
                             (self.provider_combo, f.provider), (self.spot_combo, f.spot)):
            index = combo.findData(value)
            if index < 0:
                raise ValueError(f"no such choice: {value!r}")
            combo.setCurrentIndex(index)
        self.fits_box.setChecked(f.fits_only)
        self.search.setText(f.text)
        for widget in widgets:
            widget.blockSignals(False)
        self._on_filters()

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

    def own_rig(self) -> list:
        """The user's cards as GpuSpecs (detected or simulated on the Rig page)."""
        if self._own_override is not None:
            return list(self._own_override)
        specs = [self.state.detected_spec(key) for key in self.state.detected_gpus]
        return [s for s in specs if s is not None]

    # ================================================================== money
    def money(self, amount_usd: float, digits: int | None = None) -> str:
        """US dollars in the display currency."""
        return self.settings.format_money(amount_usd, digits)

    def _display_money(self, amount: float, digits: int | None = None) -> str:
        from gpuadvisor.settings import format_money

        return format_money(amount, self.settings.currency, digits)

    def _apply_money(self) -> None:
        """Show the money inputs in the display currency (the USD values stay)."""
        rate = self.settings.rate()
        code = self.settings.currency
        for spin in (self.budget_spin, self.power_spin, self.rate_spin):
            spin.blockSignals(True)
        self.budget_spin.setPrefix(f"{code} ")
        self.budget_spin.setValue(self._budget_usd * rate if self._budget_usd else 0.0)
        self.power_spin.setPrefix(f"{code} ")
        self.power_spin.setValue(self.settings.electricity_usd_per_kwh * rate)
        self.rate_spin.setValue(rate)
        for spin in (self.budget_spin, self.power_spin, self.rate_spin):
            spin.blockSignals(False)
        usd = code == "USD"
        self.rate_spin.setVisible(not usd)
        self.rate_label.setVisible(not usd)
        self.rate_label.setText(self.tr("{code} per US dollar").format(code=code))
        self._set_chart_money()

    def _set_chart_money(self) -> None:
        for chart in (self.scatter, self.break_even_chart):
            chart.set_money(self._display_money, self.settings.currency)

    def _on_budget(self, value: float) -> None:
        self._budget_usd = value / self.settings.rate() if value > 0 else None
        self._rerank()

    def _on_deadline(self, value: float) -> None:
        self._deadline_hours = value if value > 0 else None
        self._rerank()

    def _on_power(self, value: float) -> None:
        usd = value / self.settings.rate()
        if not 0 <= usd < 100:
            self._show_error(self.tr("Electricity price {value} is out of range").format(
                value=value))
            return
        self.settings.electricity_usd_per_kwh = usd
        self.schedule()

    def _on_currency(self, _index: int) -> None:
        self.settings.currency = self.currency_combo.currentData()
        self._apply_money()
        self._show()

    def _on_rate(self, value: float) -> None:
        code = self.settings.currency
        if code == "USD" or value <= 0:
            return
        self.settings.exchange_rates[code] = float(value)
        # The budget and the electricity price were typed in this currency: keep the typed
        # figures, so their dollar values follow the new rate.
        self._budget_usd = (self.budget_spin.value() / value if self.budget_spin.value() > 0
                            else None)
        self.settings.electricity_usd_per_kwh = self.power_spin.value() / value
        self._set_chart_money()
        self.schedule()  # the power costs change with the electricity price in dollars

    # ================================================================== advising
    def _rerank(self) -> None:
        """Goal, budget and deadline only reorder the estimated options: rank them again at
        once, without estimating anything anew."""
        if self.advice is not None:
            self.advice = self._ranked(self.advice)
            self._show()

    def _ranked(self, advice: Advice) -> Advice:
        """``advice`` ranked for the goal, budget and deadline the inputs hold now."""
        goal, budget, deadline = self.goal, self._budget_usd, self._deadline_hours
        if (advice.goal, advice.budget_usd, advice.deadline_hours) == (goal, budget, deadline):
            return advice
        ranked = rank(advice.suggestions, goal, budget_usd=budget, deadline_hours=deadline)
        return replace(advice, suggestions=tuple(ranked), goal=goal, budget_usd=budget,
                       deadline_hours=deadline)

    def schedule(self) -> None:
        """Advise again shortly (debounced); only while the page is shown."""
        self._dirty = True
        if self.isVisible():
            self._timer.start()

    def _on_plan_changed(self, *_args) -> None:
        self.schedule()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shared:
            self._shared = True
            self._share_height()
        if self._dirty and not self._timer.isActive():
            self._timer.start(0)

    def refresh(self) -> int:
        """Advise now (in the background); returns the request's generation."""
        self._timer.stop()
        return self._start()

    def _start(self) -> int:
        self._dirty = False
        self._generation += 1
        generation = self._generation
        state = self.state
        model, plan, gpus = state.model, state.plan, state.gpus
        offers = list(self.offers.values())
        own = self.own_rig()
        goal, budget, deadline = self.goal, self._budget_usd, self._deadline_hours
        price = self.settings.electricity_usd_per_kwh
        assumptions, measurements = state.assumptions, state.measurements
        max_cards = self.cards_spin.value()
        today = self._today or date.today()

        def work() -> Advice:
            return advise(model, plan, gpus, offers, own=own, goal=goal, budget_usd=budget,
                          deadline_hours=deadline, assumptions=assumptions,
                          usd_per_kwh=price, today=today, measurements=measurements,
                          max_cards=max_cards)

        self._set_answer(self.tr("Working out every option…"), "busy")
        self._pool.start(Job(self._relay, generation, "advice", work))
        return generation

    def _on_done(self, generation: int, kind: str, result, error) -> None:
        if generation != self._generation:
            return  # a newer request is on its way
        if error is not None:
            self.advice = None
            self._show_error(self.tr("Cannot compare this plan: {error}").format(error=error))
            self.advice_ready.emit()
            return
        self.advice = self._ranked(result)  # the inputs may have changed since it started
        self.last_error = ""
        self._show()
        self.advice_ready.emit()

    def flush(self, timeout_ms: int = 30000) -> None:
        """Advise now if due and wait for the answer (screenshots, tests)."""
        if self._timer.isActive() or self._dirty:
            self.refresh()
        self._pool.waitForDone(timeout_ms)
        QCoreApplication.processEvents()

    def shutdown(self) -> None:
        """Stop listening to the plan and wait for the advice in flight."""
        self._timer.stop()
        if self._listening:
            self._listening = False
            self.state.changed.disconnect(self._on_plan_changed)
            self.state.detected_changed.disconnect(self._on_plan_changed)
        self._generation += 1  # whatever is in flight is no longer wanted
        self._pool.waitForDone(30000)

    # ================================================================== showing
    def _on_filters(self) -> None:
        self._show()

    def _show(self) -> None:
        """Table, chart, answer, details and break-even from the advice and the filters."""
        from gpuadvisor.gui.widgets.labels import PRECISIONS, TASKS, label
        from gpuadvisor.gui.widgets.summary import plan_line

        plan, model = self.state.plan, self.state.model
        self.plan_label.setText(self.tr("<b>{model}</b>, {task}, {precision} · {line}").format(
            model=model.name, task=label(TASKS, plan.task),
            precision=label(PRECISIONS, plan.precision), line=plan_line(plan, model)))
        advice = self.advice
        if advice is None:
            return
        f = self.filters()
        self.proxy.filters = f
        self.shown = [s for s in advice.suggestions if f.accepts(s)]
        front = pareto(self.shown)
        self.model.set_rows(advice.suggestions, self.money, front, self.why)
        rate = self.settings.rate()
        points = [Point(s.option.id, option_label(s.option), s.option.kind, s.hours,
                        s.cost_usd * rate, s.n_gpus, s.acceptable)
                  for s in self.shown if s.fits]
        ids = {s.option.id for s in self.shown}
        if self.selected_id not in ids:
            best = next((s for s in self.shown if s.acceptable),
                        next((s for s in self.shown if s.fits), None))
            self.selected_id = best.option.id if best else None
        self.scatter.set_data(points, sorted(front), selected=self.selected_id,
                              budget=self._budget_usd * rate if self._budget_usd else None,
                              deadline_hours=self._deadline_hours)
        self._show_answer()
        self._select_row(self.selected_id)
        self._show_selection()
        total = len(advice.suggestions)
        fitting = sum(1 for s in self.shown if s.fits)
        text = self.tr("{shown} of {total} options shown, {fitting} of them fit; ★ = best "
                       "trade-off (Pareto front). Prices in {code} at {rate} per USD.").format(
            shown=len(self.shown), total=total, fitting=fitting, code=self.settings.currency,
            rate=f"{rate:g}")
        if self.catalog_warnings:
            text += " " + " ".join(self.catalog_warnings)
        self.count_label.setText(text)

    def why(self, s: Suggestion) -> str:
        """One sentence for people, in the display currency."""
        took = format_duration(s.hours * 3600.0)
        levers = (self.tr(" with {levers}").format(levers=", ".join(s.levers))
                  if s.levers else "")
        name = option_label(s.option)
        if not s.fits:
            return self.tr("{name} does not fit: {need:.1f} GiB per GPU needed, {have:.0f} "
                           "GiB available").format(name=name, need=s.memory_bytes / 2**30,
                                                   have=s.capacity_bytes / 2**30)
        if s.option.kind == "own":
            return self.tr("{name} finishes in {time}{levers} for {power} of power").format(
                name=name, time=took, levers=levers, power=self.money(s.energy_usd))
        if s.option.kind in ("buy-new", "buy-used"):
            return self.tr("{name} ({price}) finishes in {time}{levers}, plus {power} of "
                           "power").format(name=name, price=self.money(s.hardware_usd),
                                           time=took, levers=levers,
                                           power=self.money(s.energy_usd))
        instances = (self.tr(" on {n} instances").format(n=s.instances)
                     if s.instances > 1 else "")
        return self.tr("renting {name} costs {cost} and takes {time}{instances}{levers}").format(
            name=name, cost=self.money(s.rent_usd), time=took, instances=instances,
            levers=levers)

    def answer_text(self) -> str:
        """The answer banner's text."""
        return self.answer.text()

    def _show_answer(self) -> None:
        advice = self.advice
        prefix = f"{self.catalog_problem}\n" if self.catalog_problem and not self.offers else ""
        if advice.nothing_fits and not any(s.fits for s in advice.suggestions):
            self._set_answer(prefix + advice.nothing_fits, "none")
            return
        shown = self.shown
        best = next((s for s in shown if s.acceptable), None)
        if best is None:
            fitting = [s for s in shown if s.fits]
            if not fitting:
                self._set_answer(prefix + self.tr(
                    "None of the options shown fits this plan: widen the filters."), "none")
                return
            limits = []
            if self._budget_usd is not None:
                limits.append(self.tr("the budget of {budget}").format(
                    budget=self.money(self._budget_usd)))
            if self._deadline_hours is not None:
                limits.append(self.tr("the deadline of {time}").format(
                    time=format_duration(self._deadline_hours * 3600.0)))
            closest = fitting[0]
            self._set_answer(prefix + self.tr(
                "Nothing shown meets {limits}. Closest: {why}.").format(
                limits=self.tr(" and ").join(limits), why=self.why(closest)), "none")
            return
        goal = self.tr("cheapest") if advice.goal == "cheapest" else self.tr("fastest")
        text = self.tr("Best ({goal}): {why}.").format(goal=goal, why=self.why(best))
        other_goal = "fastest" if advice.goal == "cheapest" else "cheapest"
        acceptable = [s for s in shown if s.acceptable]
        key = ((lambda s: (s.hours, s.cost_usd)) if other_goal == "fastest"
               else (lambda s: (s.cost_usd, s.hours)))
        other = min(acceptable, key=key)
        if other.option.id != best.option.id:
            label = self.tr("Fastest") if other_goal == "fastest" else self.tr("Cheapest")
            text += " " + self.tr("{label}: {why}.").format(label=label, why=self.why(other))
        self._set_answer(prefix + text, "ok")

    def _set_answer(self, text: str, state: str) -> None:
        self.answer.setText(text)
        self.answer.setProperty("state", state)
        self.answer.style().unpolish(self.answer)
        self.answer.style().polish(self.answer)

    def _show_error(self, text: str) -> None:
        self.last_error = text
        self._set_answer(text, "none")
        self.status.emit(text)

    # ================================================================== selection
    def selected(self) -> Suggestion | None:
        """The selected suggestion, or None."""
        if self.advice is None or self.selected_id is None:
            return None
        return next((s for s in self.advice.suggestions if s.option.id == self.selected_id),
                    None)

    def select(self, option_id: str) -> None:
        """Select an option (from the chart, the table or a test)."""
        if self.advice is None or option_id not in {s.option.id for s in self.advice.suggestions}:
            return
        self.selected_id = option_id
        self.scatter.set_selected(option_id)
        self._select_row(option_id)
        self._show_selection()

    def _select_row(self, option_id: str | None) -> None:
        if option_id is None:
            self.table.clearSelection()
            return
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if index.data(ID_ROLE) == option_id:
                if self.table.currentIndex().row() != row:
                    self.table.setCurrentIndex(index)
                self.table.scrollTo(index)
                return

    def _on_table_current(self, current, _previous) -> None:
        if not current.isValid():
            return
        option_id = current.siblingAtColumn(0).data(ID_ROLE)
        if option_id and option_id != self.selected_id:
            self.select(option_id)

    def table_ids(self) -> list[str]:
        """Option ids in the table's order (after filters and sorting)."""
        return [self.proxy.index(r, 0).data(ID_ROLE) for r in range(self.proxy.rowCount())]

    def table_text(self, row: int, column: str) -> str:
        """The text of a table cell (row in the table's order)."""
        return self.proxy.index(row, self.model.column(column)).data() or ""

    def _show_selection(self) -> None:
        s = self.selected()
        for kind, button in self.export_buttons.items():
            button.setEnabled(s is not None and (
                kind != "skypilot" or s.option.kind in ("rent", "cloud")))
        if s is None:
            self.details.setText(self.tr("Select an option in the chart or the table."))
            self.break_even_chart.clear()
            self.break_even_label.setText("")
            return
        self.details.setText(self._details_html(s))
        self._show_break_even(s)

    def _details_html(self, s: Suggestion) -> str:
        from html import escape

        offer = s.option.offer
        lines = [f"<b>{escape(option_label(s.option))}</b> — "
                 f"{escape(kind_labels().get(s.option.kind, s.option.kind))}",
                 escape(self.why(s)) + "."]
        if s.fits:
            lines += [escape(line) for line in self.arithmetic(s)]
        if offer is not None:
            price = [_price_text(offer, self.money)]
            if offer.instance:
                price.append(offer.instance)
            if offer.region:
                price.append(offer.region)
            if offer.spot:
                price.append(self.tr("spot: may be interrupted"))
            lines.append(escape(" · ".join(price)))
            if offer.user:
                seen = self.tr("your price, {date}").format(date=offer.as_of)
            else:
                seen = self.tr("price seen {date}").format(date=offer.as_of)
                if s.price_age_days is not None:
                    seen += " " + self.tr("({days} days ago)").format(days=s.price_age_days)
            if s.stale:
                seen = "⚠ " + seen + " — " + self.tr(
                    "older than {days} days: check it").format(days=STALE_AFTER_DAYS)
            if offer.estimate:
                seen += " — " + self.tr("an estimate")
            source = escape(offer.source)
            if offer.source.startswith(("https://", "http://")):
                source = f'<a href="{escape(offer.source)}">{source}</a>'
            lines.append(f"{escape(seen)}; {self.tr('source')}: {source}")
            if offer.notes:
                lines.append(f"<i>{escape(offer.notes)}</i>")
        return "<br>".join(lines)

    def arithmetic(self, s: Suggestion) -> list[str]:
        """How the time and each sum of money of a fitting option were made, one line each:
        the throughput the time rests on (and where its efficiency comes from), then the
        cards, the power (TDP x load x GPUs x hours x price per kWh) and the rent."""
        from gpuadvisor.gui.widgets.labels import BOUNDS, label, source_label

        hours = f"{s.hours:,.1f} h"
        lines = [self.tr("Time: {gpus} GPU(s) at {tflops:,.0f} TFLOPS each ({efficiency:.0%} "
                         "of peak, {source}), limited by {bound}; {gpu_hours:,.1f} GPU-hours")
                 .format(gpus=s.n_gpus, tflops=s.tflops_per_gpu, efficiency=s.efficiency,
                         source=source_label(s.time_source), bound=label(BOUNDS, s.bound),
                         gpu_hours=s.gpu_hours)]
        offer = s.option.offer
        if s.hardware_usd and offer is not None:
            lines.append(self.tr("Cards: {n} × {price} = {total}").format(
                n=s.n_gpus, price=self.money(offer.price_usd), total=self.money(s.hardware_usd)))
        if s.option.kind in ("own", "buy-new", "buy-used"):
            kwh = s.option.gpu.tdp_w * DEFAULT_LOAD_FRACTION * s.n_gpus * s.hours / 1000.0
            lines.append(self.tr(
                "Power: {tdp:,.0f} W × {load:.0%} load × {gpus} GPU(s) × {hours} = {kwh:,.1f} "
                "kWh × {price}/kWh = {total}").format(
                tdp=s.option.gpu.tdp_w, load=DEFAULT_LOAD_FRACTION, gpus=s.n_gpus, hours=hours,
                kwh=kwh, price=self.money(self.settings.electricity_usd_per_kwh, 3),
                total=self.money(s.energy_usd)))
        if s.rent_usd and offer is not None:
            lines.append(self.tr("Rent: {hours} × {instances} instance(s) × {price}/h = "
                                 "{total}").format(
                hours=hours, instances=s.instances, price=self.money(offer.instance_price_usd, 2),
                total=self.money(s.rent_usd)))
        return lines

    def _show_break_even(self, s: Suggestion) -> None:
        shown = self.shown
        kind = s.option.kind
        if kind in ("buy-new", "buy-used"):
            pair = best_break_even(shown, owned=s)
        elif kind in ("rent", "cloud"):
            pair = best_break_even(shown, rented=s)
        else:
            pair = best_break_even(shown)
        if pair is None:
            self.break_even_chart.clear(self.tr("No card to buy and rental to compare"))
            self.break_even_label.setText(self.tr(
                "Break-even needs a card to buy and a rental that both fit the plan among the "
                "options shown."))
            return
        owned, rented, result = pair
        rate = self.settings.rate()
        self.break_even_chart.set_data(
            hardware=result.hardware_usd * rate, own_per_job=result.own_per_job_usd * rate,
            rent_per_job=result.rent_per_job_usd * rate, jobs=result.jobs,
            own_label=option_label(owned.option), rent_label=option_label(rented.option))
        if result.jobs is None:
            text = self.tr("Renting {rent} costs no more per job than the power for {own}: "
                           "buying never pays off on price alone.").format(
                rent=option_label(rented.option), own=option_label(owned.option))
        else:
            text = self.tr("{own} ({price}) beats renting {rent} after {jobs} such jobs "
                           "({hours} of training on it).").format(
                own=option_label(owned.option), price=self.money(result.hardware_usd),
                rent=option_label(rented.option),
                jobs=f"{result.jobs:,.0f}" if result.jobs >= 10 else f"{result.jobs:.1f}",
                hours=format_duration(result.hours * 3600.0))
            text += " " + self.tr("Cards ÷ (rent − power per job): {price} ÷ ({rent} − "
                                  "{power}).").format(
                price=self.money(result.hardware_usd), rent=self.money(result.rent_per_job_usd),
                power=self.money(result.own_per_job_usd))
        self.break_even_label.setText(text)
        self._fit_label_height(self.break_even_label)

    @staticmethod
    def _fit_label_height(label: QLabel) -> None:
        """Reserve the height a word-wrapped label needs at its width (a layout gives it one
        line otherwise, and the next widget covers the rest)."""
        width = label.width() if label.width() > 50 else 400
        label.setMinimumHeight(max(label.heightForWidth(width), label.fontMetrics().height()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_label_height(self.break_even_label)

    # ================================================================== exports
    def ask_save_path(self, kind: str, suggested: str) -> str | None:
        """Ask where to write an export (tests replace this)."""
        filters = {"skypilot": self.tr("SkyPilot task (*.yaml)"),
                   "accelerate": self.tr("accelerate config (*.yaml)"),
                   "deepspeed": self.tr("DeepSpeed config (*.json)"),
                   "launch": self.tr("Shell script (*.sh)"),
                   "report": self.tr("HTML report (*.html);;Markdown report (*.md)")}
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export"),
                                              str(Path.home() / suggested), filters[kind])
        return path or None

    def export_text(self, kind: str, s: Suggestion, *, markdown: bool = False) -> str:
        """The export of ``kind`` for suggestion ``s``.

        Raises:
            ValueError: the plan cannot be written for that tool (e.g. DeepSpeed for
                inference), or the option does not fit.
        """
        from gpuadvisor import export

        if not s.fits:
            raise ValueError(self.tr("{name} does not fit this plan: pick an option that "
                                     "fits").format(name=option_label(s.option)))
        model, plan, gpu, offer = self.state.model, s.plan, s.option.gpu, s.option.offer
        rented = s.option.kind in ("rent", "cloud")
        per_node = offer.gpus_per_instance if rented else max(plan.n_gpus, 1)
        if kind == "skypilot":
            return export.skypilot_task(model, plan, gpu, offer if rented else None)
        if kind == "deepspeed":
            return export.deepspeed_json(plan)
        layout = export.node_layout(plan.n_gpus, per_node)
        if kind == "accelerate":
            return export.accelerate_yaml(plan, layout, gpu=gpu)
        if kind == "launch":
            return export.launch_script(plan, layout, title=f"{model.name}: {plan.task} on "
                                        f"{s.option.label}")
        if kind == "report":
            return self._report(s, markdown=markdown)
        raise ValueError(f"unknown export {kind!r}")

    def _report(self, s: Suggestion, *, markdown: bool) -> str:
        from gpuadvisor.export import html_report, markdown_report
        from gpuadvisor.export.report import advice_rows
        from gpuadvisor.probes import history

        result = estimate_of(self.state.model, s, self.state.assumptions)
        own = self.own_rig()
        rig = {"option chosen": s.option.label, "why": self.why(s),
               "your rig": ", ".join(g.name for g in own) or "none"}
        probes = None
        if own:
            try:
                probes = history.latest_results(own[0].id)
            except OSError:
                probes = None
        rows = advice_rows(self.shown or (self.advice.suggestions if self.advice else []))
        if markdown:
            return markdown_report(result, rig=rig, probes=probes, suggestions=rows)
        charts = [(self.tr("Time against cost of every option"), _png(self.scatter)),
                  (self.tr("Owning against renting"), _png(self.break_even_chart))]
        return html_report(result, rig=rig, probes=probes, suggestions=rows, charts=charts)

    def export(self, kind: str, path: str | Path | None = None) -> bool:
        """Write the selected option's export of ``kind`` (asks where when no ``path``).

        Problems (nothing selected, a plan the tool cannot run, a file that cannot be
        written) are shown on the page and in the status bar; nothing is written then.
        """
        s = self.selected()
        if s is None:
            self._show_export_problem(self.tr("Select an option first."))
            return False
        if path is None:
            suffix = {"skypilot": ".yaml", "accelerate": ".yaml", "deepspeed": ".json",
                      "launch": ".sh", "report": ".html"}[kind]
            slug = "".join(c if c.isalnum() else "-" for c in s.option.id).strip("-")
            path = self.ask_save_path(kind, f"{kind}-{slug}{suffix}")
            if not path:
                return False
        path = Path(path)
        try:
            text = self.export_text(kind, s, markdown=path.suffix.lower() == ".md")
            written = write_atomic(path, text)
        except ValueError as exc:
            self._show_export_problem(self.tr("Cannot export {kind}: {error}").format(
                kind=kind, error=exc))
            return False
        except OSError as exc:
            self._show_export_problem(self.tr("Cannot write {path}: {error}").format(
                path=path, error=exc.strerror or exc))
            return False
        self.last_error = ""
        self.break_even_label.setToolTip("")
        self.status.emit(self.tr("Wrote {path}").format(path=written))
        return True

    def _show_export_problem(self, text: str) -> None:
        self.last_error = text
        self.status.emit(text)

    # ================================================================== view options
    def set_presentation(self, enabled: bool) -> None:
        """Large fonts and thick lines in the charts, which get most of the height."""
        self.scatter.set_presentation(enabled)
        self.break_even_chart.set_presentation(enabled)
        self._presentation = enabled
        self._share_height()

    def _share_height(self) -> None:
        """Charts above, table below: half each on the desktop, more for the charts on a
        projector (where the table is read less)."""
        total = sum(self.splitter.sizes()) or 900
        share = 0.68 if self._presentation else 0.5
        self.splitter.setSizes([int(total * share), int(total * (1 - share))])


def _png(widget: QWidget) -> bytes:
    """``widget`` rendered as PNG bytes."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    widget.grab().save(buffer, "PNG")
    return bytes(buffer.data())



__all__ = ["EXPORT_KINDS", "AdviceModel", "ComparePage", "Filters"]
