"""Read models of the tournaments app: written with the games they describe.

A :class:`TournamentGame` row is stored in the same transaction as its game's events
(``tournaments.runner.play_deal``), so a game is in the store exactly when its row is:
counting a round's rows says whether the round is done without reading any game.
The results they hold are copies of the games' ``GameEnded`` events; the competition's
own ``RoundEnded`` events are built from them.
"""

from __future__ import annotations

from django.db import models


class TournamentGame(models.Model):
    game_id = models.UUIDField(primary_key=True)
    tournament_id = models.UUIDField()
    round = models.PositiveIntegerField()
    index = models.PositiveIntegerField(help_text="the game's place in the round's pairings")
    ranks = models.JSONField()
    coins = models.JSONField()
    winners = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["tournament_id", "round"])]
        constraints = [models.UniqueConstraint(fields=["tournament_id", "round", "index"],
                                               name="one_game_per_pairing")]


class LadderGame(models.Model):
    """A ladder match's game, stored in the same transaction as its events
    (``tournaments.ladder_runner.play_match``): counting a tick's rows says whether it
    is done."""

    game_id = models.UUIDField(primary_key=True)
    ladder_id = models.UUIDField()
    tick = models.PositiveIntegerField()
    match = models.PositiveIntegerField(help_text="the match's number on the ladder")
    ranks = models.JSONField()
    coins = models.JSONField()
    winners = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["ladder_id", "tick"])]
        constraints = [models.UniqueConstraint(fields=["ladder_id", "match"],
                                               name="one_game_per_ladder_match")]


class LeagueGame(models.Model):
    """A league fixture's game, stored in the same transaction as its events
    (``tournaments.league_runner.play_fixture``)."""

    game_id = models.UUIDField(primary_key=True)
    league_id = models.UUIDField()
    season = models.PositiveIntegerField()
    fixture = models.PositiveIntegerField(help_text="the fixture's place in the season")
    ranks = models.JSONField()
    coins = models.JSONField()
    winners = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["league_id", "season"])]
        constraints = [models.UniqueConstraint(fields=["league_id", "season", "fixture"],
                                               name="one_game_per_league_fixture")]


class LeagueTable(models.Model):
    """A league fixture with people at it, played as a live table of the ``play`` app
    (``tournaments.league_live``): made once per fixture (the unique constraint), in the
    same transaction as its table and its game's start. Its result goes in as a
    :class:`LeagueGame` row once the game ends, or at the ``deadline`` as it stands."""

    league_id = models.UUIDField()
    season = models.PositiveIntegerField()
    fixture = models.PositiveIntegerField()
    table = models.OneToOneField("play.Table", on_delete=models.PROTECT,
                                 related_name="league_fixture")
    deadline = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["league_id", "season"])]
        constraints = [models.UniqueConstraint(fields=["league_id", "season", "fixture"],
                                               name="one_table_per_league_fixture")]
