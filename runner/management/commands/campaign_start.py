from django.core.management.base import BaseCommand, CommandError

from measurements.models import Campaign
from runner.services import QUICK_SETTINGS, CampaignSettings, RunnerError, campaign_start


def _percent(text: str) -> float:
    value = float(text.rstrip("%"))
    return value / 100 if text.endswith("%") or value >= 1 else value


def _seconds(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600}
    if text[-1] in units:
        return float(text[:-1]) * units[text[-1]]
    return float(text)


class Command(BaseCommand):
    help = "Plan a campaign on a system and queue its steps for that system's worker cluster."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--system", required=True)
        parser.add_argument("--submission", action="append", dest="submissions")
        parser.add_argument(
            "--instance",
            action="append",
            dest="instances",
            metavar="LABEL",
            help="only this instance (repeatable; default: every instance of the submissions)",
        )
        parser.add_argument("--planner", choices=["adaptive", "guide"], default="adaptive")
        parser.add_argument("--target-precision", type=_percent, default=0.01)
        parser.add_argument("--budget-per-op", type=_seconds, default=900.0)
        parser.add_argument("--cpu", type=int, default=None)
        parser.add_argument("--counter", default=None, help="auto|perf|tsc|cntvct_el0|monotonic")
        parser.add_argument(
            "--quick", action="store_true", help="tiny plans (demo and smoke tests, not figures)"
        )
        parser.add_argument(
            "--unless-complete",
            action="store_true",
            help="do nothing if a complete measured campaign exists on the system",
        )

    def handle(self, *args, **o):
        if (
            o["unless_complete"]
            and Campaign.objects.filter(
                system__key=o["system"], source="measured", status=Campaign.Status.COMPLETE
            ).exists()
        ):
            self.stdout.write(f"a complete campaign exists on {o['system']}: nothing started")
            return
        settings = CampaignSettings(
            planner=o["planner"],
            target_precision=o["target_precision"],
            budget_per_op_s=o["budget_per_op"],
            cpu=o["cpu"],
            counter=o["counter"],
            instances=tuple(o["instances"]) if o["instances"] else None,
            **(QUICK_SETTINGS if o["quick"] else {}),
        )
        try:
            campaign = campaign_start(
                system_key=o["system"],
                submission_keys=o["submissions"],
                settings=settings,
                require_each_instance=True,
            )
        except RunnerError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"campaign {campaign.key}: {campaign.steps.count()} steps queued for cluster "
            f"{campaign.system.key} (run `NGCC_CLUSTER={campaign.system.key} python manage.py "
            "box_worker` on that box)"
        )
