"""The one parser of driver output: errors name the field; records built from it take the
shared shape when serialised, and parse back into equal records."""

from __future__ import annotations

import json

import pytest

from measurements.harness_records import (
    hash_profile_json,
    parse_hash_profile,
    parse_timing_record,
    timing_record_json,
)
from runner.harness.driver_output import (
    DriverOutputError,
    build_profile_record,
    build_timing_record,
    parse_driver_output,
    parse_profile_output,
    process_entry,
)


def _out(**changes):
    base = {
        "driver": "ngcc-time",
        "version": 1,
        "status": "complete",
        "error": None,
        "library": "lib.so",
        "operation": "enc",
        "category": "kem",
        "input_bytes": 0,
        "pinned_cpu": 1,
        "cpu": 1,
        "iterations": 32,
        "warmups": 3,
        "counter": {"name": "tsc", "hz": 2.6e9, "overhead_cycles": 52},
        "sizes": {
            "input_bytes": 0,
            "pk_bytes": 64,
            "sk_bytes": 96,
            "ct_bytes": 64,
            "ss_bytes": 32,
            "signature_bytes": 0,
            "digest_bytes": 0,
        },
        "setup_seconds": 0.001,
        "baseline_rss_bytes": 1 << 20,
        "peak_rss_bytes": 2 << 20,
        "stack_high_water_bytes": 512,
        "trials": [
            {
                "measurements": 32,
                "seconds": 0.01,
                "cycles": 26_000_000,
                "batch_calls": 2,
                "cpu": 1,
                "samples": [1_600_000] * 16,
            }
        ],
    }
    base.update(changes)
    return json.dumps(base)


def test_valid_output_parses():
    run = parse_driver_output(_out())
    assert run.ok and run.counter["name"] == "tsc" and run.trials[0]["counter"] == "tsc"
    assert run.pinned_cpu == 1 and run.sizes["pk_bytes"] == 64


def _with_trial_fields(**fields):
    trial = json.loads(_out())["trials"][0]
    return _out(trials=[{**trial, **fields}])


def test_time_on_and_waiting_for_the_core_parse_when_given():
    trial = parse_driver_output(_with_trial_fields(cpu_seconds=0.0098, wait_seconds=0.0001))
    assert (trial.trials[0]["cpu_seconds"], trial.trials[0]["wait_seconds"]) == (0.0098, 0.0001)
    # null (the clock or schedstat was unreadable; NaN printed as null) and absent (older
    # drivers) both leave the reading unknown, never zero.
    unknown = parse_driver_output(_with_trial_fields(cpu_seconds=None, wait_seconds=None))
    assert unknown.trials[0]["cpu_seconds"] is None and unknown.trials[0]["wait_seconds"] is None
    assert "wait_seconds" not in parse_driver_output(_out()).trials[0]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "<stdout>"),
        ("{not json", "<stdout>"),
        (json.dumps({"driver": "other"}), "driver"),
        (_out(status="weird"), "status"),
        (_out(counter={"name": "tsc", "hz": "fast", "overhead_cycles": 1}), "counter.hz"),
        (
            _out(
                trials=[
                    {"measurements": 0, "seconds": 1, "cycles": 1, "batch_calls": 1, "samples": []}
                ]
            ),
            "trials[0].measurements",
        ),
        (
            _out(
                trials=[
                    {
                        "measurements": 4,
                        "seconds": 1,
                        "cycles": 10,
                        "batch_calls": 1,
                        "samples": [1, -2],
                    }
                ]
            ),
            "trials[0].samples[1]",
        ),
        (
            _out(
                trials=[
                    {
                        "measurements": 4,
                        "seconds": 1,
                        "cycles": 10,
                        "batch_calls": 1,
                        "samples": [9, 9],
                    }
                ]
            ),
            "trials[0].samples",
        ),
        (_with_trial_fields(wait_seconds=-0.5), "trials[0].wait_seconds"),
        (_with_trial_fields(cpu_seconds="all"), "trials[0].cpu_seconds"),
        (_out(baseline_rss_bytes=None), "baseline_rss_bytes"),
        (_out(trials=[]), "trials"),
        (_out(status="error", error=None), "error"),
    ],
)
def test_errors_name_the_field(text, field):
    with pytest.raises(DriverOutputError) as exc:
        parse_driver_output(text)
    assert exc.value.field == field
    assert field in str(exc.value)


