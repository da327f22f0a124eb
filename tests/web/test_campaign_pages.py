"""Imported and published campaigns are listed and say what they hold (they have no steps)."""

from __future__ import annotations


def test_every_campaign_is_listed_with_its_source(client, x86_1_published, arm1):
    html = client.get("/campaigns/").content.decode()
    assert f'href="/campaigns/{arm1.key}/"' in html
    assert 'href="/campaigns/x86_1-published-pages/"' in html
    assert "imported harness data" in html and "published page, no raw trials" in html


def test_imported_campaign_shows_its_contents_not_zero_steps(client, x86_1_published, arm1):
    html = client.get(f"/campaigns/{arm1.key}/").content.decode()
    assert "of 0 steps" not in html
    assert "597 builds, 45 measurements, 225 trials" in html
    published = client.get("/campaigns/x86_1-published-pages/").content.decode()
    assert "Published page, no raw trials: 11 builds, 33 measurements, 0 trials" in published
