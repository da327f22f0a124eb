"""Root URLs."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("measurements.api.urls")),
    path("campaigns/", include("runner.urls")),
    path("", include("measurements.urls")),
]
