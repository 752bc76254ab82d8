"""The event store: `eventsourcing` recorders on Django's own database connections.

Set ``PERSISTENCE_MODULE=replays.persistence`` (and optionally ``DJANGO_DB_ALIAS``) and an
application stores its events through ``django.db.connections[alias]``, inside
``transaction.atomic(using=alias)``. Called inside a caller's ``atomic()`` block, a recorder
joins that transaction, so events, tracking records and read models commit or roll back
together. The same code runs on SQLite and PostgreSQL; ``connection.vendor`` only picks the
SQL dialect.

Tables are named after the application, as ``eventsourcing.postgres`` names them, so several
applications share one database: ``games_events`` (and ``games_notification_counter`` on
PostgreSQL), ``games_snapshots``, ``games_tracking``; without a name ``stored_events``,
``notification_tracking``.

Notification ids must become visible in increasing order (a reader that has seen id n
never later sees a newly committed id below n) and one transaction's ids must not
interleave with another's; ours are also gapless.

- PostgreSQL: each application has a one-row counter table. The inserting statement runs
  ``UPDATE <app>_notification_counter SET last = last + n`` and numbers its events
  ``last - n + 1 .. last``. The update holds a *row* lock until the transaction ends, so
  only the id assignment of writers to the same application is serialised: readers, other
  applications and other tables never wait, and no table is locked (``eventsourcing.postgres``
  takes ``LOCK TABLE ... IN EXCLUSIVE MODE`` instead). A writer gets its ids only after the
  previous one committed or rolled back, hence the order; a rolled-back transaction rolls
  the counter back too, hence no gaps. Inside a caller's long transaction the counter stays
  held until it ends, so save events last (``Games.save_games``: several games' events as
  the transaction's last statements), and a large batch is encoded before the counter is
  taken. Needs READ COMMITTED (Django's default): a
  stricter isolation level makes a waiting writer fail instead of reading the new count.
- SQLite serialises writers itself (one write lock per database, taken by the first write,
  or at BEGIN with the settings' ``transaction_mode: IMMEDIATE``), so the rowid numbers the
  rows: each new row gets one more than the largest, which a rollback takes back. A counter
  table would only cost a page write per commit.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import queue
import sqlite3
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast
from uuid import UUID

from django.db import connections, transaction
from django.db import utils as django_db_utils
from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    DatabaseError,
    DataError,
    InfrastructureFactory,
    IntegrityError,
    InterfaceError,
    InternalError,
    ListenNotifySubscription,
    Notification,
    NotSupportedError,
    OperationalError,
    PersistenceError,
    ProcessRecorder,
    ProgrammingError,
    ShutDown,
    StoredEvent,
    Subscription,
    Tracking,
    TrackingRecorder,
)
from eventsourcing.utils import Environment, EnvType, resolve_topic, strtobool

try:  # PostgreSQL is optional: the embedded default needs only SQLite.
    import psycopg
    from psycopg import sql as pg_sql
except ImportError:  # pragma: no cover
    psycopg = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

logger = logging.getLogger(__name__)
_R = TypeVar("_R")

__all__ = [
    "STORE_APPLICATIONS",
    "STORE_PROJECTIONS",
    "ConnectionLost",
    "DjangoAggregateRecorder",
    "DjangoApplicationRecorder",
    "DjangoDatastore",
    "DjangoFactory",
    "DjangoProcessRecorder",
    "DjangoSubscription",
    "DjangoTrackingRecorder",
    "Factory",
    "OutOfSequenceError",
    "create_store_tables",
    "drop_store_tables",
    "is_disconnect",
]

STORE_APPLICATIONS: tuple[str, ...] = ("Games", "Disputes")
"""The platform's event-sourced applications: each gets events, counter and snapshots tables."""
STORE_PROJECTIONS: tuple[str, ...] = ("GameList",)
"""The platform's projections (materialised views): each gets a tracking table."""

VENDORS = ("sqlite", "postgresql")
PG_MAX_IDENTIFIER_LENGTH = 63
PG_MAX_PARAMS = 65535  # the wire protocol counts parameters in 16 bits
COLUMNS_PER_EVENT = 5  # originator_id, originator_version, topic, state, notification_id

OriginatorIdType = Literal["uuid", "text"]

PG_COPY_FROM = 64
"""Batches of at least this many events go into PostgreSQL by COPY (one command's few
events by one INSERT, a round trip fewer)."""

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


def _first_versions(values: list[Any]) -> dict[Any, int]:
    """The first version of each aggregate in rows given as flat values (four a row), after
    checking that each aggregate's rows are consecutive versions (OutOfSequenceError).

    A game's save is one aggregate's rows, numbered from a range: checked by comparing
    lists, not row by row (bench/store.py, record)."""
    originators, versions = values[0::4], values[1::4]
    if len(set(originators)) == 1:
        first = versions[0]
        if versions != list(range(first, first + len(versions))):
            raise OutOfSequenceError(f"events out of sequence, nothing stored: versions "
                                     f"{versions} of one aggregate are not consecutive")
        return {originators[0]: first}
    firsts: dict[Any, int] = {}
    last: dict[Any, int] = {}
    for originator_id, version in zip(originators, versions, strict=True):
        before = last.get(originator_id)
        if before is None:
            firsts[originator_id] = version
        elif version != before + 1:
            raise OutOfSequenceError(f"events out of sequence, nothing stored: version "
                                     f"{version} follows {before} in one batch")
        last[originator_id] = version
    return firsts


def _empty_stored(first: int) -> int:
    """What stands for "nothing stored yet" when checking that events beginning at
    ``first`` follow the last stored one (``first - 1``): that where an aggregate may
    begin (versions 0 and 1), else something that does not."""
    return first - 1 if first in (0, 1) else first - 2


# --- errors -------------------------------------------------------------------------------

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
_DRIVER_ERRORS: tuple[type[Exception], ...] = (django_db_utils.Error, sqlite3.Error) + (
    (psycopg.Error,) if psycopg is not None else ()
)


class OutOfSequenceError(IntegrityError):
    """Events refused because they do not follow their aggregate's last stored event: an
    aggregate's first event is version 0 or 1 (the library's aggregates start at 1), and
    each later one is one more than the one before. Nothing of the batch is stored."""


def _persistence_error(error: Exception) -> PersistenceError:
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
class _Attempt:
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


