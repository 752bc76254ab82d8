"""The beat lock on PostgreSQL (config/beat.py): one holder across sessions (so across
machines), free again when the holder's session ends, and a holder that loses its
session told so. Each test's key is its own, so runs never share a lock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from uuid import uuid4

import psycopg
import pytest

from config.beat import AdvisoryLock, advisory_key, lock_for
from tests.services.conftest import POSTGRES, postgres_schema_alias

ALIAS = "beat_lock"
DEADLINE_SECONDS = 10.0


@pytest.fixture
def alias(django_db_blocker: Any) -> Iterator[str]:
    with postgres_schema_alias(ALIAS, "beat_lock", django_db_blocker) as name:
        yield name


@pytest.fixture(params=[1, -1], ids=["positive key", "negative key"])
def key(request: pytest.FixtureRequest) -> int:
    """A key of the test's own, of either sign (the lock's 64 bits are signed)."""
    return request.param * (abs(advisory_key(f"test-{uuid4().hex}")) >> 1 | 1)


def eventually(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_one_session_holds_it_and_the_next_takes_over_when_it_ends(alias: str,
                                                                    key: int) -> None:
    lost = threading.Event()
    first, second = (AdvisoryLock(alias, key, check_seconds=0.05, on_lost=lost.set)
                     for _ in range(2))
    try:
        assert first.try_acquire()
        assert not second.try_acquire()
        assert f"backend {first._connect().info.backend_pid} " in second.holder()
        taken = threading.Event()
        waiting = threading.Thread(target=lambda: (second.acquire(), taken.set()), daemon=True)
        waiting.start()
        assert not taken.wait(0.5), "the second took a lock the first holds"
        first.release()  # as when the holder's process dies: its session ends
        eventually(taken.is_set, "the waiting beat never took the lock over")
        # Its check (every 0.05 s) stopped with it: a lock released on purpose is no loss
        # (a check that went on would stop the process it runs in).
        assert not lost.wait(0.3)
    finally:
        first.release()
        second.release()


def test_a_holder_that_loses_its_session_is_told(alias: str, key: int) -> None:
    lost = threading.Event()
    lock = AdvisoryLock(alias, key, check_seconds=0.1, on_lost=lost.set)
    try:
        assert lock.try_acquire()
        backend = lock._connect().info.backend_pid
        with psycopg.connect(**POSTGRES, autocommit=True) as admin:  # type: ignore[arg-type]
            admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
        eventually(lost.is_set, "the beat went on without its lock")
    finally:
        lock.release()


def test_the_platforms_database_chooses_the_advisory_lock(alias: str) -> None:
    """(Only chosen: taking it would tie this test process to the lock's session.)"""
    lock = lock_for(alias, "bohnanza")
    assert isinstance(lock, AdvisoryLock) and lock.key == advisory_key("bohnanza")
