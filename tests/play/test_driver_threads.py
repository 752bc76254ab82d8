"""Where a table's driver thinks: at a table where a bot searches (up to a second a move
at search-deep), on a worker thread of its own, never on the one thread the process's
other store calls queue on (every other table's driver, joins, syncs and the lobby among
them), so that one bot thinking holds up no other table."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from bohnanza_core.bots import HeuristicBot
from bohnanza_core.seatview import SeatView
from play import driver
from play.models import Table
from tests.play.test_live import TIMEOUT, _people, _table, fresh, in_loop

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["fresh"]  # the autouse fixture, shared with test_live


@in_loop
async def test_a_bot_thinking_holds_up_no_other_store_call() -> None:
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["search", "open", "heuristic"], mine=1)
    thinking, go_on = threading.Event(), threading.Event()

    class Thinking(HeuristicBot):
        """The search bot's seat, thinking until the test lets it go on."""

        def act(self, view: SeatView) -> object:
            thinking.set()
            go_on.wait(TIMEOUT * 4)
            return super().act(view)

    driver._bots[(table.id, 0)] = Thinking(0, "thinking")
    driver.kick(table.id, get_channel_layer())
    try:
        assert await asyncio.to_thread(thinking.wait, TIMEOUT), "the bot was never asked"
        # While it thinks, a store call on the shared thread is answered at once.
        count = database_sync_to_async(Table.objects.filter(pk=table.pk).count)
        assert await asyncio.wait_for(count(), TIMEOUT) == 1
    finally:
        go_on.set()


@pytest.mark.parametrize("seats, replacement, searching", [
    (["search", "open", "heuristic"], "heuristic", True),
    (["search-deep", "open"], "heuristic", True),
    (["heuristic", "open", "random"], "search", True),
    (["heuristic", "open", "random"], "heuristic", False),
])
def test_a_table_searches_where_a_search_bot_may_move(
        seats: list[str], replacement: str, searching: bool) -> None:
    people = _people(1)
    table = _table(people, seats, mine=1, preset="classic" if len(seats) > 2 else "duel",
                   replacement_bot=replacement)
    assert driver.searches(table.id) is searching
