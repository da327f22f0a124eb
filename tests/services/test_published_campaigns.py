"""Published x86_1 pages imported as a campaign "published page, no raw trials"."""

from __future__ import annotations

import shutil

import pytest

from measurements.models import Build, Campaign, EvidenceFile, HashProfile, Measurement, Trial
from measurements.services.published_campaigns import (
    PublishedPageError,
    published_campaigns_import,
)
from tests.conftest import PAGES
from tests.page_tables import markdown_tables

FIGURE_TABLES = slice(0, 5)  # §2 environment, §3 KAT, §4 performance, §5 resources, §6 sizes


def test_import_creates_one_published_campaign_without_trials(x86_1_published):
    campaign = x86_1_published
    assert (campaign.system.key, campaign.source) == ("x86_1", "published")
    assert Build.objects.filter(campaign=campaign).count() == 11
    measurements = Measurement.objects.filter(campaign=campaign)
    assert measurements.count() == 33
    assert not Trial.objects.filter(measurement__campaign=campaign).exists()
    assert HashProfile.objects.filter(campaign=campaign).count() == 33
    keygen = measurements.get(instance__label="PolarKEM-128", operation="keygen")
    assert keygen.mean_cycles == 166_500
    assert keygen.mean_seconds == pytest.approx(79.6e-6)
    assert (keygen.measurements, keygen.plan) == (
        57380,
        {"trials": 5, "iterations_per_trial": 11476},
    )
    assert keygen.evidence.relative_path == "pages/kem-29/perf_x86_1.md"
    assert bytes(keygen.evidence.content) == (PAGES / "kem-29" / "perf_x86_1.md").read_bytes()
    assert campaign.environment["cpu_model"] == "12th Gen Intel(R) Core(TM) i7-12700"


def test_reimport_changes_nothing(x86_1_published):
    summary = published_campaigns_import(directory=PAGES, system_key="x86_1")
    assert not summary.changed
    assert summary.describe() == "no changes: all 3 files were already imported"


@pytest.mark.parametrize("candidate", ["kem-29", "kem-30", "kem-38"])
def test_candidate_page_equals_the_published_page_cell_for_cell(client, x86_1_published, candidate):
    published = markdown_tables((PAGES / candidate / "perf_x86_1.md").read_text())
    ours = markdown_tables(client.get(f"/performance/x86_1/{candidate}/perf.md").content.decode())
    assert ours[FIGURE_TABLES] == published[FIGURE_TABLES]
    # The symmetric-primitives table (shares and calls per operation) as well.
    assert ours[5] == published[5]
    # KAT log lines of the evidence index (path and digest prefix) too.
    kat_logs = [row for row in published[6] if row[1].startswith("KAT log")]
    assert kat_logs and all(row in ours[6] for row in kat_logs)


def test_provenance_is_shown_on_pages_and_in_the_api(client, x86_1_published):
    html = client.get("/performance/x86_1/kem-29/").content.decode()
    assert "Provenance: published page, no raw trials." in html
    assert "Provenance" not in client.get("/performance/arm_1/kem-29/").content.decode()
    assert "Provenance: published page" in client.get("/performance/x86_1/").content.decode()
    m = Measurement.objects.get(
        campaign=x86_1_published, instance__label="PolarKEM-128", operation="keygen"
    )
    detail = client.get(f"/measurements/{m.pk}/").content.decode()
    assert "Provenance: published page, no raw trials." in detail and 'id="no-trials"' in detail
    body = client.get(f"/api/v1/measurements/{m.pk}/").json()
    assert body["provenance"] == "published page, no raw trials"
    ranking = client.get("/rankings/kem/?target=128&system=x86_1").content.decode()
    assert "Provenance: published page, no raw trials." in ranking
    assert "Provenance" not in client.get("/rankings/kem/?target=128&system=arm_1").content.decode()
    compare = client.get("/compare/?a=kem-29:PolarKEM-128@x86_1").content.decode()
    assert 'class="warn provenance">published page, no raw trials</td>' in compare
    arm = Measurement.objects.filter(campaign__system__key="arm_1").first()
    assert client.get(f"/api/v1/measurements/{arm.pk}/").json()["provenance"] == (
        "measured, raw trials stored"
    )


def test_a_cell_that_does_not_read_back_aborts_the_whole_import(arm1, tmp_path):
    for candidate in ("kem-29", "kem-30"):
        (tmp_path / candidate).mkdir()
        shutil.copy(PAGES / candidate / "perf_x86_1.md", tmp_path / candidate)
    page = tmp_path / "kem-30" / "perf_x86_1.md"
    lines = page.read_text().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if "| `POLARLAC-128` | enc |" in line)
    lines[number] = lines[number].replace("209.2 k", "209.20 k")
    page.write_text("".join(lines))
    with pytest.raises(PublishedPageError) as error:
        published_campaigns_import(directory=tmp_path, system_key="x86_1")
    assert str(error.value).startswith(f"{page}:{number + 1}: mean cycles: '209.20 k'")
    assert not Campaign.objects.filter(key="x86_1-published-pages").exists()
    assert not EvidenceFile.objects.filter(relative_path__startswith="pages/").exists()
