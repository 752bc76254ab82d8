"""``manage.py bot_token NAME``: a new API token for the bot account NAME (created if it
does not exist, with no password: it signs in by token only), printed once. The old
token stops working. A bot account plays over the websocket with ``Authorization:
Bearer <token>`` (docs/protocol.md, examples/remote_bot.py), as Lichess bot accounts do.
The operator's tool: the account has no owner, so no competition takes it (only an
owner enters a bot account); bot authors make theirs on the site (/account/bots/)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from play.tables import issue_bot_token


class Command(BaseCommand):
    help = ("Print a new API token for a bot account (created if needed, with no owner: "
            "it enters no competition; bot authors use the site's /account/bots/).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"]
        if not 0 < len(name) <= 150:
            raise CommandError("a bot account's name has 1 to 150 characters")
        users = get_user_model()
        user = users.objects.filter(username=name).first()
        if user is None:
            user = users.objects.create_user(name)
            user.set_unusable_password()
            user.save()
        self.stdout.write(issue_bot_token(user))
