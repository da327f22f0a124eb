"""Web UI routes. Global pages first, then /performance/<system>/… (method before candidates)."""

from django.urls import path

from measurements.views import system

app_name = "measurements"

urlpatterns = [
    path("", system.performance_index, name="index"),
]
