"""The websocket consumers: one table (a seat or a spectator), and the lobby.

A table's socket is ``/ws/tables/<id>/``. Who connects decides what they see: a
person signed in who sits at the table plays their seat; anyone else who may watch it
is a spectator. Each joins one group (their seat's, or the spectators') and is sent
only what that group is sent: updates built per perspective in ``play.live``. Frames
are read within bounds (``bohnanza_core.jsonlimits``) before anything is looked at.
The protocol is docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone, translation
from django.utils.translation import trans_real

from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import Handover
from bohnanza_core.jsonlimits import JSONLimitError, loads_line
from bohnanza_core.views import SPECTATOR
from bohnanza_core.wire import CommandFormatError, command_from_json
from play import authority, clock, driver, live, presence, refusals, send_order
from play.authority import Credential, NotYourSeat
from play.channels_internals import dispatch_without_hop
from play.lobby import lobby_snapshot
from play.models import Table
from play.tables import TableError, hand_to_bot, seats_digest

logger = logging.getLogger(__name__)

MAX_FRAME_CHARS = 8 * 1024
"""The longest frame a client may send (a command is a few hundred characters)."""

REFUSED_BURST = 10
"""How many commands refused by the rules a connection may send in a row:
each one reads the game from the store again before it is refused."""

REFUSED_PER_SECOND = 1.0
"""How fast that allowance comes back."""

SYNC_BURST = 5
"""How many ``sync`` frames (the whole view asked for again) a connection may send in a
row: each reads the game from the store and draws the table. A client needs one after
a gap or a silence (static/js/live.js), not a stream of them. The whole view sent after
a ``stale`` or ``busy`` refusal spends the same allowance."""

SYNC_PER_SECOND = 0.5
"""How fast that allowance comes back."""

CONNECT_BURST = 20
"""How many times one client (an account, or an address for people not signed in) may
open a table's socket in a row in one server process: each connection reads the table
and the game from the store and draws the table. A browser that lost its connection
opens it again with a growing wait (static/js/live.js)."""

CONNECT_PER_SECOND = 1.0
"""How fast that allowance comes back."""

CONNECT_CLIENTS = 10_000
"""How many clients' connection allowances a process keeps (the least recently seen
are forgotten first): the bound on what the limit itself holds."""

LOBBY_BURST = 10
"""How many frames a lobby socket may send in a row (``sync``, ``ping``): nothing a
browser's lobby needs (it only listens), and a bound on what a client costs."""

LOBBY_PER_SECOND = 1.0
"""How fast that allowance comes back."""

LOBBY_REFUSED_BEFORE_CLOSING = 20
"""Frames refused in a row past the allowance before the lobby socket is closed."""

MAX_PENDING_REFS = 64
"""The most refs of a connection's stored commands kept until a ``state`` frame
reflects them (a client sends one command at a time; this bounds one that does not)."""

COMMAND_FRAME_FIELDS = frozenset({"type", "ref", "version", "command"})
"""The fields of a ``command`` frame (docs/schema/client-frame.json): any other is
refused (``bad_frame``), never skipped, so that a client that writes ``"seat"`` beside
the command learns that the frame names no seat."""

PLAIN_FRAME_FIELDS = frozenset({"type", "ref"})
"""The fields of every other frame a client sends (``sync``, ``ping``, ``pass``,
``leave``; the lobby's ``sync`` and ``ping``): any other is refused (``bad_frame``) as
the command frame's are, so that a client that writes ``"seat"`` in a ``pass`` or a
``leave`` learns that it names none, rather than having it read past."""


def stray_field(frame: dict[str, Any]) -> str | None:
    """The first field (by name, cut to 30 characters) that ``frame`` does not take,
    or None when it has none: the message of the ``bad_frame`` refusal of the others."""
    takes = COMMAND_FRAME_FIELDS if frame.get("type") == "command" else PLAIN_FRAME_FIELDS
    stray = sorted(str(key)[:30] for key in frame if key not in takes)
    return stray[0] if stray else None


def stray_reason(kind: str, field: str) -> str:
    """Why a frame with ``field`` beside its own is refused, in the frame's words."""
    takes = ("type, ref, version and command" if kind == "command" else "type and ref")
    return f"a {kind} frame has no field {field!r} (it takes {takes})"

CLOSE_NO_TABLE = refusals.HANDSHAKE[refusals.NO_TABLE]
CLOSE_TOO_MANY = refusals.HANDSHAKE[refusals.TOO_MANY_CONNECTIONS]


def _language(scope: dict[str, Any]) -> str:
    """The reader's language: the site's language cookie, else the browser's."""
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    if cookie and translation.check_for_language(cookie):
        return str(cookie)
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            for code, _q in trans_real.parse_accept_lang_header(value.decode("latin-1")[:500]):
                try:
                    return trans_real.get_supported_language_variant(code)
                except LookupError:
                    continue
    return str(settings.LANGUAGE_CODE)


class BadAuthorization(ValueError):
    """An ``Authorization`` header that is not ``Bearer <token>``: refused, never taken
    for no header (which made a spectator of a bot that wrote ``Token``)."""


