"""Rankings page builder, on the shared arm_1 dataset (real values) and on factory data."""

from __future__ import annotations

import pytest

from measurements.models import Measurement
from measurements.selectors.pages.candidate import candidate_page
from measurements.selectors.pages.rankings import rankings_page

KEM_128 = {"target": "128", "system": "arm_1"}


def _ids(page) -> list[str]:
    return [row.submission_key for row in page.rows]


def test_fastest_128_bit_kem_by_keygen_is_first(arm1):
    page = rankings_page("kem", {**KEM_128, "sort": "keygen"})
    fastest = (
        Measurement.objects.filter(
            campaign=arm1, operation="keygen", instance__security_target_bits=128
        )
        .select_related("instance__submission")
        .order_by("mean_cycles")
        .first()
    )
    assert (fastest.instance.submission.key, fastest.instance.label) == ("kem-30", "POLARLAC-128")
    first = page.rows[0]
    assert (first.submission_key, first.instance_label) == ("kem-30", "POLARLAC-128")
    assert first.cells["keygen"].text == "134.8 k"
    assert _ids(page) == ["kem-30", "kem-29", "kem-17", "kem-38"]


def test_each_row_equals_the_candidate_page(arm1):
    page = rankings_page("kem", KEM_128)
    assert page.rows
    for row in page.rows:
        candidate = candidate_page("arm_1", row.submission_key)
        perf = {
            (r[0].text, r[1].text): r[2].text  # instance, operation → mean cycles
            for r in candidate.performance.rows
        }
        for op in ("keygen", "enc", "dec"):
            assert row.cells[op].text == perf[(row.instance_label, op)]
        sizes = {r[0].text: r for r in candidate.sizes.rows}[row.instance_label]
        assert row.cells["pk"].text == sizes[1].text
        assert row.cells["ct"].text == sizes[3].text
        kat = {r[0].text: r[2].text for r in candidate.kat.rows}[row.instance_label]
        assert kat.startswith(row.cells["kat"].text)


def _present(values):
    return [v.lower() if isinstance(v, str) else v for v in values if v not in (None, "")]


@pytest.mark.parametrize("descending", [False, True])
def test_every_column_sorts(arm1, descending):
    columns = rankings_page("kem", KEM_128).columns
    assert [c.key for c in columns] == [
        "id", "algorithm", "instance", "target", "keygen", "enc", "dec", "pk", "ct", "kat",
        "verdict",
    ]  # fmt: skip
    for column in columns:
        params = {**KEM_128, "sort": column.key, "dir": "desc" if descending else ""}
        page = rankings_page("kem", params)
        values = [row.cells[column.key].value for row in page.rows]
        present = _present(values)
        assert present == sorted(present, reverse=descending), column.key
        # Rows without a value come last in either direction.
        assert values[len(present) :] == [v for v in values if v in (None, "")]
        assert page.filters.sort == column.key
    by_enc = rankings_page("kem", {**KEM_128, "sort": "enc", "dir": "desc"})
    assert _ids(by_enc) == ["kem-17", "kem-38", "kem-29", "kem-30"]


def test_filters_combine(arm1):
    polar = rankings_page("kem", {**KEM_128, "q": "polar"})
    assert sorted(_ids(polar)) == ["kem-29", "kem-30"]
    assert all(
        "polar" in u.algorithm.lower() or "polar" in u.submission_key for u in polar.unranked
    )
    no_verdict = rankings_page("kem", {**KEM_128, "verdict": "none"})
    assert _ids(no_verdict) == ["kem-17"]
    both = rankings_page("kem", {**KEM_128, "q": "polar", "verdict": "none"})
    assert both.rows == []
    mismatch = rankings_page("kem", {**KEM_128, "kat": "MISMATCH"})
    assert mismatch.rows == []
    assert mismatch.unranked and all(u.kat_status == "MISMATCH" for u in mismatch.unranked)
    at_256 = rankings_page("kem", {"target": "256", "system": "arm_1", "sort": "keygen"})
    assert [(r.submission_key, r.instance_label) for r in at_256.rows] == [
        ("kem-30", "POLARLAC-256"),
        ("kem-29", "PolarKEM-256"),
        ("kem-17", "hep-qc-5"),
        ("kem-38", "UVW-KEM-256"),
    ]


def test_fastest_instance_rule_at_any_target(arm1):
    page = rankings_page("kem", {"target": "any", "system": "arm_1", "sort": "id"})
    chosen = {r.submission_key: r.instance_label for r in page.rows}
    # kem-30's smallest sum of keygen + enc + dec cycles is POLARLAC-Light (no target claimed).
    assert chosen == {
        "kem-17": "hep-qc-1",
        "kem-29": "PolarKEM-128",
        "kem-30": "POLARLAC-Light",
        "kem-38": "UVW-KEM-128",
    }


def test_candidates_without_figures_are_listed_apart_with_the_reason(arm1):
    page = rankings_page("kem", KEM_128)
    reasons = {u.submission_key: u.reason for u in page.unranked}
    assert not set(reasons) & set(_ids(page))
    assert reasons["kem-01"] == "build failed (BUILDFAIL)"
    assert reasons["kem-02"] == f"built (KAT PASS), not timed in campaign {arm1.key}"
    assert len(page.rows) + len(page.unranked) + page.without_target == len(
        {i.submission.key for i in page_instances("kem")}
    )


def page_instances(category):
    from measurements.models import Instance

    return Instance.objects.filter(submission__category=category).select_related("submission")


def test_unknown_category_is_404(db):
    from django.http import Http404

    with pytest.raises(Http404):
        rankings_page("iccs", {})


def test_default_target_is_128_or_the_lowest_claimed(empty_db):
    from tests.factories import InstanceFactory, SubmissionFactory

    hash_sub = SubmissionFactory(key="hash-90", category="hash")
    InstanceFactory(submission=hash_sub, security_target_bits=256)
    InstanceFactory(submission=hash_sub, security_target_bits=512)
    assert rankings_page("hash", {}).filters.target == 256
    assert rankings_page("hash", {"target": "128"}).filters.target == 128
    kem = SubmissionFactory(key="kem-90", category="kem")
    InstanceFactory(submission=kem, security_target_bits=128)
    assert rankings_page("kem", {}).filters.target == 128
