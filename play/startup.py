"""Picking up the running tables when an ASGI process starts (config/asgi.py).

A clock's deadline lives in the store, so a restarted server still keeps it; but it
fires only in a process that drives the table (``play.driver``). Each process starts
the drivers of every table that moves on its own (``driver.resume``) as soon as its
event loop runs, before any client comes back: under daphne (which has no ASGI
lifespan) when its reactor starts, under a server that speaks the lifespan protocol
(uvicorn, hypercorn) at ``lifespan.startup``. Several processes doing so are settled
by the store. From then on the process sweeps for new tables every few seconds
(``driver.start_sweeping``): a table another process made (a league's fixture, made by
a Celery worker) moves without anyone opening it. Before that, the process's heap is
settled for serving (:func:`settle_the_heap`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from typing import Any

from channels.layers import get_channel_layer

from play import driver

logger = logging.getLogger(__name__)

SERVING_GC_THRESHOLDS = (700, 10, 100)
"""The garbage collector's thresholds in a serving process (Python's: 700, 10, 10)."""

_started: set[int] = set()
"""The event loops (by id) whose tables have been picked up: once per process and loop."""


async def pick_up_tables() -> None:
    """Start the drivers of this process's event loop, once per loop."""
    loop = id(asyncio.get_running_loop())
    if loop in _started:
        return
    _started.add(loop)
    layer = get_channel_layer()
    driver.start_sweeping(layer)
    try:
        picked = await driver.resume(layer)
    except Exception:  # a server must come up even if the store is not there yet
        logger.exception("the running tables could not be picked up at start")
        return
    logger.info("%d running table(s) picked up at start", picked)


def settle_the_heap() -> None:
    """Keep the cyclic garbage collector from stopping a serving process for long.

    A full collection walks every tracked object and holds the event loop meanwhile.
    In bench/live.py (100 tables at one command a second, two daphnes) each daphne ran
    one every 10-15 s, taking 150-435 ms of wall time (110-180 ms of CPU) over about
    200,000 objects, more than half of them Django's, the apps' and the libraries'
    modules, functions and classes, which live as long as the process; the commands
    caught in one waited that long (the slow ones of a run came in clusters at the
    collections). Those objects are moved out of the collector's sight once started
    (``gc.freeze``), which halves a full collection (65-80 ms), and a full collection
    waits for 100 collections of the middle generation instead of 10: one in a 30 s
    stage instead of three, each process. The young generations keep Python's
    thresholds: with 10,000 instead of 700 new objects between collections, a young
    collection took up to 53 ms and the middle one 81 ms (at most 9.7 ms with 700).
    Garbage in reference cycles that reached the old generation (an exception and its
    traceback) lives longer before it is freed; that is the price."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVING_GC_THRESHOLDS)


def _on_reactor_start() -> None:
    settle_the_heap()
    asyncio.get_running_loop().create_task(pick_up_tables())


def when_daphne_runs() -> None:
    """Under daphne (its asyncio reactor installed): pick up the tables once the reactor
    runs. A delayed call, not a startup trigger: those fire before the asyncio loop
    runs. Elsewhere (tests, manage.py commands) nothing happens: no reactor is run."""
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is not None and hasattr(reactor, "callLater"):
        reactor.callLater(0, _on_reactor_start)


async def lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI lifespan protocol: pick up the tables at startup."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            settle_the_heap()
            await pick_up_tables()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await driver.stop_all()
            await send({"type": "lifespan.shutdown.complete"})
            return
