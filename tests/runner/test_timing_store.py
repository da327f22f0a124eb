"""measure_instance on the example submissions: stored through the services, recomputable."""

from __future__ import annotations

import json

import pytest

from measurements.models import HashProfile, Measurement
from measurements.services.recording import measurement_recompute_aggregates
from measurements.stats import aggregates_from_trials
from runner.measure import measure_instance
from runner.profile import ProfileParams
from runner.timing import GuideParams
from tests.factories import CampaignFactory

TINY = GuideParams(trials=2, target_trial_s=0.01, min_total_calls=20)
TINY_PROFILE = ProfileParams(target_s=0.02, max_operations=50)
EXAMPLES = {"kem": "rlwe-lpr-256-toy", "sign": "wots-sm3-w16", "hash": "sha3-512-ex"}


@pytest.fixture
def campaign(db):
    return CampaignFactory(source="runner", status="running")


@pytest.mark.slow
@pytest.mark.parametrize("category", ["kem", "sign", "hash"])
def test_measuring_an_example_stores_complete_measurements_and_profiles(
    category, campaign, example_checks, example_manifests, tmp_path
):
    check = example_checks[EXAMPLES[category]]
    assert check.build.ok, check.build.error
    manifest = next(m for m in example_manifests.values() if m.category == category)
    instance = next(i for i in manifest.instances if i.label == EXAMPLES[category])
    result = measure_instance(
        campaign=campaign,
        build=check.build,
        category=category,
        tools_dir=tmp_path / "bin",
        guide=TINY,
        hash_input_bytes=(32, 4096),
        profile_params=TINY_PROFILE,
        digest_bits=getattr(instance, "digest_bits", None),
        kat_status=check.final.status.value,
    )
    assert result.errors == []
    expected_ops = {"kem": 3, "sign": 3, "hash": 2}[category]
    stored = Measurement.objects.filter(campaign=campaign).order_by("operation", "input_bytes")
    assert stored.count() == expected_ops
    for m in stored:
        assert m.status == "complete"
        trials = list(m.trials.all())
        assert len(trials) == 2 and all(len(t.samples) >= 16 for t in trials)
        assert m.baseline_rss_bytes > 0 and m.peak_rss_bytes >= m.baseline_rss_bytes
        assert m.stack_high_water_bytes > 0
        assert m.counter["name"] and m.counter["hz"] > 0 and "overhead_cycles" in m.counter
        assert m.sample_ci95_low_cycles <= m.sample_median_cycles <= m.sample_ci95_high_cycles
        # Every stored aggregate recomputes from the stored trials.
        agg = aggregates_from_trials(trials).as_dict()
        for key, value in agg.items():
            assert getattr(m, key) == pytest.approx(value, rel=1e-9), key
        before = (m.mean_cycles, m.sample_median_cycles)
        again = measurement_recompute_aggregates(measurement=m)
        assert (again.mean_cycles, again.sample_median_cycles) == pytest.approx(before)
        # The evidence is the record itself, byte-exact JSON in the shared shape.
        record = json.loads(bytes(m.evidence.content))
        assert record["mean_cycles"] == pytest.approx(m.mean_cycles)
        assert record["counter"]["name"] == m.counter["name"]
    if category == "hash":
        assert set(stored.values_list("input_bytes", flat=True)) == {32, 4096}
        assert all(m.throughput_mb_per_second > 0 for m in stored)
        record = json.loads(bytes(stored[0].evidence.content))
        assert record["sizes"]["digest_bytes"] == 64  # 512 bits from the manifest
    profiles = HashProfile.objects.filter(campaign=campaign)
    assert profiles.count() == expected_ops
    for p in profiles:
        assert p.total_operations >= 1 and p.evidence is not None
        assert 0 <= (p.hash_share or 0) <= 1


@pytest.mark.slow
def test_refused_operation_is_stored_as_failed_without_partial_rows(
    campaign, example_checks, tmp_path, monkeypatch
):
    from runner import timing

    build = example_checks[EXAMPLES["kem"]].build
    real = timing.sandbox_runner

    def refusing(limits=None):
        run = real(limits)

        def wrapped(argv, timeout_s):
            res = run(argv, timeout_s)
            if argv[-1] == "dec":
                res.stdout = json.dumps(
                    {
                        "driver": "ngcc-time",
                        "version": 1,
                        "status": "error",
                        "error": "dec: shared secret mismatch, refusing to time",
                        "operation": "dec",
                        "input_bytes": 0,
                        "iterations": 1,
                        "warmups": 0,
                        "trials": [],
                    }
                )
                res.returncode = 2
            return res

        return wrapped

    monkeypatch.setattr(timing, "sandbox_runner", refusing)
    result = measure_instance(
        campaign=campaign,
        build=build,
        category="kem",
        tools_dir=tmp_path / "bin",
        guide=TINY,
        operations=("dec",),
        profile=False,
    )
    assert len(result.errors) == 1 and "mismatch" in result.errors[0]
    m = Measurement.objects.get(campaign=campaign, operation="dec")
    assert m.status == "failed" and m.trials.count() == 0 and m.mean_cycles is None
