#!/usr/bin/env python3
"""Play one seat of a live table from outside, over the websocket (docs/protocol.md),
with the built-in ``heuristic`` bot's logic.

The bot sees exactly what a person in that seat is sent: each ``state`` frame is turned
into a :class:`bohnanza_core.wire.WireView` (the frame's table, legal moves and public
facts; no game state), the bot decides on it, and its command goes back as a ``command``
frame. The server decides whether it is legal, as for anyone.

    python examples/remote_bot.py ws://127.0.0.1:8000/ws/tables/<table id>/ TOKEN

TOKEN is the bot account's API token (``manage.py bot_token NAME`` prints a new one); the
account must sit at the table. It asks for its frames without the table's drawing
(``?html=0``): the HTML is for people. The socket client is autobahn's, which the platform's
server (daphne) already installs.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any
from urllib.parse import urlparse

from bohnanza_core.bots import BOTS
from bohnanza_core.state import Phase
from bohnanza_core.wire import WireView, command_to_json


class RemoteSeat:
    """The bot's side of the protocol: a state frame in, at most one command out."""

    def __init__(self, bot_name: str = "heuristic") -> None:
        self.bot_name = bot_name
        self.bot: Any = None
        self.chance_turn = -1
        self.sent_at = -1

    def answer(self, frame: dict[str, Any]) -> dict[str, Any] | None:
        """The command frame to send for ``frame``, or None (not this seat's move)."""
        if frame.get("type") != "state" or frame["finished"] or frame["seat"] is None:
            return None
        seat = frame["seat"]
        if self.bot is None:
            self.bot = BOTS[self.bot_name](seat, f"remote:{frame['table_id']}:{seat}")
        seen = WireView(frame)
        awaited = seen.awaiting[:1] == (seat,)
        chance = (seen.phase is Phase.TRADING and seen.active != seat
                  and self.chance_turn != seen.turn)
        if not (awaited or chance) or self.sent_at == frame["version"]:
            return None
        if chance:
            self.chance_turn = seen.turn
        command = self.bot.act(seen)
        if command is None:
            return None
        self.sent_at = frame["version"]
        return {"type": "command", "version": frame["version"],
                "command": command_to_json(command)}


def main(url: str, token: str) -> None:
    # Imported here: autobahn's asyncio flavour cannot share a process with daphne's
    # Twisted one (the tests import RemoteSeat beside the server).
    from autobahn.asyncio.websocket import WebSocketClientFactory, WebSocketClientProtocol

    seat = RemoteSeat()
    done = asyncio.get_event_loop().create_future()

    class Client(WebSocketClientProtocol):  # type: ignore[misc]
        def onMessage(self, payload: bytes, is_binary: bool) -> None:
            frame = json.loads(payload)
            if frame.get("type") == "error":
                print("refused:", frame["reason"], file=sys.stderr)
                self.sendMessage(b'{"type": "sync"}')
                return
            reply = seat.answer(frame)
            if reply is not None:
                self.sendMessage(json.dumps(reply).encode())
            if frame.get("type") == "state" and frame["finished"]:
                print("game over:", frame["answer"]["table"]["result"])
                self.sendClose()

        def onClose(self, was_clean: bool, code: int | None, reason: str | None) -> None:
            if not done.done():
                done.set_result(code)

    # ``html=0``: the frames without the table's drawing, which a program never reads.
    url += ("&" if "?" in url else "?") + "html=0"
    where = urlparse(url)
    factory = WebSocketClientFactory(url, headers={"Authorization": f"Bearer {token}"},
                                     origin=f"http://{where.hostname}")
    factory.protocol = Client
    loop = asyncio.get_event_loop()
    loop.run_until_complete(loop.create_connection(factory, where.hostname,
                                                   where.port or 80))
    loop.run_until_complete(done)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
