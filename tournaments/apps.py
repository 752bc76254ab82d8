from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments and ratings"

    def ready(self) -> None:
        """Listen to ``play``: a competition's live table that finishes puts its result
        in (``play`` offers tables and says when they end; it never imports this app)."""
        from play.signals import table_finished
        from tournaments.tasks import table_finished as record_result

        table_finished.connect(record_result, dispatch_uid="tournaments.table_finished")
