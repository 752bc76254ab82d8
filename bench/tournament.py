"""Games per minute of a competition run by Celery worker processes on PostgreSQL and
Redis, with one worker and with two, side by side, and the wall time of a 10,000-game
competition extrapolated from (or, with --games 10000, measured at) the two-worker rate;
then where one game's time goes, and the floor the two cores allow.

    .venv/bin/python bench/tournament.py [--games 1120] [--runs 1] [--steps 280]
    .venv/bin/python bench/tournament.py --steps-only      # the breakdown alone
    BOHNANZA_TOURNAMENT_BATCH=1 .venv/bin/python bench/tournament.py   # a task a deal

Each run: a fresh PostgreSQL database (migrated), a Redis queue of its own (in Redis
database 10, or ``BENCH_REDIS_URL``), N worker
processes (``celery -A config worker --pool solo``, as production runs them), and a
round robin of heuristic bots at tables of four under ``classic`` (8 entrants: 280
games a cycle, 70 a round, as many cycles as --games asks), created by ``manage.py
tournament create --no-wait``; timed from creation to the competition's Finished event.
Every game is stored whole (events, hash chain, a snapshot every 100 events) like any
other, and the run checks that every game is in the store; the game list's read model
is left to ``manage.py run_projections`` (READ_MODELS_CATCH_UP=0), as production runs
it. Each run also reads the CPU time its games took: the workers' (from the start of
the competition), their PostgreSQL backends' and Redis's; and what the backends waited
for, sampled from ``pg_stat_activity`` every 10 ms (``Lock:transactionid``: a worker's
save waiting for the other's hold on the store's counter row; ``Client:ClientRead``: a
backend waiting for its worker, inside a transaction or between statements;
``Lock:object``: a commit waiting for another's NOTIFY, which PostgreSQL serialises over
the whole server, other databases included); and, with two workers, how long a round's
last task ran alone (:func:`round_tails`).

The breakdown (``--steps``): the same games played and stored in one process as a
worker's task does it (``tournaments.core.games.play_deals`` then
``tournaments.core.rounds.advance``), each step timed:
engine and bots, chaining, the store's write, the commit, the rows and checks, the look
at whether the round is over, the round's end (ratings, pairing); the CPU of the
process and of its PostgreSQL backend; and how long the store's counter row is held
(from the counter's UPDATE, after the batch's rows are encoded, to the commit), the
part of a game two workers cannot overlap.

The floor: the CPU a game takes (engine and bots alone; and the whole game in the
two-worker run: workers, PostgreSQL, Redis) times 10,000 over two cores; CPU time is
inflated far less than wall time by other work on the cores.

Targets (issue 11): two workers at least 1.6 times one; 10,000 games within 3 minutes
with two workers. The database, the broker and the workers share this machine's 2
cores, and other work on them shows in every wall-time figure: say the load average.

History, 4-player classic heuristic round robins, one run each:

- 2026-12-01, a task a game, engine pure, load about 3: one worker 895 games/min, two
  1,373 (1.53x); 10,000 games about 437 s.
- 2026-12-02, engine compiled, load 5-9 (three other helpers' builds and tests): a task
  a deal: one worker 646, two 726 (1.12x, load 6); a task per 4 deals (this commit's
  default): 1,129 and 1,044 (load 6), 757 and 1,113 (1.47x, load 6), 582 and 593 (load
  9). In one process a game took 44.8 ms of wall time (4 deals a task) against 61.7 ms
  (a deal a task). CPU a game in the two-worker runs: workers 29.4-29.6 ms, PostgreSQL
  6.9-7.2, Redis 0.2-0.9, about 37 ms, so 10,000 games need at least 184-187 s of two
  idle cores; engine and bots alone 13.9-15.2 ms a game (70-76 s). With 16 deals a
  task (560 games, load 9-11): workers 27.5, PostgreSQL 6.8, Redis 0.3: 34.6 ms (173 s);
  one worker 711, two 1,107 (1.56x).
  docs/tournaments.md says where the rest goes.
- 2026-12-02, a task's games saved as one write (the counter row and one binary COPY
  last), load 2.8-9.6 (three other helpers): waits for the counter row 0.3-1.8 ms a game
  with two workers (2.3-6.6 before); counter row held 4.3-7.8 ms a game in one process
  (11.8 before); one worker 1,231-2,182 and two 1,244-3,993 games/min over seven 1,120-game
  pairs (10,000 games in 150 s at the best, load 3.9); a round's last task alone 2.5-3.8%
  of a round with two workers; 2,800 games at load 7.4-9.6: 897
  and 1,540 (1.72x), CPU a game workers 15.9, PostgreSQL 3.4, Redis 0.4 ms: floor 99 s.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

import psycopg

ROOT = Path(__file__).resolve().parents[1]
PG = {"host": "127.0.0.1", "port": 5432, "dbname": "test", "user": "postgres"}
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/10")
"""A Redis database of its own (the tests use 0, bench/live.py 11, bench/web.py 15)."""
ENTRANTS = 8
PER_CYCLE = math.comb(ENTRANTS, 4) * 4  # 280


def admin() -> psycopg.Connection:  # type: ignore[type-arg]
    return psycopg.connect(**PG, autocommit=True)  # type: ignore[arg-type]


def cpu_seconds(pid: int) -> float:
    """CPU seconds a process of this machine has used (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def redis_pid() -> int | None:
    try:
        info = subprocess.run(["redis-cli", "-u", REDIS, "info", "server"], capture_output=True,
                              text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"process_id:(\d+)", info)
    return int(found[1]) if found else None


class WaitSampler(threading.Thread):
    """Samples what the workers' PostgreSQL backends wait for, every
    :data:`SAMPLE_SECONDS`, from ``pg_stat_activity`` on a connection of its own (stopped
    before the backends' CPU is read, so its own is not counted): a worker whose save
    waits for the other's counter row shows as ``Lock:transactionid``. Each sample of a
    backend stands for the time between samples."""

    def __init__(self, database: str) -> None:
        super().__init__(daemon=True)
        self.database = database
        self.stopped = threading.Event()
        self.samples = 0
        self.seconds = 0.0
        self.waits: Counter[str] = Counter()

    def run(self) -> None:
        with psycopg.connect(**{**PG, "dbname": self.database}, autocommit=True) as db:  # type: ignore[arg-type]
            began = time.perf_counter()
            while not self.stopped.is_set():
                for kind, event in db.execute(
                        "SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE "
                        "datname = current_database() AND pid <> pg_backend_pid() AND "
                        "backend_type = 'client backend' AND state <> 'idle'").fetchall():
                    self.waits[f"{kind}:{event}" if kind else "running"] += 1
                self.samples += 1
                time.sleep(SAMPLE_SECONDS)
            self.seconds = time.perf_counter() - began

    def stop(self) -> dict[str, float]:
        """Seconds of backend time spent in each wait (and running), estimated."""
        self.stopped.set()
        self.join()
        each = self.seconds / max(1, self.samples)
        return {wait: count * each for wait, count in self.waits.most_common()}


SAMPLE_SECONDS = 0.01
BATCH = int(os.environ.get("BOHNANZA_TOURNAMENT_BATCH", "4"))
ENDED_AT = re.compile(rb'"at":"([^"]+)"')


def round_tails(db: Any) -> tuple[float, float]:
    """(seconds, share) of each round's time that one worker spent alone on the round's
    last task while the other had nothing of the round left, on average over the rounds,
    from the times the games ended (their last event's ``at``): a round robin's deal is
    its game's index, and a task plays ``BATCH`` deals in order, so a task ended with the
    last of its games. The tail is the last task's end less the end of the last task
    before it; the share is of the round's time from its first game's end to its last."""
    ends: dict[int, dict[int, float]] = {}
    for round_number, index, state in db.execute(
            "SELECT g.round, g.index, e.state FROM tournaments_competitiongame g, LATERAL "
            "(SELECT state FROM games_events WHERE originator_id = g.game_id ORDER BY "
            "originator_version DESC LIMIT 1) e").fetchall():
        found = ENDED_AT.search(bytes(state))
        assert found, "a game's last event has its time"
        at = datetime.fromisoformat(found[1].decode()).timestamp()
        tasks = ends.setdefault(round_number, {})
        tasks[index // BATCH] = max(tasks.get(index // BATCH, at), at)
    tails, shares = [], []
    for tasks in ends.values():
        if len(tasks) < 2:
            continue
        ordered = sorted(tasks.values())
        tails.append(ordered[-1] - ordered[-2])
        first = min(ordered)
        if ordered[-1] > first:
            shares.append(tails[-1] / (ordered[-1] - first))
    return (sum(tails) / max(1, len(tails)), sum(shares) / max(1, len(shares)))


def one_run(workers: int, cycles: int) -> tuple[int, float, dict[str, float],
                                                dict[str, float], tuple[float, float]]:
    """(games, seconds, CPU seconds by part, backend seconds by wait, round tails) of one
    competition run by ``workers`` worker processes. The CPU: the workers' from the start of the
    competition, their PostgreSQL backends' whole lives, Redis's over the run (other
    users of this Redis count too). The waits: :class:`WaitSampler`; the tails:
    :func:`round_tails`."""
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
        # The workers start (Django, the broker): until their CPU stays still, so that
        # their start is not counted with the games.
        waited = 0.0
        used = [cpu_seconds(p.pid) for p in processes]
        while waited < 60:
            time.sleep(1)
            waited += 1
            now = [cpu_seconds(p.pid) for p in processes]
            if waited >= 3 and all(b - a < 0.05 for a, b in zip(used, now, strict=True)):
                break
            used = now
        bots = ",".join(["heuristic"] * ENTRANTS)
        redis = redis_pid()
        cpu_before = {"workers": sum(cpu_seconds(p.pid) for p in processes),
                      "Redis": cpu_seconds(redis) if redis else 0.0}
        sampler = WaitSampler(name)
        sampler.start()
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
                                 "'%Competition.Finished'").fetchone()[0]:  # type: ignore[index]
                time.sleep(0.2)
            seconds = time.perf_counter() - began
            waits = sampler.stop()
            backends = [row[0] for row in db.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> "
                "pg_backend_pid()", [name]).fetchall()]
            cpu = {"workers": sum(cpu_seconds(p.pid) for p in processes)
                   - cpu_before["workers"],
                   "PostgreSQL": sum(cpu_seconds(pid) for pid in backends),
                   "Redis": (cpu_seconds(redis) if redis else 0.0) - cpu_before["Redis"]}
            stored = db.execute("SELECT count(DISTINCT originator_id) FROM games_events"
                                ).fetchone()[0]  # type: ignore[index]
            tails = round_tails(db)
        assert stored == games, f"{stored} games stored of {games}"
        return games, seconds, cpu, waits, tails
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
    deals of a round robin as a worker's task does (``tournaments.core.games.play_deals``,
    then ``tournaments.core.rounds.advance``), timing each step; prints one line of JSON,
    seconds per game."""
    import json

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.db import transaction

    from bohnanza_core import games as games_module
    from bohnanza_core.rulesets import ruleset_for
    from replays.store import games as store
    from tournaments.core import games as core_games
    from tournaments.core.entrants import entrants_for
    from tournaments.core.rounds import advance
    from tournaments.core.store import create
    from tournaments.tasks import batch_size

    spent = dict.fromkeys(STEPS, 0.0)

    def timed(step: str, function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            began, cpu = time.perf_counter(), time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[step] += time.perf_counter() - began
                spent[f"{step} CPU"] = (spent.get(f"{step} CPU", 0.0)
                                        + time.process_time() - cpu)
        return run

    core_games.play_bot_game = timed(STEPS[0], core_games.play_bot_game)  # type: ignore[assignment]
    games_module.Game.collect_rows = timed(  # type: ignore[method-assign]
        STEPS[1], games_module.Game.collect_rows)
    from replays.persistence import pgcopy

    the_store = store()
    the_store.save_games = timed("save", the_store.save_games)  # type: ignore[method-assign]
    spent["save"] = 0.0
    atomic = transaction.atomic

    # The store's counter row (replays/persistence/application_recorder.py): taken by the
    # UPDATE that follows the batch's encoding (replays/persistence/pgcopy.py), held until
    # the transaction commits; two workers' saves wait for each other there.
    binary_rows = pgcopy.binary_rows
    locked: list[float] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        encoded = binary_rows(*args, **kwargs)
        if not locked:
            locked.append(time.perf_counter())
        return encoded

    pgcopy.binary_rows = counted  # type: ignore[assignment]

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
                ended = time.perf_counter()
                spent["atomic exit"] = spent.get("atomic exit", 0.0) + ended - began
                if locked:
                    spent["locked"] = spent.get("locked", 0.0) + ended - locked.pop()

    core_games.transaction.atomic = TimedAtomic  # type: ignore[attr-defined]
    cycles = max(1, math.ceil(games / PER_CYCLE))
    cup = create("Breakdown Cup", "round-robin", {"cycles": cycles}, ruleset_for("classic", 4),
                 4, entrants_for(["heuristic"] * ENTRANTS))
    pending: list[tuple[int, int]] = [(0, d) for d in core_games.deals_of(cup, 0)]

    def queue(_: Any, round_number: int, deals: Any) -> None:
        pending.extend((round_number, d) for d in deals)

    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = int(cursor.fetchone()[0])

    def backend_cpu() -> float:
        """The CPU seconds of this connection's PostgreSQL backend (same machine)."""
        fields = Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    size = batch_size()
    played = 0
    cpu, server = time.process_time(), backend_cpu()
    began = time.perf_counter()
    while pending and played < games:
        round_number = pending[0][0]
        batch = [d for r, d in pending[:size] if r == round_number]
        del pending[:len(batch)]
        start = time.perf_counter()
        played += core_games.play_deals(cup.id, round_number, batch)
        middle = time.perf_counter()
        moved = advance(cup.id, queue)
        spent[STEPS[6] if moved else STEPS[5]] += time.perf_counter() - middle
        spent["play_deal"] = spent.get("play_deal", 0.0) + middle - start
    total = time.perf_counter() - began
    cpu, server = time.process_time() - cpu, backend_cpu() - server
    spent[STEPS[2]] = spent.pop("save") - spent[STEPS[1]]
    spent[STEPS[3]] = spent.pop("atomic exit")
    spent[STEPS[4]] = spent.pop("play_deal") - sum(spent[s] for s in STEPS[:4])
    print(json.dumps({"games": played, "total": total / played, "batch": size,
                      "cpu": cpu / played, "server": server / played,
                      "engine CPU": spent[f"{STEPS[0]} CPU"] / played,
                      "store CPU": spent["save CPU"] / played,
                      "locked": spent["locked"] / played,
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
    rest = steps["cpu"] - steps["engine CPU"] - steps["store CPU"]
    print(f"  CPU a game: this process {steps['cpu'] * 1000:.1f} ms (engine and bots "
          f"{steps['engine CPU'] * 1000:.1f}, the store's write {steps['store CPU'] * 1000:.1f}"
          f", the rest {rest * 1000:.1f}), its PostgreSQL backend "
          f"{steps['server'] * 1000:.1f} ms")
    print(f"  the store's counter row held (first insert to commit): "
          f"{steps['locked'] * 1000:.1f} ms a game, {steps['locked'] / total:.0%}")


def print_floor(steps: dict[str, float], one: float, two: float,
                spent: dict[str, float]) -> None:
    """What two cores of their own would allow, from CPU time (which other work on the
    cores inflates far less than wall time), against what the workers reached."""
    engine = steps["engine CPU"]
    total = sum(spent.values())
    print()
    print("the floor: 10,000 games on two cores of their own, from CPU time a game:")
    print(f"  engine and bots alone: {10_000 * engine / 2:.0f} s ({engine * 1000:.1f} ms a game)")
    print(f"  the whole game with two workers: {10_000 * total / 2:.0f} s ({total * 1000:.1f} ms "
          "a game: " + ", ".join(f"{part} {used * 1000:.1f}" for part, used in spent.items())
          + ")")
    print(f"  reached with two workers, the cores shared with other work: "
          f"{10_000 / two * 60:.0f} s; the run's games kept "
          f"{two / 60 * total:.2f} of the 2 cores busy")
    print(f"  one worker over Celery and Redis takes {60 / one * 1000:.1f} ms a game of wall "
          f"time, {steps['total'] * 1000:.1f} ms in one process without them")
    print(f"  two / one at most {steps['total'] / steps['locked']:.2f} by the store's counter "
          f"row ({steps['locked'] * 1000:.1f} ms a game that two workers cannot overlap), "
          f"2 by the cores")


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
    cpus: dict[int, list[dict[str, float]]] = {1: [], 2: []}
    for run in range(args.runs):
        for workers in (1, 2):
            games, seconds, cpu, waits, (tail, share) = one_run(workers, cycles)
            rate = games / seconds * 60
            rates[workers].append(rate)
            cpus[workers].append({part: used / games for part, used in cpu.items()})
            print(f"run {run + 1}: {workers} worker{'s' if workers > 1 else ''}: {games} games "
                  f"in {seconds:.1f} s = {rate:,.0f} games/min; CPU a game: "
                  + ", ".join(f"{part} {used / games * 1000:.1f} ms"
                              for part, used in cpu.items())
                  + f" (load average {os.getloadavg()[0]:.1f})", flush=True)
            print("  its PostgreSQL backends, ms a game (sampled): " + ", ".join(
                f"{wait} {used / games * 1000:.1f}" for wait, used in waits.items()),
                flush=True)
            if workers > 1:
                print(f"  a round's last task alone: {tail * 1000:.0f} ms a round on average,"
                      f" {share:.1%} of a round's time (from its first game's end to its "
                      "last)", flush=True)
    one, two = (sorted(rates[w])[len(rates[w]) // 2] for w in (1, 2))
    print()
    print(f"games per minute (median of {args.runs}): one worker {one:,.0f}, two workers "
          f"{two:,.0f}; two / one = {two / one:.2f} (target >= 1.7)")
    print(f"10,000 games with two workers: {10_000 / two * 60:.0f} s "
          f"({'measured rate of ' + str(cycles * PER_CYCLE) + '-game runs'}; target <= 60 s)")
    spent = {part: sorted(c[part] for c in cpus[2])[len(cpus[2]) // 2] for part in cpus[2][0]}
    if steps is not None:
        print_floor(steps, one, two, spent)
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
