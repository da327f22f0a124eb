"""History of a candidate on a system: one point per campaign, regression flags by the rule."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.http import Http404
from django.utils import timezone

from measurements.selectors.history import measurement_history_for
from tests.factories import CampaignFactory, InstanceFactory, MeasurementFactory, SystemFactory

pytestmark = pytest.mark.django_db


def _campaigns(system, count):
    start = timezone.now() - timedelta(days=count)
    return [
        CampaignFactory(
            system=system, key=f"hist-{i}", source="runner", started_utc=start + timedelta(days=i)
        )
        for i in range(count)
    ]


def _measure(campaign, instance, median, half, operation="dec"):
    return MeasurementFactory(
        campaign=campaign,
        instance=instance,
        operation=operation,
        mean_cycles=median,
        sample_median_cycles=median,
        sample_ci95_low_cycles=median - half,
        sample_ci95_high_cycles=median + half,
    )


def test_points_in_campaign_order_and_flags_by_the_combined_uncertainty(empty_db):
    system = SystemFactory(key="box_h")
    instance = InstanceFactory(label="INST-A")
    first, second, third = _campaigns(system, 3)
    # second - first = 4 < √(3² + 4²) = 5 (steady); third - second = 10 > √(4² + 4²) ≈ 5.66.
    _measure(first, instance, 100.0, 3.0)
    _measure(second, instance, 104.0, 4.0)
    _measure(third, instance, 114.0, 4.0)

    history = measurement_history_for(system_key="box_h", submission_key=instance.submission.key)

    assert history.campaigns == 3
    [series] = history.series
    assert (series.instance_label, series.operation, series.input_bytes) == ("INST-A", "dec", 0)
    assert [p.campaign_key for p in series.points] == ["hist-0", "hist-1", "hist-2"]
    assert [p.change for p in series.points] == ["", "", "slower"]
    assert history.changes == 1
    assert series.points[0].figure == "100 (97–103)"


def test_faster_is_flagged_and_figures_without_interval_never_are(empty_db):
    system = SystemFactory(key="box_h")
    instance = InstanceFactory(label="INST-B")
    first, second, third = _campaigns(system, 3)
    _measure(first, instance, 200.0, 2.0)
    _measure(second, instance, 150.0, 2.0)
    MeasurementFactory(campaign=third, instance=instance, operation="dec", mean_cycles=90.0)

    history = measurement_history_for(system_key="box_h", submission_key=instance.submission.key)

    points = history.series[0].points
    assert [p.change for p in points] == ["", "faster", ""]
    assert points[2].interval is None and points[2].cycles == 90.0


def test_other_systems_are_not_mixed_in(empty_db):
    instance = InstanceFactory(label="INST-C")
    [here] = _campaigns(SystemFactory(key="box_h"), 1)
    elsewhere = CampaignFactory(system=SystemFactory(key="box_other"), key="other-0")
    _measure(here, instance, 100.0, 1.0)
    _measure(elsewhere, instance, 500.0, 1.0)

    history = measurement_history_for(system_key="box_h", submission_key=instance.submission.key)

    assert [p.cycles for s in history.series for p in s.points] == [100.0]


def test_unknown_keys_are_404(empty_db):
    with pytest.raises(Http404):
        measurement_history_for(system_key="nope", submission_key="kem-00")


def test_query_count_does_not_grow_with_campaigns(empty_db, django_assert_max_num_queries):
    system = SystemFactory(key="box_h")
    instance = InstanceFactory(label="INST-D")
    for campaign in _campaigns(system, 8):
        for op in ("keygen", "enc", "dec"):
            _measure(campaign, instance, 100.0, 1.0, operation=op)
    with django_assert_max_num_queries(3):
        history = measurement_history_for(
            system_key="box_h", submission_key=instance.submission.key
        )
    assert [len(s.points) for s in history.series] == [8, 8, 8]


def test_a_move_within_the_box_spread_is_not_a_change(empty_db):
    system = SystemFactory(key="box_h")
    instance = InstanceFactory(label="INST-S")
    first, second = _campaigns(system, 2)
    # 5 % apart with ±1 intervals: a change on a box that never moves between campaigns...
    _measure(first, instance, 100.0, 1.0)
    later = _measure(second, instance, 105.0, 1.0)
    history = measurement_history_for(system_key="box_h", submission_key=instance.submission.key)
    assert [p.change for p in history.series[0].points] == ["", "slower"]
    # ...but not on one whose campaigns move by 2 % (√(1 + 1 + 2·(1.96·0.02·102.5)²) ≈ 5.9 > 5).
    later.campaign_spread = 0.02
    later.save()
    history = measurement_history_for(system_key="box_h", submission_key=instance.submission.key)
    points = history.series[0].points
    assert [p.change for p in points] == ["", ""]
    # The next-campaign column: √2 · √(1² + (1.96·0.02·105)²) ≈ 5.9 either side of 105.
    low, high = points[1].next_bounds
    assert high - 105.0 == pytest.approx(
        2**0.5 * ((1.0) ** 2 + (1.959964 * 0.02 * 105) ** 2) ** 0.5
    )
    assert points[1].next_figure == "105 (99–111)"
