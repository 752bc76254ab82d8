"""The event store's test cases, run once per database vendor.

``test_persistence_sqlite`` (a temporary SQLite file) and
``tests/services/test_persistence_postgres`` (PostgreSQL) combine these mixins with
``eventsourcing``'s own recorder conformance classes, unchanged: they only supply
``create_recorder`` and fresh tables. Each test gets tables under a prefix of its own
and drops them in ``tearDown``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar
from unittest.mock import patch
from uuid import UUID, uuid4

import pytest
from django.db import connections, transaction
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    IntegrityError,
    OperationalError,
    ProcessRecorder,
    ProgrammingError,
    StoredEvent,
    Tracking,
    TrackingRecorder,
)
from eventsourcing.projection import Projection, ProjectionRunner
from eventsourcing.utils import Environment

from replays import persistence
from replays.persistence import (
    DjangoAggregateRecorder,
    DjangoApplicationRecorder,
    DjangoDatastore,
    DjangoFactory,
    DjangoProcessRecorder,
    DjangoRecorder,
    DjangoTrackingRecorder,
)

# The same as config/settings.py gives the embedded default (checked by a test).
SQLITE_OPTIONS: dict[str, Any] = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


@contextmanager
def database_alias(alias: str, settings_dict: dict[str, Any]) -> Iterator[str]:
    """An extra Django database alias for the duration (Django's own defaults filled in)."""
    configured = connections.configure_settings({"default": dict(settings_dict)})["default"]
    connections.settings[alias] = configured
    try:
        yield alias
    finally:
        connections[alias].close()
        del connections[alias]  # this thread's wrapper, which keeps its settings
        del connections.settings[alias]


@contextmanager
def sqlite_file_alias(alias: str, path: Path, django_db_blocker: Any) -> Iterator[str]:
    """``alias`` on a new SQLite file at ``path`` with the settings' options, the test
    database blocker lifted for the duration."""
    settings_dict = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path),
                     "OPTIONS": dict(SQLITE_OPTIONS)}
    with django_db_blocker.unblock(), database_alias(alias, settings_dict):
        yield alias


def new_prefix() -> str:
    return f"t{uuid4().hex[:12]}"


class StoreCase:
    """Fresh tables per test on the class's ``alias``; everything created is dropped."""

    alias: ClassVar[str]

    def setUp(self) -> None:
        self.prefix = new_prefix()
        self.datastore = DjangoDatastore(self.alias)
        self.created: list[DjangoRecorder] = []
        super().setUp()  # type: ignore[misc]

    def tearDown(self) -> None:
        super().tearDown()  # type: ignore[misc]
        for recorder in self.created:
            recorder.drop_table()

    def made(self, recorder: Any) -> Any:
        recorder.create_table()
        self.created.append(recorder)
        return recorder

    def application_recorder(self) -> DjangoApplicationRecorder:
        return self.made(DjangoApplicationRecorder(
            self.datastore, events_table_name=f"{self.prefix}_events"))

    def tracking_recorder(self) -> DjangoTrackingRecorder:
        return self.made(DjangoTrackingRecorder(
            self.datastore, tracking_table_name=f"{self.prefix}_tracking"))

    def process_recorder(self) -> DjangoProcessRecorder:
        return self.made(DjangoProcessRecorder(
            self.datastore, events_table_name=f"{self.prefix}_events",
            tracking_table_name=f"{self.prefix}_tracking"))


# --- the conformance classes' hooks ---------------------------------------------------------


class AggregateCase(StoreCase):
    def create_recorder(self) -> AggregateRecorder:
        return self.made(DjangoAggregateRecorder(
            self.datastore, events_table_name=f"{self.prefix}_snapshots"))


class ApplicationCase(StoreCase):
    def create_recorder(self) -> ApplicationRecorder:
        return self.application_recorder()

    def test_insert_subscribe(self) -> None:
        self.optional_test_insert_subscribe()  # type: ignore[attr-defined]


class TrackingCase(StoreCase):
    def create_recorder(self) -> TrackingRecorder:
        return self.tracking_recorder()


class ProcessCase(StoreCase):
    def create_recorder(self) -> ProcessRecorder:
        return self.process_recorder()


