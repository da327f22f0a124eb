"""Campaign steps: the unit of work a target box's worker cluster executes.

A campaign is planned as an ordered list of steps (build → kat → calibrate → measure → profile).
Each step is one django-q2 task routed to the system's own cluster; it writes its results and
marks itself done in one transaction, so a step interrupted by a killed worker is simply run
again: nothing it measured was stored, and nothing is stored twice.
"""

from __future__ import annotations

from django.db import models

from measurements.models import Campaign, Instance


class Phase(models.TextChoices):
    BUILD = "build"
    KAT = "kat"
    CALIBRATE = "calibrate"
    MEASURE = "measure"
    PROFILE = "profile"


PHASE_ORDER = {phase: index for index, phase in enumerate(Phase.values)}


class CampaignStep(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        SKIPPED = "skipped"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="steps")
    phase = models.CharField(max_length=16, choices=Phase.choices)
    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="steps")
    operation = models.CharField(max_length=32, blank=True)
    input_bytes = models.PositiveBigIntegerField(default=0)
    seq = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    estimated_s = models.FloatField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=100, blank=True)
    summary = models.CharField(max_length=300, blank=True)
    log = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["campaign_id", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "phase", "instance", "operation", "input_bytes"],
                name="uniq_campaign_step",
            )
        ]

    def __str__(self) -> str:
        target = f" {self.operation}" if self.operation else ""
        return f"{self.phase} {self.instance.label}{target}"
