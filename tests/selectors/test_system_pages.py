"""Selectors of the system-level pages, on factory data and on the shared arm_1 data."""

from __future__ import annotations

import re

import pytest

from measurements.models import Campaign, KatIssue, KATResult, SummaryNote
from measurements.rendering.markdown import summary_markdown
from measurements.selectors.pages.common import campaign_for_system
from measurements.selectors.pages.index import index_page
from measurements.selectors.pages.kat_overview import kat_overview
from measurements.selectors.pages.method import method_page
from measurements.selectors.pages.size_audit import AUDIT_STATE_ORDER, size_audit_page
from measurements.selectors.pages.summary import system_summary
from tests.factories import (
    BuildFactory,
    CampaignFactory,
    ExternalSizeFactory,
    HashProfileFactory,
    InstanceFactory,
    MeasurementFactory,
    SubmissionFactory,
    SystemFactory,
)


def _row(summary, category: str, label: str):
    section = next(s for s in summary.sections if s.spec.category == category)
    return next(r for r in section.rows if r.label == label)


@pytest.mark.django_db
def test_campaign_for_system_prefers_a_measured_campaign_over_a_planned_one(empty_db):
    system = SystemFactory(key="box_a")
    imported = CampaignFactory(system=system, key="old", status=Campaign.Status.IMPORTED)
    planned = CampaignFactory(system=system, key="new", status=Campaign.Status.PLANNED)
    assert planned.started_utc >= imported.started_utc
    assert campaign_for_system(system) == imported
    assert campaign_for_system(system, "new") == planned
    assert campaign_for_system(system, "other") is None


@pytest.mark.django_db
def test_summary_row_cells_from_factories(empty_db):
    campaign = CampaignFactory(system__key="box_b")
    instance = InstanceFactory(submission__key="kem-90", label="TEST-0")
    BuildFactory(campaign=campaign, instance=instance, kat_status="MISMATCH")
    for op, cycles, n in (("keygen", 158_359.1, 50315), ("enc", 41.2e9, 20)):
        MeasurementFactory(
            campaign=campaign, instance=instance, operation=op, mean_cycles=cycles, measurements=n
        )
        HashProfileFactory(campaign=campaign, instance=instance, operation=op, hash_share=0.94)
    ExternalSizeFactory(candidate="kem-90", instance_label="TEST-0")
    SummaryNote.objects.create(candidate="kem-90", label_regex="^TEST-", note="a note")
    KatIssue.objects.create(candidate="kem-90", label_regex="[", action="measure", cause="bad re")

    summary = system_summary(campaign.system)
    row = _row(summary, "kem", "TEST-0")
    # API sizes of the record (800 / 768 from the factory) win over the catalog.
    assert row.cells == ["158.4 k (94%)", "41.20 G (94%, n=20)", "–", "800", "768"]
    assert row.kat_flag == "⚠ KAT MISMATCH"
    assert row.notes == "KAT/output caveat; see candidate page; a note"
    assert row.raw_cycles["dec"] is None
    assert summary.kat_counts["kem"]["MISMATCH"] == 1


@pytest.mark.django_db
def test_nominal_catalog_size_marked_when_not_measured(empty_db):
    campaign = CampaignFactory(system__key="box_c")
    instance = InstanceFactory(submission__key="sign-90", submission__category="sign", label="S-1")
    BuildFactory(campaign=campaign, instance=instance)
    ExternalSizeFactory(
        candidate="sign-90",
        instance_label="S-1",
        public_key_bytes=112,
        ciphertext_bytes=None,
        signature_bytes=25108,
        basis="nominal-variable",
    )
    row = _row(system_summary(campaign.system), "sign", "S-1")
    assert row.cells == ["–", "–", "–", "≈112", "≈25108"]


@pytest.mark.django_db
def test_hash_ratio_against_iccs_pseudoxof_same_width_and_length(empty_db):
    campaign = CampaignFactory(system__key="box_d")
    iccs = SubmissionFactory(key="iccs", category="iccs")
    xof = InstanceFactory(submission=iccs, label="pseudoXOF-512")
    other = InstanceFactory(submission=iccs, label="pseudoXOF-256")
    candidate = InstanceFactory(
        submission__key="hash-90", submission__category="hash", label="H-512"
    )
    for inst in (xof, other, candidate):
        BuildFactory(campaign=campaign, instance=inst)
    for length, cycles in ((32, 2810.0), (1024, 43_500.0), (65536, 2.64e6)):
        MeasurementFactory(
            campaign=campaign,
            instance=xof,
            operation="hash",
            input_bytes=length,
            mean_cycles=cycles,
            measurements=1000,
            sizes={"digest_bytes": 64},
        )
        MeasurementFactory(
            campaign=campaign,
            instance=other,
            operation="hash",
            input_bytes=length,
            mean_cycles=1.0,
            measurements=1000,
            sizes={"digest_bytes": 32},
        )
    MeasurementFactory(
        campaign=campaign,
        instance=candidate,
        operation="hash",
        input_bytes=32,
        mean_cycles=13_966.0,
        measurements=1000,
        sizes={"digest_bytes": 64},
    )
    MeasurementFactory(
        campaign=campaign,
        instance=candidate,
        operation="hash",
        input_bytes=65536,
        mean_cycles=7.01e6,
        measurements=50,
        sizes={"digest_bytes": 64},
    )
    summary = system_summary(campaign.system)
    row = _row(summary, "hash", "H-512")
    assert row.cells == ["14.0 k (4.97×)", "–", "7.01 M (2.66×, n=50)"]
    iccs_row = next(r for r in summary.iccs_rows if r.label == "pseudoXOF-512")
    assert iccs_row.function == "pseudoXOF" and iccs_row.output_bits == 512
    assert iccs_row.cells == ["2810", "43.5 k", "2.64 M"]
    assert iccs_row.cycles_per_byte == "40.3"
    assert summary.iccs_headers[2:] == ["32 B", "1 KiB", "64 KiB", "cycles/byte (64 KiB)"]


