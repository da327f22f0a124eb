"""URLs of the API, included under `api/` with namespace ``api``.

- `/api/v1/…`: the read-only resources, flat and nested under natural keys
- `/api/schema/`: the OpenAPI 3 schema (`?format=json` for JSON)
- `/api/docs/`: Swagger UI (served locally, no CDN), `/api/redoc/`: ReDoc
"""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from measurements.api import views
from measurements.api.history import CandidateHistoryView
from measurements.api.rankings import RankingsView
from measurements.api.schema import ReadableSchemaView

app_name = "api"

SYSTEM = r"systems/(?P<system>[-a-zA-Z0-9_]+)"
SUBMISSION = SYSTEM + r"/submissions/(?P<submission>[-a-zA-Z0-9_]+)"

router = DefaultRouter()
router.include_format_suffixes = False
router.APIRootView = views.ApiRootView
router.register("systems", views.SystemViewSet, basename="system")
router.register("submissions", views.SubmissionViewSet, basename="submission")
router.register("instances", views.InstanceViewSet, basename="instance")
router.register("campaigns", views.CampaignViewSet, basename="campaign")
router.register("builds", views.BuildViewSet, basename="build")
router.register("kat-results", views.KATResultViewSet, basename="kat-result")
router.register("measurements", views.MeasurementViewSet, basename="measurement")
router.register("trials", views.TrialViewSet, basename="trial")
router.register("profiles", views.HashProfileViewSet, basename="profile")
router.register("external-sizes", views.ExternalSizeViewSet, basename="external-size")
router.register("size-audit", views.SizeAuditViewSet, basename="size-audit")
router.register("evidence", views.EvidenceFileViewSet, basename="evidence")

# /api/v1/systems/<system>/…: what was built and measured on one system.
for prefix, viewset, basename in (
    ("submissions", views.SubmissionViewSet, "system-submission"),
    ("campaigns", views.CampaignViewSet, "system-campaign"),
    ("builds", views.BuildViewSet, "system-build"),
    ("kat-results", views.KATResultViewSet, "system-kat-result"),
    ("measurements", views.MeasurementViewSet, "system-measurement"),
    ("trials", views.TrialViewSet, "system-trial"),
    ("profiles", views.HashProfileViewSet, "system-profile"),
):
    router.register(f"{SYSTEM}/{prefix}", views.nested(viewset, submission=False), basename)

# /api/v1/systems/<system>/submissions/<submission>/…: one candidate page's data.
for prefix, viewset, basename in (
    ("builds", views.BuildViewSet, "system-submission-build"),
    ("kat-results", views.KATResultViewSet, "system-submission-kat-result"),
    ("measurements", views.MeasurementViewSet, "system-submission-measurement"),
    ("trials", views.TrialViewSet, "system-submission-trial"),
    ("profiles", views.HashProfileViewSet, "system-submission-profile"),
):
    router.register(f"{SUBMISSION}/{prefix}", views.nested(viewset, submission=True), basename)

urlpatterns = [
    path("v1/rankings/<slug:category>/", RankingsView.as_view(), name="rankings"),
    re_path(rf"^v1/{SUBMISSION}/history/$", CandidateHistoryView.as_view(), name="history"),
    path("v1/", include(router.urls)),
    path("schema/", ReadableSchemaView.as_view(), name="schema"),
    # The documentation pages come from drf-spectacular's templates, which carry an inline
    # <style> (and, for ReDoc, an inline <script>): the site's policy is relaxed for them only.
    # Swagger's own script is served from a URL (the "split" view), not inline.
    path(
        "docs/",
        csp_update({"style-src": [UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api:schema")
        ),
        name="docs",
    ),
    path(
        "redoc/",
        csp_update({"style-src": [UNSAFE_INLINE], "script-src": [UNSAFE_INLINE]})(
            SpectacularRedocView.as_view(url_name="api:schema")
        ),
        name="redoc",
    ),
]
