from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "replays"
    verbose_name = "Replays and audits"
