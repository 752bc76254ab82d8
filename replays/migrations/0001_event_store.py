"""The event store's tables: ``manage.py migrate`` prepares the store.

For each application in ``replays.persistence.STORE_APPLICATIONS`` its events table, its
notification counter and its snapshots table; for each projection in ``STORE_PROJECTIONS``
its tracking table. The recorders' own DDL creates them (``CREATE TABLE IF NOT EXISTS``),
for the SQLite or PostgreSQL database being migrated; tables already there are left alone.
An application missing here still creates its tables on first use (``CREATE_TABLE``).
"""

from typing import Any

from django.db import migrations

from replays.persistence import create_store_tables, drop_store_tables


def create(apps: Any, schema_editor: Any) -> None:
    create_store_tables(schema_editor.connection.alias)


def drop(apps: Any, schema_editor: Any) -> None:
    drop_store_tables(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies: list[tuple[str, str]] = []
    operations = [migrations.RunPython(create, drop)]
