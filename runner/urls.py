from django.urls import path

from runner import views

app_name = "runner"

urlpatterns = [
    path("", views.campaign_list, name="campaign_list"),
    path("<str:key>/", views.campaign_detail, name="campaign_detail"),
]
