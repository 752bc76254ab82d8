"""The game list keeps who stored a game's first event: for an import, the uploader, so
"My games" finds every game a player imported, private ones included (issue 12).
Games listed before this migration show it after ``manage.py rebuild_read_models``."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("replays", "0004_game_seed_commitment"),
    ]

    operations = [
        migrations.AddField(
            model_name="gamesummary",
            name="started_by",
            field=models.CharField(
                blank=True, db_index=True, max_length=150,
                help_text="the actor of the game's first event: for an import, the account "
                          "that uploaded it (user:<name>), whose players are "
                          "imported:<actor>"),
        ),
    ]
