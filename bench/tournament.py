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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1120,
                        help=f"about this many games a run (multiples of {PER_CYCLE})")
    parser.add_argument("--runs", type=int, default=1, help="runs of each, alternating")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
