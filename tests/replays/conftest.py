"""Fixtures for the replays app: a fresh view of the event store per test."""

from collections.abc import Iterator

import pytest

from bohnanza_core.games import Games
from replays.store import games, reset_games


@pytest.fixture
def store(db: None) -> Iterator[Games]:
    """The platform's Games application on the test database (rolled back after)."""
    reset_games()
    yield games()
    reset_games()
