"""`/api/v1/rankings/<category>/`: the rankings page's rows as JSON, same state as the page."""

from __future__ import annotations

from measurements.selectors.pages.rankings import rankings_page


def test_rankings_api_returns_the_page_rows(client, arm1, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        response = client.get("/api/v1/rankings/kem/?target=128&system=arm_1&sort=keygen")
    assert response.status_code == 200
    body = response.json()
    assert (body["category"], body["system"], body["target_bits"]) == ("kem", "arm_1", 128)
    assert [r["id"]["value"] for r in body["rows"]] == ["kem-30", "kem-29", "kem-17", "kem-38"]
    assert body["rows"][0]["keygen"] == {"value": 134777.22371993793, "text": "134.8 k"}
    page = rankings_page("kem", {"target": "128", "system": "arm_1"})
    assert len(body["unranked"]) == len(page.unranked)
    assert {
        "submission": "kem-01",
        "instances": ["Aigis-enc1"],
        "reason": "build failed (BUILDFAIL)",
    } in (body["unranked"])


def test_rankings_page_links_its_api_query(client, arm1):
    html = client.get("/rankings/kem/?target=128&system=arm_1").content.decode()
    assert (
        'href="/api/v1/rankings/kem/?target=128&amp;system=arm_1&amp;sort=keygen">JSON (API)'
        in html
    )
    assert client.get("/api/v1/rankings/iccs/").status_code == 404
