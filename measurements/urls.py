from django.urls import path

from measurements import views

app_name = "measurements"

urlpatterns = [
    path("", views.performance_index, name="index"),
]
