"""`/api/v1/rankings/<category>/`: the rankings page's data as JSON (same query string, same rows).

The web page and this endpoint call the same page builder, so their rows, order and filters are
identical; each figure is given as its raw value and as the text the page shows.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from measurements.api.permissions import ReadOnlyOrStaff
from measurements.selectors.pages.rankings import RankingsPage, rankings_page

PARAMETERS = [
    OpenApiParameter("target", str, description="security target in bits, or `any` (default 128)"),
    OpenApiParameter("system", str, description="system key (default: the first system)"),
    OpenApiParameter("sort", str, description="column key to sort by (default: first operation)"),
    OpenApiParameter("dir", str, description="`desc` for descending order"),
    OpenApiParameter("kat", str, description="KAT status of the chosen instance"),
    OpenApiParameter("verdict", str, description="survey verdict (`none` for no verdict)"),
    OpenApiParameter("q", str, description="text search on candidate id and name"),
]


def rankings_data(page: RankingsPage) -> dict[str, Any]:
    filters = page.filters
    return {
        "category": page.spec.key,
        "system": filters.system,
        "campaign": page.campaign.key if page.campaign else None,
        "target_bits": filters.target,
        "sort": filters.sort,
        "descending": filters.descending,
        "rule": page.rule,
        "columns": [{"key": c.key, "header": c.header} for c in page.columns],
        "rows": [
            {key: {"value": cell.value, "text": cell.text} for key, cell in row.cells.items()}
            for row in page.rows
        ],
        "unranked": [
            {
                "submission": u.submission_key,
                "instances": list(u.instance_labels),
                "reason": u.reason,
            }
            for u in page.unranked
        ],
    }


class RankingsView(APIView):
    """One row per candidate of a category at a security target on a system (see the page)."""

    permission_classes = [ReadOnlyOrStaff]

    @extend_schema(parameters=PARAMETERS, responses={200: dict})
    def get(self, request: Request, category: str) -> Response:
        return Response(rankings_data(rankings_page(category, request.query_params.dict())))
