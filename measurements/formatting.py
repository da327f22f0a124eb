"""The one formatter for every figure NGCC Perf shows (web pages, Markdown export, charts).

The rules reproduce the published pages (see ``shared/reference/FORMAT.md``); where the pages
and FORMAT.md disagree, the pages win (cycles below 10 000 are written as integers).
Every function takes ``None`` for a missing figure and returns `MISSING`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime

MISSING = "–"

_TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def _is_missing(value: float | int | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def three_significant(value: float) -> str:
    """Three significant digits without exponent, for 1 <= value < 1000 (`76.7`, `121`, `2.32`)."""
    # Decide on the rounded value, so that 9.996 becomes "10.0", not "10.00".
    if round(value) >= 100:
        return f"{value:.0f}"
    if round(value, 1) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def format_cycles(value: float | int | None) -> str:
    """`9623`, `160.5 k`, `1.32 M`, `627.34 M`, `4.82 G`."""
    if _is_missing(value):
        return MISSING
    v = float(value)
    if round(v) < 10_000:
        return f"{round(v)}"
    if round(v / 1e3, 1) < 1_000:
        return f"{v / 1e3:.1f} k"
    if round(v / 1e6, 2) < 1_000:
        return f"{v / 1e6:.2f} M"
    return f"{v / 1e9:.2f} G"


def format_seconds(value: float | None) -> str:
    """Three significant digits in the `%g` style (trailing zeros dropped), in the largest unit
    keeping the value >= 1: `76.7 µs`, `99.9 µs`, `50 µs`, `1.2 ms`, `2.32 s` (FORMAT.md)."""
    if _is_missing(value):
        return MISSING
    v = float(value)
    if v <= 0:
        return "0 s"
    for index, (unit, scale) in enumerate(_TIME_UNITS):
        scaled = v / scale
        if scaled >= 1 or unit == "ns":
            if scaled >= 999.5 and index == 0:  # a thousand seconds and more: whole seconds
                return f"{scaled:.0f} s"
            text = f"{scaled:.3g}"
            if float(text) >= 1000:  # 999.7 ms rounds up into the next unit
                return f"{float(text) / 1000:.3g} {_TIME_UNITS[index - 1][0]}"
            return f"{text} {unit}"
    raise AssertionError("unreachable")


def format_general(value: float | None) -> str:
    """Three significant digits in the `%g` style: `1.3e+04`, `1e+04`, `727`, `0.0549`."""
    if _is_missing(value):
        return MISSING
    return f"{float(value):.3g}"


format_ops_per_second = format_general


def format_n(measurements: int | None, trials: int | None, iterations: int | None) -> str:
    """`16845 (5 × 3369)`."""
    if _is_missing(measurements):
        return MISSING
    if trials and iterations:
        return f"{measurements} ({trials} × {iterations})"
    return f"{measurements}"


def format_kib(value: int | None) -> str:
    """Bytes as whole KiB: `1416 KiB`."""
    if _is_missing(value):
        return MISSING
    return f"{int(value) // 1024} KiB"


def format_int(value: int | None) -> str:
    if _is_missing(value):
        return MISSING
    return f"{int(value)}"


def format_size(value: int | None, basis: str = "") -> str:
    """A size in bytes; `≈` marks a nominal-variable size from the curated catalog."""
    if _is_missing(value):
        return MISSING
    return f"≈{int(value)}" if basis == "nominal-variable" else f"{int(value)}"


def format_share(fraction: float | None) -> str:
    """A share of time: `64%` from 10 % on, else one decimal (`6.9%`, `0.0%`)."""
    if _is_missing(fraction):
        return MISSING
    percent = float(fraction) * 100
    if round(percent, 1) >= 10:
        return f"{percent:.0f}%"
    return f"{percent:.1f}%"


def format_calls_per_operation(per_operation: Mapping[str, float] | None) -> str:
    """`drng 2, pseudoXOF 9.05` — names in byte order, `%g` counts with 3 significant digits."""
    if per_operation is None:
        return MISSING
    parts = [f"{fn} {value:.3g}" for fn, value in sorted(per_operation.items()) if value]
    return ", ".join(parts) if parts else MISSING


def format_ratio(value: float | None) -> str:
    """Relative speed against the ICCS pseudoXOF: `4.97×`."""
    if _is_missing(value):
        return MISSING
    return f"{float(value):.2f}×"


def format_cycles_with_share(
    cycles: float | None, share: float | None, measurements: int | None = None
) -> str:
    """Summary cell: `158.4 k (94%)`, `41.20 G (0.0%, n=20)` (n shown below 100 calls)."""
    if _is_missing(cycles):
        return MISSING
    notes = [format_share(share)] if not _is_missing(share) else []
    if measurements is not None and measurements < 100:
        notes.append(f"n={measurements}")
    return f"{format_cycles(cycles)} ({', '.join(notes)})" if notes else format_cycles(cycles)


def format_cycles_with_ratio(
    cycles: float | None, ratio: float | None, measurements: int | None = None
) -> str:
    """Hash summary cell: `14.0 k (4.97×)`; the ratio is against the ICCS pseudoXOF."""
    if _is_missing(cycles):
        return MISSING
    notes = [format_ratio(ratio)] if not _is_missing(ratio) else []
    if measurements is not None and measurements < 100:
        notes.append(f"n={measurements}")
    return f"{format_cycles(cycles)} ({', '.join(notes)})" if notes else format_cycles(cycles)


def format_cycles_per_byte_summary(cycles: float | None, input_bytes: int | None) -> str:
    """Cycles per byte with one decimal, as in the summary's ICCS table: `19.8`, `100.3`."""
    if _is_missing(cycles) or not input_bytes:
        return MISSING
    return f"{float(cycles) / int(input_bytes):.1f}"


