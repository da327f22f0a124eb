"""The candidate page selector: row order, missing figures, notes, systems, query budget."""

from __future__ import annotations

import pytest
from django.http import Http404

from measurements.charts import log_bar_chart
from measurements.models import Campaign, KatIssue, KexBandwidth, Measurement
from measurements.selectors.kex_transfer import MEASURED_SOURCE
from measurements.selectors.pages.candidate import candidate_page
from tests.candidate_builders import build_candidate
from tests.factories import CampaignFactory, ExternalSizeFactory, SystemFactory


def _texts(table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.rows]


@pytest.mark.parametrize("instances", [2, 8])
def test_query_count_does_not_grow_with_instances(
    empty_db, client, django_assert_max_num_queries, instances
):
    build_candidate(instances=instances)
    with django_assert_max_num_queries(10):
        response = client.get("/performance/box_test/kem-90/")
    assert response.status_code == 200
    with django_assert_max_num_queries(10):
        page = candidate_page("box_test", "kem-90")
    assert len(page.performance.rows) == instances * 3


def test_query_count_on_real_kem30(arm1, client, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        response = client.get("/performance/arm_1/kem-30/")
    assert response.status_code == 200


def test_rows_in_instance_then_operation_order(empty_db):
    build_candidate(instances=3, operations=("dec", "keygen", "enc"))
    page = candidate_page("box_test", "kem-90")
    rows = _texts(page.performance)
    assert [(r[0], r[1]) for r in rows[:3]] == [
        ("KEM-90-0", "keygen"),
        ("KEM-90-0", "enc"),
        ("KEM-90-0", "dec"),
    ]
    assert [r[0] for r in rows[::3]] == ["KEM-90-0", "KEM-90-1", "KEM-90-2"]
    assert rows[0][2:] == ["100.0 k", "50 µs", "2e+04", "50 µs", "500 (5 × 100)"]
    evidence = _texts(page.evidence)
    assert [r[1] for r in evidence[:7]] == [
        evidence[0][1],
        "timing dec",
        "timing enc",
        "timing keygen",
        "hash profile dec",
        "hash profile enc",
        "hash profile keygen",
    ]
    assert evidence[0][1].startswith("KAT log (sha256 ") and evidence[0][1].endswith("…)")


def test_missing_records_and_profiles_show_the_missing_mark(empty_db):
    build_candidate(instances=2, skip={(1, "dec")})
    page = candidate_page("box_test", "kem-90")
    perf = _texts(page.performance)
    assert perf[-1][:2] == ["KEM-90-1", "dec"]
    assert perf[-1][2:] == ["–"] * 5
    assert _texts(page.resources)[-1][2:] == ["20001", "–", "–"]
    assert _texts(page.symmetric)[-1][2:] == ["–", "–", "–"]
    assert _texts(page.symmetric)[0][2:] == ["50%", "5.0%", "drng 1, pseudoXOF 2"]
    # No invented evidence either: 1 KAT log + 2 timing + 2 profiles for the second instance.
    assert len([r for r in _texts(page.evidence) if r[0] == "KEM-90-1"]) == 5


def test_kat_issue_marks_the_cell_and_adds_the_cause(empty_db):
    build_candidate(instances=3)
    KatIssue.objects.create(
        candidate="kem-90", label_regex=r"-(1|2)$", action="measure", cause="vectors differ"
    )
    KatIssue.objects.create(candidate="kem-91", label_regex=".*", action="measure", cause="other")
    page = candidate_page("box_test", "kem-90")
    kat = _texts(page.kat)
    assert kat == [
        ["KEM-90-0", "guide", "PASS"],
        ["KEM-90-1", "guide", "PASS [1]"],
        ["KEM-90-2", "guide", "PASS [1]"],
    ]
    assert page.kat_notes == ((1, "measure", "vectors differ"),)


def test_external_sizes_from_the_catalog_with_nominal_mark(empty_db):
    build_candidate(instances=1, key="sign-90", category="sign", operations=("keygen", "sign"))
    ExternalSizeFactory(
        candidate="sign-90",
        instance_label="SIGN-90-0",
        public_key_bytes=1312,
        ciphertext_bytes=None,
        signature_bytes=2420,
        basis="nominal-variable",
    )
    page = candidate_page("box_test", "sign-90")
    assert page.sizes.headers == ("instance", "public key", "secret key", "signature")
    assert _texts(page.sizes) == [["SIGN-90-0", "≈1312", "1600", "≈2420"]]
    # keygen, sign, verify: verify was not measured and is shown as missing.
    assert [r[1] for r in _texts(page.performance)] == ["keygen", "sign", "verify"]
    assert _texts(page.performance)[2][2] == "–"


def test_kex_sizes_from_the_bandwidth_catalog(empty_db):
    build_candidate(instances=1, key="kex-90", category="kex", operations=("pass1", "exchange"))
    KexBandwidth.objects.create(
        candidate="kex-90",
        instance_label="KEX-90-0",
        pk_a_bytes=800,
        pk_b_bytes=800,
        protocol_message_bytes=2400,
    )
    page = candidate_page("box_test", "kex-90")
    assert [r[1] for r in _texts(page.performance)] == ["exchange", "pass1"]
    assert page.sizes.headers == (
        "instance", "passes", "public keys", "messages", "total", "source",
    )  # fmt: skip
    assert _texts(page.sizes) == [
        ["KEX-90-0", "3", "1600", "2400", "4000", "catalog (kex_bandwidth.csv)"]
    ]
    assert page.category_line == "public-key algorithm; function: key exchange"
    assert "kex_bandwidth.csv" in page.sizes_note


def test_kex_sizes_without_a_catalog_row_follow_the_measured_run(empty_db):
    build_candidate(instances=2, key="kex-91", category="kex", operations=("exchange",))
    measured = Measurement.objects.get(instance__label="KEX-91-0")
    measured.kex = {"passes": 3, "pk_a_bytes": 64, "pk_b_bytes": 48, "messages": [64, 96, 32]}
    measured.save()
    page = candidate_page("box_test", "kex-91")
    assert _texts(page.sizes) == [
        # our rule: 64 + 96 + 32 message bytes of one run, plus 64 + 48 public-key bytes
        ["KEX-91-0", "3", "112", "192", "304", MEASURED_SOURCE],
        # no catalog row and no message lengths: nothing is invented
        ["KEX-91-1", "3", "–", "–", "–", "–"],
    ]


def test_hash_rows_by_message_length(empty_db):
    build_candidate(
        instances=1, key="hash-90", category="hash", operations=("hash",), input_bytes=(1024, 64)
    )
    page = candidate_page("box_test", "hash-90")
    assert page.performance.headers[:4] == (
        "instance",
        "message length",
        "mean cycles",
        "cycles/byte",
    )
    rows = _texts(page.performance)
    assert [r[1] for r in rows] == ["64 B", "1024 B"]
    assert rows[0][2:] == ["100.0 k", "1.56e+03", "50 µs", "12.5", "500 (5 × 100)"]
    assert _texts(page.sizes) == [["HASH-90-0", "32"]]
    assert page.sizes.headers == ("instance", "digest (bytes)")  # the unit of the digest size


def test_environment_rows(empty_db):
    build_candidate(instances=1)
    page = candidate_page("box_test", "kem-90")
    env = dict((r[0], r[1]) for r in _texts(page.environment))
    assert env["processor"] == "Test CPU (CPU 2, one core)"
    assert (
        env["clock"]
        == "fixed 2.10 GHz (governor performance, minimum = maximum), turbo off, SMT off"
    )
    assert env["memory"] == "8192 MiB"
    assert env["OS / kernel"] == "Debian / 6.1"
    assert env["compiler / build tool"] == "gcc 12 / cmake 3.25"
    assert "machine" not in env
    assert page.title == "kem-90 KEM-90 test — performance on x86-64 (system box_test)"


def test_our_own_campaign_shows_its_counter_no_build_tool_its_kat_logs_and_api_sizes(
    empty_db, client
):
    from measurements.services.export_pages import candidate_markdown

    _, campaign = build_candidate(instances=2)
    campaign.source = "measured"
    campaign.environment = {
        "compiler": "gcc 14",
        "cmake": "cmake 3.31",
        "smt_control": "notsupported",
    }
    campaign.counter = {"name": "tsc", "hz": 2_593_000_000.0, "overhead_cycles": 38.0}
    campaign.save()
    page = candidate_page("box_test", "kem-90")
    env = dict((r[0], r[1]) for r in _texts(page.environment))
    assert env["clock"] == "SMT none; counter tsc, 2.59 GHz measured, read overhead 38 ticks"
    assert env["compiler / build tool"] == (
        "gcc 14 / none (NGCC Perf compiles the listed sources directly)"
    )
    # §3 cites the KAT logs actually stored, §6 says the sizes are the library's own figures.
    assert [path for path, _ in page.kat_logs] == [
        "kat/kem-90/KEM-90-0.log",
        "kat/kem-90/KEM-90-1.log",
    ]
    assert page.sizes_from_catalog is False
    html = client.get("/performance/box_test/kem-90/").content.decode()
    assert "kat.sha256" not in html and "follow the curated external size catalog" not in html
    assert "<code>kat/kem-90/KEM-90-1.log</code>" in html
    assert "the curated external size catalog has no row for these parameter sets" in html
    markdown = candidate_markdown(page)
    assert (
        "kat.sha256" not in markdown
        and "`kat/kem-90/KEM-90-0.log`, `kat/kem-90/KEM-90-1.log`" in markdown
    )
    assert "All sizes are the API figures the library reports" in markdown
    assert (
        "| clock | SMT none; counter tsc, 2.59 GHz measured, read overhead 38 ticks |" in markdown
    )


def test_imported_campaign_keeps_the_published_kat_and_size_sentences(empty_db):
    from measurements.models import ExternalSize

    build_candidate(instances=1)
    ExternalSize.objects.create(candidate="kem-90", instance_label="KEM-90-0", public_key_bytes=800)
    page = candidate_page("box_test", "kem-90")
    assert page.kat_manifest == "kem-90/kat.sha256" and page.kat_logs == ()
    assert page.sizes_from_catalog is True


def test_system_switch_and_side_by_side_chart(empty_db):
    build_candidate(instances=2)
    other = SystemFactory(key="arm_box", arch="aarch64")
    campaign = CampaignFactory(system=other, key="arm-campaign", primary_cpu=2)
    build_candidate(instances=2, system_key="arm_box", arch="aarch64", campaign=campaign)
    page = candidate_page("box_test", "kem-90")
    assert [(s.key, s.current) for s in page.systems] == [("arm_box", False), ("box_test", True)]
    assert page.systems[0].url == "/performance/arm_box/kem-90/"
    assert page.systems_chart is not None
    assert page.systems_chart.series == ("arm_box", "box_test")
    assert len(page.systems_chart.groups) == 6
    svg = log_bar_chart(page.systems_chart)
    assert svg.startswith("<svg") and "arm_box" in svg and "box_test" in svg
    assert page.title.endswith("(system box_test)")
    assert candidate_page("arm_box", "kem-90").title.endswith("on AArch64 (system arm_box)")


def test_latest_campaign_of_the_system_is_shown(empty_db):
    _, old = build_candidate(instances=1)
    Campaign.objects.filter(pk=old.pk).update(started_utc="2020-01-01T00:00:00Z")
    system = old.system
    newer = CampaignFactory(system=system, key="newer", primary_cpu=3)
    build_candidate(instances=1, campaign=newer)
    assert candidate_page("box_test", "kem-90").campaign.key == "newer"


@pytest.mark.parametrize(
    ("system", "submission"), [("box_test", "kem-99"), ("nosuch", "kem-90"), ("", "")]
)
def test_unknown_keys_raise_404(empty_db, system, submission):
    build_candidate(instances=1)
    with pytest.raises(Http404):
        candidate_page(system, submission)
