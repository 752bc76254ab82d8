"""What moves a table when no person does: its bots, and its clock.

Each process that serves a table runs at most one driver task for it (:func:`kick`
starts one; a command at the table wakes it). The driver looks at the stored game
(:func:`next_step`, in a worker thread): a bot awaited plays after the table's human
pace, through the bot protocol (it is given its seat's view only); a person awaited on
a clocked table has a deadline, stored on the table so that a restarted server still
keeps it, and when it passes the documented default move
(``bohnanza_core.bots.turns.fallback``: decline, end trading, plant the front card...)
is played as an event whose actor is ``clock``. A seat whose person has been away
past the table's limit (play/presence.py: the deadline is stored on the seat) is
handed to the table's bot (``SeatHandedToBot``, actor ``absence``), which then plays
it like any other bot; at a table of people only, once every one of them is gone the
game is stopped instead (``GameStopped``, reason ``abandoned``, actor
``abandonment``), unless it is a competition's whose rule promises a bot for an absent
player: its bots finish the game (:func:`_bots_finish`). Two processes driving one
table are settled by the store, as any two commands are.

A table nobody has opened yet (a league fixture's, made by a Celery worker in another
process, which no channel layer of the embedded default reaches) is found by
:func:`sweep`, which every process runs every :func:`sweep_seconds` (``play/startup.py``):
one indexed query for the running tables made lately that move on their own, each
kicked once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import weakref
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from channels.db import database_sync_to_async
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from bohnanza_core import narrate
from bohnanza_core.bots import BOTS, Bot, SearchBot
from bohnanza_core.bots.turns import bot_answers, fallback, voluntary_chances
from bohnanza_core.commands import (
    Command,
    DeclineOffer,
    EndTrading,
    MakeOffer,
    StopGame,
    WithdrawOffer,
    as_command,
    seat_of,
)
from bohnanza_core.engine import awaiting
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import Handover, StopReason
from bohnanza_core.games import Game
from bohnanza_core.state import Phase
from bohnanza_core.views import GameView, view
from play import clock, live, notices, presence, send_order, tables
from play.models import Seat, Table, sitting
from play.signals import table_finished
from replays.store import game_lock, load

logger = logging.getLogger(__name__)

CLOCK = narrate.CLOCK
"""The actor of a move the clock played (narrated as the clock's)."""
ABANDONMENT = "abandonment"
"""The actor of the platform's stop of a game every person at it has left."""

_tasks: dict[UUID, asyncio.Task[None]] = {}
_wake: dict[UUID, asyncio.Event] = {}
_bots: dict[tuple[UUID, int], Bot] = {}
_chances: dict[UUID, int] = {}
"""Per table, the last turn whose trading phase gave the bots their voluntary chance."""
_swept: dict[UUID, datetime] = {}
"""The tables :func:`sweep` kicked, with when each was made (forgotten past the window)."""
_sweeper: asyncio.Task[None] | None = None

SWEEP_WINDOW = timedelta(minutes=2)
"""How far back the sweep looks for new tables: a table is made in a transaction that
commits after its ``created_at``, and a sweep may be late under load; this covers both."""


def bot_pace() -> float:
    """Seconds a bot waits before it moves (``PLAY_BOT_PACE_SECONDS``)."""
    return float(getattr(settings, "PLAY_BOT_PACE_SECONDS", 1.0))


SENDING = 40
"""How many group sends a process has under way at once. channels_redis takes a
connection from its pool (100 at most, and it refuses the next one rather than waiting:
``MaxConnectionsError``, which closed the consumer) for each send under way; the
process's receiving and its groups' joins need theirs too."""

_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary())


def _sending() -> asyncio.Semaphore:
    """The bound on this event loop's group sends (one per loop: tests run several)."""
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = asyncio.Semaphore(SENDING)
    return gate


