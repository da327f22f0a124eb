"""How far the next campaign may land: intervals that respect how timings are produced.

A measurement is a set of *processes* (trials: fresh pinned processes), each holding *batches*
(per-call cycle samples of one batch of calls). Two processes of the same code differ by more
than two batches of one process do (address-space layout, cache and branch-predictor state,
frequency history), so an interval computed from all batches pooled describes one campaign's
samples, not the figure a new campaign would produce.

This module estimates the uncertainty of the reported statistic (the median per-call value)
at the process level, the unit of repetition in Kalibera & Jones, *Rigorous Benchmarking in
Reasonable Time* (2013):

* `process_interval`: each process is summarised by its median per-call value; the figure is the
  mean of those medians with a Student-t interval over them (each process median carries its own
  batch noise, so their spread holds both levels), never narrower than the distribution-free
  interval of the pooled batches. A two-level bootstrap
  (processes, then batches) gives the same coverage on simulated campaigns but costs a thousand
  resamples per figure; the t interval is exact arithmetic, cheap enough for the planner to
  recompute after every process, and stays honest with two or three processes, where a bootstrap
  over processes is far too narrow;
* `Interval.next_campaign_bounds`: where the next campaign's figure is expected (√2 wider);
* `variance_components` and `batches_per_process`: the between- and within-process variance and
  the number of batches per process that minimises the interval for a given cost, which the
  adaptive planner uses to choose between more processes and more batches.

No Django here: the harness layer and the pages both use it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

#: Two-sided 97.5 % quantiles of Student's t for 1..30 degrees of freedom (95 % intervals).
_T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)
_Z975 = 1.959963984540054


def next_campaign_bounds(estimate: float, low: float, high: float) -> tuple[float, float]:
    """A 95 % interval (low, high) of `estimate` widened by √2 around it: where a new campaign
    of the same size is expected to land (both campaigns' estimates carry the same error)."""
    return (
        estimate - math.sqrt(2) * (estimate - low),
        estimate + math.sqrt(2) * (high - estimate),
    )


PROCESS_METHOD = (
    "mean of per-process medians, Student-t over processes (at least the pooled batches' interval)"
)
ONE_PROCESS_METHOD = "batches of one process only"


def t_quantile_975(degrees_of_freedom: int) -> float:
    """The 97.5 % quantile of Student's t (normal beyond 30 degrees of freedom)."""
    if degrees_of_freedom < 1:
        return math.inf
    if degrees_of_freedom <= len(_T975):
        return _T975[degrees_of_freedom - 1]
    return _Z975


@dataclass(frozen=True)
class Interval:
    """A 95 % interval of the median per-call value, with how it was obtained."""

    estimate: float
    low: float
    high: float
    processes: int
    batches: int
    method: str

    @property
    def half_width_relative(self) -> float:
        """Half the interval's width relative to the estimate (inf where undefined)."""
        if not self.estimate or not math.isfinite(self.high - self.low):
            return math.inf
        return (self.high - self.low) / 2 / abs(self.estimate)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def next_campaign_bounds(self) -> tuple[float, float]:
        """Where a new campaign of the same size is expected to land (95 %).

        Both campaigns' estimates carry the same error, so their difference has √2 times the
        spread of one: the confidence interval widened by √2 around the estimate. This is the
        interval the pages show as "next campaign within".
        """
        return next_campaign_bounds(self.estimate, self.low, self.high)

    @property
    def next_campaign_half_width_relative(self) -> float:
        return math.sqrt(2) * self.half_width_relative

    def holds_next(self, value: float) -> bool:
        low, high = self.next_campaign_bounds()
        return low <= value <= high


def process_interval(groups: Sequence[Sequence[float]]) -> Interval:
    """The 95 % interval of the per-call figure, at the process level.

    `groups` holds one sequence of batch samples per process. Each process is summarised by its
    median per-call value; the figure is the mean of those medians and the interval is Student's
    t over them, never narrower than the pooled batches' own interval. With one process only the
    batches are available: the figure is their median with its distribution-free interval, and
    the method says so.
    """
    groups = [list(map(float, g)) for g in groups if len(g)]
    if not groups:
        raise ValueError("no samples")
    pooled = pooled_interval([v for g in groups for v in g])
    if len(groups) == 1:
        return Interval(
            pooled.estimate, pooled.low, pooled.high, 1, pooled.batches, ONE_PROCESS_METHOD
        )
    medians = [statistics.median(g) for g in groups]
    centre = statistics.fmean(medians)
    t_half = t_quantile_975(len(medians) - 1) * statistics.stdev(medians) / math.sqrt(len(medians))
    half = max(t_half, (pooled.high - pooled.low) / 2)
    return Interval(
        centre, centre - half, centre + half, len(groups), pooled.batches, PROCESS_METHOD
    )


def median_confidence_ranks(n: int, z: float = _Z975) -> tuple[int, int]:
    """0-based ranks (lo, hi) of sorted samples bounding their median with ~95 % confidence.

    Normal approximation of the binomial(n, 1/2) order-statistic interval; exact enough from
    n = 16 on, which is the driver's minimum number of samples per trial.
    """
    half = z * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - half) - 1)
    hi = min(n - 1, math.ceil(n / 2 + half))
    return lo, hi