def _bearer(scope: dict[str, Any]) -> str:
    """The handshake's bearer token, "" without an ``Authorization`` header
    (:class:`BadAuthorization` for one of another form)."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = bytes(value[:300]).decode("latin-1")
            scheme, _, token = text.partition(" ")
            token = token.strip()
            # The scheme in any case (RFC 9110, 11.1), as the HTTP API takes it.
            if scheme.lower() != "bearer" or not token or len(token) > 200 or " " in token:
                raise BadAuthorization(
                    "the Authorization header must be 'Bearer <token>' (a bot account's "
                    "API token)")
            return token
    return ""


async def _token_holds(consumer: NoHopConsumer, bearer: authority.Bearer | None,
                       scope: str) -> bool:
    """Whether a handshake's token stands for a bot account and has the socket's
    ``scope``; if not, the handshake is refused, the two causes told apart (a token
    to replace, or one to make with another scope)."""
    if bearer is None:
        await consumer._refuse_handshake(refusals.BAD_TOKEN,
                                         "no bot account has this token (replaced or "
                                         "revoked?)")
        return False
    if scope not in bearer.scopes:
        await consumer._refuse_handshake(
            refusals.MISSING_SCOPE,
            f"this token lacks the {scope} scope this socket takes (it has: "
            f"{' '.join(sorted(bearer.scopes)) or 'none'})")
        return False
    return True


def _query(scope: dict[str, Any], key: str) -> str:
    from urllib.parse import parse_qs
    raw = scope.get("query_string", b"")[:1000].decode("latin-1")
    values = parse_qs(raw).get(key)
    return values[0] if values else ""


class FrameError(ValueError):
    """A client frame refused before it is read: its refusal ``code``, the reason, and
    the frame's ``ref`` when one could be found in it."""

    def __init__(self, code: str, reason: str, ref: object = None) -> None:
        super().__init__(reason)
        self.code = code
        self.ref = ref


MAX_REF_SCAN = 64 * 1024
"""How much of a frame refused unread is searched for its ``ref``."""

_REF = re.compile(r'"ref"\s*:\s*(-?\d{1,15}(?![\d.eE])|"[^"\\\x00-\x1f]{0,40}")')
"""A ``ref`` written plainly (a whole number, or a string without escapes of at most 40
characters): found in a frame that could not be read as JSON, so that its refusal
still carries it. A hand-written scan because the frame is not JSON (a parser stops at
the first fault); bounded by :data:`MAX_REF_SCAN`."""


def ref_in(text: str | bytes | None) -> object:
    """The ``ref`` of a frame that cannot be parsed, if it holds one plainly."""
    if text is None:
        return None
    if isinstance(text, bytes):
        text = text[:MAX_REF_SCAN].decode("utf-8", "replace")
    found = _REF.search(text, 0, MAX_REF_SCAN)
    return json.loads(found.group(1)) if found else None


def parse_frame(text: str | None, raw: bytes | None = None) -> dict[str, Any]:
    """A client frame as a JSON object, within bounds; :class:`FrameError` with a code
    and a reason (``raw``: a binary frame's bytes, refused)."""
    if text is None:
        raise FrameError(refusals.MALFORMED, "frames are JSON text", ref_in(raw))
    if len(text) > MAX_FRAME_CHARS:
        raise FrameError(refusals.TOO_LARGE, f"a frame is at most {MAX_FRAME_CHARS} characters",
                         ref_in(text))
    try:
        obj = loads_line(text, "frame", lone_surrogates=True)
    except JSONLimitError as error:
        raise FrameError(refusals.MALFORMED, str(error), ref_in(text)) from None
    except json.JSONDecodeError as error:
        raise FrameError(refusals.MALFORMED, f"frame: not JSON ({error.msg})",
                         ref_in(text)) from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise FrameError(refusals.MALFORMED, "a frame is an object with a type",
                         obj.get("ref") if isinstance(obj, dict) else None)
    return obj


@dataclass
class Allowance:
    """A token bucket: what a connection may still cost the store. A client that keeps
    sending illegal commands (each judged again on the stored game) has its commands
    refused, without the store being read, until tokens come back."""

    capacity: float = field(default_factory=lambda: float(REFUSED_BURST))
    rate: float = field(default_factory=lambda: REFUSED_PER_SECOND)
    tokens: float = -1.0
    at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.capacity

    def available(self) -> bool:
        """Whether one more costly frame may be served now (tokens refilled first)."""
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
        self.at = now
        return self.tokens >= 1

    def spend(self) -> None:
        self.tokens = max(0.0, self.tokens - 1)

    def wait(self) -> float:
        """Seconds until the next token."""
        return max(0.0, (1 - self.tokens) / self.rate) if self.rate > 0 else float("inf")


_connections: OrderedDict[tuple[str, str], Allowance] = OrderedDict()


