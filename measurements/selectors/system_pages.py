"""Reads for the system-level pages: performance index, per-system summary and method page,
external size audit, symmetric survey and KAT overview.

Every function issues a fixed number of queries, independent of the number of rows: related rows
are fetched in bulk and joined in Python. All figures are formatted with `measurements.formatting`
(the one formatter); the templates only place strings.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Avg, Count
from django.urls import NoReverseMatch, reverse

from measurements import formatting as fmt
from measurements.domain import CATEGORIES
from measurements.label_patterns import LabelPatternError, compile_label_pattern
from measurements.models import (
    Build,
    Campaign,
    Category,
    ExternalSize,
    HashProfile,
    KatIssue,
    KATResult,
    KatStatus,
    KexBandwidth,
    Measurement,
    SizeAudit,
    Submission,
    SummaryNote,
    System,
)

MISSING = fmt.MISSING
KAT_CAVEAT_NOTE = "KAT/output caveat; see candidate page"
# Statuses for which no library exists, so no API sizes can be shown.
NO_LIBRARY_STATUSES = {KatStatus.BUILDFAIL, KatStatus.LOADFAIL}
# Message lengths of the guide (S1–S8), used when nothing has been measured yet.
GUIDE_MESSAGE_LENGTHS = (32, 128, 512, 1024, 4096, 8192, 16384, 65536)
HASH_SUMMARY_LENGTHS = (32, 1024, 65536)
CATEGORY_ORDER = tuple(CATEGORIES)  # summary order, from the domain registry


# --- URLs -------------------------------------------------------------------------------------


def _url(name: str, args: Iterable[Any], fallback: str) -> str:
    """Reverse a route of another page family, or fall back to its documented path."""
    try:
        return reverse(name, args=list(args))
    except NoReverseMatch:
        return fallback


def candidate_url(system_key: str, submission_key: str) -> str:
    return _url(
        "measurements:candidate",
        (system_key, submission_key),
        f"/performance/{system_key}/{submission_key}/",
    )


def evidence_url(evidence_id: int) -> str:
    return _url("measurements:evidence", (evidence_id,), f"/evidence/{evidence_id}/")


def summary_url(system_key: str) -> str:
    return _url("measurements:summary", (system_key,), f"/performance/{system_key}/")


def method_url(system_key: str) -> str:
    return _url("measurements:method", (system_key,), f"/performance/{system_key}/method/")


def _api(helper: str, fallback: str, *args: Any) -> str:
    """The API query behind a page, from `measurements.api.links` where it offers `helper`."""
    try:
        from measurements.api import links  # provided by the API work, may be absent
    except ImportError:
        return fallback
    function = getattr(links, helper, None)
    if function is None:
        return fallback
    try:
        return str(function(*args))
    except NoReverseMatch:
        return fallback


def api_system_url(system_key: str) -> str:
    """Machine-readable counterpart of a system's summary (every measurement on the system)."""
    return _api(
        "api_url_for_system_summary", f"/api/v1/measurements/?system={system_key}", system_key
    )


def api_index_url() -> str:
    return _api("api_url_for_index", "/api/v1/systems/")


def api_campaigns_url(system_key: str) -> str:
    return _api(
        "api_url_for_system_campaigns", f"/api/v1/systems/{system_key}/campaigns/", system_key
    )


def api_sizes_url(candidate: str = "") -> str:
    fallback = "/api/v1/size-audit/" + (f"?submission={candidate}" if candidate else "")
    return _api("api_url_for_sizes", fallback, candidate or None)


def api_submissions_url() -> str:
    return _api("api_url_for_submissions", "/api/v1/submissions/")


# --- Campaign choice --------------------------------------------------------------------------


def campaign_for_system(system: System, campaign_key: str | None = None) -> Campaign | None:
    """The campaign a system's pages show: the requested one, else the latest that is not merely
    planned or failed (imported, complete, running or paused), else the latest of any status.
    One query."""
    campaigns = list(Campaign.objects.filter(system=system).order_by("-started_utc", "-id"))
    if campaign_key:
        return next((c for c in campaigns if c.key == campaign_key), None)
    useful = [
        c for c in campaigns if c.status not in (Campaign.Status.PLANNED, Campaign.Status.FAILED)
    ]
    return (useful or campaigns or [None])[0]


def _preferred_campaigns(campaigns: Iterable[Campaign]) -> dict[int, Campaign]:
    """system id → the campaign `campaign_for_system` would pick, from rows already fetched."""
    by_system: dict[int, list[Campaign]] = defaultdict(list)
    for c in campaigns:
        by_system[c.system_id].append(c)
    chosen = {}
    for system_id, rows in by_system.items():
        rows.sort(key=lambda c: (c.started_utc is not None, c.started_utc, c.id), reverse=True)
        useful = [
            c for c in rows if c.status not in (Campaign.Status.PLANNED, Campaign.Status.FAILED)
        ]
        chosen[system_id] = (useful or rows)[0]
    return chosen


