"""A table's updates leave this process in the order its moves were stored.

A person's command and the table's driver (its bots, the clock) store moves at one
table from two tasks, each in a worker thread, and send their updates from the event
loop. Sent in another order than stored, a connection holding the later update drops
the earlier as old and its log has a hole (tests/play/test_live.py under load). Moves
stored by two processes can still cross in the channel layer: a connection fills such
a gap from the store (``play.consumers``).

Each move takes a ticket at the moment it is stored, under the game's lock
(``replays.store.game_lock``), so the tickets count the table's stores in this
process; its updates wait for every earlier ticket's before they go. A lock held
from the store call to the last send did the same, but it was also held while the
call waited for its worker thread: the driver's look at a table queues on the
process's one shared thread behind every other table's, and a bot account's command
at that table waited the whole queue (bench/live.py, outside bots, the first 5 s of
100 games started at once: p99 1,237 ms so, 544 ms with tickets). A look that stores
nothing takes no ticket and holds nobody up.

Written here, not taken from a library: asyncio's locks and conditions order their
holders by when they asked, not by when another thread stored.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar
from uuid import UUID

from channels.db import database_sync_to_async

T = TypeVar("T")


class Slot:
    """One store call's place in its table's order: a ticket once it stored a move."""

    __slots__ = ("abandoned", "order", "ticket")

    def __init__(self, order: SendOrder) -> None:
        self.order = order
        self.ticket: int | None = None
        self.abandoned = False
        """Its sender gave up (cancelled, failed) before the store call took a ticket."""


class SendOrder:
    """The order of one table's updates in this process and event loop (:func:`of`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._mutex = threading.Lock()  # tickets are taken in worker threads
        self._issued = 0
        self._sent = 0
        """Every ticket below this one is sent or given up: its holder's turn."""
        self._over: set[int] = set()
        self._waiting: dict[int, asyncio.Future[None]] = {}

    def slot(self) -> Slot:
        return Slot(self)

    def take(self, slot: Slot) -> None:
        """A ticket for ``slot`` (once), as its move is stored: any thread, under the
        game's lock."""
        with self._mutex:
            if slot.ticket is not None:
                return
            slot.ticket = self._issued
            self._issued += 1
            abandoned = slot.abandoned
            if abandoned:  # nobody will send it: its turn passes at once
                self._over.add(slot.ticket)
        if abandoned:
            self._loop.call_soon_threadsafe(self._advance)

    async def turn(self, slot: Slot) -> None:
        """Wait until every move this process stored before ``slot``'s is sent."""
        ticket = slot.ticket
        if ticket is None or ticket <= self._sent:
            return
        future = self._waiting[ticket] = self._loop.create_future()
        try:
            await future
        finally:
            del self._waiting[ticket]

    def done(self, slot: Slot) -> None:
        """``slot``'s updates are sent, or never will be: the next one's turn."""
        with self._mutex:
            if slot.ticket is None:
                slot.abandoned = True
                return
            self._over.add(slot.ticket)
        self._advance()

    def _advance(self) -> None:
        with self._mutex:
            while self._sent in self._over:
                self._over.remove(self._sent)
                self._sent += 1
        future = self._waiting.get(self._sent)
        if future is not None and not future.done():
            future.set_result(None)


_orders: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                   weakref.WeakValueDictionary[UUID, SendOrder]] = (
    weakref.WeakKeyDictionary())
_current = threading.local()


def of(table_id: UUID) -> SendOrder:
    """The table's order in this event loop, kept while a slot of it is alive."""
    loop = asyncio.get_running_loop()
    orders = _orders.get(loop)
    if orders is None:
        orders = _orders[loop] = weakref.WeakValueDictionary()
    order = orders.get(table_id)
    if order is None:
        order = orders[table_id] = SendOrder(loop)
    return order


def stored() -> None:
    """A move was stored now by this worker thread (``play.live.submit``, under the
    game's lock): its store call's slot takes its ticket. Outside
    :func:`stored_then_sent` (a page's view, a Celery task) there is no slot and
    nothing to order."""
    slot: Slot | None = getattr(_current, "slot", None)
    if slot is not None:
        slot.order.take(slot)


async def stored_then_sent(table_id: UUID, store: Callable[[], T],
                           send: Callable[[T], Awaitable[None]], *,
                           thread_sensitive: bool = False) -> T:
    """Run ``store`` in a worker thread (the process's shared one if
    ``thread_sensitive``), then ``send`` what it returned once every update this
    process stored before it at the table is sent. An exception of ``store`` or
    ``send`` is raised, and the next move's updates go."""
    order = of(table_id)
    slot = order.slot()

    def in_thread() -> T:
        _current.slot = slot
        try:
            return store()
        finally:
            _current.slot = None

    try:
        result: T = await database_sync_to_async(in_thread,
                                                 thread_sensitive=thread_sensitive)()
        await order.turn(slot)
        await send(result)
        return result
    finally:
        order.done(slot)
