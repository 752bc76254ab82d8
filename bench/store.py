"""Event store benchmark (prints figures; never a test).

    .venv/bin/python bench/store.py [--seconds 1.0] [--repeat 3] [--section NAME ...]

Sections (all by default):

- ``save``: events stored per second by our recorder (``replays.persistence``, on
  Django's connections) against the library's own, on the same database: the
  ``eventsourcing.sqlite`` recorder on the same SQLite file with the same settings
  (WAL, ``synchronous=NORMAL``, a 20 s busy timeout), and ``eventsourcing.postgres`` in
  the same PostgreSQL database ``test`` (127.0.0.1:5432, user ``postgres``), when it is
  reachable. Each insert is one new game's events, batched like a command's: 1, 10 or 100
  events in one transaction. The ratio is ours / theirs, measured side by side in one
  run (the two take turns in short slices; best of ``--repeat`` runs each); the target is
  at least 0.8.

- ``record``: bot games played through the store (``Games`` on our recorder) against the
  same games on the bare engine, game by game in turn; stored per command (a live table)
  and in one transaction at the end (a tournament game). Target: at most 2.0 times the
  engine's time on SQLite (issue 8's decision: one chained row per action costs about
  1.5 by itself; the salted commitments of hidden values add hashing). Then the same
  games again with the store's steps timed, to say where the extra time goes: chaining
  (canonical form, salted commitments and SHA-256 of every event), rows
  inserted, snapshots, the rest; and how far chaining and inserting alone, which one
  stored row per action cannot avoid, already take it.
- ``rebuild``: every step of stored games rebuilt (nearest snapshot + events); target
  p99 at most 5 ms.
- ``verify``: a whole stored game audited (read, chain, seed, shuffles, rules) and the
  same from its exported file; target at most 20 ms.
- ``follow``: two worker processes save bot games whole (a tournament's games), as fast
  as they can, for ``FOLLOW_SECONDS`` x ``--seconds``, while the game list's runner
  (``run_projections``'s, in this process) follows them. Prints the events saved and
  listed per second, the share of the time the runner was busy, and the lag from each
  game's save (its transaction committed) to the commit that lists it whole: p50, p99,
  max; target p99 under 1 s. On a machine with two cores the workers, the runner and
  PostgreSQL share them.

Django runs as deployed (DEBUG off: no query log). Everything is made in a temporary
SQLite file and a PostgreSQL schema of its own, both removed at the end.

To add a section: write ``def section_x(args, databases) -> bool`` (True when its targets
pass) and list it in ``SECTIONS``; ``databases`` gives the Django aliases to use.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connections  # noqa: E402
from eventsourcing.persistence import ApplicationRecorder, StoredEvent  # noqa: E402

from replays.persistence import DjangoApplicationRecorder, DjangoDatastore  # noqa: E402

PG = {"host": "127.0.0.1", "port": 5432, "dbname": "test", "user": "postgres"}
# The settings' embedded default (config/settings.py), for a file of our own.
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
BATCHES = (1, 10, 100)
SLICES = 5  # turns each recorder takes within one timed run
TARGET_RATIO = 0.8
TOPIC = "bohnanza_core.games:Game.Happened"
# About what one stored game event weighs (an engine event, its actor, the previous hash).
STATE = (b'{"event":{"_type_":"Planted","_data_":{"seat":2,"card":57,"field":1}},'
         b'"actor":"bot:heuristic","previous_hash":"' + b"9f" * 32 + b'",'
         b'"timestamp":"2026-01-01T00:00:00+00:00"}')


@dataclass
class Databases:
    """Where the sections run: Django aliases, and the library's own connection details."""

    sqlite_alias: str
    sqlite_path: Path
    postgres_alias: str | None = None
    postgres_schema: str | None = None
    notes: list[str] = field(default_factory=list)

    def aliases(self) -> list[tuple[str, str]]:
        """(label, alias) of every database available, SQLite first."""
        found = [("SQLite", self.sqlite_alias)]
        if self.postgres_alias:
            found.append(("PostgreSQL", self.postgres_alias))
        return found


def _add_alias(alias: str, settings_dict: dict[str, Any]) -> None:
    connections.settings[alias] = connections.configure_settings(
        {"default": settings_dict})["default"]


