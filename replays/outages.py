"""What long-running processes do when the database goes away: wait, reconnect, go on.

Django reconnects only around requests (``close_old_connections``): a process that
serves none (``manage.py run_projections``, a Celery worker, an ASGI consumer) keeps a
broken connection, and every call fails with "the connection is closed" until someone
closes it. The event store's recorders close a lost connection themselves and try again
on a new one for a second or two (``replays.persistence.ConnectionLost``); for an
outage longer than that, such a process runs its units of work through
:func:`reconnecting`:

.. code-block:: python

    game = reconnecting(lambda: play_bot_game(games(), ruleset, bots,
                                              save_each_command=False))

A unit of work must be all or nothing (one transaction, as a game saved whole, a
projection's batch, an import) or safe to repeat: it is run again from the start once
the database answers. Web requests are not retried: they get a 503
(``config.errors.DatabaseUnavailableMiddleware``).
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import TypeVar

try:  # PostgreSQL is optional: the embedded default needs only SQLite.
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None  # type: ignore[assignment]
from django.db import connections
from django.db import utils as django_db_utils
from eventsourcing.persistence import InterfaceError, OperationalError

from replays.persistence import ConnectionLost, is_disconnect

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

WAITS: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0)
"""Seconds between tries to reach the database again, the last repeated."""

DATABASE_ERRORS: tuple[type[Exception], ...] = (
    django_db_utils.OperationalError, django_db_utils.InterfaceError,
    OperationalError, InterfaceError, sqlite3.OperationalError, sqlite3.InterfaceError,
    *((psycopg.OperationalError, psycopg.InterfaceError) if psycopg is not None else ()),
)
"""Errors that may mean the database went away: Django's (ORM, read models), the event
store's (the library's classes, which ``replays.persistence`` raises), and the drivers'
own, from code on a driver's cursor."""


def database_unavailable(error: BaseException, alias: str = "default") -> bool:
    """Whether ``error`` means that the database of ``alias`` cannot be reached: the
    connection broke or could not be made (not, say, a locked SQLite file or a
    missing table). A broken connection is closed, so that the next use makes a new one.
    Inside an ``atomic()`` block the answer is no: only the whole transaction can be
    tried again, by whoever opened it."""
    if isinstance(error, ConnectionLost):
        return True
    if not isinstance(error, DATABASE_ERRORS):
        return False
    wrapper = connections[alias]
    if wrapper.in_atomic_block:
        return False
    # By the error itself: an atomic() block that ended on it has reconnected already.
    if wrapper.connection is not None and not is_disconnect(error) and wrapper.is_usable():
        return False
    wrapper.close()
    return True


class Unreachable(Exception):
    """The database did not come back within the time allowed."""


def wait_for_database(alias: str = "default", *, deadline: float | None = None,
                      stop: threading.Event | None = None) -> bool:
    """Wait until the database of ``alias`` answers (a new connection, checked): True;
    False if ``stop`` was set first; :class:`Unreachable` after ``deadline``
    (``time.monotonic()``)."""
    stop = stop if stop is not None else threading.Event()
    wrapper = connections[alias]
    for attempt in itertools.count():
        try:
            wrapper.close()
            wrapper.ensure_connection()
            if wrapper.is_usable():
                return True
        except DATABASE_ERRORS:
            pass
        wait = WAITS[min(attempt, len(WAITS) - 1)]
        if deadline is not None and time.monotonic() + wait > deadline:
            raise Unreachable(f"the database {alias!r} did not answer in time")
        if stop.wait(wait):
            return False
    return False  # pragma: no cover (count() does not end)


def reconnecting(operation: Callable[[], _T], *, alias: str = "default",
                 give_up_after: float | None = 300.0, stop: threading.Event | None = None,
                 what: str = "work") -> _T:
    """``operation()``; if the database goes away (:func:`database_unavailable`), wait
    until it answers again and run ``operation()`` again, from the start. Logs when the
    database went away and when it came back. Gives up (raises the error) after
    ``give_up_after`` seconds of outage (None: never) or when ``stop`` is set."""
    outage_began: float | None = None
    while True:
        try:
            result = operation()
        except Exception as error:
            if not database_unavailable(error, alias):
                raise
            now = time.monotonic()
            if outage_began is None:
                outage_began = now
                logger.warning("%s: the database is unavailable (%s); waiting for it",
                               what, error)
            deadline = None if give_up_after is None else outage_began + give_up_after
            try:
                if not wait_for_database(alias, deadline=deadline, stop=stop):
                    raise error
            except Unreachable:
                logger.error("%s: the database has been unavailable for %.0f s; giving up",
                             what, time.monotonic() - outage_began)
                raise error from None
            continue
        if outage_began is not None:
            logger.info("%s: the database is back after %.1f s; went on", what,
                        time.monotonic() - outage_began)
        return result


__all__ = ["DATABASE_ERRORS", "Unreachable", "database_unavailable", "reconnecting",
           "wait_for_database"]
