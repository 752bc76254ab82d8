"""Several games saved as one write, on SQLite (tests/replays/batch_cases.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.replays import batch_cases
from tests.replays import persistence_cases as cases

ALIAS = "batch_saves_sqlite_test"


@pytest.fixture
def sqlite_alias(tmp_path: Path, django_db_blocker: Any) -> Iterator[str]:
    with cases.sqlite_file_alias(ALIAS, tmp_path / "batch.sqlite3", django_db_blocker):
        yield ALIAS


def test_a_batch_of_games_is_one_write_numbered_in_order(sqlite_alias: str) -> None:
    batch_cases.check_batch_saves(sqlite_alias)
