"""Fixtures of the tournaments app: the store's applications afresh for each test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connection

from config.celery import app
from replays.store import reset_games
from tournaments.core.store import Competitions, reset_competitions
from tournaments.core.store import competitions as stored_competitions


def wipe_competitions() -> None:
    """Empty the competitions' store tables (a transactional test's flush empties only
    the models' tables)."""
    with connection.cursor() as cursor:
        for table in ("tournaments_events", "tournaments_snapshots"):
            cursor.execute(f"DELETE FROM {table}")


@pytest.fixture
def competitions(transactional_db: None) -> Iterator[Competitions]:
    """The competitions' application on the test database, committed (a worker thread
    reads it), emptied before and after."""
    reset_games()
    reset_competitions()
    wipe_competitions()
    yield stored_competitions()
    reset_competitions()
    reset_games()
    wipe_competitions()


def _forget_connections() -> None:
    """Forget the app's cached broker connections and producers, which remember the
    broker they were made for: the next message makes new ones."""
    app._pool = None
    app.amqp._producer_pool = None


@contextmanager
def celery_conf(**changes: Any) -> Iterator[None]:
    """The Celery app with ``changes`` for a test, put back after."""
    saved = {key: app.conf[key] for key in changes}
    _forget_connections()
    app.conf.update(changes)
    try:
        yield
    finally:
        _forget_connections()
        app.conf.update(saved)


@pytest.fixture
def worker(competitions: Competitions) -> Iterator[Competitions]:
    """A real Celery worker (celery.contrib.testing: a thread) on an in-memory broker of
    its own process. The embedded default's ``broker_transport`` (the filesystem
    transport, config/settings.py) is put aside too: kombu lets a named transport win
    over the URL's scheme, so "memory://" alone would share var/celery/queue/ with the
    other test processes, whose workers took this one's tasks."""
    with celery_conf(broker_url="memory://localhost/", broker_transport=None,
                     result_backend="cache+memory://"), \
            start_worker(app, pool="solo", perform_ping_check=False, loglevel="warning"):
        with app.connection_for_write() as connection:
            assert connection.transport.driver_type == "memory", connection.transport
        yield competitions
