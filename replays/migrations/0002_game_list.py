"""The game list read model: a row per game and per seat, built by replays.projections."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("replays", "0001_event_store"),
    ]

    operations = [
        migrations.CreateModel(
            name="GameSummary",
            fields=[
                ("game_id", models.UUIDField(primary_key=True, serialize=False)),
                (
                    "ruleset",
                    models.CharField(help_text="the ruleset's name, e.g. classic", max_length=64),
                ),
                ("player_count", models.PositiveSmallIntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[("running", "running"), ("finished", "finished")],
                        default="running",
                        max_length=8,
                    ),
                ),
                (
                    "winners",
                    models.CharField(
                        blank=True,
                        help_text="the winners' names, readable: Ann and Bob",
                        max_length=255,
                    ),
                ),
                ("started_at", models.DateTimeField()),
                ("ended_at", models.DateTimeField(blank=True, null=True)),
                ("last_event_at", models.DateTimeField()),
                (
                    "events",
                    models.PositiveIntegerField(help_text="events stored so far (the last step)"),
                ),
                ("tournament", models.CharField(blank=True, max_length=200)),
                ("private", models.BooleanField(default=False)),
            ],
            options={
                "ordering": ("-started_at", "game_id"),
                "indexes": [
                    models.Index(fields=["-started_at", "game_id"], name="gamesummary_started"),
                    models.Index(fields=["ruleset", "-started_at"], name="gamesummary_ruleset"),
                    models.Index(fields=["status", "-started_at"], name="gamesummary_status"),
                    models.Index(
                        fields=["tournament", "-started_at"], name="gamesummary_tournament"
                    ),
                    models.Index(fields=["private"], name="gamesummary_private"),
                ],
            },
        ),
        migrations.CreateModel(
            name="SeatSummary",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat", models.PositiveSmallIntegerField()),
                ("name", models.CharField(max_length=100)),
                (
                    "player",
                    models.CharField(help_text="user:<username> or bot:<name>", max_length=150),
                ),
                ("coins", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("rank", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("winner", models.BooleanField(default=False)),
                (
                    "game",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="seats",
                        to="replays.gamesummary",
                    ),
                ),
            ],
            options={
                "ordering": ("game", "seat"),
                "indexes": [models.Index(fields=["player"], name="seatsummary_player")],
                "constraints": [
                    models.UniqueConstraint(fields=("game", "seat"), name="seatsummary_game_seat")
                ],
            },
        ),
    ]
