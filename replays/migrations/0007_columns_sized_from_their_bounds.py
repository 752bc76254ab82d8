"""Each text column of the game list as long as the longest value the platform stores in
it (replays.names, issue 26): a player or the actor who started a game,
``user:<username>`` with Django's longest username, 155 characters, where 150 stopped
the list on PostgreSQL for good; the winners' text of seven seats sharing a win, 295
(was 255); a seat name, 40, and the bot a seat is handed to, 40, as the engine takes
them; a competition's name, 100; the preset a game is filed under, 24.

Nothing needs rebuilding: a list that stopped at a longer value goes on from there at
the next catch-up. The narrowed columns (seat name, handed to, tournament, ruleset)
hold nothing longer since those values are bounded where they come in; PostgreSQL
refuses this migration for a list kept from before that, which
``manage.py rebuild_read_models`` then builds again."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("replays", "0006_seat_handed_to"),
    ]

    operations = [
        migrations.AlterField(
            model_name="gamesummary",
            name="ruleset",
            field=models.CharField(
                max_length=24,
                help_text="the preset the game is filed under, e.g. classic or classic "
                          "(house rules)"),
        ),
        migrations.AlterField(
            model_name="gamesummary",
            name="started_by",
            field=models.CharField(
                blank=True, db_index=True, max_length=155,
                help_text="the actor of the game's first event: for an import, the account "
                          "that uploaded it (user:<name>), whose players are "
                          "imported:<actor>"),
        ),
        migrations.AlterField(
            model_name="gamesummary",
            name="tournament",
            field=models.CharField(blank=True, max_length=100),
        ),
        migrations.AlterField(
            model_name="gamesummary",
            name="winners",
            field=models.CharField(blank=True, max_length=295,
                                   help_text="the winners' names, readable: Ann and Bob"),
        ),
        migrations.AlterField(
            model_name="seatsummary",
            name="handed_to",
            field=models.CharField(
                blank=True, max_length=40,
                help_text="the built-in bot that played the seat on after its person left "
                          "or stayed away (SeatHandedToBot); empty while its player plays "
                          "it"),
        ),
        migrations.AlterField(
            model_name="seatsummary",
            name="name",
            field=models.CharField(max_length=40),
        ),
        migrations.AlterField(
            model_name="seatsummary",
            name="player",
            field=models.CharField(max_length=155,
                                   help_text="user:<username>, bot:<name> or imported:<actor>"),
        ),
    ]
