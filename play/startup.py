"""Picking up the running tables when an ASGI process starts (config/asgi.py).

A clock's deadline lives in the store, so a restarted server still keeps it; but it
fires only in a process that drives the table (``play.driver``). Each process starts
the drivers of every table that moves on its own (``driver.resume``) as soon as its
event loop runs, before any client comes back: under daphne (which has no ASGI
lifespan) when its reactor starts, under a server that speaks the lifespan protocol
(uvicorn, hypercorn) at ``lifespan.startup``. Several processes doing so are settled
by the store. From then on the process sweeps for new tables every few seconds
(``driver.start_sweeping``): a table another process made (a league's fixture, made by
a Celery worker) moves without anyone opening it.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

from channels.layers import get_channel_layer

from play import driver

logger = logging.getLogger(__name__)

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


def _on_reactor_start() -> None:
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
            await pick_up_tables()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await driver.stop_all()
            await send({"type": "lifespan.shutdown.complete"})
            return
