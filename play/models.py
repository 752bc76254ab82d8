"""Tables of the lobby: who sits where before and while a game is played, and the
table's clock. The game itself lives in the event store (``replays.store``); a table
only points at it (``game_id``) once started."""

from __future__ import annotations

import functools
import secrets
import uuid
from collections.abc import Collection
from typing import Any

from django.conf import settings
from django.db import connections, models, router

from bohnanza_core.bots import registry
from bohnanza_core.engine import SEAT_NAME_MAX
from bohnanza_core.rulesets import PRESET_NAME_MAX, Ruleset, customize, ruleset_for


def new_invite_token() -> str:
    return secrets.token_urlsafe(18)


class Table(models.Model):
    """A table in the lobby: a ruleset (a preset for a player count, with house rules
    as overrides), its seats, a clock, public or private (by invitation link)."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                   related_name="tables_created")
    created_at = models.DateTimeField(auto_now_add=True)
    preset = models.CharField(max_length=PRESET_NAME_MAX)
    players = models.PositiveSmallIntegerField()
    overrides = models.JSONField(default=dict, blank=True,
                                 help_text="house rules: parameters that differ from the preset")
    public = models.BooleanField(default=True)
    invite_token = models.CharField(max_length=40, default=new_invite_token)
    move_seconds = models.PositiveIntegerField(default=0, help_text="0: no clock")
    game_seconds = models.PositiveIntegerField(default=0,
                                               help_text="each seat's bank beyond the "
                                                         "per-move allowance")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    game_id = models.UUIDField(null=True, blank=True, unique=True)
    # The clock: which seat it runs for, since when, at which version of the game, and
    # when it falls (persisted, so a restarted server still plays the clock's move).
    clock_seat = models.SmallIntegerField(null=True, blank=True)
    clock_version = models.PositiveIntegerField(null=True, blank=True)
    clock_started = models.DateTimeField(null=True, blank=True)
    clock_deadline = models.DateTimeField(null=True, blank=True)
    # The trading window: while a person sits at the table, a bot's trading phase lasts
    # ``trade_seconds`` (unless every person passed), so that people can trade with it.
    # When the window of turn ``trade_turn`` closes (kept here, as the clock's deadline).
    trade_seconds = models.PositiveIntegerField(
        default=15, help_text="0: bots end trading at their pace; else how long a trading "
                              "phase stays open for the people at the table")
    trade_turn = models.PositiveIntegerField(null=True, blank=True)
    trade_deadline = models.DateTimeField(null=True, blank=True)
    # A person who leaves the running game, or whose every connection stays closed for
    # absence_seconds, is replaced by the replacement bot (an event of the game:
    # SeatHandedToBot).
    absence_seconds = models.PositiveIntegerField(
        default=0, help_text="0: never; else seconds a seat's person may be away")
    replacement_bot = models.CharField(max_length=registry.MAX_NAME, default="heuristic")
    # A challenge or a seek made through the API starts by itself once its last seat
    # is taken; a table of the lobby waits for its creator's start.
    start_when_full = models.BooleanField(default=False)

    class Meta:
        ordering = ("-created_at",)
        indexes = [models.Index(fields=("status", "public", "-created_at"))]

    def __str__(self) -> str:
        return f"{self.preset} table {self.id}"

    def ruleset(self) -> Ruleset:
        """The table's rules: the preset for its player count, with its house rules."""
        if self.overrides:
            return customize(self.preset, self.players, self.overrides)
        return ruleset_for(self.preset, self.players)

    @property
    def clocked(self) -> bool:
        return self.move_seconds > 0


