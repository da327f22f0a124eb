"""The per-system summary: one section per category (figures, sizes, notes) and the ICCS baseline.

Ten queries whatever the number of rows: related rows are fetched in bulk and joined in Python.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from measurements import formatting as fmt
from measurements import links
from measurements.domain import CATEGORIES, HASH_MESSAGE_BYTES
from measurements.label_patterns import CompiledLabelPattern
from measurements.models import (
    Build,
    Campaign,
    Category,
    ExternalSize,
    HashProfile,
    KatIssue,
    KatStatus,
    KexBandwidth,
    Measurement,
    SummaryNote,
    System,
)
from measurements.selectors.kex_transfer import KEX_MEASURED_NOTE, MEASURED_SOURCE, kex_transfer
from measurements.selectors.pages.common import (
    campaign_for_system,
    catalog_matches,
    length_label,
    regex_catalog,
)
from measurements.selectors.pages.sizes import CATALOG_SIZES

MISSING = fmt.MISSING
KAT_CAVEAT_NOTE = "KAT/output caveat; see candidate page"
# Statuses for which no library exists, so no API sizes can be shown.
NO_LIBRARY_STATUSES = {KatStatus.BUILDFAIL, KatStatus.LOADFAIL}
HASH_SUMMARY_LENGTHS = (32, 1024, 65536)
TimingKey = tuple[int, str, int]  # (instance id, operation, input bytes)


@dataclass(frozen=True)
class SectionSpec:
    category: str
    title: str
    anchor: str
    figure_headers: tuple[str, ...]
    operations: tuple[str, ...]  # timed operations, in column order (hash: "hash" per length)
    size_headers: tuple[str, ...]


SECTION_SPECS = tuple(
    SectionSpec(key, s.title, s.anchor, s.figure_headers, s.figure_operations, s.size_headers)
    for key, spec in CATEGORIES.items()
    if (s := spec.summary) is not None
)


@dataclass
class SummaryRow:
    submission_key: str
    algorithm: str
    spec_url: str
    label: str
    kat_status: str
    kat_flag: str  # "" or "⚠ KAT MISMATCH"
    kat_log_url: str | None
    cells: list[str]  # figure cells then size cells, formatted
    notes: str
    candidate_url: str
    # Raw values for charts: operation → mean cycles (None where not measured).
    raw_cycles: dict[str, float | None] = field(default_factory=dict)
    #: Detail page of the measurement behind each figure cell ("" where none).
    figure_urls: list[str] = field(default_factory=list)
    #: Not timed because of a KAT issue with action "exclude".
    excluded: bool = False
    #: Claimed security target of the instance (formatted), shown on the web page only.
    target: str = MISSING

    @property
    def has_figures(self) -> bool:
        return any(v is not None for v in self.raw_cycles.values())

    @property
    def linked_cells(self) -> list[tuple[str, str]]:
        """(text, detail URL or "") for every cell: figures link to their measurement."""
        urls = self.figure_urls + [""] * (len(self.cells) - len(self.figure_urls))
        return list(zip(self.cells, urls, strict=True))


@dataclass
class SummarySection:
    spec: SectionSpec
    rows: list[SummaryRow]

    @property
    def headers(self) -> list[str]:
        return [
            "id",
            "algorithm",
            "instance performance report",
            *self.spec.figure_headers,
            *self.spec.size_headers,
            "notes",
        ]

    @property
    def web_headers(self) -> list[str]:
        """The web page's columns: the published ones with the security target after the
        instance (the Markdown export keeps the published layout, `headers`)."""
        headers = self.headers
        return [*headers[:3], "target (bits)", *headers[3:]]

    @property
    def rows_with_figures(self) -> list[SummaryRow]:
        """Rows of the candidates with at least one figure (all their instances)."""
        measured = {r.submission_key for r in self.rows if r.has_figures}
        return [r for r in self.rows if r.submission_key in measured]

    @property
    def rows_without_figures(self) -> list[SummaryRow]:
        measured = {r.submission_key for r in self.rows if r.has_figures}
        return [r for r in self.rows if r.submission_key not in measured]

    @property
    def candidates_without_figures(self) -> list[UnmeasuredCandidate]:
        """One line per candidate without any figure, with the reason."""
        grouped: dict[str, list[SummaryRow]] = defaultdict(list)
        for row in self.rows_without_figures:
            grouped[row.submission_key].append(row)
        return [UnmeasuredCandidate.from_rows(rows) for rows in grouped.values()]

    @property
    def measured_rows(self) -> int:
        return sum(1 for r in self.rows if r.has_figures)


@dataclass(frozen=True)
class UnmeasuredCandidate:
    submission_key: str
    algorithm: str
    candidate_url: str
    instances: int
    reason: str

    @classmethod
    def from_rows(cls, rows: list[SummaryRow]) -> UnmeasuredCandidate:
        statuses = [r.kat_status for r in rows]
        if all(s in NO_LIBRARY_STATUSES for s in statuses):
            reason = f"build failed ({statuses[0]})"
        elif all(r.excluded or r.kat_status in NO_LIBRARY_STATUSES for r in rows):
            reason = "excluded by a KAT issue (not timed)"
        else:
            counts = Counter(s or "–" for s in statuses)
            kat = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
            reason = f"built (KAT: {kat}), not timed in this campaign"
        first = rows[0]
        return cls(first.submission_key, first.algorithm, first.candidate_url, len(rows), reason)


@dataclass
class IccsRow:
    label: str
    function: str
    output_bits: int | None
    cells: list[str]
    cycles_per_byte: str


@dataclass
class SystemSummary:
    system: System
    campaign: Campaign | None
    other_systems: list[System]
    sections: list[SummarySection]
    iccs_lengths: list[int]
    iccs_rows: list[IccsRow]
    clock: str
    processor: str
    kat_counts: dict[str, Counter]  # category → status counts
    api_url: str
    method_url: str

    @property
    def iccs_headers(self) -> list[str]:
        return [
            "ICCS helper",
            "output bits",
            *[length_label(n) for n in self.iccs_lengths],
            f"cycles/byte ({length_label(self.iccs_lengths[-1])})" if self.iccs_lengths else "",
        ]


@dataclass
class _SummaryData:
    """What one campaign's summary joins, fetched in bulk."""

    system_key: str
    builds: list[Build]
    timing: dict[TimingKey, dict[str, Any]]
    shares: dict[TimingKey, float | None]
    api_sizes: dict[int, dict[str, Any]]  # instance id → sizes of its first record with sizes
    sizes: dict[tuple[str, str], ExternalSize]
    bandwidth: dict[tuple[str, str], KexBandwidth]
    notes: dict[str, list[tuple[CompiledLabelPattern, SummaryNote]]]
    # KAT issues with action "exclude": their instances are not timed.
    excluded: dict[str, list[tuple[CompiledLabelPattern, KatIssue]]]
    # ICCS pseudoXOF baseline: (output bits, message length) → mean cycles.
    baseline: dict[tuple[int, int], float] = field(default_factory=dict)


