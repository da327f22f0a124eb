"""A small CSV renderer (`?format=csv`) and the streaming writer used for large exports.

Values are written losslessly: floats with Python's shortest round-trip `repr`, booleans as
``true``/``false``, missing values as empty cells, nested objects and lists as compact JSON.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from rest_framework.renderers import BaseRenderer

STREAM_BATCH_ROWS = 2000


def csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
    return str(value)


def _write_rows(writer: Any, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> None:
    for row in rows:
        writer.writerow([csv_cell(row.get(column)) for column in columns])


def csv_lines(
    rows: Iterable[Mapping[str, Any]], columns: Sequence[str], batch: int = STREAM_BATCH_ROWS
) -> Iterator[bytes]:
    """The header line, then the rows in chunks of `batch` rows (for streaming responses)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    pending: list[Mapping[str, Any]] = []
    for row in rows:
        pending.append(row)
        if len(pending) >= batch:
            _write_rows(writer, pending, columns)
            pending.clear()
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    _write_rows(writer, pending, columns)
    yield buffer.getvalue().encode()


class CSVRenderer(BaseRenderer):
    """Renders a list, a page (`results`) or one object as CSV; errors as `field,error` rows.

    Columns come from the view's `csv_columns` when it has them, else from the first row.
    """

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        context = renderer_context or {}
        response = context.get("response")
        if response is not None and response.status_code >= 400:
            return b"".join(csv_lines(_error_rows(data), ("field", "error")))
        if isinstance(data, dict) and isinstance(data.get("results"), list):
            rows = data["results"]
        elif isinstance(data, list):
            rows = data
        else:
            rows = [data]
        view = context.get("view")
        columns = getattr(view, "csv_columns", None) or (list(rows[0]) if rows else [])
        return b"".join(csv_lines(rows, columns))


def _error_rows(data: Any) -> Iterator[dict[str, str]]:
    if isinstance(data, dict):
        for field, messages in data.items():
            items = messages if isinstance(messages, list) else [messages]
            for message in items:
                yield {"field": str(field), "error": str(message)}
    else:
        yield {"field": "", "error": str(data)}


class EvidenceContentRenderer(BaseRenderer):
    """Lets an evidence download be negotiated for any `Accept` (the bytes are sent as stored)."""

    media_type = "*/*"
    format = "raw"
    charset = None
    render_style = "binary"

    def render(self, data: Any, accepted_media_type=None, renderer_context=None) -> bytes:
        if isinstance(data, bytes):
            return data
        return json.dumps(data, default=str).encode()
