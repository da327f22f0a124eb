"""The per-measurement detail page: the plan, the counter, every trial and the per-batch samples
behind one figure, its median with an interval, the evidence file and the API queries.

Two queries: the measurement with its instance, campaign and evidence, then its trials.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from django.http import Http404

from measurements import formatting as fmt
from measurements.domain import HASH_CATEGORIES
from measurements.links import (
    api_url_for_measurement,
    api_url_for_measurement_trials,
    campaign_url,
    candidate_url,
    evidence_url,
    measurement_url,
    with_format,
)
from measurements.models import Measurement, Trial
from measurements.provenance import is_published
from measurements.stats import median_confidence_ranks, sample_stats


@dataclass(frozen=True)
class TrialRow:
    index: int
    process: int
    cpu: str
    counter: str
    calls: str
    cycles: str
    seconds: str
    cycles_per_call: str
    time_per_call: str
    samples: str
    disturbed: bool
    #: Raw values, for the chart and the CSV.
    raw: dict[str, Any]


@dataclass(frozen=True)
class MedianInterval:
    """The median of the per-trial cycles per call (or of the per-batch samples, where stored)
    with a distribution-free interval from order statistics and its exact coverage."""

    basis: str
    median: float
    low: float
    high: float
    coverage: float
    count: int

    @property
    def text(self) -> str:
        return fmt.format_cycles_interval(self.median, self.low, self.high)

    @property
    def coverage_text(self) -> str:
        return f"{self.coverage * 100:.1f} %"


@dataclass
class MeasurementPage:
    measurement: Measurement
    title: str
    operation: str
    plan: list[tuple[str, str]]
    counter: list[tuple[str, str]]
    facts: list[tuple[str, str]]
    trials: list[TrialRow]
    interval: MedianInterval | None
    samples_stored: bool
    evidence_url: str
    candidate_url: str
    campaign_url: str
    api_url: str
    api_trials_url: str
    api_trials_csv_url: str
    csv_url: str

    @property
    def sample_rows(self) -> list[tuple[int, str, str, str, str, str, str]]:
        """Per trial with per-batch samples: (trial, samples, min, q1, median, q3, max)."""
        rows = []
        for trial in self.trials:
            values = trial.raw["sample_values"]
            if values:
                stats = sample_stats(values)
                rows.append(
                    (
                        trial.index,
                        fmt.format_int(stats.count),
                        fmt.format_cycles(min(values)),
                        fmt.format_cycles(stats.q1),
                        fmt.format_cycles(stats.median),
                        fmt.format_cycles(stats.q3),
                        fmt.format_cycles(max(values)),
                    )
                )
        return rows

    @property
    def published(self) -> bool:
        return is_published(self.measurement.campaign)

    @property
    def has_trials(self) -> bool:
        return bool(self.trials)


TRIAL_HEADERS = (
    "trial",
    "process",
    "cpu",
    "counter",
    "calls",
    "cycles",
    "seconds",
    "cycles per call",
    "time per call",
    "samples",
    "disturbed",
)
TRIAL_CSV_KEYS = (
    "index",
    "process_index",
    "cpu",
    "counter",
    "measurements",
    "cycles",
    "seconds",
    "cycles_per_call",
    "seconds_per_call",
    "samples",
    "disturbed",
)


def binomial_coverage(n: int, low_rank: int, high_rank: int) -> float:
    """Probability that [x(low_rank), x(high_rank)] (0-based order statistics of n values)
    contains the population median: P(low_rank < B <= high_rank), B ~ Binomial(n, 1/2).
    Exact up to 1000 values, then the normal approximation (with continuity correction)."""
    if n <= 1000:
        return sum(math.comb(n, k) for k in range(low_rank + 1, high_rank + 1)) / 2**n
    normal = statistics.NormalDist(n / 2, math.sqrt(n) / 2)
    return normal.cdf(high_rank + 0.5) - normal.cdf(low_rank + 0.5)


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt.format_general(value)
    return fmt.MISSING if value in (None, "") else str(value)


def _interval(trials: list[Trial]) -> MedianInterval | None:
    samples = [float(s) for t in trials for s in (t.samples or [])]
    if samples:
        stats = sample_stats(samples)
        low, high = median_confidence_ranks(stats.count)
        return MedianInterval(
            basis="per-batch samples (cycles per call)",
            median=stats.median,
            low=stats.ci95_low,
            high=stats.ci95_high,
            coverage=binomial_coverage(stats.count, low, high),
            count=stats.count,
        )
    return interval_from_trials([t.cycles / t.measurements for t in trials if t.measurements])


def interval_from_trials(per_call_cycles: list[float]) -> MedianInterval | None:
    """The median of the trials' cycles per call, bounded by order statistics."""
    per_call = sorted(per_call_cycles)
    if not per_call:
        return None
    low, high = median_confidence_ranks(len(per_call))
    return MedianInterval(
        basis="trials (cycles per call of each trial)",
        median=statistics.median(per_call),
        low=per_call[low],
        high=per_call[high],
        coverage=binomial_coverage(len(per_call), low, high),
        count=len(per_call),
    )


