"""The recorders: stored events keyed by aggregate and version (snapshots, and the base
of the application's events: :mod:`replays.persistence.application_recorder`), and the
tracking records of projections.

Inserts are bulk: multi-row ``INSERT`` statements of power-of-two sizes up to 128 rows, so a
handful of prepared statements serve every batch (``insert_chunks``; on SQLite about
30% faster than ``executemany``). Every call outside a caller's transaction is tried
again on a new connection when the connection was lost
(:mod:`replays.persistence.retries`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast
from uuid import UUID

from eventsourcing.persistence import (
    AggregateRecorder,
    IntegrityError,
    StoredEvent,
    Tracking,
    TrackingRecorder,
)

from replays.persistence.datastore import DjangoDatastore
from replays.persistence.retries import insert_once, reconnecting

_R = TypeVar("_R")


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
        """``insert()``, stored once whatever the network did (:func:`replays.persistence.
        retries.insert_once`): where the connection was lost while committing and the
        next try collides, the rows stored are compared with these
        (:meth:`_already_stored`)."""
        return insert_once(insert, lambda: self._already_stored(values()))

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

    @reconnecting
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

    @reconnecting
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

    @reconnecting
    def max_tracking_id(self, application_name: str) -> int | None:
        with self.datastore.cursor() as cursor:
            cursor.execute(self._max_tracking_sql, [application_name])
            row = cursor.fetchone()
        return None if row is None else cast(int, row[0])


__all__ = ["DjangoAggregateRecorder", "DjangoRecorder", "DjangoTrackingRecorder"]
