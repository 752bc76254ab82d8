"""Following an application's events as they are stored: ``subscribe()``.

A puller thread selects new notifications whenever woken, and at least every
``poll_interval`` seconds. PostgreSQL wakes it by LISTEN on a dedicated connection
(inserts NOTIFY in their transaction, so the wake comes at commit); SQLite has no such
channel, so inserts in this process ring a :class:`Doorbell` after commit, and the poll
picks up other processes' inserts. The puller itself is the library's
(``ListenNotifySubscription``), opened up by :class:`bohnanza_core.fastpath.
BatchedSubscription`, which also hands out what it pulled in batches.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from django.db import connections
from eventsourcing.persistence import ApplicationRecorder

from bohnanza_core.fastpath import BatchedSubscription
from replays.persistence.datastore import DjangoDatastore
from replays.persistence.errors import ConnectionLost

try:  # PostgreSQL is optional: the embedded default needs only SQLite.
    import psycopg
    from psycopg import sql as pg_sql
except ImportError:  # pragma: no cover
    psycopg = None  # type: ignore[assignment]


class Doorbell:
    """In-process wake-up for subscriptions: a condition and a count of rings."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.rings = 0

    def ring(self) -> None:
        with self.condition:
            self.rings += 1
            self.condition.notify_all()

    def wait(self, seen: int, timeout: float, stopped: threading.Event) -> int:
        """Wait until rung after ``seen`` rings, ``timeout`` passes or ``stopped`` is set."""
        with self.condition:
            self.condition.wait_for(lambda: self.rings != seen or stopped.is_set(), timeout)
            return self.rings


_doorbells: dict[tuple[str, str], Doorbell] = {}
_doorbells_lock = threading.Lock()


def doorbell_for(database: str, table: str) -> Doorbell:
    """The process's doorbell of one events table, which its recorders ring after each
    commit on SQLite."""
    with _doorbells_lock:
        return _doorbells.setdefault((database, table), Doorbell())


class DjangoSubscription(BatchedSubscription[ApplicationRecorder]):
    """Yields notifications after ``gt``, then blocks for new ones: see the module.
    ``datastore``, ``doorbell`` and ``channel`` are the recorder's (its table's doorbell,
    its NOTIFY channel)."""

    def __init__(
        self, recorder: ApplicationRecorder, *, datastore: DjangoDatastore,
        doorbell: Doorbell, channel: str, gt: int | None = None, topics: Sequence[str] = (),
    ) -> None:
        # Set before the base class starts the puller thread, which reads them.
        self._alias = datastore.alias
        self._poll_interval = datastore.poll_interval
        self._stopping = threading.Event()
        # The puller starts only once LISTEN is in place, or no commit could be missed.
        self._ready = threading.Event()
        self._seen = 0
        self._listen_thread: threading.Thread | None = None
        if datastore.is_postgres:
            self._doorbell = Doorbell()
            self._listen_params = datastore.listen_params()
            self._channel = channel
            self._listen_thread = threading.Thread(
                target=self._listen, name=f"listen {self._channel}", daemon=True
            )
        else:
            self._doorbell = doorbell
            self._ready.set()
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        if self._listen_thread is not None:  # after the base class can take its error
            self._listen_thread.start()

    def stop(self) -> None:
        super().stop()
        self._stopping.set()
        self._ready.set()
        with self._doorbell.condition:
            self._doorbell.condition.notify_all()

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            if self._listen_thread is not None and self._listen_thread.ident is not None:
                self._listen_thread.join()

    def wait_until_ready(self) -> None:
        self._ready.wait()
        self._seen = self._doorbell.rings

    def wait_for_more(self) -> None:
        self._seen = self._doorbell.wait(self._seen, self._poll_interval, self._stopping)

    def puller_finished(self) -> None:
        connections[self._alias].close()

    def _listen(self) -> None:
        assert psycopg is not None
        try:
            with psycopg.connect(**self._listen_params) as conn:
                conn.execute(pg_sql.SQL("LISTEN {}").format(pg_sql.Identifier(self._channel)))
                self._ready.set()
                while not self._stopping.is_set():
                    # Wake at least every 0.1s to notice stop(); any NOTIFY means "pull".
                    for _ in conn.notifies(timeout=0.1, stop_after=1):
                        self._doorbell.ring()
        except BaseException as error:
            # A LISTEN connection fails only by going away.
            self.fail(ConnectionLost(f"LISTEN {self._channel}: {error}")
                      if isinstance(error, psycopg.Error) else error)
        finally:
            self._ready.set()


__all__ = ["DjangoSubscription", "Doorbell", "doorbell_for"]
