from typing import Any

from django.apps import AppConfig


class PlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "play"
    verbose_name = "Play"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_save

        from play.lobby import live_table_url
        from play.models import bot_account_names
        from play.notices import finished
        from play.signals import table_finished
        from replays.table import set_bot_accounts_lookup, set_live_table_lookup

        user_logged_out.connect(_signed_out, dispatch_uid="play.signed_out")
        post_save.connect(_account_saved, sender=get_user_model(),
                          dispatch_uid="play.account_saved")
        # Each account that played a finished table is told (its event stream).
        table_finished.connect(finished, dispatch_uid="play.notices.finished")
        # The replays' pages mark bot accounts as bots; only this app knows them.
        set_bot_accounts_lookup(bot_account_names)
        # A running game's replay links to its live table; only this app knows tables.
        set_live_table_lookup(live_table_url)


def _signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """An account signed out: its open table sockets look its credentials up again
    at once (``play.authority``), not only at their next command."""
    if user is not None and user.pk is not None:
        from play.live import account_changed

        session = getattr(request, "session", None)
        account_changed(user.pk, getattr(session, "session_key", None))


CREDENTIAL_FIELDS = frozenset({"password", "is_active", "username"})
"""An account's fields its sessions stand on: a session stands for its account while the
password it signed in with (its hash in the session) is the account's, and the account
is active."""


def _account_saved(sender: Any, instance: Any, created: bool,
                   update_fields: frozenset[str] | None = None, **kwargs: Any) -> None:
    """An account was saved, its password or standing maybe changed (a password change
    ends its other sessions; an arbiter deactivates it): its open table sockets look
    their credentials up again at once, not only at their next command. A save of other
    fields only (the sign-in's ``last_login``) changes nothing they stand on."""
    if created or (update_fields is not None and not CREDENTIAL_FIELDS & update_fields):
        return
    from play.live import account_changed

    account_changed(instance.pk)
