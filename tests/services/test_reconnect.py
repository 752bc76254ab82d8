"""The event store when PostgreSQL drops its connections (issue 9, item 4).

Connections are terminated with ``pg_terminate_backend``, only this test's own (by the
application name its schema's alias sets, or by its own database), never anyone else's;
a longer outage is its own database refusing connections for a while
(``ALTER DATABASE ... ALLOW_CONNECTIONS false``). The server itself is never restarted.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import psycopg
import pytest
from django.db import connections
from eventsourcing.persistence import StoredEvent

from bohnanza_core import ruleset_for
from bohnanza_core.games import play_bot_game
from bohnanza_core.verify import verify_record
from replays.outages import reconnecting
from replays.persistence import DjangoApplicationRecorder, DjangoDatastore
from tests.replays.race_cases import store_on
from tests.services.conftest import POSTGRES, postgres_schema_alias

ALIAS = "reconnect_test"


@pytest.fixture
def alias(django_db_blocker: Any) -> Iterator[str]:
    with postgres_schema_alias(ALIAS, "reconnect_test", django_db_blocker) as alias:
        yield alias


def admin() -> psycopg.Connection[Any]:
    return psycopg.connect(**POSTGRES, autocommit=True)  # type: ignore[arg-type]


def terminate(alias: str) -> int:
    """Terminate every connection of ``alias`` (its application name is its schema)."""
    name = connections[alias].settings_dict["OPTIONS"]["application_name"]
    with admin() as db:
        rows = db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = %s", [name]).fetchall()
    return len(rows)


def stored(originator_id: Any, version: int) -> StoredEvent:
    return StoredEvent(originator_id=originator_id, originator_version=version,
                       topic="topic", state=b"{}")


def test_a_terminated_connection_is_replaced(alias: str,
                                             caplog: pytest.LogCaptureFixture) -> None:
    recorder = DjangoApplicationRecorder(DjangoDatastore(alias), events_table_name="t_events")
    recorder.create_table()
    game = uuid4()
    recorder.insert_events([stored(game, 1)])
    assert terminate(alias) == 1
    with caplog.at_level(logging.WARNING, logger="replays.persistence"):
        assert [e.originator_version for e in recorder.select_events(game)] == [1]
        assert terminate(alias) == 1
        assert recorder.insert_events([stored(game, 2)]) == [2]
    assert [r for r in caplog.records if "trying again on a new connection" in r.getMessage()]


def test_a_commit_whose_answer_is_lost_is_stored_once(
        alias: str, caplog: pytest.LogCaptureFixture) -> None:
    """The connection dies just after the server committed a game's save, before the
    answer arrived: the recorder tries again, finds exactly its rows stored, and says
    so, instead of an IntegrityError (a lost race) or a second copy."""
    app = store_on(alias)
    connection = connections[alias]
    lost = threading.Event()

    def answer_lost(execute: Any, sql: str, params: Any, many: bool,
                    context: dict[str, Any]) -> Any:
        result = execute(sql, params, many, context)
        if sql == "COMMIT" and not lost.is_set():
            lost.set()
            terminate(alias)
            context["cursor"].execute("SELECT 1")  # the dead connection fails here
        return result

    with connection.execute_wrapper(answer_lost), caplog.at_level(logging.WARNING):
        game = play_bot_game(app, ruleset_for("classic", 3),
                             ["heuristic", "nontrading", "random"], "lost-answer",
                             save_each_command=False)
    assert lost.is_set()
    assert any("it did commit" in r.getMessage() for r in caplog.records)
    record = app.record(game.id)
    assert [e.seq for e in record] == list(range(1, game.version + 1))
    assert verify_record(record, app.game(game.id).head_hash).ok
    assert app.recorder.max_notification_id() == game.version  # no second copy
    app.close()


def test_a_transaction_cut_off_is_an_outage_though_django_reconnected(alias: str) -> None:
    """A read model's transaction (the ORM, in ``atomic()``) whose connection is
    terminated: Django rolls back and reconnects on the way out of the block, so the
    connection works again, but the transaction was lost: to be tried again."""
    from django.db import transaction

    from replays.outages import database_unavailable

    connection = connections[alias]
    with (pytest.raises(Exception, match="terminating connection") as cut,
          transaction.atomic(using=alias), connection.cursor() as cursor):
        cursor.execute("SELECT 1")
        terminate(alias)
        cursor.execute("SELECT 2")
    assert database_unavailable(cut.value, alias)
    with (pytest.raises(Exception, match=r"relation .* does not exist") as bug,
          connection.cursor() as cursor):
        cursor.execute("SELECT * FROM no_such_table")
    assert not database_unavailable(bug.value, alias)  # a bug, not an outage


@pytest.fixture
def database(django_db_blocker: Any) -> Iterator[str]:
    """A database of this test's own, as an alias."""
    from tests.replays.persistence_cases import database_alias

    name = f"reconnect_{uuid4().hex[:10]}"
    with admin() as db:
        db.execute(f'CREATE DATABASE "{name}"')
    settings_dict = {"ENGINE": "django.db.backends.postgresql", "NAME": name,
                     "USER": POSTGRES["user"], "HOST": POSTGRES["host"],
                     "PORT": str(POSTGRES["port"])}
    try:
        with django_db_blocker.unblock(), database_alias("reconnect_db", settings_dict):
            yield "reconnect_db"
    finally:
        with admin() as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def outage(database_name: str) -> None:
    """The database refuses connections, and those it had are gone."""
    with admin() as db:
        db.execute(f'ALTER DATABASE "{database_name}" ALLOW_CONNECTIONS false')
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                   "WHERE datname = %s", [database_name])


def end_outage(database_name: str) -> None:
    with admin() as db:
        db.execute(f'ALTER DATABASE "{database_name}" ALLOW_CONNECTIONS true')


def test_reconnecting_waits_out_an_outage_and_goes_on(
        database: str, caplog: pytest.LogCaptureFixture) -> None:
    name = str(connections[database].settings_dict["NAME"])
    app = store_on(database)
    ruleset, bots = ruleset_for("classic", 3), ["heuristic", "nontrading", "random"]
    first = play_bot_game(app, ruleset, bots, save_each_command=False)
    outage(name)
    waiting = threading.Event()

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "waiting for it" in record.getMessage():
                waiting.set()

    seen = Seen()
    logging.getLogger("replays.outages").addHandler(seen)
    ended = threading.Thread(target=lambda: waiting.wait(60) and end_outage(name))
    ended.start()
    try:
        with caplog.at_level(logging.INFO, logger="replays.outages"):
            second = reconnecting(
                lambda: play_bot_game(app, ruleset, bots, save_each_command=False),
                alias=database, give_up_after=60, what="bot games")
    finally:
        logging.getLogger("replays.outages").removeHandler(seen)
        end_outage(name)
        ended.join()
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("bot games: the database is unavailable") for m in messages)
    assert any(m.startswith("bot games: the database is back after") for m in messages)
    for game in (first, second):
        record = app.record(game.id)
        assert verify_record(record, app.game(game.id).head_hash).ok
    assert app.recorder.max_notification_id() == first.version + second.version
    app.close()


def test_reconnecting_gives_up_after_its_time(database: str) -> None:
    name = str(connections[database].settings_dict["NAME"])
    app = store_on(database)
    outage(name)
    try:
        with pytest.raises(Exception, match="not currently accepting connections"):
            reconnecting(lambda: app.recorder.max_notification_id(), alias=database,
                         give_up_after=0.5)
    finally:
        end_outage(name)
    app.close()
