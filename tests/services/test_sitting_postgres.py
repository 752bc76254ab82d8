"""``play.models.sitting`` (statements written by hand) reads what the ORM reads on
PostgreSQL too: tests/play/test_sitting.py, on the platform's database moved to a
PostgreSQL schema of its own."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from replays.store import loaded, reset_games
from tests.play.test_sitting import assert_sitting_reads_what_the_orm_reads
from tests.services.conftest import postgres_default


def test_sitting_reads_what_the_orm_reads_on_postgresql(django_db_blocker: Any) -> None:
    with postgres_default("sitting", django_db_blocker):
        # The store's application is built for the database it finds: built again on
        # PostgreSQL here, and on the other tests' database after.
        reset_games()
        loaded.clear()
        cache.clear()
        try:
            assert_sitting_reads_what_the_orm_reads()
        finally:
            loaded.clear()
            reset_games()
