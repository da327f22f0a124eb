"""The record types of a measured result: one for a timing result, one for a hash profile.

A record is built once by whoever produced the result — the runner from the driver output
(`runner.harness.driver_output`), the importer from a harness JSON file
(`measurements.harness_records`) — with its aggregates computed by `measurements.stats` at that
moment. Both hand the same type to the same store service (`measurements.services.recording`),
which verifies the aggregates against the trials (`verify_timing_record`,
`verify_hash_profile`) and refuses a record whose figures its trials do not give.

No Django here: the harness layer builds these records without the ORM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any

from measurements.stats import (
    AGGREGATE_TOLERANCE,
    Aggregates,
    SampleStats,
    profile_shares,
    relative_difference,
    throughput_mb_per_second,
    timing_aggregates,
)

#: Version of the harness record shape written and read.
SCHEMA = 2


class RecordAggregateMismatch(ValueError):
    """A record states an aggregate that its trials (or calls) do not give."""

    def __init__(self, path: str, field_name: str, message: str) -> None:
        self.path = path
        self.field = field_name
        self.message = message
        super().__init__(f"{path}: field '{field_name}': {message}")


def record_path(kind: str, candidate: str, label: str, operation: str, input_bytes: int) -> str:
    """``records/<id>/<label>__<op>.json`` (``profile/…`` for profiles; hash lengths as
    ``__hash_<bytes>``): where a record's evidence lives."""
    op = f"{operation}_{input_bytes}" if input_bytes else operation
    return f"{kind}/{candidate}/{label}__{op}.json"


# --- Timing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TimingTrial:
    """One trial: ``measurements`` timed calls in one process, with optional batch samples."""

    index: int
    process_index: int
    measurements: int
    seconds: float
    cycles: int
    counter: str = ""
    cpu: int | None = None
    disturbed: bool = False
    samples: list[float] = field(default_factory=list)
    batch_calls: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def trials_with_processes(
    trials: Sequence[TimingTrial], processes: Sequence[dict[str, Any]]
) -> list[TimingTrial]:
    """Tag each trial with the process (``processes[]`` entry) that produced it, and its meta.

    Processes list their own trials in order; when their count does not add up to the
    record's, ownership is unknown and the trials stay untagged. A trial without a CPU takes
    its process's ``cpu`` meta.
    """
    owners = [
        (p_index, process.get("meta") or {})
        for p_index, process in enumerate(processes)
        for _ in process.get("trials") or ()
    ]
    if not owners or len(owners) != len(trials):
        return list(trials)
    return [
        replace(trial, process_index=p_index, meta=meta, cpu=_trial_cpu(trial.cpu, meta))
        for trial, (p_index, meta) in zip(trials, owners, strict=True)
    ]


def _trial_cpu(cpu: int | None, meta: Any) -> int | None:
    if cpu is not None or not isinstance(meta, dict) or "cpu" not in meta:
        return cpu
    try:
        return int(meta["cpu"])
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class TimingRecord:
    """One operation of one instance timed on one box: its trials and their aggregates."""

    path: str
    status: str
    candidate: str
    label: str
    operation: str
    input_bytes: int
    trials: list[TimingTrial]
    aggregates: Aggregates | None
    sample_stats: SampleStats | None
    throughput_mb_per_second: float | None
    schema: int = SCHEMA
    instance: str = ""
    variant: str = "reference"
    flags: str = ""
    build_flags: str = ""
    kat: str = ""
    plan: dict[str, Any] = field(default_factory=dict)
    disturbed_retries: int = 0
    started_utc: datetime | None = None
    ended_utc: datetime | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    kex: dict[str, Any] = field(default_factory=dict)
    #: The same operation timed over a seeded pool of inputs (runner.harness.input_pool), where
    #: measured: pool size, first input, per-input medians, spread across inputs and noise.
    input_pool: dict[str, Any] = field(default_factory=dict)
    baseline_rss_bytes: int | None = None
    peak_rss_bytes: int | None = None
    stack_high_water_bytes: int | None = None
    timing_scope: str = ""
    counter: dict[str, Any] = field(default_factory=dict)
    processes: list[dict[str, Any]] = field(default_factory=list)
    library: str = ""
    library_sha256: str = ""
    error: str | None = None

    @property
    def planner(self) -> str:
        return str(self.plan.get("planner", "guide"))

    @property
    def cpu(self) -> int | None:
        """The CPU the box's environment names (the record's trials may say more)."""
        cpu = self.environment.get("cpu_number")
        return cpu if isinstance(cpu, int) and not isinstance(cpu, bool) else None

    @property
    def measurements(self) -> int:
        return self.aggregates.measurements if self.aggregates else 0


