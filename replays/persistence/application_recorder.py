"""The application recorder: an application's events in one sequence, numbered by
notification ids that are gapless and become visible in order, and the version rule.

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
  taken (:mod:`replays.persistence.pgcopy`). Needs READ COMMITTED (Django's default): a
  stricter isolation level makes a waiting writer fail instead of reading the new count.
- SQLite serialises writers itself (one write lock per database, taken by the first write,
  or at BEGIN with the settings' ``transaction_mode: IMMEDIATE``), so the rowid numbers the
  rows: each new row gets one more than the largest, which a rollback takes back. A counter
  table would only cost a page write per commit.

**The version rule** (docs/store.md): an aggregate's events must follow its last stored
one, or the whole batch is refused with :class:`OutOfSequenceError`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, cast

from eventsourcing.persistence import (
    ApplicationRecorder,
    Notification,
    ProcessRecorder,
    StoredEvent,
    Subscription,
    Tracking,
)

import replays.persistence.pgcopy as pgcopy
from replays.persistence.datastore import DjangoDatastore
from replays.persistence.errors import OutOfSequenceError
from replays.persistence.pgcopy import PG_COPY_FROM
from replays.persistence.recorders import DjangoAggregateRecorder, DjangoTrackingRecorder
from replays.persistence.retries import reconnecting
from replays.persistence.subscription import DjangoSubscription, doorbell_for

COLUMNS_PER_EVENT = 5  # originator_id, originator_version, topic, state, notification_id


def first_versions(values: list[Any]) -> dict[Any, int]:
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


def empty_stored(first: int) -> int:
    """What stands for "nothing stored yet" when checking that events beginning at
    ``first`` follow the last stored one (``first - 1``): that where an aggregate may
    begin (versions 0 and 1), else something that does not."""
    return first - 1 if first in (0, 1) else first - 2


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
        self._doorbell = doorbell_for(datastore.database_name, events_table_name)
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
        firsts = first_versions(values)
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
            follows = (empty_stored(first), originator_id, first - 1)
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
        (:func:`pgcopy.binary_rows`, which the server also reads faster than text), and only
        their ids are added once the counter has given them (bench/tournament.py)."""
        n = len(rows)
        encoded = pgcopy.binary_rows(rows)
        cursor.execute(f"UPDATE {self.counter_table} SET last = last + %s WHERE id = 1"
                       f"{self._follows_sql if follows else ''} "
                       "RETURNING last - %s, pg_notify(%s, '')",
                       [n, *(follows or ()), n, self.channel_name])
        counted = cursor.fetchone()
        if counted is None:
            raise self._out_of_sequence(cursor, firsts)
        base = counted[0]
        columns = "(originator_id, originator_version, topic, state, notification_id)"
        pgcopy.copy_data(cursor,
                         f"COPY {self.events_table} {columns} FROM STDIN (FORMAT BINARY)",
                         pgcopy.numbered_binary(encoded, base + 1))
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
            if (empty_stored(first) if last is None else last) != first - 1:
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

    @reconnecting
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

    @reconnecting
    def max_notification_id(self) -> int | None:
        with self.datastore.cursor() as cursor:
            cursor.execute(f"SELECT MAX(notification_id) FROM {self.events_table}")
            return cast("int | None", cursor.fetchone()[0])

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        return DjangoSubscription(recorder=self, datastore=self.datastore,
                                  doorbell=self._doorbell, channel=self.channel_name,
                                  gt=gt, topics=topics)


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


__all__ = ["COLUMNS_PER_EVENT", "DjangoApplicationRecorder", "DjangoProcessRecorder"]
