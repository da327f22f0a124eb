"""Pages answer only the methods they support, carry a CSP, cache per data version, and show a
bounded preview of evidence with the full file streamed behind the raw download."""

from __future__ import annotations

import pytest

from measurements.models import SummaryNote
from measurements.page_cache import data_version, data_version_bump
from measurements.selectors.evidence import PREVIEW_BYTES
from measurements.services.evidence import evidence_store
from tests.factories import CampaignFactory

PAGES = [
    "/",
    "/size-audit/",
    "/survey/",
    "/kat/",
    "/performance/arm_1/",
    "/performance/arm_1/method/",
    "/performance/arm_1/kem-29/",
    "/performance/arm_1/kem-29/perf.md",
    "/performance/arm_1/kem-29/history/",
    "/rankings/kem/",
    "/campaigns/",
]


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "POST", "PUT", "DELETE"])
@pytest.mark.parametrize("url", PAGES)
def test_unsupported_methods_answer_405(arm1, client, url, method):
    response = client.generic(method, url)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_pages_carry_a_content_security_policy(arm1, client):
    policy = client.get("/performance/arm_1/")["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "object-src 'none'" in policy
    assert "frame-ancestors 'none'" in policy
    assert "'unsafe-inline'" not in policy


def test_summary_is_cached_until_the_data_changes(
    arm1, page_cache, client, django_assert_max_num_queries
):
    first = client.get("/performance/arm_1/").content
    # A cached page costs the data-version read and the cache read, whatever its size.
    with django_assert_max_num_queries(2):
        assert client.get("/performance/arm_1/").content == first
    SummaryNote.objects.create(candidate="kem-29", label_regex="^PolarKEM-128$", note="ZZ-NOTE")
    fresh = client.get("/performance/arm_1/").content.decode()
    assert "ZZ-NOTE" in fresh


def test_every_measurements_write_bumps_the_data_version(db):
    from measurements.models import DataVersion

    DataVersion.objects.all().delete()  # as after a flush: nothing is cached without a version
    assert data_version() is None
    CampaignFactory(system__key="box_v")
    row = DataVersion.objects.get()
    assert len(row.token) == 32 and row.number >= 1
    data_version_bump()
    token, number = data_version().split(".")
    assert int(number) == row.number + 1
    assert len(token) == 32 and token != row.token  # a new token with every bump


def test_logged_in_users_are_not_served_from_the_cache(arm1, page_cache, admin_client):
    admin_client.get("/performance/arm_1/kem-29/")
    response = admin_client.get("/performance/arm_1/kem-29/")
    assert response.status_code == 200 and response.context is not None


@pytest.fixture
def big_log(db):
    campaign = CampaignFactory(system__key="box_p")
    line = "é lines of a long KAT log\n".encode()
    content = line * (PREVIEW_BYTES // len(line) + 2000)
    stored, _ = evidence_store(
        campaign=campaign, relative_path='kat/kem-94/we"ird.log', kind="kat_log", content=content
    )
    return stored, content


def test_evidence_view_shows_a_bounded_preview(big_log, client):
    evidence, content = big_log
    response = client.get(f"/evidence/{evidence.pk}/")
    shown = response.context["view"].display.encode()
    assert len(shown) <= PREVIEW_BYTES and content.startswith(shown)
    assert len(shown) > PREVIEW_BYTES - 4  # cut at the limit (less a split character)
    html = response.content.decode()
    assert f"Only the first 256 KiB of {len(content):,}".replace(",", "\u202f") in html or (
        "Only the first 256 KiB of" in html
    )


def test_raw_download_streams_the_whole_file_with_a_safe_name(big_log, client):
    evidence, content = big_log
    response = client.get(f"/evidence/{evidence.pk}/raw/")
    assert response.streaming
    assert b"".join(response.streaming_content) == content
    assert response["Content-Disposition"] == 'attachment; filename="we\\"ird.log"'
    assert response["Content-Length"] == str(len(content))


def test_api_download_header_quotes_the_name(big_log, client):
    evidence, content = big_log
    response = client.get(f"/api/v1/evidence/{evidence.pk}/download/")
    assert response["Content-Disposition"] == 'inline; filename="we\\"ird.log"'
    assert response.getvalue() == content


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "POST", "DELETE"])
@pytest.mark.parametrize("url", ["/api/v1/", "/api/v1/measurements/", "/api/v1/trials/"])
def test_api_answers_405_to_other_verbs_before_authentication(arm1, client, url, method):
    assert client.generic(method, url).status_code == 405


