"""The measurement database of NGCC Perf.

Models hold data and invariants only; writes go through `measurements.services`, reads through
`measurements.selectors`. Natural keys (system key, submission key, instance label, operation,
input bytes) are unique so that imports and re-runs are idempotent.

Aggregates on `Measurement` are stored for fast pages but are always recomputable from its
`Trial` rows (`measurements.stats.aggregates_from_trials`); trials are never overwritten.
"""

from __future__ import annotations

import secrets

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from simple_history.models import HistoricalRecords

from measurements import domain
from measurements.domain import CATEGORIES
from measurements.label_patterns import label_pattern_problem
from measurements.uncertainty import next_campaign_bounds

#: The order categories were first stored in; categories added to the registry later follow.
_CHOICE_ORDER = ("kem", "sign", "kex", "hash", "iccs")
#: Model choices built from the domain registry (`measurements.domain`).
Category = models.TextChoices(
    "Category",
    [
        (key.upper(), (key, CATEGORIES[key].label))
        for key in (*_CHOICE_ORDER, *(k for k in CATEGORIES if k not in _CHOICE_ORDER))
    ],
)


def category_choices() -> list[tuple[str, str]]:
    """The category field's choices, read when used: a new category needs no migration."""
    return Category.choices


KatStatus = models.TextChoices("KatStatus", [(s.name, s.value) for s in domain.KatStatus])


class System(models.Model):
    """A target box, e.g. ``x86_1`` or ``arm_1``."""

    key = models.SlugField(max_length=64, unique=True)
    arch = models.CharField(max_length=32, blank=True)
    hostname = models.CharField(max_length=128, blank=True)
    description = models.TextField(blank=True)
    machine = models.CharField(max_length=200, blank=True)
    # Environment and host checks captured by `system_register` on the box itself.
    environment = models.JSONField(default=dict, blank=True)
    host_problems = models.JSONField(default=list, blank=True)
    allow_unfixed_host = models.BooleanField(default=False)
    # Why bubblewrap cannot confine candidate code here ("" = it can), and whether the
    # operator allowed campaigns anyway (`system_register --allow-unsandboxed`).
    sandbox_refused = models.TextField(blank=True)
    allow_unsandboxed = models.BooleanField(default=False)
    registered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key

    @property
    def arch_label(self) -> str:
        return {"x86_64": "x86-64", "aarch64": "AArch64"}.get(self.arch, self.arch or "unknown")


class Submission(models.Model):
    """An NGCC candidate such as ``kem-29``."""

    key = models.SlugField(max_length=64, unique=True)
    category = models.CharField(max_length=8, choices=category_choices)
    algorithm = models.CharField(max_length=300, blank=True)
    niccs_url = models.URLField(max_length=500, blank=True)
    spec_url = models.URLField(max_length=500, blank=True)
    security_report_url = models.URLField(max_length=500, blank=True)
    survey_verdict = models.CharField(max_length=100, blank=True)
    survey_note = models.TextField(blank=True)
    # Bumped by `submission_add` when a manifest changes; measured builds keep their revision.
    revision = models.PositiveIntegerField(default=1)
    manifest_sha256 = models.CharField(max_length=64, blank=True)
    manifest = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key

    @property
    def function_label(self) -> str:
        return Category(self.category).label if self.category else ""


