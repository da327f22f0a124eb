"""Record builds, KAT results, timing measurements and hash profiles.

The importer and the runner both call these functions, so imported and measured data end up in
the same tables in the same shape. A timing record or hash profile arrives with its aggregates
already computed (`measurements.records`); the store verifies them against the trials and calls
and refuses a mismatch before writing anything.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from measurements.models import (
    Build,
    Campaign,
    Category,
    EvidenceFile,
    HashProfile,
    HashProfileCall,
    Instance,
    KATResult,
    Measurement,
    Submission,
    Trial,
)
from measurements.precision import precision_outcome
from measurements.records import (
    HashProfileRecord,
    TimingRecord,
    TimingTrial,
    verify_hash_profile,
    verify_timing_record,
)
from measurements.selectors.campaign_spread import campaign_spread_for
from measurements.stats import Aggregates, SampleStats, timing_aggregates
from measurements.uncertainty import CampaignSpread, next_campaign_half_relative


class RecordConflict(ValueError):
    """A record would overwrite stored trials."""


def category_of(candidate: str) -> str:
    prefix = candidate.split("-", 1)[0]
    if prefix not in Category.values:
        raise ValueError(
            f"candidate id {candidate!r} has no known category prefix (kem/sign/kex/hash)"
        )
    return prefix


@transaction.atomic
def instance_get_or_create(
    *, candidate: str, label: str, api_instance: str = "", variant: str = "reference"
) -> tuple[Instance, bool]:
    submission, _ = Submission.objects.get_or_create(
        key=candidate, defaults={"category": category_of(candidate)}
    )
    instance, created = Instance.objects.get_or_create(
        submission=submission,
        label=label,
        defaults={
            "api_instance": api_instance,
            "variant": variant,
            "position": submission.instances.count(),
        },
    )
    return instance, created


@transaction.atomic
def build_record(
    *,
    campaign: Campaign,
    instance: Instance,
    flags: str,
    kat_status: str,
    guide_result: str = "",
    library_path: str = "",
    library_sha256: str = "",
    elf_load_bytes: int | None = None,
    kat_log_path: str = "",
    kat_log_sha256: str = "",
    kat_log: EvidenceFile | None = None,
    compiler: str = "",
    build_flags: str = "",
    commands: list[Any] | None = None,
    sources: list[Any] | None = None,
    warnings: str = "",
    log: str = "",
) -> tuple[Build, bool]:
    """Create or update the build of `instance` in `campaign`; returns (build, changed)."""
    values = {
        "flags": flags,
        "kat_status": kat_status,
        "guide_result": guide_result,
        "library_path": library_path,
        "library_sha256": library_sha256,
        "elf_load_bytes": elf_load_bytes,
        "kat_log_path": kat_log_path,
        "kat_log_sha256": kat_log_sha256,
        "kat_log": kat_log,
        "compiler": compiler,
        "build_flags": build_flags,
        "commands": commands or [],
        "sources": sources or [],
        "warnings": warnings,
        "log": log,
        "submission_revision": instance.submission.revision,
    }
    build = Build.objects.filter(campaign=campaign, instance=instance).first()
    if build is None:
        return Build.objects.create(campaign=campaign, instance=instance, **values), True
    changed = False
    for key, value in values.items():
        if getattr(build, key) != value:
            setattr(build, key, value)
            changed = True
    if changed:
        build.save()
    return build, changed


@transaction.atomic
def kat_result_record(
    *,
    build: Build,
    kind: str,
    status: str,
    first_difference: str = "",
    output_raw_sha256: str = "",
    comparison: str = "",
    output_canonical_sha256: str = "",
    reference_canonical_sha256: str = "",
    manifest_line: str = "",
    log: str = "",
    evidence: EvidenceFile | None = None,
) -> KATResult:
    result, _ = KATResult.objects.update_or_create(
        build=build,
        kind=kind,
        defaults={
            "status": status,
            "first_difference": first_difference,
            "output_raw_sha256": output_raw_sha256,
            "comparison": comparison,
            "output_canonical_sha256": output_canonical_sha256,
            "reference_canonical_sha256": reference_canonical_sha256,
            "manifest_line": manifest_line,
            "log": log,
            "evidence": evidence,
        },
    )
    if kind == "official" and build.kat_status != status:
        build.kat_status = status
        build.save(update_fields=["kat_status"])
    return result


def _trial_from_row(measurement: Measurement, row: TimingTrial) -> Trial:
    return Trial(
        measurement=measurement,
        index=row.index,
        process_index=row.process_index,
        measurements=row.measurements,
        seconds=row.seconds,
        cycles=row.cycles,
        counter=row.counter,
        cpu=row.cpu,
        disturbed=row.disturbed,
        samples=row.samples,
        batch_calls=row.batch_calls,
        meta=row.meta,
    )


#: Measurement columns of the sample statistics.
_SAMPLE_COLUMNS = {
    "sample_median_cycles": "median",
    "sample_q1_cycles": "q1",
    "sample_q3_cycles": "q3",
    "sample_ci95_low_cycles": "ci95_low",
    "sample_ci95_high_cycles": "ci95_high",
}


def _aggregate_values(
    aggregates: Aggregates | None, samples: SampleStats | None
) -> dict[str, float | int | None]:
    """Measurement columns of a record's aggregates (None throughout without trials)."""
    values: dict[str, float | int | None] = {
        "measurements": aggregates.measurements if aggregates else 0,
        "mean_cycles": aggregates.mean_cycles if aggregates else None,
        "mean_seconds": aggregates.mean_seconds if aggregates else None,
        "operations_per_second": aggregates.operations_per_second if aggregates else None,
        "median_trial_seconds": aggregates.median_trial_seconds if aggregates else None,
        "median_trial_cycles": aggregates.median_trial_cycles if aggregates else None,
        "min_trial_seconds": aggregates.min_trial_seconds if aggregates else None,
        "max_trial_seconds": aggregates.max_trial_seconds if aggregates else None,
    }
    for column, key in _SAMPLE_COLUMNS.items():
        values[column] = getattr(samples, key) if samples else None
    return values