# --- Performance index ------------------------------------------------------------------------


@dataclass
class IndexSystem:
    system: System
    campaigns: list[Campaign]
    candidates_measured: int
    candidates_built: int
    summary_url: str
    method_url: str
    api_url: str


@dataclass
class IndexSubmission:
    submission: Submission
    instances: int
    links: list[tuple[str, str | None]]  # (system key, candidate page URL or None)


@dataclass
class IndexPage:
    systems: list[IndexSystem]
    submissions_by_category: list[tuple[str, list[IndexSubmission]]]
    submission_count: int
    api_url: str = ""
    api_submissions_url: str = ""


def index_page() -> IndexPage:
    """Systems with their campaigns and candidate counts; submissions with links to their
    candidate pages on every system where they were built or measured. Five queries."""
    systems = list(System.objects.order_by("key"))
    campaigns = list(Campaign.objects.order_by("-started_utc", "-id"))
    submissions = list(Submission.objects.annotate(n_instances=Count("instances")).order_by("key"))
    built = set(
        Build.objects.values_list("campaign__system_id", "instance__submission_id").distinct()
    )
    measured = set(
        Measurement.objects.values_list("campaign__system_id", "instance__submission_id").distinct()
    )
    campaigns_by_system: dict[int, list[Campaign]] = defaultdict(list)
    for c in campaigns:
        campaigns_by_system[c.system_id].append(c)
    index_systems = [
        IndexSystem(
            system=s,
            campaigns=campaigns_by_system.get(s.id, []),
            candidates_measured=len({sub for sys_id, sub in measured if sys_id == s.id}),
            candidates_built=len({sub for sys_id, sub in built if sys_id == s.id}),
            summary_url=summary_url(s.key),
            method_url=method_url(s.key),
            api_url=api_system_url(s.key),
        )
        for s in systems
    ]
    grouped: dict[str, list[IndexSubmission]] = defaultdict(list)
    for sub in submissions:
        links = [
            (
                s.key,
                candidate_url(s.key, sub.key)
                if (s.id, sub.id) in built or (s.id, sub.id) in measured
                else None,
            )
            for s in systems
        ]
        grouped[sub.category].append(
            IndexSubmission(submission=sub, instances=sub.n_instances, links=links)
        )
    ordered = [
        (Category(cat).label if cat in Category.values else cat, grouped[cat])
        for cat in sorted(grouped, key=_category_rank)
    ]
    return IndexPage(
        systems=index_systems,
        submissions_by_category=ordered,
        submission_count=len(submissions),
        api_url=api_index_url(),
        api_submissions_url=api_submissions_url(),
    )


def _category_rank(category: str) -> int:
    return CATEGORY_ORDER.index(category) if category in CATEGORY_ORDER else len(CATEGORY_ORDER)


# --- Per-system summary -----------------------------------------------------------------------


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
    def measured_rows(self) -> int:
        return sum(1 for r in self.rows if any(v is not None for v in r.raw_cycles.values()))


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
            *[_length_label(n) for n in self.iccs_lengths],
            f"cycles/byte ({_length_label(self.iccs_lengths[-1])})" if self.iccs_lengths else "",
        ]


def _length_label(n: int) -> str:
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} B"


def _compiled(pattern: str) -> Any:
    """A curator's label pattern compiled with RE2 (linear time), or None if it is invalid."""
    try:
        return compile_label_pattern(pattern)
    except LabelPatternError:
        return None


def _regex_catalog(rows: Iterable[Any], text_attr: str) -> dict[str, list[tuple[Any, str]]]:
    """candidate → [(compiled label regex, text)] in catalog order; invalid regexes are skipped."""
    out: dict[str, list[tuple[Any, str]]] = defaultdict(list)
    for row in rows:
        compiled = _compiled(row.label_regex)
        if compiled is not None:
            out[row.candidate].append((compiled, getattr(row, text_attr)))
    return out


def _matching(catalog: dict[str, list[tuple[Any, str]]], candidate: str, label: str) -> list[str]:
    return [text for regex, text in catalog.get(candidate, []) if regex.search(label)]


def _output_bits_from_label(label: str) -> int | None:
    match = re.search(r"-(\d+)$", label)
    return int(match.group(1)) if match else None


