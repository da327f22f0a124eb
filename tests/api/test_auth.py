"""Anyone reads; nothing is written through the API; anonymous clients are throttled."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from measurements.models import Measurement, System, Trial
from tests.factories import MeasurementFactory, TrialFactory

WRITE_METHODS = ["post", "put", "patch", "delete"]


@pytest.fixture
def trial(empty_db):
    return TrialFactory(measurement=MeasurementFactory(campaign__system__key="box_w"), index=0)


def _snapshot() -> tuple:
    return (
        list(System.objects.values_list("key", flat=True)),
        list(Measurement.objects.values_list("id", "operation", "mean_cycles")),
        list(Trial.objects.values_list("id", "cycles")),
    )


def _targets(trial: Trial) -> list[str]:
    m = trial.measurement
    return [
        "/api/v1/systems/",
        "/api/v1/systems/box_w/",
        "/api/v1/measurements/",
        f"/api/v1/measurements/{m.pk}/",
        "/api/v1/trials/",
        f"/api/v1/trials/{trial.pk}/",
        f"/api/v1/systems/box_w/submissions/{m.instance.submission.key}/trials/",
    ]


@pytest.mark.parametrize("method", WRITE_METHODS)
def test_anonymous_writes_are_refused_and_change_nothing(trial, api_client, method):
    before = _snapshot()
    for url in _targets(trial):
        response = getattr(api_client, method)(url, {"key": "evil", "cycles": 1}, format="json")
        assert response.status_code == 405, (method, url, response.status_code)
    assert _snapshot() == before


@pytest.mark.parametrize("method", WRITE_METHODS)
def test_staff_token_cannot_write_either(trial, api_client, staff_token, method):
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {staff_token}")
    before = _snapshot()
    for url in _targets(trial):
        response = getattr(api_client, method)(url, {"key": "evil"}, format="json")
        assert response.status_code == 405, (method, url, response.status_code)
    assert _snapshot() == before


def test_anonymous_reads_and_staff_reads(trial, api_client, staff_token):
    assert api_client.get("/api/v1/").status_code == 200
    assert api_client.get(f"/api/v1/trials/{trial.pk}/").status_code == 200
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {staff_token}")
    assert api_client.get(f"/api/v1/trials/{trial.pk}/").status_code == 200
    api_client.credentials(HTTP_AUTHORIZATION="Token wrong")
    assert api_client.get("/api/v1/systems/").status_code == 401


def test_anonymous_clients_are_throttled_at_the_configured_rate(db, api_client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "3/minute"},
    }
    cache.clear()
    codes = [api_client.get("/api/v1/systems/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert api_client.get("/api/schema/").status_code == 429  # the same budget for every view


def test_staff_clients_are_not_throttled(db, api_client, settings, staff_token):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "1/minute"},
    }
    cache.clear()
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {staff_token}")
    assert {api_client.get("/api/v1/systems/").status_code for _ in range(3)} == {200}
