"""The Compare page's table of options: the model (display texts, sort keys, tooltips),
the filter/sort proxy, and the region that holds them with the filters and a count."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.advisor import Suggestion
from gpuadvisor.core.token_costs import TokenCost
from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui import data_words
from gpuadvisor.gui.charts.compare_charts import kind_labels
from gpuadvisor.gui.numbers import duration
from gpuadvisor.gui.widgets.unit_label import UnitLabel

from . import format_tokens as tok
from .filters import FilterBar, Filters
from .format import option_label, price_text

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
STALE_COLOR = QColor("#B35900")
MUTED_COLOR = QColor("#777777")


def readable_color(color: QColor) -> QColor:
    """``color`` as it reads on the application's current base colour (moved towards the
    text colour until the contrast is at least 4.5:1: a dark theme's base is dark)."""
    from PySide6.QtGui import QGuiApplication, QPalette

    from gpuadvisor.gui.appearance import readable

    palette = QGuiApplication.palette()
    key = (color.name(), palette.color(QPalette.ColorRole.Base).name(),
           palette.color(QPalette.ColorRole.Text).name())
    if key not in _READABLE:
        _READABLE[key] = QColor(readable(*key))
    return _READABLE[key]


_READABLE: dict[tuple[str, str, str], QColor] = {}
#: Starting widths of the table's columns, in pixels at the desktop font (the last one
#: stretches).
COLUMN_WIDTHS = {"rank": 48, "option": 300, "kind": 80, "fits": 150, "gpus": 60,
                 "time": 80, "cost": 90, "price": 120, "provider": 130, "region": 90}
#: Widths in average characters of the font (so that they grow with presentation mode);
#: the option's name takes what is left, never less than its minimum.
COLUMN_CHARS = {"rank": 5, "option": 34, "kind": 9, "fits": 17, "gpus": 5, "time": 9,
                "cost": 10, "speed": 9, "ttft": 10, "per_mtok": 10, "pays_off": 20,
                "price": 17, "provider": 14, "region": 18, "price_date": 26}
#: Columns left out first when the table is narrow (a laptop, a projector): the name, the
#: fit, the time and the cost (per token: the speed, the cost and the break-even) stay.
DROP_ORDER = ("price_date", "region", "provider", "kind", "price", "gpus")
#: Then, per token, the time to the first token and the fit.
TOKEN_DROP_ORDER = (*DROP_ORDER, "ttft", "fits")
#: Columns widened to their longest text when the table has room to spare, in turn.
WIDEN_ORDER = ("price", "region", "provider")
#: Columns of a training plan's table and of an inference plan's (per million tokens).
JOB_COLUMNS = frozenset({"time", "cost"})
#: A note in brackets at a text's end: " (community hosts)", " (spot)", "（竞价）".
_TRAILING_NOTE = re.compile(r"\s*[(（][^()（）]*[)）]$")
TOKEN_COLUMNS = frozenset({"speed", "ttft", "per_mtok", "pays_off"})


