"""Why the platform stopped a game before its end (``GameStopped``, issue 28): the game
list says so beside the result. Games listed before this migration show it after
``manage.py rebuild_read_models``."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("replays", "0008_projection_failures"),
    ]

    operations = [
        migrations.AddField(
            model_name="gamesummary",
            name="stopped",
            field=models.CharField(
                blank=True, default="", max_length=9,
                help_text="why the platform stopped the game before its end "
                          "(GameStopped.reason: deadline, abandoned, ruling); empty for a "
                          "game the rules ended"),
            preserve_default=False,
        ),
    ]
