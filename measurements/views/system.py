"""Performance index and per-system pages."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from measurements.models import Submission, System


def performance_index(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "measurements/index.html",
        {"systems": System.objects.all(), "submissions": Submission.objects.all()},
    )
