"""Analysis benchmark: a whole 4-player classic game analysed at the default budget, on
one process and on two (prints figures; never a test).

    .venv/bin/python bench/analysis.py [--playouts 1000] [--seed bench]

A game of heuristic bots is played, then analysed (bohnanza_core/analysis.py) twice: by
one process, and with its decisions dealt out to two processes that judge them side by
side (what two Celery workers do with one game's analysis) and the rest (chart, trades,
luck) made where the judgments are put together. It prints the decisions judged, the
playouts, the seconds of each, and the two-process figure against the target (issue 31:
at most 3 minutes on two workers at the default budget). The two analyses must be the
same record: the bench checks it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bohnanza_core.analysis import DEFAULT_PLAYOUTS, Judgment, analyse, decision_points, judge
from bohnanza_core.bots import HeuristicBot
from bohnanza_core.events import Event
from bohnanza_core.rulesets import ruleset_for
from bohnanza_core.simulator import play_game

TARGET_S = 180.0


def the_game(seed: str) -> list[Event]:
    return list(play_game(ruleset_for("classic", 4), [HeuristicBot] * 4, seed).events)


def judge_part(args: tuple[str, int, str, list[int]]) -> list[Judgment]:
    game_seed, playouts, seed, indices = args
    events = the_game(game_seed)
    return [judge(events, index, playouts, seed) for index in indices]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playouts", type=int, default=DEFAULT_PLAYOUTS)
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args()
    events = the_game(args.seed)
    points = decision_points(events)
    print(f"a 4-player classic game of heuristic bots: {len(events)} events, "
          f"{len(points)} decisions judged, {args.playouts} playouts a decision "
          f"(load average {os.getloadavg()[0]:.1f})", flush=True)

    started = time.perf_counter()
    alone = analyse(events, args.playouts, "analysis")
    one = time.perf_counter() - started
    print(f"one process: {one:.1f} s", flush=True)

    started = time.perf_counter()
    parts = [(args.seed, args.playouts, "analysis", points[k::2]) for k in range(2)]
    with get_context("fork").Pool(2) as pool:
        judged = [j for part in pool.map(judge_part, parts) for j in part]
    together = analyse(events, args.playouts, "analysis", done=judged)
    two = time.perf_counter() - started
    same = json.dumps(together.as_dict()) == json.dumps(alone.as_dict())
    playouts = len(points) * args.playouts
    print(f"two processes: {two:.1f} s ({one / two:.2f}x one); the same record: {same}")
    print(f"playouts: {playouts:,} for the decisions, about {playouts / one:,.0f} a second "
          "on one process (chart, trades and luck besides)")
    ok = two <= TARGET_S and same
    print(f"target: a whole game on two workers <= {TARGET_S:.0f} s: {two:.1f} s "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
