"""Evidence files: a readable view (pretty-printed JSON or text, with sha256) and the raw bytes."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from measurements import links
from measurements.selectors.evidence import content_type_for, evidence_get, evidence_view


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
        },
    )


def evidence_raw(request: HttpRequest, evidence_id: int) -> HttpResponse:
    evidence = evidence_get(evidence_id)
    response = HttpResponse(
        bytes(evidence.content), content_type=content_type_for(evidence.relative_path)
    )
    filename = evidence.relative_path.rsplit("/", 1)[-1].replace('"', "")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-SHA256"] = evidence.sha256
    return response