class Instance(models.Model):
    """A parameter set of a submission, identified by its harness label."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="instances")
    label = models.CharField(max_length=200)
    api_instance = models.CharField(max_length=200, blank=True)
    variant = models.CharField(max_length=64, default="reference")
    security_target_bits = models.PositiveIntegerField(null=True, blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["submission__key", "position", "label"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "label"], name="uniq_instance_label")
        ]

    def __str__(self) -> str:
        return f"{self.submission.key}/{self.label}"


class Campaign(models.Model):
    """One measurement campaign on one system (imported or run by the runner)."""

    class Status(models.TextChoices):
        PLANNED = "planned"
        RUNNING = "running"
        PAUSED = "paused"
        COMPLETE = "complete"
        FAILED = "failed"
        IMPORTED = "imported"

    system = models.ForeignKey(System, on_delete=models.PROTECT, related_name="campaigns")
    key = models.CharField(max_length=100, unique=True)
    source = models.CharField(max_length=16, default="imported")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PLANNED)
    started_utc = models.DateTimeField(null=True, blank=True)
    ended_utc = models.DateTimeField(null=True, blank=True)
    planning = models.JSONField(default=dict, blank=True)
    arch_config = models.JSONField(default=dict, blank=True)
    harness_additions = models.TextField(blank=True)
    environment_at_start = models.JSONField(default=dict, blank=True)
    environment_at_end = models.JSONField(default=dict, blank=True)
    # The environment the pages show (§2): that of the first complete record on the primary core.
    environment = models.JSONField(default=dict, blank=True)
    primary_cpu = models.IntegerField(null=True, blank=True)
    host_checks = models.JSONField(default=list, blank=True)
    host_problems = models.JSONField(default=list, blank=True)
    unfixed_host = models.BooleanField(default=False)
    history_note = models.TextField(blank=True)
    settings = models.JSONField(default=dict, blank=True)
    counter = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["system__key", "-started_utc"]

    def __str__(self) -> str:
        return self.key


class EvidenceFile(models.Model):
    """A raw file behind a figure, stored byte-exact so any web server can serve it."""

    class Kind(models.TextChoices):
        CAMPAIGN = "campaign"
        BUILD = "build"
        RECORD = "record"
        PROFILE = "profile"
        KAT_LOG = "kat_log"
        BUILD_LOG = "build_log"
        DRIVER_OUTPUT = "driver_output"
        OTHER = "other"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="evidence")
    relative_path = models.CharField(max_length=400)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    content = models.BinaryField()

    class Meta:
        ordering = ["campaign", "relative_path"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "relative_path"], name="uniq_evidence_path")
        ]

    def __str__(self) -> str:
        return self.relative_path

    @property
    def is_json(self) -> bool:
        return self.relative_path.endswith(".json")


class Build(models.Model):
    """One instance built in one campaign."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="builds")
    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="builds")
    flags = models.CharField(max_length=32, blank=True)
    guide_result = models.CharField(max_length=16, blank=True)
    library_path = models.CharField(max_length=400, blank=True)
    library_sha256 = models.CharField(max_length=64, blank=True)
    elf_load_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    kat_status = models.CharField(max_length=16, choices=KatStatus.choices, blank=True)
    kat_log_path = models.CharField(max_length=400, blank=True)
    kat_log_sha256 = models.CharField(max_length=64, blank=True)
    kat_log = models.ForeignKey(
        EvidenceFile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    compiler = models.CharField(max_length=200, blank=True)
    build_flags = models.TextField(blank=True)
    commands = models.JSONField(default=list, blank=True)
    sources = models.JSONField(default=list, blank=True)
    warnings = models.TextField(blank=True)
    log = models.TextField(blank=True)
    submission_revision = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ["instance__submission__key", "instance__position", "instance__label"]
        constraints = [models.UniqueConstraint(fields=["campaign", "instance"], name="uniq_build")]

    def __str__(self) -> str:
        return f"{self.campaign.key}:{self.instance}"


class KATResult(models.Model):
    """The outcome of one known-answer or functional check of a build."""

    build = models.ForeignKey(Build, on_delete=models.CASCADE, related_name="kat_results")
    kind = models.CharField(max_length=16, default="official")  # official | functional
    status = models.CharField(max_length=16, choices=KatStatus.choices)
    first_difference = models.TextField(blank=True)
    # The output file's bytes as the driver wrote them (what the evidence download gives).
    output_raw_sha256 = models.CharField(max_length=64, blank=True)
    # How the status was decided: both texts reduced to canonical form ("strict", "nolen" or
    # "nolen:N", docs/harness.md) and their SHA-256 compared; on PASS the two digests are equal.
    comparison = models.CharField(max_length=16, blank=True)
    output_canonical_sha256 = models.CharField(max_length=64, blank=True)
    reference_canonical_sha256 = models.CharField(max_length=64, blank=True)
    manifest_line = models.CharField(max_length=400, blank=True)
    log = models.TextField(blank=True)
    evidence = models.ForeignKey(
        EvidenceFile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["build", "kind"], name="uniq_kat_kind")]