def connection_allowance(client: str, table_id: UUID) -> Allowance:
    """The allowance of ``client`` opening ``table_id``'s socket in this process (kept
    for the :data:`CONNECT_CLIENTS` most recently seen)."""
    key = (client, table_id.hex)
    allowance = _connections.get(key)
    if allowance is None:
        allowance = Allowance(capacity=float(CONNECT_BURST), rate=CONNECT_PER_SECOND)
        _connections[key] = allowance
    _connections.move_to_end(key)
    while len(_connections) > CONNECT_CLIENTS:
        _connections.popitem(last=False)
    return allowance


def _client_key(user: Any, scope: dict[str, Any]) -> str:
    """Who is connecting, for the connection allowance: the account when signed in
    (or known by a bot token), else the address the connection came from."""
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    client = scope.get("client") or ("?", 0)
    return f"addr:{str(client[0])[:64]}"


_present: dict[str, None] = {}
"""The channels of the seats' connections open in this process, renewed together."""

_renewer: asyncio.Task[None] | None = None


async def _renew_present() -> None:
    """Say, now and then, that this process's seats' connections are still open: one
    statement for all of them (play.presence.renew_all), while any is open."""
    while _present:
        await asyncio.sleep(presence.beat_seconds())
        channels = list(_present)
        if channels:
            with contextlib.suppress(Exception):
                await database_sync_to_async(presence.renew_all)(channels)


def _renewing(channel: str) -> asyncio.Task[None]:
    """Renew ``channel``'s presence with the others of this process, from now on (the
    renewing task started if none runs on this event loop)."""
    global _renewer
    _present[channel] = None
    loop = asyncio.get_running_loop()
    if _renewer is None or _renewer.done() or _renewer.get_loop() is not loop:
        _renewer = loop.create_task(_renew_present())
    return _renewer


try:  # daphne's websocket protocol (autobahn) raises this on a send after a close
    from autobahn.exception import Disconnected as _Disconnected
except ImportError:  # pragma: no cover - another ASGI server
    _Disconnected = OSError  # type: ignore[assignment,misc]

CLIENT_GONE: tuple[type[BaseException], ...] = (OSError, _Disconnected)
"""What a server raises on a send to a client that has closed its connection: the ASGI
spec's OSError, and daphne's (autobahn's ``Disconnected``, a RuntimeError)."""


class NoHopConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no types
    """A websocket consumer whose messages are handled without a hop to the sync thread
    first. Channels' ``dispatch`` runs ``close_old_connections`` in the process's one
    sync thread before every message (a frame received, each group message): at a
    live table that was a thread hop per seat per command, queued behind every store
    call of the process, for nothing: these consumers reach the database only through
    ``database_sync_to_async``, which closes old connections around each call itself
    (py-spy --gil under bench/live.py, 2026-12-02: 1.3 ms of a daphne's 11.9 ms a
    command, 11%). The dispatch without the hop, re-done from Channels' own, is
    play.channels_internals.dispatch_without_hop."""

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None,
                   close: bool | int = False) -> None:
        """Send as Channels does; a frame for a client that has just closed its
        connection (the close not handled yet: a table's update crossed it) is dropped.
        It used to end the consumer with an exception daphne logged as an error
        (bench/live.py, clients leaving at the end of a run); the disconnect that
        follows cleans up as usual."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except CLIENT_GONE:
            logger.debug("a frame for a client that had closed its connection was dropped")

    async def dispatch(self, message: dict[str, Any]) -> None:
        await dispatch_without_hop(self, message)

    async def send_json(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=live.json_text(frame))

    async def _refuse_handshake(self, code: str, reason: str,
                                retry_after: float | None = None) -> None:
        """Accepted only to say why, then closed with the cause's own close code
        (play.refusals.HANDSHAKE): a handshake refused before it is accepted tells a
        client nothing but an HTTP 403, the same for every cause."""
        await self.accept()
        await self.send_json(live.error_frame(code, reason, retry_after=retry_after))
        await self.close(code=refusals.HANDSHAKE[code], reason=code)


class NoSocketConsumer(NoHopConsumer):
    """Any address the websocket server has no socket at: refused at the handshake with
    its own code, as the others are."""

    async def connect(self) -> None:
        await self._refuse_handshake(refusals.NO_SOCKET,
                                     "no socket at this address: a table's is "
                                     "/ws/tables/<id>/, the lobby's /ws/lobby/")


class TableConsumer(NoHopConsumer):
    """One client at one table: a seat's player or a spectator.

    Which seat it plays is decided when the game starts or the connection joins it,
    from the seats as stored then, and checked again for every command and every
    update it is sent (``play.authority``: the seat's holder at that version, and the
    connection's session or token looked up again): a connection whose account no
    longer plays the seat is told ``left`` and watches as a spectator."""

    table: Table
    table_id: UUID
    perspective: int = SPECTATOR
    actor: str
    user: Any = None
    credential: Credential
    invited: bool = False
    """Whether the connection came with the table's invitation (``?invite=``)."""
    group: str | None = None
    room: str | None = None
    language: str
    allowance: Allowance
    beat: asyncio.Task[None] | None = None
    syncs: Allowance
    shown: dict[str, str]
    """The drawing's regions this client was last sent (play.live.frame_text)."""
    pending: dict[int, int | str]
    """The refs of this connection's stored commands, by the version each brought the
    game to, until a ``state`` frame reflecting it is sent."""
    sent_version: int = -1
    """The game's version in the last ``state`` frame this client was sent."""
    html: bool = True
    """Whether this client is sent the table's drawing (``?html=0``: a program playing
    a seat reads the table's data and legal moves, never the drawing)."""

    async def connect(self) -> None:
        self.shown = {}
        self.html = _query(self.scope, "html") != "0"
        self.language = _language(self.scope)
        self.allowance = Allowance()
        self.syncs = Allowance(capacity=float(SYNC_BURST), rate=SYNC_PER_SECOND)
        self.pending = {}
        raw_id = str(self.scope["url_route"]["kwargs"]["table_id"])
        try:
            self.table_id = UUID(raw_id[:100])
        except ValueError:
            await self._refuse_handshake(refusals.BAD_TABLE_ID,
                                         f"{raw_id[:40]!r} is not a table id")
            return
        user = self.scope.get("user")
        try:
            token = _bearer(self.scope)
        except BadAuthorization as error:
            await self._refuse_handshake(refusals.BAD_AUTHORIZATION, str(error))
            return
        if token:
            bearer = await database_sync_to_async(authority.account_for)(token)
            if not await _token_holds(self, bearer, "play"):
                return
            assert bearer is not None
            user = bearer.user
        try:
            self.table = await database_sync_to_async(live.running_table)(self.table_id)
        except Table.DoesNotExist:
            await self._refuse_handshake(refusals.NO_TABLE, "there is no such table")
            return
        opening = connection_allowance(_client_key(user, self.scope), self.table_id)
        if not opening.available():
            await self._refuse_handshake(
                refusals.TOO_MANY_CONNECTIONS,
                f"too many connections to this table: wait {opening.wait():.1f} s",
                retry_after=opening.wait())
            return
        opening.spend()
        name = user.get_username() if user is not None and user.is_authenticated else None
        # Anyone who sat here (a seat they left included) may watch a private table.
        sat = [s for s in self.table.seats.all()
               if s.user is not None and s.user.get_username() == name]
        invited = self.invited = _query(self.scope, "invite") == self.table.invite_token
        if not (self.table.public or sat or invited
                or (user is not None and getattr(user, "is_staff", False))):
            await self._refuse_handshake(
                refusals.PRIVATE_TABLE,
                "a private table: only its players, staff and holders of its invitation "
                "(?invite=) may watch it")
            return
        # No seat yet: it is decided when the game is joined (_join_game), from the
        # seats as they are then, not as they were when the connection opened.
        self.perspective = SPECTATOR
        self.actor = f"user:{name}" if name else ""
        self.user = user if name else None
        self.credential = authority.credential_of(self.scope, self.user, token)
        await self.accept()
        self.room = live.room_group(self.table_id)
        await self.channel_layer.group_add(self.room, self.channel_name)
        if self.user is not None:
            await self.channel_layer.group_add(live.account_group(self.user.pk),
                                               self.channel_name)
        if self.table.game_id is None:
            # Read again now that the room's messages reach this connection: a seat
            # taken, the table started or closed in between would be told to nobody.
            try:
                self.table = await database_sync_to_async(live.running_table)(self.table_id)
            except Table.DoesNotExist:
                await self._closed()
                return
        if self.table.game_id is None:
            await self.send_json({"type": "waiting", "protocol": live.PROTOCOL,
                                  "table_id": str(self.table_id),
                                  "seats": seats_digest(self.table.seats.all())})
            return
        await self._join_game()

    async def _join_game(self) -> None:
        """Join the running game: the seat its account plays now (the table was just
        read), else as a spectator."""
        seat = authority.seat_of(list(self.table.seats.all()), self.user)
        self.perspective = SPECTATOR if seat is None else seat
        self.group = live.group_for(self.table_id, self.perspective)
        await self.channel_layer.group_add(self.group, self.channel_name)
        if self.perspective != SPECTATOR:
            await database_sync_to_async(presence.arrive)(self.table_id, self.perspective,
                                                          self.channel_name)
            self.beat = _renewing(self.channel_name)
        await self._send_current()
        driver.kick(self.table_id, self.channel_layer)
        frame = await database_sync_to_async(clock.read_frame)(self.table_id, timezone.now())
        if frame is not None:
            await self._send_clock(frame)

    async def _send_clock(self, frame: dict[str, Any]) -> None:
        """The table's clocks (play/clock.py), the same for every connection."""
        await self.send_json({**frame, "protocol": live.PROTOCOL})

    async def _stop_renewing(self) -> None:
        if self.beat is not None:
            _present.pop(self.channel_name, None)
            self.beat = None

    async def _lose_seat(self, reason: str) -> None:
        """This connection's account no longer plays its seat (it left, was handed to a
        bot, signed out): it is told ``left`` and watches as a spectator from now on,
        sent the public view; its presence no longer keeps the seat's person there."""
        seat = self.perspective
        if seat == SPECTATOR or self.group is None:
            return
        await self._depart()
        await self.channel_layer.group_discard(self.group, self.channel_name)
        self.perspective = SPECTATOR
        self.group = live.group_for(self.table_id, SPECTATOR)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_json({"type": "left", "protocol": live.PROTOCOL, "seat": seat,
                              "reason": reason})
        if reason == authority.SIGNED_OUT and not (self.table.public or self.invited):
            # Nobody is signed in here any more, and a private table is watched by its
            # players and invitation holders only (as at the handshake).
            await self.close(code=refusals.HANDSHAKE[refusals.PRIVATE_TABLE])
            return
        await self._send_current()

    async def disconnect(self, code: int) -> None:
        account = live.account_group(self.user.pk) if self.user is not None else None
        for group in (self.group, self.room, account):
            if group is not None:
                await self.channel_layer.group_discard(group, self.channel_name)
        await self._depart()

    async def _depart(self) -> None:
        """This connection no longer keeps its seat's person there (closed, or it lost
        the seat): if it was the seat's last one, the seat's absence deadline is set and
        kept, here and in every process serving the table."""
        if self.beat is None:
            return
        await self._stop_renewing()
        deadline = await database_sync_to_async(presence.depart)(
            self.table_id, self.perspective, self.channel_name)
        if deadline is not None:
            driver.kick(self.table_id, self.channel_layer)
            await self.channel_layer.group_send(live.room_group(self.table_id),
                                                {"type": "table.look"})

    async def _send_current(self) -> None:
        update = await database_sync_to_async(live.current)(self.table, self.perspective)
        self.shown.clear()  # the whole drawing: the client may hold anything
        await self._send_update(update)

    async def _send_update(self, update: dict[str, Any]) -> None:
        seat = None if self.perspective == SPECTATOR else self.perspective
        if update["seat"] != seat:
            # Built for a seat this connection no longer plays (queued for the group it
            # has just left): never sent.
            return
        if seat is not None and update["holder"] != self.actor:
            # The seat is someone else's at this version (handed to a bot, or never
            # this account's): the spectator's view instead, and why.
            await self._lose_seat(_handover_reason(update, seat))
            return
        if seat is not None and not await self._stands():
            # The connection's session or token no longer stands for the seat's account
            # (signed out, the password changed, the session expired, the token
            # replaced): what the seat sees is no longer this connection's to see.
            await self._lose_seat(authority.SIGNED_OUT)
            return
        if seat is None and self._watches_as_its_account() and not await self._stands():
            # A private table watched by right of the account (it sat there, or staff),
            # which the connection's session or token no longer stands for.
            await self.close(code=refusals.HANDSHAKE[refusals.PRIVATE_TABLE])
            return
        if "history" not in update and update["since"] > self.sent_version:
            # A gap: the moves between what this connection holds and this one were
            # sent in another order (stored by another process) or not at all. Its
            # log would miss their lines: the whole view from the store, which holds
            # them (and this one: it was stored before it was sent).
            await self._send_current()
            return
        if update["version"] < self.sent_version or (
                update["version"] == self.sent_version != update["since"]):
            # Older than what this client holds, or the move that brought it there
            # when it holds that already (an update that crossed a sync or a refusal's
            # whole frame): the client would drop it or log its lines twice, and what it
            # holds must stay what ``shown`` says.
            return
        # Drawn here, on the event loop: it reads nothing from the store (about 1 ms,
        # or nothing once drawn for another client of the group), where in the worker
        # thread it queued behind every store write and read of the process.
        with translation.override(self.language):
            drawn = live.answer_for(update, self.table, html=self.html)
        self.sent_version = update["version"]
        text = live.frame_text(drawn, self.shown)
        reflected = self._reflected(update["version"])
        if reflected is not None:
            text = live.with_ref(text, reflected)
        await self.send(text_data=text)

    def _watches_as_its_account(self) -> bool:
        """Whether this connection may watch only because of its account: a private
        table, no invitation, and a session or token (the account it sat there as, or
        staff). Its account is looked up again for every frame it is sent, as a
        seat's is."""
        credential = self.credential
        return not (self.table.public or self.invited) and (
            credential.session_key is not None or credential.token is not None)

    async def _stands(self) -> bool:
        """Whether the connection's session or token stands for its account now: looked
        up for every seat's frame, as for every command, never taken from the moment
        the socket opened. In any worker thread, not queued behind the store writes on
        the process's one shared thread (one indexed read: a session and its account,
        or a token)."""
        return bool(await database_sync_to_async(authority.stands, thread_sensitive=False)(
            self.credential, self.actor))

    async def _refuse(self, code: str, reason: str, ref: object = None,
                      retry_after: float | None = None) -> None:
        await self.send_json(live.error_frame(code, reason, ref=ref, retry_after=retry_after))

    def _reflected(self, version: int) -> int | str | None:
        """The ``ref`` of this connection's latest command that a ``state`` frame at
        ``version`` reflects (stored at or before it), forgotten once told."""
        if not self.pending:
            return None
        told = [v for v in self.pending if v <= version]
        ref = self.pending[max(told)] if told else None
        for v in told:
            del self.pending[v]
        return ref

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None
                      ) -> None:
        try:
            frame = parse_frame(text_data, bytes_data)
        except FrameError as error:
            await self._refuse(error.code, str(error), error.ref)
            return
        kind, ref = frame["type"], frame.get("ref")
        if kind not in ("ping", "sync", "command", "pass", "leave"):
            await self._refuse(refusals.UNKNOWN_TYPE,
                               f"unknown frame type {str(kind)[:30]!r}: a table's socket "
                               "takes command, sync, ping, pass and leave", ref)
        elif (stray := stray_field(frame)) is not None:
            # Nothing beside a frame's own fields is read past (a ping's, a sync's, a
            # pass's as a command's), before anything else is asked of the frame.
            await self._refuse(refusals.BAD_FRAME, stray_reason(kind, stray), ref)
        elif kind == "ping":
            await self.send_json({"type": "pong", "protocol": live.PROTOCOL,
                                  "ref": live.ref_of(ref)})
        elif self.group is None:
            await self._refuse(refusals.NOT_STARTED, "the game has not started yet", ref)
        elif kind == "command" and not self.allowance.available():
            await self._refuse(refusals.TOO_MANY_REFUSED,
                               f"too many refused commands: wait {self.allowance.wait():.1f} s",
                               ref, retry_after=self.allowance.wait())
        elif kind == "sync" and not self.syncs.available():
            await self._refuse(refusals.TOO_MANY_SYNCS,
                               f"too many requests for the whole view: wait "
                               f"{self.syncs.wait():.1f} s", ref, retry_after=self.syncs.wait())
        elif kind == "sync":
            self.syncs.spend()
            await self._send_current()
        elif kind == "command":
            await self._command(frame, ref)
        elif kind == "pass":
            await self._pass(ref)
        elif kind == "leave":
            await self._leave(ref)

    async def _command(self, frame: dict[str, Any], ref: object) -> None:
        if self.perspective == SPECTATOR:
            await self._refuse(refusals.SPECTATOR,
                               "spectators do not play: sit at a table to play", ref)
            return
        version = frame.get("version")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            await self._refuse(refusals.BAD_FRAME,
                               "version is the step the client saw, a whole number", ref)
            return
        try:
            command = command_from_json(frame.get("command"), self.perspective)
        except CommandFormatError as error:
            await self._refuse(refusals.BAD_COMMAND, str(error), ref)
            return
        assert self.table.game_id is not None
        refused: Exception | None = None

        async def send(played: live.Played) -> None:
            echoed = live.ref_of(ref)
            if echoed is not None:
                self.pending[played.game.version] = echoed
                while len(self.pending) > MAX_PENDING_REFS:
                    del self.pending[min(self.pending)]
            await driver.broadcast(self.channel_layer, played)
        try:
            # Any worker thread (the table's game is played on under its lock), not the
            # one thread every other store call of the process queues on: a store write
            # mostly waits for the database, and other tables' go on meanwhile. Sent
            # after every update this process stored before it (play.send_order).
            played = await send_order.stored_then_sent(
                self.table_id, lambda: self._submit(command, version), send)
        except (IllegalMove, live.StaleFrame) as error:
            refused = error
        if isinstance(refused, NotYourSeat):
            code = (refusals.SIGNED_OUT if refused.why == authority.SIGNED_OUT
                    else refusals.NOT_YOUR_SEAT)
            await self._refuse(code, refused.reason, ref)
            await self._lose_seat(await self._why(refused))
        elif isinstance(refused, IllegalMove):
            self.allowance.spend()
            await self._refuse(refusals.ILLEGAL, refused.reason, ref)
        elif isinstance(refused, live.StaleFrame):
            await self._refuse_stale(refused, ref)
        elif driver.has_work(self.table, played.game):
            driver.kick(self.table_id, self.channel_layer)

    async def _refuse_stale(self, refused: live.StaleFrame, ref: object) -> None:
        """A stale or busy command: refused, and the whole view sent after it while the
        ``sync`` allowance lasts. The refusal itself is free (a fast table's everyday
        case), but the whole view costs what a ``sync`` does (a store read and a
        drawing): without the allowance, a stream of commands with an old ``version``
        got every one of them drawn. Past it the refusal says when a ``sync`` is allowed
        again (``retry_after``), and sends no view: the table's next moves come as
        they are stored."""
        if self.syncs.available():
            self.syncs.spend()
            await self._refuse(refused.code, str(refused), ref)
            await self._send_current()
            return
        wait = self.syncs.wait()
        await self._refuse(refused.code,
                           f"{refused} (no whole view now: too many asked for; send sync "
                           f"in {wait:.1f} s, or act on the next state frame)",
                           ref, retry_after=wait)

    def _submit(self, command: Any, version: int | None) -> live.Played:
        """The command stored, if this connection's account is still signed in and
        plays the seat now (play.authority: the game as stored says who does, judged
        under its lock as the command is decided)."""
        assert self.table.game_id is not None
        self._still_signed_in()
        return live.submit(self.table_id, self.table.game_id, command, self.actor, version,
                           person=True)

    def _still_signed_in(self) -> User:
        """The connection's account, looked up again now (NotYourSeat if it signed out,
        or its session or token no longer stands for it)."""
        account = authority.account_now(self.credential)
        if account is None or authority.player_name(account) != self.actor:
            raise NotYourSeat("you are no longer signed in here: sign in again to play",
                              why=authority.SIGNED_OUT)
        return account

    async def _pass(self, ref: object) -> None:
        """This seat's person is done trading this turn (play/clock.py): the trading
        window closes once every person at the table is; every connection is told."""
        if self.perspective == SPECTATOR:
            await self._refuse(refusals.SPECTATOR,
                               "spectators do not trade: sit at a table to play", ref)
            return
        try:
            await database_sync_to_async(self._pass_now)()
        except NotYourSeat as error:
            code = (refusals.SIGNED_OUT if error.why == authority.SIGNED_OUT
                    else refusals.NOT_YOUR_SEAT)
            await self._refuse(code, error.reason, ref)
            await self._lose_seat(await self._why(error))
            return
        except clock.NotTrading as error:
            await self._refuse(refusals.NOT_TRADING, str(error), ref)
            return
        await driver.tell_clock(self.channel_layer, self.table_id)
        driver.kick(self.table_id, self.channel_layer)

    def _pass_now(self) -> None:
        """Pass for the seat, its connection's session or token looked up again first,
        as for a command: a signed-out socket closes no one's trading window."""
        self._still_signed_in()
        clock.pass_trading(self.table_id, self.perspective, self.actor)

    async def _leave(self, ref: object) -> None:
        """Leave the running game: the table's bot plays the seat from now on (an event
        of the game), and this connection watches as a spectator."""
        if self.perspective == SPECTATOR:
            await self._refuse(refusals.SPECTATOR, "only a seated player leaves a game", ref)
            return
        seat = self.perspective
        try:
            async def send(played: live.Played) -> None:
                await driver.announce_handover(self.channel_layer, self.table_id, played,
                                               seat)
            await send_order.stored_then_sent(self.table_id, lambda: self._hand_over(seat),
                                              send, thread_sensitive=True)
        except NotYourSeat as error:
            code = (refusals.SIGNED_OUT if error.why == authority.SIGNED_OUT
                    else refusals.NOT_YOUR_SEAT)
            await self._refuse(code, error.reason, ref)
            await self._lose_seat(await self._why(error))
        except TableError as error:
            await self._refuse(refusals.CANNOT_LEAVE, str(error), ref)

    async def _why(self, refused: NotYourSeat) -> str:
        """The ``left`` frame's reason for a command refused as not this seat's."""
        if refused.why == authority.HANDED:
            return str(await database_sync_to_async(authority.handover_reason)(
                self.table_id, self.perspective))
        return refused.why

    def _hand_over(self, seat: int) -> live.Played:
        """The seat handed to the table's bot, if this connection's account (looked up
        now) sits there."""
        return hand_to_bot(self.table_id, seat, Handover.LEFT, user=self._still_signed_in())

    # -- group messages ---------------------------------------------------------------

    async def table_update(self, message: dict[str, Any]) -> None:
        await self._send_update(message["update"])

    async def table_clock(self, message: dict[str, Any]) -> None:
        """The table's clocks changed (a move clock started, a trading window opened or
        a person passed): sent on to the client as its ``clock`` frame."""
        if self.group is not None:
            await self._send_clock(message["clock"])

    async def seat_handed(self, message: dict[str, Any]) -> None:
        """A seat was handed to its bot: its person's connections become a spectator's
        (sent the public view from now on), and this process drives the table on."""
        seat = message.get("seat")
        if self.group is not None and seat == self.perspective:
            # Told already by the seat's update that carried the handover, unless that
            # update never reached this connection.
            await self._lose_seat(str(message.get("reason", Handover.LEFT.value)))
        driver.kick(self.table_id, self.channel_layer)

    async def account_changed(self, message: dict[str, Any]) -> None:
        """The account's credentials changed (signed out, a token replaced): a seat's
        socket whose session or token no longer stands for it loses the seat now, not
        at the table's next move."""
        if self.perspective == SPECTATOR:
            return
        if live.session_ended(message, self.credential.session_key) or (
                not await self._stands()):
            await self._lose_seat(authority.SIGNED_OUT)

    async def table_look(self, message: dict[str, Any]) -> None:
        """A deadline was set at the table (by another connection, maybe in another
        process): this process's driver looks again."""
        if self.group is not None:
            driver.kick(self.table_id, self.channel_layer)

    async def table_started(self, message: dict[str, Any]) -> None:
        self.table = await database_sync_to_async(live.running_table)(self.table_id)
        if self.group is None and self.table.game_id is not None:
            await self._join_game()

    async def room_changed(self, message: dict[str, Any]) -> None:
        """A seat of the waiting table was taken or left (play.tables, once stored):
        the client draws the room again (the room page reloads itself, drawn by the
        server with its reader's permissions: the frame says nothing more)."""
        if self.group is None:
            await self.send_json({"type": "room", "protocol": live.PROTOCOL,
                                  "table_id": str(self.table_id)})

    async def table_closed(self, message: dict[str, Any]) -> None:
        """The waiting table was deleted (its creator left it)."""
        if self.group is None:
            await self._closed()

    async def _closed(self) -> None:
        """Say the table is gone, and close: there is nothing left to hear of it."""
        await self.send_json({"type": "closed", "protocol": live.PROTOCOL,
                              "table_id": str(self.table_id)})
        await self.close(code=CLOSE_NO_TABLE)


