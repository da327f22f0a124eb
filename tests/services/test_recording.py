"""The store services take a record's aggregates as built, after verifying them: a record whose
trials do not give its figures is refused and nothing is written."""

from __future__ import annotations

from dataclasses import replace

import pytest

from measurements.models import (
    HashProfile,
    HashProfileCall,
    Instance,
    Measurement,
    Submission,
    Trial,
)
from measurements.records import (
    ProfileCall,
    RecordAggregateMismatch,
    TimingTrial,
    hash_profile_record,
    record_path,
    timing_record,
)
from measurements.services.recording import hash_profile_store, timing_record_store
from tests.factories import CampaignFactory

STORED = (Measurement, Trial, HashProfile, HashProfileCall, Instance, Submission)


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in STORED}


def a_record(**changes):
    trials = [
        TimingTrial(
            index=i,
            process_index=i,
            measurements=50,
            seconds=seconds,
            cycles=cycles,
            counter="tsc",
            samples=[float(cycles // 50)] * 16,
            batch_calls=1,
        )
        for i, (seconds, cycles) in enumerate([(0.002, 5_000_000), (0.0022, 5_500_000)])
    ]
    values = {
        "path": record_path("records", "kem-91", "REC-1", "enc", 0),
        "status": "complete",
        "candidate": "kem-91",
        "label": "REC-1",
        "operation": "enc",
        "input_bytes": 0,
        "trials": trials,
        "baseline_rss_bytes": 1 << 20,
        "peak_rss_bytes": 3 << 19,
        "plan": {"planner": "adaptive"},
        "environment": {"cpu_number": 3},
    }
    return timing_record(**(values | changes))


def a_profile():
    return hash_profile_record(
        path=record_path("profile", "kem-91", "REC-1", "enc", 0),
        status="complete",
        candidate="kem-91",
        label="REC-1",
        operation="enc",
        input_bytes=0,
        total_operations=10,
        total_ticks=2000,
        calls=[ProfileCall(fn="sm3hash", in_bits=512, out_bits=256, calls=20, ticks=500)],
    )


@pytest.mark.django_db
def test_a_record_is_stored_with_the_aggregates_it_was_built_with():
    record = a_record()
    stated = replace(record.aggregates, mean_cycles=record.aggregates.mean_cycles * (1 + 1e-12))
    m = timing_record_store(campaign=CampaignFactory(), record=replace(record, aggregates=stated))
    # Verified within the tolerance, then stored as stated, not recomputed.
    assert m.mean_cycles == stated.mean_cycles != record.aggregates.mean_cycles
    assert m.measurements == 100 and m.planner == "adaptive" and m.cpu == 3
    assert m.median_trial_cycles == pytest.approx(105_000)
    assert (m.sample_median_cycles, m.sample_q1_cycles) == (105_000, 100_000)
    # process-level interval over the two processes' medians (100 000 and 110 000): t(1) · 5 000
    assert m.sample_ci95_high_cycles == record.sample_stats.ci95_high
    assert m.sample_ci95_high_cycles == pytest.approx(105_000 + 12.706 * 5_000)
    assert list(m.trials.values_list("process_index", "cycles")) == [(0, 5_000_000), (1, 5_500_000)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (lambda r: replace(r, aggregates=replace(r.aggregates, mean_cycles=1.0)), "mean_cycles"),
        (lambda r: replace(r, aggregates=replace(r.aggregates, measurements=99)), "measurements"),
        (
            lambda r: replace(r, sample_stats=replace(r.sample_stats, ci95_low=1.0)),
            "sample_stats.ci95_low",
        ),
    ],
)
def test_a_record_with_a_tampered_aggregate_is_refused_and_nothing_is_written(tamper, field):
    campaign = CampaignFactory()
    before = row_counts()
    with pytest.raises(RecordAggregateMismatch) as info:
        timing_record_store(campaign=campaign, record=tamper(a_record()))
    assert info.value.field == field
    assert "records/kem-91/REC-1__enc.json" in str(info.value)
    assert row_counts() == before


@pytest.mark.django_db
def test_a_profile_is_stored_with_its_shares_and_a_tampered_one_is_refused():
    campaign = CampaignFactory()
    before = row_counts()
    with pytest.raises(RecordAggregateMismatch) as info:
        hash_profile_store(campaign=campaign, profile=replace(a_profile(), hash_share=0.5))
    assert info.value.field == "hash_share"
    assert row_counts() == before
    stored = hash_profile_store(campaign=campaign, profile=a_profile())
    assert stored.share == {"sm3hash": 0.25} and stored.hash_share == 0.25
    assert stored.drng_share == 0.0 and stored.calls.get().calls == 20
