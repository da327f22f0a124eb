"""Import the figures of previously published candidate pages (``<id>/perf_<system>.md``) as a
campaign whose provenance is "published page, no raw trials".

Some figures exist only on the published pages (x86_1 for kem-29, kem-30, kem-38): no record,
trial or profile file was kept. Their tables are read back into builds, measurements (without
trials) and hash profiles of one campaign per system, ``<system>-published-pages``, with
``source = "published"``, so that profiles and comparisons show those systems beside measured
ones — always marked, never mixed silently, and excluded from anything that needs trials.

Every value read is formatted back with `measurements.formatting` and must give the same cell
text, so the pages rebuilt from the database equal the published pages cell for cell; any cell
that does not round-trip aborts the import with its file, line and column. The page itself is
stored as the evidence file of every figure it carries. A re-import of unchanged pages changes
nothing; a changed page replaces that candidate's rows in the campaign, in one transaction.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.db import transaction

from measurements import formatting as fmt
from measurements.domain import HASH_CATEGORIES
from measurements.models import (
    Build,
    Campaign,
    EvidenceFile,
    HashProfile,
    HashProfileCall,
    Instance,
    Measurement,
    Submission,
    System,
)
from measurements.provenance import PUBLISHED as PROVENANCE
from measurements.provenance import PUBLISHED_SOURCE
from measurements.services.imports import ImportSummary
from measurements.services.recording import category_of

#: Calls per operation are stored as integer calls over this many operations.
PROFILE_OPERATIONS = 1_000_000
_PAGE_NAME = re.compile(r"^perf_(?P<system>[\w.-]+)\.md$")
_SECTION = re.compile(r"^## (?:(?P<number>\d)\. )?(?P<title>.+)$")
_SIZE_KEYS = {
    "public key": "pk_bytes",
    "secret key": "sk_bytes",
    "ciphertext": "ct_bytes",
    "shared secret": "ss_bytes",
    "signature": "signature_bytes",
}


class PublishedPageError(ValueError):
    """A published page that cannot be read back exactly: names the file, line and column."""

    def __init__(self, path: str, line: int, column: str, message: str) -> None:
        super().__init__(f"{path}:{line}: {column}: {message}")


@dataclass(frozen=True)
class Row:
    line: int
    cells: tuple[str, ...]


@dataclass
class PageTables:
    path: str
    candidate: str
    system: str
    title: str
    tables: dict[str, list[Row]] = field(default_factory=dict)


def campaign_key_for(system_key: str) -> str:
    return f"{system_key}-published-pages"


def read_page_tables(path: Path) -> PageTables:
    """The tables of a published candidate page by section ("2", "3", …, "symmetric")."""
    match = _PAGE_NAME.match(path.name)
    if match is None:
        raise PublishedPageError(str(path), 0, "file name", "expected perf_<system>.md")
    lines = path.read_text(encoding="utf-8").splitlines()
    page = PageTables(str(path), path.parent.name, match["system"], lines[0].lstrip("# "))
    section = ""
    for number, line in enumerate(lines, start=1):
        heading = _SECTION.match(line)
        if heading:
            section = heading["number"] or heading["title"].split()[0].lower()
            continue
        if not line.startswith("|") or line.startswith("|---"):
            continue
        # Row 0 of each section's table is its header.
        cells = tuple(c.strip().strip("`") for c in line.strip().strip("|").split(" | "))
        page.tables.setdefault(section, []).append(Row(number, cells))
    return page


# --- Cells read back, each checked against the formatter ----------------------------------------


def _unit_value(text: str, units: dict[str, float]) -> float:
    number, _, unit = text.partition(" ")
    return float(number) * units.get(unit, 1.0)


def _read(page: PageTables, row: Row, column: str, text: str, parse, formatter) -> Any:
    """`parse(text)`, checked: `formatter(value)` must give `text` back exactly."""
    if text == fmt.MISSING:
        return None
    try:
        value = parse(text)
    except (TypeError, ValueError) as error:
        raise PublishedPageError(page.path, row.line, column, f"cannot read {text!r}") from error
    if formatter(value) != text:
        raise PublishedPageError(
            page.path,
            row.line,
            column,
            f"{text!r} reads as {value!r}, shown as {formatter(value)!r}",
        )
    return value


def _cycles(text: str) -> float:
    return _unit_value(text, {"k": 1e3, "M": 1e6, "G": 1e9})


def _seconds(text: str) -> float:
    return _unit_value(text, {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9})


def _kib_bytes(text: str) -> int:
    return int(text.removesuffix(" KiB")) * 1024


def _share(text: str) -> float:
    return float(text.removesuffix("%")) / 100


def _size(text: str) -> int:
    return int(text.removeprefix("≈"))


def _calls(text: str) -> dict[str, float]:
    return {fn: float(n) for fn, n in (part.split(" ") for part in text.split(", "))}


def _n(text: str) -> tuple[int, int | None, int | None]:
    match = re.fullmatch(r"(\d+)(?: \((\d+) × (\d+)\))?", text)
    if match is None:
        raise ValueError(text)
    return int(match[1]), _opt_int(match[2]), _opt_int(match[3])


def _opt_int(text: str | None) -> int | None:
    return int(text) if text else None


# --- Environment (§2) ---------------------------------------------------------------------------


def _clock_environment(text: str) -> dict[str, str]:
    """cpufreq fields that `fmt.format_clock` writes as `text`."""
    env: dict[str, str] = {}
    fixed = re.match(r"fixed ([\d.]+) GHz \((?:governor (\S+), )?minimum = maximum\)", text)
    if fixed:
        env["cpufreq_min_khz"] = env["cpufreq_max_khz"] = str(round(float(fixed[1]) * 1e6))
        if fixed[2]:
            env["cpufreq_governor"] = fixed[2]
        text = text[fixed.end() :]
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition(" ")
        if name == "max":
            env["cpufreq_max_khz"] = str(round(float(value.removesuffix(" GHz")) * 1e6))
        elif name == "governor":
            env["cpufreq_governor"] = value
        elif name == "turbo":
            env["intel_pstate_no_turbo"] = "1" if value == "off" else "0"
        elif name == "boost":
            env["cpufreq_boost"] = "1" if value == "on" else "0"
        elif name == "SMT":
            env["smt_control"] = {"none": "notsupported"}.get(value, value)
    return env


def _environment(
    page: PageTables,
) -> tuple[dict[str, Any], int | None, datetime | None, datetime | None]:
    items = {row.cells[0]: (row, row.cells[1]) for row in page.tables.get("2", [])[1:]}
    env: dict[str, Any] = {}
    cpu = None
    if "processor" in items:
        row, text = items["processor"]
        match = re.fullmatch(r"(.+) \(CPU (\d+), one core\)", text)
        env["cpu_model"], cpu = (match[1], int(match[2])) if match else (text, None)
    if "clock" in items:
        row, text = items["clock"]
        env |= _read(page, row, "clock", text, _clock_environment, fmt.format_clock)
    if "memory" in items:
        row, text = items["memory"]
        env["memory_total_kib"] = _read(
            page, row, "memory", text, lambda t: int(t.removesuffix(" MiB")) * 1024, fmt.format_mib
        )
    for item, names in (
        ("OS / kernel", ("os", "kernel")),
        ("compiler / build tool", ("compiler", "cmake")),
    ):
        if item in items:
            env |= dict(zip(names, items[item][1].split(" / ", 1), strict=False))
    started = ended = None
    if "campaign start / end (UTC)" in items:
        row, text = items["campaign start / end (UTC)"]
        start_text, _, end_text = text.partition(" / ")
        started, ended = (_utc(page, row, t) for t in (start_text, end_text))
    return env, cpu, started, ended


def _utc(page: PageTables, row: Row, text: str) -> datetime | None:
    return _read(
        page,
        row,
        "campaign start / end",
        text,
        lambda t: datetime.strptime(t, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC),
        fmt.format_utc,
    )


# --- Tables (§3–§7) -----------------------------------------------------------------------------


@dataclass
class PageFigures:
    """Everything one page carries, by instance label (and operation), read and checked."""

    labels: list[str] = field(default_factory=list)
    kat: dict[str, tuple[str, str]] = field(default_factory=dict)  # label → (flags, status)
    kat_logs: dict[str, tuple[str, str]] = field(default_factory=dict)  # label → (path, sha)
    timing: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    elf_bytes: dict[str, int | None] = field(default_factory=dict)
    sizes: dict[str, dict[str, int]] = field(default_factory=dict)
    profiles: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)


def _data_rows(page: PageTables, section: str, width: int) -> list[Row]:
    rows = page.tables.get(section, [])[1:]
    for row in rows:
        if len(row.cells) != width:
            raise PublishedPageError(
                page.path,
                row.line,
                f"§{section}",
                f"expected {width} cells, found {len(row.cells)}",
            )
    return rows


def _read_kat(page: PageTables, figures: PageFigures) -> None:
    for row in _data_rows(page, "3", 3):
        label, flags, status = row.cells
        figures.labels.append(label)
        figures.kat[label] = (flags, status.split(" ")[0])
    for row in _data_rows(page, "7", 3):
        match = re.fullmatch(r"KAT log \(sha256 `?([0-9a-f]+)…`?\)", row.cells[1])
        if match:
            figures.kat_logs[row.cells[0]] = (row.cells[2], match[1])


def _read_timing(page: PageTables, figures: PageFigures) -> None:
    for row in _data_rows(page, "4", 7):
        label, op, cycles, mean, ops, median, n = row.cells
        measured = _read(page, row, "n (trials × iters)", n, _n, lambda v: fmt.format_n(*v))
        figures.timing[(label, op)] = {
            "mean_cycles": _read(page, row, "mean cycles", cycles, _cycles, fmt.format_cycles),
            "mean_seconds": _read(page, row, "mean time", mean, _seconds, fmt.format_seconds),
            "operations_per_second": _read(page, row, "ops/s", ops, float, fmt.format_general),
            "median_trial_seconds": _read(
                page, row, "median trial", median, _seconds, fmt.format_seconds
            ),
            "measurements": measured[0] if measured else 0,
            "plan": {"trials": measured[1], "iterations_per_trial": measured[2]}
            if measured and measured[1]
            else {},
        }
    for row in _data_rows(page, "5", 5):
        label, op, elf, baseline, peak = row.cells
        figures.elf_bytes[label] = _read(page, row, "ELF image", elf, int, fmt.format_int)
        timing = figures.timing.setdefault((label, op), {})
        timing["baseline_rss_bytes"] = _read(
            page, row, "baseline RSS", baseline, _kib_bytes, fmt.format_kib
        )
        timing["peak_rss_bytes"] = _read(page, row, "peak RSS", peak, _kib_bytes, fmt.format_kib)


def _read_sizes_and_profiles(page: PageTables, figures: PageFigures) -> None:
    table = page.tables.get("6", [])
    headers = table[0].cells[1:] if table else ()
    for row in _data_rows(page, "6", len(headers) + 1):
        sizes = {}
        for header, text in zip(headers, row.cells[1:], strict=True):
            if header not in _SIZE_KEYS:
                raise PublishedPageError(page.path, row.line, header, "unknown size column")
            value = _read(
                page,
                row,
                header,
                text,
                _size,
                lambda v, t=text: fmt.format_size(
                    v, "nominal-variable" if t.startswith("≈") else ""
                ),
            )
            if value is not None:
                sizes[_SIZE_KEYS[header]] = value
        figures.sizes[row.cells[0]] = sizes
    for row in _data_rows(page, "symmetric", 5):
        label, op, share, drng, calls = row.cells
        if share == drng == calls == fmt.MISSING:
            continue
        figures.profiles[(label, op)] = {
            "hash_share": _read(page, row, "pseudohash/XOF/sm3", share, _share, fmt.format_share),
            "drng_share": _read(page, row, "DRNG", drng, _share, fmt.format_share),
            "calls": _read(
                page, row, "calls per operation", calls, _calls, fmt.format_calls_per_operation
            )
            or {},
        }


def read_page_figures(page: PageTables) -> PageFigures:
    figures = PageFigures()
    _read_kat(page, figures)
    _read_timing(page, figures)
    _read_sizes_and_profiles(page, figures)
    return figures


# --- Writing ------------------------------------------------------------------------------------


@transaction.atomic
def published_campaigns_import(*, directory: Path, system_key: str) -> ImportSummary:
    """Import every ``<id>/perf_<system_key>.md`` under `directory` into the system's published
    campaign. All pages or none: a page that does not read back exactly aborts the import."""
    summary = ImportSummary()
    system = System.objects.filter(key=system_key).first()
    pages = sorted(Path(directory).glob(f"*/perf_{system_key}.md"))
    if system is None:
        raise PublishedPageError(str(directory), 0, "system", f"unknown system {system_key!r}")
    for path in pages:
        summary.files_seen += 1
        if not _page_import(path, system, summary):
            summary.files_unchanged += 1
    return summary


def _page_import(path: Path, system: System, summary: ImportSummary) -> bool:
    """Import one page; False when it is already there unchanged."""
    page = read_page_tables(path)
    submission = Submission.objects.filter(key=page.candidate).first()
    category = submission.category if submission else category_of(page.candidate)
    if category in HASH_CATEGORIES:
        raise PublishedPageError(page.path, 1, "category", "hash pages are not supported yet")
    figures = read_page_figures(page)
    env, cpu, started, ended = _environment(page)
    content = path.read_bytes()
    digest = hashlib.sha256(content).hexdigest()
    campaign, created = Campaign.objects.get_or_create(
        key=campaign_key_for(system.key),
        defaults={
            "system": system,
            "source": PUBLISHED_SOURCE,
            "status": Campaign.Status.IMPORTED,
            "started_utc": started,
            "ended_utc": ended,
            "environment": env,
            "primary_cpu": cpu,
            "history_note": f"Rebuilt from published pages: {PROVENANCE}.",
        },
    )
    summary.counts["campaigns"] += int(created)
    relative = f"pages/{page.candidate}/{path.name}"
    evidence = EvidenceFile.objects.filter(campaign=campaign, relative_path=relative).first()
    if evidence is not None and evidence.sha256 == digest:
        return False
    if evidence is None:
        evidence = EvidenceFile(
            campaign=campaign, relative_path=relative, kind=EvidenceFile.Kind.OTHER
        )
    evidence.sha256, evidence.size, evidence.content = digest, len(content), content
    evidence.save()
    summary.counts["evidence files"] += 1
    if submission is None:
        submission = Submission.objects.create(key=page.candidate, category=category)
        summary.counts["submissions"] += 1
    _store_figures(campaign, submission, figures, evidence, summary)
    return True


def _store_figures(
    campaign: Campaign,
    submission: Submission,
    figures: PageFigures,
    evidence: EvidenceFile,
    summary: ImportSummary,
) -> None:
    for model in (Build, Measurement, HashProfile):
        model.objects.filter(campaign=campaign, instance__submission=submission).delete()
    instances = {i.label: i for i in Instance.objects.filter(submission=submission)}
    for position, label in enumerate(figures.labels):
        if label not in instances:
            instances[label] = Instance.objects.create(
                submission=submission, label=label, position=position
            )
            summary.counts["instances"] += 1
        flags, status = figures.kat[label]
        path, sha = figures.kat_logs.get(label, ("", ""))
        Build.objects.create(
            campaign=campaign,
            instance=instances[label],
            flags=flags,
            kat_status=status,
            elf_load_bytes=figures.elf_bytes.get(label),
            kat_log_path=path,
            kat_log_sha256=sha,
        )
        summary.counts["builds"] += 1
    for (label, op), values in figures.timing.items():
        Measurement.objects.create(
            campaign=campaign,
            instance=instances[label],
            operation=op,
            planner=PUBLISHED_SOURCE,
            sizes=figures.sizes.get(label, {}),
            evidence=evidence,
            **values,
        )
        summary.counts["measurements"] += 1
    for (label, op), values in figures.profiles.items():
        profile = HashProfile.objects.create(
            campaign=campaign,
            instance=instances[label],
            operation=op,
            total_operations=PROFILE_OPERATIONS,
            hash_share=values["hash_share"],
            drng_share=values["drng_share"],
            evidence=evidence,
            meta={"provenance": PROVENANCE},
        )
        HashProfileCall.objects.bulk_create(
            HashProfileCall(
                profile=profile,
                position=i,
                fn=fn,
                in_bits=0,
                out_bits=0,
                calls=round(n * PROFILE_OPERATIONS),
                ticks=0,
            )
            for i, (fn, n) in enumerate(sorted(values["calls"].items()))
        )
        summary.counts["hash profiles"] += 1
