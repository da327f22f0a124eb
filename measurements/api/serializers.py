"""Output serializers: natural keys (system key, submission key, instance label) next to ids.

The API is read-only, so there are only output serializers; every related key they show is
joined by the selectors (`measurements.selectors.api`), never fetched per row.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from measurements import links
from measurements.formatting import format_precision
from measurements.models import (
    Build,
    Campaign,
    EvidenceFile,
    ExternalSize,
    HashProfile,
    HashProfileCall,
    Instance,
    KATResult,
    Measurement,
    SizeAudit,
    Submission,
    System,
)
from measurements.provenance import provenance
from measurements.selectors.api import TRIAL_FIELDS


class SystemSerializer(serializers.ModelSerializer):
    class Meta:
        model = System
        fields = [
            "key",
            "arch",
            "arch_label",
            "hostname",
            "machine",
            "description",
            "environment",
            "host_problems",
            "registered_at",
        ]


class SubmissionSerializer(serializers.ModelSerializer):
    function = serializers.CharField(source="function_label", read_only=True)

    class Meta:
        model = Submission
        fields = [
            "key",
            "category",
            "function",
            "algorithm",
            "niccs_url",
            "spec_url",
            "security_report_url",
            "survey_verdict",
            "survey_note",
            "revision",
            "manifest_sha256",
        ]


class InstanceSerializer(serializers.ModelSerializer):
    submission = serializers.CharField(source="submission.key", read_only=True)

    class Meta:
        model = Instance
        fields = [
            "id",
            "submission",
            "label",
            "api_instance",
            "variant",
            "security_target_bits",
            "position",
        ]


class CampaignSerializer(serializers.ModelSerializer):
    system = serializers.CharField(source="system.key", read_only=True)

    class Meta:
        model = Campaign
        fields = [
            "key",
            "system",
            "source",
            "status",
            "started_utc",
            "ended_utc",
            "planning",
            "environment",
            "primary_cpu",
            "host_problems",
            "unfixed_host",
            "history_note",
            "created_at",
        ]


class _InstanceScopedSerializer(serializers.ModelSerializer):
    """Natural keys of a row that belongs to one instance in one campaign."""

    system = serializers.CharField(source="campaign.system.key", read_only=True)
    campaign = serializers.CharField(source="campaign.key", read_only=True)
    submission = serializers.CharField(source="instance.submission.key", read_only=True)
    instance = serializers.CharField(source="instance.label", read_only=True)

    KEY_FIELDS = ["id", "system", "campaign", "submission", "instance"]


class BuildSerializer(_InstanceScopedSerializer):
    class Meta:
        model = Build
        fields = _InstanceScopedSerializer.KEY_FIELDS + [
            "flags",
            "guide_result",
            "kat_status",
            "library_path",
            "library_sha256",
            "elf_load_bytes",
            "kat_log_path",
            "kat_log_sha256",
            "kat_log",
            "compiler",
            "build_flags",
            "warnings",
            "submission_revision",
        ]


class KATResultSerializer(serializers.ModelSerializer):
    system = serializers.CharField(source="build.campaign.system.key", read_only=True)
    campaign = serializers.CharField(source="build.campaign.key", read_only=True)
    submission = serializers.CharField(source="build.instance.submission.key", read_only=True)
    instance = serializers.CharField(source="build.instance.label", read_only=True)

    class Meta:
        model = KATResult
        fields = [
            "id",
            "build",
            "system",
            "campaign",
            "submission",
            "instance",
            "kind",
            "status",
            "first_difference",
            "output_raw_sha256",
            "comparison",
            "output_canonical_sha256",
            "reference_canonical_sha256",
            "manifest_line",
            "evidence",
        ]


class MeasurementSerializer(_InstanceScopedSerializer):
    trials_url = serializers.SerializerMethodField()
    provenance = serializers.SerializerMethodField()
    target_met = serializers.BooleanField(read_only=True, allow_null=True)
    precision = serializers.SerializerMethodField()
    next_campaign_low_cycles = serializers.SerializerMethodField()
    next_campaign_high_cycles = serializers.SerializerMethodField()

    class Meta:
        model = Measurement
        fields = _InstanceScopedSerializer.KEY_FIELDS + [
            "operation",
            "input_bytes",
            "status",
            "planner",
            "provenance",
            "plan",
            "flags",
            "build_flags",
            "kat_status",
            "disturbed_retries",
            "started_utc",
            "ended_utc",
            "cpu",
            "timing_scope",
            "measurements",
            "mean_cycles",
            "mean_seconds",
            "operations_per_second",
            "median_trial_seconds",
            "median_trial_cycles",
            "min_trial_seconds",
            "max_trial_seconds",
            "throughput_mb_per_second",
            "sample_median_cycles",
            "sample_q1_cycles",
            "sample_q3_cycles",
            "sample_ci95_low_cycles",
            "sample_ci95_high_cycles",
            "precision_reached",
            "precision_target",
            "target_met",
            "target_missed_reason",
            "precision",
            "campaign_spread",
            "next_campaign_low_cycles",
            "next_campaign_high_cycles",
            "baseline_rss_bytes",
            "peak_rss_bytes",
            "stack_high_water_bytes",
            "sizes",
            "kex",
            "input_pool",
            "counter",
            "environment",
            "evidence",
            "trials_url",
        ]
        extra_kwargs = {
            "campaign_spread": {
                "help_text": "The box's campaign-to-campaign relative spread that the "
                "next-campaign interval allows for, learnt from the system's history of "
                "campaigns (docs/timing.md). Null without batch samples."
            },
            "input_pool": {
                "help_text": "Our own measurements: the operation timed over a seeded pool of "
                "inputs — pool_size, first_input, median (counter units per call), "
                "spread_relative (interquartile range of the per-input medians over their "
                "median), noise_relative, process_spread_relative, input_dependent and the "
                "per-input figures. Empty where not measured."
            },
            "kex": {
                "help_text": "Key exchange only: the run the timing driver checked before timing "
                "— passes, pk_a_bytes, pk_b_bytes, sk_bytes, sta_bytes, stb_bytes, ss_bytes, "
                "msg_capacity_bytes and messages (bytes of each pass's message). Empty for the "
                "other categories."
            },
        }

    @extend_schema_field(serializers.CharField())
    def get_provenance(self, obj: Measurement) -> str:
        """ "published page, no raw trials" for figures read back from a published page."""
        return provenance(obj.campaign)

    @extend_schema_field(serializers.CharField())
    def get_trials_url(self, obj: Measurement) -> str:
        return links.api_url_for_measurement_trials(obj.pk)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_next_campaign_low_cycles(self, obj: Measurement) -> float | None:
        """Where the next campaign's figure is expected (95 %), low end."""
        bounds = obj.next_campaign_bounds()
        return bounds[0] if bounds else None

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_next_campaign_high_cycles(self, obj: Measurement) -> float | None:
        """Where the next campaign's figure is expected (95 %), high end."""
        bounds = obj.next_campaign_bounds()
        return bounds[1] if bounds else None

    @extend_schema_field(serializers.CharField())
    def get_precision(self, obj: Measurement) -> str:
        """As the page shows it: `±14 %, target 1 % not reached: budget`."""
        return format_precision(
            obj.precision_reached, obj.precision_target, obj.target_missed_reason
        )


