"""The candidate-history API follows the API rules: read verbs only (405 before
authentication), unknown parameters a 400 naming them, anonymous JSON reads cached."""

from __future__ import annotations

import pytest

URL = "/api/v1/systems/arm_1/submissions/kem-29/history/"


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "POST", "DELETE"])
def test_history_api_answers_405_to_other_verbs_before_authentication(arm1, client, method):
    assert client.generic(method, URL).status_code == 405


def test_history_api_unknown_parameter_is_400_naming_it(arm1, client):
    response = client.get(f"{URL}?bogus=1")
    assert response.status_code == 400
    assert "bogus" in response.json()


def test_history_api_anonymous_reads_are_cached(
    arm1, page_cache, client, django_assert_max_num_queries
):
    first = client.get(URL).json()
    assert first["submission"] == "kem-29" and first["series"]
    with django_assert_max_num_queries(2):  # data version and cache entry only
        assert client.get(URL).json() == first
