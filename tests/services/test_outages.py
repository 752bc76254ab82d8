"""Bot games saved and followed into the game list while PostgreSQL drops every
connection, and once refuses new ones for a while (issue 9, item 4).

A worker process saves bot games whole (``tests/services/bot_worker.py``, through
``replays.outages.reconnecting``) and ``manage.py run_projections`` follows them, both on
a database of this test's own. Meanwhile every connection to that database is
terminated (``pg_terminate_backend``) again and again, and once the database refuses
connections until both processes have noticed. Afterwards every stored game is whole,
verifies, and is listed exactly once; both processes said in their logs that the
database went away and came back. Only this test's database is touched: the server is
never restarted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any
from uuid import UUID, uuid4

import psycopg
import pytest

from bohnanza_core.events import GameEnded
from bohnanza_core.verify import verify_record
from replays.models import GameSummary, SeatSummary
from tests.replays.persistence_cases import database_alias
from tests.replays.race_cases import store_on
from tests.services.conftest import POSTGRES, require_service

ROOT = Path(__file__).resolve().parents[2]
GAMES = 24
TERMINATE_AFTER = (3, 7, 11, 18, 22)  # games reported, each time
OUTAGE_AFTER = 14


def admin() -> psycopg.Connection[Any]:
    return psycopg.connect(**POSTGRES, autocommit=True)  # type: ignore[arg-type]


@pytest.fixture
def database() -> Iterator[str]:
    require_service("PostgreSQL", POSTGRES["host"], POSTGRES["port"])
    name = f"bohnanza_outage_{uuid4().hex[:10]}"
    with admin() as db:
        db.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with admin() as db:
            db.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def terminate(name: str) -> None:
    with admin() as db:
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                   "WHERE datname = %s AND pid <> pg_backend_pid()", [name])


def allow_connections(name: str, allowed: bool) -> None:
    with admin() as db:
        db.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allowed).lower()}')


def eventually(predicate: Callable[[], bool], what: str, timeout: float = 120.0,
               report: Callable[[], str] = str) -> None:
    """Poll ``predicate`` until it holds; fail after ``timeout`` seconds, with
    ``report()``."""
    deadline = time.monotonic() + timeout
    tick = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{report()}")
        tick.wait(0.05)


def position(name: str) -> tuple[int | None, int | None]:
    """(the last event stored, the last event the game list has processed)."""
    with psycopg.connect(**{**POSTGRES, "dbname": name}) as db:  # type: ignore[arg-type]
        (stored,) = db.execute("SELECT MAX(notification_id) FROM games_events").fetchone()  # type: ignore[misc]
        row = db.execute("SELECT notification_id FROM gamelist_tracking "
                         "WHERE application_name = 'Games'").fetchone()
    return stored, None if row is None else row[0]


def test_games_saved_and_listed_through_outages_are_whole_and_listed_once(
        database: str, tmp_path: Path, django_db_blocker: Any) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "READ_MODELS_CATCH_UP": "0",
           "DATABASE_URL": f"postgres://{POSTGRES['user']}@{POSTGRES['host']}:"
                           f"{POSTGRES['port']}/{database}"}
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert migrated.returncode == 0, migrated.stderr
    logs = {name: tmp_path / f"{name}.log" for name in ("projections", "worker")}
    files: list[IO[str]] = [logs[name].open("w") for name in ("projections", "worker")]
    projections = subprocess.Popen(
        [sys.executable, "manage.py", "run_projections", "--report-every", "1"], cwd=ROOT,
        env=env, stdout=subprocess.PIPE, stderr=files[0], text=True)
    worker = subprocess.Popen([sys.executable, "-m", "tests.services.bot_worker", str(GAMES)],
                              cwd=ROOT, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=files[1], text=True)
    reported: list[str] = []
    other: list[str] = []
    try:
        assert projections.stdout is not None and worker.stdout is not None
        assert "Ctrl-C to stop" in projections.stdout.readline()
        assert worker.stdin is not None

        def next_game() -> None:
            worker.stdin.write("\n")  # type: ignore[union-attr]
            worker.stdin.flush()  # type: ignore[union-attr]

        next_game()
        for line in worker.stdout:
            try:  # a game's id; anything else the worker printed is kept for the report
                reported.append(str(UUID(line.strip())))
            except ValueError:
                other.append(line)
                continue
            if len(reported) in TERMINATE_AFTER:
                terminate(database)
            if len(reported) == OUTAGE_AFTER:  # the database away until both noticed
                allow_connections(database, False)
                terminate(database)
                next_game()  # which the worker cannot store until the database is back
                eventually(lambda: all("waiting for it" in logs[n].read_text()
                                       for n in logs), "both processes to notice",
                           report=lambda: "".join(other) + "\n".join(
                               f"{n}: {logs[n].read_text()[-3000:]}" for n in logs))
                allow_connections(database, True)
            elif len(reported) < GAMES:
                next_game()
        assert worker.wait(timeout=120) == 0, logs["worker"].read_text()
        stored, _ = position(database)
        eventually(lambda: position(database)[1] == stored, "the game list to catch up")
        projections.send_signal(signal.SIGINT)
        out, _ = projections.communicate(timeout=60)
        assert projections.returncode == 0, logs["projections"].read_text()
        assert f"stopped after event {stored}." in out
    finally:
        for process in (worker, projections):
            if process.poll() is None:
                process.kill()
                process.wait()
        for file in files:
            file.close()
    for name in logs:
        log = logs[name].read_text()
        assert "the database is unavailable" in log and "is back after" in log, log
    projections_log = logs["projections"].read_text()
    assert "events/s" in projections_log  # it reported its rate and lag
    assert "Traceback" not in projections_log

    settings_dict = {"ENGINE": "django.db.backends.postgresql", "NAME": database,
                     "USER": POSTGRES["user"], "HOST": POSTGRES["host"],
                     "PORT": str(POSTGRES["port"])}
    with django_db_blocker.unblock(), database_alias("outage_check", settings_dict):
        app = store_on("outage_check")
        log = app.recorder.select_notifications(start=None, limit=1_000_000)
        assert [n.id for n in log] == list(range(1, len(log) + 1))
        game_ids = list(dict.fromkeys(n.originator_id for n in log))
        assert {str(g) for g in game_ids} >= set(reported) and len(reported) == GAMES
        listed = {row.game_id: row for row in
                  GameSummary.objects.using("outage_check").all()}
        assert set(listed) == set(game_ids)  # every game once, nothing else
        for game_id in game_ids:
            assert isinstance(game_id, UUID)
            record = app.record(game_id)
            assert [e.seq for e in record] == list(range(1, len(record) + 1))
            assert isinstance(record[-1].event, GameEnded)  # whole: played to its end
            verdict = verify_record(record, app.game(game_id).head_hash)
            assert verdict.ok, verdict.report()
            row = listed[game_id]
            assert (row.status, row.events, row.tournament) == ("finished", len(record),
                                                                "Outage Cup")
            assert SeatSummary.objects.using("outage_check").filter(game_id=game_id).count() == 4
        app.close()