def test_error_output_parses_as_a_failed_run():
    run = parse_driver_output(
        _out(
            status="error",
            error="dec: shared secret mismatch",
            trials=[],
            sizes=None,
            baseline_rss_bytes=None,
            peak_rss_bytes=None,
        )
    )
    assert not run.ok and "mismatch" in run.error


def test_record_matches_the_harness_shape_and_parser():
    runs = [parse_driver_output(_out()) for _ in range(2)]
    processes = [
        process_entry(run=r, command=["ngcc-time"], exit_code=0, stderr="", wall_s=0.2)
        for r in runs
    ]
    record = build_timing_record(
        candidate="kem-toy",
        label="toy-1",
        operation="enc",
        input_bytes=0,
        plan={"planner": "guide", "trials": 2},
        processes=processes,
        runs=runs,
    )
    rec = timing_record_json(record)
    for key in (
        "schema",
        "status",
        "candidate",
        "label",
        "operation",
        "input_bytes",
        "plan",
        "processes",
        "trials",
        "measurements",
        "mean_cycles",
        "mean_seconds",
        "median_trial_seconds",
        "median_trial_cycles",
        "min_trial_seconds",
        "max_trial_seconds",
        "operations_per_second",
        "throughput_MB_per_second",
        "sizes",
        "baseline_rss_bytes",
        "peak_rss_bytes",
        "counter",
        "stack_high_water_bytes",
        "sample_stats",
    ):
        assert key in rec, key
    assert rec["measurements"] == 64 and rec["mean_cycles"] == 26_000_000 * 2 / 64
    assert rec["sample_stats"]["median"] == 800_000  # per call: 1.6 M cycles / 2 calls
    assert rec["throughput_MB_per_second"] is None
    parsed = parse_timing_record("records/kem-toy/toy-1__enc.json", json.loads(json.dumps(rec)))
    assert parsed.planner == "guide" and parsed.trials[0].batch_calls == 2
    assert parsed.trials[1].process_index == 1 and parsed.counter["name"] == "tsc"
    assert record.path == "records/kem-toy/toy-1__enc.json" and parsed == record


def test_hash_record_has_throughput():
    run = parse_driver_output(_out(input_bytes=1024, operation="hash"))
    record = build_timing_record(
        candidate="hash-toy",
        label="h",
        operation="hash",
        input_bytes=1024,
        plan={},
        processes=[],
        runs=[run],
    )
    assert record.throughput_mb_per_second == pytest.approx(1024 * 3200 / 1e6)
    assert timing_record_json(record)["throughput_MB_per_second"] == pytest.approx(1024 * 3.2e-3)


def test_profile_output_and_record():
    text = json.dumps(
        {
            "driver": "ngcc-prof",
            "version": 1,
            "status": "complete",
            "error": None,
            "library": "lib.so",
            "operation": "enc",
            "category": "kem",
            "input_bytes": 0,
            "cpu": 1,
            "meta": {
                "tick_source": "tsc",
                "tick_hz": 2.6e9,
                "tick_overhead": 52,
                "warmups": 1,
                "overflow_calls": 0,
            },
            "total": {"operations": 10, "ticks": 1000},
            "calls": [
                {"fn": "pseudoXOF", "in_bits": 8, "out_bits": 16, "calls": 30, "ticks": 300},
                {"fn": "drng", "in_bits": 0, "out_bits": 256, "calls": 10, "ticks": 50},
            ],
        }
    )
    run = parse_profile_output(text)
    profile = build_profile_record(run=run, candidate="kem-toy", label="toy-1", command=["x"])
    rec = hash_profile_json(profile)
    assert rec["share"] == {"pseudoXOF": 0.3, "drng": 0.05}
    assert rec["hash_share"] == 0.3
    assert rec["calls_per_operation"] == {"pseudoXOF": 3.0, "drng": 1.0}
    parsed = parse_hash_profile("profile/kem-toy/toy-1__enc.json", rec)
    assert parsed.drng_share == 0.05 and parsed.tick_source == "tsc"
    assert parsed == profile
    bad = json.loads(text)
    bad["calls"][0]["fn"] = "aes"
    with pytest.raises(DriverOutputError) as exc:
        parse_profile_output(json.dumps(bad))
    assert exc.value.field == "calls[0].fn"
