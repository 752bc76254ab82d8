"""Two commands racing on one table, on SQLite (a temporary database file with the
settings' options): exactly one is stored, the other is refused with StaleCommand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.replays import persistence_cases as cases
from tests.replays import race_cases

ALIAS = "race_sqlite_test"


@pytest.fixture
def sqlite_alias(tmp_path: Path, django_db_blocker: Any) -> Iterator[str]:
    with cases.sqlite_file_alias(ALIAS, tmp_path / "race.sqlite3", django_db_blocker):
        yield ALIAS


def test_two_writers_racing_store_exactly_one_command(sqlite_alias: str) -> None:
    collisions = race_cases.run_races(sqlite_alias)
    # The preloaded half of the races decided both commands on one version, so the
    # database itself refused the second insert there.
    assert collisions >= race_cases.GAMES * race_cases.RACES_PER_GAME // 2
