"""An account's event stream: ``GET /api/v1/stream/event``, NDJSON over HTTP.

NDJSON, as Lichess streams a bot's events, rather than a websocket: a bot reads it
with any HTTP client line by line (``curl -N`` in a shell), it needs no frames of its
own to send, and a proxy passes it as any long answer. The tables themselves are
websockets because a seat sends commands; this stream only tells.

What it carries (one JSON object a line, ``play.notices``): first what is already
waiting (each open challenge to the account, ``challenge``; each running game it
plays, ``gameStart``), then each notice as it happens: ``challenge``,
``challengeDeclined``, ``challengeCancelled``, ``seated``, ``gameStart``,
``gameFinish``. An empty line every :data:`KEEPALIVE_SECONDS` keeps the connection
(and tells the client it is alive).

Bounded: one stream per credential (a token, or a browser session) at a time, across
every server process sharing the channel layer: opening a second ends the first with
a last line ``{"type": "replaced"}``. A stream lives as long as its client keeps it,
and its token or session stands for its account, looked up before every line: a token
rotated or revoked, a sign-out, a password changed or a session expired ends it (at
once where the account's group is told, as its table sockets are; else by the next
line or keepalive), and opening one again is refused (401).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db.models import Q
from django.http import HttpRequest, StreamingHttpResponse
from django.utils.translation import gettext as _

from botapi.auth import Caller, require
from botapi.errors import ApiError
from play import authority, live, notices
from play.models import Table

KEEPALIVE_SECONDS = 7.0
"""Seconds between keepalive lines (``BOHNANZA_STREAM_KEEPALIVE`` in settings)."""

REPLACED = "replaced"

DESCRIPTION = __doc__.split("\n\n", 1)[1] if __doc__ else ""

LINE_SCHEMA: dict[str, Any] = {
    "title": "StreamLine",
    "type": "object",
    "description": "One line of the stream: a notice (docs/bots.md lists each type's "
                   "fields), or the last line of a stream another replaced. An empty "
                   "line is a keepalive.",
    "properties": {
        "type": {"type": "string", "enum": [*notices.KINDS, REPLACED]},
        "table": {"type": "object", "description": "the table's lobby line (every "
                                                   "notice; not replaced)"},
        "socket": {"type": "string", "description": "the table's websocket path "
                                                    "(every notice; not replaced)"},
        "seat": {"type": "integer", "description": "the account's seat (challenge, "
                                                   "seated, gameStart, gameFinish)"},
        "by": {"type": "string", "description": "who challenged, declined or withdrew "
                                                "(challenge, challengeDeclined, "
                                                "challengeCancelled)"},
        "game": {"type": "string", "description": "the game's id (gameStart, "
                                                  "gameFinish)"},
    },
    "required": ["type"],
}
"""What each line of the stream holds, as JSON Schema (the OpenAPI document's answer)."""

OPENAPI_ANSWER: dict[str, Any] = {
    "description": "NDJSON: one JSON object a line (the schema: one line), an empty line "
                   "every few seconds to keep the connection; it lasts as long as the "
                   "client keeps it.",
    "content": {"application/x-ndjson": {"schema": LINE_SCHEMA}},
}
"""The stream's 200 in the OpenAPI document."""


def keepalive_seconds() -> float:
    return float(getattr(settings, "BOHNANZA_STREAM_KEEPALIVE", KEEPALIVE_SECONDS))


def stream_group(credential: str) -> str:
    """The group of the one stream a credential may hold."""
    return "stream-" + "".join(c if c.isalnum() else "-" for c in credential)[:80]


def waiting(user: Any) -> list[dict[str, Any]]:
    """What the account's stream starts with: open challenges to it, games it plays."""
    found: list[dict[str, Any]] = []
    challenges = (Table.objects.filter(status=Table.Status.OPEN, seats__invited=user,
                                       seats__user__isnull=True)
                  .distinct().prefetch_related("seats__user")[:50])
    for table in challenges:
        kept = next(s for s in table.seats.all() if s.invited_id == user.pk)
        found.append(notices.notice(notices.CHALLENGE, table, seat=kept.number,
                                    by=table.created_by.get_username()))
    running = (Table.objects.filter(Q(seats__user=user), status=Table.Status.RUNNING)
               .distinct().prefetch_related("seats__user")[:50])
    for table in running:
        seat = authority.seat_of(list(table.seats.all()), user)
        if seat is not None:
            found.append(notices.notice(notices.GAME_START, table, seat=seat,
                                        game=str(table.game_id)))
    return found


def _line(event: dict[str, Any]) -> bytes:
    return (live.json_text(event) + "\n").encode()


async def lines(layer: Any, channel: str, caller: Caller, group: str,
                first: list[dict[str, Any]], account: str) -> AsyncIterator[bytes]:
    """The stream's lines, until its client goes or another stream replaces it (the
    channel already in its groups: :func:`event_stream`), or its token or session stops
    standing for its account (looked up before every line; ``account``: the account's
    group, told when its credentials change, so a sign-out ends it at once)."""
    own = stream_group(caller.credential)
    player = authority.player_name(caller.user)
    # A token stands while it may read (the stream's scope), not play.
    credential = dataclasses.replace(caller.account, scope="read")
    still = database_sync_to_async(authority.stands, thread_sensitive=False)
    try:
        for event in first:
            yield _line(event)
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel),
                                                 keepalive_seconds())
            except TimeoutError:
                if not await still(credential, player):
                    return
                yield b"\n"
                # Renewed now and then: a channel layer's groups expire (a day).
                await layer.group_add(own, channel)
                await layer.group_add(group, channel)
                await layer.group_add(account, channel)
                continue
            if message.get("type") == "stream.replaced":
                if message.get("by") != channel:
                    yield _line({"type": REPLACED})
                    return
            elif message.get("type") == "account.changed":
                if live.session_ended(message, credential.session_key) or (
                        not await still(credential, player)):
                    return  # a client opening it again is told (401)
            elif message.get("type") == "account.event":
                if not await still(credential, player):
                    return
                yield _line(message["event"])
    finally:
        await layer.group_discard(own, channel)
        await layer.group_discard(group, channel)
        await layer.group_discard(account, channel)


def event_stream(request: HttpRequest) -> StreamingHttpResponse:
    caller: Caller = require(request, "read")
    layer = get_channel_layer()
    if layer is None:
        raise ApiError("not_running", _("This server has no channel layer: no streams."))
    # In the account's group before what is waiting is read: a notice sent in between
    # is received, not lost (told twice at worst: a challenge both waiting and new).
    channel = async_to_sync(layer.new_channel)("stream.")
    own, group = stream_group(caller.credential), notices.events_group(caller.user.pk)
    async_to_sync(layer.group_send)(own, {"type": "stream.replaced", "by": channel})
    async_to_sync(layer.group_add)(own, channel)
    async_to_sync(layer.group_add)(group, channel)
    account = live.account_group(caller.user.pk)
    async_to_sync(layer.group_add)(account, channel)
    response = StreamingHttpResponse(
        lines(layer, channel, caller, group, waiting(caller.user), account),
        content_type="application/x-ndjson")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front passes each line at once
    return response
