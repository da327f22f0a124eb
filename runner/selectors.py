"""Runner reads: campaign progress for the CLI and the campaign page."""

from __future__ import annotations

import dataclasses

from django.db.models import QuerySet
from django.utils import timezone

from measurements.models import Campaign, Trial
from measurements.provenance import provenance
from runner.models import CampaignStep, Phase


@dataclasses.dataclass
class CampaignProgress:
    total: int
    done: int
    failed: int
    running: int
    by_phase: dict[str, dict[str, int]]
    instances_done: int
    instances_total: int
    eta_s: float | None
    elapsed_s: float


def campaign_progress(campaign: Campaign) -> CampaignProgress:
    rows = list(
        campaign.steps.values("phase", "status", "instance_id", "started_at", "finished_at")
    )
    by_phase: dict[str, dict[str, int]] = {p: {} for p in Phase.values}
    for row in rows:
        by_phase[row["phase"]][row["status"]] = by_phase[row["phase"]].get(row["status"], 0) + 1
    finished = [r for r in rows if r["status"] in ("done", "failed", "skipped")]
    durations = [
        (r["finished_at"] - r["started_at"]).total_seconds()
        for r in finished
        if r["finished_at"] and r["started_at"]
    ]
    remaining = len(rows) - len(finished)
    eta = (sum(durations) / len(durations)) * remaining if durations else None
    open_by_instance: dict[int, bool] = {}
    for row in rows:
        is_open = row["status"] in ("pending", "running")
        open_by_instance[row["instance_id"]] = (
            open_by_instance.get(row["instance_id"], False) or is_open
        )
    end = campaign.ended_utc or timezone.now()
    return CampaignProgress(
        total=len(rows),
        done=sum(1 for r in rows if r["status"] == "done"),
        failed=sum(1 for r in rows if r["status"] == "failed"),
        running=sum(1 for r in rows if r["status"] == "running"),
        by_phase=by_phase,
        instances_done=sum(1 for v in open_by_instance.values() if not v),
        instances_total=len(open_by_instance),
        eta_s=eta,
        elapsed_s=(end - campaign.started_utc).total_seconds() if campaign.started_utc else 0.0,
    )


def measured_campaigns() -> QuerySet[Campaign]:
    return Campaign.objects.filter(source="measured").select_related("system")


def listed_campaigns() -> QuerySet[Campaign]:
    """Every campaign, measured here, imported from harness data or read from published pages."""
    return Campaign.objects.select_related("system").order_by("system__key", "-started_utc")


@dataclasses.dataclass
class CampaignContents:
    """What a campaign without steps (imported or published) holds."""

    builds: int
    measurements: int
    trials: int
    provenance: str


def campaign_contents(campaign: Campaign) -> CampaignContents:
    return CampaignContents(
        builds=campaign.builds.count(),
        measurements=campaign.measurements.count(),
        trials=Trial.objects.filter(measurement__campaign=campaign).count(),
        provenance=provenance(campaign),
    )


def campaign_steps(campaign: Campaign) -> QuerySet[CampaignStep]:
    return campaign.steps.select_related("instance__submission").order_by("seq")
