"""The record types: built from driver output or from harness JSON, the same record; their
aggregates computed once and verified against the trials."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from measurements.harness_records import (
    HarnessDataError,
    hash_profile_json,
    parse_hash_profile,
    parse_timing_record,
    timing_record_json,
)
from measurements.records import (
    ProfileCall,
    RecordAggregateMismatch,
    TimingTrial,
    hash_profile_record,
    record_path,
    timing_record,
    trials_with_processes,
    verify_hash_profile,
    verify_timing_record,
)
from measurements.stats import timing_aggregates
from runner.harness.driver_output import build_timing_record, parse_driver_output, process_entry
from tests.record_builders import (
    COUNTER,
    PROF_STDOUT,
    SIZES,
    as_file,
    built_profile,
    built_record,
    driver_stdout,
)

# --- construction ----------------------------------------------------------------------------


def test_aggregates_are_computed_when_the_record_is_built():
    record = built_record()
    agg = record.aggregates
    assert record.path == "records/kem-90/MINI-1__enc.json"
    assert record.status == "complete" and record.planner == "guide" and record.cpu == 2
    assert agg.measurements == record.measurements == 80
    assert agg.mean_cycles == (4_000_000 + 4_400_000) / 80 == 105_000
    assert agg.median_trial_cycles == (100_000 + 110_000) / 2
    assert agg.min_trial_seconds == pytest.approx(4_000_000 / 2.5e9 / 40, rel=1e-12)
    assert agg.max_trial_seconds == pytest.approx(4_400_000 / 2.5e9 / 40, rel=1e-12)
    # Per-call samples: 16 × 100 000, 8 × 105 000, 8 × 115 000 (batches of 2 calls).
    assert record.sample_stats.count == 32
    # The figure is process-level: the mean of each process's median (100 000 and 110 000), with
    # Student's t(1) over those two medians: 12.706 · stdev / √2 = 12.706 · 5 000.
    assert record.sample_stats.median == 105_000
    assert record.sample_stats.ci95_low == pytest.approx(105_000 - 12.706 * 5_000)
    assert record.sample_stats.ci95_high == pytest.approx(105_000 + 12.706 * 5_000)
    # Quartiles describe every sample pooled.
    assert (record.sample_stats.q1, record.sample_stats.q3) == (100_000, 107_500)
    assert record.throughput_mb_per_second is None  # a KEM hashes no input
    assert record.peak_rss_bytes == 1_200_003 and record.sizes == SIZES
    assert [(t.process_index, t.cpu) for t in record.trials] == [(0, 2), (1, 3)]
    assert record.trials[1].meta["pinned_cpu"] == 3 and record.counter == COUNTER


def test_driver_output_and_its_harness_json_give_equal_records():
    record = built_record()
    evidence = as_file(timing_record_json(record))
    assert evidence["mean_cycles"] == 105_000 and evidence["measurements"] == 80
    assert evidence["started_utc"] == "2026-12-01T03:00:00.123456+00:00"
    assert parse_timing_record(record.path, evidence) == record


def test_harness_json_without_aggregates_gets_the_same_ones_from_its_trials():
    record = built_record()
    evidence = as_file(timing_record_json(record))
    for key in ("mean_cycles", "median_trial_seconds", "throughput_MB_per_second"):
        evidence[key] = None
    del evidence["sample_stats"]
    assert parse_timing_record(record.path, evidence) == record


def test_failed_record_has_no_aggregates_and_round_trips():
    run = parse_driver_output(
        driver_stdout(
            2,
            0,
            [],
            status="error",
            error="dec: shared secret mismatch",
            trials=[],
            sizes=None,
            baseline_rss_bytes=None,
            peak_rss_bytes=None,
        )
    )
    process = process_entry(run=run, command=["ngcc-time"], exit_code=2, stderr="", wall_s=0.1)
    record = build_timing_record(
        candidate="kem-90",
        label="MINI-1",
        operation="dec",
        input_bytes=0,
        plan={"planner": "guide"},
        processes=[process],
        runs=[],
        error="dec: shared secret mismatch",
    )
    assert record.status == "failed" and record.measurements == 0
    assert record.aggregates is None and record.sample_stats is None
    evidence = as_file(timing_record_json(record))
    assert evidence["measurements"] == 0 and evidence["mean_cycles"] is None
    assert parse_timing_record(record.path, evidence) == record


def test_hash_record_path_and_throughput():
    trials = [TimingTrial(index=0, process_index=0, measurements=100, seconds=0.5, cycles=10**9)]
    record = timing_record(
        path=record_path("records", "hash-90", "H-256", "hash", 4096),
        status="complete",
        candidate="hash-90",
        label="H-256",
        operation="hash",
        input_bytes=4096,
        trials=trials,
        baseline_rss_bytes=900_000,
        peak_rss_bytes=950_000,
    )
    assert record.path == "records/hash-90/H-256__hash_4096.json"
    assert record.aggregates.operations_per_second == 200
    assert record.throughput_mb_per_second == 4096 * 200 / 1e6
    assert record.sample_stats is None  # no samples: harness-style trials
    assert parse_timing_record(record.path, as_file(timing_record_json(record))) == record


trial_strategy = st.builds(
    lambda n, seconds, cycles, batch, samples: (n, seconds, cycles, batch, samples),
    st.integers(min_value=1, max_value=10**6),
    st.floats(min_value=0.0, max_value=1e3, allow_nan=False, allow_infinity=False),
    st.integers(min_value=0, max_value=10**12),
    st.integers(min_value=1, max_value=64),
    st.lists(st.integers(min_value=0, max_value=10**9), max_size=20),
)


@settings(deadline=None)  # no dependence on machine speed
@given(st.lists(trial_strategy, min_size=1, max_size=6), st.sampled_from([0, 64, 1 << 20]))
def test_any_record_reads_back_equal_from_its_json_and_verifies(rows, input_bytes):
    trials = [
        TimingTrial(
            index=i,
            process_index=0,
            measurements=n,
            seconds=seconds,
            cycles=cycles,
            batch_calls=batch,
            samples=[float(s) for s in samples],
        )
        for i, (n, seconds, cycles, batch, samples) in enumerate(rows)
    ]
    record = timing_record(
        path="records/hash-90/H__hash.json",
        status="complete",
        candidate="hash-90",
        label="H",
        operation="hash",
        input_bytes=input_bytes,
        trials=trials,
        baseline_rss_bytes=1,
        peak_rss_bytes=2,
    )
    verify_timing_record(record)
    assert record.measurements == sum(n for n, *_ in rows)
    assert parse_timing_record(record.path, as_file(timing_record_json(record))) == record


def test_trials_stay_untagged_when_processes_do_not_account_for_them():
    trials = [
        TimingTrial(index=i, process_index=0, measurements=1, seconds=1, cycles=1) for i in (0, 1)
    ]
    processes = [{"meta": {"cpu": 5}, "trials": [{}]}]
    assert trials_with_processes(trials, processes) == trials
    tagged = trials_with_processes(trials, [*processes, {"meta": {"cpu": "7"}, "trials": [{}]}])
    assert [(t.process_index, t.cpu) for t in tagged] == [(0, 5), (1, 7)]


# --- verification ----------------------------------------------------------------------------


def test_verification_accepts_figures_within_the_tolerance():
    record = built_record()
    nudged = replace(
        record, aggregates=replace(record.aggregates, mean_cycles=105_000 * (1 + 1e-12))
    )
    verify_timing_record(nudged)


@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (lambda r: replace(r, aggregates=replace(r.aggregates, measurements=81)), "measurements"),
        (
            lambda r: replace(r, aggregates=replace(r.aggregates, mean_cycles=105_000 * 1.001)),
            "mean_cycles",
        ),
        (
            lambda r: replace(r, sample_stats=replace(r.sample_stats, median=100_000.0)),
            "sample_stats.median",
        ),
        (lambda r: replace(r, sample_stats=None), "sample_stats.count"),
        (lambda r: replace(r, throughput_mb_per_second=1.0), "throughput_MB_per_second"),
        (lambda r: replace(r, trials=r.trials[:1]), "measurements"),
    ],
)
def test_a_tampered_record_is_refused_naming_the_field(tamper, field):
    record = tamper(built_record())
    with pytest.raises(RecordAggregateMismatch) as info:
        verify_timing_record(record)
    assert info.value.field == field
    assert str(info.value).startswith(f"records/kem-90/MINI-1__enc.json: field '{field}'")


def test_harness_json_stating_a_wrong_sample_median_is_refused():
    record = built_record()
    evidence = as_file(timing_record_json(record))
    evidence["sample_stats"]["median"] = 99_000.0
    with pytest.raises(HarnessDataError) as info:
        parse_timing_record("records/kem-90/MINI-1__enc.json", evidence)
    assert info.value.field == "sample_stats.median"
    assert "99000.0" in info.value.message and "105000.0" in info.value.message


def test_harness_json_stating_aggregates_without_trials_is_refused():
    evidence = as_file(timing_record_json(built_record()))
    evidence.update(status="failed", trials=[], processes=[])
    with pytest.raises(HarnessDataError) as info:
        parse_timing_record("r.json", evidence)
    assert info.value.field == "measurements"


# --- hash profiles ---------------------------------------------------------------------------


def test_profile_shares_are_computed_when_built_and_round_trip():
    profile = built_profile()
    assert profile.path == "profile/kem-90/MINI-1__enc.json"
    assert profile.share == {"pseudoXOF": 0.5, "sm3hash": 0.125, "drng": 0.05}
    assert (profile.hash_share, profile.drng_share) == (0.625, 0.05)
    assert (profile.tick_hz, profile.warmups, profile.tick_source) == (2.5e9, 1, "tsc")
    evidence = as_file(hash_profile_json(profile))
    assert evidence["calls_per_operation"] == {"pseudoXOF": 3.0, "sm3hash": 1.0, "drng": 1.0}
    assert parse_hash_profile(profile.path, evidence) == profile


def test_profile_from_calls_equals_profile_from_driver_output():
    built = built_profile()
    again = hash_profile_record(
        path=built.path,
        status="complete",
        candidate="kem-90",
        label="MINI-1",
        operation="enc",
        input_bytes=0,
        total_operations=100,
        total_ticks=8000,
        calls=[ProfileCall(**c) for c in json.loads(PROF_STDOUT)["calls"]],
        tick_source="tsc",
        tick_hz=2.5e9,
        warmups=1,
        meta=built.meta,
        command=["ngcc-prof", "enc"],
    )
    assert again == built


@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (lambda p: replace(p, hash_share=0.7), "hash_share"),
        (lambda p: replace(p, share={**p.share, "pseudoXOF": 0.4}), "share.pseudoXOF"),
        (lambda p: replace(p, total_ticks=10_000), "share.drng"),
    ],
)
def test_a_tampered_profile_is_refused_naming_the_field(tamper, field):
    with pytest.raises(RecordAggregateMismatch) as info:
        verify_hash_profile(tamper(built_profile()))
    assert info.value.field == field and info.value.path == "profile/kem-90/MINI-1__enc.json"


def test_a_subnormal_trial_time_gives_no_operations_per_second():
    """Found by the round-trip property: n / 5e-324 s overflows; the figure is absent, not inf."""
    trials = [TimingTrial(index=0, process_index=0, measurements=3, seconds=5e-324, cycles=9)]
    aggregates, _ = timing_aggregates(trials)
    assert aggregates.operations_per_second is None
