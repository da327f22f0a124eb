"""Evidence files: metadata without the bytes; the download serves the stored bytes."""

from __future__ import annotations

import base64
import hashlib

import pytest

from measurements import links
from measurements.services.evidence import evidence_store
from tests.factories import CampaignFactory


@pytest.fixture
def evidence(db):
    campaign = CampaignFactory(system__key="box_e")
    stored, _ = evidence_store(
        campaign=campaign,
        relative_path="records/kem-94/X-1__enc.json",
        kind="record",
        content=b'{"mean_cycles": 1.5}\n',
    )
    return stored


def test_metadata(evidence, api_client):
    response = api_client.get(links.api_url_for_evidence_list(system_key="box_e"))
    (row,) = response.json()["results"]
    assert row == {
        "id": evidence.pk,
        "system": "box_e",
        "campaign": evidence.campaign.key,
        "relative_path": "records/kem-94/X-1__enc.json",
        "kind": "record",
        "sha256": hashlib.sha256(b'{"mean_cycles": 1.5}\n').hexdigest(),
        "size": 21,
        "download_url": f"/api/v1/evidence/{evidence.pk}/download/",
    }


def test_download_serves_the_stored_bytes(evidence, api_client):
    url = links.api_url_for_evidence_download(evidence.pk)
    response = api_client.get(url, HTTP_ACCEPT="application/octet-stream")
    assert response.status_code == 200
    body = response.getvalue()  # streamed: read once
    assert body == b'{"mean_cycles": 1.5}\n'
    assert response["Content-Type"] == "application/json"
    digest = hashlib.sha256(body)
    assert response["ETag"] == f'"{digest.hexdigest()}"'
    assert response["Repr-Digest"] == f"sha-256=:{base64.b64encode(digest.digest()).decode()}:"
    assert 'filename="X-1__enc.json"' in response["Content-Disposition"]

    again = api_client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert api_client.get("/api/v1/evidence/999999/download/").status_code == 404


def test_kat_log_download_as_text(arm1, api_client):
    from measurements.models import EvidenceFile

    log = EvidenceFile.objects.filter(campaign=arm1, kind="kat_log").first()
    response = api_client.get(links.api_url_for_evidence_download(log.pk))
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert hashlib.sha256(response.getvalue()).hexdigest() == log.sha256
