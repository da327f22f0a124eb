"""The per-system summary collapses candidates without figures into one line with the reason."""

from __future__ import annotations

import re

from measurements.models import KatIssue, System
from measurements.selectors.pages.summary import system_summary


def _section(summary, category):
    return next(s for s in summary.sections if s.spec.category == category)


def test_candidates_without_figures_get_one_line_with_the_reason(arm1):
    kem = _section(system_summary(System.objects.get(key="arm_1")), "kem")
    assert {r.submission_key for r in kem.rows_with_figures} == {
        "kem-17",
        "kem-29",
        "kem-30",
        "kem-38",
    }
    lines = {c.submission_key: c for c in kem.candidates_without_figures}
    assert len(lines) == 37 and not set(lines) & {"kem-17", "kem-29", "kem-30", "kem-38"}
    assert lines["kem-01"].reason == "build failed (BUILDFAIL)"
    assert lines["kem-01"].instances == 3
    assert lines["kem-02"].reason == "built (KAT: 5 PASS), not timed in this campaign"
    # Every row is still there, once: measured ones in the table, the rest behind the line.
    assert len(kem.rows_with_figures) + len(kem.rows_without_figures) == len(kem.rows)


def test_exclusion_by_kat_issue_is_the_reason(arm1):
    KatIssue.objects.create(
        candidate="kem-02", label_regex="^Amoeba", action="exclude", cause="test", position=9
    )
    kem = _section(system_summary(System.objects.get(key="arm_1")), "kem")
    lines = {c.submission_key: c for c in kem.candidates_without_figures}
    assert lines["kem-02"].reason == "excluded by a KAT issue (not timed)"


def test_summary_page_shows_measured_rows_first_and_collapses_the_rest(client, arm1):
    html = client.get("/performance/arm_1/").content.decode()
    kem = html.split('id="key-encapsulation"', 1)[1].split("<h2", 1)[0]
    first_table = kem.split("</table>", 1)[0]
    assert set(re.findall(r'data-candidate="([^"]+)" data-label', first_table)) == {
        "kem-17",
        "kem-29",
        "kem-30",
        "kem-38",
    }
    unmeasured = kem.split('class="data unmeasured"', 1)[1].split("</table>", 1)[0]
    assert '<tr data-candidate="kem-01"><td><a href="/performance/arm_1/kem-01/">kem-01</a>' in (
        unmeasured
    )
    assert "<td>build failed (BUILDFAIL)</td>" in unmeasured
    assert "<details><summary>Their 174 instance rows in the published layout</summary>" in kem


def test_every_table_has_a_csv_download(client, arm1):
    import csv
    import io

    response = client.get("/performance/arm_1/?table=kem&format=csv")
    assert 'filename="summary_arm_1-kem.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:4] == [
        "id",
        "algorithm",
        "instance performance report",
        "keygen cycles (sym %)",
    ]
    assert len(rows) == 1 + 189
    polar = next(r for r in rows if r[2] == "PolarKEM-128")
    assert polar[3] == "158.4 k (94%)"
    html = client.get("/performance/arm_1/kem-29/").content.decode()
    for key in ("environment", "kat", "performance", "resources", "sizes", "symmetric", "evidence"):
        assert f'href="?table={key}&amp;format=csv"' in html
    perf = client.get("/performance/arm_1/kem-29/?table=performance&format=csv")
    assert 'filename="kem-29_perf_arm_1-performance.csv"' in perf["Content-Disposition"]
    perf_rows = list(csv.reader(io.StringIO(perf.content.decode())))
    assert perf_rows[1][:3] == ["PolarKEM-128", "keygen", "158.4 k"]
    assert client.get("/performance/arm_1/kem-29/?table=nope&format=csv").status_code == 404