def system_summary(system: System, campaign_key: str | None = None) -> SystemSummary:
    """Everything the per-system summary shows. Nine queries whatever the number of rows."""
    campaign = campaign_for_system(system, campaign_key)
    other_systems = list(System.objects.exclude(pk=system.pk).order_by("key"))
    builds: list[Build] = []
    measurements: list[dict[str, Any]] = []
    shares: dict[tuple[int, str, int], float | None] = {}
    if campaign is not None:
        builds = list(
            Build.objects.filter(campaign=campaign)
            .select_related("instance__submission")
            .only(
                "id",
                "kat_status",
                "kat_log_id",
                "instance__id",
                "instance__label",
                "instance__position",
                "instance__submission__key",
                "instance__submission__category",
                "instance__submission__algorithm",
                "instance__submission__spec_url",
            )
            .order_by("instance__submission__key", "instance__position", "instance__label")
        )
        measurements = list(
            Measurement.objects.filter(campaign=campaign).values(
                "instance_id", "operation", "input_bytes", "mean_cycles", "measurements", "sizes"
            )
        )
        shares = {
            (p["instance_id"], p["operation"], p["input_bytes"]): p["hash_share"]
            for p in HashProfile.objects.filter(campaign=campaign).values(
                "instance_id", "operation", "input_bytes", "hash_share"
            )
        }
    sizes = {(e.candidate, e.instance_label): e for e in ExternalSize.objects.all()}
    bandwidth = {(k.candidate, k.instance_label): k for k in KexBandwidth.objects.all()}
    notes = _regex_catalog(SummaryNote.objects.order_by("candidate", "position"), "note")

    timing: dict[tuple[int, str, int], dict[str, Any]] = {
        (m["instance_id"], m["operation"], m["input_bytes"]): m for m in measurements
    }
    api_sizes: dict[int, dict[str, Any]] = {}
    for m in measurements:
        if m["sizes"]:
            api_sizes.setdefault(m["instance_id"], m["sizes"])
    # ICCS pseudoXOF baseline: (output bits, message length) → mean cycles.
    iccs_builds = [b for b in builds if b.instance.submission.category == Category.ICCS]
    baseline: dict[tuple[int, int], float] = {}
    for b in iccs_builds:
        label = b.instance.label
        bits = _output_bits_from_label(label)
        if label.startswith("pseudoXOF-") and bits:
            for (inst, op, length), m in timing.items():
                if inst == b.instance.id and op == "hash" and m["mean_cycles"]:
                    baseline[(bits, length)] = m["mean_cycles"]

    kat_counts: dict[str, Counter] = defaultdict(Counter)
    sections = []
    for spec in SECTION_SPECS:
        rows = []
        for b in builds:
            sub = b.instance.submission
            if sub.category != spec.category:
                continue
            kat_counts[spec.category][b.kat_status or "unknown"] += 1
            rows.append(
                _summary_row(
                    spec,
                    b,
                    system.key,
                    timing,
                    shares,
                    sizes,
                    bandwidth,
                    notes,
                    baseline,
                    api_sizes,
                )
            )
        sections.append(SummarySection(spec=spec, rows=rows))

    iccs_ids = {b.instance.id for b in iccs_builds}
    lengths = sorted(
        {length for (inst, op, length) in timing if op == "hash" and inst in iccs_ids}
    ) or list(GUIDE_MESSAGE_LENGTHS)
    iccs_rows = []
    for b in iccs_builds:
        label = b.instance.label
        cells = []
        for length in lengths:
            m = timing.get((b.instance.id, "hash", length))
            cells.append(fmt.format_cycles(m["mean_cycles"]) if m else MISSING)
        last = timing.get((b.instance.id, "hash", lengths[-1]))
        iccs_rows.append(
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
        kat_counts=dict(kat_counts),
        api_url=api_system_url(system.key),
        method_url=method_url(system.key),
    )


