"""The per-candidate performance page of one system."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from measurements.charts import log_bar_chart
from measurements.page_cache import cached_page
from measurements.rendering.markdown import candidate_markdown
from measurements.selectors.pages.candidate import CandidatePage, candidate_page
from measurements.views.downloads import table_csv_response


@require_safe
@cached_page
def candidate(request: HttpRequest, system_key: str, submission_key: str) -> HttpResponse:
    page = candidate_page(system_key, submission_key)
    if request.GET.get("format") == "csv":
        return _table_csv(page, request.GET.get("table", ""))
    charts = [log_bar_chart(page.cycles_chart)]
    if page.systems_chart is not None:
        charts.append(log_bar_chart(page.systems_chart))
    return render(
        request,
        "measurements/candidate/page.html",
        {"page": page, "charts": [c for c in charts if c]},
    )


def _table_csv(page: CandidatePage, key: str) -> HttpResponse:
    """One table of the page as CSV (``?table=performance&format=csv``), cells as shown."""
    table = next((t for t in page.tables if t.key == key), None)
    if table is None:
        raise Http404(f"No table {key!r} on this page.")
    return table_csv_response(
        f"{page.submission.key}_perf_{page.system.key}-{table.key}",
        table.headers,
        ([cell.text for cell in row] for row in table.rows),
    )


@require_safe
@cached_page
def candidate_markdown_download(
    request: HttpRequest, system_key: str, submission_key: str
) -> HttpResponse:
    """The same page in the published Markdown format (as `export_pages` writes it)."""
    page = candidate_page(system_key, submission_key)
    response = HttpResponse(candidate_markdown(page), content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(
        True, f"{page.submission.key}_perf_{page.system.key}.md"
    )
    return response
