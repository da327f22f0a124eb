"""Evidence files: a readable view (pretty-printed JSON or text, with sha256) and the raw bytes."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from measurements import links
from measurements.page_cache import cached_page
from measurements.selectors.evidence import (
    PREVIEW_BYTES,
    content_type_for,
    evidence_chunks,
    evidence_get,
    evidence_view,
)


@require_safe
@cached_page
def evidence_detail(request: HttpRequest, evidence_id: int) -> HttpResponse:
    view = evidence_view(evidence_id)
    page_url = (
        links.candidate_url(view.system_key, view.submission_key) if view.submission_key else ""
    )
    return render(
        request,
        "measurements/evidence/detail.html",
        {
            "view": view,
            "evidence": view.evidence,
            "candidate_url": page_url,
            "summary_url": links.summary_url(view.system_key),
            "preview_kib": PREVIEW_BYTES // 1024,
        },
    )


@require_safe
def evidence_raw(request: HttpRequest, evidence_id: int) -> StreamingHttpResponse:
    """The byte-exact file, streamed from the database in chunks."""
    evidence = evidence_get(evidence_id)
    response = StreamingHttpResponse(
        evidence_chunks(evidence), content_type=content_type_for(evidence.relative_path)
    )
    filename = evidence.relative_path.rsplit("/", 1)[-1]
    response["Content-Disposition"] = content_disposition_header(True, filename)
    response["Content-Length"] = str(evidence.size)
    response["X-Content-SHA256"] = evidence.sha256
    return response
