"""What the lobby does to a table: create, join, leave, start. Each is one
transaction that either changes the table or raises :class:`TableError` with a reason
a player can read. Starting a table starts its game in the event store
(``Games.start``), seats named as the record names them (``user:<name>``,
``bot:<name>``)."""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bohnanza_core import narrate
from bohnanza_core.bots import BOTS
from bohnanza_core.commands import HandSeatToBot, StopGame
from bohnanza_core.errors import IllegalMove, RulesetError
from bohnanza_core.events import Handover, SeatHandedToBot, StopReason
from bohnanza_core.rulesets import PRESETS, customize, ruleset_for
from play import live, notices, presence
from play.clock import MAX_TRADE_SECONDS, default_trade_seconds
from play.models import Presence, Seat, Table
from play.signals import table_finished
from play.tokens import command_line_token
from replays.store import games

logger = logging.getLogger(__name__)

MAX_CLOCK_SECONDS = 24 * 3600
"""The longest per-move or per-game allowance (a day)."""

MAX_ABSENCE_SECONDS = 7 * 24 * 3600
"""The longest a table may wait for a seat's person who went away (a week)."""

ABSENCE = narrate.ABSENCE
"""The record's actor of a seat handed to its bot because its person stayed away."""

MAX_OVERRIDES = 30
"""House rules one table may set (there are fewer parameters than this)."""

OPEN = "open"
"""A seat left for people (any other seat choice names a built-in bot)."""


class TableError(Exception):
    """A lobby action that cannot be done; ``str()`` says why, in the reader's language,
    ``code`` names why for programs (the API's error code, docs/bots.md)."""

    def __init__(self, message: str, code: str = "invalid") -> None:
        super().__init__(message)
        self.code = code


def _username(user: User | AnonymousUser) -> str:
    return user.get_username()


