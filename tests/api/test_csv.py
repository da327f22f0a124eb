"""`?format=csv` for measurements and trials: the same filters, every row, a fixed header."""

from __future__ import annotations

import csv
import io

import pytest

from measurements.api.serializers import MEASUREMENT_CSV_COLUMNS, TRIAL_CSV_COLUMNS
from tests.factories import MeasurementFactory, TrialFactory


def _table(response) -> list[list[str]]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.reader(io.StringIO(body.decode())))


@pytest.fixture
def measurement(empty_db):
    m = MeasurementFactory(
        campaign__system__key="box_csv",
        instance__submission__key="kem-93",
        instance__label="K-1",
        operation="enc",
        plan={"trials": 3, "iterations_per_trial": 10},
        mean_cycles=1234.5,
    )
    for i in range(3):
        TrialFactory(measurement=m, index=i, measurements=10, seconds=0.5 + i, cycles=100 * i)
    MeasurementFactory(operation="dec")  # filtered out below
    return m


def test_trials_csv_header_and_rows(measurement, api_client):
    response = api_client.get("/api/v1/trials/?format=csv&operation=enc")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="trial.csv"' in response["Content-Disposition"]
    header, *body = _table(response)
    assert header == TRIAL_CSV_COLUMNS
    assert header[:4] == ["id", "measurement", "system", "campaign"]
    col = {name: i for i, name in enumerate(header)}
    assert [(r[col["index"]], r[col["seconds"]], r[col["cycles"]]) for r in body] == [
        ("0", "0.5", "0"),
        ("1", "1.5", "100"),
        ("2", "2.5", "200"),
    ]
    assert {(r[col["system"]], r[col["submission"]], r[col["instance"]]) for r in body} == {
        ("box_csv", "kem-93", "K-1")
    }
    assert {r[col["disturbed"]] for r in body} == {"false"}


def test_trials_csv_is_not_paginated(measurement, api_client):
    for i in range(3, 30):
        TrialFactory(measurement=measurement, index=i)
    response = api_client.get(
        f"/api/v1/trials/?format=csv&measurement={measurement.pk}&page_size=5"
    )
    assert len(_table(response)) == 1 + 30


def test_measurements_csv_header_and_rows(measurement, api_client):
    response = api_client.get(
        "/api/v1/systems/box_csv/submissions/kem-93/measurements/", {"format": "csv"}
    )
    assert response.status_code == 200
    header, *body = _table(response)
    assert header == MEASUREMENT_CSV_COLUMNS
    assert len(body) == 1
    row = dict(zip(header, body[0], strict=True))
    assert row["id"] == str(measurement.pk)
    assert (row["system"], row["submission"], row["instance"]) == ("box_csv", "kem-93", "K-1")
    assert row["mean_cycles"] == "1234.5"
    assert row["plan"] == '{"iterations_per_trial":10,"trials":3}'
    assert row["throughput_mb_per_second"] == ""


def test_csv_by_accept_header(measurement, api_client):
    response = api_client.get("/api/v1/measurements/?system=box_csv", HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    assert _table(response)[0] == MEASUREMENT_CSV_COLUMNS


def test_csv_detail(measurement, api_client):
    response = api_client.get(f"/api/v1/measurements/{measurement.pk}/?format=csv")
    header, row = _table(response)
    assert header == MEASUREMENT_CSV_COLUMNS
    assert row[0] == str(measurement.pk)
