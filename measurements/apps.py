from django.apps import AppConfig


class MeasurementsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "measurements"
    verbose_name = "NGCC measurements"

    def ready(self) -> None:
        from measurements import signals

        signals.connect_data_version_signals()