def create_table(user: User, preset: str, players: int, *,
                 seats: Sequence[str], overrides: Mapping[str, Any] | None = None,
                 public: bool = True, move_seconds: int = 0, game_seconds: int = 0,
                 absence_seconds: int | None = None, replacement_bot: str = "heuristic",
                 trade_seconds: int | None = None,
                 invited: Mapping[int, User] | None = None,
                 mine: int | None = None, start_when_full: bool = False) -> Table:
    """A new table with ``user`` in the first open seat (or seat ``mine``). ``seats``:
    for each seat, :data:`OPEN` or a built-in bot's name. The rules are checked here, so
    a table that exists can always be started. ``absence_seconds``: how long a seated
    person may be away from the running game before ``replacement_bot`` plays their
    seat (0: never; None: the site's default, ``PLAY_ABSENCE_SECONDS``).
    ``trade_seconds``: how long a trading phase waits for the people at the table
    (play/clock.py; None: the site's default, ``PLAY_TRADE_SECONDS``).

    A challenge: ``invited`` keeps open seats for named accounts (people or bot
    accounts), each told (``play.notices``) and seated only by accepting
    (:func:`accept`); ``start_when_full``: the game starts by itself once the last seat
    is taken (at once, when none is left open)."""
    if preset not in PRESETS:
        raise TableError(_("no ruleset %(name)r; rulesets: %(known)s")
                         % {"name": preset[:40], "known": ", ".join(PRESETS)},
                         "unknown_ruleset")
    overrides = dict(overrides or {})
    if len(overrides) > MAX_OVERRIDES:
        raise TableError(_("at most %(n)s house rules") % {"n": MAX_OVERRIDES},
                         "invalid_house_rules")
    try:
        if overrides:
            ruleset = customize(preset, players, overrides)
            overrides = {k: v for k, v in overrides.items() if k in ruleset.house_rules}
        else:
            ruleset_for(preset, players)
    except RulesetError as error:
        raise TableError(str(error), "invalid_house_rules") from None
    if len(seats) != players:
        raise TableError(_("give each of the %(n)s seats: open, or a bot") % {"n": players},
                         "invalid_seats")
    unknown = [s for s in seats if s != OPEN and s not in BOTS]
    if unknown:
        raise TableError(_("no bot %(name)r; bots: %(known)s")
                         % {"name": unknown[0][:40], "known": ", ".join(BOTS)},
                         "unknown_bot")
    invited = dict(invited or {})
    if OPEN not in seats:
        raise TableError(_("leave at least one seat open: yours"), "no_seat_for_you")
    if mine is None:
        free = [n for n, choice in enumerate(seats) if choice == OPEN and n not in invited]
        if not free:
            raise TableError(_("leave at least one seat open: yours"), "no_seat_for_you")
        mine = free[0]
    if not 0 <= mine < players or seats[mine] != OPEN or mine in invited:
        raise TableError(_("your seat must be an open seat kept for nobody"), "invalid_seat")
    for number, account in invited.items():
        if not 0 <= number < players or seats[number] != OPEN:
            raise TableError(_("a challenged account takes an open seat"), "invalid_seat")
        if account.pk == user.pk:
            raise TableError(_("you cannot challenge yourself"), "invalid_seat")
    if len({a.pk for a in invited.values()}) != len(invited):
        raise TableError(_("each account is challenged once"), "invalid_seat")
    for seconds in (move_seconds, game_seconds):
        if not 0 <= seconds <= MAX_CLOCK_SECONDS:
            raise TableError(_("a clock runs from 0 to %(n)s seconds")
                             % {"n": MAX_CLOCK_SECONDS}, "invalid_clock")
    if absence_seconds is None:
        absence_seconds = min(int(getattr(settings, "PLAY_ABSENCE_SECONDS", 0)),
                              MAX_ABSENCE_SECONDS)
    if not 0 <= absence_seconds <= MAX_ABSENCE_SECONDS:
        raise TableError(_("the absence limit runs from 0 (never) to %(n)s seconds")
                         % {"n": MAX_ABSENCE_SECONDS}, "invalid_clock")
    if replacement_bot not in BOTS:
        raise TableError(_("no bot %(name)r; bots: %(known)s")
                         % {"name": replacement_bot[:40], "known": ", ".join(BOTS)},
                         "unknown_bot")
    if trade_seconds is None:
        trade_seconds = default_trade_seconds()
    if not 0 <= trade_seconds <= MAX_TRADE_SECONDS:
        raise TableError(_("the trading window runs from 0 to %(n)s seconds")
                         % {"n": MAX_TRADE_SECONDS}, "invalid_clock")
    with transaction.atomic():
        table = Table.objects.create(created_by=user, preset=preset, players=players,
                                     overrides=overrides, public=public,
                                     move_seconds=move_seconds, game_seconds=game_seconds,
                                     absence_seconds=absence_seconds,
                                     replacement_bot=replacement_bot,
                                     trade_seconds=trade_seconds,
                                     start_when_full=start_when_full)
        Seat.objects.bulk_create([
            Seat(table=table, number=n, bot="" if choice == OPEN else choice,
                 user=user if n == mine else None, invited=invited.get(n))
            for n, choice in enumerate(seats)])
        table = Table.objects.prefetch_related("seats__user").get(pk=table.pk)
        notices.tell([user.pk], notices.notice(notices.SEATED, table, seat=mine))
        for number, account in invited.items():
            notices.tell([account.pk], notices.notice(
                notices.CHALLENGE, table, seat=number, by=_username(user)))
        if start_when_full and all(s.taken for s in table.seats.all()):
            table = _start(table, f"user:{_username(user)}")
    return table