def _summary_row(
    spec: SectionSpec,
    build: Build,
    system_key: str,
    timing: dict[tuple[int, str, int], dict[str, Any]],
    shares: dict[tuple[int, str, int], float | None],
    sizes: dict[tuple[str, str], ExternalSize],
    bandwidth: dict[tuple[str, str], KexBandwidth],
    notes: dict[str, list[tuple[Any, str]]],
    baseline: dict[tuple[int, int], float],
    api_sizes: dict[int, dict[str, Any]],
) -> SummaryRow:
    instance = build.instance
    sub = instance.submission
    status = build.kat_status or ""
    cells: list[str] = []
    raw: dict[str, float | None] = {}
    if spec.category == Category.HASH:
        for length in HASH_SUMMARY_LENGTHS:
            m = timing.get((instance.id, "hash", length))
            cycles = m["mean_cycles"] if m else None
            ratio = None
            if m and cycles:
                digest = (m["sizes"] or {}).get("digest_bytes") or 0
                base = baseline.get((int(digest) * 8, length)) if digest else None
                ratio = cycles / base if base else None
            cells.append(
                fmt.format_cycles_with_ratio(cycles, ratio, m["measurements"] if m else None)
            )
            raw[_length_label(length)] = cycles
    else:
        for op in spec.operations:
            m = timing.get((instance.id, op, 0))
            cycles = m["mean_cycles"] if m else None
            cells.append(
                fmt.format_cycles_with_share(
                    cycles, shares.get((instance.id, op, 0)), m["measurements"] if m else None
                )
            )
            raw[op] = cycles
    has_library = status not in NO_LIBRARY_STATUSES
    key = (sub.key, instance.label)
    if spec.category in (Category.KEM, Category.SIGN):
        # The implementation's own API sizes (from this campaign's records) where measured,
        # else the curated catalog (≈ marks a nominal size of a variable-length object).
        api = api_sizes.get(instance.id, {}) if has_library else {}
        entry = sizes.get(key) if has_library else None
        second = "ciphertext" if spec.category == Category.KEM else "signature"
        api_keys = {
            "public_key": "pk_bytes",
            "ciphertext": "ct_bytes",
            "signature": "signature_bytes",
        }
        for name in ("public_key", second):
            if api.get(api_keys[name]):
                cells.append(fmt.format_size(api[api_keys[name]]))
            else:
                value = getattr(entry, f"{name}_bytes") if entry else None
                cells.append(fmt.format_size(value, entry.basis if entry else ""))
    elif spec.category == Category.KEX:
        # Bytes sent in all protocol messages (the published "transferred" figure); the
        # long-term public keys are accounted separately in the catalog.
        kb = bandwidth.get(key) if has_library else None
        cells.append(fmt.format_size(kb.protocol_message_bytes if kb else None))
    row_notes = []
    flagged = bool(status) and status != KatStatus.PASS
    if flagged:
        row_notes.append(KAT_CAVEAT_NOTE)
    row_notes.extend(_matching(notes, sub.key, instance.label))
    return SummaryRow(
        submission_key=sub.key,
        algorithm=sub.algorithm,
        spec_url=sub.spec_url,
        label=instance.label,
        kat_status=status,
        kat_flag=f"⚠ KAT {status}" if flagged else "",
        kat_log_url=evidence_url(build.kat_log_id) if build.kat_log_id else None,
        cells=cells,
        notes="; ".join(row_notes) if row_notes else MISSING,
        candidate_url=candidate_url(system_key, sub.key),
        raw_cycles=raw,
    )


def summary_markdown(system: System, campaign_key: str | None = None) -> str:
    """The per-system summary as Markdown in the layout of the published `summary_<system>.md`
    (links relative to a `performance/` folder next to the `<id>/perf_<system>.md` pages)."""
    summary = system_summary(system, campaign_key)
    key = system.key
    lines = [f"# Performance — {system.arch_label}, system {key}", ""]
    if summary.campaign is None:
        lines += ["No campaign has been imported or run on this system yet.", ""]
        return "\n".join(lines)
    processor = summary.processor or "one core"
    lines += [
        f"Independent measurements on one {processor} core ({summary.clock}).",
        "",
        "- **Cycles** are the mean of all timed calls; `n=` marks fewer than 100 timed calls.",
        "- **Symmetric %** is the measured share of an operation spent in the ICCS placeholder "
        "functions (`pseudohash`, `pseudoXOF`, `sm3hash`).",
        "- **Notation:** `–` means not measured, ⚠ marks an instance whose submitted KAT "
        "vectors are not reproduced by the submitted code.",
        f"- See [method and limitations](method_{key}.md).",
        "",
    ]

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    for section in summary.sections:
        if not section.rows:
            continue
        lines += [f"## {section.spec.title}", ""]
        headers = section.headers
        lines.append("| " + " | ".join(headers) + " |")
        lines.append("|" + "---|" * len(headers))
        for row in section.rows:
            algorithm = cell(row.algorithm or MISSING)
            if row.spec_url:
                algorithm += f" [PDF]({row.spec_url})"
            label = f"`{row.label}`" + (f" {row.kat_flag}" if row.kat_flag else "")
            parts = [
                f"[{row.submission_key}](../{row.submission_key}/perf_{key}.md)",
                algorithm,
                label,
                *[cell(c) for c in row.cells],
                cell(row.notes),
            ]
            lines.append("| " + " | ".join(parts) + " |")
        lines.append("")
        if section.spec.category == Category.KEX and summary.iccs_rows:
            lines += _iccs_markdown(summary)
    return "\n".join(lines)


