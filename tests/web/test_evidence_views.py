"""Evidence views: a readable page with the sha256, and the raw bytes as an attachment."""

from __future__ import annotations

import hashlib
import json

import pytest

from measurements.models import EvidenceFile
from tests.conftest import ARM1_DATA


def _evidence(arm1, path: str) -> EvidenceFile:
    return EvidenceFile.objects.get(campaign=arm1, relative_path=path)


def test_record_is_pretty_printed_with_its_sha256(arm1, client):
    evidence = _evidence(arm1, "records/kem-29/PolarKEM-128__keygen.json")
    response = client.get(f"/evidence/{evidence.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    raw = (ARM1_DATA / evidence.relative_path).read_bytes()
    assert hashlib.sha256(raw).hexdigest() in html
    assert evidence.sha256 == hashlib.sha256(raw).hexdigest()
    assert "records/kem-29/PolarKEM-128__keygen.json" in html
    assert "  &quot;candidate&quot;: &quot;kem-29&quot;," in html  # indented, one key per line
    assert f'href="/evidence/{evidence.pk}/raw/"' in html
    assert 'href="/performance/arm_1/kem-29/#evidence"' in html


def test_kat_log_is_shown_as_text(arm1, client):
    evidence = _evidence(arm1, "kat/kem-29/PolarKEM-128.log")
    html = client.get(f"/evidence/{evidence.pk}/").content.decode()
    assert "RESULT kem-29 PolarKEM-128 PASS" in html
    assert evidence.sha256.startswith("c2502fa32beacfb5")
    assert evidence.sha256 in html


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("records/kem-38/UVW-KEM-512__keygen.json", "application/json"),
        ("profile/kem-30/POLARLAC-128__enc.json", "application/json"),
        ("kat/kem-17/hep-qc-7.log", "text/plain; charset=utf-8"),
    ],
)
def test_raw_download_is_byte_exact(arm1, client, path, content_type):
    evidence = _evidence(arm1, path)
    response = client.get(f"/evidence/{evidence.pk}/raw/")
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    filename = path.rsplit("/", 1)[-1]
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    body = b"".join(response.streaming_content)
    assert body == (ARM1_DATA / path).read_bytes()
    assert response["Content-Length"] == str(len(body))
    if path.endswith(".json"):
        json.loads(body)


def test_every_evidence_link_of_a_candidate_page_resolves(arm1, client):
    html = client.get("/performance/arm_1/kem-38/").content.decode()
    ids = sorted({int(x) for x in __import__("re").findall(r'href="/evidence/(\d+)/"', html)})
    assert len(ids) == 21
    for evidence_id in ids:
        assert client.get(f"/evidence/{evidence_id}/").status_code == 200


@pytest.mark.parametrize("url", ["/evidence/999999/", "/evidence/999999/raw/"])
@pytest.mark.parametrize("debug", [True, False])
def test_unknown_evidence_is_404(db, client, settings, url, debug):
    settings.DEBUG = debug
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("records/kem-29/PolarKEM-128__dec.json", "kem-29"),
        ("kat/sign-10/Facto-DSA-512.log", "sign-10"),
        ("campaign.json", ""),
        ("runs/local/driver-output.txt", ""),
    ],
)
def test_candidate_of_an_evidence_path(path, key):
    from measurements.selectors.evidence import submission_key_of

    assert submission_key_of(path) == key


def test_candidate_page_markdown_download(client, arm1):
    response = client.get("/performance/arm_1/kem-29/perf.md")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    assert text.startswith("# kem-29 Polar-KEM — performance on AArch64 (system arm_1)")
    assert (
        "| `PolarKEM-128` | enc | 495.7 k | 184 µs | 5.44e+03 | 183 µs | 16845 (5 × 3369) |" in text
    )
    assert client.get("/performance/arm_1/kem-99/perf.md").status_code == 404
