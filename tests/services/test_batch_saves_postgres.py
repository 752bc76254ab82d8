"""Several games saved as one write, on PostgreSQL (tests/replays/batch_cases.py): one
take of the counter row and one COPY for the whole batch, as the statements' last.

Runs in database ``test`` at 127.0.0.1:5432 as ``postgres`` (trust auth), in a schema of
its own that is dropped at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.replays import batch_cases
from tests.services.conftest import postgres_schema_alias

ALIAS = "batch_saves_postgres_test"


@pytest.fixture
def postgres_alias(django_db_blocker: Any) -> Iterator[str]:
    with postgres_schema_alias(ALIAS, "batch_saves_test", django_db_blocker) as alias:
        yield alias


def test_a_batch_of_games_is_one_write_numbered_in_order(postgres_alias: str) -> None:
    batch_cases.check_batch_saves(postgres_alias)