@transaction.atomic
def measurement_recompute_aggregates(*, measurement: Measurement) -> Measurement:
    """Recompute the stored aggregates (and sample statistics) from the stored trials."""
    trials = list(measurement.trials.all())
    if trials:
        aggregates, samples = timing_aggregates(trials)
        for key, value in _aggregate_values(aggregates, samples).items():
            setattr(measurement, key, value)
        half = samples.ci95_half_width_relative if samples else None
        precision = _precision_values(half, measurement.plan, measurement.campaign)
        for key, value in precision.items():
            setattr(measurement, key, value)
    measurement.save()
    return measurement


def _campaign_target(campaign: Campaign) -> float | None:
    return (campaign.planning or {}).get("target_precision")


def campaign_spread_allowance(campaign: Campaign) -> float | None:
    """The campaign-level spread the campaign's intervals allow for (None: imported campaigns,
    which carry no such estimate; `runner.services` stores it when a campaign starts and ends)."""
    spread = (campaign.planning or {}).get("campaign_spread") or {}
    allowance = spread.get("allowance")
    return float(allowance) if allowance is not None else None


def _precision_values(
    half_relative: float | None, plan: dict[str, Any] | None, campaign: Campaign
) -> dict[str, Any]:
    """Precision reached, target and why missed, and the box's campaign spread allowed for, of
    a figure whose 95 % interval has relative half-width `half_relative` (None: no samples)."""
    campaign_spread = campaign_spread_allowance(campaign)
    # The target is judged on what the campaign itself reached (√2 × its interval's half-width,
    # what more processes can shrink); the box's own spread widens the interval the page shows
    # (Measurement.next_campaign_bounds) but no campaign can plan it away.
    reached = None if half_relative is None else next_campaign_half_relative(half_relative)
    outcome = precision_outcome(
        reached=reached, plan=plan or {}, campaign_target=_campaign_target(campaign)
    )
    return {
        "precision_reached": outcome.reached,
        "precision_target": outcome.target,
        "target_missed_reason": outcome.missed_reason,
        "campaign_spread": campaign_spread if half_relative is not None else None,
    }


def _stored_half_relative(m: Measurement) -> float | None:
    if None in (m.sample_median_cycles, m.sample_ci95_low_cycles, m.sample_ci95_high_cycles):
        return None
    if not m.sample_median_cycles:
        return None
    return (m.sample_ci95_high_cycles - m.sample_ci95_low_cycles) / 2 / m.sample_median_cycles


_PRECISION_COLUMNS = [
    "precision_reached",
    "precision_target",
    "target_missed_reason",
    "campaign_spread",
]


