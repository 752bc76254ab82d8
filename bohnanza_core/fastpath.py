"""The `eventsourcing` library's internals the platform relies on, all of them, here.

Checked against **eventsourcing 9.5.6** (requirements.lock pins it; pyproject.toml allows
9.5.x). Storing a game is the platform's hottest path: some 650 events a game against a
rules engine that plays a whole game in a few milliseconds, and the library's general
route (``trigger_event`` per event, a frozen dataclass built through ``__init__`` per
event, a ``Recording`` and a ``Notification`` per event, runtime-checkable Protocol
``isinstance`` checks per save and per event replayed) costs more than the rules
themselves (bench/store.py, section ``record``). Each way round it is a named function
or class of this module, so that :mod:`bohnanza_core.games` reads as an aggregate and an
application in the library's terms, and an upgrade of the library has one module to
check. tests/core/test_fastpath.py is the contract: it runs the library's own
application test cases (``eventsourcing.tests.application``, with its example aggregate
from ``eventsourcing.tests.domain``) against these classes, and checks every private
name, signature and behaviour listed below, so that an upgrade that changes one fails
there, by name.

What is relied on, and where:

- :class:`DeferringAggregate`: an aggregate may hold its newest events in a form of
  its own and hand them to the library only when it asks (``pending_events``,
  ``collect_events``, both overridden), moving its version and time on itself
  meanwhile (writing ``_version`` and ``_modified_on``, which the ``version`` and
  ``modified_on`` properties read). Relies on ``pending_events`` being the aggregate's
  own list (not a copy), which ``collect_events`` drains.
- :func:`frozen`: a frozen dataclass instance (a domain event, a ``StoredEvent``) made
  without its ``__init__``, its fields written straight into ``__dict__``, as the
  library's own ``Mapper.to_domain_event`` makes events. Relies on those classes
  keeping their fields in ``__dict__`` (no ``__slots__``) and their ``__post_init__``
  only checking (``DomainEvent`` checks that ``originator_id`` is a UUID).
- :func:`create`: ``Aggregate._create`` (the library's documented way to create an
  aggregate with a given "created" event class, underscore and all).
- :func:`become`: an aggregate's whole state, the library's ``_id``, ``_version``,
  ``_created_on``, ``_modified_on`` and ``_pending_events`` included, lives in its
  ``__dict__`` (as ``Snapshot.take`` and ``Snapshot.mutate`` also rely on).
- :func:`project_events`: the library's ``project_aggregate`` without its per-event
  ``isinstance`` against a runtime-checkable Protocol (some 40 us an event on Python
  3.11, most of the time of rebuilding a step).
- :class:`FastApplication`: ``Application.save`` for one :class:`DeferringAggregate`,
  re-done: what ``save`` does (``_record``: insert, put in the cache;
  ``_take_snapshots``; ``_notify`` and the deprecated ``notify``) without collecting
  through ``ProcessingEvent`` and without a ``Recording`` per event unless someone
  reads them (:class:`LazyRecordings`); ``_take_snapshots`` is overridden, so that an
  aggregate that takes its snapshots in memory as it goes has those stored instead of
  being reloaded from the store at each multiple of the interval.
- :class:`BatchedSubscription`: ``ListenNotifySubscription``'s puller thread
  (``_loop_on_pull``, ``_pull``, ``_has_been_stopped``, ``_thread_error``) with what it
  waits on between pulls left to a subclass (the platform's store wakes it by its
  own doorbell or by LISTEN), and batches read from the lists it pulled
  (``_notifications``, ``_notifications_index``, ``_notifications_queue``).
- :func:`sqlite_connections_run`: ``eventsourcing.sqlite``'s connection pool
  (``_create_connection``, ``SQLiteConnection._sqlite_conn``), for bench/store.py to run
  the library's SQLite recorder with the platform's settings, side by side with ours.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, overload
from uuid import UUID

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import (
    ListenNotifySubscription,
    Notification,
    Recording,
    ShutDown,
    StoredEvent,
    TApplicationRecorder_co,
)

if TYPE_CHECKING:
    from eventsourcing.sqlite import SQLiteDatastore

T = TypeVar("T")
A = TypeVar("A", bound=Aggregate)

CHECKED_AGAINST = "9.5.6"
"""The eventsourcing version this module was written against and its contract checks."""


# -- events and aggregates -----------------------------------------------------------


def frozen(cls: type[T], fields: dict[str, Any]) -> T:
    """An instance of the frozen dataclass ``cls`` holding ``fields``, made as the
    library's ``Mapper`` makes domain events: without ``__init__``, whose keyword
    handling and ``__post_init__`` cost about a microsecond a row, more than encoding
    it (bench/store.py). ``fields`` must be every field, checked by the caller."""
    made = object.__new__(cls)
    made.__dict__.update(fields)
    return made


def create(cls: type[A], event_class: type[Any], **kwargs: Any) -> A:
    """A new aggregate of ``cls`` whose first event is ``event_class`` (a "created"
    event) with ``kwargs``: ``Aggregate._create``."""
    made: A = cls._create(event_class, **kwargs)
    return made


def become(aggregate: Aggregate, other: Aggregate) -> None:
    """Make ``aggregate`` hold exactly what ``other`` holds (its id, version, pending
    events, everything), in place: for a holder of ``aggregate`` that must go on from
    what the store really holds."""
    aggregate.__dict__.clear()
    aggregate.__dict__.update(other.__dict__)


def project_events(aggregate: Any, events: Iterable[Any]) -> Any:
    """The library's ``project_aggregate`` without its per-event ``isinstance`` against
    a runtime-checkable Protocol, which costs about 40 us an event on Python 3.11: most
    of the time of rebuilding a step (bench/store.py, section rebuild). Pass it as the
    repository's ``projector_func``; every event must have ``mutate``."""
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate


