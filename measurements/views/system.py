"""Performance index and the system-level pages (summary, method, size audit, survey, KAT).

Views stay thin: they resolve the system (404 for an unknown key), call one page builder from
`measurements.selectors.pages` and render its result.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from measurements import charts_system
from measurements.models import System
from measurements.page_cache import cached_page
from measurements.selectors.pages.index import index_page
from measurements.selectors.pages.kat_overview import kat_overview as kat_overview_page
from measurements.selectors.pages.method import method_page
from measurements.selectors.pages.size_audit import AUDIT_STATE_LABELS, size_audit_page
from measurements.selectors.pages.summary import system_summary as system_summary_page
from measurements.selectors.pages.survey import survey_page


def _system_or_404(key: str) -> System:
    return get_object_or_404(System, key=key)


@require_safe
@cached_page
def performance_index(request: HttpRequest) -> HttpResponse:
    return render(request, "measurements/index.html", {"page": index_page()})


@require_safe
@cached_page
def system_summary(request: HttpRequest, system: str) -> HttpResponse:
    summary = system_summary_page(_system_or_404(system), request.GET.get("campaign"))
    charts = {
        "cycles": mark_safe(charts_system.summary_cycles_chart(summary)),  # noqa: S308
        "kat": mark_safe(charts_system.kat_status_chart(summary.kat_counts)),  # noqa: S308
    }
    return render(
        request, "measurements/system/summary.html", {"summary": summary, "charts": charts}
    )


@require_safe
@cached_page
def system_method(request: HttpRequest, system: str) -> HttpResponse:
    page = method_page(_system_or_404(system), request.GET.get("campaign"))
    return render(request, "measurements/system/method.html", {"page": page})


@require_safe
@cached_page
def size_audit(request: HttpRequest) -> HttpResponse:
    page = size_audit_page(
        system=request.GET.get("system", ""),
        candidate=request.GET.get("candidate", ""),
        state=request.GET.get("state", ""),
    )
    return render(
        request,
        "measurements/system/size_audit.html",
        {"page": page, "state_labels": AUDIT_STATE_LABELS},
    )


@require_safe
@cached_page
def survey(request: HttpRequest) -> HttpResponse:
    return render(request, "measurements/system/survey.html", {"page": survey_page()})


@require_safe
@cached_page
def kat_overview(request: HttpRequest) -> HttpResponse:
    return render(request, "measurements/system/kat_overview.html", {"page": kat_overview_page()})
