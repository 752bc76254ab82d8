"""A client for bot authors: play a seat of a Bohnanza platform's live table over its
websocket protocol (version 3, docs/protocol.md), with nothing of the platform
installed.

    import asyncio
    from bohnanza_client import TableClient

    def decide(state):
        return state.commands[0] if state.awaited else None

    async def main():
        async with TableClient("http://127.0.0.1:8000", TABLE_ID, token=TOKEN) as table:
            last = await table.play(decide)
            print(last.result)

    asyncio.run(main())
"""

from bohnanza_client.refusals import (
    CODES,
    HANDSHAKE,
    ConnectionLost,
    HandshakeRefused,
    Refused,
)
from bohnanza_client.state import BEANOMETER, Field, State, coins_for
from bohnanza_client.table import PROTOCOL, TableClient, fallback, socket_url

__all__ = ["BEANOMETER", "CODES", "HANDSHAKE", "PROTOCOL", "ConnectionLost", "Field",
           "HandshakeRefused", "Refused", "State", "TableClient", "coins_for", "fallback",
           "socket_url"]