def _postgres_reachable() -> bool:
    try:
        with socket.create_connection((PG["host"], PG["port"]), timeout=2):
            return True
    except OSError:
        return False


@contextmanager
def databases() -> Iterator[Databases]:
    """A temporary SQLite file and, if PostgreSQL answers, a temporary schema in ``test``."""
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-store-")))
        path = folder / "store.sqlite3"
        _add_alias("bench_sqlite", {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path),
                                    "OPTIONS": dict(SQLITE_OPTIONS)})
        found = Databases(sqlite_alias="bench_sqlite", sqlite_path=path)
        stack.callback(connections["bench_sqlite"].close)
        if _postgres_reachable():
            import psycopg

            schema = f"bench_store_{uuid4().hex[:8]}"
            admin = psycopg.connect(**PG, autocommit=True)  # type: ignore[arg-type]
            admin.execute(f'CREATE SCHEMA "{schema}"')
            stack.callback(admin.close)
            stack.callback(admin.execute, f'DROP SCHEMA "{schema}" CASCADE')
            _add_alias("bench_postgres", {
                "ENGINE": "django.db.backends.postgresql", "NAME": PG["dbname"],
                "USER": PG["user"], "HOST": PG["host"], "PORT": str(PG["port"]),
                "OPTIONS": {"options": f"-c search_path={schema}"},
            })
            stack.callback(connections["bench_postgres"].close)
            found.postgres_alias, found.postgres_schema = "bench_postgres", schema
        else:
            found.notes.append(f"PostgreSQL not reachable at {PG['host']}:{PG['port']}: "
                               "its rows are missing")
        yield found


# --- measuring ---------------------------------------------------------------------------


def game_events(batch: int) -> list[StoredEvent]:
    """One new game's first ``batch`` events."""
    game = uuid4()
    return [StoredEvent(originator_id=game, originator_version=version, topic=TOPIC,
                        state=STATE) for version in range(1, batch + 1)]


def timed_slice(recorder: ApplicationRecorder, batch: int, seconds: float) -> tuple[int, float]:
    """Events stored and seconds taken, inserting ``batch`` at a time for about ``seconds``."""
    events = 0
    started = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        recorder.insert_events(game_events(batch))
        events += batch
        elapsed = time.perf_counter() - started
    return events, elapsed


def side_by_side(
    ours: ApplicationRecorder, theirs: ApplicationRecorder, batch: int, args: argparse.Namespace
) -> tuple[float, float]:
    """Best events/s of each over ``--repeat`` runs. Within a run the two take turns in
    ``SLICES`` short slices, so a noisy moment of the machine hits both alike."""
    recorders = (ours, theirs)
    for recorder in recorders:  # warm up: connections, caches, prepared statements
        for _ in range(20):
            recorder.insert_events(game_events(batch))
    best = [0.0, 0.0]
    for _ in range(args.repeat):
        events, elapsed = [0, 0], [0.0, 0.0]
        for _ in range(SLICES):
            for k, recorder in enumerate(recorders):
                got, took = timed_slice(recorder, batch, args.seconds / SLICES)
                events[k] += got
                elapsed[k] += took
        best = [max(best[k], events[k] / elapsed[k]) for k in (0, 1)]
    return best[0], best[1]


# --- section: save -----------------------------------------------------------------------


def library_sqlite_recorder(path: Path, table: str) -> ApplicationRecorder:
    """``eventsourcing.sqlite`` on the same file, with the same per-connection settings."""
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

    from bohnanza_core.fastpath import sqlite_connections_run

    datastore = SQLiteDatastore(str(path), lock_timeout=int(SQLITE_OPTIONS["timeout"]))
    # WAL it sets itself; synchronous as our settings have it.
    sqlite_connections_run(datastore, "PRAGMA synchronous=NORMAL")
    recorder = SQLiteApplicationRecorder(datastore, events_table_name=table)
    recorder.create_table()
    return recorder


def library_postgres_recorder(schema: str, table: str) -> ApplicationRecorder:
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    datastore = PostgresDatastore(dbname=PG["dbname"], host=PG["host"], port=PG["port"],
                                  user=PG["user"], password="", schema=schema)
    recorder = PostgresApplicationRecorder(datastore, events_table_name=table)
    recorder.create_table()
    return recorder


