"""Filtersets of the API: every natural key, choices checked, malformed values rejected.

Invalid values give a 400 naming the field (django-filter's `raise_exception`); the strict
backends below also reject unknown query parameters and unknown `ordering` fields, which DRF
and django-filter would otherwise silently ignore.
"""

from __future__ import annotations

from typing import Any

import django_filters as df
from django import forms
from django.db.models import QuerySet
from rest_framework import filters as drf_filters
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.views import APIView

from measurements.models import (
    Build,
    Campaign,
    Category,
    EvidenceFile,
    ExternalSize,
    HashProfile,
    Instance,
    KATResult,
    KatStatus,
    Measurement,
    SizeAudit,
    SizeBasis,
    Submission,
    System,
    Trial,
)

# Query parameters that are not filters but are understood by every list endpoint.
STANDARD_PARAMS = frozenset({"format", "ordering", "cursor", "page", "page_size"})
MAX_BIGINT = 2**63 - 1


class SafeDateTimeField(forms.DateTimeField):
    """An ISO 8601 date/time; dates out of the representable range are a validation error."""

    def to_python(self, value: Any):
        try:
            return super().to_python(value)
        except (OverflowError, ValueError) as exc:
            raise forms.ValidationError("Enter a valid date/time.", code="invalid") from exc

    def clean(self, value: Any):
        try:
            return super().clean(value)
        except (OverflowError, ValueError) as exc:
            raise forms.ValidationError("Enter a valid date/time.", code="invalid") from exc


class DateTimeFilter(df.IsoDateTimeFilter):
    field_class = SafeDateTimeField


class StrictBooleanField(forms.ChoiceField):
    """``true``/``false`` (or ``1``/``0``); anything else is a validation error, not ignored."""

    VALUES = {"true": True, "1": True, "false": False, "0": False}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["choices"] = [(v, v) for v in self.VALUES]
        super().__init__(*args, **kwargs)

    def clean(self, value: Any) -> bool | None:
        value = super().clean(value.lower() if isinstance(value, str) else value)
        return self.VALUES.get(value) if value not in (None, "") else None


class BoolFilter(df.BooleanFilter):
    field_class = StrictBooleanField


