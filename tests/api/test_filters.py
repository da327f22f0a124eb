"""Filters on natural keys; unknown parameters and malformed values are a 400 naming them."""

from __future__ import annotations

import csv
import datetime
import io

import pytest

from measurements.models import Campaign
from tests.api.helpers import rows
from tests.factories import BuildFactory, MeasurementFactory, SubmissionFactory, TrialFactory


@pytest.fixture
def two_measurements(empty_db):
    sign = SubmissionFactory(key="sign-91", category="sign", survey_verdict="broken")
    a = MeasurementFactory(
        campaign__system__key="box_a",
        campaign__key="camp-a",
        instance__submission__key="kem-91",
        instance__label="A-128",
        operation="enc",
        kat_status="PASS",
        started_utc=datetime.datetime(2026, 1, 10, tzinfo=datetime.UTC),
    )
    b = MeasurementFactory(
        campaign__system__key="box_b",
        campaign__key="camp-b",
        instance__submission=sign,
        instance__label="S-256",
        operation="sign",
        kat_status="MISMATCH",
        started_utc=datetime.datetime(2026, 3, 10, tzinfo=datetime.UTC),
    )
    TrialFactory(measurement=a, index=0)
    TrialFactory(measurement=b, index=0)
    return a, b


@pytest.mark.parametrize(
    "query,expected",
    [
        ("system=box_a", "a"),
        ("submission=sign-91", "b"),
        ("category=kem", "a"),
        ("instance=S-256", "b"),
        ("operation=enc", "a"),
        ("campaign=camp-b", "b"),
        ("kat_status=MISMATCH", "b"),
        ("verdict=broken", "b"),
        ("started_after=2026-02-01T00:00:00Z", "b"),
        ("started_before=2026-02-01", "a"),
        ("system=box_a&operation=sign", ""),
    ],
)
@pytest.mark.parametrize("resource", ["measurements", "trials"])
def test_filters_select_by_natural_keys(two_measurements, api_client, resource, query, expected):
    a, b = two_measurements
    ids = {"a": a.pk, "b": b.pk}
    response = api_client.get(f"/api/v1/{resource}/?{query}")
    assert response.status_code == 200, response.content
    key = "id" if resource == "measurements" else "measurement"
    assert [r[key] for r in rows(response)] == [ids[c] for c in expected]


@pytest.mark.parametrize(
    "url,field",
    [
        ("/api/v1/trials/?bogus=1", "bogus"),
        ("/api/v1/measurements/?systm=arm_1", "systm"),
        ("/api/v1/systems/?submission=kem-29", "submission"),
        ("/api/v1/measurements/?category=cipher", "category"),
        ("/api/v1/trials/?kat_status=GREEN", "kat_status"),
        ("/api/v1/measurements/?started_after=yesterday", "started_after"),
        ("/api/v1/trials/?started_before=2026-13-45", "started_before"),
        ("/api/v1/trials/?measurement=abc", "measurement"),
        ("/api/v1/trials/?measurement=-1", "measurement"),
        ("/api/v1/measurements/?input_bytes=1e999", "input_bytes"),
        ("/api/v1/trials/?input_bytes=99999999999999999999999", "input_bytes"),
        ("/api/v1/trials/?disturbed=maybe", "disturbed"),
        ("/api/v1/measurements/?ordering=secret", "ordering"),
        ("/api/v1/trials/?ordering=cycles", "ordering"),
        ("/api/v1/measurements/?page=zero", "page"),
        ("/api/v1/measurements/?page_size=0", "page_size"),
        ("/api/v1/trials/?page_size=1000000", "page_size"),
        ("/api/v1/trials/?cursor=not-a-cursor", "cursor"),
        ("/api/v1/trials/?cursor=cD1hYmM%3D", "cursor"),  # p=abc: a non-numeric position
        ("/api/v1/size-audit/?field=colour", "field"),
        ("/api/v1/evidence/?kind=secret", "kind"),
        ("/api/v1/campaigns/?status=sleeping", "status"),
        ("/api/v1/builds/?system=%00", "system"),
    ],
)
def test_bad_parameters_are_400_naming_the_field(db, api_client, url, field):
    response = api_client.get(url)
    assert response.status_code == 400, (url, response.status_code, response.content)
    assert field in response.json(), response.json()


def test_unknown_parameter_message_lists_the_allowed_ones(db, api_client):
    message = api_client.get("/api/v1/builds/?flavour=x").json()["flavour"][0]
    assert "kat_status" in message and "page_size" in message


def test_error_in_csv_format_names_the_field(db, api_client):
    response = api_client.get("/api/v1/trials/?format=csv&bogus=1")
    assert response.status_code == 400
    table = list(csv.reader(io.StringIO(response.content.decode())))
    assert table[0] == ["field", "error"]
    assert table[1][0] == "bogus" and table[1][1].startswith("Unknown query parameter")


def test_build_and_campaign_filters(db, api_client):
    passed = BuildFactory(kat_status="PASS", campaign__system__key="box_c")
    BuildFactory(kat_status="CRASH")
    got = rows(api_client.get("/api/v1/builds/?kat_status=PASS&system=box_c"))
    assert [b["id"] for b in got] == [passed.pk]
    assert got[0]["system"] == "box_c"
    assert got[0]["submission"] == passed.instance.submission.key
    assert got[0]["instance"] == passed.instance.label

    key = passed.campaign.key
    got = rows(api_client.get(f"/api/v1/campaigns/?campaign={key}&status=complete"))
    assert [c["key"] for c in got] == [key]
    assert api_client.get(f"/api/v1/campaigns/{key}/").json()["system"] == "box_c"
    assert Campaign.objects.filter(key=key).exists()


def test_ordering_and_page_size(db, api_client):
    for cycles in (3.0, 1.0, 2.0):
        MeasurementFactory(mean_cycles=cycles, campaign__system__key="box_o")
    url = "/api/v1/measurements/?system=box_o&ordering=-mean_cycles&page_size=2"
    data = api_client.get(url).json()
    assert data["count"] == 3
    assert [m["mean_cycles"] for m in data["results"]] == [3.0, 2.0]
    assert [m["mean_cycles"] for m in api_client.get(data["next"]).json()["results"]] == [1.0]
