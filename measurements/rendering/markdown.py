"""The pages as Markdown, in the format of the previously published static pages.

Everything here writes out data built by `measurements.selectors.pages` (the same data the HTML
templates render), so a page and its Markdown always show the same figures. Links point at the
static site's own layout (``../performance/summary_<system>.md`` …); evidence is referred to by
its path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from measurements import formatting as fmt
from measurements.domain import KEX
from measurements.selectors.pages.candidate import CandidatePage
from measurements.selectors.pages.cells import Cell, Table
from measurements.selectors.pages.summary import SummarySection, SystemSummary

MISSING = fmt.MISSING


def escape(text: str) -> str:
    """Text safe inside a table cell (a `|` would end the cell)."""
    return text.replace("|", "\\|")


def markdown_cell(cell: Cell) -> str:
    """A cell's parts, inline code in backticks, with its footnote number."""
    body = "".join(f"`{text}`" if kind == "code" else text for kind, text in cell.parts)
    return escape(body + cell.note_suffix)


def table_lines(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A pipe table: header, separator and one line per row of already rendered cells."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def markdown_table(table: Table) -> list[str]:
    return table_lines(table.headers, ([markdown_cell(c) for c in row] for row in table.rows))


# --- Candidate page ---------------------------------------------------------------------------


def candidate_markdown(page: CandidatePage) -> str:
    """The candidate page as Markdown, section for section as on the published pages."""
    out = _candidate_header(page) + _candidate_basics(page) + _candidate_kat(page)
    out += _candidate_figures(page) + _candidate_symmetric(page) + _candidate_evidence(page)
    return "\n".join(out) + "\n"


def _candidate_header(page: CandidatePage) -> list[str]:
    system, submission = page.system.key, page.submission.key
    crumbs = [
        f"[Performance {system}](../performance/summary_{system}.md) › `{submission}`",
        f"[method](../performance/method_{system}.md)",
    ]
    if page.urls.get("niccs"):
        crumbs.append(f"[NICCS page]({page.urls['niccs']})")
    out = [f"# {page.title}", "", " · ".join(crumbs), ""]
    if len(page.systems) > 1:
        others = [
            f"[{s.key}](perf_{s.key}.md)" if not s.current else f"**{s.key}**" for s in page.systems
        ]
        out += ["Systems: " + " · ".join(others), ""]
    if page.campaign.unfixed_host:  # the same warning as the web page, never dropped
        out += [
            f"**⚠ Measured on an unfixed host** (campaign `{page.campaign.key}`): "
            + "; ".join(page.campaign.host_problems)
            + ". Cycle counts from this host are not comparable with those of a fixed box.",
            "",
        ]
    guide = "ARM" if page.system.arch == "aarch64" else "x86"
    out += [
        f"Independent measurement following the structure of the NICCS {guide} self-assessment "
        "guide, §3.5 (1)–(7). Not a submitter self-assessment.",
        "",
    ]
    return out


def _candidate_basics(page: CandidatePage) -> list[str]:
    """§1 basic information and §2 assessment environment."""
    links = [f"[method and limitations](../performance/method_{page.system.key}.md)"]
    if page.urls.get("security_report"):
        links.append(f"[security report]({page.urls['security_report']})")
    if page.urls.get("niccs"):
        links.append(f"[NICCS page]({page.urls['niccs']})")
    return [
        "## 1. Basic information",
        "",
        f"- Category: {page.category_line}",
        f"- Algorithm: {page.algorithm}",
        f"- Implementation versions measured: {page.versions}",
        "- Parameter sets: " + (", ".join(f"`{p}`" for p in page.parameter_sets) or MISSING),
        "- Links: " + " · ".join(links),
        "",
        "## 2. Assessment environment",
        "",
        *markdown_table(page.environment),
        "",
    ]


def _kat_sentence(page: CandidatePage) -> str:
    if page.kat_logs:  # our own campaigns: the KAT logs actually stored
        logs = ", ".join(f"`{path}`" for path, _ in page.kat_logs)
        return (
            "Each library was checked against the submitted KAT vectors before timing; each "
            "stored KAT log names the reference, the comparison and both canonical digests: "
            f"{logs}."
        )
    return (
        "Each library was checked against the submitted KAT vectors (SHA-256 manifest "
        f"`{page.kat_manifest}`) before timing."
    )


def _sizes_sentence(page: CandidatePage) -> str:
    if page.sizes_note:  # key exchange: how each number is sourced
        return page.sizes_note
    if not page.sizes_from_catalog:
        return (
            "All sizes are the API figures the library reports; the curated external size "
            "catalog has no row for these parameter sets."
        )
    return (
        "External public-key, ciphertext and signature sizes follow the curated external size "
        "catalog; secret-key and shared-secret lengths remain API figures. See "
        "[the size audit](../performance/EXTERNAL_SIZE_AUDIT.md) for disagreements."
    )


def _candidate_kat(page: CandidatePage) -> list[str]:
    """§3 functional testing, with the KAT footnotes."""
    out = [
        "## 3. Functional testing (KAT)",
        "",
        _kat_sentence(page),
        "",
        *markdown_table(page.kat),
        "",
    ]
    for number, action, cause in page.kat_notes:
        prefix = "Not timed. " if action == "exclude" else ""
        out += [f"[{number}] {prefix}{cause}", ""]
    return out


def _candidate_figures(page: CandidatePage) -> list[str]:
    """§4 performance, §5 resource consumption and §6 sizes."""
    return [
        "## 4. Performance",
        "",
        *markdown_table(page.performance),
        "",
        "## 5. Resource consumption",
        "",
        "Static memory is approximated by the library's loadable ELF segments; peak memory is "
        "the process high-water mark (VmHWM) including the benchmark driver and libc, so both "
        "are upper-bound proxies rather than isolated algorithm memory.",
        "",
        *markdown_table(page.resources),
        "",
        "## 6. Transmission and storage overhead",
        "",
        _sizes_sentence(page),
        "",
        *markdown_table(page.sizes),
        "",
    ]


def _candidate_symmetric(page: CandidatePage) -> list[str]:
    note = f" — {page.survey_note}" if page.survey_note else ""
    return [
        "## Symmetric primitives",
        "",
        "[Survey](../performance/symmetric-survey.md) verdict: "
        f"**{page.survey_verdict or MISSING}**{note}",
        "",
        "Share of each operation spent in the ICCS placeholder hash functions and in the ICCS "
        "DRNG (reference build, measured in the same run with link-time wrappers):",
        "",
        *markdown_table(page.symmetric),
        "",
    ]


def _candidate_evidence(page: CandidatePage) -> list[str]:
    """§7 raw evidence index and where the measurement code lives."""
    return [
        "## 7. Raw evidence index",
        "",
        f"Paths are those of the files of campaign `{page.campaign.key}` stored by NGCC Perf "
        "(each is shown with its SHA-256 and can be downloaded byte for byte under "
        "`/evidence/`); each JSON file records its commands, environment and trials.",
        "",
        *markdown_table(page.evidence),
        "",
        "Measurement code: the timing driver and profile wrappers in `native/`, the campaign "
        "steps in `runner/` of NGCC Perf.",
    ]


# --- Per-system summary -----------------------------------------------------------------------


def summary_markdown(summary: SystemSummary) -> str:
    """The per-system summary in the layout of the published `summary_<system>.md` (links
    relative to a `performance/` folder next to the `<id>/perf_<system>.md` pages)."""
    key = summary.system.key
    lines = [f"# Performance — {summary.system.arch_label}, system {key}", ""]
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
    for section in summary.sections:
        if not section.rows:
            continue
        lines += [f"## {section.spec.title}", "", *_section_table(section, key), ""]
        if section.spec.category == KEX.key and summary.iccs_rows:
            lines += _iccs_markdown(summary)
    return "\n".join(lines)


def _section_table(section: SummarySection, system_key: str) -> list[str]:
    rows = []
    for row in section.rows:
        algorithm = escape(row.algorithm or MISSING)
        if row.spec_url:
            algorithm += f" [PDF]({row.spec_url})"
        label = f"`{row.label}`" + (f" {row.kat_flag}" if row.kat_flag else "")
        rows.append(
            [
                f"[{row.submission_key}](../{row.submission_key}/perf_{system_key}.md)",
                algorithm,
                label,
                *[escape(c) for c in row.cells],
                escape(row.notes),
            ]
        )
    return table_lines(section.headers, rows)


def _iccs_markdown(summary: SystemSummary) -> list[str]:
    rows = [
        [
            f"`{row.function}`",
            str(row.output_bits) if row.output_bits else MISSING,
            *row.cells,
            row.cycles_per_byte,
        ]
        for row in summary.iccs_rows
    ]
    return ["## ICCS hash helpers", "", *table_lines(summary.iccs_headers, rows), ""]