class _ElideRight(QStyledItemDelegate):
    """Cells read from their start when too narrow (the table cuts names in the middle):
    a trailing note in brackets goes first ("global (community hosts)" -> "global"; the
    whole text is the cell's tooltip), then the end is cut."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight
        text = option.text
        room = option.rect.width() - 8  # the cell's margins
        if room > 0 and option.fontMetrics.horizontalAdvance(text) > room:
            option.text = _TRAILING_NOTE.sub("", text) or text


class AdviceModel(QAbstractTableModel):
    """The ranked suggestions as table rows (display texts, sort keys, tooltips)."""

    COLUMNS = ("rank", "option", "kind", "fits", "gpus", "time", "cost", "speed", "ttft",
               "per_mtok", "pays_off", "price", "provider", "region", "price_date")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # Suggestions (a job's time and cost), or, for an inference plan, TokenCost rows
        # (per million tokens: the options and the hosted APIs).
        self.rows: list[Suggestion | TokenCost] = []
        self.per_token = False
        self.today = None  # the day API prices are aged against
        self._money = lambda usd, digits=None: f"${usd:,.2f}"
        self._why: Callable[[Suggestion], str] = lambda s: s.why
        self._pareto: frozenset[str] = frozenset()
        self.units = "GiB"  # memory in the unit of the View setting
        self._headers = {
            "rank": self.tr("#"), "option": self.tr("Option"), "kind": self.tr("Kind"),
            "fits": self.tr("Fits"), "gpus": self.tr("GPUs"), "time": self.tr("Time"),
            "cost": self.tr("Cost"), "speed": self.tr("Tokens/s"),
            "ttft": self.tr("First token"), "per_mtok": self.tr("Per M tokens"),
            "pays_off": self.tr("Pays off after"), "price": self.tr("Price"),
            "provider": self.tr("Seller / cloud"), "region": self.tr("Region"),
            "price_date": self.tr("Price seen"),
        }

    def set_rows(self, rows: Sequence[Suggestion] | Sequence[TokenCost], money,
                 front: frozenset[str], why: Callable) -> None:
        """Show ``rows`` (suggestions, or per-token rows of an inference plan); ``money``
        writes US dollars in the display currency, ``why`` gives a row's tooltip sentence,
        ``front`` are the ids to star."""
        self.beginResetModel()
        self.rows = list(rows)
        self.per_token = bool(self.rows) and isinstance(self.rows[0], TokenCost)
        self._money, self._why, self._pareto = money, why, front
        self.endResetModel()

    def hidden_columns(self) -> frozenset[str]:
        """The columns the kind of plan shown does not use."""
        return JOB_COLUMNS if self.per_token else TOKEN_COLUMNS

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
        if isinstance(s, TokenCost):
            return self._token_data(s, name, index.row(), role)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(s, name, index.row())
        if role == SORT_ROLE:
            return self._sort_key(s, name, index.row())
        if role == ID_ROLE:
            return s.option.id
        if role == Qt.ItemDataRole.ToolTipRole:
            offer = s.option.offer
            if name == "price_date" and offer is not None and not offer.user:
                return self.tr("Price seen on {date}").format(date=offer.as_of)
            if name == "option":
                return f"{option_label(s.option)}\n{self._why(s)}"
            if name in ("provider", "region") and self._text(s, name, index.row()):
                # the whole seller or region: a narrow cell drops its note in brackets
                return f"{self._text(s, name, index.row())}\n{self._why(s)}"
            return self._why(s)
        if role == Qt.ItemDataRole.ForegroundRole:
            if name == "price_date" and s.stale:
                return readable_color(STALE_COLOR)
            if not s.fits or not s.acceptable:
                return readable_color(MUTED_COLOR)
        if role == Qt.ItemDataRole.TextAlignmentRole and name in ("rank", "gpus", "time",
                                                                  "cost"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _token_data(self, r: TokenCost, name: str, row: int, role):
        """A per-token row's cell: hardware rows read as their suggestion where the columns
        are the same; the money is per million tokens."""
        s = r.suggestion
        if role == ID_ROLE:
            return r.id
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "price" and r.api is not None:
                return self.tr("Per million input / output tokens")
            if name == "pays_off" and r.break_even is not None:
                return tok.pays_off_tip(r)
            return self._why(r)
        if role == Qt.ItemDataRole.TextAlignmentRole and name in (
                "rank", "gpus", "speed", "ttft", "per_mtok"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            stale = tok.price_seen(r.api.as_of, r.api.user, self.today)[1] if r.api else (
                s.stale)
            if name == "price_date" and stale:
                return readable_color(STALE_COLOR)
            if not r.fits:
                return readable_color(MUTED_COLOR)
            return None
        if role not in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            return None
        text = role == Qt.ItemDataRole.DisplayRole
        unfit = 0 if r.fits else 1
        if name in JOB_COLUMNS:  # hidden: a job of inference costs fractions of a cent
            return "" if text else 0
        if name == "rank":
            return f"{'★ ' if r.id in self._pareto else ''}{row + 1}" if text else row
        if name == "speed":
            return tok.speed(r) if text else (unfit, -(r.tokens_per_s or 0.0))
        if name == "ttft":
            return tok.first_token(r) if text else (unfit, r.ttft_s is None, r.ttft_s or 0.0)
        if name == "per_mtok":
            if text:
                return tok.small_money(self._money, r.usd_per_mtok) if r.fits else "—"
            return (unfit, r.usd_per_mtok if r.usd_per_mtok is not None else 0.0)
        if name == "pays_off":
            even = r.break_even
            return tok.pays_off(r) if text else (
                even is None, even is None or even.mtok is None,
                even.mtok if even is not None and even.mtok is not None else 0.0)
        if s is not None:
            return self._text(s, name, row) if text else self._sort_key(s, name, row)
        a = r.api
        values = {"option": r.label, "kind": tok.kind_name(r.kind, short=True),
                  "fits": self.tr("yes"),
                  "gpus": "", "price": tok.api_price(r, self._money),
                  "provider": a.provider,
                  "region": "", "price_date": tok.price_seen(a.as_of, a.user, self.today)[0]}
        if text:
            return values.get(name, "")
        if name == "price":
            return (False, a.output_usd_per_mtok)
        if name == "price_date":
            return (self.today - _day(a.as_of)).days if self.today else -1
        return values.get(name, "").lower()

    def _text(self, s: Suggestion, name: str, row: int) -> str:
        offer = s.option.offer
        if name == "rank":
            star = "★ " if s.option.id in self._pareto else ""
            return f"{star}{row + 1}"
        if name == "option":
            return option_label(s.option, short=True)  # the full name is in the tooltip
        if name == "kind":
            return kind_labels().get(s.option.kind, s.option.kind)
        if name == "fits":
            if not s.fits:
                return self.tr("no ({need} of {have})").format(
                    need=format_bytes(s.memory_bytes, self.units),
                    have=format_bytes(s.capacity_bytes, self.units))
            if s.levers:
                return self.tr("with {levers}").format(levers=data_words.lever_names(s.levers))
            return self.tr("yes")
        if name == "gpus":
            if s.instances > 1:
                return self.tr("{gpus} ({instances} instances)").format(
                    gpus=s.n_gpus, instances=s.instances)
            return str(s.n_gpus)
        if name == "time":
            return duration(s.hours * 3600.0) if s.fits else "—"
        if name == "cost":
            return self._money(s.cost_usd) if s.fits else "—"
        if name == "price":
            return price_text(offer, self._money)
        if name == "provider":
            return data_words.seller(offer.provider) if offer else self.tr("this machine")
        if name == "region":
            return data_words.region(offer.region) if offer else ""
        if name == "price_date":
            if offer is None:
                return ""
            if offer.user:
                return self.tr("{date} (your price)").format(date=offer.as_of)
            age = s.price_age_days
            mark = "⚠ " if s.stale else ""
            if age is None:
                return offer.as_of
            # The age alone: a narrow column elides from the middle, and an elided
            # "2026-05-…5 days ago" reads as 5 days; the day is in the tooltip.
            return self.tr("{mark}{days} days ago").format(mark=mark, days=age)
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


def _day(text: str):
    from gpuadvisor.core.offers import parse_day

    return parse_day(text)


class AdviceProxy(QSortFilterProxyModel):
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


class OptionsPanel(QWidget):
    """The lower half of the page: the filters, the table of options and a count under it.

    Attributes:
        filter_bar: the filters' widgets.
        model: the suggestions as rows; ``proxy``: filtered and sorted, as the table shows.
        table: the view (sortable, one row selected at a time).
        count_label: how many options are shown and fit, and the currency.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        self.filter_bar = FilterBar(self)
        layout.addWidget(self.filter_bar)

        self.model = AdviceModel(self)
        self.proxy = AdviceProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = table = QTableView(self)
        table.setAccessibleName(QCoreApplication.translate("ComparePage", "Options"))
        table.setToolTip(QCoreApplication.translate(
            "ComparePage", "Every option: click a row to see its details and the break-even; "
            "click a heading to sort"))
        table.setModel(self.proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setAlternatingRowColors(True)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(self.model.column("option"), QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        # Long names lose their middle ("RunPod NVIDIA RTX PRO … (spot)"): both ends say
        # what the option is.
        table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        # A seller or region reads from its start ("global market…", not "global …etplace").
        self._read_from_start = _ElideRight(table)
        for name in ("provider", "region"):
            table.setItemDelegateForColumn(self.model.column(name), self._read_from_start)
        table.setWordWrap(False)
        for name, width in COLUMN_WIDTHS.items():
            table.setColumnWidth(self.model.column(name), width)
        self._fitted: tuple | None = None
        # Each column's longest text in pixels, measured once per set of rows (and font):
        # a resize only shares the width out again (measuring 170 rows of ten columns on
        # every resize event took 12.6 ms of each).
        self._widths_of_texts: tuple | None = None
        self.model.modelReset.connect(self._forget_text_widths)
        # The viewport's width is what the columns share; it changes without this panel
        # resizing (a tab shown at last, a scroll bar that comes and goes): fit then too.
        table.viewport().installEventFilter(self)
        layout.addWidget(table, 1)
        # a long sentence, wrapped (never cut at the page's edge), its numbers kept with
        # their units and "★ =" whole
        self.count_label = UnitLabel("", self)
        self.count_label.setProperty("role", "note")
        layout.addWidget(self.count_label)

    def fit_columns(self) -> None:
        """Columns sized to the font; the least important left out when the table is too
        narrow for them all (never the option, whether it fits, its time or its cost)."""
        table = self.table
        chars = table.fontMetrics().averageCharWidth()
        available = table.viewport().width()
        hidden = self.model.hidden_columns()
        longest = self._text_widths(hidden)
        key = (chars, available, self.model.per_token, tuple(longest.items()))
        if key == self._fitted or available <= 0:
            return
        self._fitted = key
        header = table.horizontalHeader()
        metrics = header.fontMetrics()
        # As wide as its longest text needs, up to its share in characters (a column
        # sized for "⚠ 2026-05-01, 205 days ago" pushed the price's age off a 1280-pixel
        # table when it says "64 days ago"), and wide enough for its header (Chinese
        # headers are wider than their letters).
        widths = {name: max(min(n * chars + 12, longest.get(name, n * chars) + 16),
                            metrics.horizontalAdvance(str(self.model.headerData(
                                self.model.column(name), Qt.Orientation.Horizontal))) + 28)
                  for name, n in COLUMN_CHARS.items()}
        shown = [c for c in AdviceModel.COLUMNS if c not in hidden]
        for name in (TOKEN_DROP_ORDER if self.model.per_token else DROP_ORDER):
            if sum(widths[c] for c in shown) <= available:
                break
            shown.remove(name)
        # Room to spare (a wide window): the seller and the region get what their longest
        # text needs, up to half of what is left each; the option's name takes the rest.
        spare = available - sum(widths[c] for c in shown)
        for name in WIDEN_ORDER:
            want = longest[name] + 16 - widths[name]
            if name in shown and want > 0 and spare > 0:
                extra = min(want, spare // 2)
                widths[name] += extra
                spare -= extra
        for name in AdviceModel.COLUMNS:
            column = self.model.column(name)
            table.setColumnHidden(column, name not in shown)
            if name not in widths:
                continue
            if name != "option":
                table.setColumnWidth(column, widths[name])
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)

    def _forget_text_widths(self) -> None:
        self._widths_of_texts = None

    def _text_widths(self, hidden: frozenset[str]) -> dict[str, int]:
        """The longest text of each shown column but the option's, in pixels (cached until
        the rows or the font change)."""
        font = self.table.font().key()
        if self._widths_of_texts is None or self._widths_of_texts[0] != (font, hidden):
            self._widths_of_texts = ((font, hidden), {
                name: self._longest(name) for name in COLUMN_CHARS
                if name != "option" and name not in hidden})
        return self._widths_of_texts[1]

    def _longest(self, name: str) -> int:
        """The width of the longest text in column ``name``, in pixels."""
        model, metrics = self.model, self.table.fontMetrics()
        column = model.column(name)
        texts = {str(model.index(row, column).data() or "") for row in range(model.rowCount())}
        return max((metrics.horizontalAdvance(text) for text in texts), default=0)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self.fit_columns()
        return super().eventFilter(watched, event)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fitted = None
            self._widths_of_texts = None
            self.fit_columns()

    def ids(self) -> list[str]:
        """Option ids in the table's order (after filters and sorting)."""
        return [self.proxy.index(r, 0).data(ID_ROLE) for r in range(self.proxy.rowCount())]

    def text(self, row: int, column: str) -> str:
        """The text of a table cell (row in the table's order)."""
        return self.proxy.index(row, self.model.column(column)).data() or ""

    def select_row(self, option_id: str | None) -> None:
        """Make the row of ``option_id`` current and scroll to it (None: clear)."""
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


__all__ = ["ID_ROLE", "SORT_ROLE", "AdviceModel", "AdviceProxy", "OptionsPanel"]