def pooled_interval(samples: Sequence[float]) -> Interval:
    """The within-campaign interval: every batch treated as independent (distribution-free
    order statistics of the pooled samples). It describes one campaign's samples only."""
    data = sorted(float(v) for v in samples)
    if not data:
        raise ValueError("no samples")
    lo, hi = median_confidence_ranks(len(data))
    return Interval(statistics.median(data), data[lo], data[hi], 0, len(data), "pooled batches")


@dataclass(frozen=True)
class VarianceComponents:
    """One-way random-effects estimates: variance between processes and within a process."""

    between: float
    within: float
    processes: int
    mean_batches: float


def variance_components(groups: Sequence[Sequence[float]]) -> VarianceComponents:
    """ANOVA estimates of the between-process and within-process variance of batch samples."""
    groups = [list(map(float, g)) for g in groups if len(g)]
    k = len(groups)
    if k == 0:
        raise ValueError("no samples")
    sizes = [len(g) for g in groups]
    total = sum(sizes)
    within_ss = sum(sum((v - statistics.fmean(g)) ** 2 for v in g) for g in groups)
    within = within_ss / (total - k) if total > k else 0.0
    if k < 2:
        return VarianceComponents(0.0, within, k, float(total))
    grand = statistics.fmean(v for g in groups for v in g)
    spread = sum(len(g) * (statistics.fmean(g) - grand) ** 2 for g in groups)
    between_ms = spread / (k - 1)
    n0 = (total - sum(n * n for n in sizes) / total) / (k - 1)
    between = max(0.0, (between_ms - within) / n0) if n0 > 0 else 0.0
    return VarianceComponents(between, within, k, total / k)


def batches_per_process(
    components: VarianceComponents,
    *,
    process_cost_s: float,
    batch_cost_s: float,
    minimum: int = 16,
    maximum: int = 4096,
) -> int:
    """Batches per process minimising the variance of the mean for a fixed time budget.

    With cost c₁ per batch and c₂ per process (start-up, warm-up), the variance of the grand
    mean for r batches per process and n processes is σ²_b/n + σ²_w/(r·n) at cost n·(c₂ + r·c₁);
    its minimum is at r = √(c₂·σ²_w / (c₁·σ²_b)) (Kalibera & Jones 2013, §5). Where processes
    do not differ (σ²_b = 0) more batches are always cheaper, up to `maximum`.
    """
    if batch_cost_s <= 0:
        return minimum
    if components.between <= 0:
        return maximum
    r = math.sqrt(process_cost_s * components.within / (batch_cost_s * components.between))
    return max(minimum, min(maximum, math.ceil(r)))


def differ_beyond_uncertainty(a: Interval, b: Interval) -> bool:
    """True when two figures differ by more than their combined uncertainty.

    The rule shown on the pages: the difference of the estimates exceeds the root sum of squares
    of the two half-widths (the intervals' half-widths combined as independent errors).
    """
    half_a = (a.high - a.low) / 2
    half_b = (b.high - b.low) / 2
    return abs(a.estimate - b.estimate) > math.hypot(half_a, half_b)
