"""Compare: instances side by side, ratios, and whether differences exceed the uncertainty."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from measurements.models import Measurement
from measurements.selectors.pages.compare import compare_page
from tests.factories import (
    CampaignFactory,
    InstanceFactory,
    MeasurementFactory,
    SystemFactory,
    TrialFactory,
)

A_B = {"a": "kem-29:PolarKEM-128", "b": "kem-30:POLARLAC-128", "system": "arm_1"}


def _row(page, figure):
    return next(r for r in page.rows if r.figure == figure)


def test_two_instances_on_arm_1(arm1, django_assert_max_num_queries):
    with django_assert_max_num_queries(7):
        page = compare_page(A_B)
    assert [i.header for i in page.items] == [
        "kem-29 PolarKEM-128 on arm_1",
        "kem-30 POLARLAC-128 on arm_1",
    ]
    assert [r.figure for r in page.rows] == [
        "keygen cycles",
        "enc cycles",
        "dec cycles",
        "public key (B)",
        "ciphertext (B)",
    ]
    keygen = _row(page, "keygen cycles")
    assert [c.text for c in keygen.cells] == ["158.4 k", "134.8 k"]
    assert keygen.ratios == [f"{134777.22371993793 / 158359.0992745702:.2f}×"] == ["0.85×"]
    # Five trials each: the [min, max] intervals of the per-call cycles do not overlap.
    assert keygen.beyond == ["yes"]
    assert _row(page, "public key (B)").ratios == ["0.52×"]
    m = Measurement.objects.get(campaign=arm1, instance__label="POLARLAC-128", operation="keygen")
    assert keygen.cells[1].href == f"/measurements/{m.pk}/"


def test_one_instance_on_two_systems(x86_1_published):
    page = compare_page({"a": "kem-29:PolarKEM-128@arm_1", "b": "kem-29:PolarKEM-128@x86_1"})
    assert [(i.campaign.system.key, i.provenance) for i in page.items] == [
        ("arm_1", "measured, raw trials stored"),
        ("x86_1", "published page, no raw trials"),
    ]
    keygen = _row(page, "keygen cycles")
    assert [c.text for c in keygen.cells] == ["158.4 k", "166.5 k"]
    assert keygen.ratios == ["1.05×"]
    assert keygen.beyond == ["unknown (no trials)"]


def test_one_instance_in_two_campaigns_overlapping_intervals(db):
    instance = InstanceFactory()
    first, second = CampaignFactory(key="run-1"), CampaignFactory(key="run-2")
    for campaign, cycles in ((first, [1000, 1010, 1020]), (second, [1005, 1015, 1025])):
        m = MeasurementFactory(campaign=campaign, instance=instance, mean_cycles=cycles[1] / 100)
        for index, total in enumerate(cycles):
            TrialFactory(measurement=m, index=index, cycles=total, measurements=100)
    spec = f"{instance.submission.key}:{instance.label}"
    page = compare_page({"a": f"{spec}@run-1", "b": f"{spec}@run-2"})
    assert [i.campaign.key for i in page.items] == ["run-1", "run-2"]
    keygen = _row(page, "keygen cycles")
    assert [(c.interval.low, c.interval.high) for c in keygen.cells] == [
        (10.0, 10.2),
        (10.05, 10.25),
    ]
    assert keygen.beyond == ["no"]


def _narrow(campaign, instance, median, spread):
    """A measurement with a stored ±0.5 % interval and its box's campaign-level spread."""
    return MeasurementFactory(
        campaign=campaign,
        instance=instance,
        mean_cycles=median,
        sample_median_cycles=median,
        sample_ci95_low_cycles=median * 0.995,
        sample_ci95_high_cycles=median * 1.005,
        campaign_spread=spread,
    )


def _two_campaigns(first_spread, second_spread, *, one_system=True):
    """One instance 5 % apart in two campaigns (run-1 then run-2), on one system or two."""
    instance = InstanceFactory()
    first = CampaignFactory(key="run-1", started_utc=datetime(2026, 1, 1, tzinfo=UTC))
    system = first.system if one_system else SystemFactory()
    second = CampaignFactory(
        key="run-2", system=system, started_utc=datetime(2026, 2, 1, tzinfo=UTC)
    )
    _narrow(first, instance, 1000.0, first_spread)
    _narrow(second, instance, 1050.0, second_spread)
    spec = f"{instance.submission.key}:{instance.label}"
    return _row(compare_page({"a": f"{spec}@run-1", "b": f"{spec}@run-2"}), "keygen cycles")


@pytest.mark.parametrize(("spread", "beyond"), [(0.0, "yes"), (0.02, "no")])
def test_two_campaigns_of_one_instance_allow_for_the_box_spread(db, spread, beyond):
    """5 % apart with ±0.5 % intervals: beyond them on a box whose campaigns agree, not on one
    whose campaigns move by 2 % (the history page's rule: √(2·(1.96·0.02·m)²) is 5.6 % of m)."""
    assert _two_campaigns(spread, spread).beyond == [beyond]


@pytest.mark.parametrize(("first", "second", "beyond"), [(0.0, 0.02, "no"), (0.02, 0.0, "yes")])
def test_on_one_system_the_later_campaigns_spread_counts(db, first, second, beyond):
    """As on the history page, which judges each campaign against the one before it."""
    assert _two_campaigns(first, second).beyond == [beyond]


@pytest.mark.parametrize(("second", "beyond"), [(0.03, "no"), (0.01, "yes")])
def test_across_two_systems_both_boxes_spreads_count(db, second, beyond):
    """The RMS of 0 and 3 % is 2.1 %: 5 % apart is within it; that of 0 and 1 % is not."""
    assert _two_campaigns(0.0, second, one_system=False).beyond == [beyond]


def test_two_instances_of_one_campaign_share_its_shift(db):
    """Within one campaign the box's spread cancels: 5 % apart is a real difference."""
    campaign = CampaignFactory(key="run-1")
    a = InstanceFactory(label="A-1")
    b = InstanceFactory(label="B-1", submission=a.submission)
    _narrow(campaign, a, 1000.0, 0.02)
    _narrow(campaign, b, 1050.0, 0.02)
    key = a.submission.key
    page = compare_page({"a": f"{key}:A-1@run-1", "b": f"{key}:B-1@run-1"})
    assert _row(page, "keygen cycles").beyond == ["yes"]


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"a": "kem-29"}, "a='kem-29': expected <candidate>:<instance>[@<system or campaign>]"),
        ({"a": "kem-29:Nope"}, "a='kem-29:Nope': no instance 'Nope' of 'kem-29'"),
        (
            {"a": "kem-29:PolarKEM-128@x86_9"},
            "a='kem-29:PolarKEM-128@x86_9': no measurement on x86_9",
        ),
    ],
)
def test_bad_items_are_named(arm1, params, error):
    page = compare_page(params)
    assert page.errors == [error] and page.items == []
