"""Read models of the tournaments app: written with the games they describe.

A :class:`TournamentGame` row is stored in the same transaction as its game's events
(``tournaments.runner.play_deal``), so a game is in the store exactly when its row is:
counting a round's rows says whether the round is done without reading any game.
The results they hold are copies of the games' ``GameEnded`` events; the competition's
own ``RoundEnded`` events are built from them.
"""

from __future__ import annotations

from django.conf import settings
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


class Invitation(models.Model):
    """A person invited into a competition that takes people (today a league): the
    read model of its ``Invited``, ``Accepted``, ``Declined`` and ``Expired`` events,
    written in the same transaction as them (``tournaments.consent.save``), so that
    a person's invitations are one indexed query instead of a read of every league."""

    class Status(models.TextChoices):
        INVITED = "invited"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        EXPIRED = "expired"

    competition_id = models.UUIDField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="competition_invitations")
    status = models.CharField(max_length=8, choices=Status.choices)
    invited_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "status"])]
        constraints = [models.UniqueConstraint(fields=["competition_id", "user"],
                                               name="one_invitation_per_person")]


class QuotaUse(models.Model):
    """What one competition, ladder or league made by an account counts against that
    account's quotas (``tournaments.quotas``): written with its creation, in the same
    transaction. ``games`` is every game it asks for (a ladder: the games its ticks
    play a day), counted from ``games_at`` (a league waiting for its first season asks
    for none until it starts); ``running`` is cleared once it is seen to have ended."""

    class Kind(models.TextChoices):
        COMPETITION = "competition"
        LADDER = "ladder"
        LEAGUE = "league"

    competition_id = models.UUIDField(unique=True)
    kind = models.CharField(max_length=11, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="quota_uses")
    created_at = models.DateTimeField(auto_now_add=True)
    games = models.PositiveIntegerField(default=0)
    games_at = models.DateTimeField(null=True, blank=True)
    running = models.BooleanField(default=True)

    class Meta:
        indexes = [models.Index(fields=["user", "kind", "running"]),
                   models.Index(fields=["user", "games_at"])]
