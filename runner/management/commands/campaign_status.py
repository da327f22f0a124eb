import time

from django.core.management.base import BaseCommand, CommandError

from measurements.formatting import format_seconds
from measurements.models import Campaign
from measurements.progress import ProgressBar
from runner.models import CampaignStep
from runner.selectors import campaign_precision_targets, campaign_progress


class Command(BaseCommand):
    help = "Show a campaign's progress (phases, failures, ETA); --watch follows it to the end."

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", nargs="?", help="campaign key (default: the latest)")
        parser.add_argument("--watch", action="store_true")
        parser.add_argument("--interval", type=float, default=2.0)

    def handle(self, *args, campaign=None, watch=False, interval=2.0, **options):
        qs = Campaign.objects.filter(source="measured").order_by("-started_utc")
        found = qs.filter(key=campaign).first() if campaign else qs.first()
        if found is None:
            raise CommandError(f"no such campaign: {campaign or '(none measured yet)'}")
        bar = ProgressBar(found.key, self.stderr._out)
        while True:
            found.refresh_from_db()
            progress = campaign_progress(found)
            # One ETA, computed once by the selector, on the bar and in the summary alike.
            bar.show(
                progress.done + progress.failed,
                progress.total,
                f"{found.status}",
                eta_s=progress.eta_s,
            )
            if not watch or found.status not in (Campaign.Status.RUNNING,):
                break
            time.sleep(interval)
        self.stdout.write(f"campaign {found.key} on {found.system.key}: {found.status}")
        for phase, counts in progress.by_phase.items():
            parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
            self.stdout.write(f"  {phase:10s} {parts or '-'}")
        eta = format_seconds(progress.eta_s) if progress.eta_s is not None else "unknown"
        self.stdout.write(
            f"  instances done {progress.instances_done}/{progress.instances_total}, "
            f"elapsed {format_seconds(progress.elapsed_s)}, ETA {eta}"
        )
        targets = campaign_precision_targets(found)
        self.stdout.write(f"  precision targets: {targets.line}")
        for miss in targets.misses:
            self.stdout.write(self.style.WARNING(f"    {miss}"))
        for step in found.steps.filter(status=CampaignStep.Status.FAILED).select_related(
            "instance"
        ):
            self.stdout.write(self.style.WARNING(f"  FAILED {step}: {step.summary}"))
