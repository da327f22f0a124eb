"""Reads for the per-candidate performance page (§3.5 (1)–(7)) of one system.

`candidate_page` builds every table of the page as formatted strings (`Cell`s), in the order of
the published pages: instances in `Instance.position` order (the order of ``build.json``), then
operations in their natural order (keygen, enc, dec; keygen, sign, verify; exchange first for
key exchange; hash rows by message length). The web template and the Markdown export both
consume these rows, so the two can never disagree. Missing records or profiles are shown as
`MISSING` (``–``), never estimated.

The number of queries is fixed (at most 9), whatever the number of instances or operations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Exists, OuterRef, Q, Sum
from django.http import Http404
from django.urls import NoReverseMatch, reverse

from measurements import formatting as fmt
from measurements.api.links import api_url_for_candidate_page
from measurements.domain import CATEGORIES, CATEGORY_OPERATIONS, HASH_CATEGORIES
from measurements.label_patterns import label_matches
from measurements.models import (
    Build,
    Campaign,
    Category,
    ExternalSize,
    HashProfile,
    HashProfileCall,
    Instance,
    KatIssue,
    KexBandwidth,
    Measurement,
    Submission,
    System,
)
from measurements.stats import calls_per_operation

CATEGORY_LINES: dict[str, str] = {key: spec.description for key, spec in CATEGORIES.items()}


# --- Formatted cells and tables -----------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One formatted table cell: text and inline-code parts, an optional link and note."""

    parts: tuple[tuple[str, str], ...]
    href: str = ""
    numeric: bool = False
    note: int | None = None  # footnote number (KAT causes)

    @property
    def text(self) -> str:
        """Plain text, as a reader sees it."""
        return "".join(text for _, text in self.parts) + self.note_suffix

    @property
    def markdown(self) -> str:
        body = "".join(f"`{text}`" if kind == "code" else text for kind, text in self.parts)
        return (body + self.note_suffix).replace("|", "\\|")

    @property
    def note_suffix(self) -> str:
        return f" [{self.note}]" if self.note else ""


def text(value: str, *, numeric: bool = False, href: str = "", note: int | None = None) -> Cell:
    return Cell(parts=(("text", value),), numeric=numeric, href=href, note=note)


def code(value: str, *, href: str = "") -> Cell:
    return Cell(parts=(("code", value),), href=href)


def figure(value: str) -> Cell:
    return text(value, numeric=True)


@dataclass(frozen=True)
class Table:
    key: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


# --- Chart inputs (values, not strings: charts.py formats the labels) --------------------------


@dataclass(frozen=True)
class ChartBar:
    series: str
    value: float | None


@dataclass(frozen=True)
class ChartGroup:
    label: str
    bars: tuple[ChartBar, ...]


@dataclass(frozen=True)
class ChartData:
    title: str
    series: tuple[str, ...]
    groups: tuple[ChartGroup, ...]


# --- The page ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemLink:
    key: str
    arch_label: str
    url: str
    current: bool


@dataclass
class CandidatePage:
    system: System
    submission: Submission
    campaign: Campaign
    title: str
    category_line: str
    algorithm: str
    versions: str
    parameter_sets: tuple[str, ...]
    systems: tuple[SystemLink, ...]
    environment: Table
    kat: Table
    kat_notes: tuple[tuple[int, str, str], ...]  # (number, action, cause)
    kat_manifest: str
    performance: Table
    resources: Table
    sizes: Table
    symmetric: Table
    evidence: Table
    survey_verdict: str
    survey_note: str
    cycles_chart: ChartData
    systems_chart: ChartData | None
    urls: dict[str, str] = field(default_factory=dict)

    @property
    def is_hash(self) -> bool:
        return self.submission.category in HASH_CATEGORIES

    @property
    def tables(self) -> tuple[Table, ...]:
        return (
            self.environment,
            self.kat,
            self.performance,
            self.resources,
            self.sizes,
            self.symmetric,
            self.evidence,
        )


# --- Helpers ------------------------------------------------------------------------------------


def _url(name: str, kwargs: dict[str, Any], fallback: str) -> str:
    try:
        return reverse(name, kwargs=kwargs)
    except NoReverseMatch:
        return fallback


def candidate_page_url(system_key: str, submission_key: str) -> str:
    return _url(
        "measurements:candidate",
        {"system_key": system_key, "submission_key": submission_key},
        f"/performance/{system_key}/{submission_key}/",
    )


