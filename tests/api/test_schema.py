"""The OpenAPI schema validates, the docs are served without a CDN, and schemathesis (a small,
deterministic example budget) finds no server error on any operation."""

from __future__ import annotations

import contextlib
import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

EXAMPLES_PER_OPERATION = int(os.environ.get("NGCC_SCHEMATHESIS_EXAMPLES", "4"))


def test_generated_schema_validates():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    paths = schema["paths"]
    assert "/api/v1/trials/" in paths
    assert "/api/v1/systems/{system}/submissions/{submission}/measurements/" in paths
    assert "/api/v1/evidence/{id}/download/" in paths
    assert all(set(ops) <= {"get", "parameters"} for ops in paths.values()), "read-only API"
    trial_params = {p["name"] for p in paths["/api/v1/trials/"]["get"]["parameters"]}
    assert {"cursor", "page_size", "system", "submission", "instance", "operation"} <= trial_params


def test_served_schema_and_docs(db, client):
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    validate_schema(response.json())
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn." not in html and "unpkg" not in html
    assert client.get("/api/redoc/").status_code == 200
    browsable = client.get("/api/v1/measurements/", HTTP_ACCEPT="text/html")
    assert browsable.status_code == 200
    assert "NGCC Perf" in browsable.content.decode() or "Measurement" in browsable.content.decode()


@contextlib.contextmanager
def _keep_test_connection():
    """Calls through the WSGI app must not close the test's connection (as Django's test
    client does, the handler's connection-closing signal receivers are detached)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _hypothesis_check(operation):
    @given(case=operation.as_strategy())
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case):
        case.call_and_validate(checks=[not_a_server_error])

    return check


@pytest.mark.slow
def test_schemathesis_finds_no_server_errors(arm1):
    from ngcc.wsgi import application

    with _keep_test_connection():
        schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
        failures: list[str] = []
        operations = 0
        for result in schema.get_all_operations():
            operation = result.ok()
            operations += 1

            try:
                _hypothesis_check(operation)()
            except Exception as exc:  # collect every failing operation, not just the first
                failures.append(f"{operation.label}: {exc}")
    assert operations >= 40
    assert not failures, "\n\n".join(failures)
