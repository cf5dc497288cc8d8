"""User settings (window, language, units, prices, recent plan files) in ``settings.json``.

The file lives in ``platformdirs.user_config_dir("gpuadvisor")``, or in the folder named by
the ``GPUADVISOR_CONFIG_DIR`` environment variable (tests and portable installs). It carries a
``schema_version``, is written atomically, and a file that cannot be used (unreadable, not
JSON, invalid values, or written by a newer version) is renamed to
``settings.json.bad-<timestamp>`` — kept, never deleted — and the defaults are used, with a
one-time message for the user. Unknown keys are ignored.

This module never imports Qt.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import platformdirs

from gpuadvisor.core import units
from gpuadvisor.core.limits import (
    MAX_SETTINGS_FILE_BYTES,
    SETTINGS_BOUNDS,
    LimitError,
    check,
    loads_json,
)
from gpuadvisor.core.token_costs import DEFAULT_LIFETIME_HOURS, DEFAULT_UTILIZATION
from gpuadvisor.core.units import CURRENCY_SYMBOLS
from gpuadvisor.userfiles import read_regular_file, set_aside, write_atomic

SETTINGS_SCHEMA_VERSION = 1
"""The ``schema_version`` this version writes and reads."""

SETTINGS_FILE_NAME = "settings.json"
"""File name inside :func:`config_dir`."""

CONFIG_DIR_ENV = "GPUADVISOR_CONFIG_DIR"
"""Environment variable that replaces the platform's config folder."""

MAX_RECENT_FILES = 10
"""Length of the recent-files list."""

MAX_SETTINGS_BYTES = MAX_SETTINGS_FILE_BYTES
"""Larger settings files are set aside unread (a real one is under 4 kB)."""

LANGUAGES = ("system", "en", "zh_CN")
THEMES = ("system", "light", "dark")
UNITS = ("GiB", "GB")
CURRENCIES = ("USD", "CNY", "EUR")

# 0.15 USD/kWh is a round assumption, a little under the U.S. average: the EIA's Electric
# Power Monthly (table 5.3, "Average Price of Electricity to Ultimate Customers") puts the
# 2023 U.S. residential average at about 16 cents/kWh. Users set their own in the app.
DEFAULT_ELECTRICITY_USD_PER_KWH = 0.15

# Exchange rates for showing money in the display currency: units of that currency per 1 USD
# (the catalogs and estimates are in US dollars). Users set their own; these defaults are
# rounded market rates as of 2025-10-01 (ECB euro reference rates,
# https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/,
# about 1.17 USD and 8.35 CNY per euro in late September 2025, i.e. about 0.855 EUR and
# 7.13 CNY per USD; rounded to 0.86 and 7.1). Approximate: check today's rate and set it.
DEFAULT_EXCHANGE_RATES: dict[str, float] = {"CNY": 7.1, "EUR": 0.86}
EXCHANGE_RATES_AS_OF = "2025-10-01"


