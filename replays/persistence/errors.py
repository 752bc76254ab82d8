"""Driver errors as the library's: what applications catch, and a lost connection.

Applications of ``eventsourcing`` catch its exception classes (``IntegrityError`` for a
stale write above all), whatever the database: :func:`translated_errors` raises them for
Django's, sqlite3's and psycopg's errors, and :class:`ConnectionLost` where the
connection itself is gone (which the recorders try again on a new connection:
:mod:`replays.persistence.retries`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import utils as django_db_utils
from eventsourcing.persistence import (
    DatabaseError,
    DataError,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    PersistenceError,
    ProgrammingError,
)

from replays.persistence.django_cursor import note_error

try:  # PostgreSQL is optional: the embedded default needs only SQLite.
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

# PEP 249 names, most specific first: Django's wrapped errors, sqlite3's and psycopg's all
# follow them, so one walk up the class hierarchy maps any of them.
_ERRORS_BY_NAME: dict[str, type[PersistenceError]] = {
    "IntegrityError": IntegrityError,
    "DataError": DataError,
    "OperationalError": OperationalError,
    "InternalError": InternalError,
    "ProgrammingError": ProgrammingError,
    "NotSupportedError": NotSupportedError,
    "InterfaceError": InterfaceError,
    "DatabaseError": DatabaseError,
}
DRIVER_ERRORS: tuple[type[Exception], ...] = (django_db_utils.Error, sqlite3.Error) + (
    (psycopg.Error,) if psycopg is not None else ()
)


class OutOfSequenceError(IntegrityError):
    """Events refused because they do not follow their aggregate's last stored event: an
    aggregate's first event is version 0 or 1 (the library's aggregates start at 1), and
    each later one is one more than the one before. Nothing of the batch is stored."""


def persistence_error(error: Exception) -> PersistenceError:
    for cls in type(error).__mro__:
        mapped = _ERRORS_BY_NAME.get(cls.__name__)
        if mapped is not None:
            return mapped(str(error))
    return PersistenceError(str(error))


class ConnectionLost(OperationalError):
    """The database connection broke, or none could be made: Django's connection has been
    closed, so the next use of the database makes a new one. Raised by the recorders
    outside a caller's transaction only (inside one, the caller's ``atomic()`` deals with
    the broken connection, and the whole transaction must be tried again)."""

    commit_unknown: bool = False
    """Lost while the transaction was committing: it may or may not have committed."""


@dataclass
class Attempt:
    """Where a transaction of ours got to, for the error that ends it."""

    committing: bool = False


_DISCONNECT_STATES = ("57P01", "57P02", "57P03")
"""PostgreSQL's admin_shutdown (``pg_terminate_backend``, a fast shutdown),
crash_shutdown and cannot_connect_now (starting up); and the class 08, connection
exceptions."""


def is_disconnect(error: BaseException) -> bool:
    """Whether ``error`` (or an error it was raised from) says the connection itself was
    lost or could not be made, as opposed to a statement failing on a working one.

    Asking the connection afterwards is not enough: an ``atomic()`` block that ends on
    such an error rolls back and reconnects (``set_autocommit``) on its way out, so the
    connection then works."""
    seen: BaseException | None = error
    while seen is not None:
        if psycopg is not None and isinstance(seen, psycopg.OperationalError
                                              | psycopg.InterfaceError):
            state = seen.sqlstate
            # No state: the client found the connection broken, closed, or not made.
            return state is None or state.startswith("08") or state in _DISCONNECT_STATES
        seen = seen.__cause__ or seen.__context__
    return False


def connection_lost(wrapper: BaseDatabaseWrapper, error: BaseException) -> bool:
    """Whether the connection is gone (never made, broken, or found unusable: then
    closed, as Django does between requests), outside any ``atomic()`` block only."""
    if wrapper.in_atomic_block:
        return False
    if wrapper.connection is not None and not is_disconnect(error) and wrapper.is_usable():
        return False  # SQLite's always is usable: "database is locked" is not an outage
    with contextlib.suppress(Exception):
        wrapper.close()
    return True


@contextlib.contextmanager
def translated_errors(wrapper: BaseDatabaseWrapper,
                       attempt: Attempt | None = None) -> Iterator[None]:
    """Raise the library's exception classes, which applications catch, for driver errors;
    :class:`ConnectionLost` where the connection is gone.

    Also tell Django, as its own cursors do, so that it checks the connection is still
    usable at the end of the request.
    """
    try:
        yield
    except DRIVER_ERRORS as error:
        note_error(wrapper)
        mapped = persistence_error(error)
        if (isinstance(mapped, OperationalError | InterfaceError)
                and connection_lost(wrapper, error)):
            lost = ConnectionLost(str(error))
            lost.commit_unknown = attempt is not None and attempt.committing
            raise lost from error
        raise mapped from error


__all__ = ["DRIVER_ERRORS", "Attempt", "ConnectionLost", "OutOfSequenceError",
           "is_disconnect", "translated_errors"]
