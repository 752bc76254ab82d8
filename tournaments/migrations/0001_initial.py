"""The competitions' event store tables (``tournaments_events``, its counter and
snapshots, beside the games') and the tournament games read model."""

from typing import Any

from django.db import migrations, models

from replays.persistence import create_store_tables, drop_store_tables

APPLICATIONS = ("Tournaments",)


def create(apps: Any, schema_editor: Any) -> None:
    create_store_tables(schema_editor.connection.alias, APPLICATIONS, ())


def drop(apps: Any, schema_editor: Any) -> None:
    drop_store_tables(schema_editor.connection.alias, APPLICATIONS, ())


class Migration(migrations.Migration):
    initial = True
    dependencies: list[tuple[str, str]] = [("replays", "0001_event_store")]
    operations = [
        migrations.RunPython(create, drop),
        migrations.CreateModel(
            name="TournamentGame",
            fields=[
                ("game_id", models.UUIDField(primary_key=True, serialize=False)),
                ("tournament_id", models.UUIDField()),
                ("round", models.PositiveIntegerField()),
                ("index", models.PositiveIntegerField(
                    help_text="the game's place in the round's pairings")),
                ("ranks", models.JSONField()),
                ("coins", models.JSONField()),
                ("winners", models.JSONField()),
            ],
            options={
                "indexes": [models.Index(fields=["tournament_id", "round"],
                                         name="tournaments_tournam_86d997_idx")],
                "constraints": [models.UniqueConstraint(
                    fields=("tournament_id", "round", "index"), name="one_game_per_pairing")],
            },
        ),
    ]