async def broadcast(layer: Any, played: live.Played) -> None:
    """Send every group its own update (built per perspective in ``live.updates``), all
    at once: in one pipeline where the layer can (``group_send_many``, the production
    layer), else side by side, at most :data:`SENDING` at once in a process
    (:func:`_sending`): each ``group_send`` through Redis is a round trip or more, and
    one after the other they added up to the five groups' sum before the last seat was
    told."""
    messages = [(group, {"type": "table.update", "update": update})
                for group, update in played.updates.items()]
    many = getattr(layer, "group_send_many", None)
    if many is not None:  # the production layer: in one round trip (play/layers.py)
        await many(messages)
    else:
        gate = _sending()

        async def send(group: str, message: dict[str, Any]) -> None:
            async with gate:
                await layer.group_send(group, message)
        await asyncio.gather(*(send(group, message) for group, message in messages))
    if played.game.finished:
        await layer.group_send(live.LOBBY_GROUP, live.lobby_changed())


async def announce_handover(layer: Any, table_id: UUID, played: live.Played, seat: int
                            ) -> None:
    """After a seat was handed to its bot: every group's update, then every connection
    to the table (in any process) is told, so that the person's own connections become
    a spectator's and each process drives the table on; the lobby lists change."""
    await broadcast(layer, played)
    public = played.updates[live.spectator_group(table_id)]["events"]
    reason = next((e["reason"] for e in public
                   if e["type"] == "SeatHandedToBot" and e["seat"] == seat), "left")
    await layer.group_send(live.room_group(table_id),
                           {"type": "seat.handed", "seat": seat, "reason": reason})
    await layer.group_send(live.LOBBY_GROUP, live.lobby_changed())


async def tell_clock(layer: Any, table_id: UUID) -> None:
    """Send every connection to the table its clocks as stored now (the ``clock``
    frame: deadlines, banks, the trading window)."""
    frame = await database_sync_to_async(clock.read_frame)(table_id, timezone.now())
    if frame is None:
        return
    await layer.group_send(live.room_group(table_id), {"type": "table.clock",
                                                        "clock": frame})


def has_work(table: Table, game: Game) -> bool:
    """Whether a person's move gives the driver anything to do: a bot sits at the table
    (from the start, or handed a seat since: the game says so), a clock is set, or the
    game just ended (the driver marks the table finished). An absence limit is not
    such a reason: absences follow connections, not moves (a connection arriving or
    leaving kicks the driver, which then waits for the next deadline on its own). A
    table of people only without a clock has nothing: each command there used to cost
    a look at the table in the store (four or more queries, on the worker thread every
    store call of the process waits for; a fifth of the servers' CPU in bench/live.py)
    to find that out. ``table``: as the consumer read it (its seats with their bots
    from the start; the clock is set when it is created)."""
    return (game.finished or table.clocked or any(game.state.seat_bots)
            or any(s.is_bot for s in table.seats.all()))


def kick(table_id: UUID, layer: Any) -> None:
    """Make sure this process drives the table, and let its driver look again."""
    wake = _wake.setdefault(table_id, asyncio.Event())
    wake.set()
    task = _tasks.get(table_id)
    if task is None or task.done():
        _tasks[table_id] = asyncio.get_running_loop().create_task(drive(table_id, layer))


def resumable_tables() -> list[UUID]:
    """Running tables that move without anyone at them: a clock is set (its deadline is
    in the store) or a bot sits there. What a process starting up drives (:func:`resume`)."""
    running = Table.objects.filter(status=Table.Status.RUNNING, game_id__isnull=False)
    clocked = running.filter(clock_deadline__isnull=False).values_list("id", flat=True)
    botted = running.filter(seats__bot__gt="").values_list("id", flat=True)
    # A seat's absence deadline, or connections a process that died left open (they go
    # stale, and their seat's deadline is set then).
    away = running.filter(seats__absence_deadline__isnull=False).values_list("id", flat=True)
    seen = running.filter(presences__isnull=False).values_list("id", flat=True)
    return sorted(set(clocked) | set(botted) | set(away) | set(seen))