def _iccs_markdown(summary: SystemSummary) -> list[str]:
    headers = summary.iccs_headers
    lines = ["## ICCS hash helpers", ""]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "---|" * len(headers))
    for row in summary.iccs_rows:
        bits = str(row.output_bits) if row.output_bits else MISSING
        lines.append(
            "| " + " | ".join([f"`{row.function}`", bits, *row.cells, row.cycles_per_byte]) + " |"
        )
    lines.append("")
    return lines


# --- Method page ------------------------------------------------------------------------------

PLANNING_LABELS = {  # constant → (meaning, "s" for a duration in seconds)
    "trials": ("trials per operation", ""),
    "trial_target_s": ("target duration of one trial", "s"),
    "min_total": ("minimum timed calls in total", ""),
    "max_iters_per_trial": ("maximum calls per trial", ""),
    "op_budget_s": ("time budget of one operation", "s"),
    "separate_process_setup_s": ("setup time above which trials share one process", "s"),
}


@dataclass
class MethodPage:
    system: System
    campaign: Campaign | None
    planning_rows: list[tuple[str, str, str]]  # (constant, meaning, value)
    planning: dict[str, str]  # constant → formatted value, for the prose
    arch_rows: list[tuple[str, str]]
    environment_rows: list[tuple[str, str]]
    clock: str
    counter_rows: list[tuple[str, str]]
    tick_rows: list[tuple[str, str]]
    host_checks: list[dict[str, Any]]
    host_checks_with_problems: int
    host_problems: list[Any]
    unfixed_host: bool
    timing_records: int
    profiles: int
    cpus: list[tuple[int | None, int]]  # (cpu, number of records)
    shard_cpus: list[tuple[str, Any]]
    summary_url: str
    other_systems: list[System]
    api_url: str = ""


def _plain(value: Any) -> str:
    """A planning constant or flag as text (numbers through the formatter)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return fmt.format_int(value)
    if isinstance(value, float):
        return fmt.format_general(value)
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value) if value else "none"
    if value is None or value == "":
        return MISSING
    return str(value)


def _counter_rows(counters: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """Counter name, overhead and frequency from our driver's counter records (merged)."""
    rows: list[tuple[str, str]] = []
    seen: dict[str, set[str]] = defaultdict(set)
    for counter in counters:
        for key, value in (counter or {}).items():
            if isinstance(value, dict | list):
                continue
            if key.endswith("_hz") and isinstance(value, int | float):
                text = fmt.format_frequency(value)
            elif "cycles" in key and isinstance(value, int | float):
                text = fmt.format_cycles(value)
            elif key.endswith(("_ns",)) and isinstance(value, int | float):
                text = fmt.format_seconds(value / 1e9)
            elif key.endswith(("_s", "_seconds")) and isinstance(value, int | float):
                text = fmt.format_seconds(value)
            else:
                text = _plain(value)
            seen[key].add(text)
    for key in sorted(seen):
        rows.append((key.replace("_", " "), " / ".join(sorted(seen[key]))))
    return rows


