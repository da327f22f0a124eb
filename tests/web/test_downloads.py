"""CSV downloads of the global pages' tables (survey, KAT overview, size audit)."""

from __future__ import annotations

import csv
import io

from measurements.models import Build, SizeAudit


def _csv(client, url):
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    return response, list(csv.reader(io.StringIO(response.content.decode())))


def test_survey_csv(client, arm1):
    html = client.get("/survey/").content.decode()
    assert 'href="?format=csv"' in html
    response, rows = _csv(client, "/survey/?format=csv")
    assert 'filename="survey.csv"' in response["Content-Disposition"]
    kem29 = next(r for r in rows if r[0] == "kem-29")
    assert kem29[:4] == ["kem-29", "key encapsulation", "Polar-KEM", "ICCS-only"]


def test_kat_overview_csv(client, arm1):
    html = client.get("/kat/").content.decode()
    assert 'href="?table=counts&amp;format=csv"' in html
    assert 'href="?table=problems&amp;format=csv"' in html
    _, counts = _csv(client, "/kat/?table=counts&format=csv")
    assert sum(int(r[-1]) for r in counts[1:]) == Build.objects.filter(campaign=arm1).count()
    _, problems = _csv(client, "/kat/?table=problems&format=csv")
    assert problems[0][:4] == ["system", "candidate", "instance", "KAT"]
    assert {r[3] for r in problems[1:]} <= {"MISMATCH", "NOKAT", "CRYPTOFAIL", "OVERFLOW"} | {
        "TIMEOUT",
        "BUILDFAIL",
        "LOADFAIL",
        "CRASH",
        "NOLOG",
    }
    assert client.get("/kat/?table=nope&format=csv").status_code == 404


def test_size_audit_csv_follows_the_filters(client, arm1):
    _, every = _csv(client, "/size-audit/?state=all&format=csv")
    assert len(every) == 1 + SizeAudit.objects.count()
    _, kem29 = _csv(client, "/size-audit/?candidate=kem-29&state=all&format=csv")
    assert {r[0] for r in kem29[1:]} == {"kem-29"}
    assert [
        "kem-29",
        "PolarKEM-128",
        "public key",
        "1024",
        "1024",
        "0",
        "encoded",
        "agrees",
    ] in kem29


def test_profile_and_unranked_tables_csv(client, x86_1_published):
    html = client.get("/candidates/kem-29/").content.decode()
    assert (
        'href="?table=kat&amp;format=csv"' in html and 'href="?table=sizes&amp;format=csv"' in html
    )
    _, kat = _csv(client, "/candidates/kem-29/?table=kat&format=csv")
    assert kat == [
        ["instance", "target (bits)", "arm_1", "x86_1"],
        ["PolarKEM-128", "128", "PASS", "PASS"],
        ["PolarKEM-256", "256", "PASS", "PASS"],
        ["PolarKEM-512", "512", "PASS", "PASS"],
    ]
    _, sizes = _csv(client, "/candidates/kem-29/?table=sizes&format=csv")
    assert sizes[1] == ["PolarKEM-128", "1024", "768"]
    assert client.get("/candidates/kem-29/?table=nope&format=csv").status_code == 404
    response, unranked = _csv(
        client, "/rankings/kem/?target=128&system=arm_1&format=csv&table=unranked"
    )
    assert 'filename="rankings-kem-unranked-arm_1.csv"' in response["Content-Disposition"]
    assert ["kem-01", "Aigis-Enc+", "Aigis-enc1", "build failed (BUILDFAIL)"] in unranked


def test_index_tables_csv(client, x86_1_published):
    html = client.get("/").content.decode()
    assert 'href="?table=systems&amp;format=csv"' in html
    assert 'href="/campaigns/x86_1-published-pages/"' in html
    _, systems = _csv(client, "/?table=systems&format=csv")
    assert [r[0] for r in systems[1:]] == ["arm_1", "x86_1"]
    assert systems[2][3] == "x86_1-published-pages"
    _, subs = _csv(client, "/?table=submissions&format=csv")
    assert subs[0][-2:] == ["arm_1", "x86_1"]
    kem29 = next(r for r in subs if r[1] == "kem-29")
    assert kem29 == ["key encapsulation", "kem-29", "Polar-KEM", "3", "yes", "yes"]
    assert client.get("/?table=nope&format=csv").status_code == 404
