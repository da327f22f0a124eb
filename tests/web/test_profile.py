"""The candidate profile over HTTP."""

from __future__ import annotations

import csv
import io

from measurements.models import Measurement


def test_profile_page_links_figures_pages_and_campaigns(
    client, x86_1_published, django_assert_max_num_queries
):
    with django_assert_max_num_queries(12):
        response = client.get("/candidates/kem-29/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "published page, no raw trials" in html
    for href in (
        "/performance/arm_1/kem-29/",
        "/performance/x86_1/kem-29/",
        "/campaigns/x86_1-published-pages/",
        "/api/v1/systems/x86_1/submissions/kem-29/measurements/",
    ):
        assert f'href="{href}"' in html
    m = Measurement.objects.get(
        campaign=x86_1_published, instance__label="PolarKEM-512", operation="dec"
    )
    assert f'<a href="/measurements/{m.pk}/">2.61 M</a>' in html


def test_profile_csv(client, x86_1_published):
    response = client.get("/candidates/kem-29/?format=csv")
    assert 'filename="profile-kem-29.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "instance", "target (bits)", "operation", "arm_1 mean cycles", "x86_1 mean cycles",
        "x86_1 / arm_1",
    ]  # fmt: skip
    assert rows[1] == ["PolarKEM-128", "128", "keygen", "158.4 k", "166.5 k", "1.05×"]
    assert len(rows) == 1 + 9


def test_unknown_candidate_is_404(client, db):
    assert client.get("/candidates/kem-999/").status_code == 404
