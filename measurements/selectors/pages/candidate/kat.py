"""§3 functional testing (KAT) of a candidate page: build flags and KAT status per instance,
with footnotes from the KAT issue catalog."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from measurements import formatting as fmt
from measurements import links
from measurements.label_patterns import label_matches
from measurements.models import KatIssue
from measurements.selectors.pages.candidate.data import CandidateData
from measurements.selectors.pages.cells import Table, code, text

KatNote = tuple[int, str, str]  # (number, action, cause)


@dataclass(frozen=True)
class KatSection:
    table: Table
    notes: tuple[KatNote, ...]
    manifest: str  # imported campaigns: the harness manifest the published page cites
    logs: tuple[tuple[str, str], ...] = ()  # our campaigns: (path, url) of each stored KAT log


def kat_notes(
    issues: Iterable[KatIssue], labels: Iterable[str]
) -> tuple[dict[str, int], list[KatNote]]:
    """Footnote number per instance label, and the notes in order of first use."""
    by_label: dict[str, int] = {}
    notes: list[KatNote] = []
    numbers: dict[int, int] = {}
    issues = list(issues)
    for label in labels:
        issue = next((i for i in issues if _matches(i.label_regex, label)), None)
        if issue is None:
            continue
        if issue.pk not in numbers:
            numbers[issue.pk] = len(numbers) + 1
            notes.append((numbers[issue.pk], issue.action, issue.cause))
        by_label[label] = numbers[issue.pk]
    return by_label, notes


def _matches(label_regex: str, label: str) -> bool:
    """The catalog's regex matches the label (an invalid regex matches its own text only).
    RE2, never Python `re`: the pattern is curator input (see measurements.label_patterns)."""
    return label_matches(label_regex, label) or label_regex == label


def kat_section(data: CandidateData) -> KatSection:
    note_of, notes = kat_notes(data.issues, [i.label for i in data.instances])
    rows = []
    for instance in data.instances:
        build = data.builds.get(instance.pk)
        rows.append(
            (
                code(instance.label),
                text(build.flags if build and build.flags else fmt.MISSING),
                text(
                    build.kat_status if build and build.kat_status else fmt.MISSING,
                    note=note_of.get(instance.label),
                ),
            )
        )
    return KatSection(
        table=Table("kat", ("instance", "build flags", "KAT"), tuple(rows)),
        notes=tuple(notes),
        manifest=f"{data.submission.key}/kat.sha256",
        logs=_kat_logs(data),
    )


def _kat_logs(data: CandidateData) -> tuple[tuple[str, str], ...]:
    """The KAT logs stored for our own campaigns (reference, comparison and digests are there)."""
    if data.campaign.source != "measured":
        return ()
    builds = [data.builds[i.pk] for i in data.instances if i.pk in data.builds]
    logs = [b.kat_log for b in builds if b.kat_log is not None]
    return tuple((log.relative_path, links.evidence_url(log.pk)) for log in logs)
