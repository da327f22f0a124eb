"""The per-system summary collapses candidates without figures into one line with the reason."""

from __future__ import annotations

import re

from measurements.models import KatIssue, System
from measurements.selectors.system_pages import system_summary


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