def format_frequency(hz: float | None) -> str:
    """A frequency with three significant digits: `19.2 MHz`, `2.71 GHz`, `1 kHz`."""
    if _is_missing(hz):
        return MISSING
    v = float(hz)
    for unit, scale in (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.3g} Hz"


def format_counter(counter: Mapping[str, object] | None) -> str:
    """`counter tsc, 2.59 GHz measured, read overhead 38 ticks`: what timed the trials."""
    if not counter or not counter.get("name"):
        return f"counter {MISSING}"
    text = f"counter {counter['name']}"
    hz = counter.get("hz")
    if not _is_missing(hz):
        # TSC and perf rates are measured by the driver; the others are given, not measured.
        how = {"cntvct_el0": "architectural", "monotonic_raw": "nanoseconds"}
        rate = format_frequency(float(hz))  # type: ignore[arg-type]
        text += f", {rate} {how.get(str(counter['name']), 'measured')}"
    overhead = counter.get("overhead_cycles")
    if not _is_missing(overhead):
        text += f", read overhead {float(overhead):.3g} ticks"  # type: ignore[arg-type]
    return text


def format_mib(kib: int | None) -> str:
    if _is_missing(kib):
        return MISSING
    return f"{int(kib) // 1024} MiB"


def format_ghz(khz: float | int | None) -> str:
    if _is_missing(khz):
        return MISSING
    return f"{float(khz) / 1e6:.2f} GHz"


def format_utc(value: datetime | None) -> str:
    """A UTC time to the second, as on the pages: `2026-09-28T15:05:46`."""
    if value is None:
        return MISSING
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S")


def format_message_length(input_bytes: int | None) -> str:
    """A hash input length: `64 B`."""
    if _is_missing(input_bytes):
        return MISSING
    return f"{int(input_bytes)} B"


def format_cycles_per_byte(cycles: float | None, input_bytes: int | None) -> str:
    """Mean cycles divided by the message length, `%g` style with 3 significant digits."""
    if _is_missing(cycles) or not input_bytes:
        return MISSING
    return format_general(float(cycles) / int(input_bytes))


def _on_off(value: object) -> str | None:
    text = str(value).strip().lower() if value is not None else ""
    if text in {"0", "off", "false", "disabled"}:
        return "off"
    if text in {"1", "on", "true", "enabled"}:
        return "on"
    return None


