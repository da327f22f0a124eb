"""Campaigns through real django-q2 worker clusters (ORM broker; Redis when reachable).

Workers are separate `manage.py box_worker` processes that see the test database (a file for
SQLite, the test database for PostgreSQL). Waiting on them polls the database with a deadline:
they are other processes, there is nothing else to wait on.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from measurements.models import Campaign, HashProfile, Measurement, Trial
from runner.models import CampaignStep
from runner.services import CampaignSettings, campaign_start, submission_add, system_register

ROOT = Path(settings.BASE_DIR)
EXAMPLES = ROOT / "examples"
QUICK = CampaignSettings(
    planner="guide",
    instances=("rlwe-lpr-256-toy",),
    guide_overrides={"trials": 3, "target_trial_s": 0.02, "min_total_calls": 10},
    profile_overrides={"target_s": 0.02, "max_operations": 20},
    input_pool=2,
)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user, host = db["USER"] or "postgres", db["HOST"] or "127.0.0.1"
    return f"postgres://{user}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def worker(
    cluster: str, tmp_path: Path, redis_url: str | None = None
) -> Iterator[subprocess.Popen]:
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "NGCC_CLUSTER": cluster,
        "NGCC_WORK_DIR": str(tmp_path / "work"),
        "NGCC_Q_TIMEOUT": "60",
        "NGCC_Q_RETRY": "70",
        "NGCC_LOG_LEVEL": "ERROR",
    }
    env.pop("REDIS_URL", None)
    if redis_url:
        env["REDIS_URL"] = redis_url
        env["NGCC_Q_NAME"] = f"ngcc-test-{os.getpid()}"
    log = open(tmp_path / f"worker-{cluster}.log", "ab")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "box_worker"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()


def wait_for(condition: Callable[[], bool], timeout: float, what: str, logs: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    tails = "\n".join(p.read_text()[-3000:] for p in logs.glob("worker-*.log"))
    pytest.fail(f"timed out after {timeout} s waiting for {what}\n{tails}")


def _campaign_done(campaign: Campaign) -> bool:
    campaign.refresh_from_db()
    return campaign.status == Campaign.Status.COMPLETE


@pytest.fixture
def box(tmp_path, settings):
    settings.NGCC_WORK_DIR = tmp_path / "work"
    system_register(key="box_a", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kem-ex1.toml")
    return tmp_path


def _assert_complete_kem_campaign(campaign: Campaign) -> None:
    steps = campaign.steps.all()
    assert steps.filter(status="done").count() == steps.count(), [
        (str(s), s.status, s.summary) for s in steps.exclude(status="done")
    ]
    measurements = Measurement.objects.filter(campaign=campaign)
    assert measurements.count() == 3  # keygen/enc/dec of one instance
    for m in measurements:
        assert m.trials.count() == 3  # exactly the planned trials
        assert m.mean_cycles > 0 and m.peak_rss_bytes >= m.baseline_rss_bytes > 0
        assert m.counter.get("name")
    assert HashProfile.objects.filter(campaign=campaign).count() == 3


def _enqueue_from_subprocess(campaign: Campaign, env: dict[str, str]) -> None:
    """Queue the campaign's steps from a separate process configured for the broker under test."""
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "campaign_control", "resume", campaign.key],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize("broker", ["orm", "redis"])
def test_campaign_end_to_end_through_worker(box, client, broker):
    redis_url = os.environ.get("NGCC_TEST_REDIS_URL")
    if broker == "redis" and not redis_url:
        pytest.skip("Redis not configured (NGCC_TEST_REDIS_URL unset)")
    with worker("box_a", box, redis_url if broker == "redis" else None):
        if broker == "redis":
            campaign = campaign_start(system_key="box_a", settings=QUICK, enqueue=False)
            _enqueue_from_subprocess(
                campaign,
                {
                    "DATABASE_URL": _database_url(),
                    "REDIS_URL": redis_url,
                    "NGCC_Q_NAME": f"ngcc-test-{os.getpid()}",
                },
            )
        else:
            campaign = campaign_start(system_key="box_a", settings=QUICK)
        wait_for(lambda: _campaign_done(campaign), 240, "the campaign to complete", box)
    _assert_complete_kem_campaign(campaign)
    page = client.get(f"/campaigns/{campaign.key}/")
    assert page.status_code == 200
    assert "100%" in page.content.decode()
    # The example candidate's page shows the stored figures, flagged as from an unfixed host.
    from measurements.formatting import format_cycles

    body = client.get("/performance/box_a/kem-ex1/").content.decode()
    assert "Measured on an unfixed host" in body
    for m in Measurement.objects.filter(campaign=campaign):
        # Each mean-cycles figure links to its measurement's detail page.
        link = f'<a href="/measurements/{m.pk}/">{format_cycles(m.mean_cycles)}</a>'
        assert f'<td class="num">{link}</td>' in body


