"""One beat, however the workers are started.

Celery's beat sends the periodic tasks (the ladders' ticks, the leagues' collections,
django-celery-beat's schedules in the database). Two beats on one schedule send every
tick twice, so each beat takes *the beat lock* before its first tick and holds it for
as long as it lives:

- the embedded default (SQLite): an exclusive ``flock`` on a file beside the database
  file (``<database>-beat.lock``), so every beat of every worker on that database, on
  this machine, shares it;
- PostgreSQL: a session-level advisory lock on a connection of the beat's own, so the
  beats of workers on any number of machines share it.

A beat that finds the lock taken says so once and waits for it, without ticking; the
kernel (a file lock) or PostgreSQL (a closed session) releases a lock whose holder
died, however it died, and the waiting beat then takes over. ``run.py start``'s worker
embeds its beat (``--beat``): a second worker started the same way has a waiting beat,
never a second scheduler.

An embedded beat is a child process of the worker (``celery.beat.EmbeddedService``);
unlike the pool's children, which billiard ties to the worker with the kernel's
parent-death signal, Celery leaves the beat to outlive a worker killed with SIGKILL,
holding the lock with nobody to stop it. :func:`tie_to_worker` ties it the same way.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)

WATCH_SECONDS = 1.0
"""How often an embedded beat off Linux looks whether its worker is still there."""
CHECK_SECONDS = 30.0
"""How often a beat holding the PostgreSQL lock checks that its session still lives."""


class BeatLock(Protocol):
    """An exclusive lock held from :meth:`acquire` until the process ends."""

    where: str

    def try_acquire(self) -> bool:
        """Take the lock if it is free; ``False`` if another beat holds it."""

    def acquire(self) -> None:
        """Wait until the lock is free, and take it."""

    def holder(self) -> str:
        """Who holds it, as far as can be told (for the log)."""


class FileLock:
    """``flock`` on a file: released by the kernel when the holding process dies. The
    file holds the holder's pid, for the waiting beats' log only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self._fd: int | None = None

    def _open(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    def _taken(self) -> None:
        fd = self._open()
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)

    def try_acquire(self) -> bool:
        try:
            fcntl.flock(self._open(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self._taken()
        return True

    def acquire(self) -> None:
        fcntl.flock(self._open(), fcntl.LOCK_EX)
        self._taken()

    def holder(self) -> str:
        with contextlib.suppress(OSError, ValueError):
            return f"pid {int(self.path.read_text().strip())}"
        return "another process"


class AdvisoryLock:
    """A PostgreSQL session-level advisory lock on a connection of its own (not one of
    Django's, which its pool lends and takes back): released when the session ends.
    Should that session end under a running beat (the database restarted), the lock
    is no longer held, so the beat stops at once rather than tick beside another."""

    def __init__(self, alias: str, key: int, check_seconds: float = CHECK_SECONDS,
                 on_lost: Callable[[], None] | None = None) -> None:
        from django.db import connections

        self.alias = alias
        self.key = key
        self.where = (f"PostgreSQL advisory lock {key} on database "
                      f"{connections[alias].settings_dict.get('NAME')}")
        self.check_seconds = check_seconds
        self.on_lost = on_lost or _stop_this_process
        self._connection: Any = None
        self._released = threading.Event()

    def _connect(self) -> Any:
        import psycopg
        from django.db import connections

        if self._connection is None:
            # Django's own parameters for the alias (host, user, options...), less its pool.
            params = connections[self.alias].get_connection_params()
            params.setdefault("application_name", "bohnanza celery beat")
            self._connection = psycopg.connect(**params, autocommit=True)
        return self._connection

    def try_acquire(self) -> bool:
        row = self._connect().execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()
        if row and row[0]:
            self._watch()
            return True
        return False

    def acquire(self) -> None:
        self._connect().execute("SELECT pg_advisory_lock(%s)", (self.key,))
        self._watch()

    def holder(self) -> str:
        row = self._connect().execute(
            "SELECT a.pid, a.client_addr, a.application_name FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
            "AND l.granted AND l.objsubid = 1 AND l.classid::bigint = %s "
            "AND l.objid::bigint = %s",
            ((self.key >> 32) & 0xFFFFFFFF, self.key & 0xFFFFFFFF)).fetchone()
        if row is None:
            return "another session"
        return f"backend {row[0]} ({row[2] or 'no name'}, {row[1] or 'local'})"

    def _watch(self) -> None:
        threading.Thread(target=self._keep, daemon=True, name="beat-lock").start()

    def _keep(self) -> None:
        """Every ``check_seconds`` until :meth:`release`: the session still lives, or
        ``on_lost``."""
        while not self._released.wait(self.check_seconds):
            try:
                self._connection.execute("SELECT 1")
            except Exception:
                if self._released.is_set():  # closed by release() meanwhile
                    return
                log.critical("beat: lost the database session that held %s; this beat "
                             "stops so that another can take over", self.where)
                self.on_lost()
                return

    def release(self) -> None:
        """Close the session (and so free the lock); the check stops."""
        self._released.set()
        if self._connection is not None:
            self._connection.close()


def _stop_this_process() -> None:
    """SIGTERM to this process: a beat's (standalone or embedded) way to stop."""
    os.kill(os.getpid(), signal.SIGTERM)


def advisory_key(queue: str) -> int:
    """A signed 64-bit key named after the platform's queue: platforms that share a
    database but not a queue (CELERY_QUEUE) keep a beat each."""
    digest = hashlib.sha256(f"bohnanza celery beat {queue}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_for(alias: str, queue: str) -> BeatLock:
    """The beat lock of the schedule in the database ``alias`` (of Django's DATABASES)."""
    from django.db import connections

    database = connections[alias].settings_dict
    engine = database["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        return FileLock(Path(f"{database['NAME']}-beat.lock"))
    if engine == "django.db.backends.postgresql":
        return AdvisoryLock(alias, advisory_key(queue))
    raise RuntimeError(f"no beat lock for the database engine {engine}")


_held: list[BeatLock] = []
"""The lock this process holds (kept referenced: its file or session is the lock)."""


def hold_the_beat_lock(lock: BeatLock) -> None:
    """Take ``lock``, waiting for it if another beat holds it; this beat ticks only
    afterwards."""
    if not lock.try_acquire():
        log.warning("beat: another beat holds %s (%s); this one waits and takes over "
                    "when it stops", lock.where, lock.holder())
        lock.acquire()
    _held.append(lock)
    log.info("beat: holds %s; sending the periodic tasks", lock.where)


def tie_to_worker(worker: int) -> None:
    """In an embedded beat (a child of the worker process ``worker``): die with the
    worker. Linux: the kernel's parent-death signal (SIGKILL, as billiard gives the
    pool's children), then a check that the worker did not die before it was set.
    Elsewhere: a thread that looks every :data:`WATCH_SECONDS`."""
    if sys.platform.startswith("linux"):
        # celery 5.7 has it; celery-types 0.26 does not declare it.
        from celery.platforms import set_pdeathsig  # type: ignore[attr-defined]

        set_pdeathsig("SIGKILL")
    else:
        def watch() -> None:
            while os.getppid() == worker:
                time.sleep(WATCH_SECONDS)
            os.kill(os.getpid(), signal.SIGKILL)

        threading.Thread(target=watch, daemon=True, name="worker-watchdog").start()
    if os.getppid() != worker:
        os._exit(1)
