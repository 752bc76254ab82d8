"""``manage.py migrate`` prepares the event store: the test database, migrated by
pytest-django, has every table of the platform's applications and projections."""

import pytest
from django.db import connection

from replays.persistence import STORE_APPLICATIONS, STORE_PROJECTIONS


def store_tables() -> set[str]:
    tables = set()
    for name in STORE_APPLICATIONS:
        prefix = name.lower()
        tables |= {f"{prefix}_events", f"{prefix}_notification_counter", f"{prefix}_snapshots"}
    return tables | {f"{name.lower()}_tracking" for name in STORE_PROJECTIONS}


def test_the_platform_names_its_applications() -> None:
    assert store_tables() == {
        "games_events", "games_notification_counter", "games_snapshots",
        "disputes_events", "disputes_notification_counter", "disputes_snapshots",
        "gamelist_tracking",
    }


@pytest.mark.django_db
def test_migrate_creates_the_store_tables() -> None:
    assert store_tables() <= set(connection.introspection.table_names())