def section_save(args: argparse.Namespace, found: Databases) -> bool:
    print("Events saved per second, one new game per insert; ratio = ours / theirs "
          f"(target >= {TARGET_RATIO})\n")
    header = (f"{'database':<11} {'batch':>5} {'ours ev/s':>10} {'theirs ev/s':>12} "
              f"{'ratio':>6}  theirs")
    print(header)
    print("-" * len(header))
    failed = 0
    for label, alias in found.aliases():
        for batch in BATCHES:
            ours = DjangoApplicationRecorder(DjangoDatastore(alias),
                                             events_table_name=f"ours_{batch}_events")
            ours.create_table()
            if label == "SQLite":
                theirs = library_sqlite_recorder(found.sqlite_path, f"lib_{batch}_events")
                name = "eventsourcing.sqlite"
            else:
                assert found.postgres_schema is not None
                theirs = library_postgres_recorder(found.postgres_schema, f"lib_{batch}_events")
                name = "eventsourcing.postgres"
            try:
                ours_rate, theirs_rate = side_by_side(ours, theirs, batch, args)
            finally:
                ours.drop_table()
                theirs.datastore.close()  # type: ignore[attr-defined]
            ratio = ours_rate / theirs_rate
            failed += ratio < TARGET_RATIO
            print(f"{label:<11} {batch:>5} {ours_rate:>10,.0f} {theirs_rate:>12,.0f} "
                  f"{ratio:>6.2f}  {name}{'' if ratio >= TARGET_RATIO else '  BELOW TARGET'}")
    return not failed


# --- whole games: recording, rebuilding a step, verifying --------------------------------

RECORD_TARGET = 2.0  # stored bot game time / pure engine time, on SQLite
REBUILD_P99_MS = 5.0
VERIFY_MS = 20.0
LINEUP = ["heuristic", "heuristic", "nontrading", "heuristic"]  # a tournament table


def games_app(alias: str) -> Any:
    from bohnanza_core.games import Games

    return Games(env={"PERSISTENCE_MODULE": "replays.persistence", "DJANGO_DB_ALIAS": alias})


def section_record(args: argparse.Namespace, found: Databases) -> bool:
    """Bot games played through the store against the same games on the bare engine,
    alternating game by game so both see the same machine."""
    from bohnanza_core import ruleset_for
    from bohnanza_core.games import play_bot_game
    from bohnanza_core.simulator import bot_classes, play_game

    ruleset = ruleset_for("classic", len(LINEUP))
    classes = bot_classes(LINEUP)
    count = max(10, int(20 * args.seconds))
    print(f"Bot games (classic, {', '.join(LINEUP)}), {count} games per run, best of "
          f"{args.repeat}; ratio = stored / bare engine (target <= {RECORD_TARGET} on SQLite "
          "for a tournament game, stored in one transaction at its end)\n")
    header = (f"{'database':<11} {'stored':<12} {'engine ms':>9} {'stored ms':>9} "
              f"{'ratio':>6} {'events/game':>11}")
    print(header)
    print("-" * len(header))
    passed = True
    breakdown: list[str] = []
    for label, alias in found.aliases():
        app = games_app(alias)
        for each_command in (False, True):
            best_pure = best_stored = float("inf")
            events = 0
            for run in range(args.repeat):
                pure = stored = 0.0
                for i in range(count):
                    seed = f"bench-{label}-{each_command}-{run}-{i}"
                    started = time.perf_counter()
                    record = play_game(ruleset, classes, seed)
                    pure += time.perf_counter() - started
                    started = time.perf_counter()
                    play_bot_game(app, ruleset, LINEUP, seed, save_each_command=each_command)
                    stored += time.perf_counter() - started
                    events += len(record.events)
                best_pure = min(best_pure, pure / count)
                best_stored = min(best_stored, stored / count)
            ratio = best_stored / best_pure
            mode = "per command" if each_command else "per game"
            judged = label == "SQLite" and not each_command
            verdict = ("" if not judged else
                       "  ok" if ratio <= RECORD_TARGET else "  ABOVE TARGET")
            passed &= not judged or ratio <= RECORD_TARGET
            print(f"{label:<11} {mode:<12} {best_pure * 1000:>9.2f} {best_stored * 1000:>9.2f} "
                  f"{ratio:>6.2f} {events / (count * args.repeat):>11.0f}{verdict}")
        if label == "SQLite":
            breakdown.append(record_parts(app, count, args.repeat))
        app.close()
    for line in breakdown:
        print(line)
    return passed


