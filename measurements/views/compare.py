"""Pages for comparing candidates: rankings, candidate profiles, compare, measurement detail.

Views stay thin: each calls one page builder from `measurements.selectors.pages` and renders
it, or writes its table as CSV when asked with ``format=csv``.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from measurements.selectors.pages import rankings as rankings_pages
from measurements.views.downloads import table_csv_response


def rankings(request: HttpRequest, category: str) -> HttpResponse:
    page = rankings_pages.rankings_page(category, request.GET.dict())
    if request.GET.get("format") == "csv":
        target = "any" if page.filters.target is None else page.filters.target
        return table_csv_response(
            f"rankings-{category}-{target}-{page.filters.system}",
            [c.header for c in page.columns],
            ([cell.value for cell in row.ordered(page.columns)] for row in page.rows),
        )
    return render(request, "measurements/compare/rankings.html", {"page": page})
