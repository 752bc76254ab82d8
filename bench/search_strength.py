"""A bot's strength against a table of heuristic bots, a fixed number of sets spread over
processes (prints figures; never a test).

    .venv/bin/python bench/search_strength.py [--bot search] [--ruleset classic]
        [--players 4] [--seed confirm] [--sets 40] [--first 0] [--processes 2]

Each set is one deal played once per seat rotation with the bot alone against heuristic
bots, as ``bohnanza head-to-head BOT heuristic --lone`` plays it
(:func:`bohnanza_core.headtohead.play_set`); the sets are independent, so they are dealt
out to processes. The head-to-head command stops when its sequential test decides; this
plays a fixed number of sets and prints the games, the score (the mean of the sets'
scores) with its normal 95% interval, its logistic Elo, and the seconds a set, against
the target of issue 31: a score of at least 0.60 with the interval's lower end above 0.55
(docs/bots.md, "How they fare").
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bohnanza_core.bots import BOTS, HeuristicBot
from bohnanza_core.errors import RulesetError
from bohnanza_core.headtohead import play_set
from bohnanza_core.rulesets import ruleset_for

TARGET_SCORE = 0.60
TARGET_LOWER = 0.55


def one_set(job: tuple[str, str, int, str, int]) -> tuple[int, float, float]:
    """Set ``i``: its score and the seconds it took."""
    bot, ruleset, players, seed, i = job
    started = time.perf_counter()
    score, _ = play_set(ruleset_for(ruleset, players), players, BOTS[bot], HeuristicBot,
                        seed, i, lone=True)
    return i, score, time.perf_counter() - started


def elo(score: float) -> float:
    """The logistic Elo difference that gives ``score``."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return round(-400.0 * math.log10(1.0 / score - 1.0), 6) + 0.0  # no "-0" for 0.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="search", choices=sorted(BOTS))
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", default="confirm")
    parser.add_argument("--sets", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="the first set's number")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    if not 2 <= args.sets <= 2000 or not 1 <= args.processes <= 64:
        parser.error("play 2 to 2000 sets on 1 to 64 processes")
    try:
        ruleset_for(args.ruleset, args.players)  # a clear error before any process starts
    except RulesetError as error:
        parser.error(str(error))
    jobs = [(args.bot, args.ruleset, args.players, args.seed, i)
            for i in range(args.first, args.first + args.sets)]
    scores: list[float] = []
    seconds: list[float] = []
    with get_context("fork").Pool(args.processes) as pool:
        for i, score, took in pool.imap_unordered(one_set, jobs):
            scores.append(score)
            seconds.append(took)
            print(f"set {i}: {score:.3f} ({took:.0f} s)", file=sys.stderr, flush=True)
    mean = statistics.mean(scores)
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores))
    low, high = mean - half, min(1.0, mean + half)
    met = mean >= TARGET_SCORE and low > TARGET_LOWER
    print(f"{args.bot} against heuristic bots, {args.ruleset} {args.players}p, seed "
          f"{args.seed!r}: {len(scores) * args.players} games ({len(scores)} sets), score "
          f"{mean:.3f} [{low:.3f}, {high:.3f}], Elo {elo(mean):+.0f} [{elo(low):+.0f}, "
          f"{elo(high):+.0f}], {statistics.mean(seconds):.0f} s a set on one process")
    print(f"target (score >= {TARGET_SCORE}, lower end > {TARGET_LOWER}): "
          f"{'met' if met else 'not met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
