"""Every URL the pages and the API link to, reversed from the routes: the one place that knows them.

There are no fallbacks: a missing or renamed route raises `NoReverseMatch` where the link is
built, so a broken route fails a test instead of rendering a hard-coded path. Every function
returns a site-relative URL.

- Web pages (`measurements.urls`, namespace ``measurements``; campaign pages in ``runner``).
- The API query behind each page (`measurements.api.urls`, namespace ``api``), for the pages'
  "data as JSON/CSV" links, filtered by the same natural keys. Append ``format=csv`` with
  `with_format` where the endpoint offers CSV (measurements, trials).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from urllib.parse import urlencode

from django.urls import reverse

# --- Web pages ----------------------------------------------------------------------------------


def index_url() -> str:
    """The performance index (systems and submissions)."""
    return reverse("measurements:index")


def summary_url(system_key: str) -> str:
    """The per-system summary."""
    return reverse("measurements:summary", kwargs={"system": system_key})


def method_url(system_key: str) -> str:
    """The method and limitations page of a system."""
    return reverse("measurements:method", kwargs={"system": system_key})


def candidate_url(system_key: str, submission_key: str) -> str:
    """The performance page of a submission on a system."""
    return reverse(
        "measurements:candidate",
        kwargs={"system_key": system_key, "submission_key": submission_key},
    )


def candidate_markdown_url(system_key: str, submission_key: str) -> str:
    """The same candidate page in the published Markdown format."""
    return reverse(
        "measurements:candidate_markdown",
        kwargs={"system_key": system_key, "submission_key": submission_key},
    )


@functools.cache
def _measurement_url_pattern() -> str:
    # Reversed once: a summary links thousands of figures, and `reverse` per figure costs.
    marker = 987654321
    url = reverse("measurements:measurement", kwargs={"measurement_id": marker})
    return url.replace(str(marker), "{}")


def measurement_url(measurement_id: int) -> str:
    """A measurement's detail page: plan, counter, every trial, distribution."""
    return _measurement_url_pattern().format(int(measurement_id))


def candidate_history_url(system_key: str, submission_key: str) -> str:
    """Every campaign's figures of a candidate on a system, with regression flags."""
    return reverse(
        "measurements:candidate_history",
        kwargs={"system_key": system_key, "submission_key": submission_key},
    )


def evidence_url(evidence_id: int) -> str:
    """The readable view of one stored evidence file."""
    return reverse("measurements:evidence", kwargs={"evidence_id": evidence_id})


def evidence_raw_url(evidence_id: int) -> str:
    """The stored bytes of one evidence file."""
    return reverse("measurements:evidence_raw", kwargs={"evidence_id": evidence_id})


def survey_url() -> str:
    """The symmetric survey."""
    return reverse("measurements:survey")


def size_audit_url() -> str:
    """The external size audit."""
    return reverse("measurements:size_audit")


def rankings_url(category: str) -> str:
    """The ranking of one category's candidates (query parameters carry its state)."""
    return reverse("measurements:rankings", kwargs={"category": category})


def profile_url(submission_key: str) -> str:
    """A candidate's profile: every instance and operation on every system side by side."""
    return reverse("measurements:profile", kwargs={"submission_key": submission_key})


def compare_url(query: Mapping[str, str] | Iterable[tuple[str, str]] | None = None) -> str:
    """The comparison page, with its state (``a``, ``b``, …, ``system``, ``format``) as query."""
    params = urlencode(query or {})
    path = reverse("measurements:compare")
    return f"{path}?{params}" if params else path


def kat_overview_url() -> str:
    """The KAT overview across systems."""
    return reverse("measurements:kat_overview")


def campaign_url(campaign_key: str) -> str:
    """The progress page of a campaign (served by the runner)."""
    return reverse("runner:campaign_detail", kwargs={"key": campaign_key})


# --- API ----------------------------------------------------------------------------------------


def _api(name: str, query: dict[str, object] | None = None, **kwargs: str) -> str:
    url = reverse(f"api:{name}", kwargs=kwargs or None)
    params = {k: v for k, v in (query or {}).items() if v is not None and v != ""}
    return f"{url}?{urlencode(params)}" if params else url


