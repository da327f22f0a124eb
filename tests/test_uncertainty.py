"""The process-level interval: wide enough for the next campaign, exact where it is arithmetic."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from measurements.uncertainty import (
    CampaignPair,
    Interval,
    VarianceComponents,
    batches_per_process,
    campaign_spread,
    differ_beyond_uncertainty,
    next_campaign_half_relative,
    pooled_interval,
    process_interval,
    process_spread_floor,
    process_spread_relative,
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


# --- The campaign-level term: what no single campaign can see -------------------------------------


def shifted_campaigns(*, count: int, shift: float, seed: int = 11) -> list[Interval]:
    """Campaigns whose processes agree closely while the whole box moves by `shift` (relative
    standard deviation) from one campaign to the next: the situation seen on real boxes."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        level = 10_000.0 * (1.0 + rng.gauss(0.0, shift))
        groups = [
            [level + rng.gauss(0.0, 5.0) + rng.gauss(0.0, 2.0) for _ in range(32)] for _ in range(5)
        ]
        out.append(process_interval(groups))
    return out


def learnt_allowances(intervals: list[Interval], **prior) -> list[float]:
    """The allowance each campaign's pages use: every transition up to and including it."""
    pairs = [
        CampaignPair((str(i), str(i + 1)), intervals[i], intervals[i + 1])
        for i in range(len(intervals) - 1)
    ]
    return [campaign_spread(pairs[:k], **prior).allowance for k in range(len(intervals))]


def test_campaign_shift_defeats_the_process_interval_and_the_learnt_spread_restores_coverage():
    runs = shifted_campaigns(count=200, shift=0.02)
    allowances = learnt_allowances(runs, prior=0.02, prior_weight=1.0)
    pairs = range(len(runs) - 1)
    process_only = sum(runs[i].holds_next(runs[i + 1].estimate) for i in pairs) / len(pairs)
    with_spread = sum(runs[i].holds_next(runs[i + 1].estimate, allowances[i]) for i in pairs) / len(
        pairs
    )
    assert process_only < 0.3  # processes agree within 0.1 %, the box moves by 2 %
    assert with_spread >= 0.9
    # ...and the learnt spread is the box's own, not the prior: 2 % within a third.
    final = campaign_spread(
        [CampaignPair((str(i), str(i + 1)), runs[i], runs[i + 1]) for i in pairs],
        prior=0.5,
        prior_weight=1.0,
    )
    assert final.transitions == 199 and final.pairs == 199
    assert final.observed == pytest.approx(0.02, rel=1 / 3)


def test_a_box_without_history_gets_the_prior_widened_for_knowing_nothing():
    spread = campaign_spread([], prior=0.02, prior_weight=1.0)
    assert spread.relative == 0.02 and spread.observed is None
    assert spread.transitions == spread.pairs == 0
    # Student's t with one degree of freedom (the prior's weight), over 1.96.
    assert spread.allowance == pytest.approx(0.02 * 12.706 / 1.959963984540054)


def test_the_observed_spread_is_blended_with_the_prior_by_transitions():
    a = Interval(100.0, 100.0, 100.0, 5, 100, "x")  # no within-campaign error: d² is all shift
    b = Interval(110.0, 110.0, 110.0, 5, 100, "x")
    pairs = [CampaignPair(("c1", "c2"), a, b), CampaignPair(("c1", "c2"), b, a)]
    spread = campaign_spread(pairs, prior=0.0, prior_weight=1.0)
    d2 = math.log(1.1) ** 2
    assert spread.observed == pytest.approx(math.sqrt(d2 / 2))
    assert spread.transitions == 1 and spread.pairs == 2  # one campaign transition, two figures
    assert spread.relative == pytest.approx(math.sqrt(d2 / 2 / 2))  # half prior (0), half observed
    assert spread.allowance == pytest.approx(spread.relative * 4.303 / 1.959963984540054)


