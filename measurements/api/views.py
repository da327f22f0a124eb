"""Read-only API views: thin viewsets over `measurements.selectors.api`.

Each viewset is reachable flat (`/api/v1/measurements/?system=arm_1`) and, where it makes
sense, nested under natural keys (`/api/v1/systems/arm_1/submissions/kem-29/measurements/`).
Path keys that name no system or submission are a 404; query filters that match nothing are
an empty list.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse, StreamingHttpResponse
from django.utils.http import content_disposition_header
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import MethodNotAllowed, NotFound
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import APIRootView

from measurements.api import filters, serializers
from measurements.api.pagination import ApiPageNumberPagination, TrialCursorPagination
from measurements.api.permissions import ReadOnlyOrStaff
from measurements.api.renderers import CSVRenderer, EvidenceContentRenderer, csv_lines
from measurements.api.throttling import AnonymousClientThrottle
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
from measurements.page_cache import cache_response, cached_response, page_cache_key
from measurements.selectors import api as selectors
from measurements.selectors.evidence import content_type_for, evidence_chunks

CSV_CHUNK_ROWS = 2000


class ReadMethodsOnly:
    """GET, HEAD and OPTIONS only: any other verb is a 405 before authentication or throttling
    (DRF would check permissions first and answer 401/403 to a TRACE or PROPFIND)."""

    http_method_names = ["get", "head", "options"]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        method = request.method.lower()
        if method not in self.http_method_names or not hasattr(self, method):
            raise MethodNotAllowed(request.method)
        super().initial(request, *args, **kwargs)


class CachedAnonymousJsonReads:
    """JSON answers to anonymous reads are cached per data version (measurements.page_cache),
    looked up after authentication and throttling so that the throttle still counts them.
    A view wraps its read handlers in `_cached`."""

    _page_cache_key: str | None = None

    def _cache_key_for(self, request: Request) -> str | None:
        renderer = getattr(request, "accepted_renderer", None)
        if request.method != "GET" or request.user.is_authenticated:
            return None
        if renderer is None or renderer.format != "json":
            return None  # the browsable API embeds per-user forms and tokens
        return page_cache_key(request, variant=f"api:{request.accepted_media_type}")

    def _cached(self, handler, request: Request, *args: Any, **kwargs: Any):
        key = self._cache_key_for(request)
        if key is not None:
            hit = cached_response(key)
            if hit is not None:
                return hit
            self._page_cache_key = key
        return handler(request, *args, **kwargs)

    def finalize_response(self, request: Request, response, *args: Any, **kwargs: Any):
        response = super().finalize_response(request, response, *args, **kwargs)
        key = self._page_cache_key
        if key is not None and isinstance(response, Response):
            response.add_post_render_callback(lambda rendered: cache_response(key, rendered))
        return response


class ApiViewSet(ReadMethodsOnly, CachedAnonymousJsonReads, viewsets.ReadOnlyModelViewSet):
    """Common policy: anyone reads, anonymous clients are throttled, parameters are strict."""

    permission_classes = [ReadOnlyOrStaff]
    throttle_classes = [AnonymousClientThrottle]
    filter_backends = [
        filters.StrictQueryParamsFilter,
        DjangoFilterBackend,
        filters.StrictOrderingFilter,
    ]
    pagination_class = ApiPageNumberPagination
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer]
    lookup_value_regex = r"[0-9]{1,18}"

    def list(self, request: Request, *args: Any, **kwargs: Any):
        return self._cached(super().list, request, *args, **kwargs)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any):
        return self._cached(super().retrieve, request, *args, **kwargs)

    def path_keys(self) -> dict[str, str | None]:
        """The natural keys of a nested path, each checked to exist (404 otherwise)."""
        system_key = self.kwargs.get("system")
        submission_key = self.kwargs.get("submission")
        if system_key is not None and selectors.system_get(key=system_key) is None:
            raise NotFound(f"No system with key {system_key!r}.")
        if submission_key is not None and selectors.submission_get(key=submission_key) is None:
            raise NotFound(f"No submission with key {submission_key!r}.")
        return {"system_key": system_key, "submission_key": submission_key}


class ApiRootView(ReadMethodsOnly, APIRootView):
    """NGCC Perf API, version 1: raw trials and every figure of the pages (read-only).

    The OpenAPI schema is at `/api/schema/`, its documentation at `/api/docs/`.
    """

    permission_classes = [ReadOnlyOrStaff]
    throttle_classes = [AnonymousClientThrottle]


class CSVExportMixin:
    """`?format=csv` on a list: every matching row (no pagination), streamed in chunks."""

    csv_columns: list[str]

    def list(self, request: Request, *args: Any, **kwargs: Any):
        if getattr(request.accepted_renderer, "format", None) != "csv":
            return super().list(request, *args, **kwargs)
        queryset = self.filter_queryset(self.get_queryset())
        response = StreamingHttpResponse(
            csv_lines(self.csv_rows(queryset), self.csv_columns),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = content_disposition_header(True, f"{self.basename}.csv")
        return response

    def csv_rows(self, queryset: QuerySet) -> Iterator[dict[str, Any]]:
        serializer = self.get_serializer_class()(context=self.get_serializer_context())
        for obj in queryset.iterator(chunk_size=CSV_CHUNK_ROWS):
            yield serializer.to_representation(obj)


class SystemViewSet(ApiViewSet):
    """Target boxes, by key."""

    queryset = System.objects.all()
    serializer_class = serializers.SystemSerializer
    filterset_class = filters.SystemFilter
    ordering_fields = ["key", "arch"]
    lookup_field = "key"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"

    def get_queryset(self) -> QuerySet[System]:
        return selectors.system_list()


class SubmissionViewSet(ApiViewSet):
    """NGCC candidates, by key; nested under a system: those measured or built there."""

    queryset = Submission.objects.all()
    serializer_class = serializers.SubmissionSerializer
    filterset_class = filters.SubmissionFilter
    ordering_fields = ["key", "category", "algorithm"]
    lookup_field = "key"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"

    def get_queryset(self) -> QuerySet[Submission]:
        return selectors.submission_list(system_key=self.path_keys()["system_key"])


class InstanceViewSet(ApiViewSet):
    """Parameter sets of the submissions."""

    queryset = Instance.objects.all()
    serializer_class = serializers.InstanceSerializer
    filterset_class = filters.InstanceFilter
    ordering_fields = ["id", "label", "position"]

    def get_queryset(self) -> QuerySet[Instance]:
        return selectors.instance_list()


class CampaignViewSet(ApiViewSet):
    """Measurement campaigns, by key."""

    queryset = Campaign.objects.all()
    serializer_class = serializers.CampaignSerializer
    filterset_class = filters.CampaignFilter
    ordering_fields = ["key", "started_utc", "ended_utc", "status"]
    lookup_field = "key"
    lookup_value_regex = r"[-a-zA-Z0-9_.]+"

    def get_queryset(self) -> QuerySet[Campaign]:
        return selectors.campaign_list(system_key=self.path_keys()["system_key"])


class BuildViewSet(ApiViewSet):
    """Builds of instances, with flags, ELF image size and KAT status."""

    queryset = Build.objects.all()
    serializer_class = serializers.BuildSerializer
    filterset_class = filters.BuildFilter
    ordering_fields = ["id", "kat_status", "elf_load_bytes", "flags"]

    def get_queryset(self) -> QuerySet[Build]:
        return selectors.build_list(**self.path_keys())


class KATResultViewSet(ApiViewSet):
    """Known-answer and functional checks of the builds."""

    queryset = KATResult.objects.all()
    serializer_class = serializers.KATResultSerializer
    filterset_class = filters.KATResultFilter
    ordering_fields = ["id", "status", "kind"]

    def get_queryset(self) -> QuerySet[KATResult]:
        return selectors.kat_result_list(**self.path_keys())


class MeasurementViewSet(CSVExportMixin, ApiViewSet):
    """Timing aggregates of one operation of one instance, with plan and status.

    `?format=csv` returns every matching measurement as CSV.
    """

    queryset = Measurement.objects.all()
    serializer_class = serializers.MeasurementSerializer
    filterset_class = filters.MeasurementFilter
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    csv_columns = serializers.MEASUREMENT_CSV_COLUMNS
    ordering_fields = [
        "id",
        "operation",
        "input_bytes",
        "started_utc",
        "measurements",
        "mean_cycles",
        "mean_seconds",
        "operations_per_second",
        "median_trial_seconds",
        "peak_rss_bytes",
    ]

    def get_queryset(self) -> QuerySet[Measurement]:
        return selectors.measurement_list(**self.path_keys())


class TrialViewSet(CSVExportMixin, ApiViewSet):
    """Raw trials, one row per trial, in the order they were stored (cursor pagination).

    The mean cycles of a measurement is Σ cycles / Σ measurements over its trials.
    `?format=csv` streams every matching trial as CSV.
    """

    queryset = Trial.objects.all()
    serializer_class = serializers.TrialSerializer
    filterset_class = filters.TrialFilter
    pagination_class = TrialCursorPagination
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]
    csv_columns = serializers.TRIAL_CSV_COLUMNS
    ordering_fields = ["id"]
    ordering = ["id"]

    def get_queryset(self) -> QuerySet:
        return selectors.trial_list(**self.path_keys())

    def csv_rows(self, queryset: QuerySet) -> Iterator[dict[str, Any]]:
        return queryset.iterator(chunk_size=CSV_CHUNK_ROWS)


class HashProfileViewSet(ApiViewSet):
    """Calls into the ICCS primitives per operation, with their call rows."""

    queryset = HashProfile.objects.all()
    serializer_class = serializers.HashProfileSerializer
    filterset_class = filters.HashProfileFilter
    ordering_fields = ["id", "operation", "hash_share", "drng_share"]

    def get_queryset(self) -> QuerySet[HashProfile]:
        return selectors.hash_profile_list(**self.path_keys())


class ExternalSizeViewSet(ApiViewSet):
    """The curated external size catalog."""

    queryset = ExternalSize.objects.all()
    serializer_class = serializers.ExternalSizeSerializer
    filterset_class = filters.ExternalSizeFilter
    ordering_fields = ["id", "candidate", "instance_label"]

    def get_queryset(self) -> QuerySet[ExternalSize]:
        return selectors.external_size_list()


class SizeAuditViewSet(ApiViewSet):
    """API sizes from the timing records against the curated catalog."""

    queryset = SizeAudit.objects.all()
    serializer_class = serializers.SizeAuditSerializer
    filterset_class = filters.SizeAuditFilter
    ordering_fields = ["id", "field", "agrees"]

    def get_queryset(self) -> QuerySet[SizeAudit]:
        return selectors.size_audit_list()


class EvidenceFileViewSet(ApiViewSet):
    """Raw files behind the figures: metadata here, the stored bytes at `…/download/`."""

    queryset = EvidenceFile.objects.all()
    serializer_class = serializers.EvidenceFileSerializer
    filterset_class = filters.EvidenceFilter
    ordering_fields = ["id", "relative_path", "size", "kind"]

    def get_queryset(self) -> QuerySet[EvidenceFile]:
        return selectors.evidence_list()

    @extend_schema(
        responses={
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The stored bytes; `ETag` and `Repr-Digest` carry the sha256.",
            ),
            304: OpenApiResponse(description="Not modified (`If-None-Match` matched)."),
        },
    )
    @action(detail=True, renderer_classes=[EvidenceContentRenderer], filter_backends=[])
    def download(self, request: Request, pk: str | None = None) -> HttpResponse:
        evidence = selectors.evidence_content_get(evidence_id=int(pk))
        if evidence is None:
            raise NotFound("No such evidence file.")
        etag = f'"{evidence.sha256}"'
        digest = base64.b64encode(bytes.fromhex(evidence.sha256)).decode()
        if etag in request.headers.get("If-None-Match", ""):
            response = HttpResponse(status=304)
        else:
            response = StreamingHttpResponse(
                evidence_chunks(evidence), content_type=content_type_for(evidence.relative_path)
            )
            filename = evidence.relative_path.rsplit("/", 1)[-1]
            response["Content-Disposition"] = content_disposition_header(False, filename)
            response["Content-Length"] = str(evidence.size)
        response["ETag"] = etag
        response["Repr-Digest"] = f"sha-256=:{digest}:"
        response["Digest"] = f"sha-256={digest}"
        response["X-Content-SHA256"] = evidence.sha256
        return response


# --- Nested routes under natural keys ---------------------------------------------------------

SYSTEM_PATH = OpenApiParameter(
    "system", OpenApiTypes.STR, OpenApiParameter.PATH, description="System key, e.g. arm_1."
)
SUBMISSION_PATH = OpenApiParameter(
    "submission",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="Submission key, e.g. kem-29.",
)


def nested(viewset: type[ApiViewSet], *, submission: bool) -> type[ApiViewSet]:
    """A subclass of `viewset` documented with the natural-key path parameters it is under."""
    parameters = [SYSTEM_PATH, SUBMISSION_PATH] if submission else [SYSTEM_PATH]
    name = ("SystemSubmission" if submission else "System") + viewset.__name__
    cls = type(name, (viewset,), {"__doc__": viewset.__doc__, "__module__": __name__})
    return extend_schema_view(
        list=extend_schema(parameters=parameters),
        retrieve=extend_schema(parameters=parameters),
    )(cls)
