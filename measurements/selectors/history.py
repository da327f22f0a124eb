"""Every campaign's figure for one candidate on one system, with regression flags.

Campaigns are never replaced: the candidate page shows the latest figure and links here, where
each (instance, operation, message length) has one row per campaign, oldest first. A change is
flagged when two consecutive campaigns' figures differ by more than their combined uncertainty
(`measurements.uncertainty.differ_beyond_uncertainty`); figures without an interval (imported
records, which carry no batch samples) are listed but never flagged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.http import Http404

from measurements import formatting as fmt
from measurements.models import Measurement, Submission, System
from measurements.uncertainty import Interval, differ_beyond_uncertainty

#: The rule, as the page and the API state it.
REGRESSION_RULE = (
    "A change is flagged when two consecutive campaigns' figures differ by more than their "
    "combined uncertainty: |a − b| > √(h_a² + h_b² + 2·(1.96·s·m)²), where h is the half-width "
    "of each figure's 95 % interval, s the box's campaign-to-campaign relative spread (learnt "
    "from its history, as of the later campaign) and m the mean of the two figures. Figures "
    "without an interval (imported records) are never flagged."
)


@dataclass(frozen=True)
class HistoryPoint:
    measurement_id: int
    campaign_key: str
    campaign_source: str
    started: datetime | None
    cycles: float | None
    low: float | None
    high: float | None
    #: the box's campaign-level relative spread this figure allows for (0 when unknown)
    campaign_spread: float = 0.0
    #: "slower", "faster" or "" against the previous campaign's figure.
    change: str = ""

    @property
    def figure(self) -> str:
        """`123.7 k (123.1 k–124.2 k)`, formatted by the one formatter."""
        return fmt.format_cycles_interval(self.cycles, self.low, self.high)

    @property
    def next_figure(self) -> str:
        """Where the next campaign is expected, formatted like the candidate page's column."""
        bounds = self.next_bounds
        if bounds is None:
            return fmt.MISSING
        return fmt.format_cycles_interval(self.cycles, *bounds)

    @property
    def next_bounds(self) -> tuple[float, float] | None:
        """Where the next campaign is expected (95 %), as the candidate page shows it."""
        interval = self.interval
        if interval is None:
            return None
        low, high = interval.next_campaign_bounds(self.campaign_spread)
        return max(low, 0.0), high

    @property
    def next_low(self) -> float | None:
        return self.next_bounds[0] if self.next_bounds else None

    @property
    def next_high(self) -> float | None:
        return self.next_bounds[1] if self.next_bounds else None

    @property
    def interval(self) -> Interval | None:
        if self.cycles is None or self.low is None or self.high is None:
            return None
        return Interval(self.cycles, self.low, self.high, 0, 0, "stored")


@dataclass
class HistorySeries:
    instance_label: str
    operation: str
    input_bytes: int
    points: list[HistoryPoint] = field(default_factory=list)

    @property
    def changes(self) -> int:
        return sum(1 for p in self.points if p.change)

    @property
    def latest(self) -> HistoryPoint | None:
        return self.points[-1] if self.points else None


@dataclass
class History:
    system: System
    submission: Submission
    series: list[HistorySeries]
    rule: str = REGRESSION_RULE

    @property
    def campaigns(self) -> int:
        return len({p.campaign_key for s in self.series for p in s.points})

    @property
    def changes(self) -> int:
        return sum(s.changes for s in self.series)


def _figure(m: Measurement) -> tuple[float | None, float | None, float | None]:
    """The figure a page shows: the sample median with its interval, else the guide's mean."""
    if m.sample_median_cycles is not None:
        return m.sample_median_cycles, m.sample_ci95_low_cycles, m.sample_ci95_high_cycles
    return m.mean_cycles, None, None


def _change(previous: HistoryPoint | None, point: HistoryPoint) -> str:
    if previous is None or previous.interval is None or point.interval is None:
        return ""
    if not differ_beyond_uncertainty(previous.interval, point.interval, point.campaign_spread):
        return ""
    return "slower" if point.interval.estimate > previous.interval.estimate else "faster"


def _point(m: Measurement, previous: HistoryPoint | None) -> HistoryPoint:
    cycles, low, high = _figure(m)
    point = HistoryPoint(
        measurement_id=m.id,
        campaign_key=m.campaign.key,
        campaign_source=m.campaign.source,
        started=m.campaign.started_utc or m.started_utc,
        cycles=cycles,
        low=low,
        high=high,
        campaign_spread=m.campaign_spread or 0.0,
    )
    change = _change(previous, point)
    return point if not change else HistoryPoint(**{**point.__dict__, "change": change})


def measurement_history_for(*, system_key: str, submission_key: str) -> History:
    """All campaigns' figures of `submission_key` on `system_key` (two queries plus lookups)."""
    system = System.objects.filter(key=system_key).first()
    submission = Submission.objects.filter(key=submission_key).first()
    if system is None or submission is None:
        raise Http404(f"No candidate {submission_key} on system {system_key}.")
    rows = (
        Measurement.objects.filter(campaign__system=system, instance__submission=submission)
        .exclude(status="failed")
        .select_related("campaign", "instance")
        .order_by(
            "instance__position",
            "instance__label",
            "operation",
            "input_bytes",
            "campaign__started_utc",
            "campaign_id",
        )
    )
    series: dict[tuple[str, str, int], HistorySeries] = {}
    for m in rows:
        key = (m.instance.label, m.operation, m.input_bytes)
        current = series.setdefault(key, HistorySeries(*key))
        current.points.append(_point(m, current.latest))
    return History(system=system, submission=submission, series=list(series.values()))
