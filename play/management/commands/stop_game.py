"""``manage.py stop_game ID --arbiter NAME [--ranks 1,2,2,4]``: an arbiter's ruling that
ends a running table's game now (the event ``GameStopped``, reason ``ruling``, actor
``arbiter:<NAME>``; docs/events.md). ``ID`` is the table's id or its game's. Without
``--ranks`` the places are the coins banked as the game stands; with it, the places the
arbiter rules (one per seat, seat 0 first). The arbiter is an active staff account, as
for disputes (replays.disputes), and may not have played at the table. Every connection
to the table is told; a competition the game belongs to records the result."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from bohnanza_core.events import StopReason
from play.models import Seat, Table
from play.tables import TableError, stop_game

MAX_SEATS = 10
"""More places than any table has seats: a longer list is refused before it is read."""


def parse_ranks(text: str) -> tuple[int, ...]:
    """``1,2,2,4`` as places, bounded before it is split."""
    if len(text) > 4 * MAX_SEATS:
        raise CommandError("--ranks: one place per seat, e.g. 1,2,2,4")
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise CommandError("--ranks: whole numbers separated by commas, e.g. 1,2,2,4") \
            from None


class Command(BaseCommand):
    help = "An arbiter's ruling: stop a running table's game now (GameStopped)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("id", help="the table's id or its game's")
        parser.add_argument("--arbiter", required=True,
                            help="the ruling arbiter's username (an active staff account)")
        parser.add_argument("--ranks", default=None,
                            help="the places ruled, one per seat from seat 0 (e.g. 1,2,2,4); "
                                 "default: the coins banked decide")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            key = UUID(options["id"][:40])
        except ValueError:
            raise CommandError(f"{options['id'][:40]!r} is not a table's or game's id") \
                from None
        table = Table.objects.filter(Q(pk=key) | Q(game_id=key)).first()
        if table is None or table.game_id is None:
            raise CommandError(f"no table has played or plays {key}")
        name = options["arbiter"][:150]
        arbiter = get_user_model().objects.filter(username=name, is_active=True,
                                                  is_staff=True).first()
        if arbiter is None:
            raise CommandError(f"{name!r} is not an active staff account: only an arbiter "
                               "rules")
        if Seat.objects.filter(table=table, user=arbiter).exists():
            raise CommandError("no one rules on a game they played in")
        ranks = parse_ranks(options["ranks"]) if options["ranks"] else None
        try:
            played = stop_game(table.pk, StopReason.RULING, f"arbiter:{name}", ranks=ranks)
        except TableError as refused:
            raise CommandError(str(refused)) from None
        result = played.game.state.result
        assert result is not None
        self.stdout.write(f"stopped game {table.game_id}: places "
                          f"{', '.join(map(str, result.ranks))}, coins "
                          f"{', '.join(map(str, result.coins))}")
