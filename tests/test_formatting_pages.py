"""Formatter additions for the candidate page: times, clock line, hash figures."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from measurements.formatting import (
    MISSING,
    format_clock,
    format_cycles_per_byte,
    format_message_length,
    format_utc,
)

ARM_ENV = {
    "cpufreq_governor": "performance",
    "cpufreq_min_khz": "2707200",
    "cpufreq_max_khz": "2707200",
    "intel_pstate_no_turbo": None,
    "cpufreq_boost": "0",
    "smt_control": "notsupported",
}
X86_ENV = {
    "cpufreq_governor": "performance",
    "cpufreq_min_khz": "800000",
    "cpufreq_max_khz": "2100000",
    "intel_pstate_no_turbo": "1",
    "cpufreq_boost": None,
    "smt_control": "off",
}


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (ARM_ENV, "fixed 2.71 GHz (governor performance, minimum = maximum), boost off, SMT none"),
        (X86_ENV, "max 2.10 GHz, governor performance, turbo off, SMT off"),
        (X86_ENV | {"intel_pstate_no_turbo": "0", "smt_control": "on"}, None),
        ({}, MISSING),
    ],
)
def test_clock_line(env, line):
    if line is None:
        assert format_clock(env) == "max 2.10 GHz, governor performance, turbo on, SMT on"
    else:
        assert format_clock(env) == line


def test_utc_to_the_second():
    value = datetime(2026, 9, 28, 15, 5, 46, 790099, tzinfo=UTC)
    assert format_utc(value) == "2026-09-28T15:05:46"
    assert format_utc(value.astimezone(timezone(timedelta(hours=8)))) == "2026-09-28T15:05:46"
    assert format_utc(None) == MISSING


def test_hash_figures():
    assert format_message_length(64) == "64 B"
    assert format_cycles_per_byte(100_000, 64) == "1.56e+03"
    assert format_cycles_per_byte(1234.5, 1024) == "1.21"
    assert format_cycles_per_byte(None, 64) == MISSING
    assert format_cycles_per_byte(100, 0) == MISSING
