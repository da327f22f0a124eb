from django.core.management.base import BaseCommand, CommandError

from measurements.models import Campaign
from runner.services import campaign_pause, campaign_rerun_failed, campaign_resume


class Command(BaseCommand):
    help = "Pause, resume, or re-run the failed steps of a campaign."

    def add_arguments(self, parser) -> None:
        parser.add_argument("action", choices=["pause", "resume", "rerun-failed"])
        parser.add_argument("campaign")

    def handle(self, *args, action: str, campaign: str, **options):
        found = Campaign.objects.filter(key=campaign).first()
        if found is None:
            raise CommandError(f"no such campaign: {campaign}")
        if action == "pause":
            campaign_pause(campaign=found)
            self.stdout.write(f"{found.key} paused")
        elif action == "resume":
            self.stdout.write(
                f"{found.key} resumed: {campaign_resume(campaign=found)} steps queued"
            )
        else:
            n = campaign_rerun_failed(campaign=found)
            self.stdout.write(f"{found.key}: failed steps reset, {n} steps queued")