def _connection_lost(wrapper: BaseDatabaseWrapper, error: BaseException) -> bool:
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
def _translated_errors(wrapper: BaseDatabaseWrapper,
                       attempt: _Attempt | None = None) -> Iterator[None]:
    """Raise the library's exception classes, which applications catch, for driver errors;
    :class:`ConnectionLost` where the connection is gone.

    Also tell Django, as its own cursors do, so that it checks the connection is still
    usable at the end of the request.
    """
    try:
        yield
    except _DRIVER_ERRORS as error:
        wrapper.errors_occurred = True
        mapped = _persistence_error(error)
        if (isinstance(mapped, OperationalError | InterfaceError)
                and _connection_lost(wrapper, error)):
            lost = ConnectionLost(str(error))
            lost.commit_unknown = attempt is not None and attempt.committing
            raise lost from error
        raise mapped from error


RECONNECT_WAITS: tuple[float, ...] = (0.0, 0.1, 0.25, 0.5, 1.0)
"""Seconds to wait before each new try of a recorder call whose connection was lost: a
connection the server dropped (restarted, idle timeout, ``pg_terminate_backend``) is
replaced at once; a database away for longer is for the caller to wait out
(:func:`replays.outages.reconnecting`), as the library's PostgreSQL recorder retries
for about two seconds (``@retry``, 10 x 0.2 s)."""


def _tries() -> Iterator[float]:
    """The waits before each try of a recorder call: none before the first."""
    yield 0.0
    yield from RECONNECT_WAITS


def _reconnecting(method: Callable[..., _R]) -> Callable[..., _R]:
    """Try a recorder call again on a new connection when the connection was lost (every
    call outside a caller's transaction is all or nothing, so trying it again is safe)."""

    @functools.wraps(method)
    def tried(self: Any, *args: Any, **kwargs: Any) -> _R:
        lost: ConnectionLost | None = None
        for wait in _tries():
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


class _Doorbell:
    """In-process wake-up for subscriptions: a condition and a count of rings."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.rings = 0

    def ring(self) -> None:
        with self.condition:
            self.rings += 1
            self.condition.notify_all()

    def wait(self, seen: int, timeout: float, stopped: threading.Event) -> int:
        """Wait until rung after ``seen`` rings, ``timeout`` passes or ``stopped`` is set."""
        with self.condition:
            self.condition.wait_for(lambda: self.rings != seen or stopped.is_set(), timeout)
            return self.rings


_doorbells: dict[tuple[str, str], _Doorbell] = {}
_doorbells_lock = threading.Lock()


def _doorbell_for(database: str, table: str) -> _Doorbell:
    with _doorbells_lock:
        return _doorbells.setdefault((database, table), _Doorbell())


class _HookedCursor:
    """The driver's cursor, its statements passed through the connection's
    ``execute_wrappers`` (``connection.execute_wrapper()``: query loggers, APM agents)
    with the context Django gives them, and, while Django logs queries (DEBUG, or a test
    capturing them), into ``connection.queries`` and the ``django.db.backends`` logger
    as Django's own cursors put them there: the SQL and its time, never the parameters,
    which hold hands and seeds."""

    def __init__(self, cursor: Any, wrapper: BaseDatabaseWrapper) -> None:
        self.cursor = cursor
        self.wrapper = wrapper

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cursor, name)

    def execute(self, sql: str, params: Any = None) -> Any:
        return self.hooked(sql, params, self._execute)

    def _execute(self, sql: str, params: Any) -> Any:
        return self.cursor.execute(sql) if params is None else self.cursor.execute(sql, params)

    def hooked(self, sql: str, params: Any, run: Callable[[str, Any], _R]) -> _R:
        """``run(sql, params)`` as the wrappers let it run (they may change the SQL, as
        sqlcommenter does)."""

        def execute(sql: str, params: Any, many: bool, context: dict[str, Any]) -> _R:
            return run(sql, params)

        executor: Callable[..., _R] = execute
        for hook in reversed(self.wrapper.execute_wrappers):
            executor = functools.partial(hook, executor)
        if not self.wrapper.queries_logged:
            return executor(sql, params, False, {"connection": self.wrapper, "cursor": self})
        started = time.monotonic()
        try:
            return executor(sql, params, False, {"connection": self.wrapper, "cursor": self})
        finally:
            duration = time.monotonic() - started
            self.wrapper.queries_log.append({"sql": sql, "time": f"{duration:.3f}"})
            logging.getLogger("django.db.backends").debug(
                "(%.3f) %s; args=(not logged: event store values); alias=%s", duration, sql,
                self.wrapper.alias, extra={"duration": duration, "sql": sql, "params": None,
                                           "alias": self.wrapper.alias})


_PG_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, no extension
_PG_COPY_TRAILER = b"\xff\xff"
_PG_INT8_FIELD = struct.Struct(">iq")  # a field's length (8), then a bigint


def _binary_rows(rows: Sequence[tuple[Any, ...]]) -> list[bytes]:
    """Rows (originator_id, originator_version, topic, state) in PostgreSQL's binary COPY
    format, each without its last field, the notification id (:func:`_numbered_binary`).
    The originator id is a UUID (a ``uuid`` column: its 16 bytes) or text."""
    pack = struct.pack
    topics: dict[str, bytes] = {}
    encoded: list[bytes] = []
    append = encoded.append
    for originator_id, version, topic, state in rows:
        head = (originator_id.bytes if isinstance(originator_id, UUID)
                else str(originator_id).encode())
        word = topics.get(topic)
        if word is None:
            raw = topic.encode()
            word = topics[topic] = pack(">i", len(raw)) + raw
        state = bytes(state)
        append(b"".join((pack(">hi", 5, len(head)), head, _PG_INT8_FIELD.pack(8, version),
                         word, pack(">i", len(state)), state)))
    return encoded


def _numbered_binary(encoded: list[bytes], first: int) -> bytes:
    """A binary COPY's whole data: :func:`_binary_rows` numbered from ``first``."""
    number = _PG_INT8_FIELD.pack
    return b"".join((_PG_COPY_HEADER,
                     *[row + number(8, i) for i, row in enumerate(encoded, first)],
                     _PG_COPY_TRAILER))