async def resume(layer: Any) -> int:
    """Drive every table that moves on its own, as a process starts: a deadline stored
    before a restart fires with nobody connected. Several processes doing this at once
    are settled by the store (a move that loses the race is dropped: ``exact``).
    Returns how many tables it picked up."""
    tables = await database_sync_to_async(resumable_tables)()
    for table_id in tables:
        kick(table_id, layer)
    return len(tables)


def sweep_seconds() -> float:
    """How often a process looks for new tables that move on their own
    (``PLAY_SWEEP_SECONDS``; 0: never, only at start)."""
    return float(getattr(settings, "PLAY_SWEEP_SECONDS", 5.0))


def new_tables(since: datetime) -> list[tuple[UUID, datetime]]:
    """(id, made at) of the running tables made since ``since`` that move with nobody at
    them (a bot sits there, or a clock is set) and that nobody has open in any process
    (no presence): one query on the table's (status, public, created_at) index."""
    return list(Table.objects.filter(status=Table.Status.RUNNING, game_id__isnull=False,
                                     created_at__gte=since, presences__isnull=True)
                .filter(Q(seats__bot__gt="") | Q(move_seconds__gt=0))
                .values_list("id", "created_at").distinct())


async def sweep(layer: Any, now: datetime | None = None) -> int:
    """Drive the new tables that move on their own and that this process does not drive
    yet (each kicked once by the sweep; a command or a connection kicks it later as
    usual), and tell the lobby's sockets of this process, whose lists (and a league's
    "Your fixtures") now have them. Returns how many it kicked now."""
    since = (now or timezone.now()) - SWEEP_WINDOW
    found = await database_sync_to_async(new_tables)(since)
    for table_id in [t for t, made in _swept.items() if made < since]:
        del _swept[table_id]
    kicked = 0
    seen = [table_id for table_id, _made in found if table_id not in _swept]
    if seen:
        await database_sync_to_async(notices.started_elsewhere)(seen)
    for table_id, made in found:
        if table_id in _swept:
            continue
        _swept[table_id] = made
        task = _tasks.get(table_id)
        if task is None or task.done():
            kick(table_id, layer)
            kicked += 1
    if kicked and layer is not None:  # the lobby's lists and a league's "Your fixtures"
        await layer.group_send(live.LOBBY_GROUP, live.lobby_changed())
    return kicked


