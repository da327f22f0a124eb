"""The hostile corpus (examples/hostile-*.toml): every attempt fails inside the sandbox.

Each fixture only ever runs through the harness (build, KAT, timing), i.e. in bubblewrap;
the tests check what the step reports, what its log shows the candidate tried, and what the
host looks like afterwards.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from measurements.domain import KatStatus, MeasurementStatus
from runner.harness.kat import check_instance
from runner.harness.manifest import load_manifest
from runner.harness.timing import GuideParams, build_driver, measure_operation

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
#: fixture -> KAT status after the guide build (hostile attempts fail; the toy KEM is correct)
HOSTILE_KAT = {
    "write-outside": "PASS",
    "network": "PASS",
    "read-secrets": "PASS",
    "fork-300": "PASS",
    "daemon": "TIMEOUT",
    "incbin-outside": "BUILDFAIL",
    "forge-stdout": "PASS",
    "forge-channel": "PASS",
}
CANARY = "hostile-canary-4f1d"
TINY_GUIDE = GuideParams(trials=2, target_trial_s=0.02, min_total_calls=30)


@pytest.fixture(scope="module")
def hostile_checks(tmp_path_factory):
    build_root = tmp_path_factory.mktemp("hostile")
    old = os.environ.get("SECRET_KEY")
    os.environ["SECRET_KEY"] = CANARY  # the worker's secret: must not be readable inside
    try:
        return {
            name: check_instance(
                load_manifest(EXAMPLES / f"hostile-{name}.toml"),
                load_manifest(EXAMPLES / f"hostile-{name}.toml").instances[0],
                build_root=build_root,
                fallback=False,
            )
            for name in HOSTILE_KAT
        }
    finally:
        if old is None:
            del os.environ["SECRET_KEY"]
        else:
            os.environ["SECRET_KEY"] = old


def attempts(check) -> list[str]:
    """The candidate's own report of its attempts (its stderr, kept in the KAT log)."""
    return [
        line.strip()[len("hostile: ") :]
        for line in check.final.log_path.read_text().splitlines()
        if line.strip().startswith("hostile: ")
    ]


