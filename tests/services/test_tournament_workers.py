"""Competitions run by real Celery worker processes over Redis and over RabbitMQ, on
PostgreSQL, and one worker killed with SIGKILL in the middle: the competition still
completes, and every game of its pairings is in the store exactly once.

Each test has a database of its own (migrated by ``manage.py migrate``) and a queue of
its own on the broker; the workers are ``celery -A config worker`` processes as
production runs them, the competition is created by ``manage.py tournament create``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import psycopg
import pytest

from tests.services.conftest import POSTGRES, require_service

ROOT = Path(__file__).resolve().parents[2]
BROKERS = {
    "redis": ("Redis", "127.0.0.1", 6379, "redis://127.0.0.1:6379/0"),
    "rabbitmq": ("RabbitMQ", "127.0.0.1", 5672, "amqp://guest:guest@127.0.0.1:5672//"),
}
BOTS = "heuristic,nontrading,random,heuristic,nontrading,random"
GAMES = 60  # round robin of 6 at tables of 3: C(6, 3) x 3


def admin() -> psycopg.Connection[Any]:
    return psycopg.connect(**POSTGRES, autocommit=True)  # type: ignore[arg-type]


@pytest.fixture(params=list(BROKERS))
def platform(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of a platform on a fresh PostgreSQL database and a broker queue
    of its own, migrated."""
    service, host, port, url = BROKERS[request.param]
    require_service("PostgreSQL", POSTGRES["host"], POSTGRES["port"])
    require_service(service, host, port)
    name = f"bohnanza_cup_{uuid4().hex[:10]}"
    with admin() as db:
        db.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           "DATABASE_URL": f"postgres://{POSTGRES['user']}@{POSTGRES['host']}:"
                           f"{POSTGRES['port']}/{name}",
           "CELERY_BROKER_URL": url, "CELERY_QUEUE": f"test-{name}",
           "CELERY_VISIBILITY_TIMEOUT": "5", "DJANGO_LOG_LEVEL": "WARNING"}
    try:
        migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                                  cwd=ROOT, env=env, capture_output=True, text=True,
                                  timeout=300)
        assert migrated.returncode == 0, migrated.stderr
        yield env | {"DATABASE_NAME": name, "LOGS": str(tmp_path)}
    finally:
        if request.param == "rabbitmq":  # the queue goes with the test
            subprocess.run([sys.executable, "-m", "celery", "-A", "config", "purge", "-f",
                            "-Q", env["CELERY_QUEUE"]], cwd=ROOT, env=env,
                           capture_output=True, timeout=60, check=False)
        with admin() as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start_worker(env: dict[str, str], n: int) -> subprocess.Popen[str]:
    log = open(Path(env["LOGS"]) / f"worker-{n}.log", "w")  # noqa: SIM115 (the process's)
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
         "--loglevel", "INFO", "--without-mingle", "--without-gossip", "-n", f"w{n}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)


def query(env: dict[str, str], sql: str) -> Any:
    with psycopg.connect(**{**POSTGRES, "dbname": env["DATABASE_NAME"]}) as db:  # type: ignore[arg-type]
        row = db.execute(sql).fetchone()
        return row[0] if row else None


def stored(env: dict[str, str]) -> int:
    return int(query(env, "SELECT count(*) FROM tournaments_competitiongame"))


def finished(env: dict[str, str]) -> bool:
    return bool(query(env, "SELECT count(*) FROM tournaments_events "
                           "WHERE topic LIKE '%Competition.Finished'"))


def logs(env: dict[str, str]) -> str:
    return "\n".join(p.read_text() for p in sorted(Path(env["LOGS"]).glob("*.log")))


def test_workers_complete_a_competition_though_one_is_killed_mid_way(platform):
    workers = [start_worker(platform, 1), start_worker(platform, 2)]
    try:
        created = subprocess.run(
            [sys.executable, "manage.py", "tournament", "create", "--name", "Kill Cup",
             "--format", "round-robin", "--ruleset", "classic", "--table", "3",
             "--bots", BOTS, "--no-wait"],
            cwd=ROOT, env=platform, capture_output=True, text=True, timeout=120)
        assert created.returncode == 0, created.stderr
        match = re.search(r"created (\S+): (\d+) games", created.stdout)
        assert match and int(match[2]) == GAMES, created.stdout
        deadline = time.monotonic() + 120
        while stored(platform) < 8:
            assert time.monotonic() < deadline, logs(platform)
            time.sleep(0.05)
        workers[0].send_signal(signal.SIGKILL)  # mid-way, most likely mid-game
        workers[0].wait(timeout=30)
        assert workers[0].returncode == -signal.SIGKILL
        workers.append(start_worker(platform, 3))
        deadline = time.monotonic() + 240
        while not finished(platform):
            assert time.monotonic() < deadline, (
                f"{stored(platform)} of {GAMES} games stored\n" + logs(platform))
            time.sleep(0.2)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
    # every pairing's game in the store once: no game lost, none recorded twice
    assert stored(platform) == GAMES
    assert query(platform, "SELECT count(DISTINCT originator_id) FROM games_events") == GAMES
    assert query(platform, "SELECT count(*) FROM games_events e WHERE originator_version = 1 "
                           "AND NOT EXISTS (SELECT 1 FROM tournaments_competitiongame t "
                           "WHERE t.game_id = e.originator_id)") == 0
    shown = subprocess.run([sys.executable, "manage.py", "tournament", "show", match[1]],
                           cwd=ROOT, env=platform, capture_output=True, text=True, timeout=60)
    assert f"{GAMES}/{GAMES} games, finished" in shown.stdout
