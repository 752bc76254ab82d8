"""The game list keeps each game's (public, salted) seed commitment: two records of one
game share it, so an import finds a copy of the game already stored (issue 8)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("replays", "0003_no_topic_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="gamesummary",
            name="seed_commitment",
            field=models.CharField(
                blank=True, db_index=True, max_length=64,
                help_text="GameStarted.seed_commitment (public, salted): two records of the "
                          "same game share it, so an import finds a copy already stored"),
        ),
    ]
