"""The aggregate formulas of a timing record, in one place.

The harness publishes the guide's metric: the arithmetic mean over all timed calls, i.e.
Σ trial cycles / Σ trial measurements (not the mean of trial means), plus per-trial medians.
A record's aggregates are computed once, by `timing_aggregates` (timing) and `profile_shares`
(hash profiles), when the record is built (`measurements.records`); the store verifies them
against the trials with `AGGREGATE_TOLERANCE` instead of recomputing them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from measurements.uncertainty import (
    median_confidence_ranks,
    process_interval,
)

#: Relative tolerance within which a stated aggregate must agree with its trials.
AGGREGATE_TOLERANCE = 1e-9


class TrialLike(Protocol):
    measurements: int
    seconds: float
    cycles: int


class SampledTrialLike(TrialLike, Protocol):
    samples: Sequence[float] | None
    batch_calls: int | None


@dataclass(frozen=True)
class Aggregates:
    measurements: int
    mean_cycles: float
    mean_seconds: float
    operations_per_second: float | None
    median_trial_seconds: float
    median_trial_cycles: float
    min_trial_seconds: float
    max_trial_seconds: float

    def as_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def aggregates_from_trials(trials: Iterable[TrialLike]) -> Aggregates:
    """Recompute a record's aggregates from its trials."""
    rows = list(trials)
    if not rows:
        raise ValueError("no trials")
    total_n = sum(int(t.measurements) for t in rows)
    total_s = sum(float(t.seconds) for t in rows)
    total_c = sum(int(t.cycles) for t in rows)
    per_call_s = [float(t.seconds) / int(t.measurements) for t in rows]
    per_call_c = [int(t.cycles) / int(t.measurements) for t in rows]
    return Aggregates(
        measurements=total_n,
        mean_cycles=total_c / total_n,
        mean_seconds=total_s / total_n,
        operations_per_second=_finite_ratio(total_n, total_s),
        median_trial_seconds=statistics.median(per_call_s),
        median_trial_cycles=statistics.median(per_call_c),
        min_trial_seconds=min(per_call_s),
        max_trial_seconds=max(per_call_s),
    )


def _finite_ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None where it is undefined or overflows (a subnormal time)."""
    if denominator <= 0:
        return None
    ratio = numerator / denominator
    return ratio if math.isfinite(ratio) else None


def throughput_mb_per_second(input_bytes: int, operations_per_second: float | None) -> float | None:
    """MB (10^6 bytes) hashed per second; None for operations without an input length."""
    if not input_bytes or operations_per_second is None:
        return None
    return _finite_ratio(input_bytes * operations_per_second, 1e6)


def relative_difference(a: float, b: float) -> float:
    """|a - b| relative to the larger magnitude (0 when both are 0)."""
    scale = max(abs(a), abs(b))
    return 0.0 if scale == 0 else abs(a - b) / scale


@dataclass(frozen=True)
class SampleStats:
    """Order statistics of per-call cycle samples, with a distribution-free 95 % CI."""

    count: int
    median: float
    q1: float
    q3: float
    ci95_low: float
    ci95_high: float

    @property
    def ci95_half_width_relative(self) -> float:
        return (self.ci95_high - self.ci95_low) / 2 / self.median if self.median else math.inf


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (the 'inclusive' method of `statistics.quantiles`)."""
    if len(sorted_values) == 1:
        return float(sorted_values[0])
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] * (1 - frac) + sorted_values[hi] * frac


def sample_stats(values: Iterable[float]) -> SampleStats:
    data = sorted(float(v) for v in values)
    if not data:
        raise ValueError("no samples")
    lo, hi = median_confidence_ranks(len(data))
    return SampleStats(
        count=len(data),
        median=statistics.median(data),
        q1=_quantile(data, 0.25),
        q3=_quantile(data, 0.75),
        ci95_low=data[lo],
        ci95_high=data[hi],
    )


def per_call_samples(trials: Iterable[SampledTrialLike]) -> list[float]:
    """Counter units per call of every batch sample (a sample times ``batch_calls`` calls)."""
    return [float(s) / (t.batch_calls or 1) for t in trials for s in t.samples or ()]


def per_process_samples(trials: Iterable[SampledTrialLike]) -> list[list[float]]:
    """Per-call samples grouped by the process that produced them (``process_index``)."""
    groups: dict[int, list[float]] = {}
    for t in trials:
        calls = t.batch_calls or 1
        groups.setdefault(getattr(t, "process_index", 0), []).extend(
            float(s) / calls for s in t.samples or ()
        )
    return [g for _, g in sorted(groups.items()) if g]


def process_level_stats(trials: Sequence[SampledTrialLike]) -> SampleStats | None:
    """Quartiles of every per-call sample, and the figure with its process-level 95 % interval.

    The figure (``median``) is the mean over processes of each process's median per-call value,
    and its interval is `measurements.uncertainty.process_interval`: the spread between fresh
    processes, not just between batches of one process. None without samples (harness data).
    """
    samples = per_call_samples(trials)
    if not samples:
        return None
    pooled = sample_stats(samples)
    interval = process_interval(per_process_samples(trials))
    return replace(pooled, median=interval.estimate, ci95_low=interval.low, ci95_high=interval.high)


def timing_aggregates(
    trials: Sequence[SampledTrialLike],
) -> tuple[Aggregates | None, SampleStats | None]:
    """The aggregates of a timing record: over its trials, and over their per-call samples.

    The one function computing them; (None, None) for a record without trials, no sample
    statistics when the trials carry no samples (harness data).
    """
    if not trials:
        return None, None
    return aggregates_from_trials(trials), process_level_stats(trials)


# --- Hash profiles ----------------------------------------------------------------------------

#: The ICCS placeholder hash functions whose time makes up a profile's "hash share".
HASH_FUNCTIONS = ("pseudohash", "pseudoXOF", "sm3hash")


def _per_function(rows: Iterable[tuple[str, int]]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for fn, value in rows:
        totals[fn] = totals.get(fn, 0) + int(value)
    return totals


def time_shares(ticks: Iterable[tuple[str, int]], total_ticks: int) -> dict[str, float]:
    """Share of an operation's time in each function: Σ ticks of (fn, ticks) rows / total."""
    if not total_ticks:
        return {}
    return {fn: t / total_ticks for fn, t in _per_function(ticks).items()}


def hash_share(shares: dict[str, float]) -> float:
    """pseudohash + pseudoXOF + sm3hash."""
    return sum(shares.get(fn, 0.0) for fn in HASH_FUNCTIONS)


def calls_per_operation(
    calls: Iterable[tuple[str, int]], operations: int | None
) -> dict[str, float]:
    """Σ calls of each function (from (fn, calls) rows) per profiled operation; zeros dropped."""
    if not operations:
        return {}
    return {fn: n / operations for fn, n in _per_function(calls).items() if n}


@dataclass(frozen=True)
class ProfileShares:
    """Share of an operation's time per function, the hash share and the DRNG share."""

    share: dict[str, float]
    hash_share: float | None
    drng_share: float | None


def profile_shares(ticks: Iterable[tuple[str, int]], total_ticks: int) -> ProfileShares:
    """The aggregates of a hash profile from its (fn, ticks) rows; no shares without ticks."""
    share = time_shares(ticks, total_ticks)
    if not total_ticks:
        return ProfileShares(share=share, hash_share=None, drng_share=None)
    return ProfileShares(
        share=share, hash_share=hash_share(share), drng_share=share.get("drng", 0.0)
    )
