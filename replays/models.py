"""Read models of the replays app: tables built from the event store, never written by hand.

Every row here is a projection of the ``Games`` application's events
(:mod:`replays.projections`): it can be deleted and rebuilt from the events alone
(``manage.py rebuild_read_models``). Only what anyone allowed to list a game may know is
kept: who sits where, the ruleset, dates, and the result once the game has ended. Hands,
the draw pile and the seed never get here.

Each text column is as long as the longest value the platform stores in it, from the
bound where that value comes in (:mod:`replays.names`): PostgreSQL refuses a longer
one, and the projection could not list the game.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Exists, OuterRef, Q

from bohnanza_core.commitments import COMMITMENT_HEX_DIGITS
from bohnanza_core.engine import BOT_NAME_MAX, SEAT_NAME_MAX
from bohnanza_core.events import EVENT_TYPES, StopReason
from bohnanza_core.games import TOURNAMENT_NAME_MAX
from bohnanza_core.rulesets import LISTED_NAME_MAX
from replays.names import PERSON, PLAYER_MAX, WINNERS_MAX

STOP_REASON_MAX = max(len(reason.value) for reason in StopReason)
"""The longest reason the platform stops a game for."""


class GameSummaryQuerySet(models.QuerySet["GameSummary"]):
    def visible_to(self, username: str | None, *, is_staff: bool = False) -> GameSummaryQuerySet:
        """The games a person may know exist: every public game, and a private one only
        for its players and staff (``replays.store.access``'s rule; a list has no share
        token, so a private game never shows to anyone else, not even as a row)."""
        if is_staff:
            return self.all()
        public = Q(private=False)
        if not username:
            return self.filter(public)
        mine = Exists(SeatSummary.objects.filter(game=OuterRef("pk"),
                                                 player=f"{PERSON}{username}"))
        return self.filter(public | mine)


class GameSummary(models.Model):
    """One game as the game list shows it, and as its filters search it. Its seats (names,
    who sits there, coins at the end) are :class:`SeatSummary` rows."""

    class Status(models.TextChoices):
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"

    game_id = models.UUIDField(primary_key=True)
    ruleset = models.CharField(
        max_length=LISTED_NAME_MAX,
        help_text="the preset the game is filed under, e.g. classic or classic (house rules)")
    player_count = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.RUNNING)
    winners = models.CharField(max_length=WINNERS_MAX, blank=True,
                               help_text="the winners' names, readable: Ann and Bob")
    stopped = models.CharField(
        max_length=STOP_REASON_MAX, blank=True,
        help_text="why the platform stopped the game before its end (GameStopped.reason: "
                  "deadline, abandoned, ruling); empty for a game the rules ended")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    last_event_at = models.DateTimeField()
    events = models.PositiveIntegerField(help_text="events stored so far (the last step)")
    tournament = models.CharField(max_length=TOURNAMENT_NAME_MAX, blank=True)
    private = models.BooleanField(default=False)
    started_by = models.CharField(
        max_length=PLAYER_MAX, blank=True, db_index=True,
        help_text="the actor of the game's first event: for an import, the account that "
                  "uploaded it (user:<name>), whose players are imported:<actor>")
    seed_commitment = models.CharField(
        max_length=COMMITMENT_HEX_DIGITS, blank=True, db_index=True,
        help_text="GameStarted.seed_commitment (public, salted): two records of the same "
                  "game share it, so an import finds a copy already stored")

    objects = GameSummaryQuerySet.as_manager()

    class Meta:
        ordering = ("-started_at", "game_id")
        indexes = (
            models.Index(fields=("-started_at", "game_id"), name="gamesummary_started"),
            models.Index(fields=("ruleset", "-started_at"), name="gamesummary_ruleset"),
            models.Index(fields=("status", "-started_at"), name="gamesummary_status"),
            models.Index(fields=("tournament", "-started_at"), name="gamesummary_tournament"),
            models.Index(fields=("private",), name="gamesummary_private"),
        )

    def __str__(self) -> str:
        return f"{self.ruleset} game {self.game_id} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status == self.Status.FINISHED


class SeatSummary(models.Model):
    """One seat of a listed game: searchable by seat name and by who sits there, and the
    index that shows a private game to its own players."""

    game = models.ForeignKey(GameSummary, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=SEAT_NAME_MAX)
    player = models.CharField(max_length=PLAYER_MAX,
                              help_text="user:<username>, bot:<name> or imported:<actor>")
    coins = models.PositiveSmallIntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    winner = models.BooleanField(default=False)
    handed_to = models.CharField(
        max_length=BOT_NAME_MAX, blank=True,
        help_text="the built-in bot that played the seat on after its person left or "
                  "stayed away (SeatHandedToBot); empty while its player plays it")

    class Meta:
        ordering = ("game", "seat")
        constraints = (
            models.UniqueConstraint(fields=("game", "seat"), name="seatsummary_game_seat"),
        )
        indexes = (models.Index(fields=("player",), name="seatsummary_player"),)

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.game_id}: {self.name} ({self.player})"


EVENT_KIND_MAX = max(len(kind.__name__) for kind in EVENT_TYPES)
"""The longest name of a kind of game event (``ThirdFieldBought``...)."""


class ProjectionFailure(models.Model):
    """An event a projection could not apply (a value its rows refuse, or a bug it runs
    into), and why.

    The event is skipped, so that the events after it are still applied: one odd value
    must not keep every later game off the list (issue 26: the game list stopped for good
    at a username longer than its column). It is kept here so that it stays told, by
    ``/health/`` and ``manage.py run_projections``, until a fix and ``manage.py
    rebuild_read_models``, which applies every event again, empty this table with the
    rows. Written in the same transaction as the rows and the position, as they are."""

    projection = models.CharField(max_length=64,
                                  help_text="the projection's name in the code, e.g. GameList")
    notification_id = models.BigIntegerField(help_text="the event's position in the store")
    game_id = models.UUIDField(help_text="the game the event belongs to")
    version = models.PositiveIntegerField(help_text="the event's number in its game")
    event = models.CharField(max_length=EVENT_KIND_MAX,
                             help_text="the kind of game event, e.g. GameEnded")
    error = models.TextField(help_text="the error's type and message")
    failed_at = models.DateTimeField()

    class Meta:
        ordering = ("projection", "notification_id")
        constraints = (
            models.UniqueConstraint(fields=("projection", "notification_id"),
                                    name="projectionfailure_once"),
        )
        indexes = (models.Index(fields=("projection", "game_id"),
                                name="projectionfailure_game"),)

    def __str__(self) -> str:
        return (f"{self.projection} could not apply event {self.notification_id} "
                f"(game {self.game_id}, version {self.version}, {self.event})")
