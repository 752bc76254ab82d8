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

Django runs as deployed (DEBUG off: no query log). Everything is made in a temporary
SQLite file and a PostgreSQL schema of its own, both removed at the end.

To add a section: write ``def section_x(args, databases) -> bool`` (True when its targets
pass) and list it in ``SECTIONS``; ``databases`` gives the Django aliases to use.
"""

from __future__ import annotations

import argparse
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

    datastore = SQLiteDatastore(str(path), lock_timeout=int(SQLITE_OPTIONS["timeout"]))
    pool = datastore.pool
    create = pool._create_connection

    def create_like_ours() -> Any:  # WAL it sets itself; synchronous as our settings have it
        connection = create()
        connection._sqlite_conn.execute("PRAGMA synchronous=NORMAL")
        return connection

    pool._create_connection = create_like_ours  # type: ignore[method-assign]
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


SECTIONS: dict[str, Callable[[argparse.Namespace, Databases], bool]] = {
    "save": section_save,
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
