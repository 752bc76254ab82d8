"""Drop the events tables' index on topic, which stores created before this release have.

Nearly every row of a game has the same topic (``Game.Happened``), so the index selected
nothing and only slowed every insert (bench/store.py, section record). Going back leaves
it dropped: nothing reads it.
"""

from typing import Any

from django.db import migrations

from replays.persistence import STORE_APPLICATIONS


def drop_topic_indexes(apps: Any, schema_editor: Any) -> None:
    quote = schema_editor.connection.ops.quote_name
    for name in STORE_APPLICATIONS:
        schema_editor.execute(f"DROP INDEX IF EXISTS {quote(f'{name.lower()}_events_topic_idx')}")


class Migration(migrations.Migration):
    dependencies = [("replays", "0002_game_list")]
    operations = [migrations.RunPython(drop_topic_indexes, migrations.RunPython.noop)]
