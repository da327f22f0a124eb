"""Build a complete candidate (builds, measurements, profiles, evidence) with the factories."""

from __future__ import annotations

import json

from measurements.models import Campaign, EvidenceFile, Instance, Submission
from measurements.services.evidence import sha256_hex
from tests.factories import (
    BuildFactory,
    CampaignFactory,
    HashProfileCallFactory,
    HashProfileFactory,
    InstanceFactory,
    MeasurementFactory,
    SubmissionFactory,
    SystemFactory,
)

KEM_OPS = ("keygen", "enc", "dec")


def _evidence(campaign: Campaign, path: str, kind: str, payload: bytes) -> EvidenceFile:
    return EvidenceFile.objects.create(
        campaign=campaign,
        relative_path=path,
        kind=kind,
        sha256=sha256_hex(payload),
        size=len(payload),
        content=payload,
    )


def build_candidate(
    *,
    key: str = "kem-90",
    instances: int = 2,
    system_key: str = "box_test",
    arch: str = "x86_64",
    operations: tuple[str, ...] = KEM_OPS,
    category: str = "kem",
    input_bytes: tuple[int, ...] = (0,),
    campaign: Campaign | None = None,
    skip: set[tuple[int, str]] | None = None,
) -> tuple[Submission, Campaign]:
    """A submission with `instances` instances, each built, timed and profiled on one system.

    `skip` lists (instance index, operation) pairs whose record and profile are left out.
    """
    skip = skip or set()
    system = SystemFactory(key=system_key, arch=arch)
    if campaign is None:
        campaign = CampaignFactory(
            system=system,
            key=f"{system_key}-campaign",
            primary_cpu=2,
            environment={
                "cpu_model": "Test CPU",
                "memory_total_kib": 8 * 1024 * 1024,
                "os": "Debian",
                "kernel": "6.1",
                "compiler": "gcc 12",
                "cmake": "cmake 3.25",
                "cpufreq_governor": "performance",
                "cpufreq_min_khz": "2100000",
                "cpufreq_max_khz": "2100000",
                "intel_pstate_no_turbo": "1",
                "smt_control": "off",
            },
        )
    submission = SubmissionFactory(key=key, category=category, algorithm=f"{key.upper()} test")
    for i in range(instances):
        label = f"{key.upper()}-{i}"
        instance = Instance.objects.filter(submission=submission, label=label).first()
        if instance is None:
            instance = InstanceFactory(submission=submission, label=label, position=i)
        log = _evidence(
            campaign, f"kat/{key}/{label}.log", "kat_log", f"RESULT {key} {label} PASS\n".encode()
        )
        BuildFactory(
            campaign=campaign,
            instance=instance,
            elf_load_bytes=20000 + i,
            kat_log=log,
            kat_log_path=log.relative_path,
            kat_log_sha256=log.sha256,
        )
        for op in operations:
            if (i, op) in skip:
                continue
            for nbytes in input_bytes:
                suffix = f"__{op}" + (f"_{nbytes}" if category == "hash" else "")
                record = _evidence(
                    campaign,
                    f"records/{key}/{label}{suffix}.json",
                    "record",
                    json.dumps({"label": label, "operation": op}).encode(),
                )
                MeasurementFactory(
                    campaign=campaign,
                    instance=instance,
                    operation=op,
                    input_bytes=nbytes,
                    measurements=500,
                    plan={"trials": 5, "iterations_per_trial": 100},
                    mean_cycles=100_000.0 * (i + 1),
                    mean_seconds=5e-5 * (i + 1),
                    operations_per_second=2e4 / (i + 1),
                    median_trial_seconds=5e-5 * (i + 1),
                    throughput_mb_per_second=12.5 if category == "hash" else None,
                    evidence=record,
                    kex={"passes": 3} if op == "exchange" else {},
                    sizes={"pk_bytes": 800, "sk_bytes": 1600, "ct_bytes": 768, "ss_bytes": 32}
                    | ({"digest_bytes": 32} if category == "hash" else {}),
                )
                profile_file = _evidence(
                    campaign,
                    f"profile/{key}/{label}{suffix}.json",
                    "profile",
                    json.dumps({"label": label, "operation": op}).encode(),
                )
                profile = HashProfileFactory(
                    campaign=campaign,
                    instance=instance,
                    operation=op,
                    input_bytes=nbytes,
                    total_operations=100,
                    hash_share=0.5,
                    drng_share=0.05,
                    evidence=profile_file,
                )
                HashProfileCallFactory(profile=profile, fn="pseudoXOF", calls=200)
                HashProfileCallFactory(profile=profile, fn="drng", calls=100, position=1)
    return submission, campaign