class Measurement(models.Model):
    """Timing of one operation of one instance in one campaign (one harness record)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="measurements")
    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="measurements")
    operation = models.CharField(max_length=32)
    input_bytes = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=16, default="complete")
    schema = models.PositiveIntegerField(default=2)
    planner = models.CharField(max_length=16, default="guide")
    plan = models.JSONField(default=dict, blank=True)
    flags = models.CharField(max_length=32, blank=True)
    build_flags = models.TextField(blank=True)
    kat_status = models.CharField(max_length=16, blank=True)
    disturbed_retries = models.PositiveIntegerField(default=0)
    started_utc = models.DateTimeField(null=True, blank=True)
    ended_utc = models.DateTimeField(null=True, blank=True)
    cpu = models.IntegerField(null=True, blank=True)
    environment = models.JSONField(default=dict, blank=True)
    timing_scope = models.CharField(max_length=16, blank=True)
    # Aggregates (recomputable from trials).
    measurements = models.PositiveBigIntegerField(default=0)
    mean_cycles = models.FloatField(null=True, blank=True)
    mean_seconds = models.FloatField(null=True, blank=True)
    operations_per_second = models.FloatField(null=True, blank=True)
    median_trial_seconds = models.FloatField(null=True, blank=True)
    median_trial_cycles = models.FloatField(null=True, blank=True)
    min_trial_seconds = models.FloatField(null=True, blank=True)
    max_trial_seconds = models.FloatField(null=True, blank=True)
    throughput_mb_per_second = models.FloatField(null=True, blank=True)
    # Sample statistics over per-batch cycles per call (our own driver only).
    sample_median_cycles = models.FloatField(null=True, blank=True)
    sample_q1_cycles = models.FloatField(null=True, blank=True)
    sample_q3_cycles = models.FloatField(null=True, blank=True)
    sample_ci95_low_cycles = models.FloatField(null=True, blank=True)
    sample_ci95_high_cycles = models.FloatField(null=True, blank=True)
    # Precision (measurements.precision): the CI half-width relative to the median, the campaign's
    # target, and why the target was missed ("" when met or without a target).
    precision_reached = models.FloatField(null=True, blank=True)
    precision_target = models.FloatField(null=True, blank=True)
    target_missed_reason = models.CharField(max_length=40, blank=True)
    # The box's campaign-to-campaign relative spread this figure's interval allows for
    # (measurements.uncertainty.CampaignSpread.allowance; None for records without samples).
    campaign_spread = models.FloatField(null=True, blank=True)
    # Memory and sizes.
    baseline_rss_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    peak_rss_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    stack_high_water_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    sizes = models.JSONField(default=dict, blank=True)
    kex = models.JSONField(default=dict, blank=True)
    # Timing over a seeded pool of inputs (our own driver only): runner.harness.input_pool.
    input_pool = models.JSONField(default=dict, blank=True)
    counter = models.JSONField(default=dict, blank=True)
    evidence = models.ForeignKey(
        EvidenceFile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["instance__submission__key", "instance__position", "instance__label"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "instance", "operation", "input_bytes"],
                name="uniq_measurement",
            )
        ]

    def __str__(self) -> str:
        return f"{self.instance} {self.operation}"

    def next_campaign_bounds(self) -> tuple[float, float] | None:
        """Where the next campaign's figure is expected (95 %): the stored interval widened by
        √2 and by the box's campaign-level spread (`measurements.uncertainty.next_campaign_half`);
        None without a stored interval. The low end is never below 0."""
        median, low, high = (
            self.sample_median_cycles,
            self.sample_ci95_low_cycles,
            self.sample_ci95_high_cycles,
        )
        if median is None or low is None or high is None:
            return None
        low, high = next_campaign_bounds(median, low, high, self.campaign_spread or 0.0)
        return max(low, 0.0), high

    @property
    def target_met(self) -> bool | None:
        """Whether the precision target was reached (None: no target or no precision)."""
        if self.precision_target is None or self.status != "complete":
            return None
        return not self.target_missed_reason


class Trial(models.Model):
    """One timed trial: never overwritten once stored."""

    measurement = models.ForeignKey(Measurement, on_delete=models.CASCADE, related_name="trials")
    index = models.PositiveIntegerField()
    process_index = models.PositiveIntegerField(default=0)
    measurements = models.PositiveBigIntegerField(validators=[MinValueValidator(1)])
    seconds = models.FloatField(validators=[MinValueValidator(0.0)])
    cycles = models.PositiveBigIntegerField()
    counter = models.CharField(max_length=32, blank=True)
    cpu = models.IntegerField(null=True, blank=True)
    disturbed = models.BooleanField(default=False)
    samples = models.JSONField(default=list, blank=True)
    batch_calls = models.PositiveIntegerField(null=True, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["measurement_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["measurement", "index"], name="uniq_trial_index")
        ]
        # The API pages a measurement's trials by a cursor over id.
        indexes = [models.Index(fields=["measurement", "id"], name="trial_measurement_id")]

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ValidationError("trials are never overwritten")
        super().save(*args, **kwargs)


class HashProfile(models.Model):
    """Calls into the ICCS primitives for one operation of one instance (link-time wrappers)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="profiles")
    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="profiles")
    operation = models.CharField(max_length=32)
    input_bytes = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=16, default="complete")
    tick_source = models.CharField(max_length=32, blank=True)
    tick_hz = models.FloatField(null=True, blank=True)
    warmups = models.PositiveIntegerField(null=True, blank=True)
    total_operations = models.PositiveBigIntegerField(default=0)
    total_ticks = models.PositiveBigIntegerField(default=0)
    share = models.JSONField(default=dict, blank=True)
    hash_share = models.FloatField(null=True, blank=True)
    drng_share = models.FloatField(null=True, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    evidence = models.ForeignKey(
        EvidenceFile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "instance", "operation", "input_bytes"],
                name="uniq_profile",
            )
        ]


