"""The ReDoc page is served without anything from outside (no web fonts, no CDN)."""

from __future__ import annotations


def test_redoc_page_loads_nothing_from_outside(client, db):
    html = client.get("/api/redoc/").content.decode()
    assert "<redoc" in html
    assert "googleapis" not in html and "gstatic" not in html
    assert "https://" not in html and "http://" not in html
