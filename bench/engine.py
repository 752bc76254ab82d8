"""Engine benchmark: full bot games per second under every ruleset (prints figures;
never a test).

    .venv/bin/python bench/engine.py [--seconds 1.0] [--repeat 3]

For each table (a preset at a representative player count) it measures, on one
core, a *baseline* -- the engine driven on the raw state by a trivial in-process
policy, with no views or bots -- and then the simulator with every seat taken by
each bot. Machines here are noisy, so every figure is the best of ``--repeat``
timed runs, the baseline is measured beside the bots in the same run, and the
ratio bot/baseline is printed: it says what views, bots and scheduling cost,
whatever the machine's speed today.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bohnanza_core.bots import BOTS
from bohnanza_core.commands import (
    Command,
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    PlantCard,
    PlantFromHand,
)
from bohnanza_core.engine import awaiting, new_game, play
from bohnanza_core.rulesets import LeftoverFaceUp, ruleset_for
from bohnanza_core.simulator import play_game
from bohnanza_core.state import GameState, Phase

TABLES: tuple[tuple[str, int], ...] = (
    ("classic", 4),
    ("amigo-en", 4),
    ("rio-grande", 3),
    ("rio-grande", 4),
    ("rio-grande", 6),
    ("finnish", 4),
    ("duel", 2),
)
BOT_NAMES = ("nontrading", "heuristic", "random")
TARGETS: tuple[tuple[str, int, str, float], ...] = (
    ("classic", 4, "nontrading", 300.0),
    ("classic", 4, "heuristic", 100.0),
)


def _field_for(s: GameState, seat: int, card: int) -> int | None:
    kind = s.kinds[card]
    for index, beans in enumerate(s.fields[seat]):
        if not beans or s.kinds[beans[0]] is kind:
            return index
    return None


def _largest(s: GameState, seat: int) -> Harvest:
    """The fullest field is never under bean protection."""
    fields = s.fields[seat]
    return Harvest(seat=seat, field=max(range(len(fields)), key=lambda i: len(fields[i])))


def trivial_policy(s: GameState, seat: int) -> Command:
    """Plant the front card (harvesting the fullest field if needed), never trade,
    plant or discard whatever else is due."""
    phase = s.phase
    if phase is Phase.PLANTING:
        if s.planted:
            return EndPlanting(seat=seat)
        index = _field_for(s, seat, s.hands[seat][0])
        return _largest(s, seat) if index is None else PlantFromHand(seat=seat, field=index)
    if phase is Phase.PLANTING_LEFTOVERS:
        card = s.face_up[0]
        index = _field_for(s, seat, card)
        if index is None:
            return DiscardCard(seat=seat, card=card)
        return PlantCard(seat=seat, card=card, field=index)
    if phase is Phase.TRADING and not s.trade_areas[seat]:
        return EndTrading(seat=seat)
    cards = s.trade_areas[seat] or s.face_up
    card = cards[0]
    index = _field_for(s, seat, card)
    if index is not None:
        return PlantCard(seat=seat, card=card, field=index)
    optional = s.ruleset.leftover_face_up is LeftoverFaceUp.OFFERED_TO_NEXT_PLAYER
    if optional and not s.trade_areas[seat]:
        return EndPlanting(seat=seat)
    return _largest(s, seat)


def baseline_game(name: str, players: int, seed: str) -> int:
    """One game on the raw state with the trivial policy; returns its event count."""
    state, events = new_game(ruleset_for(name, players), tuple("ABCDEFG"[:players]), seed)
    count = len(events)
    while state.phase is not Phase.GAME_OVER:
        seat = awaiting(state)[0]
        count += len(play(state, trivial_policy(state, seat)))
    return count


def bot_game(name: str, players: int, bot: str, seed: str) -> int:
    record = play_game(ruleset_for(name, players), [BOTS[bot]] * players, seed)
    return len(record.events)


def measure(game: Callable[[str], int], seconds: float, repeat: int) -> tuple[float, float]:
    """Best games/s and events/s over ``repeat`` runs of about ``seconds`` each."""
    best_games = best_events = 0.0
    for run in range(repeat):
        games = events = 0
        started = time.perf_counter()
        elapsed = 0.0
        while elapsed < seconds:
            events += game(f"bench:{run}:{games}")
            games += 1
            elapsed = time.perf_counter() - started
        if games / elapsed > best_games:
            best_games, best_events = games / elapsed, events / elapsed
    return best_games, best_events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per timed run")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best counts")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"Python {sys.version.split()[0]}; best of {args.repeat} runs of {args.seconds:.1f}s; "
          "ratio = bot games/s / baseline games/s\n")
    header = (f"{'table':<16} {'baseline g/s':>12} {'bot':<11} {'games/s':>8} "
              f"{'events/s':>10} {'ratio':>6}")
    print(header)
    print("-" * len(header))
    figures: dict[tuple[str, int, str], float] = {}
    for name, players in TABLES:
        base_games, base_events = measure(
            partial(baseline_game, name, players), args.seconds, args.repeat
        )
        table = f"{name} {players}p"
        print(f"{table:<16} {base_games:>12.1f} {'(baseline)':<11} {base_games:>8.1f} "
              f"{base_events:>10,.0f} {1:>6.2f}")
        for bot in BOT_NAMES:
            games, events = measure(
                partial(bot_game, name, players, bot), args.seconds, args.repeat
            )
            figures[(name, players, bot)] = games
            print(f"{'':<16} {'':>12} {bot:<11} {games:>8.1f} {events:>10,.0f} "
                  f"{games / base_games:>6.2f}")
    print("\nTargets (full games per second, one core):")
    failed = 0
    for name, players, bot, target in TARGETS:
        got = figures[(name, players, bot)]
        ok = got >= target
        failed += not ok
        print(f"  {name} {players}p, {bot:<10} >= {target:>5.0f}: {got:7.1f}  "
              f"{'PASS' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
