"""Campaign progress pages (thin: selectors fetch, templates render)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from measurements.models import Campaign
from runner.models import CampaignStep
from runner.selectors import campaign_progress


def campaign_list(request: HttpRequest) -> HttpResponse:
    campaigns = Campaign.objects.filter(source="measured").select_related("system")
    return render(request, "runner/campaign_list.html", {"campaigns": campaigns})


def campaign_detail(request: HttpRequest, key: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("system"), key=key)
    progress = campaign_progress(campaign)
    steps = campaign.steps.select_related("instance__submission").order_by("seq")
    failures = [s for s in steps if s.status == CampaignStep.Status.FAILED]
    percent = int(100 * (progress.done + progress.failed) / progress.total) if progress.total else 0
    return render(
        request,
        "runner/campaign_detail.html",
        {
            "campaign": campaign,
            "progress": progress,
            "percent": percent,
            "steps": steps,
            "failures": failures,
            "refresh": campaign.status == Campaign.Status.RUNNING,
        },
    )