async def _sweep_forever(layer: Any, seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        try:
            picked = await sweep(layer)
        except asyncio.CancelledError:
            raise
        except Exception:  # the store away for a moment: look again next time
            logger.exception("the sweep for new tables failed")
            continue
        if picked:
            logger.info("%d new table(s) picked up by the sweep", picked)


def start_sweeping(layer: Any) -> bool:
    """Run :func:`sweep` every :func:`sweep_seconds` in this event loop (once; stopped
    by :func:`stop_all`). False if the sweep is off."""
    global _sweeper
    seconds = sweep_seconds()
    if seconds <= 0:
        return False
    if _sweeper is None or _sweeper.done():
        _sweeper = asyncio.get_running_loop().create_task(_sweep_forever(layer, seconds))
    return True


async def stop_all() -> None:
    """Cancel every driver of this process and its sweep (tests, shutdown)."""
    global _sweeper
    tasks = list(_tasks.values())
    if _sweeper is not None:
        tasks.append(_sweeper)
        _sweeper = None
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    _tasks.clear()
    _wake.clear()
    _bots.clear()
    _chances.clear()
    _swept.clear()


@dataclass
class Step:
    """What the driver does next: ``bot`` (a bot's move, then look again), ``wait``
    (until ``at``, a clock's or an absence's deadline, unless woken), or ``idle``
    (nothing: a person's turn without a clock or an absence limit, or the game is over).
    ``handed``: the seat just handed to its bot, whose connections are told."""

    kind: str
    at: datetime | None = None
    handed: int | None = None
    told: bool = False
    """The table's clocks changed (a move clock started, a trading window opened, the
    game ended): the clients are sent the ``clock`` frame."""


def searches(table_id: UUID) -> bool:
    """Whether a bot that searches (:class:`~bohnanza_core.bots.SearchBot`, up to a
    second a decision) may be asked to move at the table: one sits there, or is the bot
    that takes over a person's seat."""
    found = Table.objects.filter(pk=table_id).values_list("replacement_bot", flat=True).first()
    names = {found or "", *Seat.objects.filter(table_id=table_id).exclude(bot="").values_list(
        "bot", flat=True)}
    return any(issubclass(BOTS.get(name, Bot), SearchBot) for name in names)


def _bot(table: Table, seat: Seat) -> Bot:
    key = (table.id, seat.number)
    bot = _bots.get(key)
    if bot is None:
        # The bot's own choices follow from the table and seat, never the game's seed.
        bot = _bots[key] = BOTS[seat.bot](seat.number, f"{table.id}:{seat.number}")
    return bot


def _play(table: Table, game: Game, command: Command, actor: str) -> live.Played | None:
    try:
        return live.submit(table.id, game.id, command, actor, exact=True)
    except (IllegalMove, live.StaleFrame) as refused:
        logger.info("table %s: %s's move refused: %s", table.id, actor, refused)
        return None


def _bots_finish(table: Table, game: Game) -> bool:
    """Whether the bots that took its people's seats play the game to its end: at a
    competition's table (its game names the competition) with an absence limit, that is
    a competition whose rule hands an absent player's seat to a bot, which "finishes
    the game for them" (docs/tournaments.md, "An absent player") and the result counts
    for the entrants. Stopping it as abandoned would score it 0-0 instead. Elsewhere
    a table of people only that all of them left is stopped."""
    return game.tournament is not None and table.absence_seconds > 0


def next_step(table_id: UUID, now: datetime | None = None
              ) -> tuple[Step, list[live.Played]]:
    """Look at the table once: play what bots, the clock and an absence have to play
    now (at most one move), and say what to do next. ``now``: the time deadlines are
    judged at (tests pass one; the driver, the clock's). Runs in a worker thread."""
    table, seated = sitting(table_id)
    if table.game_id is None:
        return Step("idle"), []
    # The held game is read and played on under its lock: a person's command at the
    # table runs in another worker thread.
    with game_lock(table.game_id):
        return _next_step(table, seated, table.game_id, now)


def _next_step(table: Table, seated: list[Seat], game_id: UUID, now: datetime | None
               ) -> tuple[Step, list[live.Played]]:
    game = load(game_id)
    state = game.state
    seats = {s.number: s for s in seated}
    if state.finished:
        if table.status != Table.Status.FINISHED and Table.objects.filter(
                pk=table.pk).exclude(status=Table.Status.FINISHED).update(
                    status=Table.Status.FINISHED, clock_deadline=None):
            for receiver, error in table_finished.send_robust(
                    Table, table_id=table.pk, game_id=game_id):
                if isinstance(error, Exception):
                    logger.error("table %s: %s failed on its end", table.pk, receiver,
                                 exc_info=error)
        return Step("idle", told=True), []
    tables.reconcile(table, state.seat_bots, seats)
    moment = now or timezone.now()
    away = presence.look(table, list(seats.values()), moment)
    for number in away.due:
        try:
            handed = tables.hand_to_bot(table.id, number, Handover.ABSENT, now=now)
        except tables.TableError as refused:
            logger.info("table %s: seat %d not handed to its bot: %s", table.id, number,
                        refused)
            continue
        return Step("bot", handed=number), [handed]
    if seats and all(seat.handed_over for seat in seats.values()) and not _bots_finish(
            table, game):
        # A table of people only, every one of them gone (left, or away past the limit):
        # nobody is left to play for, so the platform ends the game as it stands
        # (GameStopped, reason "abandoned") instead of its bots playing it out alone.
        done = _play(table, game, StopGame(reason=StopReason.ABANDONED), ABANDONMENT)
        return Step("bot"), [done] if done is not None else []
    window: Window | None = None
    if (state.phase is Phase.TRADING and clock.window_applies(table, seats.values())
            and seats[state.active].is_bot):
        # Only a bot's trading phase has a window: a person on turn ends their own.
        opened = table.trade_turn != state.turn
        clock.start_window(table, state.turn, moment)
        window = Window(clock.window_open(table, seats.values(), state.turn, moment),
                        table.trade_deadline, opened)
    if state.phase is Phase.TRADING and _chances.get(table.id) != state.turn:
        # A bot not on turn gets one voluntary chance to propose (the simulator's one
        # turn policy: bohnanza_core.bots.turns.voluntary_chances).
        _chances[table.id] = state.turn
        played = []
        for number in voluntary_chances(state):
            seat = seats[number]
            if seat.is_bot:
                answer = _bot(table, seat).act(view(state, number))
                try:  # a pass (None) or an answer that is no command: no offer
                    command = as_command(answer) if answer is not None else None
                except IllegalMove:
                    command = None
                if command is not None and _own_command(command, number) is not None:
                    done = _play(table, game, command, seat.player())
                    if done is not None:
                        played.append(done)
                        game = done.game
                        state = game.state
                        if state.phase is not Phase.TRADING:
                            break
        if played:
            return Step("bot", told=window is not None and window.opened), played
    if window is not None:
        step, played = _trading(table, game, seats, moment, window)
    else:
        step, played = _awaited(table, game, seats, now)
    if away.next_look is not None and step.kind != "bot" and (
            step.at is None or away.next_look < step.at):
        step = Step("wait", away.next_look, told=step.told)
    return step, played


@dataclass
class Window:
    """The trading window of the phase the driver looks at: ``open``, until
    ``deadline``; ``opened``: just now (the clients are told)."""

    open: bool
    deadline: datetime | None
    opened: bool = False


def _trading(table: Table, game: Game, seats: dict[int, Seat], now: datetime,
             window: Window) -> tuple[Step, list[live.Played]]:
    """A trading phase with people at the table (:mod:`play.clock`): every bot the game
    waits for answers the offers made to it, not only the most urgent seat (a bot on
    turn answered a person's counter-offer only once the person had answered its own);
    a bot on turn ends trading only once the window has closed; then no bot keeps an
    offer of its own open."""
    state = game.state
    told = window.opened
    if not window.open:
        for offer in sorted(state.offers.values(), key=lambda o: o.number):
            seat = seats.get(offer.proposer)
            if seat is not None and seat.is_bot and offer.proposer != state.active:
                done = _play(table, game, WithdrawOffer(seat=offer.proposer,
                                                        offer=offer.number), seat.player())
                return Step("bot", told=told), [done] if done is not None else []
    held = False
    played: list[live.Played] = []
    for number in awaiting(state):
        seat = seats[number]
        if not seat.is_bot:
            continue
        bot, seen = _bot(table, seat), view(state, number)

        def attempt(answer: object, number: int = number, seat: Seat = seat,
                    bot: Bot = bot, seen: GameView = seen) -> bool:
            nonlocal held
            command = _own_command(answer, number)
            if command is None:
                return False
            if window.open and isinstance(command, EndTrading):
                held = True  # played once the window closes
                return True
            if isinstance(command, DeclineOffer):
                command = _counter(bot, seen, seats, command) or command
            done = _play(table, game, command, seat.player())
            if done is not None:
                played.append(done)
            return done is not None

        if not bot_answers(bot, seen, attempt):
            attempt(fallback(state, number))
        if played:
            return Step("bot", told=told), played
    step: Step = Step("idle", told=told)
    person = next((n for n in awaiting(state) if not seats[n].is_bot), None)
    if person is not None and table.clocked:
        step, played = _clock(table, game, seats[person], now)
        if played:
            return step, played
        step.told = step.told or told
    if window.open and window.deadline is not None and (held or person is not None) and (
            step.at is None or window.deadline < step.at):
        step = Step("wait", window.deadline, told=step.told)
    return step, []


def _counter(bot: Bot, seen: GameView, seats: dict[int, Seat], decline: DeclineOffer
             ) -> Command | None:
    """The bot's counter-offer to the person whose offer it declines (:meth:`Bot.counter`),
    made first: the next look declines the offer (the bot counters an offer once). None
    for a bot's offer (bots among themselves never counter, as in the simulator) and when
    the bot has no terms to offer back."""
    offer = next((o for o in seen.offers if o.number == decline.offer), None)
    if offer is None or seats[offer.proposer].is_bot:
        return None
    command = _own_command(bot.counter(seen, offer), bot.seat)
    return command if isinstance(command, MakeOffer) else None


def _own_command(answer: object, number: int) -> Command | None:
    """A bot's answer as a command of its own seat ``number``; None for anything else
    (not a command, another seat's, the platform's :class:`StopGame`, which names no
    seat)."""
    try:
        command = as_command(answer)
        return command if seat_of(command) == number else None
    except IllegalMove:
        return None


def _awaited(table: Table, game: Game, seats: dict[int, Seat], now: datetime | None
             ) -> tuple[Step, list[live.Played]]:
    """The move of the seat the game waits for, if a bot plays it, or its clock."""
    state = game.state
    waiting = awaiting(state)
    if not waiting:
        return Step("idle"), []
    number = waiting[0]
    seat = seats[number]
    if seat.is_bot:
        # The one turn policy of bots (bohnanza_core.bots.turns.bot_answers): the
        # bot is asked again after a refused answer, a few times, then the default move
        # is played for it.
        played: list[live.Played] = []
        moved_on = False

        def attempt(answer: object) -> bool:
            nonlocal moved_on
            command = _own_command(answer, number)
            if command is None:
                return False
            try:
                played.append(live.submit(table.id, game.id, command, seat.player(),
                                          exact=True))
            except live.StaleFrame as dropped:
                # Another move (another process's, an outside bot's) was stored first:
                # the game held here is no longer the game, and asking the bot again on
                # it, or playing the default move worked out from it, would judge a
                # game that is not there ("awaited but has no legal move"). Look again.
                logger.info("table %s: %s's move dropped: %s", table.id, seat.player(),
                            dropped)
                moved_on = True
                return True
            except IllegalMove as refused:
                logger.info("table %s: %s's move refused: %s", table.id, seat.player(),
                            refused)
                return False
            return True

        if not bot_answers(_bot(table, seat), view(state, number), attempt) and not moved_on:
            done = _play(table, game, fallback(state, number), seat.player())
            played += [done] if done is not None else []
        return Step("bot"), played
    if not table.clocked:
        return Step("idle"), []
    return _clock(table, game, seat, now or timezone.now())


def _clock(table: Table, game: Game, seat: Seat, now: datetime
           ) -> tuple[Step, list[live.Played]]:
    """The person in ``seat`` is awaited: start their clock at this version (charging
    the last one's overrun to the bank of whoever it ran for), unless it runs for them
    already for the same decision (``play.clock.same_decision``: only another seat moved
    since; it keeps its deadline), or play the default move once the deadline has
    passed."""
    if (table.clock_version != game.version and table.clock_seat == seat.number
            and table.clock_version is not None and table.clock_deadline is not None
            and clock.same_decision(game, seat.number, table.clock_version)):
        Table.objects.filter(pk=table.pk).update(clock_version=game.version)
        table.clock_version = game.version
        if now < table.clock_deadline:
            return Step("wait", table.clock_deadline, told=True), []
    if table.clock_version != game.version or table.clock_seat != seat.number:
        if table.clock_seat is not None and table.clock_started is not None:
            over = (now - table.clock_started).total_seconds() - table.move_seconds
            if over > 0:
                Seat.objects.filter(table=table, number=table.clock_seat).update(
                    bank_used=min(over + _bank_used(table, table.clock_seat),
                                  float(table.game_seconds)))
        bank = max(0.0, table.game_seconds - _bank_used(table, seat.number))
        deadline = now + timedelta(seconds=table.move_seconds + bank)
        Table.objects.filter(pk=table.pk).update(clock_seat=seat.number,
                                                 clock_version=game.version,
                                                 clock_started=now, clock_deadline=deadline)
        return Step("wait", deadline, told=True), []
    assert table.clock_deadline is not None
    if now < table.clock_deadline:
        return Step("wait", table.clock_deadline), []
    Seat.objects.filter(table=table, number=seat.number).update(
        bank_used=float(table.game_seconds))
    done = _play(table, game, fallback(game.state, seat.number), CLOCK)
    return Step("bot"), [done] if done is not None else []


def _bank_used(table: Table, number: int) -> float:
    used = Seat.objects.filter(table=table, number=number).values_list("bank_used", flat=True)
    return float(used[0]) if used else 0.0


def _look(table_id: UUID) -> tuple[Step, list[live.Played]]:
    """:func:`next_step` in its worker thread; a clock frame it tells of takes its place
    in the table's send order too."""
    step, played = next_step(table_id)
    if step.told:
        send_order.stored()
    return step, played


async def _send(layer: Any, table_id: UUID, looked: tuple[Step, list[live.Played]]) -> None:
    step, played = looked
    for done in played:
        if step.handed is not None:
            await announce_handover(layer, table_id, done, step.handed)
        else:
            await broadcast(layer, done)
    if step.told:
        await tell_clock(layer, table_id)


async def drive(table_id: UUID, layer: Any) -> None:
    """Drive one table until nothing is left for it to do."""
    wake = _wake.setdefault(table_id, asyncio.Event())
    try:
        searching = await database_sync_to_async(searches)(table_id)
        while True:
            # The human pace: whoever moved last is seen to have moved before a bot
            # answers.
            await asyncio.sleep(bot_pace())
            wake.clear()
            # A table where a bot searches is looked at on any worker thread (its game is
            # played on under its lock, as a person's command is), not on the one thread
            # the process's other store calls queue on: a search decision takes up to a
            # second (search-deep), and every other table's driver, join and sync would
            # wait for it there. Other tables stay on that thread: 100 outside bots'
            # tables, each with three heuristic bots, played 38.4 commands a second so
            # against 34.5 on any thread (bench/live.py --modes outside, three runs each
            # way, 2026-12-06). What a look stores is sent after every update this
            # process stored before it at the table (play.send_order); a look that stores
            # nothing holds nobody up while it waits for its thread.
            step, _ = await send_order.stored_then_sent(
                table_id, lambda: _look(table_id), functools.partial(_send, layer, table_id),
                thread_sensitive=not searching)
            if step.kind == "idle":
                return
            if step.kind == "bot":
                continue
            assert step.at is not None
            delay = max(0.0, (step.at - timezone.now()).total_seconds())
            # ``asyncio.timeout``, not ``wait_for``: on Python 3.11 ``wait_for`` swallows
            # a cancellation that comes as the wake fires (``stop_all`` would leave
            # this driver running; bench/live.py's clients hung so).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay + 0.05):
                    await wake.wait()
    except asyncio.CancelledError:
        raise
    except Exception:
        logger.exception("table %s: its driver stopped", table_id)
    finally:
        if _tasks.get(table_id) is asyncio.current_task():
            del _tasks[table_id]
