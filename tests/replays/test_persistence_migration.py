"""``manage.py migrate`` prepares the event store: the test database, migrated by
pytest-django, has every table of the platform's applications and projections."""

import pytest
from django.db import connection

from replays.persistence import STORE_APPLICATIONS, STORE_PROJECTIONS


def store_tables() -> set[str]:
    tables = set()
    for name in STORE_APPLICATIONS:
        prefix = name.lower()
        tables |= {f"{prefix}_events", f"{prefix}_snapshots"}
        if connection.vendor == "postgresql":
            tables.add(f"{prefix}_notification_counter")
    return tables | {f"{name.lower()}_tracking" for name in STORE_PROJECTIONS}


def test_the_platform_names_its_applications() -> None:
    assert {"games_events", "games_snapshots", "disputes_events", "disputes_snapshots",
            "gamelist_tracking"} <= store_tables()


@pytest.mark.django_db
def test_migrate_creates_the_store_tables() -> None:
    assert store_tables() <= set(connection.introspection.table_names())
