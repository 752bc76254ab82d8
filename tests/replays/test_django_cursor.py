"""The contract of replays/persistence/django_cursor.py with Django (checked against
5.2.19): the store's driver cursors do around a statement what Django's own cursors do,
as hooks, the query log and the SQL logger see it. Each check runs a statement through
Django's cursor and through the wall's, and compares; Django's functions the wall
re-does are held to fingerprints (tests/walls.py), so that an upgrade that changes them
fails here, by name."""

from __future__ import annotations

import logging
from typing import Any

import django
import pytest
from django.db import DatabaseError, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.utils import DatabaseErrorWrapper
from django.test.utils import CaptureQueriesContext
from eventsourcing.persistence import PersistenceError

from replays.persistence import django_cursor
from replays.persistence.datastore import DjangoDatastore
from replays.persistence.django_cursor import HookedCursor, driver_cursor
from tests.walls import changed_shapes

pytestmark = pytest.mark.django_db

DJANGO_SQL_LOG = "(%.3f) %s; args=%s; alias=%s"
"""The message Django's debug cursor logs each statement with."""

PINNED = {
    "CursorWrapper.execute": (CursorWrapper.execute, "f51cf07bd8012461"),
    "CursorWrapper._execute_with_wrappers": (CursorWrapper._execute_with_wrappers,
                                             "1a43981669a32d08"),
    "CursorDebugWrapper.execute": (CursorDebugWrapper.execute, "2d595f51194ce6a2"),
    "CursorDebugWrapper.debug_sql": (CursorDebugWrapper.debug_sql.__wrapped__,  # type: ignore[attr-defined]
                                     "5e5e50050e9316b8"),
    "BaseDatabaseWrapper.queries_logged": (BaseDatabaseWrapper.queries_logged.fget,
                                           "05723132abf1480a"),
    "BaseDatabaseWrapper._prepare_cursor": (BaseDatabaseWrapper._prepare_cursor,
                                            "e92d1cb747bd9db3"),
    "DatabaseErrorWrapper.__exit__": (DatabaseErrorWrapper.__exit__, "b29c80ea772f1e14"),
    "BaseDatabaseWrapper.close_if_unusable_or_obsolete": (
        BaseDatabaseWrapper.close_if_unusable_or_obsolete, "ba0fbaa4303e3855"),
}


def test_the_checked_version_is_installed() -> None:
    assert django.get_version() == django_cursor.CHECKED_AGAINST, (
        f"Django {django.get_version()} is installed, the wall was checked against "
        f"{django_cursor.CHECKED_AGAINST}: run this file, read the failures against "
        "replays/persistence/django_cursor.py, then update CHECKED_AGAINST and its docstring")


def test_the_django_functions_the_wall_re_does_are_unchanged() -> None:
    assert not changed_shapes(PINNED, "replays/persistence/django_cursor.py")


def _ours() -> Any:
    """The driver's cursor as the store's datastore makes it, on this thread's wrapper."""
    wrapper = connections[connection.alias]
    wrapper.ensure_connection()
    return driver_cursor(wrapper)


def _select(cursor: Any, placeholder: str) -> Any:
    cursor.execute(f"SELECT {placeholder}", [7])
    return cursor.fetchone()[0]


PLACEHOLDER = "%s" if connection.vendor == "postgresql" else "?"


def test_hooks_see_the_statement_as_django_s_cursor_shows_it() -> None:
    seen: list[tuple[str, Any, bool, list[str], bool, type[Any]]] = []

    def hook(execute: Any, sql: str, params: Any, many: bool,
             context: dict[str, Any]) -> Any:
        seen.append((sql, params, many, sorted(context),
                     context["connection"] is connections[connection.alias],
                     type(context["cursor"])))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(hook):
        with connection.cursor() as cursor:
            assert _select(cursor, "%s") == 7
        ours = _ours()
        assert isinstance(ours, HookedCursor)
        assert _select(ours, PLACEHOLDER) == 7
        ours.close()
    (django_sql, *django_rest, django_cursor_type), (our_sql, *our_rest, our_type) = seen
    assert django_sql.split()[0] == our_sql.split()[0] == "SELECT"
    assert django_rest == our_rest == [[7], False, ["connection", "cursor"], True]
    assert issubclass(django_cursor_type, CursorWrapper) and our_type is HookedCursor


def test_the_query_log_and_the_sql_logger_see_it_as_django_s_cursor_shows_it(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="django.db.backends"), \
            CaptureQueriesContext(connection) as captured:
        with connection.cursor() as cursor:
            _select(cursor, "%s")
        ours = _ours()
        assert isinstance(ours, HookedCursor)
        _select(ours, PLACEHOLDER)
        ours.close()
    django_entry, our_entry = captured.captured_queries
    assert set(django_entry) == set(our_entry) == {"sql", "time"}
    assert len(django_entry["time"].split(".")[1]) == len(our_entry["time"].split(".")[1]) == 3
    records = [r for r in caplog.records if r.name == "django.db.backends"
               and "SELECT" in r.getMessage()]
    django_record, our_record = records
    assert django_record.msg == DJANGO_SQL_LOG
    assert our_record.msg == DJANGO_SQL_LOG.replace(
        "args=%s", "args=(not logged: event store values)")
    for record in (django_record, our_record):
        assert {"duration", "sql", "params", "alias"} <= set(vars(record))
        assert record.alias == connection.alias  # type: ignore[attr-defined]
    assert our_record.params is None  # type: ignore[attr-defined]


def test_with_nobody_listening_the_driver_s_cursor_runs_bare() -> None:
    ours = _ours()
    assert not isinstance(ours, HookedCursor | CursorWrapper)
    ours.close()


def test_a_failed_statement_tells_django_as_its_cursor_does() -> None:
    connection.ensure_connection()
    connection.errors_occurred = False
    with pytest.raises(DatabaseError), connection.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table")
    assert connection.errors_occurred
    connection.errors_occurred = False
    datastore = DjangoDatastore(connection.alias)
    with pytest.raises(PersistenceError), datastore.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table")
    assert connection.errors_occurred
    connection.errors_occurred = False
