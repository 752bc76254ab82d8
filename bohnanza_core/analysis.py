"""Game analysis: every decision of a finished game judged by the search, its trades
weighed, and luck told apart from play.

Each judgment is made from the deciding seat's own view at that moment (the table as
:func:`~bohnanza_core.views.view` shows that seat, nothing more), by the search bot's
means (:mod:`bohnanza_core.bots.search`): for every move the rules allowed, the seat's
expected final coins and chance of winning over the same sampled tables, each played
on to its end by the playout engine. The played move is compared with the best one;
the difference, in expected coins, is the loss, and a large loss is a mistake or a
blunder. Offers are not judged as moves (whether one is accepted is another player's
choice, which a playout cannot tell); every accepted trade and gift is judged as a
trade instead: what it changed in each side's expected coins.

Only a finished game is analysed: an analysis of a running game would tell the
players what their opponents hold. Everything here is deterministic for a record, a
budget and a seed, so an analysis can be recomputed and checked
(tests/core/test_analysis.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bohnanza_core.bots.heuristic import HeuristicBot
from bohnanza_core.bots.search import candidates, determinize
from bohnanza_core.commands import (
    AcceptOffer,
    Command,
    HandSeatToBot,
    MakeOffer,
    StopGame,
    WithdrawOffer,
    seat_of,
)
from bohnanza_core.engine import command_for, evolve, is_decision, play
from bohnanza_core.events import Event, GameEnded, OfferAccepted, TurnStarted
from bohnanza_core.playout import play_out
from bohnanza_core.simulator import play_game
from bohnanza_core.state import GameState, Phase
from bohnanza_core.views import view
from bohnanza_core.wire import command_from_json, command_to_json

VERSION = "1"
"""The analysis's own version: a stored analysis names it, the bot and the budget, so
that one made by other means is never mistaken for this one's."""
BOT = "search"
DEFAULT_PLAYOUTS = 1000
"""Playouts per decision at the default budget (spread over the moves weighed)."""
MAX_PLAYOUTS = 5000
INACCURACY = 0.5
MISTAKE = 1.0
BLUNDER = 2.0
"""Losses, in expected final coins, from which a move is flagged."""


@dataclass(frozen=True)
class Estimate:
    """What one move leads to for the deciding seat, over the samples."""

    coins: float
    """Expected final coins."""
    win: float
    """Chance of winning (a shared win counted as a share)."""


@dataclass(frozen=True)
class Judgment:
    """One decision: the move played and the best one, from the seat's own view."""

    event: int
    """The index in the record of the event the decision opens."""
    seat: int
    turn: int
    played: dict[str, Any]
    """The move played, as a command frame (:func:`~bohnanza_core.wire.command_to_json`)."""
    best: dict[str, Any]
    played_estimate: Estimate
    best_estimate: Estimate
    moves: int
    """How many moves were weighed."""

    @property
    def loss(self) -> float:
        return max(0.0, self.best_estimate.coins - self.played_estimate.coins)

    @property
    def flag(self) -> str:
        """"blunder", "mistake", "inaccuracy" or "" (as Lichess marks moves)."""
        loss = self.loss
        if loss >= BLUNDER:
            return "blunder"
        if loss >= MISTAKE:
            return "mistake"
        return "inaccuracy" if loss >= INACCURACY else ""


@dataclass(frozen=True)
class TradeJudgment:
    """An accepted trade or gift: each side's expected coins just before and after."""

    event: int
    proposer: int
    acceptor: int
    proposer_gain: float
    acceptor_gain: float


@dataclass(frozen=True)
class Luck:
    """One seat's result apart: what the deal gave it and what its play made of it.

    ``reference`` is what the reference bot (the heuristic bot in every seat, on the
    same deal: the same deck and reshuffles) finished that seat with; ``deal`` is how
    far that lies above the reference table's average (the deal's gift to the seat);
    ``play`` is what the seat really got against the reference (what the play made
    of the deal)."""

    seat: int
    coins: int
    reference: float
    deal: float
    play: float


