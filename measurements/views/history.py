"""The history of one candidate on one system: every campaign's figures and flagged changes."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from measurements.charts_history import history_chart
from measurements.page_cache import cached_page
from measurements.selectors.history import measurement_history_for


@require_safe
@cached_page
def candidate_history(request: HttpRequest, system_key: str, submission_key: str) -> HttpResponse:
    history = measurement_history_for(system_key=system_key, submission_key=submission_key)
    rows = [(series, history_chart(series)) for series in history.series]
    return render(
        request, "measurements/candidate/history.html", {"history": history, "rows": rows}
    )