class NonInterleavingCase(StoreCase):
    def create_recorder(self) -> ApplicationRecorder:
        return self.application_recorder()


class DjangoTrackingRecorderSubclass(DjangoTrackingRecorder):
    pass


class FactoryCase:
    """The factory conformance class, on the alias; it names its environment "TestCase"."""

    alias: ClassVar[str]

    def setUp(self) -> None:
        self.env = Environment("TestCase")
        self.env["PERSISTENCE_MODULE"] = persistence.__name__
        self.env[DjangoFactory.DJANGO_DB_ALIAS] = self.alias
        super().setUp()  # type: ignore[misc]

    def tearDown(self) -> None:
        super().tearDown()  # type: ignore[misc]
        DjangoProcessRecorder(DjangoDatastore(self.alias), events_table_name="testcase_events",
                              tracking_table_name="testcase_tracking").drop_table()

    def expected_factory_class(self) -> type[DjangoFactory]:
        return DjangoFactory

    def expected_aggregate_recorder_class(self) -> type[AggregateRecorder]:
        return DjangoAggregateRecorder

    def expected_application_recorder_class(self) -> type[ApplicationRecorder]:
        return DjangoApplicationRecorder

    def expected_tracking_recorder_class(self) -> type[TrackingRecorder]:
        return DjangoTrackingRecorder

    def tracking_recorder_subclass(self) -> type[TrackingRecorder]:
        return DjangoTrackingRecorderSubclass

    def expected_process_recorder_class(self) -> type[ProcessRecorder]:
        return DjangoProcessRecorder


# --- what the store adds: one transaction with the read models, projections ----------------


class Counter(Aggregate):
    """A tiny aggregate for the projection tests."""

    def __init__(self) -> None:
        self.count = 0

    @event("Incremented")
    def increment(self) -> None:
        self.count += 1


class CountView(DjangoTrackingRecorder):
    """A read model beside its tracking table: events seen per originator."""

    def __init__(self, datastore: DjangoDatastore, *, tracking_table_name: str,
                 **kwargs: Any) -> None:
        super().__init__(datastore, tracking_table_name=tracking_table_name, **kwargs)
        self.counts_table_name = f"{tracking_table_name.removesuffix('_tracking')}_counts"
        self.counts_table = datastore.quote(self.counts_table_name)

    def schema(self) -> list[tuple[str, str]]:
        return [*super().schema(), (
            self.counts_table_name,
            f"CREATE TABLE IF NOT EXISTS {self.counts_table} "
            "(originator_id text PRIMARY KEY, seen integer NOT NULL)",
        )]

    def tables(self) -> list[str]:
        return [*super().tables(), self.counts_table_name]

    def saw(self, originator_id: UUID, tracking: Tracking) -> None:
        ph = self.datastore.placeholder
        with self.datastore.transaction() as cursor:
            cursor.execute(
                f"INSERT INTO {self.counts_table} (originator_id, seen) VALUES ({ph}, 1) "
                "ON CONFLICT (originator_id) DO UPDATE "
                f"SET seen = {self.counts_table}.seen + 1",
                [str(originator_id)],
            )
            self._insert_tracking(cursor, tracking)

    def seen(self, originator_id: UUID) -> int:
        ph = self.datastore.placeholder
        with self.datastore.cursor() as cursor:
            cursor.execute(f"SELECT seen FROM {self.counts_table} WHERE originator_id = {ph}",
                           [str(originator_id)])
            row = cursor.fetchone()
        return 0 if row is None else int(row[0])


class CountProjection(Projection[CountView]):
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.saw(domain_event.originator_id, tracking)


def stored(originator_id: UUID, version: int) -> StoredEvent:
    return StoredEvent(originator_id=originator_id, originator_version=version,
                       topic="topic", state=b"{}")