def _copy_data(cursor: Any, statement: str, data: bytes) -> None:
    """COPY ``data`` (already in the statement's format) in by ``statement`` (PostgreSQL),
    through the hooks if there are any."""

    def run(statement: str, params: Any) -> None:
        with cursor.copy(statement) as copy:
            copy.write(data)

    if isinstance(cursor, _HookedCursor):
        cursor.hooked(statement, None, run)
    else:
        run(statement, None)


class DjangoDatastore:
    """One Django database alias, as the recorders use it.

    Statements go through the driver's own cursor on Django's connection, not Django's
    cursor wrapper, which would format every statement when DEBUG is on and reformat
    parameters on SQLite, for nothing the recorders need. What the wrapper offers others
    still happens (:class:`_HookedCursor`): ``connection.execute_wrapper()`` hooks see
    every statement, and so do ``connection.queries`` and the SQL logger while Django logs
    queries; with neither, the bare cursor runs, at no cost. Writes join the caller's
    ``atomic()`` block (see :meth:`transaction`). A lost connection is closed and raised
    as :class:`ConnectionLost`; the recorders try again on a new one (``_reconnecting``).
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

    @staticmethod
    def _cursor(wrapper: BaseDatabaseWrapper) -> Any:
        """The driver's cursor, hooked only if someone listens (see the class)."""
        cursor = wrapper.connection.cursor()
        if wrapper.execute_wrappers or wrapper.queries_logged:
            return _HookedCursor(cursor, wrapper)
        return cursor

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Any]:
        """A cursor outside any transaction of ours: in the caller's, or autocommit."""
        wrapper = self.connection
        with _translated_errors(wrapper):
            wrapper.validate_no_broken_transaction()
            wrapper.ensure_connection()
            cursor = self._cursor(wrapper)
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
        attempt = _Attempt()
        with _translated_errors(wrapper, attempt):
            wrapper.ensure_connection()
            if wrapper.in_atomic_block or not wrapper.autocommit:
                with transaction.atomic(using=self.alias, savepoint=False):
                    wrapper.validate_no_broken_transaction()
                    if on_commit is not None:  # dropped by Django if this rolls back
                        transaction.on_commit(on_commit, using=self.alias)
                    cursor = self._cursor(wrapper)
                    try:
                        yield cursor
                    finally:
                        cursor.close()
                return
            cursor = self._cursor(wrapper)
            try:
                cursor.execute(self._begin)
                yield cursor
                attempt.committing = True
                cursor.execute("COMMIT")
            except BaseException:
                # BEGIN may have failed (no transaction), or the connection be gone
                # (_translated_errors closes it).
                with contextlib.suppress(*_DRIVER_ERRORS):
                    cursor.execute("ROLLBACK")
                raise
            finally:
                with contextlib.suppress(*_DRIVER_ERRORS):
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
        with _translated_errors(wrapper, _Attempt(committing=True)):
            wrapper.ensure_connection()
            cursor = self._cursor(wrapper)
            try:
                yield cursor
            finally:
                with contextlib.suppress(*_DRIVER_ERRORS):
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
        return cast(str, connections[self.alias].ops.quote_name(name))

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


# --- recorders ----------------------------------------------------------------------------


class DjangoRecorder:
    """Tables of one recorder: created with IF NOT EXISTS, dropped on request."""

    def __init__(self, datastore: DjangoDatastore, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.datastore = datastore

    def schema(self) -> list[tuple[str, str]]:
        """(object name, DDL) for each table and index, in creation order."""
        return []

    def tables(self) -> list[str]:
        return []

    def _missing(self, cursor: Any, names: list[str]) -> list[str]:
        ph = self.datastore.placeholder
        if self.datastore.is_postgres:
            cursor.execute(f"SELECT unnest(ARRAY[{','.join([ph] * len(names))}]::text[])"
                           " AS name EXCEPT SELECT relname FROM pg_class"
                           " WHERE relnamespace = current_schema()::regnamespace", names)
        else:
            cursor.execute(f"SELECT name FROM sqlite_master WHERE name IN "
                           f"({','.join([ph] * len(names))})", names)
            present = {row[0] for row in cursor.fetchall()}
            return [name for name in names if name not in present]
        return [row[0] for row in cursor.fetchall()]

    def create_table(self) -> None:
        """Create what is missing. Nothing runs when all exist: on PostgreSQL even
        ``CREATE INDEX IF NOT EXISTS`` takes a SHARE lock that would stall writers."""
        schema = self.schema()
        if not schema:
            return
        with self.datastore.cursor() as cursor:
            if not self._missing(cursor, [name for name, _ in schema]):
                return
        with self.datastore.transaction() as cursor:
            if self.datastore.is_postgres:
                # Two processes starting at once would race on the catalogue.
                cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                               ["replays.persistence:" + schema[0][0]])
            for _, statement in schema:
                cursor.execute(statement)
            self._after_create(cursor)

    def _after_create(self, cursor: Any) -> None:
        """Seed rows once the tables exist."""

    def drop_table(self) -> None:
        """Drop this recorder's tables (tests, and the migration's reverse)."""
        with self.datastore.transaction() as cursor:
            for table in self.tables():
                cursor.execute(f"DROP TABLE IF EXISTS {self.datastore.quote(table)}")


