"""Instructions a game, pure beside compiled, counted by callgrind (prints figures;
never a test).

    .venv/bin/python bench/instructions.py [--games 10] [--tables classic:4:nontrading,...]

Timings on a shared machine say little (a loaded machine flatters the compiled build:
docs/performance.md); the number of instructions a game executes does not depend on the
load. For each table and bot, ``valgrind --tool=callgrind`` runs a child that plays
``--games`` + 2 seeded games and one that plays 2 (start-up and imports cancel out), for
the pure modules (``BOHNANZA_PURE_PYTHON=1``) and for this install's build, and prints
the instructions a game and the ratio pure/compiled.

The latest figures, with their date and command: docs/performance.md, "Instructions a
game".
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT = "classic:4:nontrading,classic:4:heuristic,umbc:3:nontrading"


def play(table: str, players: int, bot: str, games: int) -> None:
    """The child: ``games`` seeded games (``cg-0``, ``cg-1``...)."""
    from bench.engine import umbc_ruleset
    from bohnanza_core.bots import BOTS
    from bohnanza_core.rulesets import ruleset_for
    from bohnanza_core.simulator import play_game

    ruleset = umbc_ruleset() if table == "umbc" else ruleset_for(table, players)
    for i in range(games):
        play_game(ruleset, [BOTS[bot]] * players, f"cg-{i}")


def count(args: list[str], pure: bool) -> int:
    env = dict(os.environ)
    env.pop("BOHNANZA_PURE_PYTHON", None)
    if pure:
        env["BOHNANZA_PURE_PYTHON"] = "1"
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, __file__, "--child", *args],
                          env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from callgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--tables", default=DEFAULT, help="TABLE:PLAYERS:BOT,... (umbc: the "
                        "UMBC variant of bench/engine.py)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        table, players, bot, games = args.child
        play(table, int(players), bot, int(games))
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    from bohnanza_core import BUILD

    print(f"instructions a game (callgrind, {args.games} games minus start-up); "
          f"this build: {BUILD}")
    print(f"{'table':<10} {'bot':<11} {'pure':>12} {'this build':>12} {'pure/this':>9}")
    for item in args.tables.split(","):
        table, players, bot = item.split(":")
        per_game = {}
        for pure in (True, False):
            base = count([table, players, bot, "2"], pure)
            full = count([table, players, bot, str(args.games + 2)], pure)
            per_game[pure] = (full - base) / args.games
        print(f"{table + ' ' + players + 'p':<10} {bot:<11} {per_game[True]:>12,.0f} "
              f"{per_game[False]:>12,.0f} {per_game[True] / per_game[False]:>8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
