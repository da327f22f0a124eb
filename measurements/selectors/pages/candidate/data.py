"""The rows behind one candidate page, fetched in bulk (at most 9 queries, whatever the number of
instances or operations) and indexed for the section builders."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, Sum
from django.http import Http404

from measurements.domain import CATEGORY_OPERATIONS, HASH_CATEGORIES
from measurements.models import (
    Build,
    Campaign,
    Category,
    ExternalSize,
    HashProfile,
    HashProfileCall,
    Instance,
    KatIssue,
    KexBandwidth,
    Measurement,
    Submission,
)
from measurements.selectors.pages.common import operation_sort_key

RowKey = tuple[str, int]  # (operation, input bytes)
RecordKey = tuple[int, str, int]  # (instance id, operation, input bytes)

MEASUREMENT_FIELDS = (
    "id",
    "campaign_id",
    "instance_id",
    "operation",
    "input_bytes",
    "status",
    "plan",
    "measurements",
    "mean_cycles",
    "mean_seconds",
    "operations_per_second",
    "median_trial_seconds",
    "throughput_mb_per_second",
    "baseline_rss_bytes",
    "peak_rss_bytes",
    "stack_high_water_bytes",
    "sample_median_cycles",
    "sample_ci95_low_cycles",
    "sample_ci95_high_cycles",
    "precision_reached",
    "precision_target",
    "target_missed_reason",
    "campaign_spread",
    "sizes",
    "kex",
    "input_pool",
    "evidence__id",
    "evidence__relative_path",
    "evidence__sha256",
)
BUILD_FIELDS = (
    "id",
    "instance_id",
    "flags",
    "kat_status",
    "elf_load_bytes",
    "kat_log_path",
    "kat_log_sha256",
    "kat_log__id",
    "kat_log__relative_path",
    "kat_log__sha256",
)
PROFILE_FIELDS = (
    "id",
    "instance_id",
    "operation",
    "input_bytes",
    "total_operations",
    "hash_share",
    "drng_share",
    "evidence__id",
    "evidence__relative_path",
    "evidence__sha256",
)


@dataclass
class CandidateData:
    """One submission on one system: its latest campaign there and every row the page shows."""

    submission: Submission
    campaign: Campaign
    campaigns: list[Campaign]  # the latest campaign with data on each system
    instances: list[Instance]  # those with a build, measurement or profile, in page order
    builds: dict[int, Build]  # instance id → build
    all_measurements: list[Measurement]  # of every campaign in `campaigns`
    measurements: list[Measurement]  # of `campaign`
    profiles: list[HashProfile]
    calls: dict[int, list[tuple[str, int]]]  # profile id → (function, calls) by name
    issues: list[KatIssue]
    external: dict[str, ExternalSize]  # instance label → catalog entry (KEM, signature)
    kex_bandwidth: dict[str, KexBandwidth]  # instance label → bandwidth (key exchange)
    row_keys: list[RowKey]  # rows of every instance, in page order
    by_key: dict[RecordKey, Measurement]
    profile_by_key: dict[RecordKey, HashProfile]

    @property
    def category(self) -> str:
        return self.submission.category

    @property
    def is_hash(self) -> bool:
        return self.category in HASH_CATEGORIES


def campaigns_with_data(submission: Submission) -> list[Campaign]:
    """The latest campaign with data for `submission` on each system (one query)."""
    has_build = Build.objects.filter(campaign=OuterRef("pk"), instance__submission=submission)
    has_measurement = Measurement.objects.filter(
        campaign=OuterRef("pk"), instance__submission=submission
    )
    campaigns = (
        Campaign.objects.filter(Q(Exists(has_build)) | Q(Exists(has_measurement)))
        .select_related("system")
        .defer("environment_at_start", "environment_at_end", "host_checks", "arch_config")
        .order_by("system__key", "-started_utc", "-id")
    )
    latest: dict[str, Campaign] = {}
    for campaign in campaigns:
        latest.setdefault(campaign.system.key, campaign)
    return list(latest.values())


def candidate_data(system_key: str, submission_key: str) -> CandidateData:
    """Every row of the page of `submission_key` on `system_key`; `Http404` for unknown keys."""
    submission = Submission.objects.filter(key=submission_key).first()
    if submission is None:
        raise Http404(f"No submission {submission_key!r}.")
    campaigns = campaigns_with_data(submission)
    campaign = next((c for c in campaigns if c.system.key == system_key), None)
    if campaign is None:
        raise Http404(f"No measurements of {submission_key} on system {system_key!r}.")
    builds = {
        b.instance_id: b
        for b in Build.objects.filter(campaign=campaign, instance__submission=submission)
        .select_related("kat_log")
        .only(*BUILD_FIELDS)
    }
    all_measurements = list(
        Measurement.objects.filter(campaign__in=campaigns, instance__submission=submission)
        .select_related("evidence")
        .only(*MEASUREMENT_FIELDS)
    )
    measurements = [m for m in all_measurements if m.campaign_id == campaign.pk]
    profiles = list(
        HashProfile.objects.filter(campaign=campaign, instance__submission=submission)
        .select_related("evidence")
        .only(*PROFILE_FIELDS)
    )
    used_ids = (
        set(builds) | {m.instance_id for m in measurements} | {p.instance_id for p in profiles}
    )
    external, kex_bandwidth = _size_catalogs(submission)
    return CandidateData(
        submission=submission,
        campaign=campaign,
        campaigns=campaigns,
        instances=_instances(submission, used_ids),
        builds=builds,
        all_measurements=all_measurements,
        measurements=measurements,
        profiles=profiles,
        calls=_profile_calls(profiles),
        issues=list(KatIssue.objects.filter(candidate=submission.key).order_by("position")),
        external=external,
        kex_bandwidth=kex_bandwidth,
        row_keys=_row_keys(submission.category, measurements, profiles),
        by_key={(m.instance_id, m.operation, m.input_bytes): m for m in measurements},
        profile_by_key={(p.instance_id, p.operation, p.input_bytes): p for p in profiles},
    )


def _profile_calls(profiles: list[HashProfile]) -> dict[int, list[tuple[str, int]]]:
    """profile id → (wrapped function, total calls) by function name; no query without profiles."""
    calls: dict[int, list[tuple[str, int]]] = defaultdict(list)
    if not profiles:
        return calls
    for row in (
        HashProfileCall.objects.filter(profile__in=[p.pk for p in profiles])
        .values("profile_id", "fn")
        .annotate(total=Sum("calls"))
        .order_by("profile_id", "fn")
    ):
        calls[row["profile_id"]].append((row["fn"], row["total"]))
    return calls


def _instances(submission: Submission, used_ids: set[int]) -> list[Instance]:
    """The submission's instances with data, in `Instance.position` order (that of build.json)."""
    return [
        i
        for i in Instance.objects.filter(submission=submission).order_by("position", "label")
        if i.pk in used_ids
    ]


def _size_catalogs(
    submission: Submission,
) -> tuple[dict[str, ExternalSize], dict[str, KexBandwidth]]:
    """The curated sizes §6 reads for the submission's category (one query, none for hashes)."""
    if submission.category == Category.KEX:
        bandwidth = KexBandwidth.objects.filter(candidate=submission.key)
        return {}, {k.instance_label: k for k in bandwidth}
    if submission.category in (Category.KEM, Category.SIGN):
        external = ExternalSize.objects.filter(candidate=submission.key)
        return {e.instance_label: e for e in external}, {}
    return {}, {}


def _row_keys(
    category: str, measurements: list[Measurement], profiles: list[HashProfile]
) -> list[RowKey]:
    """(operation, input bytes) rows: every operation the category expects (shown as `–` where
    missing) and those measured; hash rows follow the lengths actually measured."""
    keys = (
        set() if category in HASH_CATEGORIES else {(op, 0) for op in CATEGORY_OPERATIONS[category]}
    )
    keys |= {(m.operation, m.input_bytes) for m in measurements}
    keys |= {(p.operation, p.input_bytes) for p in profiles}
    return sorted(keys, key=lambda k: operation_sort_key(category, *k))