class Seat(models.Model):
    """One seat of a table: open to people (``user`` once someone sits), or taken by a
    built-in bot (``bot``, the bot's name)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    bot = models.CharField(max_length=registry.MAX_NAME, blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="seats")
    bank_used = models.FloatField(default=0.0, help_text="seconds of the game's bank spent")
    # Once its person left or stayed away, ``bot`` names the bot that plays the seat and
    # ``user`` still says who sat there.
    handover = models.CharField(max_length=8, blank=True,
                                help_text="left / absent: why a bot plays a person's seat")
    # The turn whose trading phase this seat's person passed (is done trading in): the
    # trading window closes early once every person at the table has passed.
    passed_turn = models.PositiveIntegerField(null=True, blank=True)
    # When the seat is handed to its bot if nobody comes back (every connection of its
    # person is closed): kept here, so another process or a restarted one fires it.
    absence_deadline = models.DateTimeField(null=True, blank=True)
    # A challenge's seat kept for one account (a person or a bot account): only they
    # take it, by accepting; declining withdraws the whole challenge.
    invited = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                on_delete=models.CASCADE, related_name="challenges")

    class Meta:
        ordering = ("number",)
        constraints = [models.UniqueConstraint(fields=("table", "number"), name="one_per_seat")]

    def __str__(self) -> str:
        return f"seat {self.number} of {self.table_id}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot)

    @property
    def handed_over(self) -> bool:
        """A person sat here and a bot plays the seat now."""
        return bool(self.handover)

    @property
    def person(self) -> bool:
        """A person plays this seat now."""
        return self.user_id is not None and not self.bot

    @property
    def taken(self) -> bool:
        return self.is_bot or self.user_id is not None

    def player(self) -> str:
        """Who sits here as the record names them: ``user:<name>`` or ``bot:<name>``."""
        if self.bot:
            return f"bot:{self.bot}"
        assert self.user is not None
        return f"user:{self.user.get_username()}"

    def seat_name(self) -> str:
        """The seat's name in the game (at most ``SEAT_NAME_MAX`` characters, as the engine
        wants: a username is cut to it; a bot's name leaves room for the seat's number)."""
        if self.bot:
            return f"{self.bot} {self.number + 1}"
        assert self.user is not None
        return self.user.get_username()[:SEAT_NAME_MAX]


class Presence(models.Model):
    """One open connection of a seat's person to a running table: while one is fresh
    (``seen_at`` within ``play.presence.STALE_SECONDS``, renewed by its connection) the
    person is there. Rows, not a counter, so that two processes serving one table agree,
    and a process that died with connections open leaves rows that go stale."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="presences")
    seat = models.PositiveSmallIntegerField()
    channel = models.CharField(max_length=200, unique=True)
    seen_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=("table", "seat"))]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.table_id} on {self.channel}"


class BotAccount(models.Model):
    """An account that plays as a bot from outside (as Lichess bot accounts do): it
    signs in by its API tokens only (:class:`ApiToken`), never by a password, and is
    marked as a bot wherever it appears. ``owner``: the person who made it (or upgraded
    one of their accounts to it) and consents on its behalf (a competition's entry);
    none for one made on the command line (``manage.py bot_token``)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="bot_account")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.CASCADE, related_name="bots")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"bot account {self.user_id}"


TOKEN_LABEL_MAX = 60
"""The longest name an owner gives a token (``laptop``, ``ladder runner``)."""

SCOPES = ("play", "read", "enter")
"""What a token may do: ``play`` (sit, play, challenge, seek: every change of a table),
``read`` (its games, their views, its event stream, the lobby), ``enter`` (enter the
bot in competitions: its owner's standing consent, given by making such a token)."""


class ApiToken(models.Model):
    """One API token of a bot account. Only a keyed digest is kept (HMAC-SHA-256 under
    the site's secret: ``play.tokens.digest``), so the database alone gives no token
    away; the token is shown once, when made. ``hint``: its first characters, so its
    owner can tell tokens apart. Revoked tokens are kept (``revoked_at``) to show when."""

    account = models.ForeignKey(BotAccount, on_delete=models.CASCADE, related_name="tokens")
    label = models.CharField(max_length=TOKEN_LABEL_MAX)
    digest = models.CharField(max_length=80, unique=True)
    hint = models.CharField(max_length=12)
    scopes = models.CharField(max_length=32, help_text="space-separated: play read enter")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"token {self.hint}… of {self.account_id}"

    @property
    def scope_list(self) -> list[str]:
        return [s for s in self.scopes.split() if s in SCOPES]


def bot_account_ids(user_ids: Any) -> set[int]:
    """Which of these accounts are bot accounts (one query): they are marked as bots."""
    ids = {i for i in user_ids if i is not None}
    if not ids:
        return set()
    return set(BotAccount.objects.filter(user_id__in=ids).values_list("user_id", flat=True))


def seats_with_accounts() -> models.QuerySet[Seat]:
    """Seats with their accounts, each marked whether its account is a bot account
    (``on_bot_account``), in one query (:func:`running_table`). A copy of one built
    once: building it (the annotation's subquery) cost as much as running it."""
    return _seats_with_accounts().all()


@functools.cache
def _seats_with_accounts() -> models.QuerySet[Seat]:
    return Seat.objects.select_related("user").annotate(
        on_bot_account=models.Exists(BotAccount.objects.filter(user_id=models.OuterRef("user_id"))))


def on_bot_account(seat: Seat) -> bool:
    """Whether the seat's account is a bot account, as :func:`sitting` and
    :func:`running_table` mark it (AttributeError for a seat read otherwise)."""
    return bool(getattr(seat, "on_bot_account"))  # noqa: B009 (an annotation, no field)


def sitting(table_id: uuid.UUID) -> tuple[Table, list[Seat]]:
    """The table (Table.DoesNotExist if none) and its seats in order, each marked whether
    its account is a bot account (:func:`on_bot_account`), as stored now: what a table's
    driver reads at every look. A seat's account is read when it is first needed (a
    clock's move in a person's seat names them).

    Two statements written by hand (through ``Manager.raw``, which still converts every
    column as the models say): the same read through the ORM (:func:`running_table`)
    cost 1.4-1.7 ms of CPU, most of it compiling its SQL anew, against 0.5 ms, and was
    a quarter of the servers' CPU with outside bots (bench/live.py --modes outside)."""
    key = db_value(Table, "id", table_id)
    tables = list(Table.objects.raw(_table_sql(), [key]))
    if not tables:
        raise Table.DoesNotExist(f"no table {table_id}")
    table = tables[0]
    seats = list(Seat.objects.raw(_seats_sql(), [key]))
    for seat in seats:
        seat.table = table
    return table, seats


# -- statements written by hand -------------------------------------------------------
#
# For the reads a live table makes at every move (a driver's look, a bot account's
# token), where Django compiling the same SQL anew cost more than running it. Each is
# built once from the models' own names and run through ``Manager.raw``, which converts
# the model's columns as the ORM would.


def quoted(model: type[models.Model], field: str | None = None) -> str:
    """A model's table name, or one of its fields' column, quoted for SQL."""
    return f'"{model._meta.db_table if field is None else _field(model, field).column}"'


def db_value(model: type[models.Model], field: str, value: Any) -> Any:
    """``value`` as the database takes it for a model's field (a statement's parameter)."""
    return _field(model, field).get_db_prep_value(value,
                                                  connections[router.db_for_read(model)])


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field), f"{model.__name__}.{name} has no column"
    return field


