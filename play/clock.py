"""What a table's clocks say, to its clients and to its driver: the move clock's
deadline and each seat's bank, and the trading window that lets people trade on a
bot's turn.

The server keeps deadlines (``Table.clock_deadline``, ``Table.trade_deadline``: stored,
so every process and a restarted one agree); a client is sent them as times, with the
server's own time beside them (the ``clock`` frame, docs/protocol.md), and counts down
from them: a countdown that restarts from each frame's numbers never drifts from the
server's. Nothing here is hidden from anyone: every seat and spectator is sent the
same frame.

The trading window (``Table.trade_seconds``): while a person plays a seat, a bot's trading
phase stays open that long after it starts, so that people can read the turned-over
cards and make or answer offers; a bot on turn ends trading only once it closes, or
once every person at the table has passed (``Seat.passed_turn``). Tables of bots only
keep their pace; a bot account (an outside program, ``BotAccount``) is a bot here: it
reads a frame at once, and a table of it and built-in bots would otherwise wait out
every window its program does not pass. Only when moves are played changes; what is
played is recorded like any move, so replays and audits are as before.

A person's move clock (``Table.clock_deadline``, set by ``play.driver``) runs for one
decision: it starts, with the move allowance and what is left of their bank, when the
game comes to wait for that seat, and keeps running while the seat owes the same kind
of decision: the same turn and phase, and nothing the seat did (:func:`same_decision`).
Another seat's move in between (a bot's offer, its withdrawal, a decline, a plant or
harvest of its own) does not start it again; the seat's own move (or the clock's for
it), a new phase or turn, or another seat awaited does.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from bohnanza_core.events import (
    Event,
    GameEnded,
    GameStopped,
    PhaseStarted,
    PlantingEnded,
    SeatHandedToBot,
    TradingEnded,
    TurnEnded,
    TurnStarted,
)
from bohnanza_core.games import Game
from bohnanza_core.state import Phase
from play.authority import require_seat
from play.models import Seat, Table, on_bot_account, running_table
from replays.store import events_between, load

MAX_TRADE_SECONDS = 600
"""The longest trading window a table may set (ten minutes)."""


def default_trade_seconds() -> int:
    """A new table's trading window (``PLAY_TRADE_SECONDS``, 15 s by default)."""
    return min(max(int(getattr(settings, "PLAY_TRADE_SECONDS", 15)), 0), MAX_TRADE_SECONDS)


def people(seats: Iterable[Seat]) -> list[Seat]:
    """The seats a person plays now (not one handed to a bot, nor a bot account's).
    ``seats`` as ``play.models.running_table`` reads them: each marked whether its
    account is a bot account."""
    return [seat for seat in seats if seat.person and not on_bot_account(seat)]


def window_applies(table: Table, seats: Iterable[Seat]) -> bool:
    """Whether the table's trading phases wait for people: a window is set, a person
    plays a seat and a bot another (at a table of people only, each ends their own
    trading phase)."""
    seats = list(seats)
    return (table.trade_seconds > 0 and any(seat.is_bot for seat in seats)
            and bool(people(seats)))


def has_clocks(table: Table, seats: Iterable[Seat]) -> bool:
    """Whether the table has anything to count down (a move clock, a trading window):
    else its connections are sent no ``clock`` frame."""
    return table.clocked or window_applies(table, seats)


def all_passed(seats: Iterable[Seat], turn: int) -> bool:
    """Every person at the table has passed in turn ``turn``'s trading phase."""
    persons = people(seats)
    return bool(persons) and all(seat.passed_turn == turn for seat in persons)


def window_open(table: Table, seats: Iterable[Seat], turn: int, now: datetime) -> bool:
    """Whether turn ``turn``'s trading window is open at ``now`` (set for that turn, not
    past its deadline, and not every person has passed)."""
    seats = list(seats)
    return (table.trade_turn == turn and table.trade_deadline is not None
            and now < table.trade_deadline and not all_passed(seats, turn))


def start_window(table: Table, turn: int, now: datetime) -> datetime:
    """Open turn ``turn``'s trading window at ``now`` unless it is open already; returns
    its deadline. Stored on the table (a restarted process keeps it)."""
    if table.trade_turn == turn and table.trade_deadline is not None:
        return table.trade_deadline
    deadline = now + timedelta(seconds=table.trade_seconds)
    Table.objects.filter(pk=table.pk).update(trade_turn=turn, trade_deadline=deadline)
    table.trade_turn, table.trade_deadline = turn, deadline
    return deadline


