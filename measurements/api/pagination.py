"""Pagination: page numbers for the small tables, a cursor for trials (stable under inserts).

Malformed `page`, `page_size` and `cursor` values are a 400 naming the parameter (DRF would
answer 404 or silently use the default page size).
"""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import CursorPagination, PageNumberPagination
from rest_framework.request import Request


def _strict_page_size(request: Request, param: str, maximum: int) -> None:
    raw = request.query_params.get(param)
    if raw is None:
        return
    if not raw.isdigit() or not 1 <= int(raw) <= maximum:
        raise ValidationError({param: [f"Must be an integer from 1 to {maximum}."]})


class ApiPageNumberPagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000

    def paginate_queryset(self, queryset, request, view=None):
        _strict_page_size(request, self.page_size_query_param, self.max_page_size)
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and raw not in self.last_page_strings:
            if not raw.isdigit() or int(raw) < 1 or len(raw) > 9:
                raise ValidationError({self.page_query_param: ["Must be a positive integer."]})
        return super().paginate_queryset(queryset, request, view)


class TrialCursorPagination(CursorPagination):
    """Cursor over trial ids: a page never repeats or skips a row when trials are added."""

    page_size = 1000
    page_size_query_param = "page_size"
    max_page_size = 10000
    ordering = "id"

    def paginate_queryset(self, queryset, request, view=None):
        _strict_page_size(request, self.page_size_query_param, self.max_page_size)
        return super().paginate_queryset(queryset, request, view)

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except Exception as exc:  # DRF raises NotFound for any undecodable cursor
            raise ValidationError({self.cursor_query_param: ["Invalid cursor."]}) from exc
        position = cursor.position if cursor is not None else None
        if position is not None and not (position.isdigit() and len(position) <= 18):
            raise ValidationError({self.cursor_query_param: ["Invalid cursor."]})
        return cursor
