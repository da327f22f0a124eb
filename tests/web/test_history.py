"""The history page and its API twin render every campaign and the flagged change."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import CampaignFactory, InstanceFactory, MeasurementFactory, SystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_campaigns(empty_db):
    system = SystemFactory(key="box_h")
    instance = InstanceFactory(label="INST-W")
    start = timezone.now() - timedelta(days=2)
    for i, median in enumerate((1000.0, 1500.0)):
        campaign = CampaignFactory(
            system=system, key=f"web-{i}", source="runner", started_utc=start + timedelta(days=i)
        )
        MeasurementFactory(
            campaign=campaign,
            instance=instance,
            operation="enc",
            sample_median_cycles=median,
            sample_ci95_low_cycles=median - 10,
            sample_ci95_high_cycles=median + 10,
        )
    return instance.submission.key


def test_history_page_lists_campaigns_with_the_flag_and_the_rule(client, two_campaigns):
    url = reverse("measurements:candidate_history", args=["box_h", two_campaigns])
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "web-0" in html and "web-1" in html
    assert "⚠ slower than the previous campaign" in html
    assert "combined uncertainty" in html
    assert "<svg" in html
    assert reverse("api:history", args=["box_h", two_campaigns]) in html


def test_history_page_answers_only_safe_methods(client, two_campaigns):
    url = reverse("measurements:candidate_history", args=["box_h", two_campaigns])
    assert client.post(url).status_code == 405


def test_history_api_exposes_the_series(client, two_campaigns):
    response = client.get(reverse("api:history", args=["box_h", two_campaigns]))
    assert response.status_code == 200
    data = response.json()
    assert data["system"] == "box_h" and data["campaigns"] == 2 and data["changes"] == 1
    [series] = data["series"]
    assert series["operation"] == "enc"
    assert [p["cycles"] for p in series["points"]] == [1000.0, 1500.0]
    assert [p["change"] for p in series["points"]] == ["", "slower"]


def test_history_api_404_for_unknown_candidate(client, empty_db):
    assert client.get(reverse("api:history", args=["box_h", "kem-00"])).status_code == 404


def test_candidate_page_links_its_history(client, two_campaigns):
    page = client.get(reverse("measurements:candidate", args=["box_h", two_campaigns]))
    assert page.status_code == 200
    history = reverse("measurements:candidate_history", args=["box_h", two_campaigns])
    assert f'<a class="history-link" href="{history}">' in page.content.decode()


def test_method_page_states_the_uncertainty_method(client, arm1):
    body = client.get(reverse("measurements:method", args=["arm_1"])).content.decode()
    assert 'id="uncertainty"' in body
    assert "widened by √2" in body and "Student's <var>t</var>" in body