SAME_DECISION_LIMIT = 64
"""The most events since a clock started that :func:`same_decision` reads: more, and
the clock starts again without reading them."""

_NEW_DECISION = (TurnStarted, PhaseStarted, PlantingEnded, TradingEnded, TurnEnded,
                 GameEnded, GameStopped, SeatHandedToBot)


def _names(event: Event, seat: int) -> bool:
    """Whether ``event`` is ``seat``'s own doing (it names the seat as the one who
    acted: ``seat``, or an offer's ``proposer``)."""
    return getattr(event, "seat", None) == seat or getattr(event, "proposer", None) == seat


def same_decision(game: Game, seat: int, since: int) -> bool:
    """Whether ``seat``, awaited at version ``since`` and again now, still owes the
    same decision: every event stored since is another seat's, in the same turn and
    phase (none starts or ends a phase or turn, and none names ``seat`` as its actor).
    Its move clock then keeps its deadline (the module's docstring)."""
    events = events_between(game, since, SAME_DECISION_LIMIT)
    return events is not None and not any(
        isinstance(event, _NEW_DECISION) or _names(event, seat) for event in events)


class NotTrading(Exception):
    """A pass when there is no trading phase to pass in."""


def pass_trading(table_id: Any, seat: int, actor: str) -> int:
    """``actor`` (a person, who must play ``seat`` in the game as stored: raises
    ``play.authority.NotYourSeat`` otherwise) is done trading this turn: the trading
    window closes once every person at the table is. Returns the turn passed in.
    Not a move of the game (nothing is recorded): it only lets a bot on turn end
    trading sooner, which is then recorded as its move."""
    table = Table.objects.get(pk=table_id)
    if table.game_id is None:
        raise NotTrading("the game has not started yet")
    game = load(table.game_id)
    require_seat(game, seat, actor)
    state = game.state
    if state.phase is not Phase.TRADING:
        raise NotTrading("there is no trading phase to pass in now")
    Seat.objects.filter(table=table, number=seat).update(passed_turn=state.turn)
    return state.turn


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def clock_frame(table: Table, seats: Iterable[Seat], now: datetime) -> dict[str, Any]:
    """The ``clock`` frame for ``table`` at ``now`` (docs/protocol.md): who the move clock
    runs for since which version, its deadline, the bank that seat had when it started,
    every seat's bank left, and the trading window. Times are milliseconds since the
    epoch; ``now`` is the server's, so a client counts down in the server's time."""
    seats = sorted(seats, key=lambda s: s.number)
    running = table.clocked and table.clock_deadline is not None
    bank_at_start = 0.0
    if running and table.clock_started is not None and table.clock_deadline is not None:
        bank_at_start = max(0.0, (table.clock_deadline - table.clock_started).total_seconds()
                            - table.move_seconds)
    trade = None
    if table.trade_turn is not None and table.trade_deadline is not None and window_applies(
            table, seats):
        trade = {"turn": table.trade_turn, "deadline": _ms(table.trade_deadline),
                 "seconds": table.trade_seconds,
                 "passed": [s.number for s in seats if s.passed_turn == table.trade_turn]}
    return {
        "type": "clock",
        "now": _ms(now),
        "move_seconds": table.move_seconds,
        "game_seconds": table.game_seconds,
        "version": table.clock_version if running else None,
        "seat": table.clock_seat if running else None,
        "deadline": _ms(table.clock_deadline) if running else None,
        "bank": round(bank_at_start, 3),
        "banks": [round(max(0.0, table.game_seconds - seat.bank_used), 3) for seat in seats]
        if table.clocked else [],
        "trade": trade,
    }


def read_frame(table_id: Any, now: datetime) -> dict[str, Any] | None:
    """The clock frame of the table as stored now (a worker thread); None if it has no
    clocks (:func:`has_clocks`)."""
    table = running_table(table_id)
    seats = list(table.seats.all())
    return clock_frame(table, seats, now) if has_clocks(table, seats) else None


__all__ = [
    "MAX_TRADE_SECONDS",
    "NotTrading",
    "all_passed",
    "clock_frame",
    "default_trade_seconds",
    "has_clocks",
    "pass_trading",
    "people",
    "read_frame",
    "same_decision",
    "start_window",
    "window_applies",
    "window_open",
]
