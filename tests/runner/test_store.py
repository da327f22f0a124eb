"""runner.store: a measured record is stored with its own JSON as evidence, in one transaction;
a record whose aggregates its trials do not give leaves neither evidence nor rows."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from measurements.harness_records import (
    hash_profile_json,
    parse_hash_profile,
    parse_timing_record,
    timing_record_json,
)
from measurements.models import EvidenceFile, HashProfile, Measurement, Submission, Trial
from measurements.records import RecordAggregateMismatch
from runner.store import measured_profile_store, measured_timing_store
from tests.factories import CampaignFactory
from tests.record_builders import built_profile, built_record

COUNTED = (EvidenceFile, Measurement, Trial, HashProfile, Submission)


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in COUNTED}


@pytest.mark.django_db
def test_measured_record_is_stored_with_its_json_as_evidence():
    record = built_record()
    m = measured_timing_store(campaign=CampaignFactory(), record=record)
    assert m.evidence.relative_path == "records/kem-90/MINI-1__enc.json"
    assert m.evidence.kind == EvidenceFile.Kind.RECORD
    content = bytes(m.evidence.content)
    assert json.loads(content) == json.loads(json.dumps(timing_record_json(record)))
    assert parse_timing_record(m.evidence.relative_path, json.loads(content)) == record
    # the sample figure is process-level: the mean of the two processes' medians
    assert (m.measurements, m.mean_cycles, m.sample_median_cycles) == (80, 105_000, 105_000)
    assert m.instance.api_instance == "MINI_1" and m.trials.count() == 2


@pytest.mark.django_db
def test_tampered_record_leaves_neither_evidence_nor_rows():
    campaign = CampaignFactory()
    record = built_record()
    tampered = replace(record, aggregates=replace(record.aggregates, mean_cycles=99_000.0))
    before = row_counts()
    with pytest.raises(RecordAggregateMismatch, match="MINI-1__enc.json: field 'mean_cycles'"):
        measured_timing_store(campaign=campaign, record=tampered)
    assert row_counts() == before
    assert not EvidenceFile.objects.filter(campaign=campaign).exists()


@pytest.mark.django_db
def test_measured_profile_is_stored_with_its_json_as_evidence():
    campaign = CampaignFactory()
    profile = built_profile()
    before = row_counts()
    with pytest.raises(RecordAggregateMismatch):
        measured_profile_store(campaign=campaign, profile=replace(profile, drng_share=0.5))
    assert row_counts() == before
    stored = measured_profile_store(campaign=campaign, profile=profile)
    assert stored.evidence.relative_path == "profile/kem-90/MINI-1__enc.json"
    evidence = json.loads(bytes(stored.evidence.content))
    assert evidence == json.loads(json.dumps(hash_profile_json(profile)))
    assert parse_hash_profile(stored.evidence.relative_path, evidence) == profile
    assert (stored.hash_share, stored.drng_share, stored.total_operations) == (0.625, 0.05, 100)
