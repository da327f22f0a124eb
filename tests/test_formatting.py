"""The one formatter, against figures written on the published pages."""

import pytest

from measurements.formatting import (
    MISSING,
    format_calls_per_operation,
    format_cycles,
    format_cycles_with_share,
    format_general,
    format_kib,
    format_n,
    format_ratio,
    format_seconds,
    format_share,
    format_size,
)
from measurements.stats import calls_per_operation


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (158_412.3, "158.4 k"),
        (160_500, "160.5 k"),
        (1_318_000, "1.32 M"),
        (627_340_000, "627.34 M"),
        (4_820_000_000, "4.82 G"),
        (9623.4, "9623"),
        (1358, "1358"),
        (11_200, "11.2 k"),
        (999, "999"),
        (999_960, "1.00 M"),
        (None, MISSING),
    ],
)
def test_cycles(value, text):
    assert format_cycles(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (76.7e-6, "76.7 µs"),
        (121.2e-6, "121 µs"),
        (1.38e-3, "1.38 ms"),
        (2.32, "2.32 s"),
        (29.8, "29.8 s"),
        (0.0001839197306619175, "184 µs"),
        (0.00018340811130899376, "183 µs"),
        (0.9997, "1 s"),
        (850e-9, "850 ns"),
        (9.996e-6, "10 µs"),
        # FORMAT.md: like %g, trailing zeros are dropped.
        (50e-6, "50 µs"),
        (87.0e-6, "87 µs"),
        (1.2e-3, "1.2 ms"),
        (99.9e-6, "99.9 µs"),
        (1234.4, "1234 s"),
        (99.96e-6, "100 µs"),
        (9.9996e-3, "10 ms"),
        (None, MISSING),
    ],
)
def test_seconds(value, text):
    assert format_seconds(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (13_000, "1.3e+04"),
        (10_000, "1e+04"),
        (8290, "8.29e+03"),
        (727, "727"),
        (3.33, "3.33"),
        (0.0549, "0.0549"),
        (5437.154547807635, "5.44e+03"),
    ],
)
def test_ops_per_second(value, text):
    assert format_general(value) == text


def test_n_and_memory():
    assert format_n(16845, 5, 3369) == "16845 (5 × 3369)"
    assert format_kib(1449984) == "1416 KiB"
    assert format_kib(None) == MISSING


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.64, "64%"), (0.069, "6.9%"), (0.0, "0.0%"), (0.008415, "0.8%"), (0.9443, "94%")],
)
def test_share(value, text):
    assert format_share(value) == text


def test_calls_per_operation_in_byte_order():
    rows = [("pseudoXOF", 9050), ("drng", 2000), ("sm3hash", 0)]
    assert format_calls_per_operation(calls_per_operation(rows, 1000)) == "drng 2, pseudoXOF 9.05"
    assert format_calls_per_operation({"drng": 1720.0}) == "drng 1.72e+03"
    assert format_calls_per_operation({}) == MISSING


def test_sizes_ratio_and_summary_cell():
    assert format_size(2420, "nominal-variable") == "≈2420"
    assert format_size(1024, "encoded") == "1024"
    assert format_ratio(4.9712) == "4.97×"
    assert format_cycles_with_share(41.2e9, 0.0, 20) == "41.20 G (0.0%, n=20)"
    assert format_cycles_with_share(158_400, 0.94, 50315) == "158.4 k (94%)"


def test_interval_and_memory_sizes():
    from measurements.formatting import format_cycles_interval, format_size_bytes

    assert format_cycles_interval(123_679, 123_100, 124_210) == "123.7 k (123.1 k–124.2 k)"
    assert format_cycles_interval(5000, None, None) == "5000"
    assert format_size_bytes(3412) == "3412 B"
    assert format_size_bytes(53_248) == "52 KiB"


def test_input_spread():
    from measurements.formatting import format_input_spread

    flat = {"spread_relative": 0.018, "pool_size": 16, "input_dependent": False}
    assert format_input_spread(flat) == "±0.9 % across 16 inputs"
    varies = {
        "spread_relative": 0.38,
        "noise_relative": 0.02,
        "pool_size": 8,
        "input_dependent": True,
    }
    assert format_input_spread(varies) == "±19 % across 8 inputs (noise ±1 %): depends on the input"
    hidden = {**varies, "noise_relative": 0.5, "input_dependent": False}  # too noisy to tell
    assert format_input_spread(hidden) == "±19 % across 8 inputs (noise ±25 %): within the noise"
    assert format_input_spread({}) == "–"
    assert (
        format_input_spread({"pool_size": 4, "error": "dec refused"}) == "not measured: dec refused"
    )
