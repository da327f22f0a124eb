"""§7 raw evidence index of a candidate page: per instance its KAT log, then its timing and hash
profile files (by path), each linked to the stored file."""

from __future__ import annotations

from measurements import formatting as fmt
from measurements import links
from measurements.models import Build, HashProfile, Instance, Measurement
from measurements.selectors.pages.candidate.data import CandidateData
from measurements.selectors.pages.cells import Cell, Table, code, text


def evidence_table(data: CandidateData) -> Table:
    rows: list[tuple[Cell, ...]] = []
    for instance in data.instances:
        build = data.builds.get(instance.pk)
        if build is not None and (build.kat_log_id or build.kat_log_path):
            rows.append(_kat_log_row(instance, build))
        for kind, items in (
            ("timing", [m for m in data.measurements if m.instance_id == instance.pk]),
            ("hash profile", [p for p in data.profiles if p.instance_id == instance.pk]),
        ):
            rows += _file_rows(data, instance, kind, items)
    return Table("evidence", ("instance", "item", "file"), tuple(rows))


def _kat_log_row(instance: Instance, build: Build) -> tuple[Cell, ...]:
    """The KAT log as stored, else as the harness data names it (path and digest only)."""
    log = build.kat_log
    digest = log.sha256 if log else build.kat_log_sha256
    path = log.relative_path if log else build.kat_log_path
    return (
        code(instance.label),
        Cell(
            parts=(
                ("text", "KAT log (sha256 "),
                ("code", f"{digest[:16]}…" if digest else fmt.MISSING),
                ("text", ")"),
            )
        ),
        code(path, href=links.evidence_url(log.pk) if log else ""),
    )


def _file_rows(
    data: CandidateData,
    instance: Instance,
    kind: str,
    items: list[Measurement] | list[HashProfile],
) -> list[tuple[Cell, ...]]:
    files = sorted(
        (item for item in items if item.evidence_id),
        key=lambda item: item.evidence.relative_path,
    )
    rows = []
    for item in files:
        label = item.operation
        if data.is_hash:
            label += f" {fmt.format_message_length(item.input_bytes)}"
        rows.append(
            (
                code(instance.label),
                text(f"{kind} {label}"),
                code(item.evidence.relative_path, href=links.evidence_url(item.evidence.pk)),
            )
        )
    return rows
