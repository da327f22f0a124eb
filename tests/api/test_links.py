"""The link helpers the pages use: each URL answers with the data of that page."""

from __future__ import annotations

from measurements import links
from measurements.models import EvidenceFile, Measurement


def test_link_helpers_return_readable_urls():
    assert links.api_url_for_candidate_page("arm_1", "kem-29") == (
        "/api/v1/systems/arm_1/submissions/kem-29/measurements/"
    )
    assert links.api_url_for_system_summary("arm_1") == "/api/v1/systems/arm_1/measurements/"
    assert links.api_url_for_system_summary("arm_1", "sign") == (
        "/api/v1/systems/arm_1/measurements/?category=sign"
    )
    assert links.api_url_for_measurement_trials(7) == "/api/v1/trials/?measurement=7"
    assert links.with_format(links.api_url_for_measurement_trials(7), "csv") == (
        "/api/v1/trials/?measurement=7&format=csv"
    )
    assert links.with_format("/api/v1/measurements/", "csv") == ("/api/v1/measurements/?format=csv")
    assert links.api_url_for_evidence_download(3) == "/api/v1/evidence/3/download/"
    assert links.api_root_url() == "/api/v1/"
    assert links.api_docs_url() == "/api/docs/"


def test_every_link_answers_with_data(arm1, api_client):
    measurement = Measurement.objects.filter(campaign=arm1).first()
    evidence = EvidenceFile.objects.filter(campaign=arm1).first()
    sub = measurement.instance.submission.key
    urls = [
        links.api_root_url(),
        links.api_docs_url(),
        links.api_url_for_index(),
        links.api_url_for_submissions("kem"),
        links.api_url_for_system("arm_1"),
        links.api_url_for_system_summary("arm_1"),
        links.api_url_for_system_campaigns("arm_1"),
        links.api_url_for_candidate_page("arm_1", sub),
        links.api_url_for_candidate_builds("arm_1", sub),
        links.api_url_for_candidate_kat_results("arm_1", sub),
        links.api_url_for_candidate_profiles("arm_1", sub),
        links.api_url_for_trials("arm_1", sub, measurement.instance.label, measurement.operation),
        links.api_url_for_measurement(measurement.pk),
        links.api_url_for_measurement_trials(measurement.pk),
        links.api_url_for_campaign(arm1.key),
        links.api_url_for_sizes(sub),
        links.api_url_for_external_sizes(),
        links.api_url_for_evidence_list("arm_1", arm1.key),
        links.api_url_for_evidence_download(evidence.pk),
        links.with_format(links.api_url_for_candidate_page("arm_1", sub), "csv"),
    ]
    for url in urls:
        response = api_client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    candidate = api_client.get(links.api_url_for_candidate_page("arm_1", sub)).json()
    assert (
        candidate["count"]
        == Measurement.objects.filter(campaign=arm1, instance__submission__key=sub).count()
    )
