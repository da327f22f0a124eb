"""Runner reads: campaign progress for the CLI and the campaign page."""

from __future__ import annotations

import dataclasses

from django.db.models import QuerySet
from django.utils import timezone

from measurements.formatting import format_precision
from measurements.models import Campaign, Measurement, Trial
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


@dataclasses.dataclass
class PrecisionTargets:
    """How many complete measurements of a campaign met their precision target, and the misses."""

    met: int
    missed: int
    missed_by_reason: dict[str, int]
    misses: list[str]  # "kem-ex1/rlwe-lpr-256-toy dec: ±14 %, target 1 % not reached: budget"

    @property
    def line(self) -> str:
        """`2 met, 1 missed (budget 1)`, as the CLI and the campaign page print it."""
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(self.missed_by_reason.items()))
        return f"{self.met} met, {self.missed} missed" + (f" ({reasons})" if reasons else "")


def campaign_precision_targets(campaign: Campaign) -> PrecisionTargets:
    rows = (
        Measurement.objects.filter(campaign=campaign, status="complete")
        .exclude(precision_target=None)
        .select_related("instance__submission")
        .order_by("instance__submission__key", "instance__position", "operation", "input_bytes")
    )
    met, by_reason, misses = 0, {}, []
    for m in rows:
        if not m.target_missed_reason:
            met += 1
            continue
        by_reason[m.target_missed_reason] = by_reason.get(m.target_missed_reason, 0) + 1
        size = f" {m.input_bytes} B" if m.input_bytes else ""
        misses.append(
            f"{m.instance.submission.key}/{m.instance.label} {m.operation}{size}: "
            + format_precision(m.precision_reached, m.precision_target, m.target_missed_reason)
        )
    return PrecisionTargets(met, len(misses), by_reason, misses)


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