def _output_bits_from_label(label: str) -> int | None:
    match = re.search(r"-(\d+)$", label)
    return int(match.group(1)) if match else None


def system_summary(system: System, campaign_key: str | None = None) -> SystemSummary:
    """Everything the per-system summary shows. Ten queries whatever the number of rows."""
    campaign = campaign_for_system(system, campaign_key)
    other_systems = list(System.objects.exclude(pk=system.pk).order_by("key"))
    data = _summary_data(system.key, campaign)
    iccs_builds = [b for b in data.builds if b.instance.submission.category == Category.ICCS]
    data.baseline = _iccs_baseline(iccs_builds, data.timing)
    sections, kat_counts = _sections(data)
    lengths, iccs_rows = _iccs_rows(iccs_builds, data.timing)
    environment = campaign.environment if campaign else {}
    return SystemSummary(
        system=system,
        campaign=campaign,
        other_systems=other_systems,
        sections=sections,
        iccs_lengths=lengths,
        iccs_rows=iccs_rows,
        clock=fmt.format_clock(environment) if environment else MISSING,
        processor=str(environment.get("cpu_model") or "") if environment else "",
        kat_counts=kat_counts,
        api_url=links.api_url_for_system_summary(system.key),
        method_url=links.method_url(system.key),
    )


def _campaign_builds(campaign: Campaign) -> list[Build]:
    return list(
        Build.objects.filter(campaign=campaign)
        .select_related("instance__submission")
        .only(
            "id",
            "kat_status",
            "kat_log_id",
            "instance__id",
            "instance__label",
            "instance__position",
            "instance__security_target_bits",
            "instance__submission__key",
            "instance__submission__category",
            "instance__submission__algorithm",
            "instance__submission__spec_url",
        )
        .order_by("instance__submission__key", "instance__position", "instance__label")
    )