def test_within_campaign_error_is_not_counted_as_campaign_spread():
    # Two campaigns 1 % apart whose own intervals (±2 %) explain the difference: no shift left.
    a = Interval(100.0, 98.0, 102.0, 5, 100, "x")
    b = Interval(101.0, 99.0, 103.0, 5, 100, "x")
    spread = campaign_spread([CampaignPair(("c1", "c2"), a, b)], prior=0.0, prior_weight=1.0)
    assert spread.observed == 0.0 and spread.relative == 0.0 and spread.allowance == 0.0


def test_next_campaign_bounds_add_the_campaign_term_in_quadrature():
    interval = Interval(1000.0, 990.0, 1010.0, 5, 100, "x")
    assert interval.next_campaign_bounds() == pytest.approx(
        (1000 - 10 * math.sqrt(2), 1000 + 10 * math.sqrt(2))
    )
    half = math.sqrt(2) * math.hypot(10.0, 1.959963984540054 * 0.01 * 1000)
    assert interval.next_campaign_bounds(0.01) == pytest.approx((1000 - half, 1000 + half))
    assert next_campaign_half_relative(0.01, 0.01) == pytest.approx(half / 1000)
    assert next_campaign_half_relative(math.inf, 0.01) == math.inf
    assert interval.holds_next(1000 + half - 0.01, 0.01)
    assert not interval.holds_next(1000 + half + 0.01, 0.01)


def test_difference_beyond_uncertainty_allows_for_the_box_spread():
    a = Interval(100.0, 99.0, 101.0, 5, 100, "x")
    b = Interval(105.0, 104.0, 106.0, 5, 100, "x")  # |Δ| = 5 > √2 ≈ 1.41
    assert differ_beyond_uncertainty(a, b)
    # A 2 % box spread: √(1 + 1 + 2·(1.96·0.02·102.5)²) ≈ 5.86 > 5, the same move is not a change.
    assert not differ_beyond_uncertainty(a, b, 0.02)


def test_a_noisy_figure_does_not_cancel_the_shift_a_tight_one_reveals():
    tight_a = Interval(100.0, 100.0, 100.0, 5, 100, "x")
    tight_b = Interval(104.0, 104.0, 104.0, 5, 100, "x")  # moved 4 % with no error of its own
    noisy_a = Interval(100.0, 60.0, 140.0, 5, 100, "x")  # ±40 %: explains any move
    noisy_b = Interval(100.0, 60.0, 140.0, 5, 100, "x")
    pairs = [
        CampaignPair(("c1", "c2"), tight_a, tight_b),
        CampaignPair(("c1", "c2"), noisy_a, noisy_b),
    ]
    spread = campaign_spread(pairs, prior=0.0, prior_weight=1.0)
    # the tight figure's shift, averaged with the noisy figure's 0 (not with a negative term)
    assert spread.observed == pytest.approx(math.sqrt(math.log(1.04) ** 2 / 2 / 2))


def test_the_campaigns_own_process_spread_is_a_floor_for_the_allowance():
    # ±10 % over 5 processes: one process's relative sd is 0.1 · √5 / t₄ (2.776).
    five = Interval(100.0, 90.0, 110.0, 5, 160, "x")
    assert process_spread_relative(five) == pytest.approx(0.1 * math.sqrt(5) / 2.776)
    assert process_spread_relative(Interval(100.0, 90.0, 110.0, 1, 32, "x")) is None
    floor = process_spread_floor([five, five, Interval(100.0, 99.0, 101.0, 5, 160, "x")])
    assert floor == pytest.approx(0.1 * math.sqrt(5) / 2.776)  # the median figure
    assert process_spread_floor([]) == 0.0
    spread = campaign_spread([], prior=0.02, prior_weight=1.0, floor=floor)
    assert spread.allowance == pytest.approx(max(floor, 0.02 * 12.706 / 1.959963984540054))
    wide = campaign_spread([], prior=0.02, prior_weight=1.0, floor=0.5)
    assert wide.allowance == 0.5 and wide.relative == 0.02 and wide.as_dict()["floor"] == 0.5
