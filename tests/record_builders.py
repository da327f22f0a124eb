"""Records built the way the runner builds them (from driver output), for the record tests."""

from __future__ import annotations

import json

from runner.harness.driver_output import (
    build_profile_record,
    build_timing_record,
    parse_driver_output,
    parse_profile_output,
    process_entry,
)

COUNTER = {"name": "tsc", "hz": 2.5e9, "overhead_cycles": 40}
SIZES = {
    "input_bytes": 0,
    "pk_bytes": 800,
    "sk_bytes": 1632,
    "ct_bytes": 768,
    "ss_bytes": 32,
    "signature_bytes": 0,
    "digest_bytes": 0,
}


def driver_stdout(cpu: int, cycles: int, samples: list[int], **changes) -> str:
    """What one ``ngcc-time`` process prints: one trial of 40 calls in batches of 2."""
    out = {
        "driver": "ngcc-time",
        "version": 1,
        "status": "complete",
        "error": None,
        "operation": "enc",
        "category": "kem",
        "input_bytes": 0,
        "pinned_cpu": cpu,
        "cpu": cpu,
        "iterations": 40,
        "warmups": 3,
        "counter": COUNTER,
        "sizes": SIZES,
        "baseline_rss_bytes": 1_000_000,
        "peak_rss_bytes": 1_200_000 + cpu,
        "stack_high_water_bytes": 4096,
        "trials": [
            {
                "measurements": 40,
                "seconds": cycles / 2.5e9,
                "cycles": cycles,
                "batch_calls": 2,
                "cpu": cpu,
                "samples": samples,
            }
        ],
    }
    out.update(changes)
    return json.dumps(out)


def built_record():
    """Two trial processes on CPUs 2 and 3, assembled the way the timing step does it."""
    runs = [
        parse_driver_output(driver_stdout(2, 4_000_000, [200_000] * 16)),
        parse_driver_output(driver_stdout(3, 4_400_000, [210_000] * 8 + [230_000] * 8)),
    ]
    processes = [
        process_entry(run=run, command=["ngcc-time", "enc"], exit_code=0, stderr="", wall_s=0.1)
        for run in runs
    ]
    return build_timing_record(
        candidate="kem-90",
        label="MINI-1",
        operation="enc",
        input_bytes=0,
        plan={"planner": "guide", "trials": 2, "iterations_per_trial": 40},
        processes=processes,
        runs=runs,
        instance="MINI_1",
        kat="PASS",
        flags="guide",
        started_utc="2026-12-01T03:00:00.123456+00:00",
        ended_utc="2026-12-01T03:00:02+00:00",
        environment={"cpu_number": 2, "machine": "test box"},
    )


def as_file(data: dict) -> dict:
    """What a reader of the evidence file gets back."""
    return json.loads(json.dumps(data, indent=1))


PROF_STDOUT = json.dumps(
    {
        "driver": "ngcc-prof",
        "version": 1,
        "status": "complete",
        "error": None,
        "operation": "enc",
        "input_bytes": 0,
        "meta": {"tick_source": "tsc", "tick_hz": 2.5e9, "warmups": 1, "overflow_calls": 0},
        "total": {"operations": 100, "ticks": 8000},
        "calls": [
            {"fn": "pseudoXOF", "in_bits": 256, "out_bits": 512, "calls": 300, "ticks": 4000},
            {"fn": "sm3hash", "in_bits": 512, "out_bits": 256, "calls": 100, "ticks": 1000},
            {"fn": "drng", "in_bits": 0, "out_bits": 256, "calls": 100, "ticks": 400},
        ],
    }
)


def built_profile():
    return build_profile_record(
        run=parse_profile_output(PROF_STDOUT),
        candidate="kem-90",
        label="MINI-1",
        command=["ngcc-prof", "enc"],
    )
