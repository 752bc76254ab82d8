"""The bot report in docs/bots.md: how the three bots fare against each other under
every ruleset. Prints Markdown (prints figures; never a test).

    .venv/bin/python bench/bot_report.py [--games 1000] [--seed report]

Every table rotates the lineup one seat per game (``simulate(..., rotate=True)``), so
each bot sits in each seat equally often. A bot seated twice counts twice:
"per seat" figures are per seat-game, and a win shared by k players counts 1/k.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bohnanza_core.simulator import simulate

LINEUPS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("classic", 4, ("heuristic", "nontrading", "random", "heuristic")),
    ("classic", 4, ("heuristic", "nontrading", "nontrading", "nontrading")),
    ("amigo-en", 4, ("heuristic", "nontrading", "random", "heuristic")),
    ("amigo-en", 4, ("heuristic", "nontrading", "nontrading", "nontrading")),
    ("rio-grande", 3, ("heuristic", "nontrading", "random")),
    ("rio-grande", 4, ("heuristic", "nontrading", "random", "heuristic")),
    ("rio-grande", 4, ("heuristic", "nontrading", "nontrading", "nontrading")),
    ("rio-grande", 6, ("heuristic", "nontrading", "random", "heuristic", "nontrading", "random")),
    ("finnish", 4, ("heuristic", "nontrading", "random", "heuristic")),
    ("finnish", 4, ("heuristic", "nontrading", "nontrading", "nontrading")),
    ("duel", 2, ("heuristic", "nontrading")),
    ("duel", 2, ("heuristic", "random")),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", default="report")
    args = parser.parse_args()
    today = datetime.date.today().isoformat()
    print(f"Generated {today} by `.venv/bin/python bench/bot_report.py --games {args.games} "
          f"--seed {args.seed}`: {args.games} games per table, lineup rotated one seat per game.")
    for name, players, lineup in LINEUPS:
        report = simulate(name, players, lineup, args.games, f"{args.seed}:{name}:{players}",
                          rotate=True)
        print(f"\n**{name}, {players} players** — lineup {', '.join(lineup)}; "
              f"{report.average_turns:.1f} turns a game on average\n")
        print("| bot | seats | avg coins | win rate per seat | games won | illegal answers |")
        print("|---|---:|---:|---:|---:|---:|")
        for bot in report.bots:
            seats = bot.seat_games // args.games
            won = bot.win_rate * bot.seat_games / args.games
            print(f"| {bot.name} | {seats} | {bot.average_coins:.2f} | {bot.win_rate:.1%} "
                  f"| {won:.1%} | {bot.illegal} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
