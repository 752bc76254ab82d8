"""The events a projection could not apply: each is skipped, so that the events after it
are applied, and kept here, so that ``/health/`` and ``manage.py run_projections`` tell
of it until ``manage.py rebuild_read_models`` applies it again (issue 26)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("replays", "0007_columns_sized_from_their_bounds"),
    ]

    operations = [
        migrations.CreateModel(
            name="ProjectionFailure",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("projection", models.CharField(
                    max_length=64, help_text="the projection's name in the code, e.g. GameList")),
                ("notification_id", models.BigIntegerField(
                    help_text="the event's position in the store")),
                ("game_id", models.UUIDField(help_text="the game the event belongs to")),
                ("version", models.PositiveIntegerField(
                    help_text="the event's number in its game")),
                ("event", models.CharField(
                    max_length=21, help_text="the kind of game event, e.g. GameEnded")),
                ("error", models.TextField(help_text="the error's type and message")),
                ("failed_at", models.DateTimeField()),
            ],
            options={
                "ordering": ("projection", "notification_id"),
                "indexes": [models.Index(fields=["projection", "game_id"],
                                         name="projectionfailure_game")],
                "constraints": [models.UniqueConstraint(fields=("projection", "notification_id"),
                                                        name="projectionfailure_once")],
            },
        ),
    ]