def with_format(url: str, fmt: str) -> str:
    """`url` with ``format=<fmt>`` added (e.g. ``csv``)."""
    return f"{url}{'&' if '?' in url else '?'}{urlencode({'format': fmt})}"


def api_root_url() -> str:
    """The browsable API root, listing every resource."""
    return reverse("api:api-root")


def api_docs_url() -> str:
    """The API documentation page (Swagger UI over `/api/schema/`)."""
    return reverse("api:docs")


def api_url_for_index() -> str:
    """The index page: the systems (submissions are at `api_url_for_submissions()`)."""
    return _api("system-list")


def api_url_for_submissions(category: str | None = None) -> str:
    """All submissions (optionally one category: kem, sign, kex, hash)."""
    return _api("submission-list", {"category": category})


def api_url_for_system(system_key: str) -> str:
    """One system (its description, arch and environment)."""
    return _api("system-detail", key=system_key)


def api_url_for_system_summary(system_key: str, category: str | None = None) -> str:
    """The per-system summary page: every measurement on that system (optionally a category)."""
    return _api("system-measurement-list", {"category": category}, system=system_key)


def api_url_for_system_campaigns(system_key: str) -> str:
    """The campaigns of a system (environment, start and end)."""
    return _api("system-campaign-list", system=system_key)


def api_url_for_candidate_page(system_key: str, submission_key: str) -> str:
    """A candidate page (§4 table): the measurements of a submission on a system."""
    return _api("system-submission-measurement-list", system=system_key, submission=submission_key)


def api_url_for_candidate_builds(system_key: str, submission_key: str) -> str:
    """A candidate page's §3 (build flags, KAT status, ELF image size)."""
    return _api("system-submission-build-list", system=system_key, submission=submission_key)


def api_url_for_candidate_kat_results(system_key: str, submission_key: str) -> str:
    """A candidate page's KAT results (first difference, digests)."""
    return _api("system-submission-kat-result-list", system=system_key, submission=submission_key)


def api_url_for_candidate_profiles(system_key: str, submission_key: str) -> str:
    """A candidate page's symmetric share and calls per operation (hash profiles with calls)."""
    return _api("system-submission-profile-list", system=system_key, submission=submission_key)


def api_url_for_trials(
    system_key: str,
    submission_key: str,
    instance_label: str | None = None,
    operation: str | None = None,
) -> str:
    """The raw trials of a submission on a system, optionally one instance and operation."""
    return _api(
        "system-submission-trial-list",
        {"instance": instance_label, "operation": operation},
        system=system_key,
        submission=submission_key,
    )


def api_url_for_measurement(measurement_id: int) -> str:
    """One measurement (aggregates, plan and status)."""
    return _api("measurement-detail", pk=str(measurement_id))


def api_url_for_measurement_trials(measurement_id: int) -> str:
    """The raw trials of one measurement, in order (a figure's re-check)."""
    return _api("trial-list", {"measurement": measurement_id})


def api_url_for_rankings(category: str, query: str = "") -> str:
    """The rankings page's rows as JSON (`query`: the page's own filter query string)."""
    path = reverse("api:rankings", kwargs={"category": category})
    return f"{path}?{query}" if query else path


def api_url_for_campaign(campaign_key: str) -> str:
    """One campaign (environment, planning, start and end)."""
    return _api("campaign-detail", key=campaign_key)


def api_url_for_sizes(submission_key: str | None = None) -> str:
    """The §6 size audit (API sizes against the curated catalog)."""
    return _api("size-audit-list", {"submission": submission_key})


def api_url_for_external_sizes(submission_key: str | None = None) -> str:
    """The curated external size catalog."""
    return _api("external-size-list", {"submission": submission_key})


def api_url_for_evidence_list(
    system_key: str | None = None, campaign_key: str | None = None
) -> str:
    """The evidence index (§7): metadata of the raw files."""
    return _api("evidence-list", {"system": system_key, "campaign": campaign_key})


def api_url_for_evidence_download(evidence_id: int) -> str:
    """The stored bytes of one evidence file (ETag = its sha256)."""
    return _api("evidence-download", pk=str(evidence_id))
