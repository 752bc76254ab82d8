"""Games per minute of a competition run by Celery worker processes on PostgreSQL and
Redis, with one worker and with two, side by side, and the wall time of a 10,000-game
competition extrapolated from (or, with --games 10000, measured at) the two-worker rate.

    .venv/bin/python bench/tournament.py [--games 1000] [--runs 1]

Each run: a fresh PostgreSQL database (migrated), a Redis queue of its own, N worker
processes (``celery -A config worker --pool solo``, as production runs them), and a
round robin of heuristic bots at tables of four under ``classic`` (8 entrants: 280
games a cycle, as many cycles as --games asks), created by ``manage.py tournament
create --no-wait``; timed from creation to the competition's Finished event. Every game
is stored whole (events, hash chain, a snapshot every 100 events) like any other; the
game list's read model is left to ``manage.py run_projections`` (READ_MODELS_CATCH_UP=0),
as production runs it. The database, the broker and the workers share this machine's
cores. Targets (issue 11): two workers at least 1.6 times one; 10,000 games within 3
minutes with two workers.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import psycopg

ROOT = Path(__file__).resolve().parents[1]
PG = {"host": "127.0.0.1", "port": 5432, "dbname": "test", "user": "postgres"}
REDIS = "redis://127.0.0.1:6379/0"
ENTRANTS = 8
PER_CYCLE = math.comb(ENTRANTS, 4) * 4  # 280


def admin() -> psycopg.Connection:  # type: ignore[type-arg]
    return psycopg.connect(**PG, autocommit=True)  # type: ignore[arg-type]


def one_run(workers: int, cycles: int) -> tuple[int, float]:
    """(games, seconds) of one competition run by ``workers`` worker processes."""
    name = f"bench_cup_{uuid4().hex[:10]}"
    with admin() as db:
        db.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{name}",
           "CELERY_BROKER_URL": REDIS, "CELERY_QUEUE": f"bench-{name}",
           "READ_MODELS_CATCH_UP": "0", "DJANGO_LOG_LEVEL": "WARNING"}
    processes: list[subprocess.Popen[bytes]] = []
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                       env=env, check=True, timeout=300)
        for n in range(workers):
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
                 "--loglevel", "WARNING", "--without-mingle", "--without-gossip",
                 "-n", f"bench{n}@%h"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        time.sleep(3)  # the workers connect to the broker
        bots = ",".join(["heuristic"] * ENTRANTS)
        began = time.perf_counter()
        created = subprocess.run(
            [sys.executable, "manage.py", "tournament", "create", "--name", "Bench Cup",
             "--format", "round-robin", "--ruleset", "classic", "--table", "4", "--bots", bots,
             "--cycles", str(cycles), "--no-wait"],
            cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=300)
        match = re.search(r"created \S+: (\d+) games", created.stdout)
        assert match, created.stdout
        games = int(match[1])
        with psycopg.connect(**{**PG, "dbname": name}, autocommit=True) as db:  # type: ignore[arg-type]
            while not db.execute("SELECT count(*) FROM tournaments_events WHERE topic LIKE "
                                 "'%Tournament.Finished'").fetchone()[0]:  # type: ignore[index]
                time.sleep(0.2)
            seconds = time.perf_counter() - began
            stored = db.execute("SELECT count(DISTINCT originator_id) FROM games_events"
                                ).fetchone()[0]  # type: ignore[index]
        assert stored == games, f"{stored} games stored of {games}"
        return games, seconds
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        with admin() as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


STEPS = ("engine and bots", "chain (canonical form, commitments, SHA-256)",
         "store write (events, snapshots)", "commit", "rows, checks, the competition read",
         "move on? (after each task)", "round end (ratings, pairing, dispatch)")


def breakdown_child(games: int) -> None:
    """In this process (on the database of DATABASE_URL): play and store ``games``
    deals of a round robin as a worker's task does (``tournaments.runner.play_deal``,
    then ``advance``), timing each step; prints one line of JSON, seconds per game."""
    import json

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.db import transaction

    from bohnanza_core import games as games_module
    from bohnanza_core.rulesets import ruleset_for
    from replays.store import games as store
    from tournaments import runner
    from tournaments.competitions import tournaments
    from tournaments.tasks import batch_size

    spent = dict.fromkeys(STEPS, 0.0)

    def timed(step: str, function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[step] += time.perf_counter() - began
        return run

    runner.play_bot_game = timed(STEPS[0], runner.play_bot_game)  # type: ignore[assignment]
    games_module.Game.collect_rows = timed(  # type: ignore[method-assign]
        STEPS[1], games_module.Game.collect_rows)
    the_store = store()
    the_store.save = timed("save", the_store.save)  # type: ignore[method-assign]
    spent["save"] = 0.0
    atomic = transaction.atomic

    class TimedAtomic:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.inner = atomic(*args, **kwargs)

        def __enter__(self) -> Any:
            return self.inner.__enter__()

        def __exit__(self, *exc: Any) -> Any:
            began = time.perf_counter()
            try:
                return self.inner.__exit__(*exc)
            finally:
                spent["atomic exit"] = spent.get("atomic exit", 0.0) + (
                    time.perf_counter() - began)

    runner.transaction.atomic = TimedAtomic  # type: ignore[attr-defined]
    app = tournaments()
    cycles = max(1, math.ceil(games / PER_CYCLE))
    cup = app.create("Breakdown Cup", "round-robin", ruleset_for("classic", 4), 4,
                     {"cycles": cycles}, runner.entrants_for(["heuristic"] * ENTRANTS))
    pending: list[tuple[int, int]] = [(0, d) for d in runner.deals_of(cup, 0)]

    def queue(_: Any, round_number: int, deals: Any) -> None:
        pending.extend((round_number, d) for d in deals)

    size = batch_size()
    played = 0
    began = time.perf_counter()
    while pending and played < games:
        round_number = pending[0][0]
        batch = [d for r, d in pending[:size] if r == round_number]
        del pending[:len(batch)]
        start = time.perf_counter()
        played += runner.play_deals(cup.id, round_number, batch)
        middle = time.perf_counter()
        moved = runner.advance(cup.id, queue)
        spent[STEPS[6] if moved else STEPS[5]] += time.perf_counter() - middle
        spent["play_deal"] = spent.get("play_deal", 0.0) + middle - start
    total = time.perf_counter() - began
    spent[STEPS[2]] = spent.pop("save") - spent[STEPS[1]]
    spent[STEPS[3]] = spent.pop("atomic exit")
    spent[STEPS[4]] = spent.pop("play_deal") - sum(spent[s] for s in STEPS[:4])
    print(json.dumps({"games": played, "total": total / played, "batch": size,
                      **{s: spent[s] / played for s in STEPS}}))


def breakdown(games: int) -> dict[str, float]:
    """Seconds per game of each step in one process, on a fresh PostgreSQL database."""
    import json

    name = f"bench_steps_{uuid4().hex[:10]}"
    with admin() as db:
        db.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{name}",
           "READ_MODELS_CATCH_UP": "0", "DJANGO_LOG_LEVEL": "WARNING"}
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                       env=env, check=True, timeout=300)
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--steps-child",
                              str(games)], cwd=ROOT, env=env, capture_output=True, text=True,
                             check=True, timeout=1800).stdout
        return dict(json.loads(out.strip().splitlines()[-1]))
    finally:
        with admin() as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def print_breakdown(steps: dict[str, float]) -> None:
    total = steps["total"]
    print(f"where one game's time goes, in one process ({int(steps['games'])} games in "
          f"tasks of {int(steps['batch'])} deals, {total * 1000:.1f} ms a game, load "
          f"average {os.getloadavg()[0]:.1f}):")
    for step in STEPS:
        print(f"  {step:<45} {steps[step] * 1000:7.2f} ms  {steps[step] / total:6.1%}")


def print_floor(steps: dict[str, float], one: float, two: float) -> None:
    """What the cores allow: the engine alone, and engine plus store, on both cores,
    against what the workers reached."""
    engine = steps[STEPS[0]] + steps[STEPS[1]]
    print()
    print("the floor on 2 cores (seconds for 10,000 games, from the steps above):")
    print(f"  engine and bots alone, both cores busy:       "
          f"{10_000 * engine / 2:6.0f} s ({2 / engine * 60:,.0f} games/min)")
    print(f"  everything of one process, both cores busy:   "
          f"{10_000 * steps['total'] / 2:6.0f} s ({2 / steps['total'] * 60:,.0f} games/min; "
          f"PostgreSQL's own work on top)")
    print(f"  one worker over Celery and Redis:             {60 / one * 1000:6.1f} ms a game "
          f"against {steps['total'] * 1000:.1f} ms in one process: "
          f"{(60 / one - steps['total']) / (60 / one):.0%} is the broker, the task, and "
          f"PostgreSQL's share of the cores")
    print(f"  two workers reached:                          {10_000 / two * 60:6.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1120,
                        help=f"about this many games a run (multiples of {PER_CYCLE})")
    parser.add_argument("--runs", type=int, default=1, help="runs of each, alternating")
    parser.add_argument("--steps", type=int, default=280, metavar="GAMES",
                        help="games of the one-process breakdown (0: none)")
    parser.add_argument("--steps-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--steps-only", action="store_true",
                        help="only the one-process breakdown")
    args = parser.parse_args()
    if args.steps_child:
        breakdown_child(args.steps_child)
        return
    steps = breakdown(args.steps) if args.steps else None
    if steps is not None:
        print_breakdown(steps)
        print(flush=True)
    if args.steps_only:
        return
    cycles = max(1, round(args.games / PER_CYCLE))
    rates: dict[int, list[float]] = {1: [], 2: []}
    for run in range(args.runs):
        for workers in (1, 2):
            games, seconds = one_run(workers, cycles)
            rate = games / seconds * 60
            rates[workers].append(rate)
            print(f"run {run + 1}: {workers} worker{'s' if workers > 1 else ''}: {games} games "
                  f"in {seconds:.1f} s = {rate:,.0f} games/min", flush=True)
    one, two = (sorted(rates[w])[len(rates[w]) // 2] for w in (1, 2))
    print()
    print(f"games per minute (median of {args.runs}): one worker {one:,.0f}, two workers "
          f"{two:,.0f}; two / one = {two / one:.2f} (target >= 1.6)")
    print(f"10,000 games with two workers: {10_000 / two * 60:.0f} s "
          f"({'measured rate of ' + str(cycles * PER_CYCLE) + '-game runs'}; target <= 180 s)")
    if steps is not None:
        print_floor(steps, one, two)
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
