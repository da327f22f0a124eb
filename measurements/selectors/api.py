"""Read querysets for the REST API (`measurements.api`).

Every selector returns a queryset whose related rows are joined or prefetched, so the number of
queries of an API request does not grow with its page size. Filtering by query parameters is
applied on top of these by the API's filtersets; the path's natural keys (system, submission)
are applied here.

Trials are the bulk of the database (100 000 rows and more), so `trial_list` returns plain
dictionaries (`.values()`) with the natural keys of their measurement joined in: no model
instances are built for them.
"""

from __future__ import annotations

from django.db.models import Exists, F, OuterRef, QuerySet

from measurements.models import (
    Build,
    Campaign,
    EvidenceFile,
    ExternalSize,
    HashProfile,
    Instance,
    KATResult,
    Measurement,
    SizeAudit,
    Submission,
    System,
    Trial,
)

# The columns of one trial row, in output order (natural keys first, then the raw figures).
TRIAL_FIELDS: tuple[str, ...] = (
    "id",
    "measurement",
    "system",
    "campaign",
    "submission",
    "instance",
    "operation",
    "input_bytes",
    "index",
    "process_index",
    "measurements",
    "seconds",
    "cycles",
    "counter",
    "cpu",
    "disturbed",
    "batch_calls",
    "samples",
    "created_at",
)


def system_get(*, key: str) -> System | None:
    return System.objects.filter(key=key).first()


def submission_get(*, key: str) -> Submission | None:
    return Submission.objects.filter(key=key).first()


def system_list() -> QuerySet[System]:
    return System.objects.all()


def submission_list(*, system_key: str | None = None) -> QuerySet[Submission]:
    """Submissions; with `system_key`, only those measured or built on that system."""
    qs = Submission.objects.all()
    if system_key is not None:
        measured = Measurement.objects.filter(
            instance__submission=OuterRef("pk"), campaign__system__key=system_key
        )
        built = Build.objects.filter(
            instance__submission=OuterRef("pk"), campaign__system__key=system_key
        )
        qs = qs.filter(Exists(measured) | Exists(built))
    return qs


def instance_list() -> QuerySet[Instance]:
    return Instance.objects.select_related("submission")


def campaign_list(*, system_key: str | None = None) -> QuerySet[Campaign]:
    qs = Campaign.objects.select_related("system")
    if system_key is not None:
        qs = qs.filter(system__key=system_key)
    return qs


def _scoped(qs: QuerySet, prefix: str, system_key: str | None, submission_key: str | None):
    if system_key is not None:
        qs = qs.filter(**{f"{prefix}campaign__system__key": system_key})
    if submission_key is not None:
        qs = qs.filter(**{f"{prefix}instance__submission__key": submission_key})
    return qs


def build_list(
    *, system_key: str | None = None, submission_key: str | None = None
) -> QuerySet[Build]:
    qs = Build.objects.select_related("campaign__system", "instance__submission")
    return _scoped(qs, "", system_key, submission_key)


def kat_result_list(
    *, system_key: str | None = None, submission_key: str | None = None
) -> QuerySet[KATResult]:
    qs = KATResult.objects.select_related(
        "build__campaign__system", "build__instance__submission"
    ).order_by("build__instance__submission__key", "build__instance__position", "build_id", "kind")
    return _scoped(qs, "build__", system_key, submission_key)


def measurement_list(
    *, system_key: str | None = None, submission_key: str | None = None
) -> QuerySet[Measurement]:
    qs = Measurement.objects.select_related("campaign__system", "instance__submission").order_by(
        "instance__submission__key", "instance__position", "instance__label", "operation", "id"
    )
    return _scoped(qs, "", system_key, submission_key)


def measurement_get(*, measurement_id: int) -> Measurement | None:
    return measurement_list().filter(pk=measurement_id).first()


def trial_list(*, system_key: str | None = None, submission_key: str | None = None) -> QuerySet:
    """Trials as dictionaries with the keys of `TRIAL_FIELDS`, in insertion (id) order."""
    qs = Trial.objects.annotate(
        system=F("measurement__campaign__system__key"),
        campaign=F("measurement__campaign__key"),
        submission=F("measurement__instance__submission__key"),
        instance=F("measurement__instance__label"),
        operation=F("measurement__operation"),
        input_bytes=F("measurement__input_bytes"),
    )
    qs = _scoped(qs, "measurement__", system_key, submission_key)
    return qs.values(*TRIAL_FIELDS).order_by("id")


def hash_profile_list(
    *, system_key: str | None = None, submission_key: str | None = None
) -> QuerySet[HashProfile]:
    qs = (
        HashProfile.objects.select_related("campaign__system", "instance__submission")
        .prefetch_related("calls")
        .order_by("instance__submission__key", "instance__position", "operation", "id")
    )
    return _scoped(qs, "", system_key, submission_key)


def external_size_list() -> QuerySet[ExternalSize]:
    return ExternalSize.objects.all()


def size_audit_list() -> QuerySet[SizeAudit]:
    return SizeAudit.objects.select_related("instance__submission")


def evidence_list() -> QuerySet[EvidenceFile]:
    """Evidence metadata only: the stored bytes are not loaded."""
    return (
        EvidenceFile.objects.select_related("campaign__system")
        .defer("content")
        .order_by("campaign__key", "relative_path")
    )


def evidence_content_get(*, evidence_id: int) -> EvidenceFile | None:
    """The file's facts without its bytes (streamed by `evidence_chunks`)."""
    return EvidenceFile.objects.defer("content").filter(pk=evidence_id).first()
