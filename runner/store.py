"""Store what the native harness produced: builds, KAT checks, timing records, hash profiles.

One place, used by the campaign steps and by `harness_kat --campaign`, so a result is stored the
same way whoever ran it. Each function is one transaction: evidence first, then the rows. Timing
records and hash profiles arrive as the record types the harness built from the driver output
(`measurements.records`); their evidence is the record itself, written by the one serialiser of
the harness shape, and they are stored by the same services as imported data — so a page never
knows where its numbers came from.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction

from measurements.harness_records import hash_profile_json, timing_record_json
from measurements.models import (
    Build,
    Campaign,
    EvidenceFile,
    HashProfile,
    Instance,
    KatStatus,
    Measurement,
)
from measurements.records import HashProfileRecord, TimingRecord
from measurements.services.evidence import EvidenceConflict, evidence_store, sha256_hex
from measurements.services.recording import (
    build_record,
    hash_profile_store,
    kat_result_record,
    timing_record_store,
)
from runner.harness.build import BuildResult
from runner.harness.kat import InstanceCheck


def _store_evidence_keeping_reruns(
    *, campaign: Campaign, relative_path: str, kind: str, content: bytes
) -> EvidenceFile:
    """Store evidence; a re-run with other bytes keeps both, the new one under its digest."""
    try:
        evidence, _ = evidence_store(
            campaign=campaign, relative_path=relative_path, kind=kind, content=content
        )
    except EvidenceConflict:
        stem, dot, ext = relative_path.rpartition(".")
        rerun_path = f"{stem}-{sha256_hex(content)[:16]}{dot}{ext}"
        evidence, _ = evidence_store(
            campaign=campaign, relative_path=rerun_path, kind=kind, content=content
        )
    return evidence


def _build_values(build: BuildResult) -> dict:
    return {
        "flags": build.flags_label,
        "library_path": str(build.library or ""),
        "library_sha256": build.library_sha256,
        "elf_load_bytes": build.elf_load_bytes,
        "compiler": build.compiler_version,
        "build_flags": build.build_flags,
        "commands": build.commands,
        "sources": [{"path": s.path, "sha256": s.sha256} for s in build.sources],
        "warnings": "\n".join(build.warnings),
        "log": build.error,
    }


@transaction.atomic
def guide_build_store(*, campaign: Campaign, instance: Instance, build: BuildResult) -> Build:
    """The build step: the guide build with its full record as evidence (KAT still pending)."""
    payload = json.dumps(build.to_dict(), indent=1, sort_keys=True, default=str).encode()
    _store_evidence_keeping_reruns(
        campaign=campaign,
        relative_path=f"build/{instance.submission.key}/{instance.label}.guide.json",
        kind=EvidenceFile.Kind.BUILD_LOG,
        content=payload,
    )
    stored, _ = build_record(
        campaign=campaign,
        instance=instance,
        kat_status=KatStatus.PENDING if build.ok else KatStatus.BUILDFAIL,
        **_build_values(build),
    )
    return stored


@transaction.atomic
def instance_check_store(*, campaign: Campaign, instance: Instance, check: InstanceCheck) -> Build:
    """The KAT step: the final build (guide, or harness-default after a failure) and its KATs."""
    build, kat = check.build, check.final
    log_bytes = kat.log_path.read_bytes() if kat.log_path and kat.log_path.is_file() else b""
    evidence = None
    if log_bytes:
        evidence = _store_evidence_keeping_reruns(
            campaign=campaign,
            relative_path=f"kat/{instance.submission.key}/{instance.label}.log",
            kind=EvidenceFile.Kind.KAT_LOG,
            content=log_bytes,
        )
    stored, _ = build_record(
        campaign=campaign,
        instance=instance,
        kat_status=kat.status.value,
        guide_result=kat.guide_result or "",
        kat_log_path=evidence.relative_path if evidence else "",
        kat_log_sha256=evidence.sha256 if evidence else "",
        kat_log=evidence,
        **_build_values(build),
    )
    kat_result_record(
        build=stored,
        kind="official",
        status=kat.status.value,
        first_difference=kat.first_difference or "",
        output_raw_sha256=kat.output_raw_sha256 or "",
        comparison=kat.comparison,
        output_canonical_sha256=kat.output_canonical_sha256 or "",
        reference_canonical_sha256=kat.reference_canonical_sha256 or "",
        manifest_line=kat.output_manifest or "",
        log=log_bytes.decode("utf-8", errors="replace"),
        evidence=evidence,
    )
    if kat.functional is not None:
        functional = kat.functional
        status = functional.status if functional.status in KatStatus.values else "NOKAT"
        kat_result_record(build=stored, kind="functional", status=status, log=functional.detail)
    return stored


def _json_evidence_store(
    *, campaign: Campaign, path: str, kind: str, data: dict[str, Any]
) -> EvidenceFile:
    content = (json.dumps(data, indent=1) + "\n").encode()
    evidence, _ = evidence_store(campaign=campaign, relative_path=path, kind=kind, content=content)
    return evidence


@transaction.atomic
def measured_timing_store(
    *, campaign: Campaign, record: TimingRecord, instance: Instance | None = None
) -> Measurement:
    """The measure step: the record as JSON evidence (at ``record.path``), then its rows.

    A record whose aggregates its trials do not give is refused by the store service, and the
    transaction leaves neither evidence nor rows.
    """
    evidence = _json_evidence_store(
        campaign=campaign,
        path=record.path,
        kind=EvidenceFile.Kind.RECORD,
        data=timing_record_json(record),
    )
    return timing_record_store(
        campaign=campaign, record=record, evidence=evidence, instance=instance
    )


@transaction.atomic
def measured_profile_store(
    *, campaign: Campaign, profile: HashProfileRecord, instance: Instance | None = None
) -> HashProfile:
    """The profile step: the profile as JSON evidence (at ``profile.path``), then its rows."""
    evidence = _json_evidence_store(
        campaign=campaign,
        path=profile.path,
        kind=EvidenceFile.Kind.PROFILE,
        data=hash_profile_json(profile),
    )
    return hash_profile_store(
        campaign=campaign, profile=profile, evidence=evidence, instance=instance
    )