def join(table: Table, user: User, seat: int | None = None) -> Seat:
    """Sit ``user`` at an open seat (the first, or ``seat``). The table's room is told
    once it is stored (:func:`_tell_room`)."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.status != Table.Status.OPEN:
            raise TableError(_("this table has started: watch it instead"), "table_started")
        seats = list(locked.seats.select_for_update())
        if any(s.user_id == user.pk for s in seats):
            raise TableError(_("you already sit at this table"), "already_seated")
        # A seat kept for this account comes first; one kept for another is not free.
        free = sorted((s for s in seats if not s.taken and s.invited_id in (None, user.pk)
                       and (seat is None or s.number == seat)),
                      key=lambda s: s.invited_id != user.pk)
        if not free:
            raise TableError(_("no open seat here"), "no_open_seat")
        free[0].user = user
        free[0].save(update_fields=["user"])
        _tell_room(locked.pk, "room.changed")
        notices.tell([user.pk], notices.notice(notices.SEATED, running(locked.pk),
                                               seat=free[0].number))
        if locked.start_when_full and all(s.taken for s in locked.seats.all()):
            _start(locked, f"user:{_username(locked.created_by)}")
        return free[0]


def running(table_id: UUID) -> Table:
    """The table as stored now, with its seats and their accounts."""
    return Table.objects.prefetch_related("seats__user").get(pk=table_id)


def challenged_seat(table: Table, user: User) -> Seat:
    """The seat of ``table`` kept for ``user`` and not taken yet."""
    seat = table.seats.filter(invited=user, user__isnull=True, bot="").first()
    if seat is None:
        raise TableError(_("you have no open challenge at this table"), "no_challenge")
    return seat


def accept(table: Table, user: User) -> Seat:
    """Accept a challenge: sit in the seat kept for ``user`` (the game starts once every
    seat is taken, if the challenge said so)."""
    if table.status != Table.Status.OPEN:
        raise TableError(_("this table has started: watch it instead"), "table_started")
    return join(table, user, challenged_seat(table, user).number)


def decline(table: Table, user: User) -> None:
    """Decline a challenge: the table is withdrawn, and everyone at it or challenged to
    it is told."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.status != Table.Status.OPEN:
            raise TableError(_("this table has started: watch it instead"), "table_started")
        challenged_seat(locked, user)
        _withdraw(locked, notices.CHALLENGE_DECLINED, by=_username(user))


def _withdraw(locked: Table, kind: str, **fields: Any) -> None:
    """Delete a waiting table, telling its room and every account at it or challenged."""
    seats = list(locked.seats.all())
    told = notices.notice(kind, running(locked.pk), **fields)
    notices.tell([s.user_id for s in seats] + [s.invited_id for s in seats], told)
    table_id = locked.pk
    locked.delete()
    _tell_room(table_id, "table.closed")