class Parts:
    """Time spent in some methods while they run, each net of the others it calls (a
    snapshot chains first, a save inserts): where a stored game's extra time goes."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self._inner: list[float] = []
        self._undo: list[Callable[[], None]] = []

    def watch(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        on_class = isinstance(owner, type)
        own = original if not on_class else owner.__dict__[name]

        def timed(*args: Any, **kwargs: Any) -> Any:
            self._inner.append(0.0)
            started = time.perf_counter()
            try:
                return own(*args, **kwargs)
            finally:
                took = time.perf_counter() - started
                inner = self._inner.pop()
                self.totals[label] = self.totals.get(label, 0.0) + took - inner
                if self._inner:
                    self._inner[-1] += took

        setattr(owner, name, timed)
        self._undo.append((lambda: setattr(owner, name, own)) if on_class
                          else (lambda: delattr(owner, name)))

    def close(self) -> None:
        for undo in reversed(self._undo):
            undo()


def record_parts(app: Any, count: int, repeat: int) -> str:
    """Where the time of a game stored whole on SQLite goes beyond the engine's: the same
    games again, with the store's steps timed (the judged run above is not)."""
    from bohnanza_core import ruleset_for
    from bohnanza_core.games import Game, play_bot_game
    from bohnanza_core.simulator import bot_classes, play_game

    ruleset, classes = ruleset_for("classic", len(LINEUP)), bot_classes(LINEUP)
    parts = Parts()
    parts.watch(Game, "_seal", "chaining")
    parts.watch(app.recorder, "insert_events", "rows inserted")
    parts.watch(Game, "_snapshot", "snapshots")
    parts.watch(app.snapshots, "put", "snapshots")
    pure = stored = 0.0
    try:
        for run in range(repeat):
            for i in range(count):
                seed = f"bench-parts-{run}-{i}"
                started = time.perf_counter()
                play_game(ruleset, classes, seed)
                pure += time.perf_counter() - started
                started = time.perf_counter()
                play_bot_game(app, ruleset, LINEUP, seed, save_each_command=False)
                stored += time.perf_counter() - started
    finally:
        parts.close()
    games = count * repeat
    engine = pure / games
    share = {label: total / games for label, total in parts.totals.items()}
    rest = stored / games - engine - sum(share.values())
    named = ", ".join(f"{label} {t * 1000:.2f} ms ({t / engine:.2f})" for label, t in
                      [*share.items(), ("the rest", rest)])
    floor = 1 + (share.get("chaining", 0.0) + share.get("rows inserted", 0.0)) / engine
    return (f"\nSQLite per game, beyond the engine's {engine * 1000:.2f} ms (shares of it): "
            f"{named}.\nChaining every event and inserting its row, which one stored row "
            f"per action cannot do without, alone make {floor:.2f} times the engine's time.")


def _stored_games(app: Any, count: int) -> list[Any]:
    from bohnanza_core import ruleset_for
    from bohnanza_core.games import play_bot_game

    tables = [("classic", LINEUP), ("rio-grande", ["heuristic"] * 6), ("duel", LINEUP[:2]),
              ("finnish", LINEUP[:3]), ("amigo-en", [*LINEUP, "random"])]
    out = []
    for i in range(count):
        name, bots = tables[i % len(tables)]
        out.append(play_bot_game(app, ruleset_for(name, len(bots)), bots, f"rebuild-{i}",
                                 save_each_command=False))
    return out


