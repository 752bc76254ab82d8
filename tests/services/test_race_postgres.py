"""Two commands racing on one table, on PostgreSQL: two writers, each a thread with its
own connection, store different legal commands on the same game at the same version;
exactly one is stored, the other is refused with StaleCommand, and the record has no
gap, no duplicate and still verifies (tests/replays/race_cases.py), 20 times over.

Runs in database ``test`` at 127.0.0.1:5432 as ``postgres`` (trust auth), in a schema of
its own that is dropped at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.replays import race_cases
from tests.services.conftest import postgres_schema_alias

ALIAS = "race_postgres_test"


@pytest.fixture
def postgres_alias(django_db_blocker: Any) -> Iterator[str]:
    with postgres_schema_alias(ALIAS, "race_test", django_db_blocker) as alias:
        yield alias


def test_two_writers_racing_store_exactly_one_command(postgres_alias: str) -> None:
    collisions = race_cases.run_races(postgres_alias)
    # The preloaded half of the races decided both commands on one version, so the
    # database's unique (game, version) key refused the second insert there.
    assert collisions >= race_cases.GAMES * race_cases.RACES_PER_GAME // 2