@dataclass(frozen=True)
class Analysis:
    bot: str
    version: str
    playouts: int
    seed: str
    judgments: tuple[Judgment, ...]
    chart: tuple[tuple[int, int, tuple[Estimate, ...]], ...]
    """At the start of each turn: (event index, turn, each seat's :class:`Estimate`
    from its own view)."""
    trades: tuple[TradeJudgment, ...]
    luck: tuple[Luck, ...]
    coins: tuple[int, ...] = field(default=())
    """The final coins, for the chart's last point."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Analysis:
        return cls(
            bot=data["bot"], version=data["version"], playouts=data["playouts"],
            seed=data["seed"],
            judgments=tuple(Judgment(
                j["event"], j["seat"], j["turn"], j["played"], j["best"],
                Estimate(**j["played_estimate"]), Estimate(**j["best_estimate"]), j["moves"])
                for j in data["judgments"]),
            chart=tuple((c[0], c[1], tuple(Estimate(**e) for e in c[2]))
                        for c in data["chart"]),
            trades=tuple(TradeJudgment(**t) for t in data["trades"]),
            luck=tuple(Luck(**entry) for entry in data["luck"]),
            coins=tuple(data.get("coins", ())),
        )


NOT_JUDGED = (MakeOffer, WithdrawOffer, HandSeatToBot, StopGame)
"""Decisions that are not a seat's move to judge: offers (judged as trades once
accepted) and what the platform does to a seat or a game."""


class NotFinished(ValueError):
    """Only a finished game is analysed."""


def decision_points(events: Sequence[Event]) -> list[int]:
    """The events that open a decision worth judging: a seat's command with more than
    one move allowed, offers aside (see the module's doc)."""
    if not events or not isinstance(events[-1], GameEnded):
        raise NotFinished("only a finished game is analysed")
    points = []
    state: GameState | None = None
    for index, event in enumerate(events):
        if state is not None and is_decision(event):
            command = command_for(event)
            if (command is not None and not isinstance(command, NOT_JUDGED)
                    and len(candidates(view(state, seat_of(command)))) > 1):
                points.append(index)
        state = evolve(state, event)
    return points


def estimate(state: GameState, seat: int, moves: Sequence[Command | None], playouts: int,
             rng: random.Random) -> list[Estimate]:
    """Each move's :class:`Estimate` for ``seat`` (None: no move, the game as it
    stands), on the same tables sampled from the seat's view of ``state``."""
    seat_view = view(state, seat)
    samples = max(1, playouts // max(1, len(moves)))
    coins = [0.0] * len(moves)
    wins = [0.0] * len(moves)
    for _ in range(samples):
        table = determinize(seat_view, seat, rng)
        for index, move in enumerate(moves):
            played = table.copy()
            if move is not None:
                play(played, move)
            final = play_out(played)
            coins[index] += final[seat]
            best = max(final)
            if final[seat] == best:
                wins[index] += 1.0 / sum(1 for c in final if c == best)
    return [Estimate(c / samples, w / samples) for c, w in zip(coins, wins, strict=True)]


def judge(events: Sequence[Event], index: int, playouts: int, seed: str,
          before: GameState | None = None) -> Judgment:
    """The decision that opens event ``index``, judged from its seat's view."""
    state = before if before is not None else _state_before(events, index)
    command = command_for(events[index])
    assert command is not None
    seat = seat_of(command)
    moves: list[Command] = candidates(view(state, seat))
    if command not in moves:
        moves.append(command)
    found = estimate(state, seat, moves, playouts, random.Random(f"{seed}:{index}"))
    best = max(range(len(moves)), key=lambda i: found[i].coins)
    played = moves.index(command)
    return Judgment(index, seat, state.turn, command_to_json(command),
                    command_to_json(moves[best]), found[played], found[best], len(moves))


def _state_before(events: Sequence[Event], index: int) -> GameState:
    state: GameState | None = None
    for event in events[:index]:
        state = evolve(state, event)
    assert state is not None
    return state


def chart_point(state: GameState, playouts: int, seed: str) -> tuple[Estimate, ...]:
    """Each seat's expected final coins and chance of winning, from its own view of
    ``state``."""
    return tuple(estimate(state, seat, [None], playouts, random.Random(f"{seed}:{seat}"))[0]
                 for seat in range(state.players))


def reference_coins(events: Sequence[Event]) -> tuple[int, ...]:
    """The coins the heuristic bot in every seat finishes with on the game's deal."""
    started = events[0]
    ruleset, seats, seed = started.ruleset, started.seats, started.seed  # type: ignore[attr-defined]
    record = play_game(ruleset, [HeuristicBot] * len(seats), seed, names=seats)
    return record.result.coins


def analyse(events: Sequence[Event], playouts: int = DEFAULT_PLAYOUTS, seed: str = "",
            done: Sequence[Judgment] = (),
            on_judgment: Callable[[Judgment, int, int], None] | None = None) -> Analysis:
    """The whole analysis of a finished game. ``done``: judgments already made (a job
    that was stopped goes on from where it stopped); ``on_judgment(judgment, made,
    total)`` is told of each new one."""
    if not 1 <= playouts <= MAX_PLAYOUTS:
        raise ValueError(f"an analysis plays 1 to {MAX_PLAYOUTS} playouts a decision")
    points = decision_points(events)
    made = {j.event: j for j in done if j.event in points}
    judgments: list[Judgment] = []
    state: GameState | None = None
    chart: list[tuple[int, int, tuple[Estimate, ...]]] = []
    trades: list[TradeJudgment] = []
    wanted = set(points)
    for index, event in enumerate(events):
        if state is not None:
            if isinstance(event, TurnStarted):
                chart.append((index, event.turn, chart_point(state, playouts // 4 or 1,
                                                             f"{seed}:chart:{index}")))
            if index in wanted:
                judgment = made.get(index) or judge(events, index, playouts, seed, state)
                judgments.append(judgment)
                if index not in made and on_judgment is not None:
                    on_judgment(judgment, len(judgments), len(points))
            if isinstance(event, OfferAccepted):
                trades.append(_trade(events, index, state, playouts, seed))
        state = evolve(state, event)
    assert state is not None and state.phase is Phase.GAME_OVER and state.result is not None
    coins = state.result.coins
    reference = reference_coins(events)
    average = sum(reference) / len(reference)
    luck = tuple(Luck(seat, coins[seat], float(reference[seat]), reference[seat] - average,
                      coins[seat] - reference[seat]) for seat in range(len(coins)))
    return Analysis(BOT, VERSION, playouts, seed, tuple(judgments), tuple(chart),
                    tuple(trades), luck, tuple(coins))


def _trade(events: Sequence[Event], index: int, before: GameState, playouts: int,
           seed: str) -> TradeJudgment:
    """An accepted offer: each side's expected coins from its own view, before the
    acceptance and after it (the cards moved, still to be planted)."""
    event = events[index]
    assert isinstance(event, OfferAccepted)
    offer = before.offers[event.offer]
    after = before.copy()
    command = command_for(event)
    assert isinstance(command, AcceptOffer)
    play(after, command)
    gains = []
    for side in (offer.proposer, event.seat):
        rng_seed = f"{seed}:trade:{index}:{side}"
        was = estimate(before, side, [None], playouts // 2 or 1, random.Random(rng_seed))[0]
        now = estimate(after, side, [None], playouts // 2 or 1, random.Random(rng_seed))[0]
        gains.append(now.coins - was.coins)
    return TradeJudgment(index, offer.proposer, event.seat, gains[0], gains[1])


def command_of(judged: dict[str, Any], seat: int) -> Command:
    """A judgment's stored move as a command again (to narrate it)."""
    return command_from_json(judged, seat)


__all__ = [
    "BLUNDER",
    "BOT",
    "DEFAULT_PLAYOUTS",
    "MAX_PLAYOUTS",
    "MISTAKE",
    "VERSION",
    "Analysis",
    "Estimate",
    "Judgment",
    "Luck",
    "NotFinished",
    "TradeJudgment",
    "analyse",
    "command_of",
    "decision_points",
    "estimate",
    "judge",
]
