"""Store what the measure and profile steps produced: evidence first, then the parsed rows.

Records and profiles are written as JSON evidence in the shape of the shared harness files and
then parsed by the same parser (`measurements.harness_records`) and stored by the same services
as imported data, so a page never knows where its numbers came from.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction

from measurements.harness_records import parse_hash_profile, parse_timing_record
from measurements.models import Campaign, EvidenceFile, HashProfile, Instance, Measurement
from measurements.services.evidence import evidence_store
from measurements.services.recording import hash_profile_store, timing_record_store


def evidence_path(kind: str, candidate: str, label: str, operation: str, input_bytes: int) -> str:
    """``records/<id>/<label>__<op>.json`` (hash lengths as ``__hash_<bytes>``)."""
    op = f"{operation}_{input_bytes}" if input_bytes else operation
    return f"{kind}/{candidate}/{label}__{op}.json"


def store_json_evidence(
    *, campaign: Campaign, path: str, kind: str, data: dict[str, Any]
) -> tuple[EvidenceFile, Any]:
    """Store a record or profile dict as JSON evidence; returns it with the stored data."""
    content = (json.dumps(data, indent=1) + "\n").encode()
    evidence, _ = evidence_store(campaign=campaign, relative_path=path, kind=kind, content=content)
    return evidence, json.loads(content)


@transaction.atomic
def store_timing_json(
    *, campaign: Campaign, path: str, record: dict[str, Any], instance: Instance | None = None
) -> Measurement:
    """Evidence first, then the measurement parsed back from it: imported data looks the same."""
    evidence, data = store_json_evidence(campaign=campaign, path=path, kind="record", data=record)
    return timing_record_store(
        campaign=campaign,
        record=parse_timing_record(path, data),
        evidence=evidence,
        instance=instance,
    )


@transaction.atomic
def store_profile_json(
    *, campaign: Campaign, path: str, profile: dict[str, Any], instance: Instance | None = None
) -> HashProfile:
    evidence, data = store_json_evidence(campaign=campaign, path=path, kind="profile", data=profile)
    return hash_profile_store(
        campaign=campaign,
        profile=parse_hash_profile(path, data),
        evidence=evidence,
        instance=instance,
    )
