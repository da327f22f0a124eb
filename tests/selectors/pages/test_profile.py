"""Candidate profile: one candidate on every system, measured and published side by side."""

from __future__ import annotations

import pytest
from django.http import Http404

from measurements.selectors.pages.candidate import candidate_page
from measurements.selectors.pages.profile import profile_page


def test_kem_29_on_arm_1_and_published_x86_1(x86_1_published, django_assert_max_num_queries):
    with django_assert_max_num_queries(9):
        page = profile_page("kem-29")
    assert [(s.key, s.provenance) for s in page.systems] == [
        ("arm_1", "measured, raw trials stored"),
        ("x86_1", "published page, no raw trials"),
    ]
    assert page.ratio_headers == ["x86_1 / arm_1"]
    assert [(r.instance, r.operation) for r in page.rows][:3] == [
        ("PolarKEM-128", "keygen"),
        ("PolarKEM-128", "enc"),
        ("PolarKEM-128", "dec"),
    ]
    assert {r.instance for r in page.rows} == {"PolarKEM-128", "PolarKEM-256", "PolarKEM-512"}
    first = page.rows[0]
    assert [f.text for f in first.figures] == ["158.4 k", "166.5 k"]
    # 166.5 k published on x86_1 against 158 359 cycles measured on arm_1.
    assert first.ratios == [f"{166_500 / 158359.0992745702:.2f}×"] == ["1.05×"]
    assert first.target == "128"
    assert page.kat_rows[0] == ("PolarKEM-128", "128", ["PASS", "PASS"])
    assert page.size_rows[0] == ("PolarKEM-128", ["1024", "768"])


@pytest.mark.parametrize("system", ["arm_1", "x86_1"])
def test_profile_figures_equal_each_system_page(x86_1_published, system):
    page = profile_page("kem-29")
    column = [s.key for s in page.systems].index(system)
    candidate = candidate_page(system, "kem-29")
    perf = {(r[0].text, r[1].text): r[2].text for r in candidate.performance.rows}
    assert {(r.instance, r.operation): r.figures[column].text for r in page.rows} == perf
    shares = {(r[0].text, r[1].text): r[2].text for r in candidate.symmetric.rows}
    assert {(r.instance, r.operation): r.shares[column] for r in page.rows} == shares


def test_profile_of_a_candidate_on_one_system(arm1):
    page = profile_page("kem-17")
    assert [s.key for s in page.systems] == ["arm_1"]
    assert page.ratio_headers == [] and all(r.ratios == [] for r in page.rows)


def test_unknown_candidate_is_404(db):
    with pytest.raises(Http404):
        profile_page("kem-999")


def test_each_row_links_to_a_comparison_across_systems(x86_1_published):
    from measurements.selectors.pages.compare import compare_page

    row = profile_page("kem-29").rows[0]
    campaigns = "x86_1-published-pages"
    assert row.compare_url.endswith(f"&b=kem-29%3APolarKEM-128%40{campaigns}")
    arm = row.compare_url.split("a=", 1)[1].split("&", 1)[0].replace("%3A", ":").replace("%40", "@")
    compare = compare_page({"a": arm, "b": f"kem-29:PolarKEM-128@{campaigns}"})
    assert [c.text for c in compare.rows[0].cells] == [f.text for f in row.figures]
