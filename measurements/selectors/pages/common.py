"""Query helpers and small shared pieces of the page builders.

Kept small on purpose: a helper lives here only once two pages use it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any, TypeVar

from django.urls import NoReverseMatch, reverse

from measurements import formatting as fmt
from measurements.domain import CATEGORIES, CATEGORY_OPERATIONS, HASH_CATEGORIES
from measurements.models import Campaign, KatIssue, SummaryNote, System

#: A catalog row matched by label regex (`SummaryNote`, `KatIssue`).
CatalogRow = TypeVar("CatalogRow", SummaryNote, KatIssue)

#: Category order of every page (the summary order), from the domain registry.
CATEGORY_ORDER = tuple(CATEGORIES)


def category_rank(category: str) -> int:
    """Position of a category in page order; unknown categories come last."""
    return CATEGORY_ORDER.index(category) if category in CATEGORY_ORDER else len(CATEGORY_ORDER)


def operation_sort_key(category: str, operation: str, input_bytes: int) -> tuple[int, str, int]:
    """Operations in their natural order (keygen, enc, dec; …); others follow by name."""
    order = CATEGORY_OPERATIONS.get(category, ())
    rank = order.index(operation) if operation in order else len(order)
    return (rank, operation, input_bytes)


def operation_label(category: str, operation: str, input_bytes: int) -> str:
    """`keygen`; hash rows are named by their message length (`64 B`)."""
    if category in HASH_CATEGORIES:
        return fmt.format_message_length(input_bytes)
    return operation


def length_label(n: int) -> str:
    """A message length as the summary headers write it: `32 B`, `64 KiB`."""
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} B"


def campaign_for_system(system: System, campaign_key: str | None = None) -> Campaign | None:
    """The campaign a system's pages show: the requested one, else the latest that is not merely
    planned or failed (imported, complete, running or paused), else the latest of any status.
    One query."""
    campaigns = list(Campaign.objects.filter(system=system).order_by("-started_utc", "-id"))
    if campaign_key:
        return next((c for c in campaigns if c.key == campaign_key), None)
    useful = [
        c for c in campaigns if c.status not in (Campaign.Status.PLANNED, Campaign.Status.FAILED)
    ]
    return (useful or campaigns or [None])[0]


def compiled_or_none(pattern: str) -> re.Pattern[str] | None:
    """A catalog's label regex compiled, or None where it does not compile (the row is skipped)."""
    try:
        return re.compile(pattern)
    except re.error:
        return None


def regex_catalog(
    rows: Iterable[CatalogRow],
) -> dict[str, list[tuple[re.Pattern[str], CatalogRow]]]:
    """candidate → [(compiled label regex, row)] in catalog order; invalid regexes are skipped."""
    out: dict[str, list[tuple[re.Pattern[str], CatalogRow]]] = defaultdict(list)
    for row in rows:
        compiled = compiled_or_none(row.label_regex)
        if compiled is not None:
            out[row.candidate].append((compiled, row))
    return out


def catalog_matches(
    catalog: dict[str, list[tuple[re.Pattern[str], CatalogRow]]], candidate: str, label: str
) -> list[CatalogRow]:
    """The catalog rows of `candidate` whose label regex matches `label`, in catalog order."""
    return [row for regex, row in catalog.get(candidate, []) if regex.search(label)]


# --- URLs (to be replaced by measurements.links) ---------------------------------------------


def _url(name: str, args: Iterable[Any], fallback: str) -> str:
    """Reverse a route of another page family, or fall back to its documented path."""
    try:
        return reverse(name, args=list(args))
    except NoReverseMatch:
        return fallback


def candidate_url(system_key: str, submission_key: str) -> str:
    return _url(
        "measurements:candidate",
        (system_key, submission_key),
        f"/performance/{system_key}/{submission_key}/",
    )


def evidence_url(evidence_id: int) -> str:
    return _url("measurements:evidence", (evidence_id,), f"/evidence/{evidence_id}/")


def summary_url(system_key: str) -> str:
    return _url("measurements:summary", (system_key,), f"/performance/{system_key}/")


def method_url(system_key: str) -> str:
    return _url("measurements:method", (system_key,), f"/performance/{system_key}/method/")


def survey_url() -> str:
    return _url("measurements:survey", (), "/survey/")


def size_audit_url() -> str:
    return _url("measurements:size_audit", (), "/size-audit/")


def api_candidate_url(system_key: str, submission_key: str) -> str:
    """The REST query returning a candidate page's data (the API's own link helper)."""
    from measurements.api.links import api_url_for_candidate_page

    return api_url_for_candidate_page(system_key, submission_key)


def _api(helper: str, fallback: str, *args: Any) -> str:
    """The API query behind a page, from `measurements.api.links` where it offers `helper`."""
    try:
        from measurements.api import links  # provided by the API work, may be absent
    except ImportError:
        return fallback
    function = getattr(links, helper, None)
    if function is None:
        return fallback
    try:
        return str(function(*args))
    except NoReverseMatch:
        return fallback


def api_system_url(system_key: str) -> str:
    """Machine-readable counterpart of a system's summary (every measurement on the system)."""
    return _api(
        "api_url_for_system_summary", f"/api/v1/measurements/?system={system_key}", system_key
    )


def api_index_url() -> str:
    return _api("api_url_for_index", "/api/v1/systems/")


def api_campaigns_url(system_key: str) -> str:
    return _api(
        "api_url_for_system_campaigns", f"/api/v1/systems/{system_key}/campaigns/", system_key
    )


def api_sizes_url(candidate: str = "") -> str:
    fallback = "/api/v1/size-audit/" + (f"?submission={candidate}" if candidate else "")
    return _api("api_url_for_sizes", fallback, candidate or None)


def api_submissions_url() -> str:
    return _api("api_url_for_submissions", "/api/v1/submissions/")
