"""Performance index and the system-level pages (summary, method, size audit, survey, KAT).

Views stay thin: they resolve the system (404 for an unknown key), call one page builder from
`measurements.selectors.pages` and render its result (or, with ``format=csv``, one of its tables).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from measurements import charts_system
from measurements.models import System
from measurements.page_cache import cached_page
from measurements.selectors.pages.index import IndexPage, index_page
from measurements.selectors.pages.kat_overview import KatOverview
from measurements.selectors.pages.kat_overview import kat_overview as kat_overview_page
from measurements.selectors.pages.method import method_page
from measurements.selectors.pages.size_audit import AUDIT_STATE_LABELS, size_audit_page
from measurements.selectors.pages.summary import SystemSummary
from measurements.selectors.pages.summary import system_summary as system_summary_page
from measurements.selectors.pages.survey import survey_page
from measurements.views.downloads import table_csv_response


def _system_or_404(key: str) -> System:
    return get_object_or_404(System, key=key)


@require_safe
@cached_page
def performance_index(request: HttpRequest) -> HttpResponse:
    page = index_page()
    if request.GET.get("format") == "csv":
        return _index_csv(page, request.GET.get("table", ""))
    return render(request, "measurements/index.html", {"page": page})


def _index_csv(page: IndexPage, table: str) -> HttpResponse:
    """The index's systems (``table=systems``) or submissions (``table=submissions``) as CSV."""
    if table == "systems":
        return table_csv_response(
            "index-systems",
            ["id", "arch", "description", "campaigns", "candidates measured", "candidates built"],
            (
                [s.system.key, s.system.arch_label, s.system.description]
                + [" ".join(c.key for c in s.campaigns), s.candidates_measured]
                + [s.candidates_built]
                for s in page.systems
            ),
        )
    if table == "submissions":
        return table_csv_response(
            "index-submissions",
            ["category", "id", "algorithm", "instances", *[s.system.key for s in page.systems]],
            (
                [category, row.submission.key, row.submission.algorithm, row.instances]
                + ["yes" if url else "" for _, url in row.links]
                for category, rows in page.submissions_by_category
                for row in rows
            ),
        )
    raise Http404(f"No index table {table!r}.")


@require_safe
@cached_page
def system_summary(request: HttpRequest, system: str) -> HttpResponse:
    summary = system_summary_page(_system_or_404(system), request.GET.get("campaign"))
    if request.GET.get("format") == "csv":
        return _summary_section_csv(summary, request.GET.get("table", ""))
    charts = {
        "cycles": mark_safe(charts_system.summary_cycles_chart(summary)),  # noqa: S308
        "kat": mark_safe(charts_system.kat_status_chart(summary.kat_counts)),  # noqa: S308
    }
    return render(
        request, "measurements/system/summary.html", {"summary": summary, "charts": charts}
    )


def _summary_section_csv(summary: SystemSummary, category: str) -> HttpResponse:
    """One section of the summary as CSV (``?table=kem&format=csv``): every row, as shown."""
    section = next((s for s in summary.sections if s.spec.category == category), None)
    if section is None:
        raise Http404(f"No summary table {category!r}.")
    return table_csv_response(
        f"summary_{summary.system.key}-{category}",
        section.headers,
        ([r.submission_key, r.algorithm, r.label, *r.cells, r.notes] for r in section.rows),
    )


@require_safe
@cached_page
def system_method(request: HttpRequest, system: str) -> HttpResponse:
    page = method_page(_system_or_404(system), request.GET.get("campaign"))
    return render(request, "measurements/system/method.html", {"page": page})


@require_safe
@cached_page
def size_audit(request: HttpRequest) -> HttpResponse:
    # Disagreements are listed by default; the other states are counts, listed on request
    # (``state=all`` lists every row).
    state = request.GET.get("state", "differs")
    page = size_audit_page(
        system=request.GET.get("system", ""),
        candidate=request.GET.get("candidate", ""),
        state="" if state == "all" else state,
    )
    if request.GET.get("format") == "csv":
        return table_csv_response(
            "size-audit",
            ["candidate", "instance", "field", "API (B)", "catalog (B)", "API − catalog", "basis"]
            + ["state"],
            (
                [r.submission_key, r.label, r.field, r.api, r.catalog, r.difference, r.basis]
                + [r.state]
                for r in page.rows
            ),
        )
    return render(
        request,
        "measurements/system/size_audit.html",
        {"page": page, "state_labels": AUDIT_STATE_LABELS},
    )


@require_safe
@cached_page
def survey(request: HttpRequest) -> HttpResponse:
    page = survey_page()
    if request.GET.get("format") == "csv":
        return table_csv_response(
            "survey",
            ["id", "function", "algorithm", "verdict", "note"]
            + [f"mean ICCS hash share ({s})" for s in page.systems],
            (
                [r.submission.key, r.submission.function_label, r.submission.algorithm]
                + [r.verdict, r.note]
                + [share for _, share, _ in r.shares]
                for r in page.rows
            ),
        )
    return render(request, "measurements/system/survey.html", {"page": page})


@require_safe
@cached_page
def kat_overview(request: HttpRequest) -> HttpResponse:
    page = kat_overview_page()
    if request.GET.get("format") == "csv":
        return _kat_csv(page, request.GET.get("table", ""))
    return render(request, "measurements/system/kat_overview.html", {"page": page})


def _kat_csv(page: KatOverview, table: str) -> HttpResponse:
    """``?table=counts`` or ``?table=problems`` of the KAT overview as CSV."""
    if table == "counts":
        return table_csv_response(
            "kat-overview-counts",
            ["system", "campaign", "category", *page.statuses, "total"],
            (
                [r.system_key, r.campaign_key, r.category, *r.counts, r.total]
                for r in page.count_rows
            ),
        )
    if table == "problems":
        return table_csv_response(
            "kat-overview-problems",
            ["system", "candidate", "instance", "KAT", "build flags", "action", "cause"],
            (
                [p.system_key, p.submission_key, p.label, p.status, p.flags, p.action, p.cause]
                for p in page.problems
            ),
        )
    raise Http404(f"No KAT overview table {table!r}.")