def test_tasks_are_routed_to_their_own_cluster(box):
    from django_q.models import Success
    from django_q.tasks import async_task

    with worker("box_a", box), worker("box_b", box):
        ids_a = [async_task("runner.tasks.whoami", f"a{i}", cluster="box_a") for i in range(3)]
        ids_b = [async_task("runner.tasks.whoami", f"b{i}", cluster="box_b") for i in range(3)]
        wait_for(lambda: Success.objects.count() >= 6, 60, "six tasks", box)
    results = dict(Success.objects.values_list("id", "result"))
    assert sorted(results[i] for i in ids_a) == ["a0@box_a", "a1@box_a", "a2@box_a"]
    assert sorted(results[i] for i in ids_b) == ["b0@box_b", "b1@box_b", "b2@box_b"]


def test_killed_worker_resumes_without_duplicates(box):
    campaign = campaign_start(system_key="box_a", settings=QUICK)
    with worker("box_a", box) as proc:
        wait_for(
            lambda: CampaignStep.objects.filter(
                campaign=campaign, phase="measure", status__in=["running", "done"]
            ).exists(),
            180,
            "a measurement step to start",
            box,
        )
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not _campaign_done(campaign)
    with worker("box_a", box):
        wait_for(lambda: _campaign_done(campaign), 240, "the campaign to complete", box)
    _assert_complete_kem_campaign(campaign)
    assert Trial.objects.filter(measurement__campaign=campaign).count() == 3 * 3


def test_failing_candidate_is_recorded_and_campaign_goes_on(box):
    submission_add(manifest_path=EXAMPLES / "faulty-segv-dec.toml")
    from runner.harness.manifest import load_manifest

    faulty_key = load_manifest(EXAMPLES / "faulty-segv-dec.toml").candidate
    with worker("box_a", box):
        campaign = campaign_start(
            system_key="box_a",
            submission_keys=["kem-ex1", faulty_key],
            settings=dataclasses.replace(QUICK, instances=("rlwe-lpr-256-toy", "segv-dec")),
        )
        wait_for(lambda: _campaign_done(campaign), 300, "the campaign to complete", box)
    failed = CampaignStep.objects.filter(campaign=campaign, status="failed")
    assert failed.exists()
    assert all(s.instance.submission.key == faulty_key for s in failed)
    assert all(s.summary == "not timed: KAT status CRASH" for s in failed)
    build = campaign.builds.get(instance__submission__key=faulty_key)
    assert build.kat_status == "CRASH"
    # The failure's log is stored as evidence and says why.
    log = bytes(build.kat_log.content).decode()
    assert "RESULT kem-fx1 segv-dec CRASH" in log and "SIGSEGV" in log
    kat_step = campaign.steps.get(instance__submission__key=faulty_key, phase="kat")
    assert kat_step.status == "done" and "CRASH" in kat_step.summary and kat_step.log
    measured = Measurement.objects.filter(campaign=campaign, instance__submission__key="kem-ex1")
    assert measured.count() == 3
