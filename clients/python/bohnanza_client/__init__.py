"""A client for bot authors: play a seat of a Bohnanza platform's live table over its
websocket protocol (version 3, docs/protocol.md), and live a bot account's life over
its HTTP API (challenges, seeks, tables, the event stream: docs/bots.md), with nothing
of the platform installed.

    import asyncio
    from bohnanza_client import TableClient

    def decide(state):
        return state.commands[0] if state.awaited else None

    async def main():
        async with TableClient("http://127.0.0.1:8000", TABLE_ID, token=TOKEN) as table:
            last = await table.play(decide)
            print(last.result)

    asyncio.run(main())

A bot that accepts every challenge and plays every game it is seated at:

    from bohnanza_client import Account, Player

    asyncio.run(Player(Account("http://127.0.0.1:8000", TOKEN), lambda: decide).run())
"""

from bohnanza_client.account import Account, ApiError, StreamError, read_events
from bohnanza_client.player import Player
from bohnanza_client.refusals import (
    CODES,
    HANDSHAKE,
    ConnectionLost,
    HandshakeRefused,
    Refused,
    SeatLost,
    StreamReplaced,
)
from bohnanza_client.state import BEANOMETER, Field, State, coins_for
from bohnanza_client.table import PROTOCOL, TableClient, fallback, socket_url

__all__ = ["BEANOMETER", "CODES", "HANDSHAKE", "PROTOCOL", "Account", "ApiError",
           "ConnectionLost", "Field", "HandshakeRefused", "Player", "Refused", "SeatLost",
           "State", "StreamError", "StreamReplaced", "TableClient", "coins_for", "fallback",
           "read_events", "socket_url"]
