"""System-level pages against the shared arm_1 data: index, summary, method, audit, survey, KAT."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from measurements import formatting as fmt
from measurements.models import Build, Campaign, KATResult, Measurement, SizeAudit, Submission
from tests.factories import BuildFactory, CampaignFactory, InstanceFactory, MeasurementFactory

REFERENCE_CANDIDATES = ("kem-17", "kem-29", "kem-30", "kem-38")


class _Rows(HTMLParser):
    """Collects the text of the cells of every `<tr data-label=…>` (keyed by candidate, label)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[tuple[str, str], list[str]] = {}
        self._key: tuple[str, str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr" and "data-label" in a:
            self._key = (a.get("data-candidate") or "", a["data-label"] or "")
            self.rows[self._key] = []
        elif tag == "td" and self._key is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._key is not None and self._cell is not None:
            self.rows[self._key].append(re.sub(r"\s+", " ", "".join(self._cell)).strip())
            self._cell = None
        elif tag == "tr":
            self._key = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table_rows(content: bytes) -> dict[tuple[str, str], list[str]]:
    parser = _Rows()
    parser.feed(content.decode())
    return parser.rows


def reference_summary_rows(pages_dir) -> dict[tuple[str, str], list[str]]:
    """Rows of the published summary_arm_1.md: (candidate, label) → cells."""
    rows = {}
    text = (pages_dir / "performance" / "summary_arm_1.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        match = re.match(r"\| \[([a-z]+-\d+)\]", line)
        if not match:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        label = re.search(r"`([^`]*)`", cells[2]).group(1)
        rows[(match.group(1), label)] = cells
    return rows


@pytest.fixture
def summary_rows(client, arm1):
    """Summary rows in the published layout: the web page's security target column (the 4th,
    checked by `test_summary_shows_the_security_target`) is left out."""
    response = client.get(reverse("measurements:summary", args=["arm_1"]))
    assert response.status_code == 200
    return {key: cells[:3] + cells[4:] for key, cells in table_rows(response.content).items()}


def test_summary_shows_the_security_target(client, arm1):
    body = client.get(reverse("measurements:summary", args=["arm_1"])).content
    rows = table_rows(body)
    assert rows[("kem-29", "PolarKEM-128")][3] == "128"
    assert rows[("kem-30", "POLARLAC-Light")][3] == "–"
    assert rows[("hash-01", "AFS-TrEDM-1024")][3] == "512"
    assert b"<th>target (bits)</th>" in body


# --- index ------------------------------------------------------------------------------------


def test_index_lists_systems_and_submissions(client, arm1):
    response = client.get(reverse("measurements:index"))
    assert response.status_code == 200
    body = response.content.decode()
    # Both systems of systems.csv, with links to their summary and method pages.
    for key in ("arm_1", "x86_1"):
        assert f'data-system="{key}"' in body
        assert f'href="{reverse("measurements:summary", args=[key])}"' in body
        assert f'href="{reverse("measurements:method", args=[key])}"' in body
    assert "Qualcomm Snapdragon X Elite" in body
    assert arm1.key in body
    # Every imported submission is listed; measured ones link to their candidate page.
    for key in Submission.objects.values_list("key", flat=True):
        assert f'data-submission="{key}"' in body
    assert 'href="/performance/arm_1/kem-29/"' in body
    assert "Polar-KEM" in body
    # Links to the global pages.
    for name in ("kat_overview", "size_audit", "survey"):
        assert f'href="{reverse(f"measurements:{name}")}"' in body


def test_index_counts_measured_candidates(client, arm1):
    body = client.get("/").content.decode()
    row = re.search(r'<tr data-system="arm_1">(.*?)</tr>', body, re.S).group(1)
    cells = [
        re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]
    measured = (
        Measurement.objects.filter(campaign=arm1).values("instance__submission").distinct().count()
    )
    assert cells[4] == str(measured) == "4"


# --- summary ----------------------------------------------------------------------------------


def test_summary_kem29_polarkem128_row(summary_rows):
    cells = summary_rows[("kem-29", "PolarKEM-128")]
    assert cells[0] == "kem-29"
    assert cells[2] == "PolarKEM-128"
    assert cells[3:] == ["158.4 k (94%)", "495.7 k (94%)", "985.7 k (96%)", "1024", "768", "–"]


def test_summary_kem38_few_calls_marked(summary_rows):
    cells = summary_rows[("kem-38", "UVW-KEM-512")]
    assert cells[3] == "41.20 G (0.0%, n=20)"
    assert cells[5] == "66.64 G (0.0%, n=15)"


def test_summary_matches_reference_cell_by_cell(summary_rows, reference_pages_dir):
    """Every kem-17/29/30/38 row: cycles and size cells equal to the published summary."""
    reference = reference_summary_rows(reference_pages_dir)
    checked = 0
    for (candidate, label), ref_cells in reference.items():
        if candidate not in REFERENCE_CANDIDATES:
            continue
        ours = summary_rows[(candidate, label)]
        assert ours[3:8] == ref_cells[3:8], (candidate, label)
        checked += 1
    assert checked == 15
    # And no extra rows for these candidates.
    ours_keys = {k for k in summary_rows if k[0] in REFERENCE_CANDIDATES}
    assert ours_keys == {k for k in reference if k[0] in REFERENCE_CANDIDATES}


def test_summary_sizes_and_flags_match_reference_where_catalog_is_encoded(
    summary_rows, reference_pages_dir
):
    """Without timing records, sizes come from the catalog: equal wherever its basis is exact;
    every ⚠ KAT flag of the reference is shown."""
    reference = reference_summary_rows(reference_pages_dir)
    for (candidate, label), ref_cells in reference.items():
        ours = summary_rows[(candidate, label)]
        ref_flag = re.search(r"⚠ KAT \w+", ref_cells[2])
        our_flag = re.search(r"⚠ KAT \w+", ours[2])
        assert (ref_flag and ref_flag.group(0)) == (our_flag and our_flag.group(0)), label
        if candidate.startswith(("kem", "sign")) and not ours[6].startswith("≈"):
            assert ours[6:8] == ref_cells[6:8], (candidate, label)


def test_summary_non_pass_rows_flagged(summary_rows):
    lwr = summary_rows[("sign-15", "lwrdsa128")]
    assert "⚠ KAT OVERFLOW" in lwr[2]
    assert lwr[6:8] == ["1328", "2081"]
    assert "KAT/output caveat" in lwr[-1]
    qube = summary_rows[("kem-33", "qube-128")]
    assert "⚠ KAT MISMATCH" in qube[2]
    # A failed build has no library, hence no sizes.
    assert summary_rows[("kem-01", "Aigis-enc1")][3:8] == ["–"] * 5


def test_summary_notes_from_catalog(summary_rows):
    assert summary_rows[("hash-22", "Pavelor-512")][-1] == "secret-indexed AES S-box"
    assert summary_rows[("sign-18", "Origami-128")][-1] == (
        "signing time includes retries after API failures"
    )
    assert summary_rows[("kem-29", "PolarKEM-128")][-1] == "–"


def test_summary_key_exchange_transferred(summary_rows, reference_pages_dir):
    reference = reference_summary_rows(reference_pages_dir)
    for label in ("ADKEX-128", "ADKEX-256", "ADKEX-512", "AFS_KEX_C128"):
        assert (
            summary_rows[("kex-01" if "ADKEX" in label else "kex-02", label)][4]
            == (reference[("kex-01" if "ADKEX" in label else "kex-02", label)][4])
        )


def test_summary_rows_follow_build_order(client, arm1):
    body = client.get("/performance/arm_1/").content.decode()
    labels = re.findall(r'data-candidate="kem-25" data-label="([^"]+)"', body)
    expected = list(
        Build.objects.filter(campaign=arm1, instance__submission__key="kem-25")
        .order_by("instance__position")
        .values_list("instance__label", flat=True)
    )
    assert labels == expected


def test_summary_has_sections_charts_and_links(client, arm1):
    body = client.get("/performance/arm_1/").content.decode()
    for title in ("Digital signatures", "Key encapsulation", "Key exchange", "Hash functions"):
        assert f">{title}</h2>" in body
    assert "ICCS hash helpers" in body
    assert body.count("<svg") >= 2
    assert "<script" not in body
    assert 'href="/performance/arm_1/method/"' in body
    assert "/api/v1/" in body
    # The kem-29 row links to its candidate page.
    assert 'href="/performance/arm_1/kem-29/"' in body


def test_summary_hash_cells_show_missing_without_records(summary_rows):
    assert summary_rows[("hash-01", "AFS-TrEDM-512")][3:6] == ["–", "–", "–"]


def test_summary_query_budget(client, arm1, django_assert_max_num_queries):
    with django_assert_max_num_queries(15):
        response = client.get("/performance/arm_1/")
    assert response.status_code == 200


def test_summary_query_count_independent_of_rows(client, arm1, django_assert_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as before:
        client.get("/performance/arm_1/")
    for n in range(5):
        instance = InstanceFactory(label=f"EXTRA-{n}", submission__key="kem-29")
        BuildFactory(campaign=arm1, instance=instance)
        MeasurementFactory(campaign=arm1, instance=instance, operation="keygen")
    with django_assert_num_queries(len(before)):
        client.get("/performance/arm_1/")


def test_system_without_campaign_renders(client, arm1):
    response = client.get("/performance/x86_1/")
    assert response.status_code == 200
    assert b"No campaign" in response.content
    assert client.get("/performance/x86_1/method/").status_code == 200


@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize(
    "url", ["/performance/nope/", "/performance/nope/method/", "/performance/no_such/"]
)
def test_unknown_system_is_404(client, arm1, settings, debug, url):
    settings.DEBUG = debug
    response = client.get(url)
    assert response.status_code == 404
    if not debug:
        assert b"Not found" in response.content


# --- method -----------------------------------------------------------------------------------


def test_method_page_shows_planning_constants(client, arm1):
    response = client.get(reverse("measurements:method", args=["arm_1"]))
    assert response.status_code == 200
    body = response.content.decode()
    rows = dict(
        (key, re.sub(r"<[^>]+>", "", value).strip())
        for key, value in re.findall(
            r'<tr data-constant="([^"]+)">.*?<td class="num">(.*?)</td></tr>', body, re.S
        )
    )
    planning = arm1.planning
    assert rows["trials"] == fmt.format_int(planning["trials"]) == "5"
    assert rows["min_total"] == "100"
    assert rows["max_iters_per_trial"] == "20000"
    assert rows["trial_target_s"] == fmt.format_seconds(planning["trial_target_s"])
    assert rows["op_budget_s"] == fmt.format_seconds(planning["op_budget_s"])
    assert rows["separate_process_setup_s"] == fmt.format_seconds(
        planning["separate_process_setup_s"]
    )
    # Prose generated from the same constants.
    assert "measured in 5 trials" in body
    # Flags, environment, host checks, history, record count — all from the data.
    assert arm1.arch_config["reference"] in body
    assert html.escape(arm1.harness_additions) in body or arm1.harness_additions in body
    assert "Qualcomm Oryon" in body
    assert "fixed 2.71 GHz (governor performance, minimum = maximum)" in body
    assert "hardware cycle counter unavailable" in body  # the first host check's problem
    assert "thermal limiter" in body  # history note
    n_records = Measurement.objects.filter(campaign=arm1).count()
    assert f"{n_records} timing record" in body
    assert "cntvct_el0" in body and "19.2 MHz" in body


def test_method_page_flags_unfixed_host(client, arm1):
    Campaign.objects.filter(pk=arm1.pk).update(
        unfixed_host=True, host_problems=["cpufreq governor is powersave"]
    )
    body = client.get("/performance/arm_1/method/").content.decode()
    assert "Unfixed host" in body
    assert "cpufreq governor is powersave" in body
    assert 'role="alert"' in body
    summary = client.get("/performance/arm_1/").content.decode()
    assert "unfixed host" in summary


def test_method_page_shows_counter_of_our_driver(client, arm1):
    Campaign.objects.filter(pk=arm1.pk).update(
        counter={"name": "pmccntr", "overhead_cycles": 42, "frequency_hz": 2.7e9}
    )
    body = client.get("/performance/arm_1/method/").content.decode()
    assert "pmccntr" in body
    assert "2.7 GHz" in body
    assert ">42<" in body


# --- size audit -------------------------------------------------------------------------------


def test_size_audit_disagreements_first_with_counts(client, arm1):
    response = client.get(reverse("measurements:size_audit") + "?state=all")
    assert response.status_code == 200
    body = response.content.decode()
    states = re.findall(r'<tr data-candidate="[^"]+" data-label="[^"]+" data-state="([^"]+)"', body)
    assert len(states) == SizeAudit.objects.count()
    assert "agrees" in states
    first_agree = states.index("agrees")
    assert all(s != "agrees" for s in states[:first_agree])
    assert all(s == "agrees" for s in states[first_agree:])
    agree = SizeAudit.objects.filter(agrees=True).count()
    count_cell = re.search(r'<tr data-state="agrees">.*?<td class="num">(\d+)</td>', body, re.S)
    assert int(count_cell.group(1)) == agree == 30


def test_size_audit_filters(client, arm1):
    body = client.get("/size-audit/?candidate=kem-29&state=all").content.decode()
    rows = table_rows(body.encode())
    assert rows and {c for c, _ in rows} == {"kem-29"}
    cells = rows[("kem-29", "PolarKEM-128")]
    assert "1024" in cells and "encoded" in cells
    agreeing = client.get("/size-audit/?state=agrees").content
    assert set(
        re.findall(rb'data-state="(\w[\w-]*)"', agreeing.split(b'<table class="audit"')[1])
    ) == {b"agrees"}
    # By default only disagreements are listed (the other states are counts), one option per
    # candidate in the filter, and only disagreements are painted as warnings.
    default = client.get("/size-audit/").content.decode()
    audit = default.split('<table class="audit"', 1)[1] if '<table class="audit"' in default else ""
    listed = re.findall(r'data-label="[^"]+" data-state="([\w-]+)"', audit)
    assert set(listed) <= {"differs"}
    assert audit.count('class="warn"') == len(listed)
    options = re.findall(r'<option value="([a-z]+-\d+)"', default)
    assert (
        len(options)
        == len(set(options))
        == SizeAudit.objects.values("instance__submission").distinct().count()
    )
    # system filter keeps instances built on that system only
    assert client.get("/size-audit/?system=x86_1").status_code == 200
    assert b"No audit row matches" in client.get("/size-audit/?system=x86_1").content


# --- survey -----------------------------------------------------------------------------------


def test_survey_counts_and_not_surveyed(client, arm1):
    Submission.objects.filter(key="kem-29").update(
        survey_verdict="ICCS only", survey_note="all hashing through pseudoXOF and sm3hash"
    )
    response = client.get(reverse("measurements:survey"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "not surveyed" in body
    assert "ICCS only" in body and "all hashing through pseudoXOF" in body
    candidates = Submission.objects.exclude(category="iccs")
    surveyed = candidates.exclude(survey_verdict="").count()
    assert surveyed >= 1
    assert f"{surveyed} of {candidates.count()} candidates surveyed" in body
    # kem-29's measured mean hash share over its 9 profiles.
    from django.db.models import Avg

    mean = arm1.profiles.filter(instance__submission__key="kem-29").aggregate(m=Avg("hash_share"))[
        "m"
    ]
    row = re.search(r'<tr data-candidate="kem-29">(.*?)</tr>', body, re.S).group(1)
    assert fmt.format_share(mean) in row
    assert "9 profiles" in row


# --- KAT overview -----------------------------------------------------------------------------


def test_kat_overview_counts_and_causes(client, arm1):
    response = client.get(reverse("measurements:kat_overview"))
    assert response.status_code == 200
    body = response.content.decode()
    problems = {
        (c, label): status
        for c, label, status in re.findall(
            r'<tr data-candidate="([^"]+)" data-label="([^"]+)" data-status="([^"]+)"', body
        )
    }
    assert problems[("sign-15", "lwrdsa128")] == "OVERFLOW"
    assert problems[("kem-33", "qube-128")] == "MISMATCH"
    assert len(problems) == Build.objects.exclude(kat_status="PASS").count()
    rows = table_rows(body.encode())
    assert "sig_sign returns (and writes) signatures up to 64 bytes longer" in " ".join(
        rows[("sign-15", "lwrdsa128")]
    )
    assert "reproduce their own in-tree KAT files" in " ".join(rows[("kem-33", "qube-128")])
    assert "measure" in rows[("kem-33", "qube-128")]
    # No catalog entry and no log: said so.
    assert "cause not recorded" in " ".join(rows[("kem-01", "Aigis-enc1")])
    # Counts per category for arm_1: 24 MISMATCH builds overall.
    assert ">MISMATCH</th>" in body
    assert "MISMATCH 24" in body


def test_kat_overview_cause_from_log_and_evidence_link(client, arm1):
    build = Build.objects.get(campaign=arm1, instance__label="PolarKEM-128")
    Build.objects.filter(pk=build.pk).update(kat_status="MISMATCH")
    KATResult.objects.filter(build=build).update(status="MISMATCH")
    body = client.get("/kat/").content.decode()
    rows = table_rows(body.encode())
    cells = rows[("kem-29", "PolarKEM-128")]
    joined = " ".join(cells)
    # No catalog entry for kem-29: the first informative lines of its KAT log (not the
    # `key = value` header).
    assert joined.startswith("timing keygen") or " timing keygen" in joined
    assert "library =" not in joined
    assert "from the KAT log" in joined
    assert f'href="/evidence/{build.kat_log_id}/"' in body


def test_global_pages_query_budget(client, arm1, django_assert_max_num_queries):
    for url, budget in (("/", 8), ("/kat/", 8), ("/survey/", 6), ("/size-audit/", 6)):
        with django_assert_max_num_queries(budget):
            assert client.get(url).status_code == 200
    with django_assert_max_num_queries(10):
        assert client.get("/performance/arm_1/method/").status_code == 200


def test_pages_render_on_an_empty_database(client, empty_db):
    assert b"No system registered" in client.get("/").content
    for url in ("/kat/", "/survey/", "/size-audit/"):
        assert client.get(url).status_code == 200
    campaign = CampaignFactory(system__key="box_empty", planning={})
    assert client.get(f"/performance/{campaign.system.key}/").status_code == 200
    assert client.get(f"/performance/{campaign.system.key}/method/").status_code == 200


def test_api_links_of_the_system_pages_resolve(client, arm1):
    for url in (
        "/",
        "/performance/arm_1/",
        "/performance/arm_1/method/",
        "/size-audit/",
        "/survey/",
    ):
        body = client.get(url).content.decode()
        links = re.findall(r'class="api-link" href="([^"]+)"', body)
        assert links, url
        for link in links:
            assert link.startswith("/api/v1/")
            assert client.get(html.unescape(link)).status_code == 200, (url, link)
