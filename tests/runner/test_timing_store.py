"""The measure and profile steps of a campaign on the example submissions: stored through the
services, recomputable. Steps run in this process; test_campaign_cluster runs them in workers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from measurements.models import HashProfile, Measurement
from measurements.precision import GUIDE_REASON
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
    "input_pool": 2,
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
        # What the guide plan guarantees whatever the machine's speed: its trial count, its
        # calls per trial, and one sample per full batch (how many calls fit is speed-dependent).
        plan = m.plan
        assert len(trials) == plan["trials"] == 2
        assert plan["iterations_per_trial"] >= 10  # ceil(min_total_calls 20 / 2 trials)
        for t in trials:
            assert t.measurements == plan["iterations_per_trial"]
            assert t.batch_calls == plan["batch_calls"]
            assert len(t.samples) == plan["iterations_per_trial"] // plan["batch_calls"]
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
    from measurements.selectors.pages.candidate import candidate_page
    from measurements.uncertainty import next_campaign_bounds

    page = candidate_page("steps_1", campaign.steps.first().instance.submission.key)
    pool = () if category == "hash" else ("across inputs",)  # hash lengths have no pool
    expected = ("median per call (next campaign, 95 %)", "precision", *pool)
    assert page.performance.headers[-len(expected) :] == expected
    # The guide plan runs fixed trials; the campaign's 1 % target is met or missed for that reason.
    for m in stored:
        assert m.precision_target == 0.01
        assert m.target_missed_reason == ("" if m.precision_reached <= 0.01 else GUIDE_REASON)
    assert page.resources.headers[-1] == "stack high-water"
    texts = {c.text for row in page.performance.rows for c in row}
    m = stored[0]
    # the stored 95 % interval, √2 wider and widened by the box's campaign-to-campaign spread
    # (a first campaign on this box: the prior, widened for resting on no history at all)
    campaign.refresh_from_db()
    spread = campaign.planning["campaign_spread"]
    assert spread["transitions"] == 0 and spread["observed"] is None
    prior = django_settings.NGCC_CAMPAIGN_SPREAD_PRIOR
    # ...and never below the campaign's own process-to-process spread (the floor)
    assert spread["floor"] >= 0.0
    assert spread["allowance"] == pytest.approx(
        max(spread["floor"], prior * 12.706 / 1.959963984540054)
    )
    assert all(s.campaign_spread == spread["allowance"] for s in stored)
    low, high = next_campaign_bounds(
        m.sample_median_cycles,
        m.sample_ci95_low_cycles,
        m.sample_ci95_high_cycles,
        spread["allowance"],
    )
    assert format_cycles_interval(m.sample_median_cycles, max(low, 0.0), high) in texts
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


@pytest.mark.slow
def test_measurement_exhausting_its_budget_is_flagged_on_page_api_and_campaign(work_dir, client):
    from io import StringIO

    from django.core.management import call_command

    from measurements.formatting import format_precision
    from measurements.selectors.pages.candidate import candidate_page
    from measurements.uncertainty import next_campaign_half_relative

    # A target no run can reach within a tiny budget: the adaptive planner stops on the budget.
    campaign = run_campaign(
        "kem",
        planner="adaptive",
        target_precision=1e-6,
        adaptive_overrides={"budget_s": 0.3, "trial_target_s": 0.01, "calibration_s": 0.005},
        operations=("keygen", "dec"),
        input_pool=0,  # no pool: the precision column is the last one
    )
    stored = list(Measurement.objects.filter(campaign=campaign).order_by("operation"))
    assert [m.operation for m in stored] == ["dec", "keygen"]
    for m in stored:
        assert m.status == "complete" and m.plan["stopped_by"] == "budget"
        # precision reached = how far the next campaign may land as far as this campaign can
        # tell (√2 × the interval's half-width, what the planner stops on); the box's spread
        # widens the page's interval, not the precision held against the target.
        half = (m.sample_ci95_high_cycles - m.sample_ci95_low_cycles) / 2 / m.sample_median_cycles
        assert m.precision_reached == pytest.approx(math.sqrt(2) * half, rel=1e-12)
        assert m.precision_reached == pytest.approx(m.plan["precision_reached"])
        assert m.campaign_spread is not None and m.campaign_spread > 0
        low, high = m.next_campaign_bounds()
        median = m.sample_median_cycles
        upper = (m.sample_ci95_high_cycles - median) / median  # the interval's own upper half
        expected = next_campaign_half_relative(upper, m.campaign_spread)
        assert (high - median) / median == pytest.approx(expected)
        assert m.precision_target == 1e-6 and m.target_missed_reason == "budget"
        assert m.target_met is False
    shown = {m.operation: format_precision(m.precision_reached, 1e-6, "budget") for m in stored}
    assert all(s.endswith(", target 0.0001 % not reached: budget") for s in shown.values())

    # The candidate page: a precision column next to the interval, the miss spelled out.
    page = candidate_page("steps_1", "kem-ex1")
    assert page.performance.headers[-2:] == ("median per call (next campaign, 95 %)", "precision")
    by_op = {row[1].text: row[-1].text for row in page.performance.rows}
    assert by_op == {"keygen": shown["keygen"], "enc": "–", "dec": shown["dec"]}  # enc not run
    html = client.get("/performance/steps_1/kem-ex1/").content.decode()
    assert shown["dec"] in html

    # The API: reached, target, met and the reason, and the same text as the page.
    body = client.get(f"/api/v1/measurements/?campaign={campaign.key}").json()
    rows = {r["operation"]: r for r in body["results"]}
    for op in ("keygen", "dec"):
        assert rows[op]["target_met"] is False and rows[op]["target_missed_reason"] == "budget"
        assert rows[op]["precision_target"] == 1e-6 and rows[op]["precision"] == shown[op]

    # The campaign summaries count them.
    page = client.get(f"/campaigns/{campaign.key}/").content.decode()
    assert "Precision targets: 0 met, 2 missed (budget 2)" in page
    assert f"kem-ex1/rlwe-lpr-256-toy dec: {shown['dec']}" in page
    out = StringIO()
    call_command("campaign_status", campaign.key, stdout=out, stderr=StringIO())
    assert "  precision targets: 0 met, 2 missed (budget 2)" in out.getvalue()


@pytest.mark.slow
def test_input_pool_of_a_ciphertext_dependent_decapsulation_is_stored_and_shown(work_dir, client):
    """rlwe-lpr-256-vt decapsulates with 0–127 extra products chosen by the ciphertext: the pool
    of 8 seeded inputs finds the spread, the page and the API say so; keygen is not timed."""
    from measurements.selectors.pages.candidate import candidate_page
    from measurements.selectors.pages.candidate.performance import INPUT_POOL_HEADER

    campaign = run_campaign(
        "kem", instances=("rlwe-lpr-256-vt",), operations=("dec",), input_pool=8
    )
    dec = Measurement.objects.get(campaign=campaign, operation="dec")
    pool = dec.input_pool
    assert pool["pool_size"] == 8 and pool["first_input"] == 1
    assert [i["input_seed"] for i in pool["inputs"]] == list(range(1, 9))
    assert pool["spread_relative"] > 0.2
    # the verdict follows the rule on what was measured (a very noisy box can hide the spread;
    # tests/runner/test_input_pool.py shows the pool sees it whatever the box does)
    assert pool["input_dependent"] is (pool["spread_relative"] > 2 * pool["noise_relative"])
    assert len(pool["reference_floors"]) == 9
    # what holds whatever the box does: the dearest input costs several times its reference,
    # while two consecutive references (the same input twice) never differ so much
    refs = pool["reference_floors"]
    inputs = [i["floor"] / ref for i, ref in zip(pool["inputs"], refs, strict=False)]
    references = [b / a for a, b in zip(refs, refs[1:], strict=False)]
    assert max(inputs) > 3 * max(max(references), 1.0)
    # the evidence record carries the same pool
    assert json.loads(bytes(dec.evidence.content))["input_pool"] == pool
    page = candidate_page("steps_1", "kem-ex1")
    assert page.performance.headers[-1] == INPUT_POOL_HEADER
    [row] = [
        r for r in page.performance.rows if r[0].text == "rlwe-lpr-256-vt" and r[1].text == "dec"
    ]
    assert "across 8 inputs (noise ±" in row[-1].text
    verdict = ": depends on the input" if pool["input_dependent"] else ": within the noise"
    assert row[-1].text.endswith(verdict)
    api = client.get(f"/api/v1/measurements/{dec.pk}/").json()
    assert api["input_pool"]["input_dependent"] is pool["input_dependent"]
