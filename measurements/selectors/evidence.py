"""Reads for the evidence views: one stored file with its campaign and system."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import BinaryField
from django.db.models.functions import Substr
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


#: The HTML view shows at most this much of a file; the raw download has all of it.
PREVIEW_BYTES = 256 * 1024
#: The raw download streams the file from the database in chunks of this size.
RAW_CHUNK_BYTES = 1024 * 1024


@dataclass(frozen=True)
class EvidenceView:
    evidence: EvidenceFile
    system_key: str
    submission_key: str
    filename: str
    content_type: str
    display: str
    is_json: bool
    #: True when `display` shows only the first PREVIEW_BYTES of the file.
    truncated: bool = False


def evidence_get(evidence_id: int) -> EvidenceFile:
    """One evidence file with its campaign and system, without its content; `Http404` if unknown."""
    evidence = (
        EvidenceFile.objects.select_related("campaign__system")
        .defer(
            "content",
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


def _bytes_slice(evidence_id: int, start: int, length: int) -> bytes:
    """`length` bytes of a stored file from offset `start`, cut out by the database."""
    chunk = (
        EvidenceFile.objects.filter(pk=evidence_id)
        .annotate(part=Substr("content", start + 1, length, output_field=BinaryField()))
        .values_list("part", flat=True)
        .first()
    )
    return bytes(chunk or b"")


def evidence_chunks(evidence: EvidenceFile) -> Iterator[bytes]:
    """The whole file in RAW_CHUNK_BYTES pieces, never all of it in memory at once."""
    for start in range(0, evidence.size, RAW_CHUNK_BYTES):
        yield _bytes_slice(evidence.pk, start, RAW_CHUNK_BYTES)


def _decoded_prefix(content: bytes, truncated: bool) -> str | None:
    """UTF-8 text of `content` (a cut at the end of a prefix is forgiven), or None if binary."""
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(content) - 3:
            return _decoded_prefix(content[: exc.start], truncated=False)
        return None


def evidence_view(evidence_id: int) -> EvidenceView:
    """The file for display: JSON pretty-printed, text as text, other bytes summarised.

    Only the first PREVIEW_BYTES are read from the database and shown.
    """
    evidence = evidence_get(evidence_id)
    truncated = evidence.size > PREVIEW_BYTES
    content = _bytes_slice(evidence.pk, 0, PREVIEW_BYTES)
    is_json = evidence.relative_path.endswith(".json") and not truncated
    decoded = _decoded_prefix(content, truncated)
    if decoded is None:
        display = f"(binary file, {evidence.size} bytes: use the raw download)"
    elif is_json:
        try:
            display = json.dumps(json.loads(decoded), indent=2, ensure_ascii=False)
        except (json.JSONDecodeError, RecursionError):
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
        truncated=truncated,
    )