def method_page(system: System, campaign_key: str | None = None) -> MethodPage:
    """The method page of a system's campaign, from its stored constants. Five queries."""
    campaign = campaign_for_system(system, campaign_key)
    planning_values: dict[str, Any] = dict(campaign.planning or {}) if campaign else {}
    planning: dict[str, str] = {}
    planning_rows = []
    for key, value in planning_values.items():
        meaning, unit = PLANNING_LABELS.get(key, (key.replace("_", " "), ""))
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        text = fmt.format_seconds(value) if unit == "s" and is_number else _plain(value)
        planning[key] = text
        planning_rows.append((key, meaning, text))
    arch_rows = []
    if campaign:
        for key, value in (campaign.arch_config or {}).items():
            arch_rows.append((key.replace("_", " "), _plain(value)))
        if campaign.harness_additions:
            arch_rows.append(("harness additions", campaign.harness_additions))
    env = dict(campaign.environment or campaign.environment_at_start or {}) if campaign else {}
    environment_rows = _environment_rows(env, campaign)

    counters: list[dict[str, Any]] = []
    cpus: list[tuple[int | None, int]] = []
    tick_rows: list[tuple[str, str]] = []
    timing_records = profiles = 0
    if campaign is not None:
        if campaign.counter:
            counters.append(campaign.counter)
        per_cpu = list(
            Measurement.objects.filter(campaign=campaign)
            .values("cpu")
            .annotate(n=Count("id"))
            .order_by("cpu")
        )
        cpus = [(row["cpu"], row["n"]) for row in per_cpu]
        timing_records = sum(n for _, n in cpus)
        counters.extend(
            Measurement.objects.filter(campaign=campaign)
            .exclude(counter={})
            .values_list("counter", flat=True)
            .distinct()[:50]
        )
        ticks = list(
            HashProfile.objects.filter(campaign=campaign)
            .values("tick_source", "tick_hz")
            .annotate(n=Count("id"))
            .order_by("tick_source", "tick_hz")
        )
        profiles = sum(t["n"] for t in ticks)
        # One row per tick source; its calibrated frequency varies slightly between profiles.
        by_source: dict[str, list[tuple[float | None, int]]] = defaultdict(list)
        for t in ticks:
            by_source[t["tick_source"] or "unknown tick source"].append((t["tick_hz"], t["n"]))
        for source, rows in by_source.items():
            rates = [hz for hz, _ in rows if hz]
            n = sum(count for _, count in rows)
            if rates:
                low, high = min(rates), max(rates)
                rate = fmt.format_frequency(low)
                if fmt.format_frequency(high) != rate:
                    rate = f"{rate} – {fmt.format_frequency(high)}"
                text = f"{rate} (one tick ≈ {fmt.format_seconds(1 / high)}; {n} profiles)"
            else:
                text = f"{MISSING} ({n} profiles)"
            tick_rows.append((source, text))
    host_checks = list(campaign.host_checks or []) if campaign else []
    return MethodPage(
        system=system,
        campaign=campaign,
        planning_rows=planning_rows,
        planning=planning,
        arch_rows=arch_rows,
        environment_rows=environment_rows,
        clock=fmt.format_clock(env) if env else MISSING,
        counter_rows=_counter_rows(counters),
        tick_rows=tick_rows,
        host_checks=[
            {
                "phase": c.get("phase", ""),
                "cpu": c.get("cpu"),
                "utc": c.get("utc", ""),
                "shard": c.get("shard", ""),
                "problems": list(c.get("problems") or []),
            }
            for c in host_checks
            if isinstance(c, dict)
        ],
        host_checks_with_problems=sum(
            1 for c in host_checks if isinstance(c, dict) and c.get("problems")
        ),
        host_problems=list(campaign.host_problems or []) if campaign else [],
        unfixed_host=bool(campaign and campaign.unfixed_host),
        timing_records=timing_records,
        profiles=profiles,
        cpus=cpus,
        shard_cpus=sorted(((campaign.settings or {}).get("shard_cpus") or {}).items())
        if campaign
        else [],
        summary_url=summary_url(system.key),
        other_systems=list(System.objects.exclude(pk=system.pk).order_by("key")),
        api_url=api_campaigns_url(system.key),
    )


def _environment_rows(env: dict[str, Any], campaign: Campaign | None) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    if not env:
        return rows
    cpu = env.get("cpu_model") or MISSING
    core = campaign.primary_cpu if campaign and campaign.primary_cpu is not None else None
    rows.append(("processor", f"{cpu} (CPU {core})" if core is not None else str(cpu)))
    if env.get("machine"):
        rows.append(("machine", str(env["machine"])))
    rows.append(("clock", fmt.format_clock(env)))
    if env.get("core_clock_hz"):
        rows.append(("measured core clock", fmt.format_frequency(env["core_clock_hz"])))
    if env.get("memory_total_kib"):
        rows.append(("memory", fmt.format_mib(int(env["memory_total_kib"]))))
    os_kernel = " / ".join(str(env[k]) for k in ("os", "kernel") if env.get(k))
    if os_kernel:
        rows.append(("OS / kernel", os_kernel))
    tools = " / ".join(str(env[k]) for k in ("compiler", "cmake") if env.get(k))
    if tools:
        rows.append(("compiler / build tool", tools))
    for key in ("perf_event_paranoid", "cpufreq_driver", "logical_cpus_online", "virtualized"):
        if key in env and env[key] not in (None, ""):
            rows.append((key.replace("_", " "), _plain(env[key])))
    if campaign is not None:
        rows.append(
            (
                "campaign start / end (UTC)",
                f"{fmt.format_utc(campaign.started_utc)} / {fmt.format_utc(campaign.ended_utc)}",
            )
        )
    return rows


# --- External size audit ----------------------------------------------------------------------

AUDIT_FIELDS = ("public_key", "ciphertext", "signature")


@dataclass
class AuditRow:
    submission_key: str
    label: str
    field: str
    api: str
    catalog: str
    basis: str
    state: str  # differs | api-missing | catalog-missing | agrees
    difference: str


@dataclass
class SizeAuditPage:
    rows: list[AuditRow]
    counts: list[tuple[str, str, int]]  # (state, label, rows) in AUDIT_STATE_ORDER
    total: int
    systems: list[str]
    candidates: list[str]
    selected_system: str
    selected_candidate: str
    selected_state: str
    api_url: str = ""


