"""Trying a recorder call again when the database connection was lost.

Every recorder call outside a caller's transaction is one transaction of its own, all or
nothing, so it is safe to try again on a new connection: :func:`reconnecting` does, for
about two seconds (:data:`RECONNECT_WAITS`), then lets :class:`ConnectionLost` through
for the caller to wait out (:func:`replays.outages.reconnecting`). A save whose
connection was lost while it committed may have committed: :func:`insert_once` then
finds exactly its rows stored and answers with their ids, so a save is stored once.
Inside a caller's ``atomic()`` block nothing is retried (the recorders never raise
:class:`ConnectionLost` there): the whole transaction is the caller's to repeat.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from eventsourcing.persistence import IntegrityError

from replays.persistence.errors import ConnectionLost

logger = logging.getLogger(__name__)
_R = TypeVar("_R")

RECONNECT_WAITS: tuple[float, ...] = (0.0, 0.1, 0.25, 0.5, 1.0)
"""Seconds to wait before each new try of a recorder call whose connection was lost: a
connection the server dropped (restarted, idle timeout, ``pg_terminate_backend``) is
replaced at once; a database away for longer is for the caller to wait out
(:func:`replays.outages.reconnecting`), as the library's PostgreSQL recorder retries
for about two seconds (``@retry``, 10 x 0.2 s)."""


def tries() -> Iterator[float]:
    """The waits before each try of a recorder call: none before the first."""
    yield 0.0
    yield from RECONNECT_WAITS


def reconnecting(method: Callable[..., _R]) -> Callable[..., _R]:
    """Try a recorder call again on a new connection when the connection was lost (every
    call outside a caller's transaction is all or nothing, so trying it again is safe)."""

    @functools.wraps(method)
    def tried(self: Any, *args: Any, **kwargs: Any) -> _R:
        lost: ConnectionLost | None = None
        for wait in tries():
            if lost is not None:
                logger.warning("event store: %s; trying again on a new connection", lost)
                time.sleep(wait)
            try:
                return method(self, *args, **kwargs)
            except ConnectionLost as error:
                lost = error
        assert lost is not None
        raise lost

    return tried


def insert_once(insert: Callable[[], _R],
                already_stored: Callable[[], list[Any] | None]) -> _R | list[Any]:
    """``insert()``, tried again on a new connection when the connection was lost. If it
    was lost while committing, the rows may be stored already: then the next try
    collides with them, and if the rows stored are exactly these (``already_stored()``
    gives their ids, else None), that is the answer, not an IntegrityError."""
    lost: ConnectionLost | None = None
    unknown = False
    for wait in tries():
        if lost is not None:
            logger.warning("event store: %s; trying again on a new connection", lost)
            time.sleep(wait)
        try:
            return insert()
        except ConnectionLost as error:
            lost, unknown = error, unknown or error.commit_unknown
        except IntegrityError:
            ids = already_stored() if unknown else None
            if ids is None:
                raise
            logger.warning("event store: the rows of a commit whose answer was lost are "
                           "stored: it did commit")
            return ids
    assert lost is not None
    raise lost


__all__ = ["RECONNECT_WAITS", "insert_once", "reconnecting", "tries"]
