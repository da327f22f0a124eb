"""The process-level interval: wide enough for the next campaign, exact where it is arithmetic."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from measurements.uncertainty import (
    Interval,
    VarianceComponents,
    batches_per_process,
    differ_beyond_uncertainty,
    pooled_interval,
    process_interval,
    t_quantile_975,
    variance_components,
)


def campaign(rng: random.Random, *, processes: int, batches: int, between: float, within: float):
    """Synthetic samples: each process has its own offset, each batch its own noise."""
    groups = []
    for _ in range(processes):
        offset = rng.gauss(0.0, between)
        groups.append([10_000.0 + offset + rng.gauss(0.0, within) for _ in range(batches)])
    return groups


def coverage(interval_of, *, campaigns: int = 200, seed: int = 7) -> float:
    """How often campaign i's next-campaign bounds hold campaign i+1's estimate."""
    rng = random.Random(seed)
    runs = [
        campaign(rng, processes=5, batches=32, between=200.0, within=50.0) for _ in range(campaigns)
    ]
    intervals = [interval_of(g) for g in runs]
    hits = sum(intervals[i].holds_next(intervals[i + 1].estimate) for i in range(campaigns - 1))
    return hits / (campaigns - 1)


def test_process_level_interval_covers_the_next_campaign_where_pooled_batches_do_not():
    process_level = coverage(process_interval)
    pooled = coverage(lambda g: pooled_interval([v for p in g for v in p]))
    assert process_level >= 0.9
    assert pooled < 0.5


def test_figure_is_the_mean_of_process_medians():
    groups = [[10.0, 11.0, 12.0], [20.0, 21.0, 22.0], [30.0, 31.0]]
    a = process_interval(groups)
    assert a.estimate == pytest.approx((11.0 + 21.0 + 30.5) / 3)
    assert a.processes == 3 and a.batches == 8
    # t(2) · stdev(11, 21, 30.5) / √3
    half = 4.303 * statistics.stdev([11.0, 21.0, 30.5]) / math.sqrt(3)
    assert (a.low, a.high) == pytest.approx((a.estimate - half, a.estimate + half))


def test_student_t_floor_keeps_two_processes_honest():
    # Two processes that disagree: the t interval on 2 medians (12.706 · s/√2) dominates.
    groups = [[100.0] * 20, [110.0] * 20]
    interval = process_interval(groups)
    half = 12.706 * math.sqrt(50.0) / math.sqrt(2)
    assert interval.estimate == 105.0
    assert interval.low == pytest.approx(105.0 - half)
    assert interval.high == pytest.approx(105.0 + half)


def test_one_process_says_so():
    interval = process_interval([[1.0, 2.0, 3.0, 4.0, 5.0]])
    assert interval.processes == 1
    assert interval.method == "batches of one process only"
    assert 1.0 <= interval.low <= 3.0 <= interval.high <= 5.0


def test_no_samples_is_an_error():
    with pytest.raises(ValueError, match="no samples"):
        process_interval([[], []])


def test_variance_components_of_balanced_groups_are_the_anova_estimates():
    groups = [[1.0, 3.0], [5.0, 7.0]]  # group means 2 and 6, within variance 2
    parts = variance_components(groups)
    assert parts.within == pytest.approx(2.0)
    # between mean square = 2·((2-4)² + (6-4)²)/1 = 16; (16 - 2) / 2 = 7
    assert parts.between == pytest.approx(7.0)
    assert parts.processes == 2 and parts.mean_batches == 2.0


def test_batches_per_process_follows_the_cost_rule():
    parts = VarianceComponents(between=4.0, within=400.0, processes=5, mean_batches=32)
    # r = √(c₂ σ²_w / (c₁ σ²_b)) = √(0.05 · 400 / (0.0001 · 4)) = √50000 ≈ 223.6 → 224
    assert batches_per_process(parts, process_cost_s=0.05, batch_cost_s=0.0001) == 224
    assert batches_per_process(parts, process_cost_s=0.0, batch_cost_s=0.001) == 16
    flat = VarianceComponents(between=0.0, within=1.0, processes=5, mean_batches=32)
    assert batches_per_process(flat, process_cost_s=0.05, batch_cost_s=0.001) == 4096


def test_difference_beyond_combined_uncertainty():
    a = Interval(100.0, 97.0, 103.0, 5, 100, "x")
    b = Interval(104.0, 100.0, 108.0, 5, 100, "x")  # |Δ| = 4 < √(3² + 4²) = 5
    c = Interval(106.0, 102.0, 110.0, 5, 100, "x")  # |Δ| = 6 > 5
    assert not differ_beyond_uncertainty(a, b)
    assert differ_beyond_uncertainty(a, c)


def test_t_quantiles():
    assert t_quantile_975(1) == 12.706
    assert t_quantile_975(4) == 2.776
    assert t_quantile_975(1000) == pytest.approx(1.96, abs=1e-3)
    assert t_quantile_975(0) == math.inf
