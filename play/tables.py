"""What the lobby does to a table: create, join, leave, start. Each is one
transaction that either changes the table or raises :class:`TableError` with a reason
a player can read. Starting a table starts its game in the event store
(``Games.start``), seats named as the record names them (``user:<name>``,
``bot:<name>``)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from bohnanza_core.bots import BOTS
from bohnanza_core.errors import RulesetError
from bohnanza_core.rulesets import PRESETS, customize, ruleset_for
from play.models import BotAccount, Seat, Table
from replays.store import games

MAX_CLOCK_SECONDS = 24 * 3600
"""The longest per-move or per-game allowance (a day)."""

MAX_OVERRIDES = 30
"""House rules one table may set (there are fewer parameters than this)."""

OPEN = "open"
"""A seat left for people (any other seat choice names a built-in bot)."""


class TableError(Exception):
    """A lobby action that cannot be done; ``str()`` says why."""


def _username(user: AbstractBaseUser | AnonymousUser) -> str:
    return user.get_username()


def create_table(user: AbstractBaseUser, preset: str, players: int, *,
                 seats: Sequence[str], overrides: Mapping[str, Any] | None = None,
                 public: bool = True, move_seconds: int = 0, game_seconds: int = 0
                 ) -> Table:
    """A new table with ``user`` in the first open seat. ``seats``: for each seat,
    :data:`OPEN` or a built-in bot's name. The rules are checked here, so a table that
    exists can always be started."""
    if preset not in PRESETS:
        raise TableError(f"no ruleset {preset[:40]!r}; rulesets: {', '.join(PRESETS)}")
    overrides = dict(overrides or {})
    if len(overrides) > MAX_OVERRIDES:
        raise TableError(f"at most {MAX_OVERRIDES} house rules")
    try:
        if overrides:
            ruleset = customize(preset, players, overrides)
            overrides = {k: v for k, v in overrides.items() if k in ruleset.house_rules}
        else:
            ruleset_for(preset, players)
    except RulesetError as error:
        raise TableError(str(error)) from None
    if len(seats) != players:
        raise TableError(f"give each of the {players} seats: open, or a bot")
    unknown = [s for s in seats if s != OPEN and s not in BOTS]
    if unknown:
        raise TableError(f"no bot {unknown[0][:40]!r}; bots: {', '.join(BOTS)}")
    if OPEN not in seats:
        raise TableError("leave at least one seat open: yours")
    for seconds in (move_seconds, game_seconds):
        if not 0 <= seconds <= MAX_CLOCK_SECONDS:
            raise TableError(f"a clock runs from 0 to {MAX_CLOCK_SECONDS} seconds")
    with transaction.atomic():
        table = Table.objects.create(created_by=user, preset=preset, players=players,
                                     overrides=overrides, public=public,
                                     move_seconds=move_seconds, game_seconds=game_seconds)
        mine = seats.index(OPEN)
        Seat.objects.bulk_create([
            Seat(table=table, number=n, bot="" if choice == OPEN else choice,
                 user=user if n == mine else None)
            for n, choice in enumerate(seats)])
    return table


def join(table: Table, user: AbstractBaseUser, seat: int | None = None) -> Seat:
    """Sit ``user`` at an open seat (the first, or ``seat``)."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.status != Table.Status.OPEN:
            raise TableError("this table has started: watch it instead")
        seats = list(locked.seats.select_for_update())
        if any(s.user_id == user.pk for s in seats):
            raise TableError("you already sit at this table")
        free = [s for s in seats if not s.taken and (seat is None or s.number == seat)]
        if not free:
            raise TableError("no open seat here")
        free[0].user = user  # type: ignore[assignment]
        free[0].save(update_fields=["user"])
        return free[0]


def leave(table: Table, user: AbstractBaseUser) -> None:
    """Stand up from a table that has not started (its creator closes it by leaving)."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.status != Table.Status.OPEN:
            raise TableError("the game has started: you can no longer leave the table")
        if locked.created_by_id == user.pk:
            locked.delete()
            return
        updated = locked.seats.filter(user=user).update(user=None)
        if not updated:
            raise TableError("you do not sit at this table")


def start(table: Table, user: AbstractBaseUser) -> Table:
    """Start the game: every seat must be taken; only the table's creator starts it."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.created_by_id != user.pk:
            raise TableError("only the table's creator starts the game")
        if locked.status != Table.Status.OPEN:
            raise TableError("this table has already started")
        seats = list(locked.seats.select_related("user"))
        if not all(s.taken for s in seats):
            raise TableError("wait until every seat is taken")
        game = games().start(locked.ruleset(), [s.seat_name() for s in seats],
                             players=[s.player() for s in seats], private=not locked.public,
                             actor=f"user:{_username(user)}")
        locked.game_id = game.id
        locked.status = Table.Status.RUNNING
        locked.save(update_fields=["game_id", "status"])
    return locked


def issue_bot_token(user: AbstractBaseUser) -> str:
    """A new API token for ``user`` as a bot account (the old one stops working). Shown
    once: only its hash is kept."""
    token = "bhz_" + secrets.token_urlsafe(30)
    BotAccount.objects.update_or_create(user=user, defaults={"token_hash": token_hash(token)})
    return token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def bot_user_for(token: str) -> AbstractBaseUser | None:
    """The bot account a token belongs to, or None."""
    if not token or len(token) > 200:
        return None
    account = (BotAccount.objects.select_related("user")
               .filter(token_hash=token_hash(token)).first())
    return account.user if account is not None else None