def format_clock(environment: Mapping[str, object] | None) -> str:
    """The clock line of a page from the cpufreq fields of a record's environment.

    `fixed 2.71 GHz (governor performance, minimum = maximum), boost off, SMT none` where the
    minimum equals the maximum frequency, else `max 2.10 GHz, governor performance, turbo off,
    SMT off`. Turbo comes from `intel_pstate_no_turbo` (1 = off), boost from `cpufreq_boost`.
    """
    env = environment or {}

    def khz(name: str) -> float | None:
        try:
            return float(env[name])  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError):
            return None

    low, high = khz("cpufreq_min_khz"), khz("cpufreq_max_khz")
    governor = env.get("cpufreq_governor")
    parts: list[str] = []
    if high is not None and low is not None and low == high:
        detail = f"governor {governor}, minimum = maximum" if governor else "minimum = maximum"
        parts.append(f"fixed {format_ghz(high)} ({detail})")
    else:
        if high is not None:
            parts.append(f"max {format_ghz(high)}")
        if governor:
            parts.append(f"governor {governor}")
    no_turbo = _on_off(env.get("intel_pstate_no_turbo"))
    boost = _on_off(env.get("cpufreq_boost"))
    if no_turbo is not None:
        parts.append("turbo off" if no_turbo == "on" else "turbo on")
    elif boost is not None:
        parts.append(f"boost {boost}")
    smt = str(env.get("smt_control") or "").strip().lower()
    if smt:
        smt_text = {"notsupported": "none", "notimplemented": "none", "forceoff": "off"}.get(
            smt, smt
        )
        parts.append(f"SMT {smt_text}")
    return ", ".join(parts) if parts else MISSING


def _percent_2sig(fraction: float) -> str:
    percent = float(fraction) * 100
    return f"{percent:.0f}" if round(percent) >= 10 else f"{percent:.2g}"


def format_precision(reached: float | None, target: float | None, missed_reason: str = "") -> str:
    """`±0.82 %, target 1 % met` or `±14 %, target 1 % not reached: budget` (CI half-width
    relative to the median, two significant digits; without a target just `±0.82 %`)."""
    if _is_missing(reached):
        if _is_missing(target):
            return MISSING
        return f"target {_percent_2sig(target)} % not reached: {missed_reason or 'no samples'}"
    text = f"±{_percent_2sig(reached)} %"
    if _is_missing(target):
        return text
    if missed_reason:
        return f"{text}, target {_percent_2sig(target)} % not reached: {missed_reason}"
    return f"{text}, target {_percent_2sig(target)} % met"


def format_input_spread(pool: Mapping[str, object] | None) -> str:
    """`±19 % across 16 inputs (noise ±1.1 %): depends on the input`, `±9 % across 16 inputs
    (noise ±12 %): within the noise` or `±0.9 % across 16 inputs` (no noise recorded): the
    interquartile half-range of the per-input floors, relative to their median."""
    if not pool or _is_missing(pool.get("spread_relative")):
        if pool and pool.get("error"):
            return f"not measured: {pool['error']}"
        return MISSING
    spread = f"±{_percent_2sig(float(pool['spread_relative']) / 2)} %"
    text = f"{spread} across {pool.get('pool_size')} inputs"
    noise = float(pool.get("noise_relative") or 0.0) / 2
    if pool.get("input_dependent"):
        return f"{text} (noise ±{_percent_2sig(noise)} %): depends on the input"
    if noise:
        return f"{text} (noise ±{_percent_2sig(noise)} %): within the noise"
    return text


def format_campaign_spread(spread: Mapping[str, object]) -> str:
    """`±14 % (learnt 12 % over 5 transitions, prior 2 %, floor 9.1 %)`: the allowance a
    campaign's intervals add for the box's campaign-to-campaign spread, and what it rests on."""
    allowance = spread.get("allowance")
    if _is_missing(allowance):
        return MISSING
    parts = []
    observed = spread.get("observed")
    transitions = int(spread.get("transitions") or 0)
    if not _is_missing(observed):
        word = "transition" if transitions == 1 else "transitions"
        parts.append(f"learnt {_percent_2sig(float(observed))} % over {transitions} {word}")
    else:
        parts.append("no history yet")
    if not _is_missing(spread.get("prior")):
        parts.append(f"prior {_percent_2sig(float(spread['prior']))} %")
    if float(spread.get("floor") or 0.0) > 0:
        parts.append(f"floor {_percent_2sig(float(spread['floor']))} %")
    return f"±{_percent_2sig(float(allowance))} % ({', '.join(parts)})"


def format_cycles_interval(median: float | None, low: float | None, high: float | None) -> str:
    """`123.7 k (123.1 k–124.2 k)`: a median with its confidence interval."""
    if _is_missing(median):
        return MISSING
    if _is_missing(low) or _is_missing(high):
        return format_cycles(median)
    return f"{format_cycles(median)} ({format_cycles(low)}–{format_cycles(high)})"


def format_size_bytes(value: int | None) -> str:
    """A memory size in bytes, in KiB from 10 KiB on: `3412 B`, `52 KiB`."""
    if _is_missing(value):
        return MISSING
    return f"{int(value)} B" if int(value) < 10 * 1024 else format_kib(value)
