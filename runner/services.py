"""Runner services: register a box, add a submission, plan and drive a campaign.

Writes are atomic and keyword-only. The steps themselves (calling the native harness) live in
`runner.steps`; the django-q2 entry point in `runner.tasks`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from measurements.domain import CATEGORIES
from measurements.models import (
    Campaign,
    EvidenceFile,
    Instance,
    Measurement,
    Submission,
    System,
)
from measurements.selectors.campaign_spread import campaign_spread_for
from measurements.services.recording import campaign_spread_refresh
from measurements.services.size_audit import size_audit_recompute
from runner.harness.host import capture_environment, host_problems
from runner.harness.sandbox import namespaces_refused
from runner.models import PHASE_ORDER, CampaignStep, Phase


class RunnerError(ValueError):
    """A request the runner cannot carry out (unknown system, unfixed host, …)."""


# --- Systems ----------------------------------------------------------------------------------


@transaction.atomic
def system_register(
    *,
    key: str,
    cpu: int,
    allow_unfixed_host: bool = False,
    allow_unsandboxed: bool = False,
    sandbox_refused: str | None = None,
    counter: dict[str, Any] | None = None,
    description: str = "",
) -> System:
    """Record this box's environment and host checks under `key`.

    ``sandbox_refused`` is why bubblewrap cannot create its namespaces here (probed when
    None; "" when it can): campaigns then need ``allow_unsandboxed``."""
    if sandbox_refused is None:
        sandbox_refused = namespaces_refused()
    environment = capture_environment(cpu)
    if counter:
        environment["counter"] = counter
    problems = host_problems(environment, counter)
    system, _ = System.objects.get_or_create(key=key)
    system.arch = environment.get("architecture") or system.arch
    system.hostname = environment.get("hostname") or system.hostname
    system.machine = environment.get("machine") or system.machine
    if description:
        system.description = description
    elif not system.description:
        system.description = f"{environment.get('cpu_model') or 'unknown CPU'}, core {cpu}"
    system.environment = environment
    system.host_problems = problems
    system.allow_unfixed_host = allow_unfixed_host
    system.sandbox_refused = sandbox_refused
    system.allow_unsandboxed = allow_unsandboxed
    system.registered_at = timezone.now()
    system.save()
    return system


def _sandbox_problems(system: System) -> list[str]:
    """A campaign on a system without the sandbox is flagged on every page it feeds."""
    if not system.sandbox_refused:
        return []
    return [f"candidate code ran without the sandbox ({system.sandbox_refused})"]


# --- Submissions ------------------------------------------------------------------------------


@transaction.atomic
def submission_add(*, manifest_path: Path) -> tuple[Submission, str]:
    """Register a candidate and its instances from its manifest (idempotent).

    Returns the submission and what happened: "created", "unchanged" or "new revision N". A
    changed manifest bumps the revision; builds already measured keep the revision they had.
    """
    from runner.harness.manifest import load_manifest

    manifest = load_manifest(manifest_path)
    description = {
        "path": str(Path(manifest_path).resolve()),
        "root": str(manifest.root),
        "algorithm": manifest.algorithm,
        "links": list(manifest.links),
        "instances": [i.label for i in manifest.instances],
    }
    submission = Submission.objects.filter(key=manifest.candidate).first()
    if submission is None:
        submission = Submission.objects.create(
            key=manifest.candidate,
            category=manifest.category,
            algorithm=manifest.algorithm,
            manifest_sha256=manifest.sha256,
            manifest=description,
            niccs_url=_link(manifest.links, "niccs"),
            security_report_url=_link(manifest.links, "report"),
        )
        outcome = "created"
    elif submission.manifest_sha256 == manifest.sha256:
        outcome = "unchanged"
    else:
        if submission.manifest_sha256:
            submission.revision += 1
        submission.category = manifest.category
        submission.algorithm = manifest.algorithm or submission.algorithm
        submission.manifest_sha256 = manifest.sha256
        submission.manifest = description
        submission.save()
        outcome = f"new revision {submission.revision}"
    for position, inst in enumerate(manifest.instances):
        Instance.objects.update_or_create(
            submission=submission,
            label=inst.label,
            defaults={"api_instance": inst.name, "position": position, "variant": "reference"},
        )
    return submission, outcome


def _link(links: tuple[str, ...] | list[str], word: str) -> str:
    return next((link for link in links if word in link.lower()), "")


# --- Campaigns --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CampaignSettings:
    planner: str = "adaptive"
    target_precision: float = 0.01
    budget_per_op_s: float = 900.0
    cpu: int | None = None
    counter: str | None = None
    # Small figures for tests and demos; None means the harness defaults.
    guide_overrides: dict[str, Any] | None = None
    adaptive_overrides: dict[str, Any] | None = None
    profile_overrides: dict[str, Any] | None = None
    operations: tuple[str, ...] | None = None
    hash_lengths: tuple[int, ...] | None = None
    instances: tuple[str, ...] | None = None  # labels; None: every instance of the manifests
    #: Inputs of the seeded pool timed after each non-hash operation (0: no pool).
    input_pool: int = 16
    #: Seed of the measure steps' order (None: derived from the campaign key); recorded.
    order_seed: int | None = None

    @classmethod
    def from_stored(cls, stored: dict[str, Any] | None) -> CampaignSettings:
        """The settings a campaign was started with (its JSON `settings`; lists back to tuples,
        keys this class does not know ignored)."""
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in (stored or {}).items() if k in known}
        for name in ("operations", "hash_lengths", "instances"):
            if values.get(name) is not None:
                values[name] = tuple(values[name])
        return cls(**values)


def _measurable_system(system_key: str) -> System:
    """The registered system, refused when it cannot sandbox candidate code or its host is not
    fixed (unless the operator allowed it at registration)."""
    system = System.objects.filter(key=system_key).first()
    if system is None:
        raise RunnerError(f"unknown system {system_key!r}: run system_register on the box first")
    if system.sandbox_refused and not system.allow_unsandboxed:
        raise RunnerError(
            f"system {system_key} cannot sandbox candidate code ({system.sandbox_refused}); "
            "register it with --allow-unsandboxed to measure anyway (pages will say so)"
        )
    if system.host_problems and not system.allow_unfixed_host:
        raise RunnerError(
            f"system {system_key} is not a fixed host ({'; '.join(system.host_problems)}); "
            "register it with --allow-unfixed-host to measure anyway (pages will say so)"
        )
    return system


def _campaign_instances(
    submission_keys: list[str] | None, settings: CampaignSettings, require_each_instance: bool
) -> list[Instance]:
    """The instances of the registered manifests to measure, in submission and manifest order."""
    instances = _chosen_instances(
        submission_keys=submission_keys,
        labels_wanted=settings.instances,
        require_each_instance=require_each_instance,
    )
    if not instances:
        raise RunnerError("nothing to measure: add a submission manifest first")
    return instances


def _timed_points(category: str, settings: CampaignSettings) -> list[tuple[str, int]]:
    """The (operation, message bytes) pairs of a category, narrowed by the settings."""
    points = CATEGORIES[category].operation_points()
    if settings.operations:
        points = [(op, n) for op, n in points if op in settings.operations]
    if settings.hash_lengths:
        points = [(op, n) for op, n in points if op != "hash" or n in settings.hash_lengths]
    return points


def measure_order_seed(campaign_key: str, settings: CampaignSettings) -> int:
    """The seed of a campaign's measure order: the settings' own, else one from its key."""
    if settings.order_seed is not None:
        return settings.order_seed
    return int(hashlib.sha256(campaign_key.encode()).hexdigest()[:8], 16)


def _interleave_measurements(steps: list[CampaignStep], seed: int) -> None:
    """Shuffle the measure steps of different (instance, operation) pairs among themselves, in a
    seeded order, so that a slow drift of the machine spreads over every instance instead of
    landing on the ones measured last (their calibrations all come before, their profiles after).
    """
    slots = [i for i, s in enumerate(steps) if s.phase == Phase.MEASURE]
    measures = [steps[i] for i in slots]
    random.Random(seed).shuffle(measures)
    for i, step in zip(slots, measures, strict=True):
        steps[i] = step


def _campaign_steps(
    campaign: Campaign, instances: list[Instance], settings: CampaignSettings, seed: int
) -> list[CampaignStep]:
    """One build and one KAT step per instance, then calibrate/measure/profile per timed point,
    ordered by phase (measure steps in the seeded interleaved order) and numbered."""
    steps: list[CampaignStep] = []
    for instance in instances:
        for phase in (Phase.BUILD, Phase.KAT):
            steps.append(CampaignStep(campaign=campaign, phase=phase, instance=instance))
        for operation, input_bytes in _timed_points(instance.submission.category, settings):
            for phase in (Phase.CALIBRATE, Phase.MEASURE, Phase.PROFILE):
                steps.append(
                    CampaignStep(
                        campaign=campaign,
                        phase=phase,
                        instance=instance,
                        operation=operation,
                        input_bytes=input_bytes,
                    )
                )
    steps.sort(key=lambda s: PHASE_ORDER[s.phase])
    _interleave_measurements(steps, seed)
    for seq, step in enumerate(steps):
        step.seq = seq
    return steps


#: `campaign_start --quick`: tiny plans for demos and smoke runs (figures are not meaningful).
QUICK_SETTINGS: dict[str, Any] = {
    "guide_overrides": {"trials": 2, "target_trial_s": 0.02, "min_total_calls": 10},
    "adaptive_overrides": {"budget_s": 2.0},
    "profile_overrides": {"target_s": 0.02, "max_operations": 20},
    "hash_lengths": (32, 1024),
    "input_pool": 4,
}


@transaction.atomic
def campaign_start(
    *,
    system_key: str,
    submission_keys: list[str] | None = None,
    settings: CampaignSettings = CampaignSettings(),
    enqueue: bool = True,
    require_each_instance: bool = False,
) -> Campaign:
    """Plan a campaign (one step per build/KAT/calibration/measurement/profile) and enqueue it.

    `settings.instances` filters the submissions' instances; with `require_each_instance`
    (the command line's `--instance`) a label no chosen submission has is an error.
    """
    system = _measurable_system(system_key)
    instances = _campaign_instances(submission_keys, settings, require_each_instance)
    now = timezone.now()
    key = f"{system.key}-{now.strftime('%Y%m%dT%H%M%S%fZ')}"
    problems = list(system.host_problems) + _sandbox_problems(system)
    campaign = Campaign.objects.create(
        system=system,
        key=key,
        source="measured",
        status=Campaign.Status.RUNNING,
        started_utc=now,
        environment_at_start=system.environment,
        environment=system.environment,
        primary_cpu=system.environment.get("cpu_number"),
        host_problems=problems,
        unfixed_host=bool(problems),
        host_checks=[{"phase": "start", "utc": now.isoformat(), "problems": problems}],
        settings=json.loads(json.dumps(dataclasses.asdict(settings))),
        planning={
            "planner": settings.planner,
            "target_precision": settings.target_precision,
            "op_budget_s": settings.budget_per_op_s,
            "measure_order_seed": measure_order_seed(key, settings),
            # The box's campaign-to-campaign spread as its history shows it so far; refreshed with
            # this campaign's own figures when it closes (measurements.services.recording).
            "campaign_spread": campaign_spread_for(system=system).as_dict(),
        },
    )
    seed = campaign.planning["measure_order_seed"]
    CampaignStep.objects.bulk_create(_campaign_steps(campaign, instances, settings, seed))
    if enqueue:
        transaction.on_commit(lambda: campaign_enqueue(campaign=campaign))
    return campaign


def _chosen_instances(
    *,
    submission_keys: list[str] | None,
    labels_wanted: tuple[str, ...] | None,
    require_each_instance: bool,
) -> list[Instance]:
    """The instances a campaign measures: of the chosen submissions, filtered by label."""
    submissions = Submission.objects.exclude(manifest={})
    if submission_keys:
        submissions = submissions.filter(key__in=submission_keys)
        missing = set(submission_keys) - set(submissions.values_list("key", flat=True))
        if missing:
            raise RunnerError(f"no manifest registered for {', '.join(sorted(missing))}")
    labels = _manifest_labels(submissions)
    if labels_wanted:
        unknown = sorted(set(labels_wanted) - set(labels))
        if unknown and require_each_instance:
            raise RunnerError(
                f"no instance labelled {', '.join(unknown)} in the chosen submissions "
                f"(known: {', '.join(labels)})"
            )
        labels = [label for label in labels if label in labels_wanted]
    return list(
        Instance.objects.filter(submission__in=submissions)
        .filter(label__in=labels)
        .select_related("submission")
        .order_by("submission__key", "position")
    )


def _manifest_labels(submissions) -> list[str]:
    labels: list[str] = []
    for submission in submissions:
        labels.extend(submission.manifest.get("instances", []))
    return labels


def campaign_enqueue(*, campaign: Campaign) -> int:
    """Queue a task for every unfinished step on the campaign's system cluster."""
    from django_q.tasks import async_task

    steps = list(
        campaign.steps.filter(status__in=[CampaignStep.Status.PENDING, CampaignStep.Status.RUNNING])
        .order_by("seq")
        .values_list("id", flat=True)
    )
    for step_id in steps:
        async_task(
            "runner.tasks.run_step",
            step_id,
            cluster=campaign.system.key,
            task_name=f"{campaign.key}-step-{step_id}",
            group=campaign.key,
        )
    return len(steps)


@transaction.atomic
def campaign_pause(*, campaign: Campaign) -> Campaign:
    if campaign.status == Campaign.Status.RUNNING:
        campaign.status = Campaign.Status.PAUSED
        campaign.save(update_fields=["status"])
    return campaign


def campaign_resume(*, campaign: Campaign) -> int:
    """Resume a paused (or interrupted) campaign: queue its unfinished steps again."""
    with transaction.atomic():
        campaign.status = Campaign.Status.RUNNING
        campaign.ended_utc = None
        campaign.save(update_fields=["status", "ended_utc"])
        _campaign_close_if_finished(campaign)
    return campaign_enqueue(campaign=campaign)


@transaction.atomic
def campaign_rerun_failed(*, campaign: Campaign) -> int:
    """Discard what the failed steps stored (failed records, no trials), reset them, resume."""
    failed = list(campaign.steps.filter(status=CampaignStep.Status.FAILED))
    for step in failed:
        if step.phase == Phase.MEASURE:
            stale = Measurement.objects.filter(
                campaign=campaign,
                instance=step.instance,
                operation=step.operation,
                input_bytes=step.input_bytes,
                trials__isnull=True,
            ).exclude(status="complete")
            evidence_ids = list(stale.exclude(evidence=None).values_list("evidence", flat=True))
            stale.delete()
            EvidenceFile.objects.filter(pk__in=evidence_ids).delete()
    campaign.steps.filter(pk__in=[s.pk for s in failed]).update(
        status=CampaignStep.Status.PENDING, log="", summary="", claimed_until=None
    )
    return campaign_resume(campaign=campaign)


# --- Step claiming ----------------------------------------------------------------------------


def prerequisites_done(step: CampaignStep) -> bool:
    """Build before KAT before calibration before measurement before profile, per instance."""
    earlier = [p for p, i in PHASE_ORDER.items() if i < PHASE_ORDER[step.phase]]
    pending = step.campaign.steps.filter(instance=step.instance, phase__in=earlier).filter(
        status__in=[CampaignStep.Status.PENDING, CampaignStep.Status.RUNNING]
    )
    if step.operation:
        pending = pending.filter(
            Q(operation="") | Q(operation=step.operation, input_bytes=step.input_bytes)
        )
    return not pending.exists()


@transaction.atomic
def step_claim(*, step_id: int, worker: str, lease_s: float) -> CampaignStep | None:
    """Mark a step running for this worker, unless it is done or leased to a live worker."""
    step = CampaignStep.objects.select_for_update().select_related("campaign").get(pk=step_id)
    now = timezone.now()
    if step.status in (
        CampaignStep.Status.DONE,
        CampaignStep.Status.FAILED,
        CampaignStep.Status.SKIPPED,
    ):
        return None
    if (
        step.status == CampaignStep.Status.RUNNING
        and step.claimed_until
        and step.claimed_until > now
    ):
        return None
    step.status = CampaignStep.Status.RUNNING
    step.attempts += 1
    step.worker = worker
    step.started_at = now
    step.claimed_until = now + timedelta(seconds=lease_s)
    step.save(update_fields=["status", "attempts", "worker", "started_at", "claimed_until"])
    return step


def step_finish(
    *, step: CampaignStep, status: str, summary: str = "", log: str = "", result: dict | None = None
) -> None:
    """Close a step (called inside the transaction that stored its results)."""
    step.status = status
    step.summary = summary[:300]
    step.log = log
    step.result = result or {}
    step.finished_at = timezone.now()
    step.claimed_until = None
    step.save(update_fields=["status", "summary", "log", "result", "finished_at", "claimed_until"])
    _campaign_close_if_finished(step.campaign)


def _campaign_close_if_finished(campaign: Campaign) -> None:
    """Complete a running campaign with no open step (locking it, so only one closer wins)."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    open_steps = campaign.steps.filter(
        status__in=[CampaignStep.Status.PENDING, CampaignStep.Status.RUNNING]
    )
    if not open_steps.exists() and campaign.status == Campaign.Status.RUNNING:
        campaign.status = Campaign.Status.COMPLETE
        campaign.ended_utc = timezone.now()
        campaign.save(update_fields=["status", "ended_utc"])
        # This campaign's figures join the box's history: every interval now allows for the
        # campaign-to-campaign spread observed up to and including it.
        campaign_spread_refresh(campaign=campaign)
        # Measured API sizes are now known: bring the external size audit up to date.
        size_audit_recompute()


def campaigns_recover(*, system_key: str) -> dict[str, int]:
    """At worker start: release steps left 'running' by a dead worker and queue them again.

    Only one worker cluster runs per box, so when it starts nothing of its system can still be
    running; a step interrupted mid-way stored nothing (results and completion share one
    transaction), so running it again cannot duplicate a trial.
    """
    recovered: dict[str, int] = {}
    campaigns = Campaign.objects.filter(
        system__key=system_key, status__in=[Campaign.Status.RUNNING, Campaign.Status.PAUSED]
    )
    for campaign in campaigns:
        campaign.steps.filter(status=CampaignStep.Status.RUNNING).update(
            status=CampaignStep.Status.PENDING, claimed_until=None
        )
        if campaign.status == Campaign.Status.RUNNING:  # a paused one waits for its resume
            recovered[campaign.key] = campaign_enqueue(campaign=campaign)
    return recovered