def timing_record(
    *, trials: Sequence[TimingTrial], input_bytes: int, **values: Any
) -> TimingRecord:
    """A timing record with its aggregates computed from ``trials`` (the runner's way)."""
    aggregates, samples = timing_aggregates(trials)
    ops = aggregates.operations_per_second if aggregates else None
    return TimingRecord(
        trials=list(trials),
        input_bytes=input_bytes,
        aggregates=aggregates,
        sample_stats=samples,
        throughput_mb_per_second=throughput_mb_per_second(input_bytes, ops),
        **values,
    )


def _differs(stated: float | None, expected: float | None) -> bool:
    if stated is None or expected is None:
        return stated is not expected
    return relative_difference(stated, expected) > AGGREGATE_TOLERANCE


def _mismatches(
    prefix: str, stated: Any, expected: Any, names: Iterable[str]
) -> Iterable[tuple[str, Any, Any]]:
    """(field, stated, expected) of every field of two aggregate objects that disagrees."""
    for name in names:
        a = getattr(stated, name) if stated is not None else None
        b = getattr(expected, name) if expected is not None else None
        if _differs(a, b):
            yield f"{prefix}{name}", a, b


def timing_record_mismatches(record: TimingRecord) -> list[tuple[str, Any, Any]]:
    """Every aggregate of ``record`` its trials do not give: (field, stated, expected)."""
    aggregates, samples = timing_aggregates(record.trials)
    found = list(
        _mismatches("", record.aggregates, aggregates, [f.name for f in fields(Aggregates)])
    )
    found += _mismatches(
        "sample_stats.", record.sample_stats, samples, [f.name for f in fields(SampleStats)]
    )
    throughput = throughput_mb_per_second(
        record.input_bytes, aggregates.operations_per_second if aggregates else None
    )
    if _differs(record.throughput_mb_per_second, throughput):
        found.append(("throughput_MB_per_second", record.throughput_mb_per_second, throughput))
    return found


def _refusal(path: str, mismatch: tuple[str, Any, Any], source: str) -> RecordAggregateMismatch:
    name, stated, expected = mismatch
    return RecordAggregateMismatch(
        path,
        name,
        f"stated {stated!r} disagrees with {expected!r} computed from the {source} "
        f"(relative tolerance {AGGREGATE_TOLERANCE})",
    )


def verify_timing_record(record: TimingRecord) -> None:
    """Raise `RecordAggregateMismatch` (naming the field) unless the trials give the figures."""
    mismatches = timing_record_mismatches(record)
    if mismatches:
        raise _refusal(record.path, mismatches[0], "trials")


# --- Hash profiles ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ProfileCall:
    """Calls and ticks of one ICCS function at one (input bits, output bits) shape."""

    fn: str
    in_bits: int
    out_bits: int
    calls: int
    ticks: int


@dataclass(frozen=True)
class HashProfileRecord:
    """Where one operation of one instance spends its time among the ICCS primitives."""

    path: str
    status: str
    candidate: str
    label: str
    operation: str
    input_bytes: int
    total_operations: int
    total_ticks: int
    calls: list[ProfileCall]
    share: dict[str, float]
    hash_share: float | None
    drng_share: float | None
    schema: int = SCHEMA
    tick_source: str = ""
    tick_hz: float | None = None
    warmups: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    stderr: str = ""
    error: str | None = None


def hash_profile_record(
    *, calls: Sequence[ProfileCall], total_ticks: int, **values: Any
) -> HashProfileRecord:
    """A hash profile with its shares computed from ``calls`` (the runner's way)."""
    shares = profile_shares(((c.fn, c.ticks) for c in calls), total_ticks)
    return HashProfileRecord(
        calls=list(calls),
        total_ticks=total_ticks,
        share=shares.share,
        hash_share=shares.hash_share,
        drng_share=shares.drng_share,
        **values,
    )


def hash_profile_mismatches(profile: HashProfileRecord) -> list[tuple[str, Any, Any]]:
    """Every share of ``profile`` its calls do not give: (field, stated, expected)."""
    expected = profile_shares(((c.fn, c.ticks) for c in profile.calls), profile.total_ticks)
    found = [  # a function without calls has no time: a share of 0.0 or none
        (f"share.{fn}", profile.share.get(fn, 0.0), expected.share.get(fn, 0.0))
        for fn in sorted(set(profile.share) | set(expected.share))
        if _differs(profile.share.get(fn, 0.0), expected.share.get(fn, 0.0))
    ]
    found += _mismatches("", profile, expected, ("hash_share", "drng_share"))
    return found


def verify_hash_profile(profile: HashProfileRecord) -> None:
    """Raise `RecordAggregateMismatch` (naming the field) unless the calls give the shares."""
    mismatches = hash_profile_mismatches(profile)
    if mismatches:
        raise _refusal(profile.path, mismatches[0], "calls")
