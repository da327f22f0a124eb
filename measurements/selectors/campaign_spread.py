"""How much a box's figures move from one campaign to the next, read from its history.

One campaign cannot see the shift that the whole box undergoes between campaigns (frequency and
thermal history, neighbours, memory placement): processes of one campaign can agree within 0.2 %
while the next campaign lands 2 % away. Every figure measured by our driver in two consecutive
campaigns of a system (same instance, operation, input length and build flags) is one
observation of that shift; `measurements.uncertainty.campaign_spread` turns them into the
allowance that each interval on the pages adds.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from measurements.models import Campaign, Measurement, System
from measurements.uncertainty import (
    CampaignPair,
    CampaignSpread,
    Interval,
    campaign_spread,
    process_spread_floor,
)

_COLUMNS = (
    "instance_id",
    "operation",
    "input_bytes",
    "build_flags",
    "campaign__key",
    "sample_median_cycles",
    "sample_ci95_low_cycles",
    "sample_ci95_high_cycles",
)


def _history_rows(system: System, through: Campaign | None):
    rows = Measurement.objects.filter(
        campaign__system=system,
        campaign__source="measured",
        status="complete",
        sample_median_cycles__isnull=False,
        sample_ci95_low_cycles__isnull=False,
        sample_ci95_high_cycles__isnull=False,
    )
    if through is not None:
        rows = rows.filter(campaign__started_utc__lte=through.started_utc)
    return rows.order_by(
        "instance_id", "operation", "input_bytes", "build_flags", "campaign__started_utc"
    ).values_list(*_COLUMNS)


def _consecutive_pairs(rows) -> Iterator[CampaignPair]:
    previous = None
    for instance_id, op, input_bytes, flags, campaign_key, median, low, high in rows:
        series = (instance_id, op, input_bytes, flags)
        current = (series, campaign_key, Interval(median, low, high, 0, 0, "stored"))
        if previous is not None and previous[0] == series:
            yield CampaignPair((previous[1], campaign_key), previous[2], current[2])
        previous = current


def _own_intervals(campaign: Campaign) -> Iterator[Interval]:
    """The campaign's own figures as process-level intervals (processes from the plan)."""
    rows = campaign.measurements.filter(
        status="complete",
        sample_median_cycles__isnull=False,
        sample_ci95_low_cycles__isnull=False,
        sample_ci95_high_cycles__isnull=False,
    ).values_list(
        "sample_median_cycles", "sample_ci95_low_cycles", "sample_ci95_high_cycles", "plan"
    )
    for median, low, high, plan in rows:
        plan = plan or {}
        # trials are processes unless the plan shared one process between them
        processes = int(plan.get("trials") or 0) if plan.get("separate_processes", True) else 1
        yield Interval(median, low, high, processes, 0, "stored")


def campaign_spread_for(*, system: System, through: Campaign | None = None) -> CampaignSpread:
    """The campaign-level spread of `system` from its measured campaigns up to `through`
    (inclusive; all of them without it), blended with the configured prior; the allowance is at
    least the process-to-process spread of `through`'s own figures
    (`uncertainty.process_spread_floor`)."""
    return campaign_spread(
        _consecutive_pairs(_history_rows(system, through).iterator()),
        prior=settings.NGCC_CAMPAIGN_SPREAD_PRIOR,
        prior_weight=settings.NGCC_CAMPAIGN_SPREAD_PRIOR_WEIGHT,
        floor=process_spread_floor(_own_intervals(through)) if through is not None else 0.0,
    )
