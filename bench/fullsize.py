"""Generate a full-size database for `bench/page_render`: the shape of the real campaign.

119 candidates (52 KEM, 40 signature, 4 key exchange, 23 hash), five instances each (595),
every operation of each category (hash: the eight message lengths), 5 trials per measurement,
a build and a hash profile per instance and operation, on two systems (arm_1, x86_1). Values
are synthetic but plausible; aggregates are computed from the trials as the importer does.
Imported by the benchmark after Django is set up; not part of the application.
"""

from __future__ import annotations

import random

from django.db import transaction
from django.utils import timezone

from measurements.domain import CATEGORIES
from measurements.models import (
    Build,
    Campaign,
    ExternalSize,
    HashProfile,
    Instance,
    Measurement,
    SecurityTarget,
    Submission,
    System,
    Trial,
)
from measurements.stats import aggregates_from_trials

SHAPE = {"kem": 52, "sign": 40, "kex": 4, "hash": 23}
INSTANCES_PER_CANDIDATE = 5
TRIALS = 5
TARGETS = (128, 192, 256, 128, 256)
SYSTEMS = (("arm_1", "aarch64", 2.71e9), ("x86_1", "x86_64", 2.1e9))


class _Trial:
    def __init__(self, measurements: int, seconds: float, cycles: int) -> None:
        self.measurements, self.seconds, self.cycles = measurements, seconds, cycles


def _submissions() -> list[Instance]:
    subs, instances = [], []
    for category, count in SHAPE.items():
        for n in range(1, count + 1):
            subs.append(
                Submission(
                    key=f"{category}-{n:02d}",
                    category=category,
                    algorithm=f"Bench {category.upper()} {n}",
                )
            )
    Submission.objects.bulk_create(subs)
    for sub in subs:
        for i in range(INSTANCES_PER_CANDIDATE):
            instances.append(
                Instance(
                    submission=sub,
                    label=f"{sub.key.upper()}-P{i}",
                    position=i,
                    security_target_bits=TARGETS[i],
                )
            )
    Instance.objects.bulk_create(instances)
    ExternalSize.objects.bulk_create(
        ExternalSize(
            candidate=i.submission.key,
            instance_label=i.label,
            public_key_bytes=800 + 7 * i.pk,
            ciphertext_bytes=700 + 3 * i.pk if i.submission.category == "kem" else None,
            signature_bytes=2000 + i.pk if i.submission.category == "sign" else None,
            basis="encoded",
        )
        for i in instances
        if i.submission.category in ("kem", "sign")
    )
    SecurityTarget.objects.bulk_create(
        SecurityTarget(
            candidate=i.submission.key, instance_label=i.label, target_bits=i.security_target_bits
        )
        for i in instances
    )
    return instances


def _campaign_rows(
    campaign: Campaign, instances: list[Instance], hz: float, rng: random.Random
) -> None:
    Build.objects.bulk_create(
        Build(
            campaign=campaign,
            instance=i,
            flags="guide",
            kat_status="PASS",
            elf_load_bytes=20000 + i.pk,
        )
        for i in instances
    )
    measurements, trial_rows, profiles = [], [], []
    for instance in instances:
        spec = CATEGORIES[instance.submission.category]
        for op, nbytes in spec.operation_points():
            per_call = rng.uniform(5e4, 5e7) * (1 + nbytes / 1024)
            calls = max(10, int(0.2 * hz / per_call))
            trials = [
                _Trial(calls, calls * per_call * f / hz, int(calls * per_call * f))
                for f in (rng.uniform(0.995, 1.005) for _ in range(TRIALS))
            ]
            agg = aggregates_from_trials(trials)
            m = Measurement(
                campaign=campaign,
                instance=instance,
                operation=op,
                input_bytes=nbytes,
                planner="guide",
                plan={"trials": TRIALS, "iterations_per_trial": calls},
                sizes={"pk_bytes": 800, "sk_bytes": 1600, "ct_bytes": 768, "ss_bytes": 32},
                baseline_rss_bytes=1400 * 1024,
                peak_rss_bytes=1500 * 1024,
                **agg.as_dict(),
            )
            measurements.append(m)
            trial_rows.append(trials)
            if not spec.is_hash:
                profiles.append(
                    HashProfile(
                        campaign=campaign,
                        instance=instance,
                        operation=op,
                        total_operations=100,
                        total_ticks=1000,
                        hash_share=rng.random(),
                        drng_share=0.01,
                    )
                )
    Measurement.objects.bulk_create(measurements, batch_size=500)
    Trial.objects.bulk_create(
        (
            Trial(
                measurement=m,
                index=k,
                process_index=k,
                measurements=t.measurements,
                seconds=t.seconds,
                cycles=t.cycles,
            )
            for m, trials in zip(measurements, trial_rows, strict=True)
            for k, t in enumerate(trials)
        ),
        batch_size=2000,
    )
    HashProfile.objects.bulk_create(profiles, batch_size=500)


@transaction.atomic
def generate() -> dict[str, int]:
    """Fill an empty database; returns row counts."""
    rng = random.Random(13)
    instances = _submissions()
    for key, arch, hz in SYSTEMS:
        system = System.objects.create(key=key, arch=arch, description=f"bench {key}")
        campaign = Campaign.objects.create(
            system=system,
            key=f"{key}-bench",
            status=Campaign.Status.COMPLETE,
            started_utc=timezone.now(),
            source="measured",
        )
        _campaign_rows(campaign, instances, hz, rng)
    return {
        "candidates": Submission.objects.count(),
        "instances": Instance.objects.count(),
        "measurements": Measurement.objects.count(),
        "trials": Trial.objects.count(),
    }
