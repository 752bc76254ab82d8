"""Tests against real services: PostgreSQL, Redis, RabbitMQ.

A test (or fixture) that needs one calls ``require_service`` first. Where the service
is not reachable the test skips with the reason, unless BOHNANZA_REQUIRE_SERVICES=1
(as .ci/run sets), where it fails instead.
"""

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

CONNECT_TIMEOUT_SECONDS = 2.0


def services_required() -> bool:
    """Whether a missing service is a failure rather than a reason to skip."""
    return os.environ.get("BOHNANZA_REQUIRE_SERVICES") == "1"


def require_service(name: str, host: str, port: int) -> None:
    """Return if a TCP connection to host:port opens; otherwise skip (or fail) the test.

    This checks reachability only: that something accepts connections on the port,
    not that it speaks the service's protocol or lets us in.
    """
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_SECONDS):
            return
    except OSError as error:
        reason = f"{name} not reachable at {host}:{port} ({error.__class__.__name__}: {error})"
    if services_required():
        pytest.fail(f"{reason}; BOHNANZA_REQUIRE_SERVICES=1 requires it", pytrace=False)
    pytest.skip(reason)


POSTGRES = {"host": "127.0.0.1", "port": 5432, "dbname": "test", "user": "postgres"}
"""The machine's PostgreSQL (trust auth); tests work in schemas or databases of their own."""


@contextmanager
def postgres_schema_alias(alias: str, prefix: str, django_db_blocker: Any) -> Iterator[str]:
    """A Django database alias on a fresh schema of the ``test`` database, dropped after:
    PostgreSQL tests never touch each other's tables or anyone else's."""
    import psycopg

    from tests.replays.persistence_cases import database_alias

    require_service("PostgreSQL", POSTGRES["host"], POSTGRES["port"])
    schema = f"{prefix}_{uuid4().hex[:12]}"
    admin = psycopg.connect(**POSTGRES, autocommit=True)  # type: ignore[arg-type]
    admin.execute(f'CREATE SCHEMA "{schema}"')
    settings_dict = {
        "ENGINE": "django.db.backends.postgresql", "NAME": POSTGRES["dbname"],
        "USER": POSTGRES["user"], "HOST": POSTGRES["host"], "PORT": str(POSTGRES["port"]),
        "OPTIONS": {"options": f"-c search_path={schema}", "application_name": schema},
    }
    try:
        with django_db_blocker.unblock(), database_alias(alias, settings_dict):
            yield alias
    finally:
        admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        admin.close()


@contextmanager
def postgres_default(prefix: str, django_db_blocker: Any) -> Iterator[str]:
    """The platform's ``default`` database moved, for the duration, to a fresh schema of
    the ``test`` database, migrated: everything the platform reads and writes (the event
    store, the read models, accounts, sessions, tables) goes to PostgreSQL, in this
    process, as with a PostgreSQL ``DATABASE_URL``. The schema's name is yielded; it is
    dropped afterwards and the test database of the other tests put back."""
    import psycopg
    from django.core.management import call_command
    from django.db import connections

    require_service("PostgreSQL", POSTGRES["host"], POSTGRES["port"])
    schema = f"{prefix}_{uuid4().hex[:12]}"
    admin = psycopg.connect(**POSTGRES, autocommit=True)  # type: ignore[arg-type]
    admin.execute(f'CREATE SCHEMA "{schema}"')
    saved = connections.settings["default"]
    postgres = connections.configure_settings({"default": {
        "ENGINE": "django.db.backends.postgresql", "NAME": POSTGRES["dbname"],
        "USER": POSTGRES["user"], "HOST": POSTGRES["host"], "PORT": str(POSTGRES["port"]),
        "OPTIONS": {"options": f"-c search_path={schema}", "application_name": schema},
    }})["default"]
    try:
        with django_db_blocker.unblock():
            connections["default"].close()
            del connections["default"]  # this thread's wrapper, on the old settings
            connections.settings["default"] = postgres
            try:
                call_command("migrate", interactive=False, verbosity=0)
                yield schema
            finally:
                connections["default"].close()
                del connections["default"]
                connections.settings["default"] = saved
    finally:
        admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        admin.close()


# --- A platform run by Celery worker processes ----------------------------------------

ROOT = Path(__file__).resolve().parents[2]
BROKERS = {
    "redis": ("Redis", "127.0.0.1", 6379, "redis://127.0.0.1:6379/0"),
    "rabbitmq": ("RabbitMQ", "127.0.0.1", 5672, "amqp://guest:guest@127.0.0.1:5672//"),
}


@pytest.fixture(params=list(BROKERS))
def celery_platform(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of a platform on a fresh PostgreSQL database and a broker queue
    of its own, migrated: for ``manage.py`` commands and :func:`start_worker`. A dead
    worker's tasks come back within seconds (Redis: a visibility timeout of 5 s)."""
    import psycopg

    service, host, port, url = BROKERS[request.param]
    require_service("PostgreSQL", POSTGRES["host"], POSTGRES["port"])
    require_service(service, host, port)
    name = f"bohnanza_cup_{uuid4().hex[:10]}"
    with psycopg.connect(**POSTGRES, autocommit=True) as db:  # type: ignore[arg-type]
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
        with psycopg.connect(**POSTGRES, autocommit=True) as db:  # type: ignore[arg-type]
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start_worker(env: dict[str, str], n: int) -> subprocess.Popen[str]:
    """A ``celery -A config worker`` process as production runs one (a solo pool), in a
    process group of its own (``os.killpg(worker.pid, ...)`` reaches all of it), its
    output in ``worker-<n>.log`` under ``env["LOGS"]``."""
    log = open(Path(env["LOGS"]) / f"worker-{n}.log", "w")  # noqa: SIM115 (the process's)
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
         "--loglevel", "INFO", "--without-mingle", "--without-gossip", "-n", f"w{n}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)


def query(env: dict[str, str], sql: str) -> Any:
    """The first column of the first row ``sql`` finds in the platform's database."""
    import psycopg

    with psycopg.connect(**{**POSTGRES, "dbname": env["DATABASE_NAME"]}) as db:  # type: ignore[arg-type]
        row = db.execute(sql).fetchone()
        return row[0] if row else None


def logs(env: dict[str, str]) -> str:
    """Every worker's log so far."""
    return "\n".join(p.read_text() for p in sorted(Path(env["LOGS"]).glob("*.log")))