def _summary_data(system_key: str, campaign: Campaign | None) -> _SummaryData:
    builds: list[Build] = []
    measurements: list[dict[str, Any]] = []
    shares: dict[TimingKey, float | None] = {}
    if campaign is not None:
        builds = _campaign_builds(campaign)
        measurements = list(
            Measurement.objects.filter(campaign=campaign).values(
                "id",
                "instance_id",
                "operation",
                "input_bytes",
                "mean_cycles",
                "measurements",
                "sizes",
                "kex",
            )
        )
        shares = {
            (p["instance_id"], p["operation"], p["input_bytes"]): p["hash_share"]
            for p in HashProfile.objects.filter(campaign=campaign).values(
                "instance_id", "operation", "input_bytes", "hash_share"
            )
        }
    api_sizes: dict[int, dict[str, Any]] = {}
    for m in measurements:
        if m["sizes"]:
            api_sizes.setdefault(m["instance_id"], m["sizes"])
    return _SummaryData(
        system_key=system_key,
        builds=builds,
        timing={(m["instance_id"], m["operation"], m["input_bytes"]): m for m in measurements},
        shares=shares,
        api_sizes=api_sizes,
        sizes={(e.candidate, e.instance_label): e for e in ExternalSize.objects.all()},
        bandwidth={(k.candidate, k.instance_label): k for k in KexBandwidth.objects.all()},
        notes=regex_catalog(SummaryNote.objects.order_by("candidate", "position")),
        excluded=regex_catalog(
            KatIssue.objects.filter(action=KatIssue.Action.EXCLUDE).order_by(
                "candidate", "position"
            )
        ),
    )


def _iccs_baseline(
    iccs_builds: list[Build], timing: dict[TimingKey, dict[str, Any]]
) -> dict[tuple[int, int], float]:
    """(output bits, message length) → mean cycles of the ICCS pseudoXOF helpers."""
    baseline: dict[tuple[int, int], float] = {}
    for b in iccs_builds:
        label = b.instance.label
        bits = _output_bits_from_label(label)
        if not (label.startswith("pseudoXOF-") and bits):
            continue
        for (inst, op, length), m in timing.items():
            if inst == b.instance.id and op == "hash" and m["mean_cycles"]:
                baseline[(bits, length)] = m["mean_cycles"]
    return baseline


def _sections(data: _SummaryData) -> tuple[list[SummarySection], dict[str, Counter]]:
    """One section per summary category (rows in build order) and its KAT status counts."""
    kat_counts: dict[str, Counter] = defaultdict(Counter)
    sections = []
    for spec in SECTION_SPECS:
        rows = []
        for b in data.builds:
            if b.instance.submission.category != spec.category:
                continue
            kat_counts[spec.category][b.kat_status or "unknown"] += 1
            rows.append(_summary_row(spec, b, data))
        sections.append(SummarySection(spec=spec, rows=rows))
    return sections, dict(kat_counts)


def _iccs_rows(
    iccs_builds: list[Build], timing: dict[TimingKey, dict[str, Any]]
) -> tuple[list[int], list[IccsRow]]:
    """The lengths measured for the ICCS helpers (else the guide's), and one row per helper."""
    iccs_ids = {b.instance.id for b in iccs_builds}
    lengths = sorted(
        {length for (inst, op, length) in timing if op == "hash" and inst in iccs_ids}
    ) or list(HASH_MESSAGE_BYTES)
    rows = []
    for b in iccs_builds:
        label = b.instance.label
        cells = []
        for length in lengths:
            m = timing.get((b.instance.id, "hash", length))
            cells.append(fmt.format_cycles(m["mean_cycles"]) if m else MISSING)
        last = timing.get((b.instance.id, "hash", lengths[-1]))
        rows.append(
            IccsRow(
                label=label,
                function=label.rsplit("-", 1)[0],
                output_bits=_output_bits_from_label(label),
                cells=cells,
                cycles_per_byte=fmt.format_cycles_per_byte_summary(
                    last["mean_cycles"] if last else None, lengths[-1]
                ),
            )
        )
    return lengths, rows


