"""API documentation pages: ReDoc loads nothing from outside; the schema shows in a browser."""

from __future__ import annotations


def test_redoc_page_loads_nothing_from_outside(client, db):
    html = client.get("/api/redoc/").content.decode()
    assert "<redoc" in html
    assert "googleapis" not in html and "gstatic" not in html
    assert "https://" not in html and "http://" not in html


def test_schema_is_shown_in_a_browser(client, db):
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = client.get("/api/schema/", HTTP_ACCEPT=browser)
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode().startswith("openapi: 3")
    assert response["Content-Disposition"].startswith("inline")
    # OpenAPI clients still get the OpenAPI media types.
    yaml = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi")
    assert yaml["Content-Type"].startswith("application/vnd.oai.openapi")
    assert client.get("/api/schema/?format=json").json()["info"]["title"] == "NGCC Perf API"
