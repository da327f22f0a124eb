"""Evidence files: raw bytes stored in the database with their sha256."""

from __future__ import annotations

import hashlib

from django.db import transaction

from measurements.models import Campaign, EvidenceFile


class EvidenceConflict(ValueError):
    """An evidence path already holds different bytes (evidence is never rewritten)."""


def sha256_hex(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


@transaction.atomic
def evidence_store(
    *, campaign: Campaign, relative_path: str, kind: str, content: bytes
) -> tuple[EvidenceFile, bool]:
    """Store a file byte-exact; returns (evidence, created). Same bytes again: no change."""
    digest = sha256_hex(content)
    existing = EvidenceFile.objects.filter(campaign=campaign, relative_path=relative_path).first()
    if existing is not None:
        if existing.sha256 != digest:
            raise EvidenceConflict(
                f"{relative_path}: already stored with sha256 {existing.sha256[:16]}…, "
                f"new content has {digest[:16]}…; stored evidence is never rewritten"
            )
        return existing, False
    evidence = EvidenceFile.objects.create(
        campaign=campaign,
        relative_path=relative_path,
        kind=kind,
        sha256=digest,
        size=len(content),
        content=content,
    )
    return evidence, True