class IntFilter(df.NumberFilter):
    """A non-negative integer that fits a database big integer (no overflow errors)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_BIGINT)
        super().__init__(*args, **kwargs)


def _key(field_name: str, help_text: str) -> df.CharFilter:
    return df.CharFilter(field_name=field_name, help_text=help_text)


def _category(field_name: str) -> df.ChoiceFilter:
    return df.ChoiceFilter(
        field_name=field_name, choices=Category.choices, help_text="Category (kem, sign, …)."
    )


def _kat_status(field_name: str) -> df.ChoiceFilter:
    return df.ChoiceFilter(
        field_name=field_name, choices=KatStatus.choices, help_text="KAT status (PASS, …)."
    )


SYSTEM_HELP = "System key, e.g. arm_1."
SUBMISSION_HELP = "Submission key, e.g. kem-29."
INSTANCE_HELP = "Instance (parameter set) label, e.g. PolarKEM-128."
CAMPAIGN_HELP = "Campaign key."
VERDICT_HELP = "Survey verdict of the submission."


class SystemFilter(df.FilterSet):
    system = _key("key", SYSTEM_HELP)
    arch = df.CharFilter(help_text="Architecture, e.g. aarch64.")

    class Meta:
        model = System
        fields: list[str] = []


class SubmissionFilter(df.FilterSet):
    submission = _key("key", SUBMISSION_HELP)
    category = _category("category")
    verdict = _key("survey_verdict", VERDICT_HELP)

    class Meta:
        model = Submission
        fields: list[str] = []


class InstanceFilter(df.FilterSet):
    submission = _key("submission__key", SUBMISSION_HELP)
    category = _category("submission__category")
    instance = _key("label", INSTANCE_HELP)
    verdict = _key("submission__survey_verdict", VERDICT_HELP)
    variant = df.CharFilter()

    class Meta:
        model = Instance
        fields: list[str] = []


class CampaignFilter(df.FilterSet):
    system = _key("system__key", SYSTEM_HELP)
    campaign = _key("key", CAMPAIGN_HELP)
    status = df.ChoiceFilter(choices=Campaign.Status.choices)
    source = df.CharFilter()
    started_after = DateTimeFilter(field_name="started_utc", lookup_expr="gte")
    started_before = DateTimeFilter(field_name="started_utc", lookup_expr="lt")

    class Meta:
        model = Campaign
        fields: list[str] = []


class _InstanceScopedFilter(df.FilterSet):
    """Natural keys shared by the rows that belong to one instance in one campaign."""

    system = _key("campaign__system__key", SYSTEM_HELP)
    campaign = _key("campaign__key", CAMPAIGN_HELP)
    submission = _key("instance__submission__key", SUBMISSION_HELP)
    category = _category("instance__submission__category")
    instance = _key("instance__label", INSTANCE_HELP)
    verdict = _key("instance__submission__survey_verdict", VERDICT_HELP)


class BuildFilter(_InstanceScopedFilter):
    kat_status = _kat_status("kat_status")
    flags = df.CharFilter()

    class Meta:
        model = Build
        fields: list[str] = []


class KATResultFilter(df.FilterSet):
    system = _key("build__campaign__system__key", SYSTEM_HELP)
    campaign = _key("build__campaign__key", CAMPAIGN_HELP)
    submission = _key("build__instance__submission__key", SUBMISSION_HELP)
    category = _category("build__instance__submission__category")
    instance = _key("build__instance__label", INSTANCE_HELP)
    verdict = _key("build__instance__submission__survey_verdict", VERDICT_HELP)
    kat_status = _kat_status("status")
    kind = df.CharFilter(help_text="official or functional.")

    class Meta:
        model = KATResult
        fields: list[str] = []


class MeasurementFilter(_InstanceScopedFilter):
    operation = df.CharFilter(help_text="Operation, e.g. keygen, enc, dec, sign, verify.")
    input_bytes = IntFilter()
    kat_status = _kat_status("kat_status")
    status = df.CharFilter(help_text="Record status, e.g. complete.")
    flags = df.CharFilter()
    started_after = DateTimeFilter(field_name="started_utc", lookup_expr="gte")
    started_before = DateTimeFilter(field_name="started_utc", lookup_expr="lt")

    class Meta:
        model = Measurement
        fields: list[str] = []


class TrialFilter(df.FilterSet):
    measurement = IntFilter(field_name="measurement_id", help_text="Measurement id.")
    system = _key("measurement__campaign__system__key", SYSTEM_HELP)
    campaign = _key("measurement__campaign__key", CAMPAIGN_HELP)
    submission = _key("measurement__instance__submission__key", SUBMISSION_HELP)
    category = _category("measurement__instance__submission__category")
    instance = _key("measurement__instance__label", INSTANCE_HELP)
    verdict = _key("measurement__instance__submission__survey_verdict", VERDICT_HELP)
    operation = df.CharFilter(field_name="measurement__operation")
    input_bytes = IntFilter(field_name="measurement__input_bytes")
    kat_status = _kat_status("measurement__kat_status")
    disturbed = BoolFilter()
    started_after = DateTimeFilter(field_name="measurement__started_utc", lookup_expr="gte")
    started_before = DateTimeFilter(field_name="measurement__started_utc", lookup_expr="lt")

    class Meta:
        model = Trial
        fields: list[str] = []


class HashProfileFilter(_InstanceScopedFilter):
    operation = df.CharFilter()
    input_bytes = IntFilter()

    class Meta:
        model = HashProfile
        fields: list[str] = []


class ExternalSizeFilter(df.FilterSet):
    submission = _key("candidate", SUBMISSION_HELP)
    instance = _key("instance_label", INSTANCE_HELP)
    basis = df.ChoiceFilter(choices=SizeBasis.choices)

    class Meta:
        model = ExternalSize
        fields: list[str] = []


class SizeAuditFilter(df.FilterSet):
    submission = _key("instance__submission__key", SUBMISSION_HELP)
    category = _category("instance__submission__category")
    instance = _key("instance__label", INSTANCE_HELP)
    verdict = _key("instance__submission__survey_verdict", VERDICT_HELP)
    field = df.ChoiceFilter(
        choices=[(f, f) for f in ("public_key", "ciphertext", "signature")],
        help_text="public_key, ciphertext or signature.",
    )
    agrees = BoolFilter()

    class Meta:
        model = SizeAudit
        fields: list[str] = []


class EvidenceFilter(df.FilterSet):
    system = _key("campaign__system__key", SYSTEM_HELP)
    campaign = _key("campaign__key", CAMPAIGN_HELP)
    kind = df.ChoiceFilter(choices=EvidenceFile.Kind.choices)
    path = df.CharFilter(field_name="relative_path", help_text="Path inside the dataset.")
    sha256 = df.CharFilter()

    class Meta:
        model = EvidenceFile
        fields: list[str] = []


class StrictQueryParamsFilter(drf_filters.BaseFilterBackend):
    """Reject query parameters that no filter, ordering or pagination understands (400)."""

    def filter_queryset(self, request: Request, queryset: QuerySet, view: APIView) -> QuerySet:
        allowed = set(STANDARD_PARAMS)
        filterset_class = getattr(view, "filterset_class", None)
        if filterset_class is not None:
            allowed |= set(filterset_class.base_filters)
        unknown = sorted(set(request.query_params) - allowed)
        if unknown:
            raise ValidationError(
                {
                    name: [f"Unknown query parameter; allowed: {', '.join(sorted(allowed))}."]
                    for name in unknown
                }
            )
        return queryset


class StrictOrderingFilter(drf_filters.OrderingFilter):
    """`ordering` with a field outside `ordering_fields` is a 400, not silently ignored."""

    def get_ordering(self, request: Request, queryset: QuerySet, view: APIView):
        params = request.query_params.get(self.ordering_param)
        if params:
            fields = [param.strip() for param in params.split(",")]
            valid = {
                name for name, _label in self.get_valid_fields(queryset, view, {"request": request})
            }
            bad = [f for f in fields if f.lstrip("-") not in valid]
            if bad:
                raise ValidationError(
                    {
                        self.ordering_param: [
                            f"Unknown ordering field {', '.join(bad)}; "
                            f"allowed: {', '.join(sorted(valid))}."
                        ]
                    }
                )
        return super().get_ordering(request, queryset, view)
