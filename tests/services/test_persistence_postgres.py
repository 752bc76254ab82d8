"""The event store on PostgreSQL: eventsourcing's recorder conformance classes, unchanged,
the store's own promises, and what only PostgreSQL can show (no table locks, LISTEN).

Runs in database ``test`` at 127.0.0.1:5432 as ``postgres`` (trust auth), in a schema of
its own that is dropped at the end; every test also drops the tables it made.
"""

from __future__ import annotations

import threading
import time
import unittest
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import psycopg
import pytest
from django.core.management import call_command
from django.db import connections, transaction
from django.test.utils import CaptureQueriesContext
from eventsourcing.persistence import IntegrityError
from eventsourcing.tests import persistence as conformance

from tests.replays import persistence_cases as cases
from tests.services.conftest import postgres_schema_alias

ALIAS = "event_store_postgres_test"
HOST, PORT, DBNAME, USER = "127.0.0.1", 5432, "test", "postgres"


@pytest.fixture(scope="module", autouse=True)
def postgres_alias(django_db_blocker: Any) -> Iterator[str]:
    with postgres_schema_alias(ALIAS, "store_test", django_db_blocker) as alias:
        yield alias


class Postgres:
    alias = ALIAS


class TestAggregateRecorder(
    Postgres, cases.AggregateCase, conformance.AggregateRecorderTestCase
):
    pass


class TestApplicationRecorder(
    Postgres, cases.ApplicationCase, conformance.ApplicationRecorderTestCase
):
    pass


class TestTrackingRecorder(Postgres, cases.TrackingCase, conformance.TrackingRecorderTestCase):
    pass


class TestProcessRecorder(Postgres, cases.ProcessCase, conformance.ProcessRecorderTestCase):
    pass


class TestNonInterleavingNotificationIDs(
    Postgres, cases.NonInterleavingCase, conformance.NonInterleavingNotificationIDsBaseCase
):
    pass


class TestInfrastructureFactory(
    Postgres, cases.FactoryCase, conformance.InfrastructureFactoryTestCase
):
    pass


class TestStore(Postgres, cases.StoreBehaviour, unittest.TestCase):
    pass


