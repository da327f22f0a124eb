"""Markdown export of the candidate pages, in the format of the published static pages.

The rows come from the same selector as the web page (`selectors.candidate_page`), so the web
page and the exported file always show the same figures. Links point at the static site's own
layout (``../performance/summary_<system>.md`` …); evidence is referred to by its path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from measurements.models import Measurement
from measurements.selectors.candidate_page import CandidatePage, Table, candidate_page

ProgressCallback = Callable[[int, int, str], None]


def markdown_table(table: Table) -> list[str]:
    lines = [
        "| " + " | ".join(table.headers) + " |",
        "|" + "|".join("---" for _ in table.headers) + "|",
    ]
    lines += ["| " + " | ".join(cell.markdown for cell in row) + " |" for row in table.rows]
    return lines


def _unfixed_host_lines(page: CandidatePage) -> list[str]:
    """The same warning as the web page, never dropped from the export."""
    if not page.campaign.unfixed_host:
        return []
    return [
        f"**⚠ Measured on an unfixed host** (campaign `{page.campaign.key}`): "
        + "; ".join(page.campaign.host_problems)
        + ". Cycle counts from this host are not comparable with those of a fixed box.",
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


def candidate_markdown(page: CandidatePage) -> str:
    """The page as Markdown, section for section as on the published pages."""
    system, submission = page.system.key, page.submission.key
    guide = "ARM" if page.system.arch == "aarch64" else "x86"
    crumbs = [
        f"[Performance {system}](../performance/summary_{system}.md) › `{submission}`",
        f"[method](../performance/method_{system}.md)",
    ]
    if page.urls.get("niccs"):
        crumbs.append(f"[NICCS page]({page.urls['niccs']})")
    links = [f"[method and limitations](../performance/method_{system}.md)"]
    if page.urls.get("security_report"):
        links.append(f"[security report]({page.urls['security_report']})")
    if page.urls.get("niccs"):
        links.append(f"[NICCS page]({page.urls['niccs']})")
    out: list[str] = [f"# {page.title}", "", " · ".join(crumbs), ""]
    if len(page.systems) > 1:
        others = [
            f"[{s.key}](perf_{s.key}.md)" if not s.current else f"**{s.key}**" for s in page.systems
        ]
        out += ["Systems: " + " · ".join(others), ""]
    out += _unfixed_host_lines(page)
    out += [
        f"Independent measurement following the structure of the NICCS {guide} self-assessment "
        "guide, §3.5 (1)–(7). Not a submitter self-assessment.",
        "",
        "## 1. Basic information",
        "",
        f"- Category: {page.category_line}",
        f"- Algorithm: {page.algorithm}",
        f"- Implementation versions measured: {page.versions}",
        "- Parameter sets: " + (", ".join(f"`{p}`" for p in page.parameter_sets) or "–"),
        "- Links: " + " · ".join(links),
        "",
        "## 2. Assessment environment",
        "",
        *markdown_table(page.environment),
        "",
        "## 3. Functional testing (KAT)",
        "",
        _kat_sentence(page),
        "",
        *markdown_table(page.kat),
        "",
    ]
    for number, action, cause in page.kat_notes:
        prefix = "Not timed. " if action == "exclude" else ""
        out.append(f"[{number}] {prefix}{cause}")
        out.append("")
    out += [
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
        "## Symmetric primitives",
        "",
        "[Survey](../performance/symmetric-survey.md) verdict: "
        f"**{page.survey_verdict or '–'}**"
        + (f" — {page.survey_note}" if page.survey_note else ""),
        "",
        "Share of each operation spent in the ICCS placeholder hash functions and in the ICCS "
        "DRNG (reference build, measured in the same run with link-time wrappers):",
        "",
        *markdown_table(page.symmetric),
        "",
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
    return "\n".join(out) + "\n"


def submissions_with_data(system_key: str) -> list[str]:
    """Submission keys with at least one measurement on `system_key`, in key order."""
    return list(
        Measurement.objects.filter(campaign__system__key=system_key)
        .order_by("instance__submission__key")
        .values_list("instance__submission__key", flat=True)
        .distinct()
    )


def export_pages(
    *,
    system_key: str,
    out_dir: Path,
    submissions: list[str] | None = None,
    progress: ProgressCallback | None = None,
) -> list[Path]:
    """Write `<out>/<id>/perf_<system>.md` for every submission with data; returns the paths."""
    keys = submissions if submissions is not None else submissions_with_data(system_key)
    written: list[Path] = []
    for done, key in enumerate(keys, start=1):
        page = candidate_page(system_key, key)
        path = Path(out_dir) / key / f"perf_{system_key}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(candidate_markdown(page), encoding="utf-8")
        written.append(path)
        if progress:
            progress(done, len(keys), str(path))
    return written
