from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "replays"
    verbose_name = "Replays and audits"

    def ready(self) -> None:
        """Keep the read models up to date after every stored command (embedded default)."""
        from replays.projections import catch_up_after_save
        from replays.store import after_save

        after_save(catch_up_after_save)
