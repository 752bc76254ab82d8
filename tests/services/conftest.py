"""Tests against real services: PostgreSQL, Redis, RabbitMQ.

A test (or fixture) that needs one calls ``require_service`` first. Where the service
is not reachable the test skips with the reason, unless BOHNANZA_REQUIRE_SERVICES=1
(as .ci/run sets), where it fails instead.
"""

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
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