class HashProfileCall(models.Model):
    """Calls of one shape: (function, input bits, output bits)."""

    profile = models.ForeignKey(HashProfile, on_delete=models.CASCADE, related_name="calls")
    position = models.PositiveIntegerField(default=0)
    fn = models.CharField(max_length=32)
    in_bits = models.PositiveBigIntegerField()
    out_bits = models.PositiveBigIntegerField()
    calls = models.PositiveBigIntegerField()
    ticks = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["profile_id", "position"]


# --- Curated catalogs -------------------------------------------------------------------------


class SizeBasis(models.TextChoices):
    ENCODED = "encoded"
    MAXIMUM_VARIABLE = "maximum-variable"
    NOMINAL_VARIABLE = "nominal-variable"


#: Largest size the curated catalog accepts (4 GiB; the CSV import checks the same bound).
MAX_CATALOG_SIZE_BYTES = 2**32


def validate_single_line(value: str) -> None:
    """Refuse control characters (a newline would break the catalog's CSV export)."""
    for char in value:
        if ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0:
            raise ValidationError(
                f"contains the control character U+{ord(char):04X}", code="control_character"
            )


class ExternalSize(models.Model):
    """Curated external public-key / ciphertext / signature sizes (``external_sizes.csv``)."""

    candidate = models.CharField(max_length=64, validators=[validate_single_line])
    instance_label = models.CharField(max_length=200, validators=[validate_single_line])
    public_key_bytes = models.PositiveBigIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(MAX_CATALOG_SIZE_BYTES)]
    )
    ciphertext_bytes = models.PositiveBigIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(MAX_CATALOG_SIZE_BYTES)]
    )
    signature_bytes = models.PositiveBigIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(MAX_CATALOG_SIZE_BYTES)]
    )
    basis = models.CharField(max_length=20, choices=SizeBasis.choices)

    # Who changed what and when, with the values before and after (undo in the admin).
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "instance_label"]
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "instance_label"], name="uniq_external_size"
            )
        ]

    def __str__(self) -> str:
        return f"{self.candidate}/{self.instance_label}"


