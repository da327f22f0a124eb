"""Reads for the evidence views: one stored file with its campaign and system."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.http import Http404

from measurements.domain import category_of
from measurements.models import EvidenceFile

CONTENT_TYPES = {
    ".json": "application/json",
    ".log": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".rsp": "text/plain; charset=utf-8",
    ".req": "text/plain; charset=utf-8",
    ".sha256": "text/plain; charset=utf-8",
}


@dataclass(frozen=True)
class EvidenceView:
    evidence: EvidenceFile
    system_key: str
    submission_key: str
    filename: str
    content_type: str
    display: str
    is_json: bool


def evidence_get(evidence_id: int) -> EvidenceFile:
    """One evidence file with its campaign and system (one query); `Http404` if unknown."""
    evidence = (
        EvidenceFile.objects.select_related("campaign__system")
        .defer(
            "campaign__environment_at_start",
            "campaign__environment_at_end",
            "campaign__host_checks",
            "campaign__arch_config",
        )
        .filter(pk=evidence_id)
        .first()
    )
    if evidence is None:
        raise Http404(f"No evidence file {evidence_id}.")
    return evidence


def content_type_for(relative_path: str) -> str:
    suffix = "." + relative_path.rsplit(".", 1)[-1] if "." in relative_path else ""
    return CONTENT_TYPES.get(suffix.lower(), "application/octet-stream")


def submission_key_of(relative_path: str) -> str:
    """`records/kem-29/PolarKEM-128__dec.json` → `kem-29` (the harness layout)."""
    parts = relative_path.split("/")
    if len(parts) >= 3 and "-" in parts[1] and category_of(parts[1]):
        return parts[1]
    return ""


def evidence_view(evidence_id: int) -> EvidenceView:
    """The file for display: JSON pretty-printed, text as text, other bytes summarised."""
    evidence = evidence_get(evidence_id)
    content = bytes(evidence.content)
    is_json = evidence.relative_path.endswith(".json")
    try:
        decoded = content.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    if decoded is None:
        display = f"(binary file, {len(content)} bytes: use the raw download)"
    elif is_json:
        try:
            display = json.dumps(json.loads(decoded), indent=2, ensure_ascii=False)
        except json.JSONDecodeError:
            display, is_json = decoded, False
    else:
        display = decoded
    return EvidenceView(
        evidence=evidence,
        system_key=evidence.campaign.system.key,
        submission_key=submission_key_of(evidence.relative_path),
        filename=evidence.relative_path.rsplit("/", 1)[-1],
        content_type=content_type_for(evidence.relative_path),
        display=display,
        is_json=is_json,
    )
