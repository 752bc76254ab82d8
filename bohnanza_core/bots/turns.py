"""The one turn policy of bots: who is asked when, how often, and what is played for a
bot that keeps answering illegally. The simulator (:mod:`bohnanza_core.simulator`), the
live tables (``play.driver``) and the search's rollouts (:mod:`bohnanza_core.bots.search`)
all ask bots this way, so a bot meets the same game everywhere.

Scheduling: the game waits on :func:`~bohnanza_core.engine.awaiting` (most urgent
first) and the first seat it names is asked. At the start of each trading phase every
other player, clockwise from the active one, gets one voluntary chance to propose (a
bot passes with None). A refused answer changes nothing and the bot is asked again;
after :data:`ATTEMPTS` refusals in a row :func:`fallback` is played for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from bohnanza_core.bots.base import Bot
from bohnanza_core.commands import (
    AcceptOffer,
    BuyThirdField,
    Command,
    DeclineOffer,
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    PlantCard,
    PlantFromHand,
    WithdrawOffer,
)
from bohnanza_core.engine import awaiting, legal_commands, play
from bohnanza_core.errors import IllegalMove, SimulationError
from bohnanza_core.seatview import SeatView
from bohnanza_core.state import GameState, Phase
from bohnanza_core.views import view

ATTEMPTS = 3
"""Refused answers in a row before the fallback is played for a bot."""

# The fallback's preference: what moves a game on without giving anything away.
_FALLBACK_ORDER: tuple[type, ...] = (
    DeclineOffer,
    EndTrading,
    PlantFromHand,
    PlantCard,
    EndPlanting,
    DiscardCard,
    Harvest,
    WithdrawOffer,
    AcceptOffer,
    BuyThirdField,
)


def fallback(state: GameState, seat: int) -> Command:
    """The move played for a bot that keeps answering illegally: the first legal
    command in :data:`_FALLBACK_ORDER` (decline, end trading, plant, harvest, ...),
    never an offer, so the game still ends."""
    moves = [m for m in legal_commands(state, seat) if type(m) in _FALLBACK_ORDER]
    if not moves:
        raise SimulationError(f"seat {seat} is awaited but has no legal move")
    return min(moves, key=lambda m: _FALLBACK_ORDER.index(type(m)))  # type: ignore[return-value]


def voluntary_chances(state: GameState) -> list[int]:
    """The seats asked, in this order, for a voluntary offer as a trading phase starts:
    every other player, clockwise from the active one (a bot passes with None)."""
    return [(state.active + offset) % state.players for offset in range(1, state.players)]


def bot_answers(bot: Bot, seat_view: SeatView, attempt: Callable[[object], bool]) -> bool:
    """Ask ``bot`` for its move until ``attempt`` plays one (True), at most
    :data:`ATTEMPTS` times in a row; False: every answer was refused, and the caller
    plays :func:`fallback` for it."""
    return any(attempt(bot.act(seat_view)) for _ in range(ATTEMPTS))


def take_turns(state: GameState, bots: Sequence[Bot], views: Sequence[SeatView],
               attempt: Callable[[int, object], bool],
               play_fallback: Callable[[int], None]) -> None:
    """Ask ``bots`` (one a seat, each with its seat's view) for their moves until the
    game ends. ``attempt(seat, answer)`` plays an answer (False: refused);
    ``play_fallback(seat)`` plays :func:`fallback` for a bot that answered illegally
    :data:`ATTEMPTS` times. A game taken up during a trading phase has had that phase's
    voluntary chances already."""
    trading_turn = state.turn if state.phase is Phase.TRADING else 0
    while state.phase is not Phase.GAME_OVER:
        if state.phase is Phase.TRADING and state.turn != trading_turn:
            trading_turn = state.turn
            for seat in voluntary_chances(state):
                command = bots[seat].act(views[seat])
                if command is not None:
                    attempt(seat, command)
                if state.phase is not Phase.TRADING:
                    break
            continue
        waiting = awaiting(state)
        if not waiting:
            raise SimulationError(f"game {state.seed!r} waits for no one during {state.phase}")
        seat = waiting[0]
        if not bot_answers(bots[seat], views[seat], functools.partial(attempt, seat)):
            play_fallback(seat)


def play_on(state: GameState, bots: Sequence[Bot]) -> tuple[int, ...]:
    """Play ``state`` on to its end, in place, ``bots[seat]`` in every seat; the coins
    of each seat. No events kept, no refusal counted: a search's rollout."""
    views = [view(state, seat) for seat in range(state.players)]

    def attempt(seat: int, command: object) -> bool:
        if command is None or getattr(command, "seat", None) != seat:
            return False
        try:
            play(state, command)
        except IllegalMove:
            return False
        return True

    def play_fallback(seat: int) -> None:
        play(state, fallback(state, seat))

    take_turns(state, bots, views, attempt, play_fallback)
    result = state.result
    assert result is not None
    return result.coins


__all__ = ["ATTEMPTS", "bot_answers", "fallback", "play_on", "take_turns", "voluntary_chances"]
