"""The measure and profile steps of a campaign on the example submissions: stored through the
services, recomputable. Steps run in this process; test_campaign_cluster runs them in workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from measurements.models import HashProfile, Measurement
from measurements.services.recording import measurement_recompute_aggregates
from measurements.stats import aggregates_from_trials
from runner.services import CampaignSettings, campaign_start, submission_add, system_register
from runner.tasks import run_step

EXAMPLES_DIR = Path(django_settings.BASE_DIR) / "examples"
EXAMPLES = {"kem": "rlwe-lpr-256-toy", "sign": "wots-sm3-w16", "hash": "sha3-512-ex"}
MANIFESTS = {"kem": "kem-ex1.toml", "sign": "sign-ex1.toml", "hash": "hash-ex1.toml"}
TINY = {
    "planner": "guide",
    "guide_overrides": {"trials": 2, "target_trial_s": 0.01, "min_total_calls": 20},
    "profile_overrides": {"target_s": 0.02, "max_operations": 50},
    "hash_lengths": (32, 4096),
}


def run_campaign(category: str, **overrides):
    """Plan a campaign for one example instance and run its steps here, in order."""
    system_register(key="steps_1", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES_DIR / MANIFESTS[category])
    options = {**TINY, "instances": (EXAMPLES[category],), **overrides}
    campaign = campaign_start(
        system_key="steps_1", settings=CampaignSettings(**options), enqueue=False
    )
    for step_id in campaign.steps.order_by("seq").values_list("id", flat=True):
        run_step(step_id)
    return campaign


@pytest.fixture
def work_dir(db, tmp_path, settings):
    settings.NGCC_WORK_DIR = tmp_path
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("category", ["kem", "sign", "hash"])
def test_measuring_an_example_stores_complete_measurements_and_profiles(category, work_dir):
    campaign = run_campaign(category)
    failed = campaign.steps.exclude(status="done")
    assert not failed.exists(), [(str(s), s.summary) for s in failed]
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
    # The page shows the sample median with its CI and the stack high-water mark.
    from measurements.formatting import format_cycles_interval, format_size_bytes
    from measurements.selectors.candidate_page import candidate_page

    page = candidate_page("steps_1", campaign.steps.first().instance.submission.key)
    assert page.performance.headers[-1] == "median per call (95 % CI)"
    assert page.resources.headers[-1] == "stack high-water"
    texts = {c.text for row in page.performance.rows for c in row}
    m = stored[0]
    assert (
        format_cycles_interval(
            m.sample_median_cycles, m.sample_ci95_low_cycles, m.sample_ci95_high_cycles
        )
        in texts
    )
    resource_texts = {c.text for row in page.resources.rows for c in row}
    assert format_size_bytes(m.stack_high_water_bytes) in resource_texts
    profiles = HashProfile.objects.filter(campaign=campaign)
    assert profiles.count() == expected_ops
    for p in profiles:
        assert p.total_operations >= 1 and p.evidence is not None
        assert 0 <= (p.hash_share or 0) <= 1


@pytest.mark.slow
def test_refused_operation_is_stored_as_failed_without_partial_rows(work_dir, monkeypatch):
    from runner.harness import timing

    real = timing.sandbox_runner

    def refusing(limits=None):
        run = real(limits)

        def wrapped(argv, timeout_s):
            res = run(argv, timeout_s)
            if argv[-1] == "dec":
                res.channel = json.dumps(
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
                ).encode()
                res.returncode = 2
            return res

        return wrapped

    monkeypatch.setattr(timing, "sandbox_runner", refusing)
    campaign = run_campaign("kem", operations=("dec",))
    step = campaign.steps.get(phase="measure")
    assert step.status == "failed" and "mismatch" in step.summary
    m = Measurement.objects.get(campaign=campaign, operation="dec")
    assert m.status == "failed" and m.trials.count() == 0 and m.mean_cycles is None
