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
* `Interval.next_campaign_bounds`: where the next campaign's figure is expected: √2 wider, plus
  the box's campaign-to-campaign shift;
* `campaign_spread`: that shift (relative standard deviation), learnt from the history of the
  box's figures over consecutive campaigns and blended with a prior for a new box;
* `variance_components` and `batches_per_process`: the between- and within-process variance and
  the number of batches per process that minimises the interval for a given cost, which the
  adaptive planner uses to choose between more processes and more batches.

No Django here: the harness layer and the pages both use it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
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

#: The campaign-to-campaign relative spread assumed for a box with no history yet, and how many
#: campaign transitions that assumption is worth (settings NGCC_CAMPAIGN_SPREAD_PRIOR and
#: NGCC_CAMPAIGN_SPREAD_PRIOR_WEIGHT override them; docs/timing.md explains the choice).
DEFAULT_CAMPAIGN_SPREAD_PRIOR = 0.02
DEFAULT_CAMPAIGN_SPREAD_PRIOR_WEIGHT = 1.0


def next_campaign_half(half: float, estimate: float, campaign_spread: float = 0.0) -> float:
    """The next campaign's 95 % half-width (absolute) from this campaign's interval half-width.

    A campaign's figure is μ + C + E: C the campaign-level shift of the box (relative standard
    deviation `campaign_spread`, `campaign_spread` below), E this campaign's own error (95 %
    half-width `half`). Two campaigns' figures differ by C' − C + E' − E, whose 95 % half-width is
    √2 · √(half² + (1.96 · campaign_spread · estimate)²). With no campaign-level term it is the
    confidence interval widened by √2 (both campaigns' estimates carry the same error).
    """
    return math.sqrt(2) * math.hypot(half, _Z975 * campaign_spread * abs(estimate))


def next_campaign_bounds(
    estimate: float, low: float, high: float, campaign_spread: float = 0.0
) -> tuple[float, float]:
    """Where a new campaign's figure is expected (95 %), around `estimate` with the 95 % interval
    (low, high) and the box's campaign-level relative spread (`next_campaign_half`)."""
    return (
        estimate - next_campaign_half(estimate - low, estimate, campaign_spread),
        estimate + next_campaign_half(high - estimate, estimate, campaign_spread),
    )


def next_campaign_half_relative(half_relative: float, campaign_spread: float = 0.0) -> float:
    """`next_campaign_half` relative to the estimate (inf stays inf)."""
    if not math.isfinite(half_relative):
        return math.inf
    return next_campaign_half(half_relative, 1.0, campaign_spread)


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

    def next_campaign_bounds(self, campaign_spread: float = 0.0) -> tuple[float, float]:
        """Where a new campaign of the same size is expected to land (95 %).

        Both campaigns' estimates carry the same error, so their difference has √2 times the
        spread of one; on a box whose campaigns shift by `campaign_spread` (relative standard
        deviation) that term is added (`next_campaign_half`). This is the interval the pages
        show as "next campaign within".
        """
        return next_campaign_bounds(self.estimate, self.low, self.high, campaign_spread)

    @property
    def next_campaign_half_width_relative(self) -> float:
        """The within-campaign part only: what the adaptive planner can make smaller."""
        return next_campaign_half_relative(self.half_width_relative)

    def holds_next(self, value: float, campaign_spread: float = 0.0) -> bool:
        low, high = self.next_campaign_bounds(campaign_spread)
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


def differ_beyond_uncertainty(a: Interval, b: Interval, campaign_spread: float = 0.0) -> bool:
    """True when two campaigns' figures differ by more than their combined uncertainty.

    The rule shown on the pages: the difference of the estimates exceeds
    √(h_a² + h_b² + 2·(1.96·s·m)²), the two intervals' half-widths combined as independent errors
    plus the campaign-level shift of the box (relative standard deviation s, m the mean of the
    two estimates), which moves each campaign by itself.
    """
    half_a = (a.high - a.low) / 2
    half_b = (b.high - b.low) / 2
    shift = _Z975 * campaign_spread * (abs(a.estimate) + abs(b.estimate)) / 2
    return abs(a.estimate - b.estimate) > math.sqrt(half_a**2 + half_b**2 + 2 * shift**2)