@pytest.mark.django_db
def test_kat_overview_cause_sources(empty_db):
    campaign = CampaignFactory(system__key="box_e")
    a = BuildFactory(
        campaign=campaign,
        instance__submission__key="kem-91",
        instance__label="A-1",
        kat_status="MISMATCH",
    )
    b = BuildFactory(
        campaign=campaign,
        instance__submission__key="kem-92",
        instance__label="B-1",
        kat_status="CRASH",
    )
    c = BuildFactory(
        campaign=campaign,
        instance__submission__key="kem-93",
        instance__label="C-1",
        kat_status="TIMEOUT",
    )
    BuildFactory(campaign=campaign, instance__submission__key="kem-94", kat_status="PASS")
    KatIssue.objects.create(candidate="kem-91", label_regex="^A-", action="exclude", cause="why")
    KATResult.objects.create(
        build=b,
        kind="official",
        status="CRASH",
        log="library     = lib/x.so\nid = kem-92\n\nSegmentation fault in crypto_kem_dec\n"
        "RESULT kem-92 B-1 CRASH\nmore\n",
    )
    page = kat_overview()
    causes = {p.label: (p.cause, p.cause_source, p.action) for p in page.problems}
    assert causes["A-1"] == ("why", "catalog", "exclude")
    assert causes["B-1"] == (
        "Segmentation fault in crypto_kem_dec\nRESULT kem-92 B-1 CRASH\nmore",
        "log",
        "",
    )
    assert causes["C-1"] == ("cause not recorded", "none", "")
    assert [p.label for p in page.problems] == ["A-1", "B-1", "C-1"]
    assert dict(page.totals) == {"PASS": 1, "MISMATCH": 1, "TIMEOUT": 1, "CRASH": 1}
    assert page.count_rows[0].total == 4
    assert a.id and c.id


def test_summary_markdown_reproduces_reference_rows(arm1, reference_pages_dir):
    text = summary_markdown(system_summary(arm1.system))
    reference = (reference_pages_dir / "performance" / "summary_arm_1.md").read_text()
    ref_lines = {
        re.search(r"`([^`]*)`", line).group(1): line
        for line in reference.splitlines()
        if line.startswith("| [kem-29]") or line.startswith("| [kem-38]")
    }
    ours = {
        re.search(r"`([^`]*)`", line).group(1): line
        for line in text.splitlines()
        if line.startswith("| [kem-29]") or line.startswith("| [kem-38]")
    }
    assert ours.keys() == ref_lines.keys()
    for label, line in ref_lines.items():
        ref_cells = line.split(" | ")
        our_cells = ours[label].split(" | ")
        assert our_cells[0] == ref_cells[0]  # link to ../kem-29/perf_arm_1.md
        assert our_cells[2:] == ref_cells[2:], label  # algorithm column differs (no PDF link)
    for heading in (
        "## Digital signatures",
        "## Key encapsulation",
        "## Key exchange",
        "## ICCS hash helpers",
        "## Hash functions",
    ):
        assert heading in text
    assert (
        "| id | algorithm | instance performance report | keygen cycles (sym %) | enc cycles"
        in text
    )


def test_index_page_selector(arm1):
    page = index_page()
    systems = {s.system.key: s for s in page.systems}
    assert set(systems) >= {"arm_1", "x86_1"}
    assert systems["arm_1"].candidates_measured == 4
    assert systems["x86_1"].campaigns == []
    categories = dict(page.submissions_by_category)
    kem29 = next(r for r in categories["key encapsulation"] if r.submission.key == "kem-29")
    assert dict(kem29.links)["arm_1"] == "/performance/arm_1/kem-29/"
    assert dict(kem29.links)["x86_1"] is None
    assert kem29.instances == 3


def test_size_audit_selector_orders_disagreements_first(arm1):
    page = size_audit_page()
    states = [r.state for r in page.rows]
    order = AUDIT_STATE_ORDER
    assert states == sorted(states, key=order.index)
    assert dict((k, n) for k, _, n in page.counts)["agrees"] == 30
    only = size_audit_page(candidate="kem-38", state="agrees")
    assert {r.submission_key for r in only.rows} == {"kem-38"}
    assert all(r.state == "agrees" for r in only.rows)


@pytest.mark.django_db
def test_kat_overview_falls_back_to_the_build_log(empty_db):
    BuildFactory(
        campaign=CampaignFactory(system__key="box_f"),
        instance__submission__key="kem-95",
        instance__label="F-1",
        kat_status="BUILDFAIL",
        log="cc = gcc\nsrc/poly.c:12: error: unknown type name 'uint128_t'\n",
    )
    problem = kat_overview().problems[0]
    assert problem.cause == "src/poly.c:12: error: unknown type name 'uint128_t'"
    assert problem.cause_source == "build log"


def test_method_page_one_row_per_tick_source(arm1):
    page = method_page(arm1.system)
    assert [name for name, _ in page.tick_rows] == ["cntvct_el0"]
    assert page.tick_rows[0][1].startswith("19.2 MHz (one tick ≈ 52.1 ns; 45 profiles")
    assert page.timing_records == 45
    assert dict((k, v) for k, _, v in page.planning_rows)["trials"] == "5"
