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
from uuid import uuid4

import pytest

from tests.replays import persistence_cases as cases
from tests.replays import race_cases
from tests.services.conftest import require_service

ALIAS = "race_postgres_test"
HOST, PORT, DBNAME, USER = "127.0.0.1", 5432, "test", "postgres"


@pytest.fixture
def postgres_alias(django_db_blocker: Any) -> Iterator[str]:
    require_service("PostgreSQL", HOST, PORT)
    import psycopg

    schema = f"race_test_{uuid4().hex[:12]}"
    admin = psycopg.connect(host=HOST, port=PORT, dbname=DBNAME, user=USER, autocommit=True)
    admin.execute(f'CREATE SCHEMA "{schema}"')
    settings_dict = {
        "ENGINE": "django.db.backends.postgresql", "NAME": DBNAME, "USER": USER,
        "HOST": HOST, "PORT": str(PORT),
        "OPTIONS": {"options": f"-c search_path={schema}", "application_name": schema},
    }
    try:
        with django_db_blocker.unblock(), cases.database_alias(ALIAS, settings_dict):
            yield ALIAS
    finally:
        admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        admin.close()


def test_two_writers_racing_store_exactly_one_command(postgres_alias: str) -> None:
    collisions = race_cases.run_races(postgres_alias)
    # The preloaded half of the races decided both commands on one version, so the
    # database's unique (game, version) key refused the second insert there.
    assert collisions >= race_cases.GAMES * race_cases.RACES_PER_GAME // 2
