"""One Django database alias, as the recorders use it: connections, cursors, transactions.

The recorders reach the database through :class:`DjangoDatastore` only: Django's own
connection for this thread (closed with the thread where Django would not close it),
the driver's cursor on it (:mod:`replays.persistence.django_cursor`), a transaction of
the recorder's own or the caller's ``atomic()`` block, errors raised as the library's
(:mod:`replays.persistence.errors`), and the SQL dialect of the vendor.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal, cast
from uuid import UUID

from django.db import connections, transaction
from eventsourcing.persistence import NotSupportedError, ProgrammingError

from replays.persistence.django_cursor import driver_cursor
from replays.persistence.errors import DRIVER_ERRORS, Attempt, translated_errors

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

VENDORS = ("sqlite", "postgresql")
PG_MAX_IDENTIFIER_LENGTH = 63
PG_MAX_PARAMS = 65535  # the wire protocol counts parameters in 16 bits

OriginatorIdType = Literal["uuid", "text"]

ROWS_PER_INSERT = 128
"""The most rows one INSERT takes, on either vendor."""


def insert_chunks(n: int, largest: int = ROWS_PER_INSERT) -> Iterator[tuple[int, int]]:
    """(start, size) of the multi-row INSERTs that store ``n`` rows: sizes are powers of two
    up to ``largest`` (itself rounded down to one), so a handful of statements serve every
    batch, and the drivers keep them prepared: SQLite's statement cache, psycopg's cache of
    parsed queries and its server-side prepared statements. A statement per batch size
    would be parsed anew for each game: on SQLite ``executemany`` was 30% slower, and on
    PostgreSQL psycopg's parsing of a 650-row statement's placeholders took most of a
    game's save (bench/store.py)."""
    cap = 1 << (max(1, largest).bit_length() - 1)
    start = 0
    while start < n:
        size = min(cap, 1 << ((n - start).bit_length() - 1))
        yield start, size
        start += size


# --- connections --------------------------------------------------------------------------

_thread_closers = threading.local()


class _CloseWithThread:
    """Closes a worker thread's connection when the thread ends.

    Django keeps one connection per thread and alias and closes them only at the end of a
    request; a thread that never serves one (a thread pool's worker, a subscription's
    puller) would keep its connection open until garbage collection finds the wrapper.
    Thread-local values are released as soon as their thread exits, and this object is one.
    """

    def __init__(self, wrapper: BaseDatabaseWrapper) -> None:
        self.wrapper = wrapper

    def __del__(self) -> None:
        try:  # Django's own close: hands a pooled connection back to its pool
            self.wrapper.close()
        except Exception:
            raw = self.wrapper.connection
            if raw is not None:
                with contextlib.suppress(Exception):
                    raw.close()


