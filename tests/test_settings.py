"""Settings: defaults, atomic saves, recent files, and bad files backed up, never lost.

Every test points GPUADVISOR_CONFIG_DIR at a temporary folder: the real user folders are
never read or written.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import platformdirs
import pytest

from gpuadvisor import userfiles
from gpuadvisor.workspace.settings import (
    CONFIG_DIR_ENV,
    MAX_RECENT_FILES,
    Settings,
    config_dir,
    load_settings,
    save_settings,
    settings_path,
)


@pytest.fixture(autouse=True)
def config_folder(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv(CONFIG_DIR_ENV, str(folder))
    return folder


def _backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("settings.json.bad-*"))


# --------------------------------------------------------------------------- folders
def test_the_environment_variable_chooses_the_folder(config_folder):
    assert config_dir() == config_folder
    assert settings_path() == config_folder / "settings.json"


def test_without_the_variable_the_platform_config_folder_is_used(monkeypatch):
    monkeypatch.delenv(CONFIG_DIR_ENV)
    assert config_dir() == Path(platformdirs.user_config_dir("gpuadvisor", appauthor=False))


# --------------------------------------------------------------------------- defaults
def test_defaults_when_there_is_no_file(config_folder):
    settings, warning = load_settings()
    assert warning is None
    assert settings == Settings()
    assert settings.language == "system"
    assert settings.units == "GiB"
    assert settings.currency == "USD"
    assert settings.electricity_usd_per_kwh == 0.15
    assert settings.recent_files == []
    assert settings.presentation_mode is False
    assert settings.window_geometry is None
    assert not config_folder.exists()  # loading never creates anything


def test_save_and_load_round_trip(config_folder):
    geometry = base64.b64encode(b"\x01\xd9\xd0\xcb\x00\x03").decode("ascii")
    settings = Settings(window_geometry=geometry, language="zh_CN", units="GB",
                        electricity_usd_per_kwh=0.31, currency="EUR", presentation_mode=True)
    settings.add_recent(config_folder / "a.gpuplan")
    path = save_settings(settings)
    assert path == config_folder / "settings.json"
    assert json.loads(path.read_text(encoding="utf-8"))["schema_version"] == 1
    loaded, warning = load_settings()
    assert warning is None
    assert loaded == settings
    assert sorted(p.name for p in config_folder.iterdir()) == ["settings.json"]


def test_unknown_keys_are_ignored(config_folder):
    config_folder.mkdir()
    data = Settings(units="GB").to_dict() | {"theme": "dark"}
    (config_folder / "settings.json").write_text(json.dumps(data), encoding="utf-8")
    loaded, warning = load_settings()
    assert warning is None
    assert loaded.units == "GB"


def test_missing_keys_take_their_defaults(config_folder):
    config_folder.mkdir()
    (config_folder / "settings.json").write_text('{"schema_version": 1, "currency": "CNY"}',
                                                 encoding="utf-8")
    loaded, _ = load_settings()
    assert loaded == Settings(currency="CNY")


# --------------------------------------------------------------------------- bad files
_BAD = {
    "corrupt": ('{"schema_version": 1, "units": ', "not valid JSON"),
    "newer": ('{"schema_version": 7, "units": "GiB"}', "newer gpuadvisor (schema 7)"),
    "no-version": ('{"units": "GiB"}', "schema_version"),
    "invalid-value": ('{"schema_version": 1, "language": "fr"}', "language"),
    "not-an-object": ("[]", "JSON object"),
}


@pytest.mark.parametrize(("content", "words"), list(_BAD.values()), ids=list(_BAD))
def test_a_bad_file_is_backed_up_and_defaults_are_used(config_folder, content, words):
    config_folder.mkdir()
    (config_folder / "settings.json").write_text(content, encoding="utf-8")
    settings, warning = load_settings()
    assert settings == Settings()
    assert warning is not None and words in warning
    backups = _backups(config_folder)
    assert len(backups) == 1
    assert backups[0].name in warning
    assert backups[0].read_text(encoding="utf-8") == content  # kept byte for byte
    assert not (config_folder / "settings.json").exists()
    # The warning is one-time: the next start finds no file and says nothing.
    assert load_settings() == (Settings(), None)


def test_two_bad_files_in_the_same_second_get_two_backups(config_folder, monkeypatch):
    # The backup name comes from gpuadvisor.userfiles.set_aside (shared with plans/history).
    monkeypatch.setattr(userfiles.time, "strftime", lambda fmt: "20250101-000000")
    config_folder.mkdir()
    for content in ("{", "}"):
        (config_folder / "settings.json").write_text(content, encoding="utf-8")
        assert load_settings()[1] is not None
    assert [p.read_text(encoding="utf-8") for p in _backups(config_folder)] == ["{", "}"]


def test_an_unreadable_file_is_backed_up(config_folder):
    config_folder.mkdir()
    (config_folder / "settings.json").mkdir()  # a folder where the file should be
    settings, warning = load_settings()
    assert settings == Settings()
    assert "could not be read" in warning
    assert len(_backups(config_folder)) == 1


def test_saving_invalid_settings_raises_and_leaves_the_file(config_folder):
    save_settings(Settings(units="GB"))
    before = settings_path().read_bytes()
    settings = Settings()
    settings.units = "MB"
    with pytest.raises(ValueError, match="units"):
        save_settings(settings)
    assert settings_path().read_bytes() == before


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("field", "value"),
    [("language", "fr"), ("units", "MiB"), ("currency", "GBP"),
     ("electricity_usd_per_kwh", -1), ("electricity_usd_per_kwh", True),
     ("presentation_mode", "yes"), ("recent_files", "a.gpuplan"),
     ("window_geometry", "not base64!")],
)
def test_invalid_values_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        Settings(**{field: value})


# --------------------------------------------------------------------------- recent files
def test_recent_files_are_most_recent_first_without_duplicates(tmp_path):
    settings = Settings()
    settings.add_recent(tmp_path / "a.gpuplan")
    settings.add_recent(tmp_path / "b.gpuplan")
    settings.add_recent(tmp_path / "sub" / ".." / "a.gpuplan")  # the same file again
    assert settings.recent_files == [str(tmp_path / "a.gpuplan"), str(tmp_path / "b.gpuplan")]


def test_recent_files_keep_the_ten_most_recent(tmp_path):
    settings = Settings()
    for i in range(MAX_RECENT_FILES + 3):
        settings.add_recent(tmp_path / f"{i}.gpuplan")
    assert len(settings.recent_files) == MAX_RECENT_FILES
    assert settings.recent_files[0] == str(tmp_path / f"{MAX_RECENT_FILES + 2}.gpuplan")
    assert str(tmp_path / "2.gpuplan") not in settings.recent_files


def test_relative_recent_files_are_made_absolute_and_can_be_removed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    settings.add_recent("plan.gpuplan")
    assert settings.recent_files == [str(tmp_path / "plan.gpuplan")]
    settings.remove_recent(tmp_path / "plan.gpuplan")
    assert settings.recent_files == []


def test_a_long_list_in_the_file_is_trimmed_not_rejected(config_folder):
    config_folder.mkdir()
    files = [f"/p/{i}.gpuplan" for i in range(15)] + ["/p/0.gpuplan"]
    data = {"schema_version": 1, "recent_files": files}
    (config_folder / "settings.json").write_text(json.dumps(data), encoding="utf-8")
    loaded, warning = load_settings()
    assert warning is None
    assert loaded.recent_files == files[:MAX_RECENT_FILES]


# --------------------------------------------------------------------------- exchange rates
def test_default_exchange_rates_offer_cny_and_eur_with_a_date():
    from gpuadvisor.workspace.settings import DEFAULT_EXCHANGE_RATES, EXCHANGE_RATES_AS_OF

    settings = Settings()
    assert settings.exchange_rates == DEFAULT_EXCHANGE_RATES == {"CNY": 7.1, "EUR": 0.86}
    assert EXCHANGE_RATES_AS_OF == "2025-10-01"
    assert settings.rate("USD") == 1.0 and settings.rate("CNY") == 7.1


def test_money_in_the_display_currency_at_the_users_rate():
    assert Settings().format_money(14) == "$14"
    assert Settings(currency="CNY").format_money(14) == "¥99"
    assert Settings(currency="EUR", exchange_rates={"EUR": 0.93}).format_money(14) == "€13"
    assert Settings(currency="CNY", exchange_rates={"CNY": 7.2}).format_money(14) == "¥101"
    assert Settings(currency="EUR").to_display(100) == pytest.approx(86)


def test_small_amounts_keep_their_cents_and_large_ones_get_separators():
    from gpuadvisor.workspace.settings import format_money

    assert format_money(2.69) == "$2.69"
    assert format_money(0.9, "EUR") == "€0.90"
    assert format_money(1234.4, "CNY") == "¥1,234"
    assert format_money(-5.5) == "-$5.50"
    assert format_money(float("nan")) == "n/a"
    assert format_money(3.14159, "USD", digits=3) == "$3.142"


def test_exchange_rates_round_trip_and_missing_rates_take_their_defaults(config_folder):
    save_settings(Settings(currency="EUR", exchange_rates={"EUR": 0.9}))
    loaded, warning = load_settings()
    assert warning is None
    assert loaded.exchange_rates == {"CNY": 7.1, "EUR": 0.9}
    assert loaded.format_money(10) == "€9.00"


def test_a_file_without_exchange_rates_loads_with_the_defaults(config_folder):
    config_folder.mkdir()
    data = {"schema_version": 1, "currency": "CNY"}
    (config_folder / "settings.json").write_text(json.dumps(data), encoding="utf-8")
    loaded, warning = load_settings()
    assert warning is None and loaded.exchange_rates == {"CNY": 7.1, "EUR": 0.86}


@pytest.mark.parametrize(
    ("rates", "words"),
    [({"EUR": 0}, "exchange_rates.EUR must be a positive number"),
     ({"EUR": -1.0}, "exchange_rates.EUR must be a positive number"),
     ({"CNY": "7.1"}, "exchange_rates.CNY must be a positive number"),
     ({"CNY": True}, "exchange_rates.CNY must be a positive number"),
     ({"CNY": float("inf")}, "exchange_rates.CNY must be a positive number"),
     ({"GBP": 0.8}, "exchange_rates: unknown currency 'GBP'"),
     ([7.1], "exchange_rates must be an object")],
)
def test_invalid_exchange_rates_name_the_field(rates, words):
    with pytest.raises(ValueError, match=words.replace(".", r"\.").replace("(", r"\(")):
        Settings(exchange_rates=rates)


def test_a_file_with_a_bad_exchange_rate_is_set_aside_and_defaults_are_used(config_folder):
    config_folder.mkdir()
    data = {"schema_version": 1, "currency": "EUR", "exchange_rates": {"EUR": -2}}
    (config_folder / "settings.json").write_text(json.dumps(data), encoding="utf-8")
    settings, warning = load_settings()
    assert settings == Settings()
    assert "exchange_rates.EUR" in warning
    assert len(_backups(config_folder)) == 1


def test_the_per_token_inputs_are_kept_and_checked(config_folder):
    # Defaults: half the rented hours busy; a card serves 10,000 h (core.token_costs).
    assert Settings().rental_utilization == 0.5
    assert Settings().card_lifetime_hours == 10_000.0
    save_settings(Settings(rental_utilization=0.8, card_lifetime_hours=20_000))
    loaded, warning = load_settings()
    assert warning is None
    assert (loaded.rental_utilization, loaded.card_lifetime_hours) == (0.8, 20_000.0)
    with pytest.raises(ValueError, match="rental_utilization"):
        Settings(rental_utilization=0.0)
    with pytest.raises(ValueError, match="card_lifetime_hours"):
        Settings(card_lifetime_hours=50)
