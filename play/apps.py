from typing import Any

from django.apps import AppConfig


class PlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "play"
    verbose_name = "Play"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from play.models import bot_account_names
        from play.notices import finished
        from play.signals import table_finished
        from replays.table import set_bot_accounts_lookup

        user_logged_out.connect(_signed_out, dispatch_uid="play.signed_out")
        # Each account that played a finished table is told (its event stream).
        table_finished.connect(finished, dispatch_uid="play.notices.finished")
        # The replays' pages mark bot accounts as bots; only this app knows them.
        set_bot_accounts_lookup(bot_account_names)


def _signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """An account signed out: its open table sockets look its credentials up again
    at once (``play.authority``), not only at their next command."""
    if user is not None and user.pk is not None:
        from play.live import account_changed

        session = getattr(request, "session", None)
        account_changed(user.pk, getattr(session, "session_key", None))
