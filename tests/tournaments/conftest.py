"""Fixtures of the tournaments app: the store's applications afresh for each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection

from replays.store import reset_games
from tournaments.competitions import Tournaments, reset_tournaments, tournaments


def wipe_competitions() -> None:
    """Empty the competitions' store tables (a transactional test's flush empties only
    the models' tables)."""
    with connection.cursor() as cursor:
        for table in ("tournaments_events", "tournaments_snapshots"):
            cursor.execute(f"DELETE FROM {table}")


@pytest.fixture
def competitions(transactional_db: None) -> Iterator[Tournaments]:
    """The Tournaments application on the test database, committed (a worker thread
    reads it), emptied before and after."""
    reset_games()
    reset_tournaments()
    wipe_competitions()
    yield tournaments()
    reset_tournaments()
    reset_games()
    wipe_competitions()