@functools.cache
def _table_sql() -> str:
    return f'SELECT * FROM {quoted(Table)} WHERE {quoted(Table, "id")} = %s'


@functools.cache
def _seats_sql() -> str:
    return (f'SELECT s.*, EXISTS (SELECT 1 FROM {quoted(BotAccount)} b WHERE '
            f'b.{quoted(BotAccount, "user")} = s.{quoted(Seat, "user")}) AS on_bot_account '
            f'FROM {quoted(Seat)} s WHERE s.{quoted(Seat, "table")} = %s '
            f'ORDER BY s.{quoted(Seat, "number")}')


def running_table(table_id: uuid.UUID) -> Table:
    """The table (Table.DoesNotExist if none) with its seats and their accounts, each
    seat marked as :func:`sitting` marks it, as stored now, through the ORM (two
    queries): what a table's connection reads as it opens and as the game starts, and
    the clock's frame. A table's driver reads :func:`sitting` instead."""
    return Table.objects.prefetch_related(
        models.Prefetch("seats", queryset=seats_with_accounts())).get(pk=table_id)


def bot_account_names(usernames: Collection[str]) -> set[str]:
    """Which of these account names are bot accounts (one query): the lookup the
    replays' pages mark them by (``replays.table.set_bot_accounts_lookup``)."""
    if not usernames:
        return set()
    return set(BotAccount.objects.filter(user__username__in=list(usernames))
               .values_list("user__username", flat=True))


def describe(table: Table) -> dict[str, Any]:
    """The lobby's line for a table (public facts only; no invitation token). A seat
    kept for a challenged account is neither free nor taken (``kept``); ``bot_accounts``
    numbers the seats a bot account plays (marked as bots)."""
    seats = list(table.seats.all())
    bots = bot_account_ids(s.user_id for s in seats)
    return {
        "id": str(table.id),
        "preset": table.preset,
        # Who opened it (the lists are built once for readers of every language: names
        # and ids here, the words in the page: play/lobby.py, lobby_words).
        "host": table.created_by.get_username(),
        "players": table.players,
        "house_rules": sorted(table.overrides),
        "status": table.status,
        "free": sum(1 for s in seats if not s.taken and s.invited_id is None),
        "kept": sum(1 for s in seats if not s.taken and s.invited_id is not None),
        "bot_accounts": [s.number for s in seats if s.user_id in bots and s.person],
        "seats": [s.player() if s.taken else None for s in seats],
        "clock": [table.move_seconds, table.game_seconds],
        # Who left the running game, and who stayed away too long: a bot plays their
        # seat now.
        "left": [s.user.get_username() for s in seats
                 if s.handed_over and s.handover != "absent" and s.user is not None],
        "away": [s.user.get_username() for s in seats
                 if s.handover == "absent" and s.user is not None],
        "game": str(table.game_id) if table.game_id else None,
    }
