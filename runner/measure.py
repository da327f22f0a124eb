"""The measure step of one built instance: time every operation, profile it, store both.

Records and profiles are written as JSON evidence in the shape of the shared harness files and
then parsed by the same parser (`measurements.harness_records`) and stored by the same services
as imported data, so a page never knows where its numbers came from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from measurements.harness_records import parse_hash_profile, parse_timing_record
from measurements.models import Campaign, EvidenceFile, HashProfile, Instance, Measurement
from measurements.services.evidence import evidence_store
from measurements.services.recording import hash_profile_store, timing_record_store
from runner.build import BuildResult
from runner.profile import (
    ProfileError,
    ProfileParams,
    build_profile_tools,
    link_profile_library,
    profile_operation,
)
from runner.timing import (
    HASH_INPUT_BYTES,
    OPERATIONS,
    AdaptiveParams,
    GuideParams,
    build_driver,
    measure_operation,
)

_GUIDE = GuideParams()
_ADAPTIVE = AdaptiveParams()
_PROFILE = ProfileParams()


@dataclass
class InstanceMeasurement:
    measurements: list[Measurement] = field(default_factory=list)
    profiles: list[HashProfile] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


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


def measure_instance(
    *,
    campaign: Campaign,
    build: BuildResult,
    category: str,
    tools_dir: Path,
    planner: str = "guide",
    guide: GuideParams = _GUIDE,
    adaptive: AdaptiveParams = _ADAPTIVE,
    operations: tuple[str, ...] | None = None,
    hash_input_bytes: tuple[int, ...] = HASH_INPUT_BYTES,
    profile: bool = True,
    profile_params: ProfileParams = _PROFILE,
    cpu: int | None = None,
    counter: str | None = None,
    nominal_hz: float | None = None,
    digest_bits: int | None = None,
    environment: dict[str, Any] | None = None,
    kat_status: str = "",
) -> InstanceMeasurement:
    """Time (and profile) every operation of a built instance and store the results.

    Each operation is stored on its own (one transaction per record), so a failing operation
    leaves no partial rows and does not undo the others; a refused or failed operation is
    stored as a failed record with its driver output as evidence.  ``digest_bits`` (hash
    instances, from the manifest) is passed to the drivers.
    """
    if not build.ok or build.library is None:
        raise ValueError(f"{build.candidate}/{build.label}: not built ({build.error})")
    driver = build_driver(out_dir=tools_dir)
    ops = operations or OPERATIONS[category]
    plan_inputs = [
        (op, n) for op in ops for n in (hash_input_bytes if category == "hash" else (0,))
    ]
    extra = ("--digest-bits", str(digest_bits)) if digest_bits else ()
    result = InstanceMeasurement()
    call_seconds: dict[tuple[str, int], float] = {}
    for op, n in plan_inputs:
        measured = measure_operation(
            driver=driver,
            library=build.library,
            operation=op,
            input_bytes=n,
            planner=planner,
            guide=guide,
            adaptive=adaptive,
            cpu=cpu,
            counter=counter,
            nominal_hz=nominal_hz,
            extra_args=extra,
        )
        record = measured.to_record(
            candidate=build.candidate,
            label=build.label,
            instance=build.instance,
            flags=build.flags_label,
            build_flags=build.build_flags,
            kat=kat_status,
            library=str(build.library),
            library_sha256=build.library_sha256,
            environment=environment,
        )
        path = evidence_path("records", build.candidate, build.label, op, n)
        result.measurements.append(store_timing_json(campaign=campaign, path=path, record=record))
        if measured.error:
            result.errors.append(measured.error)
        elif record.get("mean_seconds"):
            call_seconds[(op, n)] = record["mean_seconds"]
    if profile and call_seconds:
        result.profiles, errors = _profile_instance(
            campaign=campaign,
            build=build,
            tools_dir=tools_dir,
            call_seconds=call_seconds,
            params=profile_params,
            cpu=cpu,
            extra_args=extra,
        )
        result.errors += errors
    return result


def _profile_instance(
    *,
    campaign: Campaign,
    build: BuildResult,
    tools_dir: Path,
    call_seconds: dict[tuple[str, int], float],
    params: ProfileParams,
    cpu: int | None,
    extra_args: tuple[str, ...],
) -> tuple[list[HashProfile], list[str]]:
    tools = build_profile_tools(out_dir=tools_dir)
    objects = [*build.objects, *([build.shim_object] if build.shim_object else [])]
    out = build.build_dir / "profile" / f"lib{build.label}.so"
    library, _wrapped, _cmd = link_profile_library(
        objects=objects, out=out, tools=tools, link_libs=build.link_libs
    )
    stored, errors = [], []
    for (op, n), call_s in call_seconds.items():
        try:
            prof = profile_operation(
                tools=tools,
                library=library,
                operation=op,
                candidate=build.candidate,
                label=build.label,
                call_s=call_s,
                input_bytes=n,
                params=params,
                cpu=cpu,
                extra_args=extra_args,
            )
        except ProfileError as exc:
            errors.append(str(exc))
            continue
        path = evidence_path("profile", build.candidate, build.label, op, n)
        stored.append(store_profile_json(campaign=campaign, path=path, profile=prof))
    return stored, errors