AUDIT_STATE_ORDER = ("differs", "api-missing", "catalog-missing", "agrees")
AUDIT_STATE_LABELS = {
    "differs": "API and catalog differ",
    "api-missing": "no API size measured",
    "catalog-missing": "not in the catalog",
    "agrees": "agree",
}


def _audit_state(audit: SizeAudit) -> str:
    if audit.agrees:
        return "agrees"
    if audit.api_bytes is None:
        return "api-missing"
    if audit.catalog_bytes is None:
        return "catalog-missing"
    return "differs"


def size_audit_page(system: str = "", candidate: str = "", state: str = "") -> SizeAuditPage:
    """SizeAudit rows, disagreements first, optionally restricted to the instances built on a
    system, to one candidate or to one state. Three queries."""
    qs = SizeAudit.objects.select_related("instance__submission").order_by(
        "instance__submission__key", "instance__position", "instance__label", "field"
    )
    systems = list(System.objects.order_by("key").values_list("key", flat=True))
    if system:
        qs = qs.filter(instance__builds__campaign__system__key=system).distinct()
    if candidate:
        qs = qs.filter(instance__submission__key=candidate)
    audits = list(qs)
    candidates = sorted(
        SizeAudit.objects.values_list("instance__submission__key", flat=True).distinct()
    )
    counts: Counter = Counter()
    rows = []
    for audit in audits:
        row_state = _audit_state(audit)
        counts[row_state] += 1
        if state and row_state != state:
            continue
        diff = MISSING
        if audit.api_bytes is not None and audit.catalog_bytes is not None:
            delta = int(audit.api_bytes) - int(audit.catalog_bytes)
            diff = f"{delta:+d}" if delta else "0"
        rows.append(
            AuditRow(
                submission_key=audit.instance.submission.key,
                label=audit.instance.label,
                field=audit.field.replace("_", " "),
                api=fmt.format_int(audit.api_bytes),
                catalog=fmt.format_size(audit.catalog_bytes, audit.basis),
                basis=audit.basis or MISSING,
                state=row_state,
                difference=diff,
            )
        )
    rows.sort(key=lambda r: AUDIT_STATE_ORDER.index(r.state))  # stable: catalog order inside
    return SizeAuditPage(
        rows=rows,
        counts=[(key, AUDIT_STATE_LABELS[key], counts.get(key, 0)) for key in AUDIT_STATE_ORDER],
        total=len(audits),
        systems=systems,
        candidates=candidates,
        selected_system=system,
        selected_candidate=candidate,
        selected_state=state,
        api_url=api_sizes_url(candidate),
    )


# --- Symmetric survey -------------------------------------------------------------------------

NOT_SURVEYED = "not surveyed"


@dataclass
class SurveyRow:
    submission: Submission
    verdict: str
    note: str
    shares: list[tuple[str, str, int]]  # per system: (system key, mean hash share, profiles)


@dataclass
class SurveyPage:
    verdict_counts: list[tuple[str, int]]
    rows: list[SurveyRow]
    systems: list[str]
    surveyed: int
    api_url: str = ""


def survey_page() -> SurveyPage:
    """Survey verdicts per candidate and the measured mean ICCS hash share per system (mean over
    every profiled operation of every instance). Three queries."""
    submissions = sorted(
        Submission.objects.exclude(category=Category.ICCS),
        key=lambda sub: (_category_rank(sub.category), sub.key),
    )
    systems = list(System.objects.order_by("key").values_list("key", flat=True))
    shares = {
        (row["instance__submission_id"], row["campaign__system__key"]): (row["mean"], row["n"])
        for row in HashProfile.objects.filter(hash_share__isnull=False)
        .values("instance__submission_id", "campaign__system__key")
        .annotate(mean=Avg("hash_share"), n=Count("id"))
    }
    measured_systems = [s for s in systems if any(k[1] == s for k in shares)]
    counts: Counter = Counter()
    rows = []
    for sub in submissions:
        verdict = sub.survey_verdict.strip() or NOT_SURVEYED
        counts[verdict] += 1
        row_shares = []
        for s in measured_systems:
            mean, n = shares.get((sub.id, s), (None, 0))
            row_shares.append((s, fmt.format_share(mean), n))
        rows.append(
            SurveyRow(submission=sub, verdict=verdict, note=sub.survey_note, shares=row_shares)
        )
    ordered = sorted(counts.items(), key=lambda kv: (kv[0] == NOT_SURVEYED, -kv[1], kv[0]))
    return SurveyPage(
        verdict_counts=ordered,
        rows=rows,
        systems=measured_systems,
        surveyed=sum(n for v, n in counts.items() if v != NOT_SURVEYED),
        api_url=api_submissions_url(),
    )


# --- KAT overview -----------------------------------------------------------------------------