def summary_page_url(system_key: str) -> str:
    return _url("measurements:summary", {"system": system_key}, f"/performance/{system_key}/")


def evidence_url(evidence_id: int) -> str:
    return _url("measurements:evidence", {"evidence_id": evidence_id}, f"/evidence/{evidence_id}/")


def api_url_for_candidate(system_key: str, submission_key: str) -> str:
    """The REST query returning this page's data (the API's own link helper)."""
    return api_url_for_candidate_page(system_key, submission_key)


def _page_urls(system_key: str, submission: Submission) -> dict[str, str]:
    sk = {"system": system_key}
    return {
        "summary": _url("measurements:summary", sk, f"/performance/{system_key}/"),
        "method": _url("measurements:method", sk, f"/performance/{system_key}/method/"),
        "survey": _url("measurements:survey", {}, "/survey/"),
        "size_audit": _url("measurements:size_audit", {}, "/size-audit/"),
        "api": api_url_for_candidate(system_key, submission.key),
        "niccs": submission.niccs_url,
        "security_report": submission.security_report_url,
        "spec": submission.spec_url,
    }


def operation_sort_key(category: str, operation: str, input_bytes: int) -> tuple[int, str, int]:
    order = CATEGORY_OPERATIONS.get(category, ())  # natural order; others follow by name
    rank = order.index(operation) if operation in order else len(order)
    return (rank, operation, input_bytes)


def operation_label(category: str, operation: str, input_bytes: int) -> str:
    """`keygen`; hash rows are named by their message length (`64 B`)."""
    if category in HASH_CATEGORIES:
        return fmt.format_message_length(input_bytes)
    return operation


def _n_cell(m: Measurement | None) -> Cell:
    if m is None or not m.measurements:
        return figure(fmt.MISSING)
    plan = m.plan or {}
    return figure(
        fmt.format_n(m.measurements, plan.get("trials"), plan.get("iterations_per_trial"))
    )


def _kat_notes(
    issues: Iterable[KatIssue], labels: Iterable[str]
) -> tuple[dict[str, int], list[tuple[int, str, str]]]:
    """Footnote number per instance label, and the notes in order of first use."""
    by_label: dict[str, int] = {}
    notes: list[tuple[int, str, str]] = []
    numbers: dict[int, int] = {}
    issues = list(issues)
    for label in labels:
        for issue in issues:
            # RE2, never `re`: the pattern is curator input (see measurements.label_patterns).
            matched = label_matches(issue.label_regex, label) or issue.label_regex == label
            if matched:
                if issue.pk not in numbers:
                    numbers[issue.pk] = len(numbers) + 1
                    notes.append((numbers[issue.pk], issue.action, issue.cause))
                by_label[label] = numbers[issue.pk]
                break
    return by_label, notes


def _environment_table(campaign: Campaign) -> Table:
    env = campaign.environment or {}

    def value(*names: str) -> str:
        for name in names:
            v = env.get(name)
            if v not in (None, ""):
                return str(v)
        return fmt.MISSING

    cpu = campaign.primary_cpu if campaign.primary_cpu is not None else env.get("cpu_number")
    processor = value("cpu_model")
    if processor != fmt.MISSING and cpu is not None:
        processor = f"{processor} (CPU {fmt.format_int(cpu)}, one core)"
    rows: list[tuple[Cell, ...]] = [(text("processor"), text(processor))]
    if env.get("machine") or campaign.system.machine:
        rows.append((text("machine"), text(str(env.get("machine") or campaign.system.machine))))
    memory = env.get("memory_total_kib")
    rows += [
        (text("clock"), text(fmt.format_clock(env))),
        (text("memory"), text(fmt.format_mib(int(memory) if memory is not None else None))),
        (text("OS / kernel"), text(f"{value('os')} / {value('kernel')}")),
        (
            text("compiler / build tool"),
            text(f"{value('compiler')} / {value('cmake', 'build_tool')}"),
        ),
        (
            text("campaign start / end (UTC)"),
            text(f"{fmt.format_utc(campaign.started_utc)} / {fmt.format_utc(campaign.ended_utc)}"),
        ),
    ]
    return Table("environment", ("item", "value"), tuple(rows))


# --- Queries ------------------------------------------------------------------------------------