def section_rebuild(args: argparse.Namespace, found: Databases) -> bool:
    """Every step of stored games rebuilt from the store (nearest snapshot + events)."""
    print(f"Rebuilding a step of a stored game (Games.game(id, step)): every step of 5 "
          f"games of each ruleset (target p99 <= {REBUILD_P99_MS} ms)\n")
    header = f"{'database':<11} {'steps':>6} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}"
    print(header)
    print("-" * len(header))
    passed = True
    for label, alias in found.aliases():
        app = games_app(alias)
        times: list[float] = []
        for game in _stored_games(app, 25):
            for step in range(1, game.version + 1):
                started = time.perf_counter()
                rebuilt = app.game(game.id, step)
                times.append(time.perf_counter() - started)
                assert rebuilt.version == step
        times.sort()
        p50, p99 = times[len(times) // 2] * 1000, times[int(len(times) * 0.99)] * 1000
        ok = p99 <= REBUILD_P99_MS
        passed &= ok
        print(f"{label:<11} {len(times):>6} {p50:>7.2f} {p99:>7.2f} {times[-1] * 1000:>7.2f}"
              f"{'  ok' if ok else '  ABOVE TARGET'}")
        app.close()
    return passed


def section_verify(args: argparse.Namespace, found: Databases) -> bool:
    """The whole audit of stored games: read the record, check chain, seed, shuffles and
    rules (and the same from an exported file)."""
    from bohnanza_core.export import export_record
    from bohnanza_core.verify import verify_record, verify_text

    print(f"Verifying a whole stored game (target <= {VERIFY_MS} ms per game)\n")
    header = (f"{'database':<11} {'games':>5} {'events':>7} {'record+verify ms':>16} "
              f"{'file verify ms':>14}")
    print(header)
    print("-" * len(header))
    passed = True
    for label, alias in found.aliases():
        app = games_app(alias)
        stored = _stored_games(app, 10)
        worst_record = worst_file = 0.0
        events = 0
        for game in stored:
            best_record = best_file = float("inf")
            for _ in range(args.repeat):
                started = time.perf_counter()
                entries = app.record(game.id)
                verdict = verify_record(entries, game.head_hash)
                best_record = min(best_record, time.perf_counter() - started)
                assert verdict.ok, verdict.report()
                text = export_record(entries)
                started = time.perf_counter()
                assert verify_text(text).ok
                best_file = min(best_file, time.perf_counter() - started)
            worst_record, worst_file = max(worst_record, best_record), max(worst_file, best_file)
            events = max(events, game.version)
        ok = worst_record * 1000 <= VERIFY_MS
        passed &= ok
        print(f"{label:<11} {len(stored):>5} {events:>7} {worst_record * 1000:>16.2f} "
              f"{worst_file * 1000:>14.2f}{'  ok' if ok else '  ABOVE TARGET'}  "
              "(worst game; events = the longest game)")
        app.close()
    return passed


# --- following the store: the game list under a tournament's load ------------------------

FOLLOW_SECONDS = 8.0
FOLLOW_WORKERS = 2
FOLLOW_LAG_P99 = 1.0


def _save_games(alias: str, stop: Any, saved: Any) -> None:
    """A worker process: bot games saved whole, one after another, until ``stop`` is
    set; ``(game id, last version, time saved)`` of each on ``saved``."""
    from bohnanza_core import ruleset_for
    from bohnanza_core.games import play_bot_game

    app = games_app(alias)
    ruleset = ruleset_for("classic", len(LINEUP))
    while not stop.is_set():
        game = play_bot_game(app, ruleset, LINEUP, save_each_command=False)
        saved.put((str(game.id), game.version, time.time()))
    app.close()
    connections.close_all()


@dataclass
class Followed:
    """One run of the ``follow`` section on one database."""

    games: int
    events: int
    saving: float  # seconds the workers saved
    following: float  # seconds until the list had everything
    busy: float  # seconds the runner spent on batches
    batches: int
    lags: list[float]  # per game, sorted


def follow_once(alias: str, seconds: float) -> Followed:
    """Two workers save for ``seconds`` while a GameListRunner follows, in this process."""
    import multiprocessing
    import queue

    from replays import projections

    app = games_app(alias)
    listed_at: dict[str, float] = {}
    busy = [0.0, 0.0]  # seconds processing, batches

    def seen(notifications: Any, committed_at: float) -> None:
        for n in notifications:
            listed_at[str(n.originator_id)] = committed_at
        busy[1] += 1

    context = multiprocessing.get_context("fork")
    previous_alias = settings.EVENT_STORE_DB_ALIAS
    settings.EVENT_STORE_DB_ALIAS = alias
    start_id = app.recorder.max_notification_id() or 0
    connections.close_all()  # nothing shared with the forked workers
    stop, saved = context.Event(), context.Queue()
    workers = [context.Process(target=_save_games, args=(alias, stop, saved))
               for _ in range(FOLLOW_WORKERS)]
    runner = projections.GameListRunner(app, on_batch=seen)
    process = runner._process

    def timed(batch: Any) -> None:
        started = time.perf_counter()
        process(batch)
        busy[0] += time.perf_counter() - started

    runner._process = timed  # type: ignore[method-assign]
    reported: list[tuple[str, int, float]] = []

    def collect(wait: float) -> None:
        with contextlib.suppress(queue.Empty):
            reported.append(saved.get(timeout=wait))

    began = time.perf_counter()
    for worker in workers:  # before the runner opens connections a child could close
        worker.start()
    try:
        with runner:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                collect(0.1)
            stop.set()
            while any(w.is_alive() for w in workers) or not saved.empty():
                collect(0.1)
            for worker in workers:
                worker.join()
            saving = time.perf_counter() - began
            end_id = app.recorder.max_notification_id() or 0
            runner.wait(end_id, timeout=300)
            following = time.perf_counter() - began
    finally:
        stop.set()
        for worker in workers:
            worker.join()
        settings.EVENT_STORE_DB_ALIAS = previous_alias
        app.close()
    lags = sorted(listed_at[game] - saved_at for game, _, saved_at in reported)
    return Followed(len(reported), end_id - start_id, saving, following, busy[0],
                    int(busy[1]), lags)


def section_follow(args: argparse.Namespace, found: Databases) -> bool:
    """The game list's runner against bot games saved at full speed by two processes."""
    from django.core.management import call_command

    seconds = FOLLOW_SECONDS * args.seconds
    print(f"The game list following {FOLLOW_WORKERS} processes that save bot games whole as "
          f"fast as they can, for {seconds:.0f} s; lag = from a game's save to the commit "
          f"that lists it whole (target p99 < {FOLLOW_LAG_P99:.0f} s)\n")
    header = (f"{'database':<11} {'games':>6} {'saved ev/s':>10} {'listed ev/s':>11} "
              f"{'busy':>5} {'ev/batch':>8} {'lag p50':>8} {'p99':>6} {'max':>6} "
              f"{'p99/target':>10}")
    print(header)
    print("-" * len(header))
    passed = True
    notes = []
    for label, alias in found.aliases():
        call_command("migrate", database=alias, verbosity=0)  # the game list's tables
        run = follow_once(alias, seconds)
        lags = run.lags
        p50, p99 = lags[len(lags) // 2], lags[min(len(lags) - 1, int(len(lags) * 0.99))]
        ok = p99 < FOLLOW_LAG_P99
        passed &= ok
        print(f"{label:<11} {run.games:>6} {run.events / run.saving:>10,.0f} "
              f"{run.events / run.following:>11,.0f} {run.busy / run.following:>5.0%} "
              f"{run.events / max(1, run.batches):>8.0f} {p50:>7.2f}s {p99:>5.2f}s "
              f"{lags[-1]:>5.2f}s {p99 / FOLLOW_LAG_P99:>10.2f}"
              f"{'  ok' if ok else '  ABOVE TARGET'}")
        notes.append(f"{label}: the runner lists {run.events / max(run.busy, 1e-9):,.0f} "
                     "events per second of its busy time")
    print("\n" + "; ".join(notes) + ".")
    return passed


SECTIONS: dict[str, Callable[[argparse.Namespace, Databases], bool]] = {
    "save": section_save,
    "record": section_record,
    "rebuild": section_rebuild,
    "verify": section_verify,
    "follow": section_follow,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per timed run")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--section", action="append", choices=sorted(SECTIONS),
                        help="run only these sections (repeatable); all by default")
    args = parser.parse_args()
    settings.DEBUG = False  # as deployed: Django logs no queries
    print(f"Python {sys.version.split()[0]}; Django {django.get_version()}; "
          f"best of {args.repeat} runs of {args.seconds:.1f}s\n")
    passed = True
    with databases() as found:
        for note in found.notes:
            print(f"note: {note}")
        for name in args.section or list(SECTIONS):
            print(f"== {name} ==")
            passed &= SECTIONS[name](args, found)
            print()
    print("targets: " + ("PASS" if passed else "FAIL"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