@dataclass
class KatCountRow:
    campaign_key: str
    system_key: str
    category: str
    counts: list[int]  # per status in KatOverview.statuses
    total: int


@dataclass
class KatProblem:
    system_key: str
    campaign_key: str
    submission_key: str
    category: str
    label: str
    status: str
    flags: str
    action: str
    cause: str
    cause_source: str  # catalog | log | build log | none
    kat_log_url: str | None
    candidate_url: str


@dataclass
class KatOverview:
    statuses: list[str]
    count_rows: list[KatCountRow]
    problems: list[KatProblem]
    totals: list[tuple[str, int]]  # (status, builds) in status order


def _log_excerpt(result: dict[str, Any] | None, lines: int = 3) -> str:
    """The first informative lines of a KAT log: not its `key = value` header, not blank."""
    if not result:
        return ""
    if result.get("first_difference"):
        return str(result["first_difference"]).strip()
    kept = []
    for line in str(result.get("log") or "").splitlines():
        text = line.strip()
        if not text or re.match(r"^[A-Za-z_]+\s+=\s", text):
            continue
        kept.append(text)
        if len(kept) == lines:
            break
    return "\n".join(kept)


def kat_overview() -> KatOverview:
    """KAT status counts per campaign and category, and every non-PASS build with its cause
    (the KAT issue catalog, else the log). Five queries."""
    campaigns = {c.id: c for c in Campaign.objects.select_related("system")}
    grouped = list(
        Build.objects.values("campaign_id", "instance__submission__category", "kat_status")
        .annotate(n=Count("id"))
        .order_by()
    )
    present = {g["kat_status"] or "unknown" for g in grouped}
    statuses = [s for s in KatStatus.values if s in present] + sorted(
        present - set(KatStatus.values)
    )
    table: dict[tuple[int, str], Counter] = defaultdict(Counter)
    totals: Counter = Counter()
    for g in grouped:
        status = g["kat_status"] or "unknown"
        table[(g["campaign_id"], g["instance__submission__category"])][status] += g["n"]
        totals[status] += g["n"]
    count_rows = []
    for (campaign_id, category), counter in sorted(
        table.items(),
        key=lambda kv: (
            campaigns[kv[0][0]].system.key if kv[0][0] in campaigns else "",
            kv[0][0],
            _category_rank(kv[0][1]),
        ),
    ):
        campaign = campaigns.get(campaign_id)
        count_rows.append(
            KatCountRow(
                campaign_key=campaign.key if campaign else str(campaign_id),
                system_key=campaign.system.key if campaign else "",
                category=Category(category).label if category in Category.values else category,
                counts=[counter.get(s, 0) for s in statuses],
                total=sum(counter.values()),
            )
        )

    bad = list(
        Build.objects.exclude(kat_status=KatStatus.PASS)
        .select_related("instance__submission", "campaign__system")
        .order_by(
            "campaign__system__key",
            "instance__submission__key",
            "instance__position",
            "instance__label",
        )
    )
    issues = KatIssue.objects.order_by("candidate", "position")
    catalog: dict[str, list[tuple[Any, KatIssue]]] = defaultdict(list)
    for issue in issues:
        compiled = _compiled(issue.label_regex)
        if compiled is not None:
            catalog[issue.candidate].append((compiled, issue))
    results = {
        r["build_id"]: r
        for r in KATResult.objects.filter(kind="official")
        .exclude(build__kat_status=KatStatus.PASS)
        .values("build_id", "first_difference", "log")
    }
    problems = []
    for b in bad:
        sub = b.instance.submission
        issue = next(
            (i for regex, i in catalog.get(sub.key, []) if regex.search(b.instance.label)), None
        )
        if issue is not None:
            cause, source, action = issue.cause, "catalog", issue.action
        else:
            excerpt = _log_excerpt(results.get(b.id))
            source = "log" if excerpt else "none"
            if not excerpt and (b.log or b.warnings):
                excerpt = _log_excerpt({"log": b.log or b.warnings})
                source = "build log" if excerpt else "none"
            cause = excerpt or "cause not recorded"
            action = ""
        problems.append(
            KatProblem(
                system_key=b.campaign.system.key,
                campaign_key=b.campaign.key,
                submission_key=sub.key,
                category=sub.category,
                label=b.instance.label,
                status=b.kat_status or "unknown",
                flags=b.flags,
                action=action,
                cause=cause,
                cause_source=source,
                kat_log_url=evidence_url(b.kat_log_id) if b.kat_log_id else None,
                candidate_url=candidate_url(b.campaign.system.key, sub.key),
            )
        )
    return KatOverview(
        statuses=statuses,
        count_rows=count_rows,
        problems=problems,
        totals=[(status, totals[status]) for status in statuses],
    )