class TestPostgresOnly(Postgres, cases.StoreCase, unittest.TestCase):
    def backends(self) -> int:
        """Open connections of this test module's alias, seen from the server."""
        name = connections[self.alias].settings_dict["OPTIONS"]["application_name"]
        with psycopg.connect(host=HOST, port=PORT, dbname=DBNAME, user=USER) as conn:
            row = conn.execute("SELECT count(*) FROM pg_stat_activity "
                               "WHERE application_name = %s", [name]).fetchone()
        assert row is not None
        return int(row[0])

    def test_a_writer_holds_a_row_lock_only(self) -> None:
        """While one transaction is inserting (and has not committed), readers read, another
        application's writers write, and the events table carries no table lock."""
        games, disputes = self.application_recorder(), self.made(
            cases.DjangoApplicationRecorder(self.datastore,
                                            events_table_name=f"{self.prefix}x_events"))
        games.insert_events([cases.stored(uuid4(), 1)])
        inserted, release = threading.Event(), threading.Event()

        def writer() -> None:
            with transaction.atomic(using=self.alias):
                games.insert_events([cases.stored(uuid4(), 1)])
                inserted.set()
                release.wait(10)

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            assert inserted.wait(10)
            assert [n.id for n in games.select_notifications(None, 10)] == [1]
            assert games.max_notification_id() == 1
            assert disputes.insert_events([cases.stored(uuid4(), 1)]) == [1]
            with psycopg.connect(host=HOST, port=PORT, dbname=DBNAME, user=USER) as conn:
                modes = {row[0] for row in conn.execute(
                    "SELECT l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    "WHERE c.relname = %s", [games.events_table_name])}
            # Inserting takes ROW EXCLUSIVE, which conflicts with no other writer's.
            assert modes <= {"RowExclusiveLock", "AccessShareLock"}, modes
        finally:
            release.set()
            thread.join()
        assert [n.id for n in games.select_notifications(None, 10)] == [1, 2]

    def test_a_commands_events_are_one_statement_committed_alone(self) -> None:
        """One aggregate's few events, outside any transaction (a live command's save):
        one statement and no BEGIN or COMMIT, so the counter row is held only while
        the server runs it. Three events took two INSERTs inside BEGIN ... COMMIT."""
        recorder = self.application_recorder()
        game = uuid4()
        with CaptureQueriesContext(connections[self.alias]) as queries:
            ids = recorder.insert_events([cases.stored(game, v) for v in (1, 2, 3)])
        assert ids == [1, 2, 3]
        statements = [q["sql"] for q in queries.captured_queries]
        assert len(statements) == 1, statements
        assert "UPDATE" in statements[0] and "INSERT" in statements[0]
        # Committed by then: another connection sees the rows.
        schema = connections[self.alias].settings_dict["OPTIONS"]["application_name"]
        with psycopg.connect(host=HOST, port=PORT, dbname=DBNAME, user=USER) as conn:
            conn.execute(f'SET search_path TO "{schema}"')
            row = conn.execute(f"SELECT count(*) FROM {recorder.events_table}").fetchone()
        assert row == (3,)

    def test_a_refused_statement_alone_stores_nothing(self) -> None:
        """Events that do not follow the stored ones are refused in the one statement,
        which then stores nothing and leaves the counter where it was."""
        recorder = self.application_recorder()
        game = uuid4()
        recorder.insert_events([cases.stored(game, 1), cases.stored(game, 2)])
        for versions in ((2, 3), (4, 5)):
            with pytest.raises(IntegrityError):
                recorder.insert_events([cases.stored(game, v) for v in versions])
        assert recorder.insert_events([cases.stored(game, 3)]) == [3]
        assert [n.id for n in recorder.select_notifications(None, 10)] == [1, 2, 3]

    def test_inside_a_callers_transaction_the_events_go_with_it(self) -> None:
        """In a caller's ``atomic()`` block the events join its transaction (not one of
        their own): rolled back with it."""
        recorder, game = self.application_recorder(), uuid4()
        with pytest.raises(RuntimeError), transaction.atomic(using=self.alias):
            recorder.insert_events([cases.stored(game, v) for v in (1, 2, 3)])
            raise RuntimeError("the caller changes its mind")
        assert recorder.select_notifications(None, 10) == []
        assert recorder.insert_events([cases.stored(uuid4(), 1)]) == [1]

    def test_worker_threads_give_their_connections_back(self) -> None:
        recorder = self.application_recorder()
        before = self.backends()
        threads = [threading.Thread(target=recorder.insert_events,
                                    args=([cases.stored(uuid4(), 1)],)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # Closed by the client at once; the server's backends take a moment to go.
        deadline = time.monotonic() + 5
        while self.backends() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.backends() <= before

    def test_migrate_prepares_the_store(self) -> None:
        call_command("migrate", "replays", database=self.alias, verbosity=0)
        tables = set(connections[self.alias].introspection.table_names())
        assert {"games_events", "games_notification_counter", "games_snapshots",
                "disputes_events", "gamelist_tracking"} <= tables
        call_command("migrate", "replays", "zero", database=self.alias, verbosity=0)
        assert "games_events" not in set(connections[self.alias].introspection.table_names())

    def test_subscription_wakes_on_notify_from_another_connection(self) -> None:
        """A commit from outside Django (another process) reaches a waiting subscriber by
        LISTEN/NOTIFY, well before the fallback poll."""
        recorder = self.application_recorder()
        recorder.datastore.poll_interval = 60.0
        game = uuid4()
        with recorder.subscribe(gt=None) as subscription:
            got: list[Any] = []
            reader = threading.Thread(target=lambda: got.append(next(subscription)))
            reader.start()
            params = recorder.datastore.listen_params()
            with psycopg.connect(**params) as other:
                other.autocommit = False
                other.execute(recorder._pg_insert_sql(1, with_counter=True),
                              [1, 1, recorder.channel_name, game, 1, "topic", b"{}", 1])
                other.commit()
            reader.join(10)
            assert [n.originator_id for n in got] == [game]
