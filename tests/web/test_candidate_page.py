"""The per-candidate page against the published reference page, cell by cell."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from measurements import formatting as fmt
from measurements.models import EvidenceFile, Measurement
from tests.conftest import PAGES, SHARED_PRESENT
from tests.page_tables import html_tables, markdown_tables

KEM29_REFERENCE = PAGES / "kem-29" / "perf_arm_1.md"
TABLE_IDS = (
    "table-environment",
    "table-kat",
    "table-performance",
    "table-resources",
    "table-sizes",
    "table-symmetric",
    "table-evidence",
)


def _reference_tables() -> list[list[list[str]]]:
    if not SHARED_PRESENT or not KEM29_REFERENCE.is_file():
        return []
    return markdown_tables(KEM29_REFERENCE.read_text(encoding="utf-8"))


REFERENCE_TABLES = _reference_tables()
REFERENCE_CELLS = [
    (t, r, c)
    for t, table in enumerate(REFERENCE_TABLES)
    for r, row in enumerate(table)
    for c in range(len(row))
]


@pytest.fixture
def kem29_tables(arm1, client: Client) -> list[tuple[str, list[list[str]], list[list[str]]]]:
    response = client.get("/performance/arm_1/kem-29/")
    assert response.status_code == 200
    return html_tables(response.content.decode())


def _page(client: Client, system: str, submission: str) -> str:
    response = client.get(f"/performance/{system}/{submission}/")
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _table(html: str, table_id: str) -> list[list[str]]:
    return next(rows for tid, rows, _ in html_tables(html) if tid == table_id)


def test_reference_page_has_the_seven_tables():
    if not REFERENCE_TABLES:
        pytest.skip("reference page kem-29/perf_arm_1.md not found")
    assert len(REFERENCE_TABLES) == len(TABLE_IDS)


@pytest.mark.parametrize(("table", "row", "column"), REFERENCE_CELLS)
def test_kem29_arm1_cell_matches_reference(kem29_tables, table, row, column):
    """Every cell of every table of the reference page, one test per cell."""
    ours = {tid: rows for tid, rows, _ in kem29_tables}[TABLE_IDS[table]]
    expected = REFERENCE_TABLES[table][row][column]
    assert len(ours) == len(REFERENCE_TABLES[table]), "row count differs"
    assert ours[row][column] == expected


def test_kem29_arm1_tables_have_no_extra_cells(kem29_tables):
    if not REFERENCE_TABLES:
        pytest.skip("reference page not found")
    ours = {tid: rows for tid, rows, _ in kem29_tables}
    for table_id, reference in zip(TABLE_IDS, REFERENCE_TABLES, strict=True):
        assert [len(r) for r in ours[table_id]] == [len(r) for r in reference], table_id


def test_kem29_title_breadcrumb_and_sections(arm1, client):
    html = _page(client, "arm_1", "kem-29")
    assert "<h1>kem-29 Polar-KEM — performance on AArch64 (system arm_1)</h1>" in html
    assert 'href="/performance/arm_1/">Performance arm_1</a>' in html
    assert 'href="/performance/arm_1/method/">method</a>' in html
    for heading in (
        "1. Basic information",
        "2. Assessment environment",
        "3. Functional testing (KAT)",
        "4. Performance",
        "5. Resource consumption",
        "6. Transmission and storage overhead",
        "Symmetric primitives",
        "7. Raw evidence index",
    ):
        assert heading in html
    assert "Category: public-key algorithm; function: key encapsulation" in html
    assert "Implementation versions measured: reference" in html
    assert "<code>PolarKEM-128</code>, <code>PolarKEM-256</code>, <code>PolarKEM-512</code>" in html
    assert "Independent measurement following the structure of the NICCS ARM" in html
    assert 'href="/api/v1/systems/arm_1/submissions/kem-29/measurements/"' in html


def test_kem29_evidence_files_are_links_to_the_stored_files(arm1, kem29_tables):
    _, rows, links = next(t for t in kem29_tables if t[0] == "table-evidence")
    assert len(rows) == 22  # header + 3 × (KAT log, 3 timing, 3 profiles)
    for row, hrefs in zip(rows[1:], links[1:], strict=True):
        match = re.fullmatch(r"/evidence/(\d+)/", hrefs[2])
        assert match, hrefs
        evidence = EvidenceFile.objects.get(pk=int(match.group(1)))
        assert evidence.relative_path == row[2]
        assert evidence.campaign_id == arm1.pk


def test_kem29_chart_is_inline_svg_with_formatted_labels(arm1, client):
    html = _page(client, "arm_1", "kem-29")
    assert html.count("<svg") == 1  # only arm_1 has data: no systems chart
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert "log scale" in svg
    for label in ("158.4 k", "985.7 k", "2.46 M", "PolarKEM-512"):
        assert label in svg
    assert "<script" not in html


@pytest.mark.parametrize("submission", ["kem-17", "kem-29", "kem-30", "kem-38"])
def test_other_candidates_render_consistent_figures(arm1, client, submission):
    """Every §4/§5 figure on the page is the stored value through the one formatter."""
    html = _page(client, "arm_1", submission)
    perf = _table(html, "table-performance")
    resources = _table(html, "table-resources")
    stored = {
        (m.instance.label, m.operation): m
        for m in Measurement.objects.filter(
            campaign=arm1, instance__submission__key=submission
        ).select_related("instance")
    }
    assert len(perf) - 1 == len(stored) == len(resources) - 1
    for row in perf[1:]:
        m = stored[(row[0], row[1])]
        plan = m.plan
        assert row[2:] == [
            fmt.format_cycles(m.mean_cycles),
            fmt.format_seconds(m.mean_seconds),
            fmt.format_general(m.operations_per_second),
            fmt.format_seconds(m.median_trial_seconds),
            fmt.format_n(m.measurements, plan["trials"], plan["iterations_per_trial"]),
        ]
    for row in resources[1:]:
        m = stored[(row[0], row[1])]
        assert row[3:] == [fmt.format_kib(m.baseline_rss_bytes), fmt.format_kib(m.peak_rss_bytes)]
    ops = [row[1] for row in perf[1:]]
    assert ops[:3] == ["keygen", "enc", "dec"]


def test_kem38_uvw512_keygen_has_few_calls(arm1, client):
    perf = _table(_page(client, "arm_1", "kem-38"), "table-performance")
    row = next(r for r in perf if r[:2] == ["UVW-KEM-512", "keygen"])
    assert row[6] == "20 (5 × 4)"
    assert row[2] == "41.20 G"


def test_kem30_arm1_instances_in_build_order(arm1, client):
    html = _page(client, "arm_1", "kem-30")
    kat = _table(html, "table-kat")
    assert [r[0] for r in kat[1:]] == [
        "POLARLAC-128",
        "POLARLAC-256",
        "POLARLAC-512",
        "POLARLAC-512-Star",
        "POLARLAC-Light",
    ]
    sizes = _table(html, "table-sizes")
    assert sizes[1] == ["POLARLAC-128", "530", "1570", "640", "16"]
    symmetric = _table(html, "table-symmetric")
    assert symmetric[1][4] == "drng 2, pseudoXOF 9.05"


@pytest.mark.parametrize(
    "url",
    [
        "/performance/arm_1/kem-99/",
        "/performance/nosuch/kem-29/",
        "/performance/x86_1/kem-29/",  # a known system without data for this candidate
        "/performance/arm_1/sign-zz/",
    ],
)
@pytest.mark.parametrize("debug", [True, False])
def test_unknown_system_or_submission_is_404(arm1, client, settings, url, debug):
    settings.DEBUG = debug
    response = client.get(url)
    assert response.status_code == 404
    if not debug:
        assert "Not found" in response.content.decode()
