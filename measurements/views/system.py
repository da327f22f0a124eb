"""Performance index and the system-level pages (summary, method, size audit, survey, KAT).

Views stay thin: they resolve the system (404 for an unknown key), call one selector from
`measurements.selectors.system_pages` and render its result.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from measurements import charts_system
from measurements.models import System
from measurements.page_cache import cached_page
from measurements.selectors import system_pages


def _system_or_404(key: str) -> System:
    return get_object_or_404(System, key=key)


@require_safe
@cached_page
def performance_index(request: HttpRequest) -> HttpResponse:
    return render(request, "measurements/index.html", {"page": system_pages.index_page()})


@require_safe
@cached_page
def system_summary(request: HttpRequest, system: str) -> HttpResponse:
    summary = system_pages.system_summary(_system_or_404(system), request.GET.get("campaign"))
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
    page = system_pages.method_page(_system_or_404(system), request.GET.get("campaign"))
    return render(request, "measurements/system/method.html", {"page": page})


@require_safe
@cached_page
def size_audit(request: HttpRequest) -> HttpResponse:
    page = system_pages.size_audit_page(
        system=request.GET.get("system", ""),
        candidate=request.GET.get("candidate", ""),
        state=request.GET.get("state", ""),
    )
    return render(
        request,
        "measurements/system/size_audit.html",
        {"page": page, "state_labels": system_pages.AUDIT_STATE_LABELS},
    )


@require_safe
@cached_page
def survey(request: HttpRequest) -> HttpResponse:
    return render(request, "measurements/system/survey.html", {"page": system_pages.survey_page()})


@require_safe
@cached_page
def kat_overview(request: HttpRequest) -> HttpResponse:
    return render(
        request, "measurements/system/kat_overview.html", {"page": system_pages.kat_overview()}
    )