def _handover_reason(update: dict[str, Any], seat: int) -> str:
    """Why ``seat`` is no longer its connection's, as the update's events say
    (``SeatHandedToBot``: ``left`` or ``absent``), else :data:`authority.TAKEN`."""
    for event in update["events"]:
        if event.get("type") == "SeatHandedToBot" and event.get("seat") == seat:
            return str(event.get("reason", Handover.LEFT.value))
    return authority.TAKEN


class LobbyConsumer(NoHopConsumer):
    """The lobby's live lists: open tables and running games (public ones), and a
    signed-in person's own tables (private ones too: the frame goes to them alone).

    A client may send ``sync`` (the lists again) and ``ping``, within an allowance
    (:data:`LOBBY_BURST` frames in a row, :data:`LOBBY_PER_SECOND` more a second); past
    it frames are refused without anything being read, and a client that goes on is
    closed (4429). The public lists come from the process's snapshot, built once per
    change (``play.lobby.public_snapshot``)."""

    frames: Allowance
    refused: int = 0
    token: str = ""
    credential: Credential = Credential()

    async def connect(self) -> None:
        self.frames = Allowance(capacity=float(LOBBY_BURST), rate=LOBBY_PER_SECOND)
        # A bot account's token (scope read) stands for its account, as on a table's
        # socket: its own tables are sent to it (``mine``), the account looked up again
        # for every list sent, so a revoked token is sent the public lists only.
        try:
            self.token = _bearer(self.scope)
        except BadAuthorization as error:
            await self._refuse_handshake(refusals.BAD_AUTHORIZATION, str(error))
            return
        if self.token and not await _token_holds(
                self, await database_sync_to_async(authority.account_for)(self.token),
                "read"):
            return
        self.credential = authority.credential_of(self.scope, self.scope.get("user"),
                                                  self.token)
        await self.accept()
        await self.channel_layer.group_add(live.LOBBY_GROUP, self.channel_name)
        await self._send_lists(None)

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(live.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None
                      ) -> None:
        if not self.frames.available():
            self.refused += 1
            if self.refused > LOBBY_REFUSED_BEFORE_CLOSING:
                await self.close(code=CLOSE_TOO_MANY)
                return
            # Nothing read: the ref only if it is plainly in the first characters.
            await self.send_json(live.error_frame(
                refusals.TOO_MANY_FRAMES, f"too many frames: wait {self.frames.wait():.1f} s",
                ref=ref_in((text_data or "")[:200] or (bytes_data and bytes_data[:200])),
                retry_after=self.frames.wait()))
            return
        self.frames.spend()
        self.refused = 0
        try:
            frame = parse_frame(text_data, bytes_data)
        except FrameError as error:
            await self.send_json(live.error_frame(error.code, str(error), ref=error.ref))
            return
        kind, ref = frame["type"], frame.get("ref")
        if kind in ("ping", "sync") and (stray := stray_field(frame)) is not None:
            await self.send_json(live.error_frame(
                refusals.BAD_FRAME, stray_reason(kind, stray), ref=ref))
        elif kind == "ping":
            await self.send_json({"type": "pong", "protocol": live.PROTOCOL,
                                  "ref": live.ref_of(ref)})
        elif kind == "sync":
            await self._send_lists(None)
        else:
            await self.send_json(live.error_frame(
                refusals.UNKNOWN_TYPE,
                f"unknown frame type {str(kind)[:30]!r}: the lobby's socket takes sync "
                "and ping", ref=ref))

    async def lobby_changed(self, message: dict[str, Any]) -> None:
        change = message.get("change")
        await self._send_lists(str(change)[:64] if change else uuid4().hex)

    async def _send_lists(self, change: str | None) -> None:
        lists = await database_sync_to_async(self._lists)(change)
        await self.send_json({"type": "lobby", "protocol": live.PROTOCOL, **lists})

    def _lists(self, change: str | None) -> dict[str, Any]:
        """The lists, ``mine`` for the account the connection's token or session stands
        for now (looked up again for every list: signed out, it is sent the public
        lists only)."""
        user = (authority.bot_user_for(self.token, "read") if self.token
                else authority.account_now(self.credential))
        return lobby_snapshot(user, change)
