"""Pages for comparing candidates: rankings, candidate profiles, compare, measurement detail.

Views stay thin: each calls one page builder from `measurements.selectors.pages` and renders
it, or writes its table as CSV when asked with ``format=csv``. Safe methods only (405
otherwise), a malformed query string is a 400, and pages are cached per data version.
"""

from __future__ import annotations

from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from measurements import charts_compare, charts_detail
from measurements.page_cache import cached_page
from measurements.selectors.pages import compare as compare_pages
from measurements.selectors.pages import measurement as measurement_pages
from measurements.selectors.pages import profile as profile_pages
from measurements.selectors.pages import rankings as rankings_pages
from measurements.views.downloads import table_csv_response


@require_safe
@cached_page
def rankings(request: HttpRequest, category: str) -> HttpResponse:
    page = rankings_pages.rankings_page(category, request.GET.dict())
    if request.GET.get("format") == "csv" and request.GET.get("table") == "unranked":
        return table_csv_response(
            f"rankings-{category}-unranked-{page.filters.system}",
            ["id", "algorithm", "instances at this target", "reason"],
            (
                [u.submission_key, u.algorithm, " ".join(u.instance_labels), u.reason]
                for u in page.unranked
            ),
        )
    if request.GET.get("format") == "csv":
        target = "any" if page.filters.target is None else page.filters.target
        return table_csv_response(
            f"rankings-{category}-{target}-{page.filters.system}",
            [c.header for c in page.columns],
            ([cell.value for cell in row.ordered(page.columns)] for row in page.rows),
        )
    chart = mark_safe(charts_compare.rankings_chart(page))  # noqa: S308 (escaped parts)
    return render(request, "measurements/compare/rankings.html", {"page": page, "chart": chart})


@require_safe
@cached_page
def measurement_detail(request: HttpRequest, measurement_id: int) -> HttpResponse:
    if set(request.GET) - {"format"} or request.GET.get("format", "") not in ("", "csv"):
        raise BadRequest("The only query parameter of a measurement page is format=csv.")
    page = measurement_pages.measurement_page(measurement_id)
    if request.GET.get("format") == "csv":
        m = page.measurement
        return table_csv_response(
            f"measurement-{m.pk}-{m.instance.submission.key}-{m.instance.label}-{m.operation}"
            f"{'-' + str(m.input_bytes) if m.input_bytes else ''}-trials",
            measurement_pages.TRIAL_CSV_KEYS,
            ([t.raw[k] for k in measurement_pages.TRIAL_CSV_KEYS] for t in page.trials),
        )
    chart = mark_safe(charts_detail.strip_plot(page))  # noqa: S308 (built from escaped parts)
    return render(request, "measurements/compare/measurement.html", {"page": page, "chart": chart})


def candidate_profile(request: HttpRequest, submission_key: str) -> HttpResponse:
    page = profile_pages.profile_page(submission_key)
    table = request.GET.get("table", "cycles")
    if request.GET.get("format") == "csv" and table != "cycles":
        return _profile_table_csv(page, table)
    if request.GET.get("format") == "csv":
        return table_csv_response(
            f"profile-{page.submission.key}",
            ["instance", "target (bits)", "operation"]
            + [f"{s.key} mean cycles" for s in page.systems]
            + page.ratio_headers,
            (
                [row.instance, row.target, row.operation]
                + [f.text for f in row.figures]
                + row.ratios
                for row in page.rows
            ),
        )
    return render(request, "measurements/compare/profile.html", {"page": page})


def _profile_table_csv(page: profile_pages.ProfilePage, table: str) -> HttpResponse:
    """The profile's KAT (``table=kat``) or sizes (``table=sizes``) table as CSV."""
    name = f"profile-{page.submission.key}-{table}"
    if table == "kat":
        return table_csv_response(
            name,
            ["instance", "target (bits)", *[s.key for s in page.systems]],
            ([label, target, *statuses] for label, target, statuses in page.kat_rows),
        )
    if table == "sizes":
        return table_csv_response(
            name,
            ["instance", *page.size_headers],
            ([label, *cells] for label, cells in page.size_rows),
        )
    raise Http404(f"No profile table {table!r}.")


def compare(request: HttpRequest) -> HttpResponse:
    page = compare_pages.compare_page(request.GET.dict())
    if request.GET.get("format") == "csv":
        return table_csv_response(
            "compare-" + "-vs-".join(item.spec.replace(":", "-") for item in page.items),
            ["figure"]
            + [item.header for item in page.items]
            + page.ratio_headers
            + page.beyond_headers,
            (
                [row.figure] + [c.text for c in row.cells] + row.ratios + row.beyond
                for row in page.rows
            ),
        )
    return render(request, "measurements/compare/compare.html", {"page": page})