def _summary_row(spec: SectionSpec, build: Build, data: _SummaryData) -> SummaryRow:
    instance = build.instance
    sub = instance.submission
    status = build.kat_status or ""
    if spec.category == Category.HASH:
        cells, raw, urls = _hash_figure_cells(instance.id, data)
    else:
        cells, raw, urls = _operation_figure_cells(spec, instance.id, data)
    size_cells, source_note = _size_cells(spec, build, data)
    cells += size_cells
    row_notes = []
    flagged = bool(status) and status != KatStatus.PASS
    if flagged:
        row_notes.append(KAT_CAVEAT_NOTE)
    row_notes.extend(n.note for n in catalog_matches(data.notes, sub.key, instance.label))
    if source_note:
        row_notes.append(source_note)
    return SummaryRow(
        submission_key=sub.key,
        algorithm=sub.algorithm,
        spec_url=sub.spec_url,
        label=instance.label,
        kat_status=status,
        kat_flag=f"⚠ KAT {status}" if flagged else "",
        kat_log_url=links.evidence_url(build.kat_log_id) if build.kat_log_id else None,
        cells=cells,
        notes="; ".join(row_notes) if row_notes else MISSING,
        candidate_url=links.candidate_url(data.system_key, sub.key),
        raw_cycles=raw,
        figure_urls=urls,
        excluded=bool(catalog_matches(data.excluded, sub.key, instance.label)),
        target=fmt.format_int(instance.security_target_bits),
    )


FigureCells = tuple[list[str], dict[str, float | None], list[str]]


def _hash_figure_cells(instance_id: int, data: _SummaryData) -> FigureCells:
    """Cycles at the summary lengths, each with its ratio to pseudoXOF of the same output size;
    the raw cycles (charts) and the detail page of each figure."""
    cells: list[str] = []
    raw: dict[str, float | None] = {}
    urls: list[str] = []
    for length in HASH_SUMMARY_LENGTHS:
        m = data.timing.get((instance_id, "hash", length))
        cycles = m["mean_cycles"] if m else None
        ratio = None
        if m and cycles:
            digest = (m["sizes"] or {}).get("digest_bytes") or 0
            base = data.baseline.get((int(digest) * 8, length)) if digest else None
            ratio = cycles / base if base else None
        cells.append(fmt.format_cycles_with_ratio(cycles, ratio, m["measurements"] if m else None))
        raw[length_label(length)] = cycles
        urls.append(links.measurement_url(m["id"]) if m else "")
    return cells, raw, urls


def _operation_figure_cells(spec: SectionSpec, instance_id: int, data: _SummaryData) -> FigureCells:
    """Cycles per operation, each with the share spent in the ICCS hash placeholders."""
    cells: list[str] = []
    raw: dict[str, float | None] = {}
    urls: list[str] = []
    for op in spec.operations:
        m = data.timing.get((instance_id, op, 0))
        cycles = m["mean_cycles"] if m else None
        cells.append(
            fmt.format_cycles_with_share(
                cycles, data.shares.get((instance_id, op, 0)), m["measurements"] if m else None
            )
        )
        raw[op] = cycles
        urls.append(links.measurement_url(m["id"]) if m else "")
    return cells, raw, urls


def _size_cells(spec: SectionSpec, build: Build, data: _SummaryData) -> tuple[list[str], str]:
    """The size cells of a row and, where a figure has another source than its column's
    usual one, a note saying so."""
    has_library = (build.kat_status or "") not in NO_LIBRARY_STATUSES
    key = (build.instance.submission.key, build.instance.label)
    size_keys = CATEGORIES[spec.category].summary.size_keys
    if "transferred" in size_keys:  # key exchange
        return _kex_transferred(build.instance.id, key, has_library, data)
    # The registry's size columns: the implementation's own API sizes (from this campaign's
    # records) where measured, else the curated catalog (≈ marks a nominal size of a
    # variable-length object).
    api = data.api_sizes.get(build.instance.id, {}) if has_library else {}
    entry = data.sizes.get(key) if has_library else None
    cells = []
    for size_key in size_keys:
        catalog_attr, api_key = CATALOG_SIZES[size_key]
        if api.get(api_key):
            cells.append(fmt.format_size(api[api_key]))
        else:
            value = getattr(entry, catalog_attr) if entry else None
            cells.append(fmt.format_size(value, entry.basis if entry else ""))
    return cells, ""


def _kex_transferred(
    instance_id: int, key: tuple[str, str], has_library: bool, data: _SummaryData
) -> tuple[list[str], str]:
    """The "transferred (B)" cell of a key exchange and, where it is not the catalog's, a note.

    Bytes sent in all protocol messages (the published figure); the long-term public keys are
    accounted separately in the catalog. Without a catalog row: the messages of one measured
    exchange.
    """
    if not has_library:
        return [fmt.format_size(None)], ""
    exchange = data.timing.get((instance_id, "exchange", 0))
    transfer = kex_transfer(data.bandwidth.get(key), exchange["kex"] if exchange else None)
    note = KEX_MEASURED_NOTE if transfer.source == MEASURED_SOURCE else ""
    return [fmt.format_size(transfer.message_bytes)], note
