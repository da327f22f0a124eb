"""Take submission metadata from the previously published pages.

The harness data carries no full algorithm names, specification or NICCS links, nor the
symmetric-survey verdicts; the published Markdown pages of the current system do. This reads
them in place (per-system summaries and per-candidate pages) and updates the submissions,
in one transaction; a re-run changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from measurements.models import Submission
from measurements.services.imports import ImportSummary
from measurements.services.recording import category_of

_SUMMARY_ROW = re.compile(
    r"^\| \[(?P<id>[a-z]+-\d+)\]\([^)]*\) \| (?P<algorithm>.+?)(?: \[PDF\]\((?P<spec>[^)]+)\))? \|"
)
_NICCS = re.compile(r"\[NICCS page\]\((?P<url>[^)]+)\)")
_VERDICT = re.compile(r"verdict: \*\*(?P<verdict>[^*]+)\*\*(?: — (?P<note>.+))?$", re.MULTILINE)


@dataclass
class PublishedMetadata:
    algorithm: str = ""
    spec_url: str = ""
    niccs_url: str = ""
    survey_verdict: str = ""
    survey_note: str = ""
    sources: list[str] = field(default_factory=list)


def read_published_pages(directory: Path) -> dict[str, PublishedMetadata]:
    """Metadata per candidate id from ``performance/summary_*.md`` and ``<id>/perf_*.md``."""
    root = Path(directory)
    found: dict[str, PublishedMetadata] = {}
    for summary in sorted((root / "performance").glob("summary_*.md")):
        for line in summary.read_text(encoding="utf-8").splitlines():
            match = _SUMMARY_ROW.match(line)
            if not match:
                continue
            meta = found.setdefault(match["id"], PublishedMetadata())
            meta.algorithm = meta.algorithm or match["algorithm"].strip()
            meta.spec_url = meta.spec_url or (match["spec"] or "")
            if summary.name not in meta.sources:
                meta.sources.append(summary.name)
    for page in sorted(root.glob("*/perf_*.md")):
        candidate = page.parent.name
        text = page.read_text(encoding="utf-8")
        meta = found.setdefault(candidate, PublishedMetadata())
        niccs = _NICCS.search(text)
        if niccs and not meta.niccs_url:
            meta.niccs_url = niccs["url"]
        verdict = _VERDICT.search(text)
        if verdict and not meta.survey_verdict:
            meta.survey_verdict = verdict["verdict"].strip()
            meta.survey_note = (verdict["note"] or "").strip()
        title = re.match(r"^# \S+ (?P<name>.+?) — performance on", text)
        if title and not meta.algorithm:
            meta.algorithm = title["name"]
        meta.sources.append(f"{candidate}/{page.name}")
    return found


@transaction.atomic
def published_metadata_import(*, directory: Path) -> ImportSummary:
    """Update (or create) submissions with the names, links and verdicts of published pages."""
    summary = ImportSummary()
    metadata = read_published_pages(directory)
    summary.files_seen = len({s for m in metadata.values() for s in m.sources})
    existing = {s.key: s for s in Submission.objects.all()}
    for key, meta in sorted(metadata.items()):
        submission = existing.get(key)
        if submission is None:
            submission = Submission(key=key, category=category_of(key))
        values = {
            "algorithm": meta.algorithm or submission.algorithm,
            "spec_url": meta.spec_url or submission.spec_url,
            "niccs_url": meta.niccs_url or submission.niccs_url,
            "survey_verdict": meta.survey_verdict or submission.survey_verdict,
            "survey_note": meta.survey_note or submission.survey_note,
        }
        changed = submission.pk is None or any(
            getattr(submission, k) != v for k, v in values.items()
        )
        if changed:
            for k, v in values.items():
                setattr(submission, k, v)
            submission.save()
            summary.counts["submissions"] += 1
    return summary