def _campaigns_with_data(submission: Submission) -> list[Campaign]:
    """The latest campaign with data for `submission` on each system (one query)."""
    has_build = Build.objects.filter(campaign=OuterRef("pk"), instance__submission=submission)
    has_measurement = Measurement.objects.filter(
        campaign=OuterRef("pk"), instance__submission=submission
    )
    campaigns = (
        Campaign.objects.filter(Q(Exists(has_build)) | Q(Exists(has_measurement)))
        .select_related("system")
        .defer("environment_at_start", "environment_at_end", "host_checks", "arch_config")
        .order_by("system__key", "-started_utc", "-id")
    )
    latest: dict[str, Campaign] = {}
    for campaign in campaigns:
        latest.setdefault(campaign.system.key, campaign)
    return list(latest.values())


def systems_with_data(submission_key: str) -> list[System]:
    """Systems on which `submission_key` has builds or measurements (for links elsewhere)."""
    submission = Submission.objects.filter(key=submission_key).first()
    if submission is None:
        return []
    return [c.system for c in _campaigns_with_data(submission)]


def candidate_page(system_key: str, submission_key: str) -> CandidatePage:
    """Everything the candidate page shows, formatted; `Http404` for unknown keys."""
    submission = Submission.objects.filter(key=submission_key).first()
    if submission is None:
        raise Http404(f"No submission {submission_key!r}.")
    campaigns = _campaigns_with_data(submission)
    campaign = next((c for c in campaigns if c.system.key == system_key), None)
    if campaign is None:
        raise Http404(f"No measurements of {submission_key} on system {system_key!r}.")
    system = campaign.system
    category = submission.category

    builds = {
        b.instance_id: b
        for b in Build.objects.filter(campaign=campaign, instance__submission=submission)
        .select_related("kat_log")
        .only(
            "id",
            "instance_id",
            "flags",
            "kat_status",
            "elf_load_bytes",
            "kat_log_path",
            "kat_log_sha256",
            "kat_log__id",
            "kat_log__relative_path",
            "kat_log__sha256",
        )
    }
    all_measurements = list(
        Measurement.objects.filter(campaign__in=campaigns, instance__submission=submission)
        .select_related("evidence")
        .only(
            "id",
            "campaign_id",
            "instance_id",
            "operation",
            "input_bytes",
            "status",
            "plan",
            "measurements",
            "mean_cycles",
            "mean_seconds",
            "operations_per_second",
            "median_trial_seconds",
            "throughput_mb_per_second",
            "baseline_rss_bytes",
            "peak_rss_bytes",
            "stack_high_water_bytes",
            "sample_median_cycles",
            "sample_ci95_low_cycles",
            "sample_ci95_high_cycles",
            "sizes",
            "kex",
            "evidence__id",
            "evidence__relative_path",
            "evidence__sha256",
        )
    )
    measurements = [m for m in all_measurements if m.campaign_id == campaign.pk]
    profiles = list(
        HashProfile.objects.filter(campaign=campaign, instance__submission=submission)
        .select_related("evidence")
        .only(
            "id",
            "instance_id",
            "operation",
            "input_bytes",
            "total_operations",
            "hash_share",
            "drng_share",
            "evidence__id",
            "evidence__relative_path",
            "evidence__sha256",
        )
    )
    calls: dict[int, list[tuple[str, int]]] = defaultdict(list)
    if profiles:
        for row in (
            HashProfileCall.objects.filter(profile__in=[p.pk for p in profiles])
            .values("profile_id", "fn")
            .annotate(total=Sum("calls"))
            .order_by("profile_id", "fn")
        ):
            calls[row["profile_id"]].append((row["fn"], row["total"]))

    used_ids = (
        set(builds) | {m.instance_id for m in measurements} | {p.instance_id for p in profiles}
    )
    instances = [
        i
        for i in Instance.objects.filter(submission=submission).order_by("position", "label")
        if i.pk in used_ids
    ]
    issues = list(KatIssue.objects.filter(candidate=submission.key).order_by("position"))
    external: dict[str, ExternalSize] = {}
    kex_bandwidth: dict[str, KexBandwidth] = {}
    if category == Category.KEX:
        kex_bandwidth = {
            k.instance_label: k for k in KexBandwidth.objects.filter(candidate=submission.key)
        }
    elif category in (Category.KEM, Category.SIGN):
        external = {
            e.instance_label: e for e in ExternalSize.objects.filter(candidate=submission.key)
        }

    # Row keys: (operation, input bytes) of the candidate, expected ones included.
    # Operations every instance is expected to have (shown as `–` when missing); hash rows
    # follow the lengths actually measured.
    keys = (
        set() if category in HASH_CATEGORIES else {(op, 0) for op in CATEGORY_OPERATIONS[category]}
    )
    keys |= {(m.operation, m.input_bytes) for m in measurements}
    keys |= {(p.operation, p.input_bytes) for p in profiles}
    row_keys = sorted(keys, key=lambda k: operation_sort_key(category, *k))
    by_key = {(m.instance_id, m.operation, m.input_bytes): m for m in measurements}
    profile_by_key = {(p.instance_id, p.operation, p.input_bytes): p for p in profiles}

    note_of, notes = _kat_notes(issues, [i.label for i in instances])
    is_hash = category in HASH_CATEGORIES

    # §3 functional testing
    kat_rows = []
    for instance in instances:
        build = builds.get(instance.pk)
        kat_rows.append(
            (
                code(instance.label),
                text(build.flags if build and build.flags else fmt.MISSING),
                text(
                    build.kat_status if build and build.kat_status else fmt.MISSING,
                    note=note_of.get(instance.label),
                ),
            )
        )

    # §4 performance, §5 resources, symmetric primitives. Our own driver also records per-batch
    # samples and the stack high-water mark: shown in extra columns when any row has them
    # (imported harness data does not, and its pages keep the published layout).
    with_samples = any(m.sample_median_cycles is not None for m in measurements)
    with_stack = any(m.stack_high_water_bytes is not None for m in measurements)
    perf_rows, resource_rows, symmetric_rows = [], [], []
    for instance in instances:
        build = builds.get(instance.pk)
        for op, nbytes in row_keys:
            m = by_key.get((instance.pk, op, nbytes))
            p = profile_by_key.get((instance.pk, op, nbytes))
            head = (code(instance.label), text(operation_label(category, op, nbytes)))
            if is_hash:
                perf_rows.append(
                    head
                    + (
                        figure(fmt.format_cycles(m.mean_cycles if m else None)),
                        figure(fmt.format_cycles_per_byte(m.mean_cycles if m else None, nbytes)),
                        figure(fmt.format_seconds(m.mean_seconds if m else None)),
                        figure(fmt.format_general(m.throughput_mb_per_second if m else None)),
                        _n_cell(m),
                    )
                    + ((figure(_sample_median(m)),) if with_samples else ())
                )
            else:
                perf_rows.append(
                    head
                    + (
                        figure(fmt.format_cycles(m.mean_cycles if m else None)),
                        figure(fmt.format_seconds(m.mean_seconds if m else None)),
                        figure(fmt.format_general(m.operations_per_second if m else None)),
                        figure(fmt.format_seconds(m.median_trial_seconds if m else None)),
                        _n_cell(m),
                    )
                    + ((figure(_sample_median(m)),) if with_samples else ())
                )
            resource_rows.append(
                head
                + (
                    figure(fmt.format_int(build.elf_load_bytes if build else None)),
                    figure(fmt.format_kib(m.baseline_rss_bytes if m else None)),
                    figure(fmt.format_kib(m.peak_rss_bytes if m else None)),
                )
                + (
                    (figure(fmt.format_size_bytes(m.stack_high_water_bytes if m else None)),)
                    if with_stack
                    else ()
                )
            )
            per_op = calls_per_operation(calls.get(p.pk, []), p.total_operations) if p else None
            symmetric_rows.append(
                head
                + (
                    figure(fmt.format_share(p.hash_share if p else None)),
                    figure(fmt.format_share(p.drng_share if p else None)),
                    text(fmt.format_calls_per_operation(per_op)),
                )
            )

    # §6 transmission and storage overhead
    sizes_headers, size_rows = _size_table(
        category, instances, measurements, external, kex_bandwidth
    )

    # §7 raw evidence index
    evidence_rows = []
    for instance in instances:
        build = builds.get(instance.pk)
        if build is not None and (build.kat_log_id or build.kat_log_path):
            log = build.kat_log
            digest = log.sha256 if log else build.kat_log_sha256
            path = log.relative_path if log else build.kat_log_path
            evidence_rows.append(
                (
                    code(instance.label),
                    Cell(
                        parts=(
                            ("text", "KAT log (sha256 "),
                            ("code", f"{digest[:16]}…" if digest else fmt.MISSING),
                            ("text", ")"),
                        )
                    ),
                    code(path, href=evidence_url(log.pk) if log else ""),
                )
            )
        for kind, items in (
            ("timing", [m for m in measurements if m.instance_id == instance.pk]),
            ("hash profile", [p for p in profiles if p.instance_id == instance.pk]),
        ):
            files = sorted(
                (item for item in items if item.evidence_id),
                key=lambda item: item.evidence.relative_path,
            )
            for item in files:
                label = item.operation
                if is_hash:
                    label += f" {fmt.format_message_length(item.input_bytes)}"
                evidence_rows.append(
                    (
                        code(instance.label),
                        text(f"{kind} {label}"),
                        code(item.evidence.relative_path, href=evidence_url(item.evidence.pk)),
                    )
                )

    op_header = "message length" if is_hash else "operation"
    perf_headers = (
        ("instance", op_header, "mean cycles", "cycles/byte", "mean time", "MB/s")
        + ("n (trials × iters)",)
        if is_hash
        else (
            "instance",
            "operation",
            "mean cycles",
            "mean time",
            "ops/s",
            "median trial",
            "n (trials × iters)",
        )
    )

    systems = tuple(
        SystemLink(
            key=c.system.key,
            arch_label=c.system.arch_label,
            url=candidate_page_url(c.system.key, submission.key),
            current=c.system.key == system.key,
        )
        for c in campaigns
    )
    algorithm = submission.algorithm or submission.key
    return CandidatePage(
        system=system,
        submission=submission,
        campaign=campaign,
        title=f"{submission.key} {algorithm} — performance on {system.arch_label} "
        f"(system {system.key})",
        category_line=CATEGORY_LINES.get(category, submission.function_label),
        algorithm=algorithm,
        versions=", ".join(dict.fromkeys(i.variant or "reference" for i in instances))
        or fmt.MISSING,
        parameter_sets=tuple(i.label for i in instances),
        systems=systems,
        environment=_environment_table(campaign),
        kat=Table("kat", ("instance", "build flags", "KAT"), tuple(kat_rows)),
        kat_notes=tuple(notes),
        kat_manifest=f"{submission.key}/kat.sha256",
        performance=Table(
            "performance",
            perf_headers + (("median per call (95 % CI)",) if with_samples else ()),
            tuple(perf_rows),
        ),
        resources=Table(
            "resources",
            ("instance", op_header, "static: ELF image (bytes)", "baseline RSS", "peak RSS")
            + (("stack high-water",) if with_stack else ()),
            tuple(resource_rows),
        ),
        sizes=Table("sizes", sizes_headers, tuple(size_rows)),
        symmetric=Table(
            "symmetric",
            ("instance", op_header, "pseudohash/XOF/sm3", "DRNG", "calls per operation"),
            tuple(symmetric_rows),
        ),
        evidence=Table("evidence", ("instance", "item", "file"), tuple(evidence_rows)),
        survey_verdict=submission.survey_verdict,
        survey_note=submission.survey_note,
        cycles_chart=_cycles_chart(category, instances, row_keys, by_key, system.key),
        systems_chart=_systems_chart(category, instances, row_keys, all_measurements, campaigns),
        urls=_page_urls(system.key, submission),
    )


