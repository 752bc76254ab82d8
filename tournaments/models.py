"""Read models of the tournaments app: written with the games and events they describe.

A :class:`CompetitionGame` row is stored in the same transaction as its game's events,
so a bot game is in the store exactly when its row is: counting a round's rows says
whether the round is done without reading any game. The results they hold are copies
of the games' ``GameEnded`` events (or, for a live table past its deadline, of its
``GameStopped``); the competition's own ``RoundEnded`` events are built from them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class CompetitionGame(models.Model):
    """One game of a competition's round, with its result: stored in the same
    transaction as its game's events (``tournaments.core.games``), or, a live table's,
    once its game has ended or its deadline passed (``tournaments.core.live``). Counting
    a round's rows says whether the round is done without reading any game; the
    competition's ``RoundEnded`` is built from them."""

    game_id = models.UUIDField(primary_key=True)
    competition_id = models.UUIDField()
    round = models.PositiveIntegerField()
    index = models.PositiveIntegerField(help_text="the game's place in the round's pairings")
    ranks = models.JSONField()
    coins = models.JSONField()
    winners = models.JSONField()
    stored_at = models.DateTimeField(
        default=timezone.now,
        help_text="when it went in: a round whose games stop coming in while some are "
                  "missing is seen to have stalled (tournaments.core.rounds.watch)")

    class Meta:
        indexes = [models.Index(fields=["competition_id", "round"])]
        constraints = [models.UniqueConstraint(fields=["competition_id", "round", "index"],
                                               name="one_game_per_pairing")]


class CompetitionTable(models.Model):
    """A competition's game with people at it, played as a live table of the ``play``
    app (``tournaments.core.live``): made once per game (the unique constraint), in the
    same transaction as its table and its game's start. Its result goes in as a
    :class:`CompetitionGame` row once the game ends, or at the ``deadline`` as it
    stands."""

    competition_id = models.UUIDField()
    round = models.PositiveIntegerField()
    index = models.PositiveIntegerField()
    table = models.OneToOneField("play.Table", on_delete=models.PROTECT,
                                 related_name="competition_game")
    deadline = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["competition_id", "round"])]
        constraints = [models.UniqueConstraint(fields=["competition_id", "round", "index"],
                                               name="one_table_per_pairing")]


class Invitation(models.Model):
    """A person invited into a competition that takes people: the
    read model of its ``Invited``, ``Accepted``, ``Declined`` and ``Expired`` events,
    written in the same transaction as them (``tournaments.core.consent.save``), so that
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
    account's quotas (``tournaments.core.quotas``): written with its creation, in the same
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


class WorkersSeen(models.Model):
    """When a Celery worker last ran the beat's heartbeat (``tournaments.workers_seen``,
    every ``WORKER_HEARTBEAT_SECONDS``): one row, rewritten in place. A row in the
    shared database, not a file, because the web processes that read it (``/health/``,
    a competition's page) and the workers that write it may be on different machines;
    and written by a worker from a task the beat sends, so that it says the whole path
    works: beat, broker and a worker."""

    name = models.CharField(max_length=32, primary_key=True)
    seen_at = models.DateTimeField()