def host_processes_named(fragment: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if fragment in os.readlink(entry / "exe"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.parametrize("name,expected", sorted(HOSTILE_KAT.items()))
def test_hostile_fixture_kat_status(hostile_checks, name, expected):
    final = hostile_checks[name].final
    assert final.status.value == expected, final.detail
    assert (
        final.log_path.read_text()
        .splitlines()[-1]
        .startswith(f"RESULT {final.candidate} {name} {expected}")
    )


def test_writes_to_the_project_folder_and_database_fail(hostile_checks):
    tried = attempts(hostile_checks["write-outside"])
    assert tried == [
        f"write {REPO}/HOSTILE_PWNED: No such file or directory",
        f"write {REPO}/examples/hostile/HOSTILE_PWNED: No such file or directory",
        f"open-rw {REPO}/ngcc.sqlite3: No such file or directory",
    ]
    assert not (REPO / "HOSTILE_PWNED").exists()
    assert not (EXAMPLES / "hostile" / "HOSTILE_PWNED").exists()


def test_network_connects_fail(hostile_checks):
    tried = attempts(hostile_checks["network"])
    assert [t.split(": ")[0] for t in tried] == [
        "connect 127.0.0.1:8000",
        "connect 127.0.0.1:5432",
        "connect 127.0.0.1:6379",
        "connect 127.0.0.1:22",
    ]
    # A loopback of its own and nothing listening: no host service is reachable.
    assert all("SUCCEEDED" not in t for t in tried)


def test_secrets_environment_and_database_are_unreadable(hostile_checks):
    tried = attempts(hostile_checks["read-secrets"])
    assert tried == [
        "read /proc/1/environ: No data available",  # bubblewrap's init has no environment
        "read /proc/1/environ: No data available",  # the parent inside is that init
        "read /root/.ssh/id_rsa: No such file or directory",
        "read /root/.ssh/authorized_keys: No such file or directory",
        "read /etc/passwd: No such file or directory",
        f"read {REPO}/ngcc.sqlite3: No such file or directory",
        f"read {REPO}/manage.py: No such file or directory",
    ]
    assert CANARY not in hostile_checks["read-secrets"].final.log_path.read_text()


def test_fork_flood_is_bounded_and_gone_after_the_step(hostile_checks):
    (line,) = attempts(hostile_checks["fork-300"])
    made = int(line.split(": ")[1].split()[0])
    # Limits.processes = 64 (the pids cgroup also counts bubblewrap's two processes).
    assert made < 64 and line.endswith(f"{made} made, {300 - made} refused")
    assert host_processes_named("KAT_fork-300") == []


def test_daemon_is_gone_and_the_step_returns_within_its_limit(hostile_checks):
    final = hostile_checks["daemon"].final
    assert attempts(hostile_checks["daemon"]) == ["daemon: started"]
    assert final.run["limits"]["wall_seconds"] == 3.0
    assert final.run["wall_seconds"] < 3.0 + 2.0
    assert host_processes_named("KAT_daemon") == []


def test_incbin_outside_the_tree_fails_the_build(hostile_checks):
    build = hostile_checks["incbin-outside"].build
    assert not build.ok and build.error.startswith("compile failed: hostile/incbin-outside/stolen")
    assert "Error: file not found: /etc/passwd" in build.error
    assert "root:" not in (build.build_dir / "build.log").read_text()


def test_manifest_timeout_of_1e12_is_capped_by_the_operator(tmp_path, monkeypatch):
    monkeypatch.setenv("NGCC_MAX_KAT_TIMEOUT", "2")
    manifest = load_manifest(EXAMPLES / "hostile-huge-timeout.toml")
    inst = manifest.instances[0]
    assert (inst.kat_timeout_requested, inst.kat_timeout) == (1e12, 2.0)
    final = check_instance(manifest, inst, build_root=tmp_path, fallback=False).final
    assert final.status is KatStatus.TIMEOUT and "wall-clock limit of 2 s" in final.detail
    assert final.run["limits"]["wall_seconds"] == 2.0 and final.run["wall_seconds"] < 2.0 + 2.0


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build_driver(out_dir=tmp_path_factory.mktemp("driver"))


@pytest.mark.parametrize("name", ["forge-stdout", "forge-channel"])
def test_forged_timing_record_is_inconsistent_with_no_figures(hostile_checks, driver, name):
    library = hostile_checks[name].build.library
    m = measure_operation(driver=driver, library=library, operation="keygen", guide=TINY_GUIDE)
    assert m.inconsistent and m.runs == []
    record = m.to_record(candidate=hostile_checks[name].final.candidate, label=name)
    assert record.status == MeasurementStatus.INCONSISTENT == "INCONSISTENT"
    assert record.trials == [] and record.measurements == 0
    assert record.aggregates is None and record.sample_stats is None
    evidence = record.processes[-1]
    if name == "forge-stdout":
        # The fake record went to stdout (kept as evidence); the result channel stayed empty.
        assert "exited without one valid record on the result channel" in m.error
        assert '"cycles":42' in evidence["stdout"] and evidence["channel"] == ""
    else:
        # A well-formed record arrived on the channel, but the parent saw 0.8 s of CPU.
        assert "of user CPU time measured from outside" in m.error
        assert evidence["witness"]["cpu_s"] >= 0.8 and '"cycles":42' in evidence["channel"]


def test_inconsistent_record_is_stored_with_evidence_and_no_figures(db, hostile_checks, driver):
    from measurements.models import Measurement
    from runner.store import measured_timing_store
    from tests.factories import CampaignFactory, InstanceFactory

    library = hostile_checks["forge-channel"].build.library
    m = measure_operation(driver=driver, library=library, operation="keygen", guide=TINY_GUIDE)
    campaign, instance = CampaignFactory(), InstanceFactory(label="forge-channel")
    record = m.to_record(candidate=instance.submission.key, label="forge-channel")
    measured_timing_store(campaign=campaign, record=record, instance=instance)
    stored = Measurement.objects.get(campaign=campaign, instance=instance, operation="keygen")
    assert stored.status == "INCONSISTENT" and stored.trials.count() == 0
    assert stored.mean_cycles is None and stored.measurements == 0
    assert b"of user CPU time measured from outside" in bytes(stored.evidence.content)


def test_honest_long_run_passes_the_witness(hostile_checks, driver):
    # The write-outside library only misbehaves in KAT executables: timed, it is honest.
    library = hostile_checks["write-outside"].build.library
    guide = GuideParams(trials=1, target_trial_s=0.4, min_total_calls=30)
    m = measure_operation(driver=driver, library=library, operation="keygen", guide=guide)
    assert m.error is None and not m.inconsistent
    witness = m.processes[-1]["meta"]["witness"]
    assert witness["accounted_s"] <= witness["wall_s"] + 0.05
    assert witness["timed_s"] > 0


@pytest.mark.slow
def test_forged_submission_through_a_campaign_stores_no_figures(db, tmp_path, settings):
    """The whole runner path (steps run here, as test_timing_store does)."""
    from measurements.models import Measurement
    from runner.services import CampaignSettings, campaign_start, submission_add, system_register
    from runner.tasks import run_step

    settings.NGCC_WORK_DIR = tmp_path
    system_register(key="forge_1", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "hostile-forge-stdout.toml")
    tiny = CampaignSettings(
        planner="guide",
        operations=("keygen",),
        guide_overrides={"trials": 2, "target_trial_s": 0.01, "min_total_calls": 20},
    )
    campaign = campaign_start(system_key="forge_1", settings=tiny, enqueue=False)
    for step_id in campaign.steps.order_by("seq").values_list("id", flat=True):
        run_step(step_id)
    kat = campaign.steps.get(phase="kat")
    assert kat.status == "done"  # the library is a correct toy KEM outside the timing driver
    measure = campaign.steps.get(phase="measure", operation="keygen")
    assert measure.status == "failed" and "result channel" in measure.summary
    stored = Measurement.objects.get(campaign=campaign, operation="keygen")
    assert stored.status == "INCONSISTENT" and stored.trials.count() == 0
    assert stored.mean_cycles is None and stored.evidence is not None


def test_hardware_cycle_witness_reports_why_it_is_unavailable():
    from runner.harness.perf_witness import open_user_cycles, perf_refusal

    reason = perf_refusal()
    if not reason:
        pytest.skip("this machine has a PMU: user-mode cycles can be counted")
    # Our VMs have no PMU: the kernel refuses, and says why.
    assert reason.startswith("perf_event_open refused: ") and "errno" in reason
    assert open_user_cycles(os.getpid()) == (None, reason)