def _trial_row(trial: Trial) -> TrialRow:
    per_call = trial.cycles / trial.measurements if trial.measurements else None
    seconds_per_call = trial.seconds / trial.measurements if trial.measurements else None
    raw = {
        "index": trial.index,
        "process_index": trial.process_index,
        "cpu": trial.cpu,
        "counter": trial.counter,
        "measurements": trial.measurements,
        "cycles": trial.cycles,
        "seconds": trial.seconds,
        "cycles_per_call": per_call,
        "seconds_per_call": seconds_per_call,
        "samples": len(trial.samples or []),
        "disturbed": trial.disturbed,
        "sample_values": [float(s) for s in trial.samples or []],
    }
    return TrialRow(
        index=trial.index,
        process=trial.process_index,
        cpu=fmt.format_int(trial.cpu),
        counter=trial.counter or fmt.MISSING,
        calls=fmt.format_int(trial.measurements),
        cycles=fmt.format_int(trial.cycles),
        seconds=fmt.format_seconds(trial.seconds),
        cycles_per_call=fmt.format_cycles(per_call),
        time_per_call=fmt.format_seconds(seconds_per_call),
        samples=fmt.format_int(len(trial.samples or [])) if trial.samples else fmt.MISSING,
        disturbed=trial.disturbed,
        raw=raw,
    )


def measurement_page(measurement_id: int) -> MeasurementPage:
    """Everything the detail page of one measurement shows; `Http404` for an unknown id."""
    m = (
        Measurement.objects.select_related("instance__submission", "campaign__system", "evidence")
        .defer("campaign__environment_at_start", "campaign__environment_at_end")
        .filter(pk=measurement_id)
        .first()
    )
    if m is None:
        raise Http404(f"No measurement {measurement_id}.")
    trials = list(Trial.objects.filter(measurement=m).order_by("index"))
    submission = m.instance.submission
    system_key = m.campaign.system.key
    operation = m.operation
    if submission.category in HASH_CATEGORIES:
        operation = f"{m.operation} {fmt.format_message_length(m.input_bytes)}"
    counter = m.counter or {}
    if not counter and trials and trials[0].counter:
        counter = {"counter": trials[0].counter}
    detail_url = measurement_url(m.pk)
    return MeasurementPage(
        measurement=m,
        title=f"{submission.key} {m.instance.label} {operation} on {system_key}",
        operation=operation,
        plan=[(key, _plain(value)) for key, value in sorted((m.plan or {}).items())],
        counter=[(key, _plain(value)) for key, value in sorted(counter.items())],
        facts=_facts(m),
        trials=[_trial_row(t) for t in trials],
        interval=_interval(trials),
        samples_stored=any(t.samples for t in trials),
        evidence_url=evidence_url(m.evidence_id) if m.evidence_id else "",
        candidate_url=candidate_url(system_key, submission.key),
        campaign_url=campaign_url(m.campaign.key),
        api_url=api_url_for_measurement(m.pk),
        api_trials_url=api_url_for_measurement_trials(m.pk),
        api_trials_csv_url=with_format(api_url_for_measurement_trials(m.pk), "csv"),
        csv_url=f"{detail_url}?format=csv",
    )


def _facts(m: Measurement) -> list[tuple[str, str]]:
    """The figures the candidate page shows for this measurement, formatted the same way."""
    return [
        ("mean cycles", fmt.format_cycles(m.mean_cycles)),
        ("mean time", fmt.format_seconds(m.mean_seconds)),
        ("ops/s", fmt.format_general(m.operations_per_second)),
        ("median trial", fmt.format_seconds(m.median_trial_seconds)),
        (
            "n (trials × iters)",
            fmt.format_n(
                m.measurements,
                (m.plan or {}).get("trials"),
                (m.plan or {}).get("iterations_per_trial"),
            )
            if m.measurements
            else fmt.MISSING,
        ),
        ("planner", m.planner or fmt.MISSING),
        ("status", m.status or fmt.MISSING),
        ("timing scope", m.timing_scope or fmt.MISSING),
        (
            "started / ended (UTC)",
            f"{fmt.format_utc(m.started_utc)} / {fmt.format_utc(m.ended_utc)}",
        ),
    ]
