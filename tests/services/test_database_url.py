"""``DATABASE_URL`` moves everything to PostgreSQL: the event store's tables, the read
models and the accounts. Run as the platform runs, in subprocesses: migrate, store a
bot game command by command, audit it; then look into PostgreSQL for it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest

from tests.services.conftest import require_service

ROOT = Path(__file__).resolve().parents[2]
HOST, PORT, USER = "127.0.0.1", 5432, "postgres"


@pytest.fixture
def database() -> Iterator[str]:
    require_service("PostgreSQL", HOST, PORT)
    name = f"bohnanza_url_{uuid4().hex[:10]}"
    with psycopg.connect(host=HOST, port=PORT, dbname="test", user=USER,
                         autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(host=HOST, port=PORT, dbname="test", user=USER,
                             autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _manage(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_database_url_puts_the_store_and_read_models_in_postgresql(
        database: str, tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": f"postgres://{USER}@{HOST}:{PORT}/{database}"}
    _manage("migrate", "--noinput", "-v0", env=env)
    _manage("createsuperuser", "--noinput", "--username", "arbiter",
            "--email", "a@example.org", env=env)
    script = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings');"
        "django.setup();"
        "from bohnanza_core import ruleset_for; from bohnanza_core.games import play_bot_game;"
        "from bohnanza_core.verify import verify_record; from replays.store import games;"
        "g = play_bot_game(games(), ruleset_for('classic', 3),"
        " ['heuristic', 'nontrading', 'random'], 'url');"
        "print(g.id); print(verify_record(games().record(g.id), g.head_hash).report())"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    game_id, verdict = done.stdout.split("\n", 1)
    assert verdict.startswith("VALID")
    with psycopg.connect(host=HOST, port=PORT, dbname=database, user=USER) as db:
        (events,) = db.execute(  # type: ignore[misc]
            "SELECT count(*) FROM games_events WHERE originator_id = %s", (game_id,)
        ).fetchone()
        (users,) = db.execute("SELECT count(*) FROM auth_user").fetchone()  # type: ignore[misc]
        (listed,) = db.execute(  # type: ignore[misc]
            "SELECT events FROM replays_gamesummary WHERE status = 'finished'"
        ).fetchone()
    assert events > 300 and users == 1
    assert listed == events  # the read model caught up, in PostgreSQL too
