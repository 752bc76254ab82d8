"""The game list shows who left a game: the bot that played a seat on after its person
left or stayed away (``SeatHandedToBot``). Games listed before this migration show it
after ``manage.py rebuild_read_models``."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("replays", "0005_game_started_by"),
    ]

    operations = [
        migrations.AddField(
            model_name="seatsummary",
            name="handed_to",
            field=models.CharField(
                blank=True, max_length=64,
                help_text="the built-in bot that played the seat on after its person left "
                          "or stayed away (SeatHandedToBot); empty while its player plays "
                          "it"),
        ),
    ]