class DeferringAggregate(Aggregate):
    """An aggregate that may record events outside ``trigger_event``: it moves its
    version on itself (:meth:`advance`) and holds the events in a form of its own until
    the library asks for them (``pending_events``, ``collect_events``), when
    :meth:`take_deferred_events` turns them into the library's events. An application
    that knows the form stores them without that (:class:`FastApplication`).

    ``snapshots_in_memory``: whether the aggregate takes its own snapshots as it goes
    (:meth:`collect_snapshots`), to be stored when it is saved, instead of the
    application reloading it from the store at each multiple of its interval."""

    snapshots_in_memory = False

    def advance(self, count: int, timestamp: datetime) -> int:
        """Move the version on by ``count`` events recorded outside ``trigger_event``,
        the last of them at ``timestamp``, as ``trigger_event`` would have; return the
        version before. Writes the attributes the library's ``version`` and
        ``modified_on`` properties read and write (``_version``, ``_modified_on``): this
        runs once a command, where the properties' five calls cost 2% of storing a
        game (bench/store.py, record)."""
        before: int = self._version
        self._version = before + count
        self._modified_on = timestamp
        return before

    def take_deferred_events(self) -> Sequence[Any]:
        """The events held back since they were last taken, as the library's events,
        in order; they are no longer held. None by default."""
        return ()

    def collect_snapshots(self) -> Sequence[Any]:
        """The snapshots taken in memory since the last save (``snapshots_in_memory``),
        no longer held. None by default."""
        return ()

    @property
    def pending_events(self) -> list[Any]:
        pending: list[Any] = super().pending_events  # the aggregate's own list
        pending.extend(self.take_deferred_events())
        return pending

    def collect_events(self) -> Sequence[Any]:
        self.listed_pending_events().extend(self.take_deferred_events())
        return super().collect_events()

    def listed_pending_events(self) -> list[Any]:
        """The library's list of pending events, without the deferred ones."""
        pending: list[Any] = super().pending_events
        return pending

    def collect_listed_events(self) -> Sequence[Any]:
        """``collect_events`` of the library's list alone: the deferred events stay
        held, for an application that stores them in their own form."""
        return super().collect_events()


# -- saving -------------------------------------------------------------------------


