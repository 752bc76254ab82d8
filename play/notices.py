"""What an account is told of its own tables, so a bot needs no polling: a challenge
received or declined, a seat taken, a game started or ended. Each notice goes, once
the change is stored, to the account's group in the channel layer (every server
process's with a shared one); its event stream (``botapi.stream``) is in that group.

A notice says what happened and where to look (the table's lobby line, the game's id,
the socket to open), never what a seat holds: hidden information is only ever sent by
the table's socket, to the seat that may see it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable
from typing import Any, Final
from uuid import UUID

from django.db import transaction

from play import live
from play.models import Table, describe

CHALLENGE = "challenge"
CHALLENGE_DECLINED = "challengeDeclined"
CHALLENGE_CANCELLED = "challengeCancelled"
SEATED = "seated"
GAME_START = "gameStart"
GAME_FINISH = "gameFinish"
KINDS = (CHALLENGE, CHALLENGE_DECLINED, CHALLENGE_CANCELLED, SEATED, GAME_START,
         GAME_FINISH)
"""Every notice's ``type`` (docs/bots.md lists them with their fields)."""


def events_group(user_id: int) -> str:
    """The channel-layer group of one account's event streams."""
    return f"events-{user_id}"


def socket_path(table_id: UUID | str) -> str:
    return f"/ws/tables/{table_id}/"


def notice(kind: str, table: Table, **fields: Any) -> dict[str, Any]:
    """A notice of ``kind`` about ``table``: its lobby line and its socket's path."""
    return {"type": kind, "table": describe(table), "socket": socket_path(table.id),
            **fields}


def tell(user_ids: Iterable[int | None], event: dict[str, Any]) -> None:
    """Send ``event`` to each account's streams once the transaction commits (at once
    outside one)."""
    for user_id in {u for u in user_ids if u is not None}:
        transaction.on_commit(functools.partial(
            live.tell, events_group(user_id), {"type": "account.event", "event": event}))


TOLD_KEPT_SECONDS: Final = 600.0
"""How long this process remembers the games it told of: longer than the sweep looks
back (``play.driver.SWEEP_WINDOW``), so its sweep never tells them again."""

_told: dict[UUID, float] = {}
"""The tables whose start this process told of, with when (``time.monotonic``)."""


def started(table: Table) -> None:
    """A game started at ``table``: each seat's account is told its seat."""
    now = time.monotonic()
    while _told:  # oldest first (insertion order)
        oldest, when = next(iter(_told.items()))
        if now - when <= TOLD_KEPT_SECONDS:
            break
        _told.pop(oldest, None)
    _told[table.pk] = now
    for seat in table.seats.all():
        if seat.person:
            tell([seat.user_id], notice(GAME_START, table, seat=seat.number,
                                        game=str(table.game_id)))


def started_elsewhere(table_ids: Iterable[UUID]) -> None:
    """Tables another process started (a competition's, opened by a worker) found by
    this one's sweep (``play.driver.sweep``): their accounts' streams in this process
    are told too, since an in-process channel layer carries nothing between processes;
    not the ones this process told of itself. With a shared layer (Redis) an account
    may still be told of another process's game twice: clients key notices by table."""
    others = [t for t in table_ids if t not in _told]
    if not others:
        return
    for table in Table.objects.filter(pk__in=others).prefetch_related("seats__user"):
        started(table)


def finished(table_id: UUID, game_id: UUID, **_kwargs: Any) -> None:
    """``play.signals.table_finished``'s receiver: each account that played a seat (its
    seat handed to a bot included) is told the game ended."""
    table = Table.objects.filter(pk=table_id).prefetch_related("seats__user").first()
    if table is None:
        return
    for seat in table.seats.all():
        if seat.user_id is not None:
            tell([seat.user_id], notice(GAME_FINISH, table, seat=seat.number,
                                        game=str(game_id)))
