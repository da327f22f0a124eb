"""Runner services without a worker: registration, host checks, manifests, campaign planning."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings

from measurements.models import Campaign
from runner.harness.host import host_problems
from runner.models import CampaignStep
from runner.services import (
    CampaignSettings,
    RunnerError,
    campaign_start,
    submission_add,
    system_register,
)

EXAMPLES = Path(settings.BASE_DIR) / "examples"


def test_host_checks_name_each_problem():
    fixed = {
        "cpufreq_governor": "performance",
        "cpufreq_min_khz": "2100000",
        "cpufreq_max_khz": "2100000",
        "intel_pstate_no_turbo": "1",
        "smt_control": "off",
        "cpu_number": 0,
        "virtualized": False,
    }
    assert host_problems(fixed, {"name": "perf_cycles"}) == []
    unfixed = {**fixed, "cpufreq_governor": "powersave", "intel_pstate_no_turbo": "0"}
    unfixed["cpufreq_max_khz"] = "4900000"
    unfixed["smt_control"] = "on"
    problems = host_problems(unfixed, {"name": "tsc"})
    assert any("turbo is on" in p for p in problems)
    assert any("'powersave'" in p for p in problems)
    assert any("minimum frequency 2100000 kHz differs" in p for p in problems)
    assert any("SMT is 'on'" in p for p in problems)
    assert any("hardware cycle counter unavailable" in p for p in problems)


def test_register_this_machine_records_environment_and_problems(db):
    system = system_register(key="here_1", cpu=0, counter={"name": "tsc", "hz": 2.5e9})
    env = system.environment
    assert env["cpu_number"] == 0 and env["memory_total_kib"] > 0
    assert env["architecture"] and env["kernel"] and env["compiler"].startswith("gcc")
    # A time-stamp counter instead of the core-cycle counter is a host problem on any machine.
    assert system.host_problems == host_problems(env, {"name": "tsc", "hz": 2.5e9})
    assert any("hardware cycle counter unavailable" in p for p in system.host_problems)
    with pytest.raises(RunnerError, match="not a fixed host"):
        campaign_start(system_key="here_1", enqueue=False)


def test_counter_probe_reports_counter_and_overhead(tmp_path, settings):
    settings.NGCC_WORK_DIR = tmp_path
    from runner.management.commands.system_register import _probe_counter

    counter = _probe_counter()
    assert counter["name"] in {"perf_cycles", "tsc", "cntvct_el0", "monotonic_raw"}
    assert counter["hz"] > 0 and counter["overhead_cycles"] >= 0


def test_submission_add_is_idempotent_and_revises_changed_manifests(db, tmp_path):
    tree = tmp_path / "examples"
    shutil.copytree(EXAMPLES, tree, ignore=shutil.ignore_patterns("faulty*"))
    manifest = tree / "kem-ex1.toml"
    submission, outcome = submission_add(manifest_path=manifest)
    assert outcome == "created" and submission.revision == 1
    assert list(submission.instances.values_list("label", flat=True)) == [
        "rlwe-lpr-256-toy",
        "rlwe-lpr-512-toy",
        "rlwe-lpr-256-vt",
    ]
    assert submission_add(manifest_path=manifest)[1] == "unchanged"
    manifest.write_text(manifest.read_text().replace("toy parameters", "toy parameter sets"))
    submission, outcome = submission_add(manifest_path=manifest)
    assert outcome == "new revision 2" and submission.revision == 2


def test_campaign_plan_orders_phases_and_operations(db):
    system_register(key="here_2", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")
    submission_add(manifest_path=EXAMPLES / "hash-ex1.toml")
    campaign = campaign_start(
        system_key="here_2",
        settings=CampaignSettings(hash_lengths=(32, 1024)),
        enqueue=False,
    )
    assert campaign.status == Campaign.Status.RUNNING and campaign.unfixed_host
    steps = list(campaign.steps.order_by("seq"))
    phases = [s.phase for s in steps]
    assert phases == sorted(phases, key=["build", "kat", "calibrate", "measure", "profile"].index)
    kem_measures = [
        s.operation
        for s in steps
        if s.phase == "measure" and s.instance.label == "rlwe-lpr-256-toy"
    ]
    # measure steps run in a seeded interleaved order (every operation once)
    assert sorted(kem_measures) == ["dec", "enc", "keygen"]
    hash_inputs = [
        s.input_bytes
        for s in steps
        if s.phase == "measure" and s.instance.submission.key == "hash-ex1"
    ]
    assert sorted(set(hash_inputs)) == [32, 1024]
    # 3 KEM instances × (build, kat, 3 × calibrate/measure/profile) + 2 hash instances × (build,
    # kat, 2 lengths × calibrate/measure/profile).
    assert CampaignStep.objects.filter(campaign=campaign).count() == 3 * (2 + 3 * 3) + 2 * (
        2 + 2 * 3
    )
    with pytest.raises(RunnerError, match="no manifest registered for kem-99"):
        campaign_start(system_key="here_2", submission_keys=["kem-99"], enqueue=False)


def test_campaign_start_command_restricts_to_instances_and_names_box_worker(db):
    from io import StringIO

    from django.core.management import CommandError, call_command

    system_register(key="here_4", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")
    out = StringIO()
    call_command("campaign_start", system="here_4", instances=["rlwe-lpr-512-toy"], stdout=out)
    campaign = Campaign.objects.get(system__key="here_4")
    labels = set(campaign.steps.values_list("instance__label", flat=True))
    assert labels == {"rlwe-lpr-512-toy"}
    # build + KAT, then calibrate/measure/profile for each of keygen, enc, dec
    assert campaign.steps.count() == 2 + 3 * 3
    assert "`NGCC_CLUSTER=here_4 python manage.py box_worker` on that box" in out.getvalue()
    assert "qcluster" not in out.getvalue()
    with pytest.raises(CommandError, match="no instance labelled nope in the chosen submissions"):
        call_command("campaign_start", system="here_4", instances=["nope"], stdout=out)
    assert Campaign.objects.filter(system__key="here_4").count() == 1


def test_campaign_status_shows_one_eta_on_the_bar_and_in_the_summary(db):
    import datetime
    from io import StringIO

    from django.core.management import call_command

    system_register(key="here_5", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")
    campaign = campaign_start(
        system_key="here_5",
        settings=CampaignSettings(instances=("rlwe-lpr-256-toy",)),
        enqueue=False,
    )

    def status() -> tuple[str, str]:
        out, err = StringIO(), StringIO()
        call_command("campaign_status", campaign.key, stdout=out, stderr=err)
        return out.getvalue(), err.getvalue()

    out, err = status()
    assert "0/11   0% ETA unknown running" in err and ", ETA unknown\n" in out
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    build, kat = campaign.steps.order_by("seq")[:2]
    for step, seconds in ((build, 10), (kat, 20)):
        step.status = CampaignStep.Status.DONE
        step.started_at = start
        step.finished_at = start + datetime.timedelta(seconds=seconds)
        step.save()
    # mean step 15 s, 9 steps left: 135 s, shown identically by the bar and the summary
    out, err = status()
    assert "2/11  18% ETA 135 s running" in err
    summary = next(line for line in out.splitlines() if "instances done" in line)
    assert summary.endswith(", ETA 135 s")


def test_rerun_failed_measures_again_and_resume_closes(db, tmp_path, settings):
    """Steps run in this process (the worker path is covered by test_campaign_cluster)."""
    from measurements.models import Measurement
    from runner.services import campaign_rerun_failed, campaign_resume

    settings.NGCC_WORK_DIR = tmp_path
    system_register(key="here_3", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")
    quick = CampaignSettings(
        planner="guide",
        instances=("rlwe-lpr-256-toy",),
        operations=("keygen",),
        guide_overrides={"trials": 2, "target_trial_s": 0.01, "min_total_calls": 5},
        profile_overrides={"target_s": 0.01, "max_operations": 5},
        input_pool=2,
    )
    campaign = campaign_start(system_key="here_3", settings=quick, enqueue=False)
    steps = {s.phase: s for s in campaign.steps.all()}
    for phase in ("build", "kat", "calibrate"):
        _run_one(steps[phase])
    # Sabotage the library the measurement loads: the driver fails, a failed record is stored.
    kat = CampaignStep.objects.get(pk=steps["kat"].pk)
    library = kat.result["library"]
    kat.result = {**kat.result, "library": str(tmp_path / "missing.so")}
    kat.save()
    _run_one(steps["measure"])
    failed = CampaignStep.objects.get(pk=steps["measure"].pk)
    assert failed.status == "failed" and "timing failed" in failed.summary
    assert Measurement.objects.get(campaign=campaign).status != "complete"

    kat.result = {**kat.result, "library": library}
    kat.save()
    campaign_rerun_failed(campaign=campaign)
    _run_one(steps["measure"])
    _run_one(steps["profile"])
    measurement = Measurement.objects.get(campaign=campaign)
    assert measurement.status == "complete" and measurement.trials.count() == 2
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.COMPLETE
    # Resuming a campaign with nothing left to do closes it again at once.
    campaign_resume(campaign=campaign)
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.COMPLETE


def _run_one(step) -> None:
    from runner.tasks import run_step

    run_step(step.pk)


def test_nominal_clock_only_on_a_pinned_host():
    from runner.steps import nominal_clock_hz

    assert nominal_clock_hz({"cpufreq_min_khz": "2707200", "cpufreq_max_khz": "2707200"}) == (
        2_707_200_000.0
    )
    assert nominal_clock_hz({"cpufreq_min_khz": "800000", "cpufreq_max_khz": "4900000"}) is None
    assert nominal_clock_hz({}) is None


def test_campaign_settings_come_back_from_the_stored_campaign(db):
    """Steps read the settings a campaign was started with as `CampaignSettings` again."""
    system_register(key="here_4", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")
    started = CampaignSettings(
        planner="guide",
        budget_per_op_s=30.0,
        cpu=0,
        operations=("keygen", "enc"),
        instances=("rlwe-lpr-256-toy",),
        guide_overrides={"trials": 2},
    )
    campaign = campaign_start(system_key="here_4", settings=started, enqueue=False)
    assert campaign.settings["operations"] == ["keygen", "enc"]  # JSON keeps lists
    assert CampaignSettings.from_stored(campaign.settings) == started
    # Imported campaigns carry other keys (shard CPUs); they are not run, and are ignored here.
    assert CampaignSettings.from_stored({"shard_cpus": {"1": 3}, "planner": "guide"}) == (
        CampaignSettings(planner="guide")
    )
    assert CampaignSettings.from_stored(None) == CampaignSettings()


def test_quick_campaign_command_stores_the_tiny_plans(db):
    from io import StringIO

    from django.core.management import call_command

    system_register(key="here_5", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "hash-ex1.toml")
    out = StringIO()
    call_command(
        "campaign_start", "--system", "here_5", "--quick", "--planner", "guide", stdout=out
    )
    campaign = Campaign.objects.get(system__key="here_5")
    stored = CampaignSettings.from_stored(campaign.settings)
    assert stored.planner == "guide"
    assert stored.guide_overrides == {"trials": 2, "target_trial_s": 0.02, "min_total_calls": 10}
    assert stored.profile_overrides == {"target_s": 0.02, "max_operations": 20}
    assert stored.hash_lengths == (32, 1024)
    measured_lengths = sorted(
        set(campaign.steps.filter(phase="measure").values_list("input_bytes", flat=True))
    )
    assert measured_lengths == [32, 1024]
    assert f"campaign {campaign.key}: {campaign.steps.count()} steps queued" in out.getvalue()


def test_measure_steps_are_interleaved_in_a_seeded_recorded_order(db):
    system_register(key="here_5", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")

    def measure_order(seed):
        campaign = campaign_start(
            system_key="here_5", settings=CampaignSettings(order_seed=seed), enqueue=False
        )
        steps = campaign.steps.filter(phase="measure").order_by("seq")
        return campaign, [(s.instance.label, s.operation) for s in steps]

    first, order = measure_order(7)
    again, same = measure_order(7)
    _, other = measure_order(8)
    assert first.planning["measure_order_seed"] == 7
    assert order == same  # the seed decides the order
    natural = [
        (label, op)
        for label in ("rlwe-lpr-256-toy", "rlwe-lpr-512-toy", "rlwe-lpr-256-vt")
        for op in ("keygen", "enc", "dec")
    ]
    assert sorted(order) == sorted(natural) and order != natural and other != order
    # every measure step still comes after every calibration and before every profile
    phases = [s.phase for s in first.steps.order_by("seq")]
    assert phases == sorted(phases, key=["build", "kat", "calibrate", "measure", "profile"].index)


def test_register_detects_the_sandbox_and_refuses_unsandboxed_campaigns(db):
    system = system_register(key="here_sbx", cpu=0, allow_unfixed_host=True)
    assert system.sandbox_refused == ""  # bubblewrap works on our machines
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")
    refused = "bwrap refused: No permissions to create new namespace"
    system_register(key="here_nons", cpu=0, allow_unfixed_host=True, sandbox_refused=refused)
    with pytest.raises(RunnerError, match="cannot sandbox candidate code .*--allow-unsandboxed"):
        campaign_start(system_key="here_nons", enqueue=False)
    system = system_register(
        key="here_nons",
        cpu=0,
        allow_unfixed_host=True,
        allow_unsandboxed=True,
        sandbox_refused=refused,
    )
    assert (system.sandbox_refused, system.allow_unsandboxed) == (refused, True)
    campaign = campaign_start(system_key="here_nons", enqueue=False)
    # Flagged like an unfixed host, on every page the campaign feeds.
    assert campaign.unfixed_host
    assert campaign.host_problems[-1] == f"candidate code ran without the sandbox ({refused})"
    assert campaign.host_problems[:-1] == system.host_problems
