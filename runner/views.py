"""Campaign progress pages (thin: selectors fetch, templates render)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from measurements.models import Campaign
from runner.models import CampaignStep
from runner.selectors import (
    campaign_contents,
    campaign_precision_targets,
    campaign_progress,
    campaign_steps,
    listed_campaigns,
)


@require_safe
def campaign_list(request: HttpRequest) -> HttpResponse:
    return render(request, "runner/campaign_list.html", {"campaigns": listed_campaigns()})


@require_safe
def campaign_detail(request: HttpRequest, key: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("system"), key=key)
    progress = campaign_progress(campaign)
    steps = campaign_steps(campaign)
    failures = [s for s in steps if s.status == CampaignStep.Status.FAILED]
    percent = int(100 * (progress.done + progress.failed) / progress.total) if progress.total else 0
    return render(
        request,
        "runner/campaign_detail.html",
        {
            "campaign": campaign,
            "progress": progress,
            "targets": campaign_precision_targets(campaign),
            "percent": percent,
            "steps": steps,
            "failures": failures,
            "refresh": campaign.status == Campaign.Status.RUNNING,
            # Imported and published campaigns have no steps: say what they hold instead.
            "contents": None if progress.total else campaign_contents(campaign),
        },
    )