def test_cached_pages_keep_their_security_headers(arm1, page_cache, client):
    first = client.get("/performance/arm_1/kem-29/")
    again = client.get("/performance/arm_1/kem-29/")
    assert again.content == first.content
    for header in ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"):
        assert again[header] == first[header]
    assert again["Content-Type"] == "text/html; charset=utf-8"


def test_a_logged_in_curator_bypasses_the_page_cache(arm1, page_cache, client, admin_client):
    client.get("/performance/arm_1/")
    response = admin_client.get("/performance/arm_1/")
    assert response.context is not None  # rendered, not served from the cache


def test_page_cache_is_off_unless_enabled(arm1, client, django_assert_max_num_queries):
    client.get("/performance/arm_1/kem-29/")
    response = client.get("/performance/arm_1/kem-29/")
    assert response.context is not None  # rendered again: tests count rendering queries


@pytest.mark.parametrize("url", ["/api/schema/", "/api/docs/", "/api/redoc/"])
def test_api_documentation_answers_405_to_other_verbs(db, client, url):
    assert client.get(url).status_code == 200
    assert client.generic("TRACE", url).status_code == 405
    assert client.generic("PROPFIND", url).status_code == 405


def test_swagger_ui_script_is_served_from_a_url_not_inline(db, client):
    html = client.get("/api/docs/").content.decode()
    assert '<script src="/api/docs/?script=' in html
    assert "<script>" not in html
    assert client.get("/api/docs/?script=").status_code == 200


def _measurement_url(campaign) -> str:
    from measurements.models import Measurement

    m = Measurement.objects.filter(campaign=campaign, operation="keygen").order_by("pk").first()
    return f"/measurements/{m.pk}/"


@pytest.mark.parametrize("method", ["TRACE", "POST", "DELETE"])
def test_measurement_detail_answers_405_to_other_verbs(arm1, client, method):
    response = client.generic(method, _measurement_url(arm1))
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    "query",
    [
        "target=abc",
        "target=%EF%BC%91",  # a full-width digit: not a number of bits
        "dir=sideways",
        "sort=secret",
        "format=xml",
        "colour=blue",
        "q=a%00b",
    ],
)
def test_rankings_junk_query_is_400(arm1, client, query):
    assert client.get(f"/rankings/kem/?system=arm_1&{query}").status_code == 400


def test_measurement_detail_junk_query_is_400(arm1, client):
    url = _measurement_url(arm1)
    assert client.get(url).status_code == 200
    assert client.get(f"{url}?format=xml").status_code == 400
    assert client.get(f"{url}?page=abc").status_code == 400


def test_rankings_and_measurement_csv_names_are_quoted_by_django(arm1, client):
    response = client.get("/rankings/kem/?system=arm_1&target=128&format=csv")
    assert response["Content-Disposition"] == 'attachment; filename="rankings-kem-128-arm_1.csv"'


def test_rankings_page_is_cached_until_the_data_changes(
    arm1, page_cache, client, django_assert_max_num_queries
):
    url = "/rankings/kem/?system=arm_1&target=128"
    first = client.get(url).content
    with django_assert_max_num_queries(2):
        assert client.get(url).content == first
    data_version_bump()
    assert client.get(url).context is not None  # rendered again