def leave(table: Table, user: User) -> None:
    """Stand up from a table that has not started (its creator closes it by leaving).
    The table's room is told once it is stored (:func:`_tell_room`): its seats changed,
    or the table is closed."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.status != Table.Status.OPEN:
            raise TableError(_("the game has started: you can no longer leave the table"),
                             "table_started")
        if locked.created_by_id == user.pk:
            _withdraw(locked, notices.CHALLENGE_CANCELLED, by=_username(user))
            return
        updated = locked.seats.filter(user=user).update(user=None)
        if not updated:
            raise TableError(_("you do not sit at this table"), "not_seated")
        _tell_room(locked.pk, "room.changed")


def seats_digest(seats: Iterable[Seat]) -> str:
    """A short digest of who sits where at a table: the waiting room page is drawn with
    it (``data-seats``) and its socket's ``waiting`` frame carries it (``seats``). A
    page drawn before a change it could not be told of (made before its socket joined
    the room's group) sees that they differ and draws the room again."""
    text = ";".join(f"{s.number}:{s.user_id or ''}:{s.bot}"
                    for s in sorted(seats, key=lambda s: s.number))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _tell_room(table_id: UUID, message: str) -> None:
    """Once the transaction commits, tell every connection to the waiting table
    (``live.room_group``, in every server process) that its seats changed
    (``room.changed``: the room pages draw them again) or that it is gone
    (``table.closed``). Outside a transaction, at once."""
    transaction.on_commit(functools.partial(
        live.tell, live.room_group(table_id), {"type": message, "table_id": str(table_id)}))


def start(table: Table, user: User) -> Table:
    """Start the game: every seat must be taken; only the table's creator starts it."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.created_by_id != user.pk:
            raise TableError(_("only the table's creator starts the game"), "not_creator")
        if locked.status != Table.Status.OPEN:
            raise TableError(_("this table has already started"), "table_started")
        return _start(locked, f"user:{_username(user)}")


def _start(locked: Table, actor: str) -> Table:
    """Start the game of a table locked in the caller's transaction; its room and its
    seats' accounts are told once it is stored."""
    seats = list(locked.seats.select_related("user"))
    if not all(s.taken for s in seats):
        raise TableError(_("wait until every seat is taken"), "seats_free")
    game = games().start(locked.ruleset(), [s.seat_name() for s in seats],
                         players=[s.player() for s in seats], private=not locked.public,
                         actor=actor)
    locked.game_id = game.id
    locked.status = Table.Status.RUNNING
    locked.save(update_fields=["game_id", "status"])
    _tell_room(locked.pk, "table.started")
    started = running(locked.pk)
    notices.started(started)
    return started


def open_table(organiser: User, preset: str, overrides: Mapping[str, Any],
               seats: Sequence[tuple[User | None, str]], *, game_id: UUID,
               seed: str, players: Sequence[str], tournament: str, actor: str,
               move_seconds: int, game_seconds: int, absence_seconds: int = 0,
               replacement_bot: str = "heuristic",
               tags: Sequence[tuple[str, str]] = (),
               names: Sequence[str] | None = None) -> Table:
    """A table started at once for others (a competition's game with people at it):
    ``seats``, in order, each a person (``(user, "")``) or a built-in bot
    (``(None, name)``); its game ``game_id`` with ``seed``, its record naming each seat's
    player as ``players`` does (a competition's entrant ids) and the competition
    (``tournament``), and what it belongs to as ``tags`` (its ``GameStarted``'s: the
    competition, round, table, each seat's entrant); ``names``: the game's seat names
    (a competition's entrants' display names; each seat's own by default). Table,
    seats and game are made in the caller's transaction, so whoever opens it records it
    with them (a second try stores nothing: the game's id is taken).
    ``absence_seconds``: how long a seated person may be away before ``replacement_bot``
    plays their seat (0: never; the clock plays their moves). Its trading window is the
    site's (``PLAY_TRADE_SECONDS``). What the ``play`` app
    offers the apps above it: it never imports them, and tells them a table's end by
    :data:`play.signals.table_finished`."""
    players_count = len(seats)
    ruleset = (customize(preset, players_count, dict(overrides)) if overrides
               else ruleset_for(preset, players_count))
    table = Table.objects.create(created_by=organiser, preset=preset, players=players_count,
                                 overrides=dict(overrides), public=True,
                                 move_seconds=move_seconds, game_seconds=game_seconds,
                                 absence_seconds=absence_seconds,
                                 replacement_bot=replacement_bot,
                                 trade_seconds=default_trade_seconds())
    made = [Seat(table=table, number=n, bot=bot, user=user)
            for n, (user, bot) in enumerate(seats)]
    Seat.objects.bulk_create(made)
    seat_names = list(names) if names is not None else [s.seat_name() for s in made]
    game = games().start(ruleset, seat_names, seed, players=list(players),
                         tournament=tournament, actor=actor, game_id=game_id, tags=tags)
    table.game_id = game.id
    table.status = Table.Status.RUNNING
    table.save(update_fields=["game_id", "status"])
    notices.started(running(table.pk))  # each seated account, once it is stored
    return table


def stop_game(table_id: UUID, reason: StopReason, actor: str, *,
              ranks: Sequence[int] | None = None, announce: bool = True) -> live.Played:
    """End a running table's game now, as the platform's decision: the event
    ``GameStopped`` of the game (stored through the store, like any move; the rules
    score it: the coins banked, or the ``ranks`` an arbiter rules), the table finished,
    its clock stopped. From then on every command at it is refused ("the game is
    over"). ``actor``: who decided (``competition``, ``abandonment``,
    ``arbiter:<name>``). Every connection to the table is sent its update; with
    ``announce``, the apps above hear :data:`play.signals.table_finished` (a
    competition records the result), as for a game the rules ended."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.game_id is None:
        raise TableError(_("the game is not running"))
    command = StopGame(reason=reason, ranks=tuple(ranks) if ranks is not None else None)
    try:
        played = live.submit(table.id, table.game_id, command, actor)
    except IllegalMove as refused:
        raise TableError(refused.reason) from None
    except live.StaleFrame as busy:
        raise TableError(str(busy)) from None
    Table.objects.filter(pk=table_id).update(status=Table.Status.FINISHED,
                                             clock_deadline=None)
    for group, update in played.updates.items():
        live.tell(group, {"type": "table.update", "update": update})
    live.tell(live.LOBBY_GROUP, live.lobby_changed())
    if announce:
        for receiver, error in table_finished.send_robust(Table, table_id=table.pk,
                                                          game_id=table.game_id):
            if isinstance(error, Exception):
                logger.error("table %s: %s failed on its end", table.pk, receiver,
                             exc_info=error)
    return played


def hand_to_bot(table_id: UUID, number: int, reason: Handover, *,
                user: User | None = None, now: datetime | None = None
                ) -> live.Played:
    """Hand seat ``number`` of a running game to the table's replacement bot, as the
    event ``SeatHandedToBot`` of the game (stored through the store, like any move):
    ``user`` leaves their own seat (reason ``left``), or the seat's person has been away
    past its absence deadline with no connection open at ``now`` (``absent``, the
    driver's). The store decides first (a seat is handed once: a second try is
    refused by the rules); the seat then records who plays it."""
    now = now or timezone.now()
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.status != Table.Status.RUNNING or table.game_id is None:
        raise TableError(_("the game is not running"), "not_running")
    seat = Seat.objects.select_related("user").filter(table=table, number=number).first()
    if seat is None:
        raise TableError(_("there is no seat %(n)s at this table") % {"n": number},
                         "no_such_seat")
    if user is not None and seat.user_id != user.pk:
        raise TableError(_("you do not sit in this seat"), "not_seated")
    if not seat.person:
        raise TableError(_("a bot plays this seat already"), "seat_handed")
    if reason is Handover.LEFT:
        actor = f"user:{_username(seat.user)}" if seat.user is not None else ABSENCE
    else:
        if (seat.absence_deadline is None or seat.absence_deadline > now
                or presence.fresh(table.id, number, now).exists()):
            raise TableError(_("%(seat)s is not away past the limit")
                             % {"seat": seat.seat_name()}, "not_away")
        actor = ABSENCE
    command = HandSeatToBot(seat=number, bot=table.replacement_bot, reason=reason)
    try:
        played = live.submit(table.id, table.game_id, command, actor)
    except IllegalMove as refused:
        raise TableError(refused.reason, "illegal") from None
    except live.StaleFrame as busy:
        raise TableError(str(busy), "stale") from None
    seat_handed(table.id, number, table.replacement_bot, reason)
    return played


def seat_handed(table_id: UUID, number: int, bot: str, reason: Handover) -> None:
    """Record on the seat what the game recorded: ``bot`` plays it now."""
    Seat.objects.filter(table_id=table_id, number=number).update(
        bot=bot, handover=reason.value, absence_deadline=None)
    Presence.objects.filter(table_id=table_id, seat=number).delete()


def reconcile(table: Table, seat_bots: list[str], seats: dict[int, Seat]) -> None:
    """Bring the seats in line with the game where a seat was handed to a bot but the
    process died before the seat said so (hand_to_bot stores the event first): the
    reason is read back from the record."""
    behind = [n for n, bot in enumerate(seat_bots) if bot and not seats[n].bot]
    if not behind or table.game_id is None:
        return
    for entry in games().record(table.game_id):
        event = entry.event
        if isinstance(event, SeatHandedToBot) and event.seat in behind:
            seat_handed(table.id, event.seat, event.bot, event.reason)
            seats[event.seat].bot = event.bot
            seats[event.seat].handover = event.reason.value


def issue_bot_token(user: User) -> str:
    """A new API token for ``user`` as a bot account (its other tokens stop working;
    ``play.tokens.command_line_token``). Shown once: only its digest is kept."""
    return command_line_token(user)
