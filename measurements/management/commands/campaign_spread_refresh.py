from django.core.management.base import BaseCommand, CommandError

from measurements.formatting import format_campaign_spread
from measurements.models import Campaign, System
from measurements.services.recording import campaign_spread_refresh


class Command(BaseCommand):
    help = (
        "Learn each system's campaign-to-campaign spread again from its measured campaigns, "
        "oldest first, and bring their figures' intervals up to date (after an upgrade that "
        "added the spread, or a change of NGCC_CAMPAIGN_SPREAD_PRIOR)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--system", help="only this system, e.g. arm_1")

    def handle(self, *args, system: str | None, **options) -> None:
        campaigns = Campaign.objects.filter(source="measured").select_related("system")
        if system is not None:
            if not System.objects.filter(key=system).exists():
                raise CommandError(f"unknown system {system!r}")
            campaigns = campaigns.filter(system__key=system)
        chosen = list(campaigns.order_by("system__key", "started_utc", "pk"))
        for done, campaign in enumerate(chosen, start=1):
            spread = campaign_spread_refresh(campaign=campaign)
            self.stdout.write(
                f"[{done}/{len(chosen)}] {campaign.key}: {format_campaign_spread(spread.as_dict())}"
            )
        self.stdout.write(f"refreshed {len(chosen)} measured campaigns")
