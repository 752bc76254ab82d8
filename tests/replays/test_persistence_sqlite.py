"""The event store on SQLite: eventsourcing's recorder conformance classes, unchanged, and
the store's own promises, on a temporary database file with the settings' SQLite options."""

from __future__ import annotations

import unittest
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from eventsourcing.tests import persistence as conformance

from tests.replays import persistence_cases as cases

ALIAS = "event_store_sqlite_test"


@pytest.fixture(scope="module", autouse=True)
def sqlite_alias(tmp_path_factory: pytest.TempPathFactory,
                 django_db_blocker: object) -> Iterator[str]:
    path: Path = tmp_path_factory.mktemp("store") / "store.sqlite3"
    settings_dict = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path),
                     "OPTIONS": dict(cases.SQLITE_OPTIONS)}
    with django_db_blocker.unblock(), cases.database_alias(ALIAS, settings_dict):  # type: ignore[attr-defined]
        yield ALIAS


class SQLite:
    alias = ALIAS


class TestAggregateRecorder(SQLite, cases.AggregateCase, conformance.AggregateRecorderTestCase):
    pass


class TestApplicationRecorder(
    SQLite, cases.ApplicationCase, conformance.ApplicationRecorderTestCase
):
    pass


class TestTrackingRecorder(SQLite, cases.TrackingCase, conformance.TrackingRecorderTestCase):
    pass


class TestProcessRecorder(SQLite, cases.ProcessCase, conformance.ProcessRecorderTestCase):
    pass


class TestNonInterleavingNotificationIDs(
    SQLite, cases.NonInterleavingCase, conformance.NonInterleavingNotificationIDsBaseCase
):
    pass


class TestInfrastructureFactory(
    SQLite, cases.FactoryCase, conformance.InfrastructureFactoryTestCase
):
    pass


class TestStore(SQLite, cases.StoreBehaviour, unittest.TestCase):
    pass


def test_the_alias_has_the_settings_sqlite_options() -> None:
    default = settings.DATABASES["default"]
    if default["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("DATABASE_URL moved the default database off SQLite")
    assert default["OPTIONS"] == cases.SQLITE_OPTIONS


@pytest.mark.parametrize("largest", [128, 10, 1])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 127, 128, 129, 255, 650, 1061])
def test_inserts_take_few_statement_sizes(n: int, largest: int) -> None:
    from replays.persistence import insert_chunks

    chunks = list(insert_chunks(n, largest))
    assert sum(size for _, size in chunks) == n
    assert [start for start, _ in chunks] == [sum(s for _, s in chunks[:i])
                                              for i in range(len(chunks))]
    for _, size in chunks:
        assert size & (size - 1) == 0 and 1 <= size <= largest
    # Largest first, each smaller size at most once: few statements per batch.
    sizes = [size for _, size in chunks]
    assert sizes == sorted(sizes, reverse=True)
    smaller = [size for size in sizes if size != sizes[0]]
    assert len(smaller) == len(set(smaller))
