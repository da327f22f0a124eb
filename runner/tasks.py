"""django-q2 task entry points (executed by the qcluster of the step's system)."""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable

from django.conf import settings
from django.db import transaction

from measurements.models import Campaign
from runner.models import CampaignStep
from runner.services import prerequisites_done, step_claim, step_finish


def worker_name() -> str:
    return f"{settings.NGCC_CLUSTER}:{os.getpid()}"


def run_step(step_id: int) -> str:
    """Run one campaign step; safe to deliver twice (a done step is skipped)."""
    step = CampaignStep.objects.select_related("campaign", "instance__submission").get(pk=step_id)
    if step.campaign.status != Campaign.Status.RUNNING:
        return f"campaign {step.campaign.status}: step {step_id} left pending"
    if not prerequisites_done(step):
        # An earlier step of this instance was interrupted and is re-delivered later:
        # queue this one again behind it rather than run out of order.
        from django_q.tasks import async_task

        async_task("runner.tasks.run_step", step_id, cluster=step.campaign.system.key)
        return f"step {step_id} re-queued behind its prerequisites"
    lease = float(settings.Q_CLUSTER.get("timeout", 3600))
    claimed = step_claim(step_id=step_id, worker=worker_name(), lease_s=lease)
    if claimed is None:
        return f"step {step_id} already done or running"
    from runner.harness.sandbox import UNSANDBOXED_ENV
    from runner.steps import EXECUTORS, StepFailed

    # Unconfined runs only where the operator registered the system --allow-unsandboxed.
    os.environ[UNSANDBOXED_ENV] = "1" if claimed.campaign.system.allow_unsandboxed else "0"
    try:
        outcome = EXECUTORS[claimed.phase](claimed)
    except StepFailed as exc:
        return _close(claimed, CampaignStep.Status.FAILED, summary=exc.summary, log=exc.log)
    except Exception as exc:  # harness or environment error: record it, keep the worker alive
        summary = f"{type(exc).__name__}: {exc}"
        return _close(
            claimed, CampaignStep.Status.FAILED, summary=summary, log=traceback.format_exc()
        )
    status = CampaignStep.Status.FAILED if outcome.failed else CampaignStep.Status.DONE
    return _close(
        claimed,
        status,
        summary=outcome.summary,
        log=outcome.log,
        result=outcome.result,
        store=outcome.store,
    )


def _close(
    claimed: CampaignStep,
    status: str,
    *,
    summary: str,
    log: str = "",
    result: dict | None = None,
    store: Callable[[], None] | None = None,
) -> str:
    """Store the step's results and close it in one transaction, if it is still ours.

    A step this worker claimed may meanwhile have been released (worker recovery) and run by
    another worker; then this run's results are dropped rather than stored twice.
    """
    with transaction.atomic():
        still_ours = (
            CampaignStep.objects.select_for_update()
            .filter(
                pk=claimed.pk,
                status=CampaignStep.Status.RUNNING,
                worker=claimed.worker,
                attempts=claimed.attempts,
            )
            .exists()
        )
        if not still_ours:
            return f"{claimed}: released while running; results of this run dropped"
        if store is not None:
            store()
        step_finish(step=claimed, status=status, summary=summary, log=log, result=result)
    return f"{claimed}: {status}: {summary}"


def whoami(tag: str) -> str:
    """A trivial task used to check routing: returns the cluster that ran it."""
    return f"{tag}@{settings.NGCC_CLUSTER}"
