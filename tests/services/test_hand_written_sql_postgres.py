"""The statements written by hand read on PostgreSQL what the ORM reads, as they do on
SQLite: ``play.models.sitting`` (tests/play/test_sitting.py) and
``play.authority.account_for`` (tests/botapi/test_api.py), on the platform's database
moved to a PostgreSQL schema of its own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from replays.store import loaded, reset_games
from tests.botapi.test_api import assert_a_token_is_found_and_marked_used_once_a_minute
from tests.play.test_sitting import (
    assert_a_session_is_read_as_get_user_reads_it,
    assert_sitting_reads_what_the_orm_reads,
)
from tests.services.conftest import postgres_default


@pytest.fixture
def on_postgresql(django_db_blocker: Any) -> Iterator[None]:
    with postgres_default("by_hand", django_db_blocker):
        # The store's application is built for the database it finds: built again on
        # PostgreSQL here, and on the other tests' database after.
        reset_games()
        loaded.clear()
        cache.clear()
        try:
            yield
        finally:
            loaded.clear()
            reset_games()


def test_sitting_reads_what_the_orm_reads_on_postgresql(on_postgresql: None) -> None:
    assert_sitting_reads_what_the_orm_reads()


def test_a_token_is_found_and_marked_used_on_postgresql(on_postgresql: None) -> None:
    assert_a_token_is_found_and_marked_used_once_a_minute()


def test_a_session_is_read_as_get_user_reads_it_on_postgresql(on_postgresql: None) -> None:
    assert_a_session_is_read_as_get_user_reads_it()
