"""The number of queries of an API request does not grow with its page size."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from measurements.models import KATResult, SizeAudit
from measurements.services.evidence import evidence_store
from tests.factories import (
    BuildFactory,
    CampaignFactory,
    ExternalSizeFactory,
    HashProfileCallFactory,
    HashProfileFactory,
    InstanceFactory,
    MeasurementFactory,
    SubmissionFactory,
    TrialFactory,
)

ROWS = 24
SMALL, LARGE = 2, 20


@pytest.fixture
def many_rows(empty_db):
    submission = SubmissionFactory(key="kem-95")
    campaign = CampaignFactory(system__key="box_q")
    for i in range(ROWS):
        instance = InstanceFactory(submission=submission, label=f"Q-{i}")
        build = BuildFactory(campaign=campaign, instance=instance)
        KATResult.objects.create(build=build, kind="official", status="PASS")
        measurement = MeasurementFactory(campaign=campaign, instance=instance)
        TrialFactory(measurement=measurement, index=0)
        TrialFactory(measurement=measurement, index=1)
        profile = HashProfileFactory(campaign=campaign, instance=instance)
        HashProfileCallFactory(profile=profile, position=0)
        HashProfileCallFactory(profile=profile, position=1, fn="sm3hash")
        ExternalSizeFactory(candidate="kem-95", instance_label=f"Q-{i}")
        SizeAudit.objects.create(instance=instance, field="public_key", api_bytes=1)
        evidence_store(
            campaign=campaign, relative_path=f"records/{i}.json", kind="record", content=b"{}"
        )
        CampaignFactory(system__key=f"box_q{i}")
        other = MeasurementFactory(campaign=campaign, instance__submission__key=f"kem-{200 + i}")
        TrialFactory(measurement=other, index=0)


LISTS = [
    "/api/v1/systems/",
    "/api/v1/submissions/",
    "/api/v1/instances/",
    "/api/v1/campaigns/",
    "/api/v1/builds/",
    "/api/v1/kat-results/",
    "/api/v1/measurements/",
    "/api/v1/trials/",
    "/api/v1/profiles/",
    "/api/v1/external-sizes/",
    "/api/v1/size-audit/",
    "/api/v1/evidence/",
    "/api/v1/systems/box_q/submissions/",
    "/api/v1/systems/box_q/submissions/kem-95/measurements/",
    "/api/v1/systems/box_q/submissions/kem-95/trials/",
    "/api/v1/systems/box_q/submissions/kem-95/profiles/",
    "/api/v1/systems/box_q/submissions/kem-95/builds/",
]


def _count(api_client, url: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = api_client.get(url)
    assert response.status_code == 200, (url, response.content)
    return len(queries), len(response.json()["results"])


@pytest.mark.parametrize("url", LISTS)
def test_query_count_is_constant_in_page_size(many_rows, api_client, url):
    small, n_small = _count(api_client, f"{url}?page_size={SMALL}")
    large, n_large = _count(api_client, f"{url}?page_size={LARGE}")
    assert (n_small, n_large) == (SMALL, LARGE)
    assert small == large, f"{url}: {small} queries for {SMALL} rows, {large} for {LARGE}"


@pytest.mark.parametrize("url", LISTS)
def test_query_count_is_small(many_rows, api_client, url, django_assert_max_num_queries):
    # count + rows + one prefetch (profile calls) + two path-key lookups at most.
    with django_assert_max_num_queries(5):
        assert api_client.get(f"{url}?page_size=100").status_code == 200


def test_csv_export_query_count(many_rows, api_client, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        response = api_client.get("/api/v1/trials/?format=csv")
        assert len(b"".join(response.streaming_content).splitlines()) == 1 + 3 * ROWS
    with django_assert_max_num_queries(3):
        response = api_client.get("/api/v1/measurements/?format=csv")
        assert len(b"".join(response.streaming_content).splitlines()) == 1 + 2 * ROWS
