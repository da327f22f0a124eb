"""Raw trials through the API: the reference record, cursor pagination, nesting."""

from __future__ import annotations

import json

import pytest

from measurements import links
from measurements.models import Measurement, Trial
from tests.api.helpers import all_pages, rows
from tests.conftest import ARM1_DATA
from tests.factories import MeasurementFactory, TrialFactory

KEM29_ENC = ARM1_DATA / "records" / "kem-29" / "PolarKEM-128__enc.json"


def _figures(trials: list[dict]) -> list[tuple[int, float, int]]:
    return [(t["measurements"], t["seconds"], t["cycles"]) for t in trials]


def test_kem29_enc_trials_are_exactly_the_record_trials(arm1, api_client):
    record = json.loads(KEM29_ENC.read_bytes())
    url = links.api_url_for_trials("arm_1", "kem-29", "PolarKEM-128", "enc")
    assert url == (
        "/api/v1/systems/arm_1/submissions/kem-29/trials/?instance=PolarKEM-128&operation=enc"
    )
    trials = all_pages(api_client, url)

    assert _figures(trials) == _figures(record["trials"])
    assert [t["index"] for t in trials] == sorted(t["index"] for t in trials)
    assert {(t["system"], t["submission"], t["instance"], t["operation"]) for t in trials} == {
        ("arm_1", "kem-29", "PolarKEM-128", "enc")
    }

    # The same trials by measurement id, as linked from the measurement itself.
    measurements = rows(api_client.get(links.api_url_for_candidate_page("arm_1", "kem-29")))
    (measurement,) = [
        m for m in measurements if m["instance"] == "PolarKEM-128" and m["operation"] == "enc"
    ]
    assert all_pages(api_client, measurement["trials_url"]) == trials

    # The page's mean cycles is Σ cycles / Σ measurements over exactly these trials.
    mean = sum(t["cycles"] for t in trials) / sum(t["measurements"] for t in trials)
    assert mean == pytest.approx(measurement["mean_cycles"], rel=1e-12)
    assert measurement["measurements"] == sum(t["measurements"] for t in trials) == 16845
    assert round(mean / 1000, 1) == 495.7  # written "495.7 k" on the page


def test_trial_detail_and_unknown_id(db, api_client):
    trial = TrialFactory(cycles=123_456)
    response = api_client.get(f"/api/v1/trials/{trial.pk}/")
    assert response.status_code == 200
    assert response.json()["cycles"] == 123_456
    assert response.json()["submission"] == trial.measurement.instance.submission.key
    assert api_client.get("/api/v1/trials/999999999/").status_code == 404
    assert api_client.get("/api/v1/trials/99999999999999999999999/").status_code == 404


def test_cursor_pagination_is_stable_under_inserts(db, api_client):
    measurement = MeasurementFactory()
    for i in range(7):
        TrialFactory(measurement=measurement, index=i, cycles=1000 + i)
    url = f"/api/v1/trials/?measurement={measurement.pk}&page_size=3"
    first = api_client.get(url).json()
    assert [t["cycles"] for t in first["results"]] == [1000, 1001, 1002]
    assert "count" not in first and first["previous"] is None

    # Rows added while a client pages through neither shift nor repeat what it sees.
    for i in range(7, 10):
        TrialFactory(measurement=measurement, index=i, cycles=1000 + i)
    seen = [t["cycles"] for t in first["results"]] + [
        t["cycles"] for t in all_pages(api_client, first["next"])
    ]
    assert seen == list(range(1000, 1010))


def test_trials_descending_order(db, api_client):
    measurement = MeasurementFactory()
    for i in range(3):
        TrialFactory(measurement=measurement, index=i, cycles=i)
    got = rows(api_client.get(f"/api/v1/trials/?measurement={measurement.pk}&ordering=-id"))
    assert [t["cycles"] for t in got] == [2, 1, 0]


def test_nested_paths_scope_by_natural_keys(db, api_client):
    mine = MeasurementFactory(campaign__system__key="box_a", instance__submission__key="kem-91")
    other = MeasurementFactory(campaign__system__key="box_b", instance__submission__key="kem-91")
    TrialFactory(measurement=mine, index=0)
    TrialFactory(measurement=other, index=0)

    got = rows(api_client.get("/api/v1/systems/box_a/submissions/kem-91/trials/"))
    assert [t["measurement"] for t in got] == [mine.pk]
    got = rows(api_client.get("/api/v1/systems/box_b/measurements/"))
    assert [m["id"] for m in got] == [other.pk]
    assert rows(api_client.get("/api/v1/systems/box_a/submissions/"))[0]["key"] == "kem-91"

    for url in (
        "/api/v1/systems/nope/submissions/kem-91/trials/",
        "/api/v1/systems/box_a/submissions/nope/measurements/",
        "/api/v1/systems/nope/measurements/",
    ):
        response = api_client.get(url)
        assert response.status_code == 404, url
        assert "nope" in response.json()["detail"]


def test_stored_aggregates_recomputable_from_api_trials(arm1, api_client):
    """Every measurement of one candidate: its stored mean equals the mean of its API trials."""
    measurements = Measurement.objects.filter(campaign=arm1, instance__submission__key="kem-29")
    assert measurements.exists()
    trials = all_pages(api_client, "/api/v1/systems/arm_1/submissions/kem-29/trials/")
    assert len(trials) == Trial.objects.filter(measurement__in=measurements).count()
    for m in measurements:
        own = [t for t in trials if t["measurement"] == m.pk]
        mean = sum(t["cycles"] for t in own) / sum(t["measurements"] for t in own)
        assert mean == pytest.approx(m.mean_cycles, rel=1e-12), m


def test_anonymous_json_reads_are_cached_until_the_data_changes(
    arm1, page_cache, api_client, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from measurements.models import SummaryNote

    url = "/api/v1/trials/?system=arm_1&submission=kem-29&page_size=5"
    first = api_client.get(url).json()
    assert len(first["results"]) == 5
    with django_assert_max_num_queries(2):  # data version and cache entry only
        assert api_client.get(url).json() == first
    SummaryNote.objects.create(candidate="kem-29", label_regex="^x$", note="bumps the version")
    with CaptureQueriesContext(connection) as queries:
        assert api_client.get(url).json() == first
    assert any("measurements_trial" in q["sql"] for q in queries.captured_queries)
