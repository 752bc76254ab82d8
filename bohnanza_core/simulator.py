"""Bots playing whole games against each other, fast and deterministically.

:func:`play_game` runs one game; :func:`simulate` runs many and sums them up in a
:class:`Report`. The same ruleset, bots and seed always give the same events: the
game's shuffles follow its seed, each bot's own choices follow a seed derived from
the game's seed and its seat, and the simulator asks the seats in a fixed order.

Scheduling: the bots are asked by the one turn policy of bots
(:mod:`bohnanza_core.bots.turns`): the first seat the game awaits, and at the start of
each trading phase every other player for a voluntary offer. A bot's illegal answer is
refused like a person's (nothing changes), counted, and the bot asked again; after
three refusals in a row the simulator plays the fallback for it, also counted.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from mypy_extensions import mypyc_attr

from bohnanza_core.bots import Bot
from bohnanza_core.bots.registry import registry
from bohnanza_core.bots.turns import fallback, take_turns
from bohnanza_core.commands import Command, as_command
from bohnanza_core.engine import new_game, play
from bohnanza_core.errors import IllegalMove
from bohnanza_core.errors import SimulationError as SimulationError  # its old home
from bohnanza_core.events import Event, GameEnded
from bohnanza_core.rulesets import Ruleset, ruleset_for
from bohnanza_core.state import GameState
from bohnanza_core.views import redact, view

COMMAND_LIMIT = 20_000
"""Commands (refused ones included) after which a game is stopped as runaway; a
4-player classic game between sensible bots takes a few hundred."""

class Board(Protocol):
    """Where a game is played out (not the live table of ``play``): the state, the
    events so far, and how a command is played. :class:`EngineBoard` is the bare
    engine; the event store offers one whose
    every command is stored (:class:`bohnanza_core.games.StoredBoard`)."""

    state: GameState
    events: list[Event]

    def play(self, command: Command) -> list[Event]: ...


def bot_seed(seed: str, seat: int) -> str:
    """The seed of the bot in ``seat``'s own choices: derived from the game's seed, so
    a game stays reproducible, by a one-way hash, because a bot that were handed the
    game's seed could recompute the deck."""
    return hashlib.sha256(f"bohnanza-bot-v1:{seed}:{seat}".encode()).hexdigest()


@mypyc_attr(allow_interpreted_subclasses=True)  # tests count its commands in a subclass
class EngineBoard:
    """A game in memory only: :func:`new_game` and :func:`play`."""

    def __init__(self, ruleset: Ruleset, seats: tuple[str, ...], seed: str) -> None:
        self.state, self.events = new_game(ruleset, seats, seed)

    def play(self, command: Command) -> list[Event]:
        return play(self.state, command)


BoardFactory = Callable[[Ruleset, tuple[str, ...], str], Board]


@dataclass(frozen=True)
class GameRecord:
    """One finished game: every event (unredacted, from GameStarted to GameEnded),
    its result, and per seat how many answers were refused and fallbacks played."""

    ruleset: Ruleset
    seats: tuple[str, ...]
    bots: tuple[str, ...]
    seed: str
    events: list[Event]
    result: GameEnded
    illegal: tuple[int, ...]
    fallbacks: tuple[int, ...]
    turns: int
    commands: int


def seat_names(bot_names: Sequence[str]) -> tuple[str, ...]:
    """Seat names that say which bot sits where: "heuristic 1", "random 2", ..."""
    return tuple(f"{name} {seat + 1}" for seat, name in enumerate(bot_names))


def play_game(
    ruleset: Ruleset,
    bot_classes: Sequence[type[Bot]],
    seed: str,
    *,
    names: Sequence[str] | None = None,
    command_limit: int = COMMAND_LIMIT,
    board: BoardFactory = EngineBoard,
) -> GameRecord:
    """Play one game with one bot per seat (seat 0 starts) and return its record.
    ``board`` sets the game up and plays each command (default: the bare engine)."""
    players = len(bot_classes)
    seats = tuple(names) if names is not None else seat_names([c.name for c in bot_classes])
    played = board(ruleset, seats, seed)
    state, events = played.state, list(played.events)
    bots = [cls(seat, bot_seed(seed, seat)) for seat, cls in enumerate(bot_classes)]
    views = [view(state, seat) for seat in range(players)]
    observers = [(seat, bot) for seat, bot in enumerate(bots) if type(bot).observes()]
    illegal = [0] * players
    fallbacks = [0] * players
    commands = 0

    def tell(new: list[Event]) -> None:
        for seat, bot in observers:
            for event in new:
                bot.observe(redact(event, seat))

    def attempt(seat: int, command: object) -> bool:
        """Play ``command`` for ``seat``; False (and counted) if refused. Typed
        ``object``: a bot may answer anything, and what is no command is refused."""
        nonlocal commands
        commands += 1
        if commands > command_limit:
            raise SimulationError(
                f"game {seed!r} passed {command_limit} commands without ending; "
                f"last from seat {seat}: {command!r}"
            )
        if command is None or getattr(command, "seat", None) != seat:
            illegal[seat] += 1
            return False
        try:
            new = played.play(as_command(command))
        except IllegalMove:
            illegal[seat] += 1
            return False
        events.extend(new)
        if observers:
            tell(new)
        return True

    def play_fallback(seat: int) -> None:
        fallbacks[seat] += 1
        new = played.play(fallback(state, seat))
        events.extend(new)
        if observers:
            tell(new)

    if observers:
        tell(events)
    take_turns(state, bots, views, attempt, play_fallback)
    result = events[-1]
    assert isinstance(result, GameEnded)
    return GameRecord(
        ruleset=ruleset,
        seats=seats,
        bots=tuple(c.name for c in bot_classes),
        seed=seed,
        events=events,
        result=result,
        illegal=tuple(illegal),
        fallbacks=tuple(fallbacks),
        turns=state.turn,
        commands=commands,
    )


