"""The box's campaign-to-campaign spread, read from its history of measured campaigns."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.utils import timezone

from measurements.selectors.campaign_spread import campaign_spread_for
from measurements.services.recording import campaign_spread_refresh
from tests.factories import CampaignFactory, InstanceFactory, MeasurementFactory, SystemFactory

pytestmark = pytest.mark.django_db

Z = 1.959963984540054


def _campaigns(system, count, source="measured", prefix="spread"):
    start = timezone.now() - timedelta(days=count)
    return [
        CampaignFactory(
            system=system,
            key=f"{prefix}-{i}",
            source=source,
            started_utc=start + timedelta(days=i),
            planning={"target_precision": 0.01},
        )
        for i in range(count)
    ]


def _measure(campaign, instance, median, operation="dec", status="complete"):
    # Exact intervals (zero width): every difference between campaigns is campaign spread.
    return MeasurementFactory(
        campaign=campaign,
        instance=instance,
        operation=operation,
        status=status,
        plan={"precision": 0.01, "stopped_by": "precision"},
        sample_median_cycles=median,
        sample_ci95_low_cycles=median,
        sample_ci95_high_cycles=median,
    )


@pytest.fixture
def prior(settings):
    settings.NGCC_CAMPAIGN_SPREAD_PRIOR = 0.0
    settings.NGCC_CAMPAIGN_SPREAD_PRIOR_WEIGHT = 1.0


def test_consecutive_campaigns_of_one_series_are_the_observations(empty_db, prior):
    system = SystemFactory(key="box_s")
    a, b = InstanceFactory(label="A"), InstanceFactory(label="B")
    first, second, third = _campaigns(system, 3)
    for campaign, (ma, mb) in zip(
        (first, second, third), ((100, 200), (110, 200), (100, 220)), strict=True
    ):
        _measure(campaign, a, ma)
        _measure(campaign, b, mb)
    # Neither a failed measurement, nor another system, nor an imported campaign is history.
    _measure(third, a, 500, operation="keygen", status="failed")
    [elsewhere] = _campaigns(SystemFactory(key="box_other"), 1, prefix="other")
    _measure(elsewhere, a, 900)
    [imported] = _campaigns(system, 1, source="imported", prefix="imported")
    _measure(imported, a, 900)

    spread = campaign_spread_for(system=system)

    d = [math.log(1.1), 0.0, -math.log(1.1), math.log(1.1)]  # A: 100→110→100, B: 200→200→220
    assert spread.transitions == 2 and spread.pairs == 4
    assert spread.observed == pytest.approx(math.sqrt(sum(x * x for x in d) / 4 / 2))
    # Up to the second campaign only: one transition, A moved 10 % and B not at all.
    early = campaign_spread_for(system=system, through=second)
    assert early.transitions == 1 and early.pairs == 2
    assert early.observed == pytest.approx(math.sqrt(math.log(1.1) ** 2 / 2 / 2))


def test_closing_a_campaign_learns_the_spread_and_updates_its_figures(empty_db, settings):
    settings.NGCC_CAMPAIGN_SPREAD_PRIOR = 0.02
    settings.NGCC_CAMPAIGN_SPREAD_PRIOR_WEIGHT = 1.0
    system = SystemFactory(key="box_r")
    instance = InstanceFactory(label="R")
    first, second = _campaigns(system, 2)
    _measure(first, instance, 1000.0)
    m = _measure(second, instance, 1030.0)

    spread = campaign_spread_refresh(campaign=second)

    second.refresh_from_db()
    m.refresh_from_db()
    assert second.planning["campaign_spread"] == spread.as_dict()
    assert second.planning["target_precision"] == 0.01  # the rest of the planning is kept
    observed2 = math.log(1.03) ** 2 / 2
    assert spread.relative == pytest.approx(math.sqrt((0.02**2 + observed2) / 2))
    assert spread.allowance == pytest.approx(spread.relative * 4.303 / Z)
    assert m.campaign_spread == pytest.approx(spread.allowance)
    # Precision reached is now where the next campaign may land, the box's spread included; the
    # planner met its 1 % within the campaign, so the miss is the box's.
    assert m.precision_reached == pytest.approx(math.sqrt(2) * Z * spread.allowance)
    assert m.target_missed_reason == "box spread" and m.target_met is False
    low, high = m.next_campaign_bounds()
    assert (high - 1030.0) / 1030.0 == pytest.approx(m.precision_reached)
    assert low == pytest.approx(1030.0 * (1 - m.precision_reached))