@dataclass(frozen=True)
class CampaignSpread:
    """The box's campaign-to-campaign relative standard deviation, and what it rests on.

    `relative` blends the prior (`prior`, worth `prior_weight` campaign transitions) with the
    estimate from `transitions` observed consecutive-campaign transitions (`pairs` figures).
    `allowance` is what intervals add: `relative` widened by Student's t for the few campaigns it
    rests on (t with transitions + prior weight degrees of freedom, over 1.96), so a new box gets
    a wide allowance that narrows as its history grows; never below the campaign's own
    process-to-process spread (`process_spread_floor`).
    """

    relative: float
    allowance: float
    observed: float | None
    transitions: int
    pairs: int
    prior: float
    prior_weight: float
    floor: float = 0.0

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "relative": self.relative,
            "allowance": self.allowance,
            "observed": self.observed,
            "transitions": self.transitions,
            "pairs": self.pairs,
            "prior": self.prior,
            "prior_weight": self.prior_weight,
            "floor": self.floor,
        }


@dataclass(frozen=True)
class CampaignPair:
    """One figure's two consecutive campaigns (`transition` names the campaign pair)."""

    transition: tuple[str, str]
    before: Interval
    after: Interval


def process_spread_relative(interval: Interval) -> float | None:
    """The relative standard deviation of one process's figure implied by a process-level
    interval (half-width · √n / t₀.₉₇₅,ₙ₋₁); None below two processes."""
    if interval.processes < 2 or not math.isfinite(interval.half_width_relative):
        return None
    t = t_quantile_975(interval.processes - 1)
    return interval.half_width_relative * math.sqrt(interval.processes) / t


def process_spread_floor(campaign: Iterable[Interval]) -> float:
    """The least campaign-level spread a campaign's own figures imply: the median over its
    figures of one process's relative spread (`process_spread_relative`; 0 without any).

    A measurement's processes run one after another, so on a box whose speed changes over
    seconds they share its state of the moment and the whole figure moves as one process does:
    the next campaign is then expected at least one process's spread away. On a quiet box that
    spread is tiny and this floor does nothing."""
    spreads = [s for s in map(process_spread_relative, campaign) if s is not None]
    return statistics.median(spreads) if spreads else 0.0


def campaign_spread(
    pairs: Iterable[CampaignPair], *, prior: float, prior_weight: float, floor: float = 0.0
) -> CampaignSpread:
    """The campaign-level relative spread of a box from the history of its figures.

    Every figure measured in two consecutive campaigns gives d = ln(after / before), whose
    expected square is 2·s² plus both campaigns' own variances (standard error = 95 % half-width
    / 1.96). Each figure's (d² − own variances) / 2, floored at 0, averaged over the figures is
    the observed s²: a figure whose own interval explains its move shows no shift, and cannot
    cancel the shift a tighter figure reveals (noisy and tight figures share one box).
    All figures of one campaign transition move together when the box does, so the observed value
    counts as one observation per *transition*, blended with the prior worth `prior_weight`
    transitions: a new box starts at the prior and learns its own spread campaign by campaign.
    The allowance is never below `floor` (`process_spread_floor` of the campaign judged).
    """
    terms: list[float] = []
    transitions: set[tuple[str, str]] = set()
    for pair in pairs:
        a, b = pair.before, pair.after
        if a.estimate <= 0 or b.estimate <= 0:
            continue
        own = (a.half_width_relative / _Z975) ** 2 + (b.half_width_relative / _Z975) ** 2
        if not math.isfinite(own):
            continue
        d = math.log(b.estimate / a.estimate)
        # A pair whose own intervals explain its difference shows no shift (0), never a negative
        # one: noisy figures must not cancel the shift that tight figures reveal.
        terms.append(max(0.0, (d * d - own) / 2))
        transitions.add(pair.transition)
    observed = statistics.fmean(terms) if terms else None
    n = len(transitions)
    variance = (prior_weight * prior**2 + n * (observed or 0.0)) / ((prior_weight + n) or 1.0)
    relative = math.sqrt(variance)
    return CampaignSpread(
        relative=relative,
        allowance=max(floor, relative * t_quantile_975(max(1, round(prior_weight + n))) / _Z975),
        observed=None if observed is None else math.sqrt(observed),
        transitions=n,
        pairs=len(terms),
        prior=prior,
        prior_weight=prior_weight,
        floor=floor,
    )
