"""CSV downloads of page tables: one helper, so every table's CSV is written the same way."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from django.http import HttpResponse
from django.utils.http import content_disposition_header

from measurements.api.renderers import csv_cell


def table_csv_response(
    filename: str, headers: Sequence[str], rows: Iterable[Sequence[object]]
) -> HttpResponse:
    """A CSV attachment named `filename` (``.csv`` added): a header row, then `rows`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{filename}.csv")
    return response
