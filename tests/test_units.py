"""Parsing and formatting of bytes, counts, FLOPs, durations and money."""

from __future__ import annotations

import math

import pytest

from gpuadvisor.core.units import (
    GB,
    GiB,
    KiB,
    MiB,
    TiB,
    format_bytes,
    format_count,
    format_duration,
    format_flops,
    format_money,
    format_sig,
    parse_bytes,
    parse_count,
)


def test_unit_constants():
    assert KiB == 1024
    assert MiB == 1024 * 1024
    assert GiB == 1024 * 1024 * 1024
    assert TiB == 1024 * GiB
    assert GB == 10**9


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24GiB", 24 * 1024**3),  # an RTX 4090's "24 GB" is 24 GiB
        ("80 GB", 80 * 10**9),
        ("512MiB", 512 * 1024**2),
        ("1000", 1000),
        ("1000 B", 1000),
        ("1.5 KiB", 1536),
        ("2 kb", 2000),
        ("1TiB", 1024**4),
        ("3 TB", 3 * 10**12),
        ("  16 gib  ", 16 * 1024**3),
        ("0.5GiB", 512 * 1024**2),
        ("1e3", 1000),
    ],
)
def test_parse_bytes_accepts_binary_and_decimal_units(text, expected):
    assert parse_bytes(text) == expected
    assert isinstance(parse_bytes(text), int)


@pytest.mark.parametrize("text", ["", "GiB", "abc", "24 parsecs", "-5GB", "1.2.3GB",
                                  "24 GiB extra", "inf", "nan"])
def test_parse_bytes_rejects_garbage_naming_the_text(text):
    with pytest.raises(ValueError) as info:
        parse_bytes(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2T", 2e12),
        ("1.5B", 1.5e9),
        ("300M", 300e6),
        ("16k", 16e3),
        ("16K", 16e3),
        ("1e9", 1e9),
        ("7", 7.0),
        ("2.5 g", 2.5e9),
        (" 52002 ", 52002.0),
    ],
)
def test_parse_count_accepts_si_suffixes(text, expected):
    assert parse_count(text) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("text", ["", "lots", "2 Tokens", "-1B", "1.5X", "2e", "B"])
def test_parse_count_rejects_garbage_naming_the_text(text):
    with pytest.raises(ValueError) as info:
        parse_count(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(
    ("n", "units", "expected"),
    [
        (24 * GiB, "GiB", "24.0 GiB"),
        (1.5 * GiB, "GiB", "1.5 GiB"),
        (512 * MiB, "GiB", "512.0 MiB"),
        (2 * TiB, "GiB", "2.0 TiB"),
        (3 * KiB, "GiB", "3.0 KiB"),
        (512, "GiB", "512 B"),
        (80e9, "GB", "80.0 GB"),
        (1.2e12, "GB", "1.2 TB"),
        (1500, "GB", "1.5 kB"),
        (0, "GiB", "0 B"),
    ],
)
def test_format_bytes(n, units, expected):
    assert format_bytes(n, units) == expected


def test_format_bytes_digits_and_non_finite():
    assert format_bytes(1.25 * GiB, digits=2) == "1.25 GiB"
    assert format_bytes(math.nan) == "n/a"
    assert format_bytes(math.inf) == "n/a"
    assert format_bytes(None) == "n/a"


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (8_030_261_248, "8.03B"),
        (124_439_808, "124.44M"),
        (2e12, "2.00T"),
        (16_000, "16.00k"),
        (999, "999"),
    ],
)
def test_format_count(n, expected):
    assert format_count(n) == expected


def test_format_count_with_one_digit_and_non_finite():
    assert format_count(124_400_000, digits=1) == "124.4M"
    assert format_count(math.nan) == "n/a"


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1.2e21, "1.20 ZFLOP"),
        (3.5e15, "3.50 PFLOP"),
        (8e9, "8.00 GFLOP"),
        (1e24, "1.00 YFLOP"),
        (1234.0, "1.23e+03 FLOP"),
    ],
)
def test_format_flops(n, expected):
    assert format_flops(n) == expected


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        # Three significant figures everywhere, so a 2.74 s step is not shown as "3 s".
        (42, "42.0 s"),
        (2.74, "2.74 s"),
        (0.25, "250 ms"),
        (0.0262, "26.2 ms"),
        (12.5 * 60, "12.5 min"),
        (9.5 * 3600, "9.50 h"),
        (3.2 * 86400, "3.20 days"),
        (171.2 * 86400, "171 days"),
        (2.1 * 365 * 86400, "2.10 years"),
        (59.99, "60.0 s"),  # 3 figures, still seconds: the unit follows the raw value
        (75, "1.25 min"),
        (math.inf, "n/a"),
    ],
)
def test_format_duration(seconds, expected):
    assert format_duration(seconds) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2.74, "2.74"), (9.5, "9.50"), (0.61324882121238, "0.613"), (1234.5, "1,230"),
     (52002, "52,000"), (9.996, "10.0"), (0.0, "0")],
)
def test_format_sig_keeps_three_significant_figures(value, expected):
    assert format_sig(value) == expected


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        (1234.5, "USD", "$1,234.50"),
        (88, "CNY", "¥88.00"),
        (9.99, "EUR", "€9.99"),
        (12.3, "GBP", "12.30 GBP"),
        (math.nan, "USD", "n/a"),
    ],
)
def test_format_money(amount, currency, expected):
    assert format_money(amount, currency) == expected


@pytest.mark.parametrize(
    ("amount", "currency", "digits", "expected"),
    [
        (14.0, "USD", None, "$14"),
        (1234.4, "CNY", None, "¥1,234"),
        (2.69, "USD", None, "$2.69"),
        (0.9, "EUR", None, "€0.90"),
        (3.14159, "USD", 3, "$3.142"),
        (1234.5, "USD", 0, "$1,234"),
    ],
)
def test_format_money_digits_none_drops_cents_from_ten_up(amount, currency, digits, expected):
    assert format_money(amount, currency, digits) == expected


def test_format_money_puts_the_sign_before_the_symbol_and_never_shows_minus_zero():
    assert format_money(-5.5) == "-$5.50"
    assert format_money(-12.3, "GBP") == "-12.30 GBP"
    assert format_money(-0.001) == "$0.00"


@pytest.mark.parametrize("n", [1, 1000, 123_456_789, 24 * GiB, 7.5e12])
def test_formatted_gib_round_trips_through_parse_bytes_within_rounding(n):
    text = format_bytes(n, digits=3).replace(" ", "")
    assert parse_bytes(text) == pytest.approx(n, rel=1e-3, abs=1)