def _first_sizes(measurements: list[Measurement]) -> dict[int, dict[str, int]]:
    sizes: dict[int, dict[str, int]] = {}
    for m in measurements:
        if m.sizes and m.instance_id not in sizes:
            sizes[m.instance_id] = m.sizes
    return sizes


def _size_table(
    category: str,
    instances: list[Instance],
    measurements: list[Measurement],
    external: dict[str, ExternalSize],
    kex_bandwidth: dict[str, KexBandwidth],
) -> tuple[tuple[str, ...], list[tuple[Cell, ...]]]:
    api = _first_sizes(measurements)
    rows: list[tuple[Cell, ...]] = []
    if category == Category.KEX:
        exchange = {m.instance_id: m for m in measurements if m.operation == "exchange"}
        for instance in instances:
            bw = kex_bandwidth.get(instance.label)
            kex = exchange[instance.pk].kex if instance.pk in exchange else {}
            passes = kex.get("passes") if isinstance(kex, dict) else None
            if passes is None and isinstance(kex, dict) and isinstance(kex.get("messages"), list):
                passes = len(kex["messages"])
            rows.append(
                (
                    code(instance.label),
                    figure(fmt.format_int(passes)),
                    figure(fmt.format_int(bw.protocol_message_bytes if bw else None)),
                    figure(fmt.format_int(bw.total_bytes if bw else None)),
                )
            )
        return ("instance", "passes", "messages", "total"), rows
    if category in HASH_CATEGORIES:
        for instance in instances:
            digest = api.get(instance.pk, {}).get("digest_bytes")
            rows.append((code(instance.label), figure(fmt.format_int(digest or None))))
        return ("instance", "digest"), rows

    def api_size(instance: Instance, key: str) -> int | None:
        value = api.get(instance.pk, {}).get(key)
        return value if value else None

    def catalog(instance: Instance, attr: str, api_key: str) -> str:
        entry = external.get(instance.label)
        if entry is not None and getattr(entry, attr) is not None:
            return fmt.format_size(getattr(entry, attr), entry.basis)
        return fmt.format_size(api_size(instance, api_key))

    for instance in instances:
        if category == Category.SIGN:
            rows.append(
                (
                    code(instance.label),
                    figure(catalog(instance, "public_key_bytes", "pk_bytes")),
                    figure(fmt.format_size(api_size(instance, "sk_bytes"))),
                    figure(catalog(instance, "signature_bytes", "signature_bytes")),
                )
            )
        else:
            rows.append(
                (
                    code(instance.label),
                    figure(catalog(instance, "public_key_bytes", "pk_bytes")),
                    figure(fmt.format_size(api_size(instance, "sk_bytes"))),
                    figure(catalog(instance, "ciphertext_bytes", "ct_bytes")),
                    figure(fmt.format_size(api_size(instance, "ss_bytes"))),
                )
            )
    if category == Category.SIGN:
        return ("instance", "public key", "secret key", "signature"), rows
    return ("instance", "public key", "secret key", "ciphertext", "shared secret"), rows


