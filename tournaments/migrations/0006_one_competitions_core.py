"""One competitions core: the games of competitions, ladders and leagues in one results
model (``CompetitionGame``), a league's live tables as any competition's
(``CompetitionTable``), and the beat's periodic tasks under the core's task names.

A ladder's games were numbered across its ticks (``match``); a game's place in its
round is its number less the first of its tick: the first tick's first is 0, and every
later tick's follows the last of the tick before, which had ended (one tick is open at
a time) and so has every row.
"""

import json

import django.db.models.deletion
from django.db import migrations, models


def _ladder_indices(rows):
    """(row, index in its tick) for one ladder's rows."""
    by_tick = {}
    for row in rows:
        by_tick.setdefault(row.tick, []).append(row)
    first = 0
    for tick in sorted(by_tick):
        matches = sorted(by_tick[tick], key=lambda r: r.match)
        if tick:
            before = by_tick.get(tick - 1)
            first = max(r.match for r in before) + 1 if before else matches[0].match
        for row in matches:
            yield row, row.match - first


def forward(apps, schema_editor):
    CompetitionGame = apps.get_model("tournaments", "CompetitionGame")
    CompetitionTable = apps.get_model("tournaments", "CompetitionTable")
    rows = []
    for row in apps.get_model("tournaments", "TournamentGame").objects.all():
        rows.append(CompetitionGame(game_id=row.game_id, competition_id=row.tournament_id,
                                    round=row.round, index=row.index, ranks=row.ranks,
                                    coins=row.coins, winners=row.winners))
    for row in apps.get_model("tournaments", "LeagueGame").objects.all():
        rows.append(CompetitionGame(game_id=row.game_id, competition_id=row.league_id,
                                    round=row.season, index=row.fixture, ranks=row.ranks,
                                    coins=row.coins, winners=row.winners))
    LadderGame = apps.get_model("tournaments", "LadderGame")
    for ladder in LadderGame.objects.values_list("ladder_id", flat=True).distinct():
        for row, index in _ladder_indices(LadderGame.objects.filter(ladder_id=ladder)):
            rows.append(CompetitionGame(game_id=row.game_id, competition_id=row.ladder_id,
                                        round=row.tick, index=index, ranks=row.ranks,
                                        coins=row.coins, winners=row.winners))
    CompetitionGame.objects.bulk_create(rows, batch_size=500)
    CompetitionTable.objects.bulk_create([
        CompetitionTable(competition_id=row.league_id, round=row.season, index=row.fixture,
                         table_id=row.table_id, deadline=row.deadline)
        for row in apps.get_model("tournaments", "LeagueTable").objects.all()])
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for task in PeriodicTask.objects.filter(task__in=("tournaments.ladder_tick",
                                                      "tournaments.league_collect")):
        competition = json.loads(task.args)[0]
        if task.task == "tournaments.ladder_tick":
            task.task, task.name = "tournaments.tick", f"competition {competition} tick"
        else:
            task.task, task.name = "tournaments.collect", f"competition {competition} collect"
        task.save()


class Migration(migrations.Migration):

    dependencies = [
        ("play", "0003_columns_sized_from_their_bounds"),
        ("tournaments", "0005_consent_and_quotas"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        # Its name goes to the one results model (PostgreSQL names indexes schema-wide).
        migrations.RemoveConstraint(model_name="tournamentgame", name="one_game_per_pairing"),
        migrations.CreateModel(
            name="CompetitionGame",
            fields=[
                ("game_id", models.UUIDField(primary_key=True, serialize=False)),
                ("competition_id", models.UUIDField()),
                ("round", models.PositiveIntegerField()),
                ("index", models.PositiveIntegerField(
                    help_text="the game's place in the round's pairings")),
                ("ranks", models.JSONField()),
                ("coins", models.JSONField()),
                ("winners", models.JSONField()),
            ],
        ),
        migrations.AddIndex(
            model_name="competitiongame",
            index=models.Index(fields=["competition_id", "round"],
                               name="tournaments_competi_4fbb4b_idx"),
        ),
        migrations.AddConstraint(
            model_name="competitiongame",
            constraint=models.UniqueConstraint(fields=("competition_id", "round", "index"),
                                               name="one_game_per_pairing"),
        ),
        migrations.CreateModel(
            name="CompetitionTable",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("competition_id", models.UUIDField()),
                ("round", models.PositiveIntegerField()),
                ("index", models.PositiveIntegerField()),
                ("deadline", models.DateTimeField()),
                ("table", models.OneToOneField(on_delete=django.db.models.deletion.PROTECT,
                                               related_name="competition_game",
                                               to="play.table")),
            ],
        ),
        migrations.AddIndex(
            model_name="competitiontable",
            index=models.Index(fields=["competition_id", "round"],
                               name="tournaments_competi_4764ad_idx"),
        ),
        migrations.AddConstraint(
            model_name="competitiontable",
            constraint=models.UniqueConstraint(fields=("competition_id", "round", "index"),
                                               name="one_table_per_pairing"),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop),
        migrations.DeleteModel(name="LadderGame"),
        migrations.DeleteModel(name="LeagueGame"),
        migrations.DeleteModel(name="LeagueTable"),
        migrations.DeleteModel(name="TournamentGame"),
    ]
