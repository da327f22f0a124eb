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
    # The page's interval is where the next campaign may land, the box's spread included...
    low, high = m.next_campaign_bounds()
    half = math.sqrt(2) * Z * spread.allowance  # this campaign's own interval has no width
    assert (high - 1030.0) / 1030.0 == pytest.approx(half)
    assert low == pytest.approx(1030.0 * (1 - half))
    # ...while the precision held against the target is the campaign's own (the planner's part).
    assert m.precision_reached == 0.0 and m.target_met is True


def test_the_refresh_command_brings_every_measured_campaign_up_to_date(empty_db, prior):
    from io import StringIO

    from django.core.management import call_command

    system = SystemFactory(key="box_c")
    instance = InstanceFactory(label="C")
    first, second = _campaigns(system, 2)
    old = [_measure(first, instance, 100.0), _measure(second, instance, 110.0)]
    assert all(m.campaign_spread is None for m in old)  # stored before the spread existed

    out = StringIO()
    call_command("campaign_spread_refresh", "--system", "box_c", stdout=out)

    for m in old:
        m.refresh_from_db()
    assert old[0].campaign_spread == 0.0  # the first campaign: no history, a zero prior here
    assert old[1].campaign_spread == pytest.approx(math.log(1.1) / 2 * 4.303 / Z)
    assert (
        "[2/2] spread-1: ±" in out.getvalue() and "refreshed 2 measured campaigns" in out.getvalue()
    )


def test_the_method_page_states_the_allowance_and_what_it_rests_on(empty_db, prior):
    from measurements.selectors.pages.method import method_page

    system = SystemFactory(key="box_m")
    instance = InstanceFactory(label="M")
    first, second = _campaigns(system, 2)
    _measure(first, instance, 100.0)
    _measure(second, instance, 110.0)
    campaign_spread_refresh(campaign=first)
    campaign_spread_refresh(campaign=second)

    page = method_page(system, second.key)

    [row] = [r for r in page.planning_rows if r[0] == "campaign_spread"]
    assert row[1].startswith("the box's campaign-to-campaign spread")
    # learnt d/√2 = 6.7 % over one transition, blended half and half with a zero prior: 4.8 %,
    # times t₂ / 1.96 = 10 %
    assert row[2] == "±10 % (learnt 6.7 % over 1 transition, prior 0 %)"