class LazyRecordings(Sequence[Recording[Any]]):
    """What the library's ``EventStore.put`` returns (a ``Recording`` with a
    ``Notification`` per event), made on first look: building them all costs about a
    microsecond per event, and nothing of the platform reads them (bench/store.py)."""

    def __init__(self, domain_events: Callable[[], Sequence[Any]],
                 stored: Sequence[StoredEvent], ids: Sequence[int] | None) -> None:
        self._parts = (domain_events, stored, ids or ())
        self._events: Sequence[Any] | None = None
        self._made: list[Recording[Any]] | None = None

    def domain_events(self) -> Sequence[Any]:
        """The domain events saved, in order."""
        if self._events is None:
            self._events = self._parts[0]()
        return self._events

    def as_list(self) -> list[Recording[Any]]:
        if self._made is None:
            _, stored, ids = self._parts
            self._made = [
                Recording(d, Notification(originator_id=s.originator_id,
                                          originator_version=s.originator_version,
                                          topic=s.topic, state=s.state, id=n))
                for d, s, n in zip(self.domain_events(), stored, ids, strict=False)
            ]
        return self._made

    @overload
    def __getitem__(self, index: int) -> Recording[Any]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Recording[Any]]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self.as_list()[index]

    def __len__(self) -> int:
        return len(self._parts[2])


class FastApplication(Application[UUID]):
    """An application whose save of one :class:`DeferringAggregate` goes straight to its
    recorder (:meth:`save_aggregate`); anything else is saved by the library."""

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        # The library's save() recognises aggregates with runtime-checkable Protocol
        # isinstance checks, about 40 us per save, and builds a Recording and a
        # Notification per event that nothing of the platform reads (bench/store.py).
        if len(objs) == 1 and not kwargs and isinstance(objs[0], DeferringAggregate):
            return self.save_aggregate(objs[0])
        return super().save(*objs, **kwargs)

    def save_aggregate(self, aggregate: DeferringAggregate) -> LazyRecordings:
        """What ``Application.save(aggregate)`` does: :meth:`record_aggregate`, then tell
        whoever listens (:meth:`notify_saved`)."""
        recordings = self.record_aggregate(aggregate)
        self.notify_saved(recordings.as_list, recordings.domain_events)
        return recordings

    def record_aggregate(self, aggregate: DeferringAggregate) -> LazyRecordings:
        """Store the aggregate's new events (:meth:`stored_events`) in one insert, put it
        in the repository's cache where the library would (a cache that is not
        fast-forwarded), and store its snapshots."""
        stored, domain_events = self.stored_events(aggregate)
        ids = self.recorder.insert_events(stored, tracking=None)
        self.cache_saved([aggregate])
        recordings = LazyRecordings(domain_events, stored, ids)
        processing: ProcessingEvent[UUID] = ProcessingEvent()
        processing.aggregates[aggregate.id] = aggregate
        if not aggregate.snapshots_in_memory and self.snapshotting_intervals:
            processing.events.extend(recordings.domain_events())
        self._take_snapshots(processing)
        return recordings

    def stored_events(self, aggregate: DeferringAggregate
                      ) -> tuple[Sequence[StoredEvent], Callable[[], Sequence[Any]]]:
        """The aggregate's new events as the recorder stores them, and how to make the
        domain events they are (only if asked). By default its collected events, mapped
        one by one; a subclass that knows the deferred form maps it more cheaply."""
        events = aggregate.collect_events()
        return [self.mapper.to_stored_event(e) for e in events], lambda: events

    def cache_saved(self, aggregates: Iterable[Aggregate]) -> None:
        """Put saved aggregates in the repository's cache, as ``Application._record``
        does: only into a cache that is not fast-forwarded from the store."""
        repository = self.repository
        if repository.cache and not repository.fastforward:
            for aggregate in aggregates:
                repository.cache.put(aggregate.id, aggregate)

    def notify_saved(self, recordings: Callable[[], list[Recording[Any]]],
                     domain_events: Callable[[], Sequence[Any]]) -> None:
        """Call ``_notify`` with the recordings and the deprecated ``notify`` with the
        domain events, as ``Application.save`` does after recording, where a subclass
        overrides them: the library's own do nothing, so by default nothing is made."""
        if type(self)._notify is not Application._notify:
            self._notify(recordings())
        if type(self).notify is not Application.notify:
            self.notify(list(domain_events()))

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        # The library's version reloads each aggregate from the store at each multiple
        # of its interval; one that took its snapshots in memory as it went
        # (snapshots_in_memory) has those stored. The others: the library's.
        others: ProcessingEvent[UUID] = ProcessingEvent()
        for aggregate_id, aggregate in processing_event.aggregates.items():
            if isinstance(aggregate, DeferringAggregate) and aggregate.snapshots_in_memory:
                due = aggregate.collect_snapshots()
                if due and self.snapshots is not None:
                    self.snapshots.put(due)
            else:
                others.aggregates[aggregate_id] = aggregate
        if others.aggregates:
            others.events = [e for e in processing_event.events
                             if e.originator_id in others.aggregates]
            super()._take_snapshots(others)


