"""One seat (or a spectator) at one live table, over its websocket (docs/protocol.md).

:class:`TableClient` does what every bot needs besides deciding: it authenticates with
the bot account's token, asks for frames without the drawing, keeps the version it
holds and sends each command with it, numbers its commands (``ref``) and matches each
to the ``state`` frame that reflects it or the ``error`` that refuses it, asks for the
whole view again after a gap or a silence, waits out the allowances, and opens a
dropped connection again (0.5, 1, 2 ... 8 s) unless the refusal says it is no use.
:meth:`TableClient.play` runs a bot's ``decide`` on each state frame the game awaits
it in, to the end of the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from bohnanza_client.refusals import (
    FINAL,
    HANDSHAKE,
    ConnectionLost,
    HandshakeRefused,
    Refused,
    SeatLost,
)
from bohnanza_client.state import State

PROTOCOL = 3
"""The protocol version this client speaks."""

Command = dict[str, Any]
Decide = Callable[[State], "Command | Awaitable[Command | None] | None"]

FALLBACK_ORDER = ("decline_offer", "end_trading", "end_planting", "plant_from_hand",
                  "plant_card", "discard_card", "accept_offer", "harvest")
"""The kinds :func:`fallback` picks from, first found first: the moves that end what the
game waits for, then those that plant, then a harvest to make room."""


def fallback(state: State) -> Command | None:
    """A move that lets the game go on when the bot's own was refused: the first legal
    command by :data:`FALLBACK_ORDER` (None when not awaited)."""
    if not state.awaited:
        return None
    commands = state.commands
    for kind in FALLBACK_ORDER:
        for move in commands:
            if move["kind"] == kind:
                return move
    return commands[0] if commands else None


def socket_url(server: str, table_id: str, *, html: bool = False,
               invite: str | None = None) -> str:
    """The table's socket address from the server's (``https://host``, ``ws://host:8000``)."""
    parts = urlsplit(server if "//" in server else f"http://{server}")
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    query = [] if html else ["html=0"]
    if invite:
        query.append(f"invite={invite}")
    return urlunsplit((scheme, parts.netloc, f"/ws/tables/{table_id}/", "&".join(query), ""))


class TableClient:
    """A connection to one table, reopened when it drops.

    ``token``: the bot account's API token (sent as ``Authorization: Bearer``; without
    one the client is a spectator). ``origin``: sent only if given (a program needs none
    with a token). ``quiet``: seconds without a frame after which the whole view is asked
    for again (a command stored by a server that died before telling anyone)."""

    def __init__(self, server: str, table_id: str, *, token: str | None = None,
                 origin: str | None = None, html: bool = False, invite: str | None = None,
                 reconnect: bool = True, delays: Sequence[float] = (0.5, 1, 2, 4, 8),
                 quiet: float = 5.0, open_timeout: float = 30.0) -> None:
        self.url = socket_url(server, table_id, html=html, invite=invite)
        self.table_id = table_id
        self.token, self.origin = token, origin
        self.reconnect, self.delays, self.quiet = reconnect, tuple(delays), quiet
        self.open_timeout = open_timeout
        self.socket: ClientConnection | None = None
        self.state: State | None = None
        """The latest state frame."""
        self.version: int | None = None
        """The version this connection holds (None: none yet on this connection)."""
        self.refusals: list[Refused] = []
        """Every refusal this client was sent, oldest first."""
        self.sent: dict[object, float] = {}
        """When each command was sent, by its ref (``time.perf_counter``)."""
        self.reflected: dict[object, float] = {}
        """When the state frame reflecting each command arrived, by its ref."""
        self.connections = 0
        self._refs = 0
        self._paused_until = 0.0
        self._syncing = False

    # -- connecting ----------------------------------------------------------------------

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def connect(self) -> None:
        """Open the socket (once; :meth:`frames` opens it again when it drops). Raises
        :class:`HandshakeRefused` when the server refuses the connection."""
        kwargs: dict[str, Any] = {"additional_headers": self.headers(),
                                  "open_timeout": self.open_timeout, "max_size": 2**22}
        if self.origin is not None:
            kwargs["origin"] = self.origin
        try:
            self.socket = await connect(self.url, **kwargs)
        except InvalidStatus as error:  # a server that refuses before accepting
            status = error.response.status_code
            raise HandshakeRefused({"code": "no_table" if status == 404 else "bad_origin",
                                    "reason": f"HTTP {status} at the handshake"}) from error
        self.connections += 1
        self.version = None
        self._syncing = False

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
            self.socket = None

    async def __aenter__(self) -> TableClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- sending -------------------------------------------------------------------------

    def _next_ref(self) -> int:
        self._refs += 1
        return self._refs

    async def _send(self, frame: dict[str, Any]) -> None:
        wait = self._paused_until - time.monotonic()
        if wait > 0:  # an allowance ran out: wait until it allows one more
            await asyncio.sleep(wait)
        assert self.socket is not None, "not connected"
        await self.socket.send(json.dumps(frame))

    async def command(self, command: Command, *, version: int | None = None) -> int:
        """Send ``command`` for this connection's seat (with ``version``, the version
        it was decided on, if given); its ref is returned."""
        ref = self._next_ref()
        frame: dict[str, Any] = {"type": "command", "ref": ref, "command": command}
        if version is not None:
            frame["version"] = version
        self.sent[ref] = time.perf_counter()
        await self._send(frame)
        return ref

    async def sync(self) -> None:
        """Ask for the whole view again (at most one asked for at a time)."""
        if not self._syncing:
            self._syncing = True
            await self._send({"type": "sync"})

    async def ping(self) -> None:
        await self._send({"type": "ping", "ref": self._next_ref()})

    async def leave(self) -> int:
        """Leave the running game for good: the table's bot plays the seat from now on."""
        ref = self._next_ref()
        await self._send({"type": "leave", "ref": ref})
        return ref

    # -- receiving -----------------------------------------------------------------------

    async def frames(self) -> AsyncIterator[dict[str, Any]]:
        """Every frame the server sends, handled first (the version held, gaps, refusals,
        refs), across reconnections. Stops after the game's last frame or ``closed``;
        raises :class:`HandshakeRefused` and :class:`ConnectionLost`."""
        failures = 0
        while True:
            if self.socket is None:
                try:
                    await self.connect()
                except (OSError, InvalidHandshake, TimeoutError) as error:
                    if not self.reconnect:
                        raise
                    failures = await self._wait(failures, error)
                    continue
            socket = self.socket
            assert socket is not None
            try:
                while True:
                    try:
                        async with asyncio.timeout(self.quiet):
                            text = await socket.recv()
                    except TimeoutError:
                        if self.version is not None:  # a game is on: look again
                            self._syncing = False  # asked and not answered: ask again
                            await self.sync()
                        continue
                    frame = json.loads(text)
                    done = self._handle(frame)
                    failures = 0
                    yield frame
                    if done:
                        await self.close()
                        return
            except ConnectionClosed as closed:
                self.socket = None
                code = closed.rcvd.code if closed.rcvd is not None else None
                refusal = next((r for r in reversed(self.refusals[-1:])
                                if HANDSHAKE.get(r.code) == code), None)
                if refusal is not None and refusal.code in FINAL:
                    raise HandshakeRefused(refusal.frame, code) from closed
                if not self.reconnect:
                    raise ConnectionLost(f"closed ({code})") from closed
                if refusal is not None and refusal.retry_after:
                    await asyncio.sleep(refusal.retry_after)
                failures = await self._wait(failures, closed)

    async def _wait(self, failures: int, error: BaseException) -> int:
        """Wait before connecting again (the longest delay from then on)."""
        delay = self.delays[min(failures, len(self.delays) - 1)] if self.delays else 1.0
        await asyncio.sleep(delay)
        return failures + 1

    def _handle(self, frame: dict[str, Any]) -> bool:
        """Take in one frame; True when nothing more will come (the game over, the
        table closed). A handshake refusal is kept: the close that follows raises it."""
        kind = frame.get("type")
        if kind == "state":
            state = State(frame)
            if state.ref is not None:
                self.reflected.setdefault(state.ref, time.perf_counter())
            if state.whole:
                self._syncing = False
            elif self.version is not None and state.since != self.version:
                # A gap: a frame was lost on the way. The server sends each seat its
                # moves in order; a client that dropped one asks for the whole view.
                asyncio.get_running_loop().create_task(self._sync_quietly())
            self.version = state.version
            self.state = state
            return state.finished
        if kind == "error":
            refusal = Refused(frame)
            self.refusals.append(refusal)
            if refusal.retry_after and refusal.code.startswith("too_many_"):
                # A stale or busy refusal's retry_after says when a sync is allowed
                # again: commands stay free, so nothing else waits for it.
                self._paused_until = time.monotonic() + refusal.retry_after
            if refusal.code == "too_many_syncs":
                self._syncing = False
        elif kind == "closed":
            raise ConnectionLost("the table was closed (its creator left it)")
        return False

    async def _sync_quietly(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.sync()

    # -- playing -------------------------------------------------------------------------

    async def play(self, decide: Decide, *, on_refused: Callable[[State], Command | None]
                   = fallback) -> State:
        """Play the seat to the end of the game and return the last state.

        ``decide`` (a function or a coroutine function) is asked on every state frame
        in which this seat is awaited, and on the others too, where it may answer None
        (a seat may act out of turn, never has to). Its command is sent with the
        frame's version, once per version. When the server refuses it as illegal,
        ``on_refused`` (default :func:`fallback`) answers instead, so a bot with a bug
        does not stall the table. Raises :class:`SeatLost` once the connection no
        longer plays the seat (a ``left`` frame: the game goes on, a bot playing it)."""
        answered = -1
        async for frame in self.frames():
            if frame.get("type") == "left":
                raise SeatLost(frame)
            state = self.state
            if frame.get("type") == "error" and state is not None:
                if (frame.get("code") == "illegal" and state.awaited
                        and frame.get("ref") == self._refs):
                    backup = on_refused(state)
                    if backup is not None:
                        await self.command(backup, version=state.version)
                continue
            if frame.get("type") != "state" or state is None:
                continue
            if state.finished:
                return state
            if state.seat is None or (state.version == answered and not state.whole):
                # A whole frame at the version answered (a reconnection, a sync) says
                # the command was not stored: it was lost with the connection.
                continue
            choice = decide(state)
            if inspect.isawaitable(choice):
                choice = await choice
            if choice is not None:
                answered = state.version
                await self.command(choice, version=state.version)
        if self.state is None:
            raise ConnectionLost("the game never started")
        return self.state