@dataclass
class Settings:
    """What the app remembers between sessions.

    Attributes:
        window_geometry: the main window's saved geometry (Qt's ``saveGeometry`` bytes,
            base64), or None.
        language: ``system`` (follow the OS), ``en`` or ``zh_CN``.
        units: memory sizes in ``GiB`` (2**30) or ``GB`` (10**9).
        electricity_usd_per_kwh: electricity price for running-cost estimates, USD per kWh.
        currency: display currency: ``USD``, ``CNY`` or ``EUR``.
        exchange_rates: units of each non-USD display currency per 1 USD, set by the user
            (``{"CNY": 7.1, "EUR": 0.86}`` by default, see :data:`DEFAULT_EXCHANGE_RATES`);
            a rate missing from the file takes its default.
        recent_files: plan files, most recent first, at most :data:`MAX_RECENT_FILES`.
        presentation_mode: large fonts and thick lines for projectors.
        theme: colours: ``system`` (follow the desktop), ``light`` or ``dark``.
        probe_python: the interpreter (with torch) the probes run in, picked by the user or
            remembered from ``gpuadvisor probe --python``; None: find one.
        rental_utilization: inference plans on the Compare page: share of rented hours
            spent generating (0.01-1).
        card_lifetime_hours: inference plans on the Compare page: hours a bought card serves
            (its price is spread over them; 100-100,000).
    """

    window_geometry: str | None = None
    language: str = "system"
    units: str = "GiB"
    electricity_usd_per_kwh: float = DEFAULT_ELECTRICITY_USD_PER_KWH
    currency: str = "USD"
    exchange_rates: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_EXCHANGE_RATES))
    recent_files: list[str] = field(default_factory=list)
    presentation_mode: bool = False
    probe_python: str | None = None
    theme: str = "system"
    rental_utilization: float = DEFAULT_UTILIZATION
    card_lifetime_hours: float = DEFAULT_LIFETIME_HOURS

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field (call after changing attributes).

        Raises:
            ValueError: naming the first invalid field.
        """
        _check_geometry(self.window_geometry)
        _check_choice("language", self.language, LANGUAGES)
        _check_choice("units", self.units, UNITS)
        _check_choice("currency", self.currency, CURRENCIES)
        _check_choice("theme", self.theme, THEMES)
        price = self.electricity_usd_per_kwh
        try:
            check("electricity_usd_per_kwh", price, SETTINGS_BOUNDS["electricity_usd_per_kwh"])
        except LimitError:
            raise ValueError(f"electricity_usd_per_kwh must be a number in [0, 100), got "
                             f"{_short(price)}") from None
        if price >= 100:
            raise ValueError(f"electricity_usd_per_kwh must be a number in [0, 100), got {price!r}")
        self.electricity_usd_per_kwh = float(price)
        self.exchange_rates = _checked_rates(self.exchange_rates)
        for name in ("rental_utilization", "card_lifetime_hours"):
            value = getattr(self, name)
            bound = SETTINGS_BOUNDS[name]
            try:
                check(name, value, bound)
            except LimitError:
                raise ValueError(f"{name} must be a number in [{bound.low:g}, {bound.high:g}], "
                                 f"got {_short(value)}") from None
            setattr(self, name, float(value))
        if not isinstance(self.presentation_mode, bool):
            raise ValueError(f"presentation_mode must be true or false, got "
                             f"{self.presentation_mode!r}")
        if not isinstance(self.recent_files, list) or not all(
                isinstance(p, str) and p and "\0" not in p for p in self.recent_files):
            raise ValueError("recent_files must be a list of paths (strings)")
        self.recent_files = _dedup(self.recent_files)[:MAX_RECENT_FILES]
        if self.probe_python is not None and (not isinstance(self.probe_python, str)
                                              or not self.probe_python.strip()
                                              or "\0" in self.probe_python):
            raise ValueError(f"probe_python must be a path (text) or null, got "
                             f"{self.probe_python!r}")

    def rate(self, currency: str | None = None) -> float:
        """Units of ``currency`` (default: the display currency) per 1 USD."""
        code = self.currency if currency is None else currency
        _check_choice("currency", code, CURRENCIES)
        return 1.0 if code == "USD" else self.exchange_rates[code]

    def to_display(self, amount_usd: float) -> float:
        """An amount in US dollars, in the display currency (at the user's rate)."""
        return amount_usd * self.rate()

    def format_money(self, amount_usd: float, digits: int | None = None) -> str:
        """An amount in US dollars, converted and formatted: ``"$14"``, ``"¥99"``, ``"€12"``.

        See :func:`format_money` for the digits.
        """
        return format_money(self.to_display(amount_usd), self.currency, digits)

    def add_recent(self, path: str | os.PathLike[str]) -> None:
        """Put ``path`` (made absolute) first in :attr:`recent_files`, without duplicates."""
        entry = os.path.abspath(os.fspath(path))
        self.recent_files = _dedup([entry, *self.recent_files])[:MAX_RECENT_FILES]

    def remove_recent(self, path: str | os.PathLike[str]) -> None:
        """Drop ``path`` from :attr:`recent_files` (e.g. after it failed to open)."""
        key = _path_key(os.path.abspath(os.fspath(path)))
        self.recent_files = [p for p in self.recent_files if _path_key(p) != key]

    def to_dict(self) -> dict:
        """The settings as ``settings.json`` data, ``schema_version`` included."""
        return {"schema_version": SETTINGS_SCHEMA_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict) -> Settings:
        """Settings from ``settings.json`` data; missing keys take defaults, unknown are ignored.

        Raises:
            ValueError: an invalid value (the field is named).
        """
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


def format_money(amount: float, currency: str = "USD", digits: int | None = None) -> str:
    """Format an amount already in ``currency``: ``"$14"``, ``"¥1,234"``, ``"€0.85"``.

    :func:`gpuadvisor.core.units.format_money` with the app's default for the digits: None,
    i.e. none from 10 up (``"$14"``, ``"$1,250"``), two below (``"$0.90"``, ``"$2.69"``), so an
    hourly price keeps its cents. ``"n/a"`` for a missing or non-finite amount.
    """
    return units.format_money(amount, currency, digits)


def _checked_rates(rates: Any) -> dict[str, float]:
    """The exchange rates with defaults filled in; ``ValueError`` naming the bad one."""
    if not isinstance(rates, dict):
        raise ValueError(f"exchange_rates must be an object like {{\"CNY\": 7.1}}, got "
                         f"{rates!r}")
    out = dict(DEFAULT_EXCHANGE_RATES)
    for code, value in rates.items():
        if code not in DEFAULT_EXCHANGE_RATES:
            allowed = ", ".join(DEFAULT_EXCHANGE_RATES)
            raise ValueError(f"exchange_rates: unknown currency {code!r}; use {allowed}")
        try:
            check(f"exchange_rates.{code}", value, SETTINGS_BOUNDS["exchange_rate"])
            if value >= 1e6:
                raise LimitError(code)
        except LimitError:
            raise ValueError(f"exchange_rates.{code} must be a positive number of {code} per "
                             f"USD, got {_short(value)}") from None
        out[code] = float(value)
    return out


def _short(value: Any) -> str:
    """``repr`` of a value from the file, cut short (a 4,000-digit number is not shown)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def _check_geometry(value: Any) -> None:
    if value is None:
        return
    try:
        base64.b64decode(value, validate=True)
    except (TypeError, ValueError, binascii.Error):
        raise ValueError("window_geometry must be base64 text or null") from None


def _path_key(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def _dedup(paths: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for path in paths:
        key = _path_key(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


# --------------------------------------------------------------------------- files
def config_dir() -> Path:
    """The folder of ``settings.json``: ``$GPUADVISOR_CONFIG_DIR`` or the platform's."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("gpuadvisor", appauthor=False))


def settings_path() -> Path:
    """The ``settings.json`` file (it may not exist yet)."""
    return config_dir() / SETTINGS_FILE_NAME


def load_settings(path: str | os.PathLike[str] | None = None) -> tuple[Settings, str | None]:
    """Load the settings, falling back to defaults; never raises.

    Args:
        path: the file (default: :func:`settings_path`).

    Returns:
        (settings, message): ``message`` is None when the file was fine or absent; otherwise
        it says what was wrong and where the bad file was moved (to
        ``settings.json.bad-<timestamp>``), and ``settings`` are the defaults.
    """
    file = Path(path) if path is not None else settings_path()
    try:
        raw = read_regular_file(file, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return Settings(), None
    except OSError as exc:
        return Settings(), _set_aside(file, f"could not be read ({exc.strerror or exc})")
    try:
        return _parse(raw), None
    except ValueError as exc:
        return Settings(), _set_aside(file, str(exc))


def _parse(raw: bytes) -> Settings:
    """Settings from the file's bytes; ``ValueError`` says why they cannot be used."""
    try:
        data = loads_json(raw)
    except UnicodeDecodeError:
        raise ValueError("is not a text (UTF-8) file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"is not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    except LimitError as exc:
        raise ValueError(f"cannot be used: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("does not hold a JSON object")
    version = data.pop("schema_version", None)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ValueError(f"has no valid schema_version (got {version!r})")
    if version > SETTINGS_SCHEMA_VERSION:
        raise ValueError(f"was written by a newer gpuadvisor (schema {version}); "
                         f"this version reads {SETTINGS_SCHEMA_VERSION}")
    if version != SETTINGS_SCHEMA_VERSION:
        raise ValueError(f"has unknown schema_version {version}")
    try:
        return Settings.from_dict(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"has an invalid value: {exc}") from None


def _set_aside(file: Path, reason: str) -> str:
    """Rename a bad settings file to a unique backup name; the message for the user."""
    try:
        backup = set_aside(file)
    except OSError as exc:
        return (f"Settings file {file} {reason}. It could not be moved aside "
                f"({exc.strerror or exc}); default settings are used.")
    return (f"Settings file {file} {reason}. It was kept as {backup.name}; "
            "default settings are used.")


def save_settings(settings: Settings, path: str | os.PathLike[str] | None = None) -> Path:
    """Write the settings atomically (creating the folder if needed).

    Args:
        settings: what to write (validated first).
        path: the file (default: :func:`settings_path`).

    Returns:
        The file written.

    Raises:
        ValueError: an invalid setting (the file is not touched).
        OSError: the file cannot be written (the previous file is then unchanged).
    """
    settings.validate()
    file = Path(path) if path is not None else settings_path()
    file.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.to_dict(), indent=2, ensure_ascii=False) + "\n"
    return write_atomic(file, text)


__all__ = [
    "CONFIG_DIR_ENV",
    "CURRENCIES",
    "CURRENCY_SYMBOLS",
    "DEFAULT_EXCHANGE_RATES",
    "EXCHANGE_RATES_AS_OF",
    "LANGUAGES",
    "MAX_RECENT_FILES",
    "SETTINGS_SCHEMA_VERSION",
    "THEMES",
    "UNITS",
    "Settings",
    "config_dir",
    "format_money",
    "load_settings",
    "save_settings",
    "settings_path",
]