@transaction.atomic
def campaign_spread_refresh(*, campaign: Campaign) -> CampaignSpread:
    """Learn the box's campaign-level spread from its history up to and including `campaign`,
    keep it in the campaign's planning and bring its measurements' precision up to date.

    Called when a measured campaign closes: its own figures are then part of the history, so its
    intervals rest on every transition observed so far (`measurements.uncertainty`).
    """
    spread = campaign_spread_for(system=campaign.system, through=campaign)
    campaign.planning = {**(campaign.planning or {}), "campaign_spread": spread.as_dict()}
    campaign.save(update_fields=["planning"])
    changed = []
    for m in campaign.measurements.filter(status="complete", sample_median_cycles__isnull=False):
        values = _precision_values(_stored_half_relative(m), m.plan, campaign)
        for key, value in values.items():
            setattr(m, key, value)
        changed.append(m)
    Measurement.objects.bulk_update(changed, _PRECISION_COLUMNS)
    return spread


def _measurement_values(record: TimingRecord, campaign: Campaign) -> dict[str, Any]:
    return {
        "status": record.status,
        "schema": record.schema,
        "planner": record.planner,
        "plan": record.plan,
        "flags": record.flags,
        "build_flags": record.build_flags,
        "kat_status": record.kat,
        "disturbed_retries": record.disturbed_retries,
        "started_utc": record.started_utc,
        "ended_utc": record.ended_utc,
        "cpu": record.cpu,
        "environment": record.environment,
        "timing_scope": record.timing_scope,
        "throughput_mb_per_second": record.throughput_mb_per_second,
        "baseline_rss_bytes": record.baseline_rss_bytes,
        "peak_rss_bytes": record.peak_rss_bytes,
        "stack_high_water_bytes": record.stack_high_water_bytes,
        "sizes": record.sizes,
        "kex": record.kex,
        "input_pool": record.input_pool,
        "counter": record.counter,
        **_aggregate_values(record.aggregates, record.sample_stats),
        **_precision_values(
            record.sample_stats.ci95_half_width_relative if record.sample_stats else None,
            record.plan,
            campaign,
        ),
    }


@transaction.atomic
def timing_record_store(
    *,
    campaign: Campaign,
    record: TimingRecord,
    evidence: EvidenceFile | None = None,
    instance: Instance | None = None,
) -> Measurement:
    """Store a whole timing record (its measurement and trials) in one transaction.

    The record's aggregates are stored as it states them, once verified against its trials
    (`RecordAggregateMismatch` otherwise, before anything is written).
    """
    verify_timing_record(record)
    if instance is None:
        instance, _ = instance_get_or_create(
            candidate=record.candidate,
            label=record.label,
            api_instance=record.instance,
            variant=record.variant,
        )
    if Measurement.objects.filter(
        campaign=campaign,
        instance=instance,
        operation=record.operation,
        input_bytes=record.input_bytes,
    ).exists():
        raise RecordConflict(
            f"{record.path}: {instance} {record.operation} ({record.input_bytes} B) is already "
            f"stored for campaign {campaign.key}; trials are never overwritten"
        )
    measurement = Measurement.objects.create(
        campaign=campaign,
        instance=instance,
        operation=record.operation,
        input_bytes=record.input_bytes,
        evidence=evidence,
        **_measurement_values(record, campaign),
    )
    Trial.objects.bulk_create([_trial_from_row(measurement, row) for row in record.trials])
    return measurement


@transaction.atomic
def hash_profile_store(
    *,
    campaign: Campaign,
    profile: HashProfileRecord,
    evidence: EvidenceFile | None = None,
    instance: Instance | None = None,
) -> HashProfile:
    """Store a hash profile and its calls; its shares verified against the calls first."""
    verify_hash_profile(profile)
    if instance is None:
        instance, _ = instance_get_or_create(candidate=profile.candidate, label=profile.label)
    if HashProfile.objects.filter(
        campaign=campaign,
        instance=instance,
        operation=profile.operation,
        input_bytes=profile.input_bytes,
    ).exists():
        raise RecordConflict(
            f"{profile.path}: profile of {instance} {profile.operation} is already stored"
        )
    stored = HashProfile.objects.create(
        campaign=campaign,
        instance=instance,
        operation=profile.operation,
        input_bytes=profile.input_bytes,
        status=profile.status,
        tick_source=profile.tick_source,
        tick_hz=profile.tick_hz,
        warmups=profile.warmups,
        total_operations=profile.total_operations,
        total_ticks=profile.total_ticks,
        share=profile.share,
        hash_share=profile.hash_share,
        drng_share=profile.drng_share,
        meta=profile.meta,
        evidence=evidence,
    )
    HashProfileCall.objects.bulk_create(
        [
            HashProfileCall(
                profile=stored,
                position=i,
                fn=c.fn,
                in_bits=c.in_bits,
                out_bits=c.out_bits,
                calls=c.calls,
                ticks=c.ticks,
            )
            for i, c in enumerate(profile.calls)
        ]
    )
    return stored