# CSV columns of a measurement: the scalar figures (JSON objects are left to the JSON output,
# except the plan, which says how the figures were obtained).
MEASUREMENT_CSV_COLUMNS: list[str] = [
    f
    for f in MeasurementSerializer.Meta.fields
    if f not in {"environment", "kex", "input_pool", "counter", "trials_url"}
]


class TrialSerializer(serializers.Serializer):
    """One raw trial. Rows come as dictionaries from `selectors.api.trial_list`."""

    id = serializers.IntegerField()
    measurement = serializers.IntegerField(help_text="Measurement id.")
    system = serializers.CharField()
    campaign = serializers.CharField()
    submission = serializers.CharField()
    instance = serializers.CharField()
    operation = serializers.CharField()
    input_bytes = serializers.IntegerField()
    index = serializers.IntegerField()
    process_index = serializers.IntegerField()
    measurements = serializers.IntegerField(help_text="Timed calls in this trial.")
    seconds = serializers.FloatField()
    cycles = serializers.IntegerField()
    counter = serializers.CharField()
    cpu = serializers.IntegerField(allow_null=True)
    disturbed = serializers.BooleanField()
    batch_calls = serializers.IntegerField(allow_null=True)
    samples = serializers.ListField(child=serializers.FloatField())
    created_at = serializers.DateTimeField()

    def to_representation(self, instance: dict[str, Any]) -> dict[str, Any]:
        # Rows are `.values(*TRIAL_FIELDS)` dictionaries, already of the declared types and in
        # field order: they are sent as they are, with the datetime in DRF's ISO 8601 form
        # (a fast path that skips DRF's per-field machinery; 100 000 rows must stay cheap).
        created = instance["created_at"]
        if created is not None and not isinstance(created, str):
            instance["created_at"] = _iso(created)
        return instance


def _iso(value: Any) -> str:
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


# CSV columns of a trial: every field but the per-batch samples (a list).
TRIAL_CSV_COLUMNS: list[str] = [f for f in TRIAL_FIELDS if f != "samples"]


class HashProfileCallSerializer(serializers.ModelSerializer):
    class Meta:
        model = HashProfileCall
        fields = ["position", "fn", "in_bits", "out_bits", "calls", "ticks"]


class HashProfileSerializer(_InstanceScopedSerializer):
    calls = HashProfileCallSerializer(many=True, read_only=True)

    class Meta:
        model = HashProfile
        fields = _InstanceScopedSerializer.KEY_FIELDS + [
            "operation",
            "input_bytes",
            "status",
            "tick_source",
            "tick_hz",
            "warmups",
            "total_operations",
            "total_ticks",
            "share",
            "hash_share",
            "drng_share",
            "evidence",
            "calls",
        ]


class ExternalSizeSerializer(serializers.ModelSerializer):
    submission = serializers.CharField(source="candidate", read_only=True)
    instance = serializers.CharField(source="instance_label", read_only=True)

    class Meta:
        model = ExternalSize
        fields = [
            "id",
            "submission",
            "instance",
            "public_key_bytes",
            "ciphertext_bytes",
            "signature_bytes",
            "basis",
        ]


class SizeAuditSerializer(serializers.ModelSerializer):
    submission = serializers.CharField(source="instance.submission.key", read_only=True)
    instance = serializers.CharField(source="instance.label", read_only=True)

    class Meta:
        model = SizeAudit
        fields = [
            "id",
            "submission",
            "instance",
            "field",
            "api_bytes",
            "catalog_bytes",
            "basis",
            "agrees",
        ]


class EvidenceFileSerializer(serializers.ModelSerializer):
    system = serializers.CharField(source="campaign.system.key", read_only=True)
    campaign = serializers.CharField(source="campaign.key", read_only=True)
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = EvidenceFile
        fields = [
            "id",
            "system",
            "campaign",
            "relative_path",
            "kind",
            "sha256",
            "size",
            "download_url",
        ]

    @extend_schema_field(serializers.CharField())
    def get_download_url(self, obj: EvidenceFile) -> str:
        return links.api_url_for_evidence_download(obj.pk)
