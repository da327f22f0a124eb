"""Web UI routes. Global pages first, then /performance/<system>/… (method before candidates)."""

from django.urls import path, re_path

from measurements.domain import SUBMISSION_URL_PATTERN
from measurements.views import candidate, compare, evidence, history, site, system

app_name = "measurements"

urlpatterns = [
    path("", system.performance_index, name="index"),
    path("favicon.ico", site.favicon, name="favicon"),
    path("size-audit/", system.size_audit, name="size_audit"),
    path("survey/", system.survey, name="survey"),
    path("kat/", system.kat_overview, name="kat_overview"),
    path("rankings/<slug:category>/", compare.rankings, name="rankings"),
    path("compare/", compare.compare, name="compare"),
    path("measurements/<int:measurement_id>/", compare.measurement_detail, name="measurement"),
    path("performance/<slug:system>/", system.system_summary, name="summary"),
    path("performance/<slug:system>/method/", system.system_method, name="method"),
    # Candidate pages: the submission key always has a category prefix (kem-29, sign-01, …).
    re_path(
        r"^performance/(?P<system_key>[\w.-]+)/"
        rf"(?P<submission_key>{SUBMISSION_URL_PATTERN})/$",
        candidate.candidate,
        name="candidate",
    ),
    re_path(
        r"^performance/(?P<system_key>[\w.-]+)/"
        rf"(?P<submission_key>{SUBMISSION_URL_PATTERN})/perf\.md$",
        candidate.candidate_markdown_download,
        name="candidate_markdown",
    ),
    re_path(
        rf"^candidates/(?P<submission_key>{SUBMISSION_URL_PATTERN})/$",
        compare.candidate_profile,
        name="profile",
    ),
    re_path(
        r"^performance/(?P<system_key>[\w.-]+)/"
        rf"(?P<submission_key>{SUBMISSION_URL_PATTERN})/history/$",
        history.candidate_history,
        name="candidate_history",
    ),
    path("evidence/<int:evidence_id>/", evidence.evidence_detail, name="evidence"),
    path("evidence/<int:evidence_id>/raw/", evidence.evidence_raw, name="evidence_raw"),
]