class DjangoAggregateRecorder(DjangoRecorder, AggregateRecorder):
    """Stored events keyed by (originator_id, originator_version): snapshots."""

    def __init__(
        self, datastore: DjangoDatastore, *, events_table_name: str = "stored_events",
        **kwargs: Any,
    ) -> None:
        super().__init__(datastore, **kwargs)
        self.events_table_name = events_table_name
        self.events_table = datastore.quote(events_table_name)
        self._insert_sql: dict[int, str] = {}

    def _id_type(self) -> str:
        if not self.datastore.is_postgres:
            return "TEXT"
        return "uuid" if self.datastore.originator_id_type == "uuid" else "text"

    def schema(self) -> list[tuple[str, str]]:
        return [*super().schema(), *self._events_schema()]

    def _events_schema(self) -> list[tuple[str, str]]:
        pg = self.datastore.is_postgres
        return [(
            self.events_table_name,
            f"CREATE TABLE IF NOT EXISTS {self.events_table} ("
            f"originator_id {self._id_type()} NOT NULL, "
            f"originator_version {'bigint' if pg else 'INTEGER'} NOT NULL, "
            f"topic {'text' if pg else 'TEXT'} NOT NULL, "
            f"state {'bytea' if pg else 'BLOB'} NOT NULL, "
            f"PRIMARY KEY (originator_id, originator_version))"
            f"{'' if pg else ' WITHOUT ROWID'}",
        )]

    def tables(self) -> list[str]:
        return [*super().tables(), self.events_table_name]

    def _values(self, stored_events: Sequence[StoredEvent]) -> list[Any]:
        """The events' column values in one flat list, four a row (originator_id,
        originator_version, topic, state), as multi-row INSERTs take them.

        A batch that can give them itself (``flat_row_values``: a game's save, see
        bohnanza_core.games.StoredRun) does, without a StoredEvent per row: that and this
        loop cost a sixth of storing a game (bench/store.py, record)."""
        fast = getattr(stored_events, "flat_row_values", None)
        if fast is not None:
            values: list[Any] = fast(self.datastore.encode_originator_id)
            return values
        # A batch is usually one aggregate's events: encode its id once, not per row.
        encode = self.datastore.encode_originator_id
        last_id: Any = None
        encoded: Any = None
        values = []
        for e in stored_events:
            originator_id = e.originator_id
            if originator_id is not last_id:
                last_id, encoded = originator_id, encode(originator_id)
            values += (encoded, e.originator_version, e.topic, e.state)
        return values

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events:
            return None
        values = self._values(stored_events)

        def insert() -> None:
            with self.datastore.transaction() as cursor:
                self._insert_values(cursor, values)

        self._insert_once(lambda: values, insert)
        return None

    _id_column = "NULL"
    """What :meth:`_already_stored` reads as each row's notification id."""

    def _insert_once(self, values: Callable[[], list[Any]],
                     insert: Callable[[], _R]) -> _R | list[Any]:
        """``insert()``, tried again on a new connection when the connection was lost
        (``_reconnecting``). If it was lost while committing, the rows may be stored
        already: then the next try collides with them, and if the rows stored are
        exactly these, that is the answer (their ids), not an IntegrityError. A save is
        stored once, whatever the network did."""
        lost: ConnectionLost | None = None
        unknown = False
        for wait in _tries():
            if lost is not None:
                logger.warning("event store: %s; trying again on a new connection", lost)
                time.sleep(wait)
            try:
                return insert()
            except ConnectionLost as error:
                lost, unknown = error, unknown or error.commit_unknown
            except IntegrityError:
                ids = self._already_stored(values()) if unknown else None
                if ids is None:
                    raise
                logger.warning("event store: the rows of a commit whose answer was lost are "
                               "stored: it did commit")
                return ids
        assert lost is not None
        raise lost

    def _already_stored(self, values: list[Any]) -> list[Any] | None:
        """The ids of rows given as :meth:`_values` if exactly these rows are stored,
        else None."""
        rows = list(zip(*[iter(values)] * 4, strict=True))
        wanted = {(o, v): bytes(state) for o, v, _, state in rows}
        versions: dict[Any, list[int]] = {}
        for o, v, _, _ in rows:
            versions.setdefault(o, []).append(v)
        ph = self.datastore.placeholder
        found: dict[tuple[Any, int], Any] = {}
        with self.datastore.cursor() as cursor:
            for o, vs in versions.items():
                cursor.execute(
                    f"SELECT originator_version, state, {self._id_column} FROM "
                    f"{self.events_table} WHERE originator_id = {ph} AND originator_version "
                    f">= {ph} AND originator_version <= {ph}", [o, min(vs), max(vs)])
                for v, state, notification_id in cursor.fetchall():
                    if wanted.get((o, v)) != bytes(state):
                        return None
                    found[(o, v)] = notification_id
        if len(found) != len(wanted):
            return None
        return [found[(o, v)] for o, v, _, _ in rows]

    def _insert_values(self, cursor: Any, values: list[Any]) -> None:
        """Insert rows given as :meth:`_values`, by multi-row INSERTs of a few fixed sizes
        (insert_chunks), each prepared once and kept by the driver."""
        for start, n in self.datastore.insert_chunks(len(values) // 4, 4):
            cursor.execute(self._plain_insert_sql(n), values[4 * start:4 * (start + n)])

    def _plain_insert_sql(self, n: int) -> str:
        statement = self._insert_sql.get(n)
        if statement is None:
            ph = self.datastore.placeholder
            values = ",".join([f"({ph},{ph},{ph},{ph})"] * n)
            statement = (f"INSERT INTO {self.events_table} "
                         f"(originator_id, originator_version, topic, state) VALUES {values}")
            self._insert_sql[n] = statement
        return statement

    @_reconnecting
    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        ph = self.datastore.placeholder
        statement = (f"SELECT originator_id, originator_version, topic, state "
                     f"FROM {self.events_table} WHERE originator_id = {ph}")
        params: list[Any] = [self.datastore.encode_originator_id(originator_id)]
        if gt is not None:
            statement += f" AND originator_version > {ph}"
            params.append(gt)
        if lte is not None:
            statement += f" AND originator_version <= {ph}"
            params.append(lte)
        statement += " ORDER BY originator_version DESC" if desc else " ORDER BY originator_version"
        if limit is not None:
            statement += f" LIMIT {ph}"
            params.append(limit)
        decode = self.datastore.decode_originator_id
        with self.datastore.cursor() as cursor:
            cursor.execute(statement, params)
            return [StoredEvent(originator_id=decode(row[0]), originator_version=row[1],
                                topic=row[2], state=bytes(row[3]))
                    for row in cursor.fetchall()]


class DjangoApplicationRecorder(DjangoAggregateRecorder, ApplicationRecorder):
    """Stored events with gapless notification ids from a per-application counter."""

    def __init__(
        self, datastore: DjangoDatastore, *, events_table_name: str = "stored_events",
        **kwargs: Any,
    ) -> None:
        super().__init__(datastore, events_table_name=events_table_name, **kwargs)
        prefix = events_table_name.removesuffix("_events")
        self.counter_table_name = f"{prefix}_notification_counter"
        self.counter_table = datastore.quote(self.counter_table_name)
        self.notification_index_name = f"{events_table_name}_notification_id_idx"
        self.channel_name = events_table_name
        self._doorbell = _doorbell_for(datastore.database_name, events_table_name)
        # PostgreSQL subscribers are woken by NOTIFY; SQLite's by this, after each commit.
        self._after_commit = None if datastore.is_postgres else self._doorbell.ring
        self._numbered_sql: dict[tuple[bool, bool, int], str] = {}
        ph = datastore.placeholder
        self._last_stored_sql = (f"SELECT MAX(originator_version) FROM {self.events_table} "
                                 f"WHERE originator_id = {ph}")
        # The counter moves only if one aggregate's first event follows its last stored one
        # (parameters: originator id, the last version where none is stored, first - 1).
        self._follows_sql = (" AND (SELECT COALESCE(MAX(originator_version), %s) FROM "
                             f"{self.events_table} WHERE originator_id = %s) = %s")

    def _events_schema(self) -> list[tuple[str, str]]:
        # No index on topic (as in the library's own recorders): a game's rows nearly all
        # share one topic, so it would select nothing, and it cost about a sixth of
        # storing a game's rows (bench/store.py, record; migration 0003 drops it).
        q = self.datastore.quote
        if not self.datastore.is_postgres:
            # notification_id aliases the rowid: rows are stored in notification order, and
            # an insert without one numbers its rows from the largest so far (no gaps: a
            # rolled-back insert leaves no rows behind, and events are never deleted).
            return [(
                self.events_table_name,
                f"CREATE TABLE IF NOT EXISTS {self.events_table} ("
                "notification_id INTEGER PRIMARY KEY, originator_id TEXT NOT NULL, "
                "originator_version INTEGER NOT NULL, topic TEXT NOT NULL, state BLOB NOT NULL, "
                "UNIQUE (originator_id, originator_version))",
            )]
        return [
            (self.events_table_name,
             f"CREATE TABLE IF NOT EXISTS {self.events_table} ("
             f"originator_id {self._id_type()} NOT NULL, "
             "originator_version bigint NOT NULL, topic text NOT NULL, state bytea NOT NULL, "
             "notification_id bigint NOT NULL, "
             "PRIMARY KEY (originator_id, originator_version))"),
            (self.notification_index_name,
             f"CREATE UNIQUE INDEX IF NOT EXISTS {q(self.notification_index_name)} "
             f"ON {self.events_table} (notification_id)"),
            (self.counter_table_name,
             f"CREATE TABLE IF NOT EXISTS {self.counter_table} "
             "(id smallint PRIMARY KEY CHECK (id = 1), last bigint NOT NULL)"),
        ]

    def _after_create(self, cursor: Any) -> None:
        super()._after_create(cursor)
        if self.datastore.is_postgres:  # start after any events already there
            cursor.execute(
                f"INSERT INTO {self.counter_table} (id, last) SELECT 1, "
                f"COALESCE(MAX(notification_id), 0) FROM {self.events_table} "
                "ON CONFLICT (id) DO NOTHING"
            )

    def tables(self) -> list[str]:
        counter = [self.counter_table_name] if self.datastore.is_postgres else []
        return [*super().tables(), *counter]

    _id_column = "notification_id"

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if self._one_statement(stored_events, kwargs):
            def alone() -> list[int]:
                with self.datastore.autocommitted() as cursor:
                    return self._insert_events(cursor, stored_events, whole=True)

            return cast("list[int]",
                        self._insert_once(lambda: self._values(stored_events), alone))

        def insert() -> list[int]:
            with self.datastore.transaction(on_commit=self._after_commit) as cursor:
                return self._insert_events(cursor, stored_events, **kwargs)

        return cast("list[int]",
                    self._insert_once(lambda: self._values(stored_events), insert))

    def _one_statement(self, stored_events: Sequence[StoredEvent],
                       kwargs: dict[str, Any]) -> bool:
        """Whether these events are stored by one statement in a transaction of its own:
        on PostgreSQL, one aggregate's few events (a game's command), outside any
        caller's transaction.

        The statement takes the counter row, which every other writer of the store
        waits for until the commit. Inside BEGIN ... COMMIT the row stayed held while
        the answer went back to the client and its COMMIT came: two round trips more,
        and in a busy server process, where the writing thread waits for the GIL after
        each, several milliseconds. bench/live.py (100 tables, two daphnes): every few
        seconds up to ten writers queued on the row behind one whose backend sat "idle
        in transaction", waiting for its COMMIT, and commands took 50-300 ms to store."""
        if (not self.datastore.is_postgres or kwargs.get("tracking") is not None
                or not 0 < len(stored_events) < PG_COPY_FROM):
            return False
        first = stored_events[0].originator_id
        return (all(e.originator_id == first for e in stored_events)
                and not self.datastore.in_transaction())

    def _insert_events(
        self, cursor: Any, stored_events: Sequence[StoredEvent], *, whole: bool = False,
        **kwargs: Any,
    ) -> list[int]:
        """The events inserted, numbered from the counter; ``whole``: by one statement
        (one aggregate's events, fewer than :data:`PG_COPY_FROM`, on PostgreSQL)."""
        if not stored_events:
            return []
        values = self._values(stored_events)
        n = len(values) // 4
        firsts = _first_versions(values)
        ids: list[int] = []
        if not self.datastore.is_postgres:
            self._check_sequence(cursor, firsts)
            # SQLite numbers the rows (see the table): each new row gets one more than the
            # largest so far, and the transaction holds the database's write lock from its
            # first statement, so nobody numbers in between: this batch's ids are the n
            # ending at the last one inserted.
            self._insert_values(cursor, values)
            cursor.execute("SELECT last_insert_rowid()")
            last = cursor.fetchone()[0]
            return list(range(last - n + 1, last + 1))
        # One aggregate's events (every save of a game): the counter's statement checks
        # where they begin, no round trip more; several aggregates': one SELECT first.
        follows: tuple[Any, int, int] | None = None
        if len(firsts) == 1:
            [(originator_id, first)] = firsts.items()
            follows = (_empty_stored(first), originator_id, first - 1)
        else:
            self._check_sequence(cursor, firsts)
        rows = list(zip(*[iter(values)] * 4, strict=True))
        if n >= PG_COPY_FROM:
            return self._copy_events(cursor, rows, follows, firsts)
        # A statement per size from 1 to PG_COPY_FROM - 1 when whole (a few dozen, each
        # small: the driver's parsing of them costs nothing like a 650-row one's).
        (_, size), *rest = ([(0, n)] if whole
                            else self.datastore.insert_chunks(n, COLUMNS_PER_EVENT))
        assert follows is not None or not whole
        # One round trip: the counter update (which also queues the NOTIFY, sent at commit)
        # and the first chunk's insert share a statement. Ids are base + 1 .. base + n.
        cursor.execute(self._pg_insert_sql(size, with_counter=True, follows=follows is not None),
                       [n, *(follows or ()), n, self.channel_name,
                        *[v for i, row in enumerate(rows[:size], 1) for v in (*row, i)]])
        ids += sorted(row[0] for row in cursor.fetchall())
        if not ids:  # the counter's WHERE refused: the events do not follow the stored ones
            raise self._out_of_sequence(cursor, firsts)
        base = ids[0] - 1
        for start, size in rest:
            cursor.execute(
                self._pg_insert_sql(size, with_counter=False),
                [v for i, row in enumerate(rows[start:start + size], base + start + 1)
                 for v in (*row, i)],
            )
            ids += sorted(row[0] for row in cursor.fetchall())
        return ids

    def _copy_events(self, cursor: Any, rows: list[tuple[Any, ...]],
                     follows: tuple[Any, int, int] | None, firsts: dict[Any, int]) -> list[int]:
        """A large batch on PostgreSQL: take its ids from the counter (the same row lock,
        the same NOTIFY at commit), then COPY the rows in, numbered. COPY stores a game's
        650 rows in about a quarter of the time of multi-row INSERTs, whose hundreds of
        placeholders psycopg parses afresh each time (bench/store.py, record).

        The counter row is held from here to the commit, and every other writer of this
        application waits for it: so the rows are encoded first, in COPY's binary format
        (:func:`_binary_rows`, which the server also reads faster than text), and only
        their ids are added once the counter has given them (bench/tournament.py)."""
        n = len(rows)
        encoded = _binary_rows(rows)
        cursor.execute(f"UPDATE {self.counter_table} SET last = last + %s WHERE id = 1"
                       f"{self._follows_sql if follows else ''} "
                       "RETURNING last - %s, pg_notify(%s, '')",
                       [n, *(follows or ()), n, self.channel_name])
        counted = cursor.fetchone()
        if counted is None:
            raise self._out_of_sequence(cursor, firsts)
        base = counted[0]
        columns = "(originator_id, originator_version, topic, state, notification_id)"
        _copy_data(cursor, f"COPY {self.events_table} {columns} FROM STDIN (FORMAT BINARY)",
                   _numbered_binary(encoded, base + 1))
        return list(range(base + 1, base + n + 1))

    def _pg_insert_sql(self, n: int, *, with_counter: bool, follows: bool = False) -> str:
        """A multi-row INSERT ... RETURNING, numbered from the counter or given ids; with
        ``follows``, only if one aggregate's events follow its last stored one."""
        statement = self._numbered_sql.get((with_counter, follows, n))
        if statement is None:
            values = ",".join(["(%s,%s,%s,%s,%s)"] * n)
            columns = "(originator_id, originator_version, topic, state, notification_id)"
            if with_counter:
                statement = (
                    f"WITH c AS (UPDATE {self.counter_table} SET last = last + %s WHERE id = 1"
                    f"{self._follows_sql if follows else ''} "
                    "RETURNING last - %s AS base, pg_notify(%s, '') AS notified) "
                    f"INSERT INTO {self.events_table} {columns} "
                    "SELECT v.o, v.v, v.t, v.s, c.base + v.i "
                    f"FROM c, (VALUES {values}) AS v (o, v, t, s, i) "
                    "RETURNING notification_id"
                )
            else:
                statement = (f"INSERT INTO {self.events_table} {columns} VALUES {values} "
                             "RETURNING notification_id")
            self._numbered_sql[(with_counter, follows, n)] = statement
        return statement

    def _check_sequence(self, cursor: Any, firsts: dict[Any, int]) -> None:
        """Refuse (OutOfSequenceError) events that do not follow their aggregate's last
        stored one. Inside the inserting transaction, so a writer that committed in
        between makes the insert collide with its rows instead (IntegrityError)."""
        for originator_id, first in firsts.items():
            last = self._last_stored(cursor, originator_id)
            if (_empty_stored(first) if last is None else last) != first - 1:
                raise self._out_of_sequence(cursor, firsts)

    def _last_stored(self, cursor: Any, originator_id: Any) -> int | None:
        cursor.execute(self._last_stored_sql, [originator_id])
        return cast("int | None", cursor.fetchone()[0])

    def _out_of_sequence(self, cursor: Any, firsts: dict[Any, int]) -> OutOfSequenceError:
        described = []
        for originator_id, first in firsts.items():
            last = self._last_stored(cursor, originator_id)
            described.append(f"{self.datastore.decode_originator_id(originator_id)} from "
                             f"version {first}, after "
                             f"{'nothing' if last is None else f'version {last}'}")
        return OutOfSequenceError(
            f"events out of sequence, nothing stored: {'; '.join(described)} (an aggregate's "
            "events must follow its last stored one, beginning at version 0 or 1)")

    @_reconnecting
    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        ph = self.datastore.placeholder
        conditions: list[str] = []
        params: list[Any] = []
        if start is not None:
            conditions.append(f"notification_id {'>=' if inclusive_of_start else '>'} {ph}")
            params.append(start)
        if stop is not None:
            conditions.append(f"notification_id <= {ph}")
            params.append(stop)
        if topics:
            conditions.append(f"topic IN ({','.join([ph] * len(topics))})")
            params += topics
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        params.append(limit)
        statement = (f"SELECT notification_id, originator_id, originator_version, topic, state "
                     f"FROM {self.events_table}{where} ORDER BY notification_id LIMIT {ph}")
        # A game's rows follow one another: its id is decoded once (UUID(hex) costs a
        # quarter of reading a row on SQLite: bench/store.py, follow).
        decode = functools.lru_cache(maxsize=64)(self.datastore.decode_originator_id)
        with self.datastore.cursor() as cursor:
            cursor.execute(statement, params)
            return [Notification(id=row[0], originator_id=decode(row[1]),
                                 originator_version=row[2], topic=row[3], state=bytes(row[4]))
                    for row in cursor.fetchall()]

    @_reconnecting
    def max_notification_id(self) -> int | None:
        with self.datastore.cursor() as cursor:
            cursor.execute(f"SELECT MAX(notification_id) FROM {self.events_table}")
            return cast("int | None", cursor.fetchone()[0])

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        return DjangoSubscription(recorder=self, gt=gt, topics=topics)


class DjangoSubscription(ListenNotifySubscription[DjangoApplicationRecorder]):
    """Yields notifications after ``gt``, then blocks for new ones.

    A puller thread selects new notifications whenever woken, and at least every
    ``poll_interval`` seconds. PostgreSQL wakes it by LISTEN on a dedicated connection
    (inserts NOTIFY in their transaction, so the wake comes at commit); SQLite has no such
    channel, so inserts in this process ring a condition after commit, and the poll picks up
    other processes' inserts.
    """

    def __init__(
        self, recorder: DjangoApplicationRecorder, gt: int | None = None,
        topics: Sequence[str] = (),
    ) -> None:
        # Set before the base class starts the puller thread, which reads them.
        datastore = recorder.datastore
        self._alias = datastore.alias
        self._poll_interval = datastore.poll_interval
        self._stopping = threading.Event()
        # The puller starts only once LISTEN is in place, or no commit could be missed.
        self._ready = threading.Event()
        self._listen_thread: threading.Thread | None = None
        if datastore.is_postgres:
            self._doorbell = _Doorbell()
            self._listen_params = datastore.listen_params()
            self._channel = recorder.channel_name
            self._listen_thread = threading.Thread(
                target=self._listen, name=f"listen {self._channel}", daemon=True
            )
        else:
            self._doorbell = recorder._doorbell
            self._ready.set()
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        if self._listen_thread is not None:  # after the base class set _thread_error
            self._listen_thread.start()

    def stop(self) -> None:
        super().stop()
        self._stopping.set()
        self._ready.set()
        with self._doorbell.condition:
            self._doorbell.condition.notify_all()

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            if self._listen_thread is not None and self._listen_thread.ident is not None:
                self._listen_thread.join()

    def next_batch(self, limit: int) -> list[Notification]:
        """The next notification (waiting for it, as ``next()`` does) and as many more as
        are already pulled, up to ``limit`` in all: a projection writes them in one
        transaction (replays.projections). Reads the pulled lists of
        ``ListenNotifySubscription`` (eventsourcing 9.5), whose iterator hands them out
        one notification at a time."""
        batch = [next(self)]
        while len(batch) < limit:
            start = self._notifications_index
            if start < len(self._notifications):
                taken = self._notifications[start:start + limit - len(batch)]
                self._notifications_index += len(taken)
                batch += taken
                continue
            try:
                self._notifications = self._notifications_queue.get(block=False)
            except (queue.Empty, ShutDown):
                break
            self._notifications_queue.task_done()
            self._notifications_index = 0
        return batch

    def _loop_on_pull(self) -> None:
        try:
            self._ready.wait()
            seen = self._doorbell.rings
            self._pull()
            while not self._has_been_stopped:
                seen = self._doorbell.wait(seen, self._poll_interval, self._stopping)
                self._pull()
        except BaseException as error:
            if self._thread_error is None:
                self._thread_error = error
            self.stop()
        finally:
            connections[self._alias].close()

    def _listen(self) -> None:
        assert psycopg is not None
        try:
            with psycopg.connect(**self._listen_params) as conn:
                conn.execute(pg_sql.SQL("LISTEN {}").format(pg_sql.Identifier(self._channel)))
                self._ready.set()
                while not self._stopping.is_set():
                    # Wake at least every 0.1s to notice stop(); any NOTIFY means "pull".
                    for _ in conn.notifies(timeout=0.1, stop_after=1):
                        self._doorbell.ring()
        except BaseException as error:
            if self._thread_error is None:  # a LISTEN connection fails only by going away
                self._thread_error = (ConnectionLost(f"LISTEN {self._channel}: {error}")
                                      if isinstance(error, psycopg.Error) else error)
            self.stop()
        finally:
            self._ready.set()


class DjangoTrackingRecorder(DjangoRecorder, TrackingRecorder):
    """The last notification id each upstream application had processed, one row each.

    A view (subclass) writes its read model and ``_insert_tracking`` in one
    ``datastore.transaction()``, or in the caller's ``atomic()``.
    """

    def __init__(
        self, datastore: DjangoDatastore, *,
        tracking_table_name: str = "notification_tracking", **kwargs: Any,
    ) -> None:
        super().__init__(datastore, **kwargs)
        self.tracking_table_name = tracking_table_name
        self.tracking_table = datastore.quote(tracking_table_name)
        ph = datastore.placeholder
        # A row per application, moved only forwards: a repeat or a step back inserts
        # nothing, returns nothing, and is refused.
        self._upsert_tracking_sql = (
            f"INSERT INTO {self.tracking_table} AS t (application_name, notification_id) "
            f"VALUES ({ph}, {ph}) ON CONFLICT (application_name) DO UPDATE "
            "SET notification_id = excluded.notification_id "
            "WHERE t.notification_id < excluded.notification_id RETURNING notification_id"
        )
        self._max_tracking_sql = (f"SELECT notification_id FROM {self.tracking_table} "
                                  f"WHERE application_name = {ph}")

    def schema(self) -> list[tuple[str, str]]:
        pg = self.datastore.is_postgres
        return [*super().schema(), (
            self.tracking_table_name,
            f"CREATE TABLE IF NOT EXISTS {self.tracking_table} ("
            f"application_name {'text' if pg else 'TEXT'} PRIMARY KEY, "
            f"notification_id {'bigint' if pg else 'INTEGER'} NOT NULL)"
            f"{'' if pg else ' WITHOUT ROWID'}",
        )]

    def tables(self) -> list[str]:
        return [*super().tables(), self.tracking_table_name]

    @_reconnecting
    def insert_tracking(self, tracking: Tracking) -> None:
        with self.datastore.transaction() as cursor:
            self._insert_tracking(cursor, tracking)

    def _insert_tracking(self, cursor: Any, tracking: Tracking) -> None:
        cursor.execute(self._upsert_tracking_sql,
                       [tracking.application_name, tracking.notification_id])
        if cursor.fetchone() is None:
            msg = (f"Failed to record tracking for {tracking.application_name} "
                   f"{tracking.notification_id}: already at or beyond it")
            raise IntegrityError(msg)

    @_reconnecting
    def max_tracking_id(self, application_name: str) -> int | None:
        with self.datastore.cursor() as cursor:
            cursor.execute(self._max_tracking_sql, [application_name])
            row = cursor.fetchone()
        return None if row is None else cast(int, row[0])


class DjangoProcessRecorder(DjangoTrackingRecorder, DjangoApplicationRecorder, ProcessRecorder):
    """Events and the tracking record of what they were decided from, in one transaction."""

    def __init__(
        self, datastore: DjangoDatastore, *, events_table_name: str = "stored_events",
        tracking_table_name: str = "notification_tracking",
    ) -> None:
        super().__init__(datastore, events_table_name=events_table_name,
                         tracking_table_name=tracking_table_name)

    def _insert_events(
        self, cursor: Any, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> list[int]:
        tracking: Tracking | None = kwargs.get("tracking")
        if tracking is not None:
            self._insert_tracking(cursor, tracking)
        return super()._insert_events(cursor, stored_events, **kwargs)


# --- factory ------------------------------------------------------------------------------


class DjangoFactory(InfrastructureFactory[DjangoTrackingRecorder]):
    """Builds recorders on the Django alias named by ``DJANGO_DB_ALIAS`` ("default")."""

    DJANGO_DB_ALIAS = "DJANGO_DB_ALIAS"
    CREATE_TABLE = "CREATE_TABLE"
    ORIGINATOR_ID_TYPE = "ORIGINATOR_ID_TYPE"

    aggregate_recorder_class: type[DjangoAggregateRecorder] = DjangoAggregateRecorder
    application_recorder_class: type[DjangoApplicationRecorder] = DjangoApplicationRecorder
    tracking_recorder_class: type[DjangoTrackingRecorder] = DjangoTrackingRecorder
    process_recorder_class: type[DjangoProcessRecorder] = DjangoProcessRecorder

    def __init__(self, env: Environment | EnvType | None):
        super().__init__(env)
        self.datastore = DjangoDatastore(
            self.env.get(self.DJANGO_DB_ALIAS) or "default",
            originator_id_type=self.env.get(self.ORIGINATOR_ID_TYPE) or "uuid",
        )

    def _prefix(self, default: str) -> str:
        return self.env.name.lower() or default

    def env_create_table(self) -> bool:
        return bool(strtobool(self.env.get(self.CREATE_TABLE) or "yes"))

    def _created(self, recorder: DjangoRecorder) -> None:
        if self.env_create_table():
            recorder.create_table()

    def _topic_class(self, key: str, default: type[Any], base: type[Any]) -> type[Any]:
        topic = self.env.get(key)
        cls: type[Any] = resolve_topic(topic) if topic else default
        if not (isinstance(cls, type) and issubclass(cls, base)):
            msg = f"{key} {topic!r} is not a subclass of {base.__qualname__}"
            raise OSError(msg)
        return cls

    def aggregate_recorder(self, purpose: str = "events") -> AggregateRecorder:
        recorder = type(self).aggregate_recorder_class(
            datastore=self.datastore, events_table_name=f"{self._prefix('stored')}_{purpose}"
        )
        self._created(recorder)
        return recorder

    def application_recorder(self) -> ApplicationRecorder:
        cls = self._topic_class(self.APPLICATION_RECORDER_TOPIC,
                                type(self).application_recorder_class, DjangoApplicationRecorder)
        recorder = cls(datastore=self.datastore,
                       events_table_name=f"{self._prefix('stored')}_events")
        self._created(recorder)
        return cast(ApplicationRecorder, recorder)

    def tracking_recorder(
        self, tracking_recorder_class: type[DjangoTrackingRecorder] | None = None
    ) -> DjangoTrackingRecorder:
        cls = tracking_recorder_class or self._topic_class(
            self.TRACKING_RECORDER_TOPIC, type(self).tracking_recorder_class,
            DjangoTrackingRecorder,
        )
        if not issubclass(cls, DjangoTrackingRecorder):
            msg = f"{cls.__qualname__} is not a subclass of DjangoTrackingRecorder"
            raise OSError(msg)
        recorder = cls(datastore=self.datastore,
                       tracking_table_name=f"{self._prefix('notification')}_tracking")
        self._created(recorder)
        return recorder

    def process_recorder(self) -> ProcessRecorder:
        cls = self._topic_class(self.PROCESS_RECORDER_TOPIC,
                                type(self).process_recorder_class, DjangoProcessRecorder)
        recorder = cls(datastore=self.datastore,
                       events_table_name=f"{self._prefix('stored')}_events",
                       tracking_table_name=f"{self._prefix('notification')}_tracking")
        self._created(recorder)
        return cast(ProcessRecorder, recorder)

    def close(self) -> None:
        """Nothing to close: the connections are Django's (closed with their threads)."""


Factory = DjangoFactory


# --- the platform's own tables ------------------------------------------------------------


def _store_recorders(
    alias: str, applications: Sequence[str], projections: Sequence[str]
) -> list[DjangoRecorder]:
    datastore = DjangoDatastore(alias)
    recorders: list[DjangoRecorder] = []
    for name in applications:
        prefix = name.lower()
        recorders.append(DjangoApplicationRecorder(datastore, events_table_name=f"{prefix}_events"))
        recorders.append(DjangoAggregateRecorder(datastore,
                                                 events_table_name=f"{prefix}_snapshots"))
    for name in projections:
        recorders.append(DjangoTrackingRecorder(datastore,
                                                tracking_table_name=f"{name.lower()}_tracking"))
    return recorders


def create_store_tables(
    alias: str = "default",
    applications: Sequence[str] = STORE_APPLICATIONS,
    projections: Sequence[str] = STORE_PROJECTIONS,
) -> None:
    """Create the tables of the platform's applications and projections (the migration)."""
    for recorder in _store_recorders(alias, applications, projections):
        recorder.create_table()


def drop_store_tables(
    alias: str = "default",
    applications: Sequence[str] = STORE_APPLICATIONS,
    projections: Sequence[str] = STORE_PROJECTIONS,
) -> None:
    for recorder in _store_recorders(alias, applications, projections):
        recorder.drop_table()