def _cycles_chart(
    category: str,
    instances: list[Instance],
    row_keys: list[tuple[str, int]],
    by_key: dict[tuple[int, str, int], Measurement],
    system_key: str,
) -> ChartData:
    series = tuple(operation_label(category, op, n) for op, n in row_keys)
    groups = []
    for instance in instances:
        bars = []
        for (op, n), name in zip(row_keys, series, strict=True):
            m = by_key.get((instance.pk, op, n))
            bars.append(ChartBar(series=name, value=m.mean_cycles if m else None))
        groups.append(ChartGroup(label=instance.label, bars=tuple(bars)))
    return ChartData(
        title=f"Mean cycles per operation on {system_key} (log scale)",
        series=series,
        groups=tuple(groups),
    )


def _systems_chart(
    category: str,
    instances: list[Instance],
    row_keys: list[tuple[str, int]],
    measurements: list[Measurement],
    campaigns: list[Campaign],
) -> ChartData | None:
    if len(campaigns) < 2:
        return None
    system_of = {c.pk: c.system.key for c in campaigns}
    series = tuple(system_of.values())
    values = {
        (system_of[m.campaign_id], m.instance_id, m.operation, m.input_bytes): m
        for m in measurements
    }
    groups = []
    for instance in instances:
        for op, n in row_keys:
            bars = []
            for key in series:
                m = values.get((key, instance.pk, op, n))
                bars.append(ChartBar(series=key, value=m.mean_cycles if m else None))
            if any(b.value is not None for b in bars):
                groups.append(
                    ChartGroup(
                        label=f"{instance.label} {operation_label(category, op, n)}",
                        bars=tuple(bars),
                    )
                )
    if not groups:
        return None
    return ChartData(
        title="Mean cycles per operation, systems side by side (log scale)",
        series=series,
        groups=tuple(groups),
    )


def _sample_median(m: Measurement | None) -> str:
    """Median cycles per call over the per-batch samples, with its 95 % confidence interval."""
    if m is None or m.sample_median_cycles is None:
        return fmt.MISSING
    return fmt.format_cycles_interval(
        m.sample_median_cycles, m.sample_ci95_low_cycles, m.sample_ci95_high_cycles
    )