# -- subscriptions ------------------------------------------------------------------


class BatchedSubscription(ListenNotifySubscription[TApplicationRecorder_co]):
    """The library's ``ListenNotifySubscription`` (a puller thread selects new
    notifications and queues them; iterating hands them out one by one), with:

    - what the puller waits for left to a subclass: :meth:`wait_until_ready` before its
      first pull, :meth:`wait_for_more` between pulls (the library's waits for its own
      notified event), :meth:`puller_finished` as the thread ends;
    - :meth:`next_batch`: a notification and as many more as are already pulled, for a
      projection that writes them in one transaction.

    A subclass sets what its hooks read before calling ``__init__``, which starts the
    puller thread."""

    def wait_until_ready(self) -> None:
        """Called by the puller thread before its first pull; returns when it may pull."""

    def wait_for_more(self) -> None:
        """Called by the puller thread after each pull; returns when there may be more
        to pull (or the subscription was stopped)."""
        self._has_been_notified.wait()

    def puller_finished(self) -> None:
        """Called by the puller thread as it ends, however it ends."""

    @property
    def stopped(self) -> bool:
        """Whether the subscription was stopped."""
        return self._has_been_stopped

    def fail(self, error: BaseException) -> None:
        """End the subscription with ``error``, which iterating it raises (the first
        error wins)."""
        if self._thread_error is None:
            self._thread_error = error
        self.stop()

    def next_batch(self, limit: int) -> list[Notification]:
        """The next notification (waiting for it, as ``next()`` does) and as many more as
        are already pulled, up to ``limit`` in all."""
        batch = [next(self)]
        while len(batch) < limit:
            start = self._notifications_index
            if start < len(self._notifications):
                taken = self._notifications[start:start + limit - len(batch)]
                self._notifications_index += len(taken)
                batch += taken
                continue
            try:
                self._notifications = self._notifications_queue.get(block=False)
            except (queue.Empty, ShutDown):
                break
            self._notifications_queue.task_done()
            self._notifications_index = 0
        return batch

    def _loop_on_pull(self) -> None:
        # The library's loop (pull; wait for its notified event; pull...) with the
        # waits and the end as hooks.
        try:
            self.wait_until_ready()
            self._pull()
            while not self._has_been_stopped:
                self.wait_for_more()
                self._pull()
        except BaseException as error:
            self.fail(error)
        finally:
            self.puller_finished()


# -- the library's SQLite recorder (bench/store.py) ----------------------------------------


def sqlite_connections_run(datastore: SQLiteDatastore, statement: str) -> None:
    """Run ``statement`` (a PRAGMA) on every new connection of the library's SQLite
    datastore, as Django's ``init_command`` does on the platform's: bench/store.py
    compares the library's recorder with ours on equal settings."""
    pool: Any = datastore.pool
    create = pool._create_connection

    def created() -> Any:
        connection = create()
        connection._sqlite_conn.execute(statement)
        return connection

    pool._create_connection = created


__all__ = [
    "CHECKED_AGAINST",
    "BatchedSubscription",
    "DeferringAggregate",
    "FastApplication",
    "LazyRecordings",
    "become",
    "create",
    "frozen",
    "project_events",
    "sqlite_connections_run",
]