# ---------------------------------------------------------------------------
# Many games
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BotStats:
    """One bot over all the seats it took: ``seat_games`` counts a bot sitting
    twice at a table twice; a win shared by k seats counts 1/k."""

    name: str
    seat_games: int
    average_coins: float
    win_rate: float
    illegal: int
    fallbacks: int


@dataclass(frozen=True)
class SeatStats:
    seat: int
    average_coins: float
    win_rate: float


@dataclass(frozen=True)
class Report:
    ruleset: str
    players: int
    lineup: tuple[str, ...]
    rotate: bool
    games: int
    bots: tuple[BotStats, ...]
    seats: tuple[SeatStats, ...]
    average_turns: float
    events: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("inf")

    def table(self) -> str:
        """The report as aligned text, for a terminal."""
        order = "rotated each game" if self.rotate else "fixed seats"
        lines = [
            f"{self.games} game{'' if self.games == 1 else 's'} of {self.ruleset}, "
            f"{self.players} players "
            f"({', '.join(self.lineup)}; {order})",
            "",
            f"{'bot':<12} {'seat-games':>10} {'avg coins':>10} {'win rate':>9} "
            f"{'illegal':>8} {'fallbacks':>9}",
        ]
        for b in self.bots:
            lines.append(
                f"{b.name:<12} {b.seat_games:>10} {b.average_coins:>10.2f} "
                f"{b.win_rate:>8.1%} {b.illegal:>8} {b.fallbacks:>9}"
            )
        lines += ["", f"{'seat':<12} {'avg coins':>10} {'win rate':>9}"]
        for s in self.seats:
            lines.append(f"{s.seat + 1:<12} {s.average_coins:>10.2f} {s.win_rate:>8.1%}")
        lines += [
            "",
            f"average turns:     {self.average_turns:.1f}",
            f"games per second:  {self.games_per_second:.1f}",
            f"events per second: {self.events_per_second:,.0f}",
        ]
        return "\n".join(lines)


def bot_classes(names: Sequence[str]) -> list[type[Bot]]:
    """The registered bots named (built in or installed: bots.registry), or a
    :class:`SimulationError` naming the known ones."""
    known = registry()
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SimulationError(
            f"unknown bot(s): {', '.join(unknown)}; known: {', '.join(known)}"
        )
    return [known[name].cls for name in names]


def simulate(
    ruleset_name: str | Ruleset,
    players: int,
    bot_names: Sequence[str],
    games: int,
    seed: str,
    rotate: bool = False,
    *,
    on_game: Callable[[int, GameRecord], None] | None = None,
) -> Report:
    """Play ``games`` games of a preset (by name) or house rules (a :class:`Ruleset`);
    game i uses seed ``f"{seed}:{i}"`` and, with ``rotate``,
    the lineup rotated by i so every bot takes every seat equally often.
    ``on_game`` sees each finished game (for logs and exports)."""
    ruleset = (ruleset_name if isinstance(ruleset_name, Ruleset)
               else ruleset_for(ruleset_name, players))
    if players not in ruleset.players:
        raise SimulationError(f"{ruleset.name} is not played by {players} players")
    if len(bot_names) != players:
        raise SimulationError(f"{players} players need {players} bots, not {len(bot_names)}")
    if games < 1:
        raise SimulationError("play at least one game")
    classes = bot_classes(bot_names)
    coins: dict[str, float] = dict.fromkeys(bot_names, 0.0)
    wins: dict[str, float] = dict.fromkeys(bot_names, 0.0)
    sat: dict[str, int] = dict.fromkeys(bot_names, 0)
    illegal: dict[str, int] = dict.fromkeys(bot_names, 0)
    fallbacks: dict[str, int] = dict.fromkeys(bot_names, 0)
    seat_coins = [0.0] * players
    seat_wins = [0.0] * players
    turns = events = 0
    seconds = 0.0
    for i in range(games):
        shift = i % players if rotate else 0
        lineup = classes[shift:] + classes[:shift]
        started = time.perf_counter()
        record = play_game(ruleset, lineup, f"{seed}:{i}")
        seconds += time.perf_counter() - started
        result = record.result
        share = 1.0 / len(result.winners)
        for seat, cls in enumerate(lineup):
            won = share if seat in result.winners else 0.0
            coins[cls.name] += result.coins[seat]
            wins[cls.name] += won
            sat[cls.name] += 1
            illegal[cls.name] += record.illegal[seat]
            fallbacks[cls.name] += record.fallbacks[seat]
            seat_coins[seat] += result.coins[seat]
            seat_wins[seat] += won
        turns += record.turns
        events += len(record.events)
        if on_game is not None:
            on_game(i, record)
    return Report(
        ruleset=ruleset.name,
        players=players,
        lineup=tuple(bot_names),
        rotate=rotate,
        games=games,
        bots=tuple(
            BotStats(
                name=name,
                seat_games=sat[name],
                average_coins=coins[name] / sat[name],
                win_rate=wins[name] / sat[name],
                illegal=illegal[name],
                fallbacks=fallbacks[name],
            )
            for name in coins
        ),
        seats=tuple(
            SeatStats(seat=seat, average_coins=seat_coins[seat] / games,
                      win_rate=seat_wins[seat] / games)
            for seat in range(players)
        ),
        average_turns=turns / games,
        events=events,
        seconds=seconds,
    )