def validate_label_pattern(value: str) -> None:
    """Refuse a label pattern RE2 cannot compile (shown on the admin form, checked on import)."""
    problem = label_pattern_problem(value)
    if problem:
        raise ValidationError(f"{value!r}: {problem}", code="invalid_pattern")


class KatIssue(models.Model):
    """Why an instance's KAT is not reproduced and what is done about it (``kat_issues.csv``)."""

    class Action(models.TextChoices):
        MEASURE = "measure"
        EXCLUDE = "exclude"

    candidate = models.CharField(max_length=64)
    label_regex = models.CharField(max_length=300, validators=[validate_label_pattern])
    action = models.CharField(max_length=16, choices=Action.choices)
    cause = models.TextField()
    position = models.PositiveIntegerField(default=0)

    # Who changed what and when, with the values before and after (undo in the admin).
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "position"]
        constraints = [
            models.UniqueConstraint(fields=["candidate", "label_regex"], name="uniq_kat_issue")
        ]


class KexBandwidth(models.Model):
    """Protocol accounting of a key-exchange instance (``kex_bandwidth.csv``)."""

    candidate = models.CharField(max_length=64)
    instance_label = models.CharField(max_length=200)
    pk_a_bytes = models.PositiveBigIntegerField()
    pk_b_bytes = models.PositiveBigIntegerField()
    protocol_message_bytes = models.PositiveBigIntegerField()

    # Who changed what and when, with the values before and after (undo in the admin).
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "instance_label"]
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "instance_label"], name="uniq_kex_bandwidth"
            )
        ]

    @property
    def total_bytes(self) -> int:
        return self.pk_a_bytes + self.pk_b_bytes + self.protocol_message_bytes


class SecurityTarget(models.Model):
    """Claimed security target of an instance (``security_targets.csv``)."""

    candidate = models.CharField(max_length=64)
    instance_label = models.CharField(max_length=200)
    target_bits = models.PositiveIntegerField(null=True, blank=True)

    # Who changed what and when, with the values before and after (undo in the admin).
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "instance_label"]
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "instance_label"], name="uniq_security_target"
            )
        ]


class SummaryNote(models.Model):
    """Interpretation note for the per-system summary (``summary_notes.csv``)."""

    candidate = models.CharField(max_length=64)
    label_regex = models.CharField(max_length=300, validators=[validate_label_pattern])
    note = models.TextField()
    position = models.PositiveIntegerField(default=0)

    # Who changed what and when, with the values before and after (undo in the admin).
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "position"]
        constraints = [
            models.UniqueConstraint(fields=["candidate", "label_regex"], name="uniq_summary_note")
        ]


class SizeAudit(models.Model):
    """API size vs curated catalog size for one instance and field (derived, recomputed)."""

    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="size_audits")
    field = models.CharField(max_length=16)  # public_key | ciphertext | signature
    api_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    catalog_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    basis = models.CharField(max_length=20, blank=True)
    agrees = models.BooleanField(default=False)

    class Meta:
        ordering = ["instance__submission__key", "instance__position", "instance__label", "field"]
        constraints = [
            models.UniqueConstraint(fields=["instance", "field"], name="uniq_size_audit")
        ]


def _new_token() -> str:
    return secrets.token_hex(16)


class DataVersion(models.Model):
    """One counter bumped by every change to the published data (imports, campaigns, catalogs).

    Rendered pages are cached under the current number (see `measurements.page_cache`), so a
    change makes every cached page stale at once without having to find them.
    """

    number = models.PositiveBigIntegerField(default=0)
    #: New with every bump (and when the row is recreated after a flush): cached pages of an
    #: earlier or rolled-back database state can never be taken for current ones.
    token = models.CharField(max_length=32, default=_new_token, editable=False)

    def __str__(self) -> str:
        return f"data version {self.number} ({self.token})"
