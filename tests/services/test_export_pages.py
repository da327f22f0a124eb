"""Markdown export: the kem-29 arm_1 tables reproduce the published page line by line."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from measurements.rendering.markdown import candidate_markdown
from measurements.selectors.pages.candidate import candidate_page
from measurements.services.export_pages import export_pages
from tests.candidate_builders import build_candidate
from tests.page_tables import html_tables, markdown_table_lines, markdown_tables


def test_kem29_arm1_tables_match_the_reference_line_by_line(arm1, reference_pages_dir, tmp_path):
    export_pages(system_key="arm_1", out_dir=tmp_path, submissions=["kem-29"])
    exported = (tmp_path / "kem-29" / "perf_arm_1.md").read_text(encoding="utf-8")
    reference = (reference_pages_dir / "kem-29" / "perf_arm_1.md").read_text(encoding="utf-8")
    ours, theirs = markdown_table_lines(exported), markdown_table_lines(reference)
    assert len(theirs) == 75  # 7 tables, headers and separators included
    for number, (line, expected) in enumerate(zip(ours, theirs, strict=True), start=1):
        assert line == expected, f"table line {number}"


def test_export_keeps_the_page_structure(arm1, reference_pages_dir):
    text = candidate_markdown(candidate_page("arm_1", "kem-29"))
    reference = (reference_pages_dir / "kem-29" / "perf_arm_1.md").read_text(encoding="utf-8")
    headings = [line for line in reference.splitlines() if line.startswith("#")]
    assert [line for line in text.splitlines() if line.startswith("#")] == headings
    assert text.splitlines()[0] == "# kem-29 Polar-KEM — performance on AArch64 (system arm_1)"
    assert "[Performance arm_1](../performance/summary_arm_1.md) › `kem-29`" in text


@pytest.mark.parametrize("submission", ["kem-17", "kem-30", "kem-38"])
def test_export_and_web_page_show_the_same_cells(arm1, client, submission):
    """One selector feeds both: every Markdown table equals the HTML table."""
    markdown = candidate_markdown(candidate_page("arm_1", submission))
    html = client.get(f"/performance/arm_1/{submission}/").content.decode()
    assert markdown_tables(markdown) == [rows for _, rows, _ in html_tables(html)]


def test_command_writes_every_submission_with_data_and_reports_progress(arm1, tmp_path):
    out = io.StringIO()
    call_command("export_pages", "--system", "arm_1", "--out", str(tmp_path), stdout=out)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.md"))
    assert written == [
        "kem-17/perf_arm_1.md",
        "kem-29/perf_arm_1.md",
        "kem-30/perf_arm_1.md",
        "kem-38/perf_arm_1.md",
    ]
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[1/4] ") and lines[3].startswith("[4/4] ")
    assert "wrote 4 pages" in lines[-1]


def test_command_errors(empty_db, tmp_path):
    with pytest.raises(CommandError, match="unknown system"):
        call_command("export_pages", "--system", "nosuch", "--out", str(tmp_path))
    build_candidate(instances=1)
    with pytest.raises(CommandError, match="No submission"):
        call_command(
            "export_pages", "--system", "box_test", "--out", str(tmp_path), "--submission", "x-1"
        )


def test_kat_notes_are_exported_under_the_table(empty_db, tmp_path):
    from measurements.models import KatIssue

    build_candidate(instances=2)
    KatIssue.objects.create(candidate="kem-90", label_regex="-1$", action="exclude", cause="why")
    text = candidate_markdown(candidate_page("box_test", "kem-90"))
    assert "| `KEM-90-1` | guide | PASS [1] |" in text
    assert "[1] Not timed. why" in text


def test_key_exchange_export_states_the_source_of_the_transferred_bytes(empty_db, client):
    from measurements.models import Measurement
    from measurements.selectors.kex_transfer import KEX_SIZES_NOTE, MEASURED_SOURCE

    build_candidate(instances=1, key="kex-92", category="kex", operations=("exchange",))
    Measurement.objects.filter(instance__label="KEX-92-0").update(
        kex={"passes": 2, "pk_a_bytes": 32, "pk_b_bytes": 32, "messages": [32, 40]}
    )
    markdown = candidate_markdown(candidate_page("box_test", "kex-92"))
    assert KEX_SIZES_NOTE in markdown
    sizes = markdown_tables(markdown)[4]
    assert sizes == [
        ["instance", "passes", "public keys", "messages", "total", "source"],
        ["KEX-92-0", "2", "64", "72", "136", MEASURED_SOURCE],
    ]
    html = client.get("/performance/box_test/kex-92/").content.decode()
    assert markdown_tables(markdown) == [rows for _, rows, _ in html_tables(html)]


def test_unfixed_host_warning_is_exported_as_on_the_web_page(empty_db, client):
    _, campaign = build_candidate(instances=1)
    campaign.unfixed_host = True
    campaign.host_problems = ["turbo is on", "SMT is 'on'"]
    campaign.save()
    text = candidate_markdown(candidate_page("box_test", "kem-90"))
    warning = (
        "**⚠ Measured on an unfixed host** (campaign `box_test-campaign`): turbo is on; "
        "SMT is 'on'. Cycle counts from this host are not comparable with those of a fixed box."
    )
    assert warning in text.splitlines()
    html = client.get("/performance/box_test/kem-90/").content.decode()
    assert "turbo is on; SMT is &#x27;on&#x27;. Cycle counts from this host are not" in html
