"""The one link module: page URLs reversed from the routes, and no fallback when a route is gone.

(The API links are checked against the API itself in tests/api/test_links.py.)
"""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, path

from measurements import links
from measurements.selectors.pages.index import index_page
from tests.factories import SystemFactory

# A URL configuration without the measurements pages: what a renamed or dropped route looks like.
urlpatterns = [path("only/", lambda request: None, name="only")]


def test_page_links_are_the_routes_paths():
    assert links.index_url() == "/"
    assert links.summary_url("arm_1") == "/performance/arm_1/"
    assert links.method_url("arm_1") == "/performance/arm_1/method/"
    assert links.candidate_url("arm_1", "kem-29") == "/performance/arm_1/kem-29/"
    assert links.candidate_url("arm_1", "iccs") == "/performance/arm_1/iccs/"  # the helpers
    assert links.candidate_markdown_url("arm_1", "kem-29") == "/performance/arm_1/kem-29/perf.md"
    assert links.evidence_url(12) == "/evidence/12/"
    assert links.evidence_raw_url(12) == "/evidence/12/raw/"
    assert links.survey_url() == "/survey/"
    assert links.size_audit_url() == "/size-audit/"
    assert links.kat_overview_url() == "/kat/"
    assert links.campaign_url("arm_1-2026") == "/campaigns/arm_1-2026/"


def test_a_key_the_route_does_not_accept_is_an_error():
    with pytest.raises(NoReverseMatch):
        links.candidate_url("arm_1", "not-a-submission")


@pytest.mark.urls(__name__)
def test_a_missing_route_is_an_error_not_a_hard_coded_path():
    with pytest.raises(NoReverseMatch):
        links.summary_url("arm_1")
    with pytest.raises(NoReverseMatch):
        links.api_url_for_index()


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_a_page_builder_fails_on_a_missing_route(empty_db):
    SystemFactory(key="box_links")
    with pytest.raises(NoReverseMatch):
        index_page()


def test_every_candidate_link_of_the_index_answers(client, arm1):
    page = index_page()
    urls = [url for _, rows in page.submissions_by_category for r in rows for _, url in r.links]
    urls = [url for url in urls if url]
    assert "/performance/arm_1/iccs/" in urls
    for url in urls:
        assert client.get(url).status_code == 200, url