class DjangoDatastore:
    """One Django database alias, as the recorders use it.

    Statements go through the driver's own cursor on Django's connection, not Django's
    cursor wrapper, which would format every statement when DEBUG is on and reformat
    parameters on SQLite, for nothing the recorders need. What the wrapper offers others
    still happens (:mod:`replays.persistence.django_cursor`): ``connection.
    execute_wrapper()`` hooks see every statement, and so do ``connection.queries`` and
    the SQL logger while Django logs queries; with neither, the bare cursor runs, at no
    cost. Writes join the caller's
    ``atomic()`` block (see :meth:`transaction`). A lost connection is closed and raised
    as :class:`ConnectionLost`; the recorders try again on a new one
    (:mod:`replays.persistence.retries`).
    """

    def __init__(self, alias: str = "default", *, originator_id_type: str = "uuid") -> None:
        if alias not in connections.settings:
            msg = f"Django database alias {alias!r} is not in settings.DATABASES"
            raise OSError(msg)
        kind = originator_id_type.lower()
        if kind not in ("uuid", "text"):
            msg = f"Invalid ORIGINATOR_ID_TYPE {originator_id_type!r}, must be 'uuid' or 'text'"
            raise OSError(msg)
        self.alias = alias
        self.originator_id_type: OriginatorIdType = cast(OriginatorIdType, kind)
        wrapper = connections[alias]
        self.vendor: str = wrapper.vendor
        if self.vendor not in VENDORS:
            msg = f"The event store runs on SQLite or PostgreSQL, not {self.vendor!r} ({alias})"
            raise NotSupportedError(msg)
        self.is_postgres = self.vendor == "postgresql"
        self.placeholder = "%s" if self.is_postgres else "?"
        self.database_name = str(wrapper.settings_dict["NAME"])
        # LISTEN/NOTIFY wakes PostgreSQL subscribers; the poll only backs it up. SQLite
        # subscribers are woken in-process by inserts, and poll for other processes' inserts.
        self.poll_interval = 1.0 if self.is_postgres else 0.1
        self._max_params: int | None = None
        mode = None if self.is_postgres else wrapper.settings_dict["OPTIONS"].get(
            "transaction_mode")
        self._begin = f"BEGIN {mode.upper()}" if mode else "BEGIN"

    @property
    def connection(self) -> BaseDatabaseWrapper:
        """This thread's Django connection for the alias."""
        wrapper = connections[self.alias]
        if threading.current_thread() is not threading.main_thread():
            closers: dict[str, _CloseWithThread] | None = getattr(_thread_closers, "by_alias", None)
            if closers is None:
                closers = _thread_closers.by_alias = {}
            # A wrapper shared with other threads (a live test server's) is not ours to close.
            if self.alias not in closers and not wrapper.allow_thread_sharing:
                closers[self.alias] = _CloseWithThread(wrapper)
        return wrapper

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Any]:
        """A cursor outside any transaction of ours: in the caller's, or autocommit."""
        wrapper = self.connection
        with translated_errors(wrapper):
            wrapper.validate_no_broken_transaction()
            wrapper.ensure_connection()
            cursor = driver_cursor(wrapper)
            try:
                yield cursor
            finally:
                cursor.close()

    @contextlib.contextmanager
    def transaction(self, on_commit: Callable[[], None] | None = None) -> Iterator[Any]:
        """A cursor in a transaction: the caller's ``atomic()`` block if there is one,
        else one of our own; ``on_commit`` runs once it has committed.

        The caller's block is joined through ``atomic(using=alias, savepoint=False)``: no
        savepoint, so an error dooms the caller's transaction, as with Django's own
        ``save()``; a stale write means the whole command is retried, not half of it.
        Outside any block the recorder runs BEGIN (with the alias's SQLite
        ``transaction_mode``) and COMMIT on Django's connection itself, which is what an
        outermost ``atomic()`` would send, without its bookkeeping: measured, that costs
        about as much as the statements of a one-event save on SQLite.
        """
        wrapper = self.connection
        attempt = Attempt()
        with translated_errors(wrapper, attempt):
            wrapper.ensure_connection()
            if wrapper.in_atomic_block or not wrapper.autocommit:
                with transaction.atomic(using=self.alias, savepoint=False):
                    wrapper.validate_no_broken_transaction()
                    if on_commit is not None:  # dropped by Django if this rolls back
                        transaction.on_commit(on_commit, using=self.alias)
                    cursor = driver_cursor(wrapper)
                    try:
                        yield cursor
                    finally:
                        cursor.close()
                return
            cursor = driver_cursor(wrapper)
            try:
                cursor.execute(self._begin)
                yield cursor
                attempt.committing = True
                cursor.execute("COMMIT")
            except BaseException:
                # BEGIN may have failed (no transaction), or the connection be gone
                # (translated_errors closes it).
                with contextlib.suppress(*DRIVER_ERRORS):
                    cursor.execute("ROLLBACK")
                raise
            finally:
                with contextlib.suppress(*DRIVER_ERRORS):
                    cursor.close()
        if on_commit is not None:
            on_commit()

    def in_transaction(self) -> bool:
        """Whether this thread's connection is in a transaction (a caller's ``atomic()``
        block, or autocommit off), which a write of ours then joins."""
        wrapper = self.connection
        return bool(wrapper.in_atomic_block or not wrapper.autocommit)

    @contextlib.contextmanager
    def autocommitted(self) -> Iterator[Any]:
        """A cursor outside any transaction (check :meth:`in_transaction` first): each
        statement is a transaction of its own, committed by the server as it completes.
        For a write that is one statement (:meth:`DjangoApplicationRecorder.
        insert_events`): its locks are then held only while the server runs it, not
        also while the client, after its answer, sends the COMMIT."""
        wrapper = self.connection
        with translated_errors(wrapper, Attempt(committing=True)):
            wrapper.ensure_connection()
            cursor = driver_cursor(wrapper)
            try:
                yield cursor
            finally:
                with contextlib.suppress(*DRIVER_ERRORS):
                    cursor.close()

    def insert_chunks(self, n: int, columns: int) -> list[tuple[int, int]]:
        """:func:`insert_chunks` for ``n`` rows of ``columns`` values each, within the
        vendor's limit on bound parameters."""
        return list(insert_chunks(n, min(ROWS_PER_INSERT, self.max_rows_per_statement(columns))))

    def max_rows_per_statement(self, columns: int) -> int:
        """Rows per multi-row INSERT, within the vendor's limit on bound parameters."""
        if self._max_params is None:
            if self.is_postgres:
                self._max_params = PG_MAX_PARAMS
            else:  # 32766 since SQLite 3.32, whatever Django's conservative 999 says
                with self.cursor() as cursor:
                    limit = cursor.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
                self._max_params = int(limit)
        return max(1, self._max_params // columns)

    def quote(self, name: str) -> str:
        if self.is_postgres and len(name) > PG_MAX_IDENTIFIER_LENGTH:
            msg = f"Identifier too long for PostgreSQL: {name}"
            raise ProgrammingError(msg)
        return connections[self.alias].ops.quote_name(name)

    def encode_originator_id(self, originator_id: UUID | str) -> Any:
        if self.originator_id_type == "uuid":
            uuid = originator_id if isinstance(originator_id, UUID) else UUID(originator_id)
            return uuid if self.is_postgres else uuid.hex
        if isinstance(originator_id, UUID):  # as eventsourcing.sqlite / .postgres store it
            return str(originator_id) if self.is_postgres else originator_id.hex
        return originator_id

    def decode_originator_id(self, value: Any) -> UUID | str:
        if self.originator_id_type == "uuid" and not isinstance(value, UUID):
            return UUID(value)
        return cast("UUID | str", value)

    def listen_params(self) -> dict[str, Any]:
        """Connection parameters for a dedicated LISTEN connection (PostgreSQL only)."""
        params = dict(connections[self.alias].get_connection_params())
        params["autocommit"] = True
        return params


__all__ = ["PG_MAX_PARAMS", "ROWS_PER_INSERT", "VENDORS", "DjangoDatastore", "insert_chunks"]