class StoreBehaviour(StoreCase):
    """The store's own promises beyond the conformance classes, on any vendor."""

    def sql(self, statement: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Run SQL through Django's own cursor (as read models do) and return its rows."""
        with connections[self.alias].cursor() as cursor:
            cursor.execute(statement, params or [])
            return list(cursor.fetchall()) if cursor.description else []

    def read_model(self) -> str:
        table = connections[self.alias].ops.quote_name(f"{self.prefix}_read_model")
        self.sql(f"CREATE TABLE {table} (game text PRIMARY KEY, moves integer NOT NULL)")
        self.addCleanup(self.sql, f"DROP TABLE IF EXISTS {table}")  # type: ignore[attr-defined]
        return table

    def test_events_and_read_model_roll_back_together(self) -> None:
        recorder = self.process_recorder()
        table = self.read_model()
        game = uuid4()
        with pytest.raises(RuntimeError), transaction.atomic(using=self.alias):
            ids = recorder.insert_events([stored(game, 1), stored(game, 2)],
                                         tracking=Tracking("Upstream", 7))
            assert ids == [1, 2]
            self.sql(f"INSERT INTO {table} (game, moves) VALUES (%s, %s)", [str(game), 2])
            raise RuntimeError("the command fails after its events were inserted")
        assert recorder.select_events(game) == []
        assert recorder.max_notification_id() is None
        assert recorder.max_tracking_id("Upstream") is None
        assert self.sql(f"SELECT * FROM {table}") == []
        # The counter rolled back too: the next events still start at 1, no gap.
        assert recorder.insert_events([stored(game, 1)]) == [1]

    def test_events_and_read_model_commit_together(self) -> None:
        recorder = self.process_recorder()
        table = self.read_model()
        game = uuid4()
        with transaction.atomic(using=self.alias):
            recorder.insert_events([stored(game, 1)], tracking=Tracking("Upstream", 7))
            self.sql(f"INSERT INTO {table} (game, moves) VALUES (%s, %s)", [str(game), 1])
        assert [e.originator_version for e in recorder.select_events(game)] == [1]
        assert recorder.max_tracking_id("Upstream") == 7
        assert self.sql(f"SELECT game, moves FROM {table}") == [(str(game), 1)]

    def test_stale_write_dooms_the_callers_transaction(self) -> None:
        recorder = self.application_recorder()
        game = uuid4()
        recorder.insert_events([stored(game, 1)])
        with pytest.raises(IntegrityError), transaction.atomic(using=self.alias):
            recorder.insert_events([stored(game, 2)])
            recorder.insert_events([stored(game, 1)])  # stale: version 1 is taken
        assert [e.originator_version for e in recorder.select_events(game)] == [1]
        assert recorder.insert_events([stored(game, 2)]) == [2]

    def test_driver_errors_arrive_as_the_library_classes(self) -> None:
        missing = DjangoApplicationRecorder(self.datastore,
                                            events_table_name=f"{self.prefix}_missing_events")
        expected = ProgrammingError if self.datastore.is_postgres else OperationalError
        with pytest.raises(expected, match=r"does not exist|no such table"):
            missing.insert_events([stored(uuid4(), 1)])
        with pytest.raises(expected, match=r"does not exist|no such table"):
            missing.select_events(uuid4())
        # The failed transaction was rolled back: the connection goes on working.
        assert self.application_recorder().insert_events([stored(uuid4(), 1)]) == [1]

    def test_inserts_larger_than_one_statement_are_chunked_and_atomic(self) -> None:
        recorder = self.application_recorder()
        self.datastore._max_params = 10  # two events per INSERT statement
        first, second = uuid4(), uuid4()
        assert recorder.insert_events([stored(first, v) for v in range(7)]) == list(range(1, 8))
        with pytest.raises(IntegrityError):  # the last chunk collides: nothing stays
            recorder.insert_events([*(stored(second, v) for v in range(5)), stored(first, 6)])
        assert recorder.select_events(second) == []
        assert recorder.insert_events([stored(second, v) for v in range(3)]) == [8, 9, 10]
        notifications = recorder.select_notifications(start=None, limit=100)
        assert [n.id for n in notifications] == list(range(1, 11))
        assert [n.originator_version for n in notifications] == [*range(7), *range(3)]

    def test_a_games_worth_of_rows_goes_in_whole_numbered_and_in_order(self) -> None:
        # 651 rows take several statements of several sizes on either vendor.
        recorder = self.application_recorder()
        first, second = uuid4(), uuid4()
        ids = recorder.insert_events([stored(first, v) for v in range(1, 652)])
        assert ids == list(range(1, 652))
        assert [e.originator_version for e in recorder.select_events(first)] == list(
            range(1, 652))
        with pytest.raises(IntegrityError):  # the very last row collides: nothing stays
            recorder.insert_events([*(stored(second, v) for v in range(1, 300)),
                                    stored(first, 651)])
        assert recorder.select_events(second) == []
        assert recorder.insert_events([stored(second, 1)]) == [652]
        snapshots = self.made(DjangoAggregateRecorder(
            self.datastore, events_table_name=f"{self.prefix}_snapshots"))
        snapshots.insert_events([stored(first, v) for v in range(1, 301)])
        assert [e.originator_version for e in snapshots.select_events(first)] == list(
            range(1, 301))

    def test_several_aggregates_rows_go_in_whole_numbered_and_in_order(self) -> None:
        # A tournament task's batch: several games' rows in one write (on PostgreSQL, the
        # counter and then one COPY in the binary format), with uuid or text ids.
        for id_type in ("uuid", "text"):
            datastore = DjangoDatastore(self.alias, originator_id_type=id_type)
            recorder = self.made(DjangoApplicationRecorder(
                datastore, events_table_name=f"{self.prefix}_{id_type}_events"))
            games = [uuid4() for _ in range(3)]
            rows = [StoredEvent(originator_id=g, originator_version=v, topic=f"t\\{v % 3}\t",
                                state=bytes([v % 256]) * (v % 7) + b"\n\\")
                    for g in games for v in range(1, 41)]
            assert recorder.insert_events(rows) == list(range(1, 121))
            notifications = recorder.select_notifications(start=None, limit=200)
            assert [(UUID(str(n.originator_id)), n.originator_version, n.topic, n.state)
                    for n in notifications] == [
                (e.originator_id, e.originator_version, e.topic, e.state) for e in rows]
            assert all(isinstance(n.originator_id, UUID if id_type == "uuid" else str)
                       for n in notifications)
            # one game of the batch stored already: nothing of it stays, no id is taken
            other = uuid4()
            clash = [*(stored(other, v) for v in range(1, 60)),
                     *(stored(games[1], v) for v in range(1, 60))]
            with pytest.raises(IntegrityError):
                recorder.insert_events(clash)
            # the same where the check passed and the rows themselves collide (a writer
            # that committed in between)
            with patch.object(recorder, "_check_sequence"), pytest.raises(IntegrityError):
                recorder.insert_events(clash)
            assert recorder.select_events(other) == []
            assert recorder.insert_events([stored(other, 1)]) == [121]

    def test_events_must_follow_the_last_stored_one(self) -> None:
        # Issue 9: a gap in an aggregate's versions makes it impossible to load.
        recorder = self.application_recorder()
        game, other = uuid4(), uuid4()
        assert recorder.insert_events([stored(game, v) for v in (1, 2)]) == [1, 2]
        refused = [
            [stored(game, 4)],  # one version skipped
            [stored(game, 3), stored(game, 5)],  # a gap inside the batch
            [stored(game, 3), stored(game, 3)],
            [stored(game, v) for v in range(4, 4 + 100)],  # a game's worth (COPY)
            [stored(other, 2)],  # a first event that is not version 0 or 1
            [stored(other, 1), stored(game, 4)],  # several aggregates: one bad, none in
            [*(stored(other, v) for v in range(1, 80)), stored(game, 9)],
        ]
        for events in refused:
            with pytest.raises(persistence.OutOfSequenceError, match="out of sequence"):
                recorder.insert_events(events)
        assert [e.originator_version for e in recorder.select_events(game)] == [1, 2]
        assert recorder.select_events(other) == []
        assert recorder.max_notification_id() == 2  # no id was used up
        assert recorder.insert_events([stored(game, 3), stored(other, 1)]) == [3, 4]
        assert recorder.insert_events([stored(game, v) for v in range(4, 104)]) == list(
            range(5, 105))
        assert recorder.insert_events([stored(uuid4(), 0), stored(uuid4(), 1)]) == [105, 106]
        assert [e.originator_version for e in recorder.select_events(game)] == list(
            range(1, 104))

    def test_statements_pass_through_execute_wrappers(self) -> None:
        # Issue 9: a query logger or APM agent installed with connection.execute_wrapper()
        # sees the store's statements, as it sees the ORM's.
        recorder = self.process_recorder()
        seen: list[tuple[str, bool]] = []

        def hook(execute: Any, sql: str, params: Any, many: bool,
                 context: dict[str, Any]) -> Any:
            seen.append((sql.split()[0].upper(), context["connection"] is connection))
            return execute(sql, params, many, context)

        game = uuid4()
        connection = connections[self.alias]
        with connection.execute_wrapper(hook):
            recorder.insert_events([stored(game, 1)], tracking=Tracking("Upstream", 1))
            recorder.insert_events([stored(game, v) for v in range(2, 102)])  # COPY on PG
            assert len(recorder.select_events(game)) == 101
            assert len(recorder.select_notifications(start=1, limit=10)) == 10
            assert recorder.max_tracking_id("Upstream") == 1
        kinds = [kind for kind, _ in seen]
        assert all(ours for _, ours in seen)
        assert kinds.count("COMMIT") == 2
        assert {"BEGIN", "INSERT", "SELECT"} <= set(kinds)
        assert ("COPY" if self.datastore.is_postgres else "INSERT") in kinds[kinds.index(
            "COMMIT") + 1:]
        seen.clear()
        recorder.select_events(game)  # the hook is gone: the bare cursor again
        assert seen == []

    def test_the_subscription_keeps_its_state_beside_the_library_s(self) -> None:
        """DjangoSubscription's own attributes sit beside ListenNotifySubscription's
        (bohnanza_core.fastpath.BatchedSubscription): none of them may be a name the
        library uses, or one would overwrite the other without a word."""
        from tests.core.test_fastpath import LIBRARY_SUBSCRIPTION_ATTRIBUTES

        recorder = self.application_recorder()
        with recorder.subscribe() as subscription:
            names = set(vars(subscription))
        listen = {"_listen_params", "_channel"} if self.datastore.is_postgres else set()
        assert names - LIBRARY_SUBSCRIPTION_ATTRIBUTES == {
            "_alias", "_poll_interval", "_stopping", "_ready", "_seen", "_listen_thread",
            "_doorbell", *listen}
        assert names >= LIBRARY_SUBSCRIPTION_ATTRIBUTES

    def test_the_query_log_sees_statements_but_never_their_values(self) -> None:
        from django.test.utils import CaptureQueriesContext

        recorder = self.application_recorder()
        secret = StoredEvent(originator_id=uuid4(), originator_version=1, topic="topic",
                             state=b'{"hand":"secret-card-57"}')
        with CaptureQueriesContext(connections[self.alias]) as captured:
            recorder.insert_events([secret])
            assert recorder.select_events(secret.originator_id) == [secret]
        statements = [query["sql"] for query in captured.captured_queries]
        assert any("INSERT INTO" in sql for sql in statements)
        assert any(sql.startswith("SELECT originator_id") for sql in statements)
        assert not [sql for sql in statements if "secret" in sql]

    def test_events_tables_have_no_topic_index(self) -> None:
        # Nearly every row of a game has one topic: an index on it selects nothing and
        # slows every insert (bench/store.py); migration 0003 drops the old one.
        recorder = self.application_recorder()
        table = recorder.events_table_name
        if self.datastore.is_postgres:
            rows = self.sql("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [table])
        else:
            rows = self.sql("SELECT sql FROM sqlite_master WHERE type = 'index' "
                            "AND tbl_name = %s AND sql IS NOT NULL", [table])
        assert not [row for row in rows if "topic" in row[0]]

    def test_migration_0003_drops_the_topic_index_of_an_older_store(self) -> None:
        from importlib import import_module

        migration = import_module("replays.migrations.0003_no_topic_index")
        applications = (f"A{self.prefix}",)
        persistence.create_store_tables(self.alias, applications, ())
        self.addCleanup(persistence.drop_store_tables,  # type: ignore[attr-defined]
                        self.alias, applications, ())
        quote = connections[self.alias].ops.quote_name
        index = f"a{self.prefix}_events_topic_idx"
        self.sql(f"CREATE INDEX {quote(index)} ON {quote(f'a{self.prefix}_events')} (topic)")
        introspection = connections[self.alias].introspection

        def indexes() -> set[str]:
            with connections[self.alias].cursor() as cursor:
                return set(introspection.get_constraints(cursor, f"a{self.prefix}_events"))

        assert index in indexes()
        editor = connections[self.alias].schema_editor()
        with patch.object(migration, "STORE_APPLICATIONS", applications):
            migration.drop_topic_indexes(None, editor)
            migration.drop_topic_indexes(None, editor)  # again: nothing to drop, no error
        assert index not in indexes()

    def test_factory_names_tables_after_the_application(self) -> None:
        def factory(name: str) -> DjangoFactory:
            return DjangoFactory(Environment(name, {
                "DJANGO_DB_ALIAS": self.alias, "CREATE_TABLE": "no"}))

        games = factory("Games")
        recorder = games.application_recorder()
        assert isinstance(recorder, DjangoApplicationRecorder)
        assert recorder.events_table_name == "games_events"
        assert recorder.counter_table_name == "games_notification_counter"
        snapshots = games.aggregate_recorder("snapshots")
        assert isinstance(snapshots, DjangoAggregateRecorder)
        assert snapshots.events_table_name == "games_snapshots"
        assert games.tracking_recorder().tracking_table_name == "games_tracking"
        unnamed = factory("")
        recorder = unnamed.application_recorder()
        assert isinstance(recorder, DjangoApplicationRecorder)
        assert recorder.events_table_name == "stored_events"
        assert unnamed.tracking_recorder().tracking_table_name == "notification_tracking"

    def test_store_tables_are_created_and_dropped(self) -> None:
        applications, projections = (f"A{self.prefix}",), (f"P{self.prefix}",)
        tables = {f"a{self.prefix}_events", f"a{self.prefix}_snapshots",
                  f"p{self.prefix}_tracking"}
        if self.datastore.is_postgres:
            tables.add(f"a{self.prefix}_notification_counter")
        introspection = connections[self.alias].introspection
        persistence.create_store_tables(self.alias, applications, projections)
        persistence.create_store_tables(self.alias, applications, projections)  # idempotent
        try:
            assert tables <= set(introspection.table_names())
        finally:
            persistence.drop_store_tables(self.alias, applications, projections)
        assert not tables & set(introspection.table_names())

    def test_worker_threads_close_their_connections(self) -> None:
        recorder = self.application_recorder()
        raw: list[Any] = []

        def work() -> None:
            recorder.insert_events([stored(uuid4(), 1)])
            raw.append(connections[self.alias].connection)

        worker = threading.Thread(target=work)
        worker.start()
        worker.join()  # no garbage collection needed: the thread's end closes it
        assert raw and raw[0] is not None
        if self.datastore.is_postgres:
            assert raw[0].closed
        else:
            with pytest.raises(Exception, match="closed"):
                raw[0].execute("SELECT 1")

    def test_projection_runner_follows_the_application(self) -> None:
        app_name = f"G{self.prefix}"
        app_class = type(app_name, (Application,), {"name": app_name})
        projection = type(f"P{self.prefix}", (CountProjection,), {})
        env = {"PERSISTENCE_MODULE": persistence.__name__, "DJANGO_DB_ALIAS": self.alias}
        ours = DjangoDatastore(self.alias)
        self.created += [
            DjangoApplicationRecorder(ours, events_table_name=f"{app_name.lower()}_events"),
            CountView(ours, tracking_table_name=f"{projection.name.lower()}_tracking"),
        ]
        with ProjectionRunner(application_class=app_class, projection_class=projection,
                              view_class=CountView, env=env) as runner:
            app = runner.app
            counter = Counter()
            counter.increment()
            app.save(counter)
            runner.wait(app.recorder.max_notification_id(), timeout=10)
            assert runner.view.seen(counter.id) == 2
            counter.increment()
            app.save(counter)
            runner.wait(app.recorder.max_notification_id(), timeout=10)
            assert runner.view.seen(counter.id) == 3
            assert runner.view.max_tracking_id(app_name) == 3
