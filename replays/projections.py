"""The game list: a projection of the ``Games`` application's events into
:class:`~replays.models.GameSummary` and :class:`~replays.models.SeatSummary` rows.

Built on :mod:`eventsourcing.projection`: :class:`GameListProjection` processes each
event through :class:`GameListView`, a tracking recorder of :mod:`replays.persistence`
(application name ``GameList``, table ``gamelist_tracking``) that writes the rows and the
position of the last event processed in one ``transaction.atomic()``: the list and its
position never disagree, whatever crashes.

Three ways to run it:

- :func:`catch_up` processes, synchronously, every event stored after the tracked
  position. ``ReplaysConfig.ready()`` registers it to run after each save of a game, so in
  the embedded default the list is up to date as soon as a command is stored (turn it off
  with ``settings.READ_MODELS_CATCH_UP = False`` where ``run_projections`` runs instead,
  or for one block with :func:`catch_up_deferred`, e.g. around a whole bot game);
- ``manage.py run_projections`` runs a :class:`GameListRunner` until Ctrl-C: it
  subscribes to the store (the library's ``subscribe()``) and processes events as they
  are committed, from any process, in batches: all that has arrived, up to
  :data:`FOLLOW_BATCH` events, in one transaction with its position. It waits out the
  database going away and goes on from the tracked position, and logs its rate and lag
  now and then;
- ``manage.py rebuild_read_models`` (:func:`rebuild`) wipes the rows and the position and
  processes every event again, from the events alone.

Applying an event again, in any order, changes nothing (fields are set, counts only grow,
a finished game stays finished), so two processors racing over the same events (a web
process catching up while ``run_projections`` runs) agree on the result; the tracking row
makes the loser of a race stop and look again instead of writing twice.

A batch is cheap because a row of the list needs little of a game's events: its first
(who sits where, the ruleset), its last (how many, when) and, if the game has ended, the
``GameEnded`` (or the platform's ``GameStopped``) event, which is its last. So of each
game's rows in a batch only the first event and the last one are decoded
(:func:`listed_events`); the rest are counted. One event per transaction (the library's
``Projection.process_event``, still supported) did 250-800 events a second on
PostgreSQL, against some 2,500 from four bot games a second.

Only what anyone who may list a game may know reaches the rows: each engine event is
first redacted for the spectator (:func:`bohnanza_core.views.redact`), so the seed, hands
and the draw pile cannot leak into the list even by mistake.

An event the list cannot apply does not stop it (issue 26: a username longer than its
column once kept every later game of every player off the list, for good). What is the
event's own fault (a value the database refuses, ``DataError`` or ``IntegrityError``, or
an error of this code on that event) rolls the run back, and the run is applied again
one event at a time, each in a savepoint: the bad event is skipped and recorded as a
:class:`~replays.models.ProjectionFailure` in the same transaction, with an error log
naming its position (notification id, game, version), and the position moves past it,
so every later event is applied. A game whose first event failed stays off the list (its
later events are skipped quietly); one whose end failed stays listed as running.
``/health/`` answers 503 and ``run_projections`` prints a ``STALLED`` line
(:mod:`replays.health`) until ``manage.py rebuild_read_models``, after the fix, applies
every event again and empties the failures. What is every event's fault (the database
gone, a table missing for a migration not run) is not skipped: it stops the projection
at that event, to go on from there once fixed, and ``/health/`` reports it stalled once
an event has waited ``READ_MODELS_STALL_SECONDS``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, cast
from uuid import UUID

from django.conf import settings
from django.db import DatabaseError as DjangoDatabaseError
from django.db import DataError, connections, models, transaction
from django.db import IntegrityError as DjangoIntegrityError
from django.utils import timezone
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    Notification,
    PersistenceError,
    Tracking,
    WaitInterruptedError,
)
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from bohnanza_core.events import (
    GAME_OVER_TYPES,
    GameEnded,
    GameStarted,
    GameStopped,
    SeatHandedToBot,
)
from bohnanza_core.games import Game, Games
from bohnanza_core.rulesets import listed_name
from bohnanza_core.views import SPECTATOR, redact
from replays.models import EVENT_KIND_MAX, GameSummary, ProjectionFailure, SeatSummary
from replays.names import winners_text
from replays.outages import database_unavailable, wait_for_database
from replays.persistence import DjangoDatastore, DjangoSubscription, DjangoTrackingRecorder
from replays.store import games

logger = logging.getLogger(__name__)

PROJECTION_NAME = "GameList"
"""The projection's name: its environment prefix and its tracking table ``gamelist_tracking``."""
BATCH_SIZE = 500
"""Notifications read and written per transaction when catching up."""
FOLLOW_BATCH = 2000
"""The most notifications :class:`GameListRunner` writes in one transaction: enough for
three whole games, few enough that a batch takes a few milliseconds."""
REPORT_EVERY = 60.0
"""Seconds between ``run_projections``'s lines on its rate and lag."""


def _alias() -> str:
    return str(getattr(settings, "EVENT_STORE_DB_ALIAS", "default"))


@dataclass
class Processed:
    """What one run of the projection went through."""

    events: int = 0
    games: set[UUID] = field(default_factory=set)
    position: int | None = None
    """The notification id of the last event the list has processed, afterwards."""


# -- applying events to rows ------------------------------------------------------------


class _Batch:
    """The rows touched by a run of events, loaded once, changed in memory, written once."""

    def __init__(self, alias: str, game_ids: Iterable[UUID]) -> None:
        self.alias = alias
        ids = set(game_ids)
        self.rows: dict[UUID, GameSummary] = GameSummary.objects.using(alias).in_bulk(ids)
        self.seats: dict[UUID, dict[int, SeatSummary]] = {gid: {} for gid in self.rows}
        for seat in SeatSummary.objects.using(alias).filter(game_id__in=list(self.rows)):
            self.seats[seat.game_id][seat.seat] = seat
        self.new: set[UUID] = set()
        self.changed: dict[UUID, set[str]] = {}
        self.changed_seats: set[UUID] = set()

    def started(self, stored: Game.Started) -> None:
        game_id = stored.originator_id
        row = self.rows.get(game_id)
        if row is not None:  # seen before: only the count may need to catch up
            self._count(row, stored)
            return
        started = redact(stored.event, SPECTATOR)
        assert isinstance(started, GameStarted)
        at: datetime = stored.timestamp
        row = GameSummary(
            game_id=game_id, ruleset=listed_name(started.ruleset),
            player_count=len(started.seats),
            status=GameSummary.Status.RUNNING, winners="", started_at=at, ended_at=None,
            last_event_at=at, events=stored.originator_version,
            tournament=stored.tournament or "", private=stored.private,
            seed_commitment=started.seed_commitment, started_by=stored.actor or "",
        )
        self.rows[game_id] = row
        self.new.add(game_id)
        self.seats[game_id] = {
            seat: SeatSummary(game_id=game_id, seat=seat, name=name,
                              player=stored.players[seat] if seat < len(stored.players) else "")
            for seat, name in enumerate(started.seats)
        }

    def happened(self, stored: Game.Happened) -> None:
        game_id = stored.originator_id
        row = self.rows.get(game_id)
        if row is None:
            _missing(stored, self.alias)
            return
        self._count(row, stored)
        event = redact(stored.event, SPECTATOR)
        if isinstance(event, GAME_OVER_TYPES):
            self._ended(row, event, stored.timestamp)
        elif isinstance(event, SeatHandedToBot):
            self._handed(row, event)

    def _count(self, row: GameSummary, stored: Game.Started | Game.Happened) -> None:
        if stored.originator_version > row.events:
            row.events = stored.originator_version
            self._touch(row, "events")
        if stored.timestamp > row.last_event_at:
            row.last_event_at = stored.timestamp
            self._touch(row, "last_event_at")

    def _ended(self, row: GameSummary, ended: GameEnded | GameStopped, at: datetime) -> None:
        seats = self.seats[row.game_id]
        row.status = GameSummary.Status.FINISHED
        row.ended_at = at
        row.winners = winners_text([seats[s].name for s in ended.winners if s in seats])
        row.stopped = ended.reason.value if isinstance(ended, GameStopped) else ""
        for field_name in ("status", "ended_at", "winners", "stopped"):
            self._touch(row, field_name)
        for number, seat in seats.items():
            seat.coins = ended.coins[number] if number < len(ended.coins) else None
            seat.rank = ended.ranks[number] if number < len(ended.ranks) else None
            seat.winner = number in ended.winners
        self.changed_seats.add(row.game_id)

    def _handed(self, row: GameSummary, handed: SeatHandedToBot) -> None:
        seat = self.seats[row.game_id].get(handed.seat)
        if seat is not None:
            seat.handed_to = handed.bot
            self.changed_seats.add(row.game_id)

    def _touch(self, row: GameSummary, field_name: str) -> None:
        if row.game_id not in self.new:
            self.changed.setdefault(row.game_id, set()).add(field_name)

    def write(self) -> None:
        games_qs = GameSummary.objects.using(self.alias)
        seats_qs = SeatSummary.objects.using(self.alias)
        if self.new:
            games_qs.bulk_create([self.rows[gid] for gid in self.new])
            seats_qs.bulk_create([s for gid in self.new for s in self.seats[gid].values()])
        for game_id, fields in self.changed.items():
            self.rows[game_id].save(using=self.alias, update_fields=sorted(fields))
        old_seats = [s for gid in self.changed_seats - self.new for s in self.seats[gid].values()]
        if old_seats:  # one prepared UPDATE: bulk_update's CASE took 6 ms a game to build
            meta = SeatSummary._meta
            connection = connections[self.alias]
            qn = connection.ops.quote_name
            columns = [column(SeatSummary, name)
                       for name in ("coins", "rank", "winner", "handed_to")]
            with connection.cursor() as cursor:
                cursor.executemany(
                    f"UPDATE {qn(meta.db_table)} SET {', '.join(f'{qn(c)} = %s' for c in columns)}"
                    f" WHERE {qn(column(SeatSummary, 'id'))} = %s",
                    [(s.coins, s.rank, s.winner, s.handed_to, s.pk) for s in old_seats])


def apply_events(events: Sequence[Any], alias: str) -> set[UUID]:
    """Fold stored game events into the rows (no tracking); the games they touched.

    Most events only move a game's count on: for those one UPDATE per game does, which
    keeps the catch-up after each command cheap. A game's first and last events, and a
    seat handed to a bot, go through :class:`_Batch`, which loads its rows and writes the
    seats and the result.
    """
    game_events = [e for e in events if isinstance(e, Game.Started | Game.Happened)]
    whole = {e.originator_id for e in game_events
             if isinstance(e, Game.Started)
             or isinstance(e.event, GameEnded | GameStopped | SeatHandedToBot)}
    if whole:
        batch = _Batch(alias, whole)
        for stored in game_events:
            if stored.originator_id not in whole:
                continue
            if isinstance(stored, Game.Started):
                batch.started(stored)
            else:
                batch.happened(stored)
        batch.write()
    latest: dict[UUID, Game.Happened] = {}
    for stored in game_events:
        if stored.originator_id not in whole and isinstance(stored, Game.Happened):
            seen = latest.get(stored.originator_id)
            if seen is None or stored.originator_version > seen.originator_version:
                latest[stored.originator_id] = stored
    if latest:
        _advance(alias, latest.values())
    return {e.originator_id for e in game_events}


def _advance(alias: str, latest: Iterable[Game.Happened]) -> None:
    """Move each game's count and last-event time on to its latest event, never back.

    Plain SQL: this runs after every stored command, and the ORM's query building would
    cost more than the whole store write before it. On Django's cursor, not the
    driver's: hooks see it, and a lost connection is an error Django knows (and
    ``replays.outages`` too)."""
    connection = connections[alias]
    meta = GameSummary._meta
    key, events, last = (model_field(GameSummary, name) for name in ("game_id", "events",
                                                                "last_event_at"))
    qn = connection.ops.quote_name
    statement = (f"UPDATE {qn(meta.db_table)} SET {qn(events.column)} = %s, "
                 f"{qn(last.column)} = %s WHERE {qn(key.column)} = %s "
                 f"AND {qn(events.column)} < %s")
    with connection.cursor() as cursor:
        for stored in latest:
            version = stored.originator_version
            cursor.execute(statement, [
                version, last.get_db_prep_value(stored.timestamp, connection),
                key.get_db_prep_value(stored.originator_id, connection), version])
            if cursor.rowcount == 0 and not GameSummary.objects.using(alias).filter(
                    pk=stored.originator_id).exists():
                _missing(stored, alias)


def model_field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    """A model's concrete field by name (the rows are written by hand here)."""
    found = model._meta.get_field(name)
    assert isinstance(found, models.Field)
    return found


def column(model: type[models.Model], name: str) -> str:
    """A concrete field's column."""
    found = model_field(model, name).column
    assert found is not None
    return found


_STARTED = get_topic(Game.Started)
_HAPPENED = get_topic(Game.Happened)
_HANDED = f'"{SeatHandedToBot.__name__}"'.encode()


def listed_events(mapper: Mapper[UUID], notifications: Sequence[Notification]) -> list[Any]:
    """The events of ``notifications`` the game list needs, decoded, in order: each game's
    first event (``Game.Started``), every seat handed to a bot (``SeatHandedToBot``,
    rare) and the last of its events here, which holds its count and time and, if the
    game has ended, is its ``GameEnded`` or ``GameStopped`` (nothing follows either).
    The rest would only move the count on, which the last one does: they are not
    decoded. Events of other kinds are not listed. A handover is found by its type's
    name in the stored bytes (the canonical entry, docs/store.md), which a compressed or
    encrypted store hides: there every event is decoded."""
    opaque = mapper.compressor is not None or mapper.cipher is not None
    chosen: dict[int, Notification] = {}
    last: dict[Any, Notification] = {}
    for notification in notifications:
        if notification.topic == _HAPPENED:
            if opaque or _HANDED in notification.state:
                chosen[notification.id] = notification
            last[notification.originator_id] = notification
        elif notification.topic == _STARTED:
            chosen[notification.id] = notification
    chosen.update((n.id, n) for n in last.values())
    return [mapper.to_domain_event(chosen[i]) for i in sorted(chosen)]


def _missing(stored: Game.Happened, alias: str) -> None:
    """An event of a game that is not listed. Known when the game's first event could not
    be applied (a :class:`ProjectionFailure` says so): its later events are skipped
    without a word more. Otherwise the rows were deleted without resetting the position."""
    if ProjectionFailure.objects.using(alias).filter(
            projection=PROJECTION_NAME, game_id=stored.originator_id).exists():
        return
    logger.warning("game list: event %s of game %s arrived before the game's first event; "
                   "run manage.py rebuild_read_models", stored.originator_version,
                   stored.originator_id)


def _the_events_fault(error: Exception) -> bool:
    """Whether ``error`` is the event's own: a value the database refuses for the rows
    (``DataError``: too long, out of range; ``IntegrityError``), or an error of the
    projection's code on this event (a bug, an event it does not expect). Those skip the
    event. The database's other errors (gone away, a table or column missing because a
    migration was not run, a lock) are every event's: skipping would lose them all, so
    they stop the projection at the event, to go on from there once the cause is fixed."""
    if isinstance(error, DataError | DjangoIntegrityError):
        return True
    # The store's own errors (PersistenceError) include a lost connection (ConnectionLost).
    return not isinstance(error, DjangoDatabaseError | PersistenceError)


def _failed(event: Any, positions: Mapping[tuple[UUID, int], int], error: Exception,
            alias: str) -> ProjectionFailure | None:
    """Record and log that ``event`` could not be applied; None if it was already."""
    game_id, version = event.originator_id, event.originator_version
    notification_id = positions[(game_id, version)]
    kind = type(getattr(event, "event", event)).__name__[:EVENT_KIND_MAX]
    failure, new = ProjectionFailure.objects.using(alias).get_or_create(
        projection=PROJECTION_NAME, notification_id=notification_id,
        defaults={"game_id": game_id, "version": version, "event": kind,
                  "error": f"{type(error).__name__}: {error}", "failed_at": timezone.now()})
    if not new:
        return None
    logger.error("%s: could not apply event %d (game %s, version %d, %s): %s: %s; the event "
                 "is skipped and recorded, the events after it are applied; manage.py "
                 "rebuild_read_models applies it again once the cause is fixed",
                 PROJECTION_NAME, notification_id, game_id, version, kind,
                 type(error).__name__, error, exc_info=error)
    return failure


# -- the materialised view and the projection -------------------------------------------


class GameListView(DjangoTrackingRecorder):
    """The game list's rows and their tracking position, written together.

    An event that cannot be applied is skipped and recorded as a
    :class:`~replays.models.ProjectionFailure` with the rest of the run
    (:meth:`_record`), and ``on_failure`` is told of it once the run is written."""

    def __init__(self, datastore: DjangoDatastore, *, tracking_table_name: str,
                 on_failure: Callable[[ProjectionFailure], None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(datastore, tracking_table_name=tracking_table_name, **kwargs)
        self.on_failure = on_failure

    def record(self, items: Sequence[tuple[Any, Tracking]]) -> set[UUID] | None:
        """Apply ``items`` (events with their positions, in order) and move the position
        to the last one, in one transaction. None, with nothing written, when the position
        already is at or beyond it: another processor got there first."""
        if not items:
            return set()
        return self._record([event for event, _ in items], items[-1][1], lambda: {
            (event.originator_id, event.originator_version): at.notification_id
            for event, at in items})

    def record_notifications(self, app: Games,
                             notifications: Sequence[Notification]) -> set[UUID] | None:
        """:meth:`record` for a run of ``app``'s notifications, in order, decoding only the
        events the list needs (:func:`listed_events`)."""
        if not notifications:
            return set()
        return self._record(listed_events(app.mapper, notifications),
                            Tracking(app.name, notifications[-1].id), lambda: {
                                (cast(UUID, n.originator_id), n.originator_version): n.id
                                for n in notifications})

    def _record(self, events: Sequence[Any], tracking: Tracking,
                positions: Callable[[], Mapping[tuple[UUID, int], int]]) -> set[UUID] | None:
        """The run in one transaction with its position. Should one of its events fail
        (:func:`_the_events_fault`), the run is rolled back and applied again one event
        at a time, each in a savepoint: the events that apply are kept, the ones that do
        not are recorded as failures and logged, and the position still moves past the
        run. So the cost of isolating an event is paid only when one fails: a run that
        applies whole is the one transaction it always was. ``positions()``: each event's
        notification id by game and version, asked for only then."""
        alias = self.datastore.alias
        try:
            with transaction.atomic(using=alias):  # a savepoint when nested
                if not self._take(tracking):
                    return None
                return apply_events(events, alias)
        except Exception as error:
            if not _the_events_fault(error):
                raise
        failures: list[ProjectionFailure] = []
        with transaction.atomic(using=alias):
            if not self._take(tracking):
                return None
            touched = self._apply_each(events, positions(), failures)
        if self.on_failure is not None:
            for failure in failures:
                self.on_failure(failure)
        return touched

    def _take(self, tracking: Tracking) -> bool:
        """Move the position to ``tracking``; False if it is there or beyond already.
        First in the transaction: on PostgreSQL this row lock queues concurrent
        processors."""
        with self.datastore.cursor() as cursor:
            try:
                self._insert_tracking(cursor, tracking)
            except IntegrityError:
                return False
        return True

    def _apply_each(self, events: Sequence[Any], positions: Mapping[tuple[UUID, int], int],
                    failures: list[ProjectionFailure]) -> set[UUID]:
        """Apply ``events`` one at a time, each in a savepoint; record each that fails."""
        alias = self.datastore.alias
        touched: set[UUID] = set()
        for event in events:
            try:
                with transaction.atomic(using=alias):
                    touched |= apply_events([event], alias)
            except Exception as error:
                if not _the_events_fault(error):
                    raise
                failure = _failed(event, positions, error, alias)
                if failure is not None:
                    failures.append(failure)
        return touched

    def wipe(self, application_name: str) -> None:
        """Delete every row, every failure and the position in ``application_name``'s
        events: the next catch-up starts from the first event."""
        alias = self.datastore.alias
        with transaction.atomic(using=alias):
            SeatSummary.objects.using(alias).all().delete()
            GameSummary.objects.using(alias).all().delete()
            ProjectionFailure.objects.using(alias).filter(projection=PROJECTION_NAME).delete()
            with self.datastore.cursor() as cursor:
                ph = self.datastore.placeholder
                cursor.execute(f"DELETE FROM {self.tracking_table} "
                               f"WHERE application_name = {ph}", [application_name])


class GameListProjection(Projection[GameListView]):
    """The game list. :meth:`process_event` is the library's protocol (one event per
    transaction, as ``eventsourcing.projection.ProjectionRunner`` calls it);
    :class:`GameListRunner` and :func:`catch_up` use :meth:`process_notifications`."""

    name = PROJECTION_NAME

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.record([(domain_event, tracking)])

    def process_notifications(self, app: Games,
                              notifications: Sequence[Notification]) -> set[UUID] | None:
        """A run of notifications in one transaction with the position of the last one;
        None if another processor was already there (nothing written)."""
        return self.view.record_notifications(app, notifications)


def game_list_view(on_failure: Callable[[ProjectionFailure], None] | None = None
                   ) -> GameListView:
    """The view on the event store's database (``settings.EVENT_STORE_DB_ALIAS``);
    ``on_failure`` is told of each event it records as failed."""
    return GameListView(DjangoDatastore(_alias()),
                        tracking_table_name=f"{PROJECTION_NAME.lower()}_tracking",
                        on_failure=on_failure)


# -- running it ---------------------------------------------------------------------------


def catch_up(app: Games | None = None, *, batch_size: int = BATCH_SIZE) -> Processed:
    """Process every event stored, when it starts, after the tracked position, in batches
    of ``batch_size``, each batch and its position in one transaction. Idempotent: a
    second call finds nothing to do. Events committed while it runs are left to the next
    call: the save that commits them calls it again."""
    app = app if app is not None else games()
    view = game_list_view()
    done = Processed()
    position = view.max_tracking_id(app.name)
    while True:
        notifications = app.recorder.select_notifications(
            start=position, limit=batch_size, inclusive_of_start=False)
        if not notifications:
            done.position = position
            return done
        touched = view.record_notifications(app, notifications)
        if touched is None:  # someone else moved on: look again from where they are
            position = view.max_tracking_id(app.name)
            continue
        done.events += len(notifications)
        done.games |= touched
        position = done.position = notifications[-1].id
        if len(notifications) < batch_size:  # that was all there was
            return done


_deferred = threading.local()


def catch_up_after_save() -> None:
    """The ``replays.store.after_save`` hook: bring the list up to date after a command.
    The command is already stored, so a failure here must not fail it: it is logged, and
    the next catch-up (or ``run_projections``) picks the events up."""
    depth: int = getattr(_deferred, "depth", 0)
    if not getattr(settings, "READ_MODELS_CATCH_UP", True) or depth:
        return
    try:
        catch_up()
    except Exception:
        logger.exception("game list: catching up after a save failed; it will retry on the "
                         "next save (or run manage.py run_projections)")


@contextlib.contextmanager
def catch_up_deferred() -> Iterator[None]:
    """Skip the catch-up after each save in this thread until the block ends, then catch
    up once: for a bot game played in one go, whose hundreds of commands nobody watches
    in the list, one catch-up instead of one per command."""
    _deferred.depth = getattr(_deferred, "depth", 0) + 1
    try:
        yield
    finally:
        _deferred.depth -= 1
        if not _deferred.depth:  # also after an error: what was stored gets listed
            catch_up_after_save()


def rebuild(app: Games | None = None) -> Processed:
    """Wipe the list and its position, and process every event again, in one transaction:
    readers see the old list until the new one is complete."""
    app = app if app is not None else games()
    view = game_list_view()
    with transaction.atomic(using=view.datastore.alias):
        view.wipe(app.name)
        return catch_up(app)


@dataclass
class _Report:
    """What the runner did since the last report line."""

    began: float = field(default_factory=time.monotonic)
    events: int = 0
    batches: int = 0
    lags: list[float] = field(default_factory=list)
    failed: int = 0


class GameListRunner:
    """Follows the ``Games`` application into the game list from a thread of its own,
    from the tracked position until stopped (``manage.py run_projections``).

    It subscribes to the store and processes what has arrived in batches of up to
    ``batch_size`` notifications, each in one transaction with its position: exactly
    once, whatever crashes. When the database goes away (connections dropped, server
    restarting) it logs it, waits until the database answers, and subscribes again from
    the tracked position: a batch whose commit was lost is either in the list and the
    position, or in neither. Other errors stop it (:meth:`run_forever` raises them).

    The lag of a batch is the time from its oldest event (the command that caused it) to
    the commit that lists it; ``on_batch(notifications, committed_at)`` is told of each
    batch (bench/store.py, section ``follow``).

    An event it cannot apply is skipped and recorded (:class:`GameListView`), and the
    runner goes on: ``on_failure(failure)`` is told of it, and each report line counts
    the events recorded as failed so far.
    """

    def __init__(self, app: Games | None = None, *, batch_size: int = FOLLOW_BATCH,
                 on_batch: Callable[[Sequence[Notification], float], None] | None = None,
                 on_failure: Callable[[ProjectionFailure], None] | None = None) -> None:
        self.app = app if app is not None else games()
        self.view = game_list_view(on_failure=self._failed)
        self.on_failure = on_failure
        self.projection = GameListProjection(self.view)
        self.batch_size = batch_size
        self.on_batch = on_batch
        self.position: int | None = None
        """The last notification listed, once known."""
        self._alias = self.view.datastore.alias
        self._stopping = threading.Event()
        self._done = threading.Event()
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._subscription: DjangoSubscription | None = None
        self._report = _Report()
        self._thread = threading.Thread(target=self._run, name=f"{PROJECTION_NAME} runner",
                                        daemon=True)

    # -- control ---------------------------------------------------------------------------

    def start(self) -> GameListRunner:
        self._thread.start()
        return self

    def __enter__(self) -> GameListRunner:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
        self._thread.join()
        if exc is None:
            self._raise_error()

    def stop(self) -> None:
        with self._lock:
            self._stopping.set()
            if self._subscription is not None:
                self._subscription.stop()

    def run_forever(self, timeout: float | None = None,
                    report_every: float | None = None) -> None:
        """Block until ``timeout`` passes, or the runner stops; raise the error that
        stopped it. Every ``report_every`` seconds, log the rate and lag."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                wait = (left if report_every is None
                        else report_every if left is None else min(report_every, left))
                if self._done.wait(wait):
                    break
                if report_every is not None:
                    self.log_report()
                if deadline is not None and time.monotonic() >= deadline:
                    break
        finally:
            # The stretch since the last report as well, when it saw events: a stop
            # (Ctrl-C, an error) comes between reports, and a short run would otherwise
            # say nothing of what it did.
            if report_every is not None and (self._report.events or self._report.failed):
                self.log_report()
        self._raise_error()

    def wait(self, notification_id: int | None, timeout: float = 1.0) -> None:
        """Block until the list has processed ``notification_id`` (TimeoutError after
        ``timeout``); raise the error that stopped the runner, if one did."""
        try:
            self.view.wait(self.app.name, notification_id, timeout=timeout,
                           interrupt=self._done)
        except WaitInterruptedError:
            self._raise_error()
            if not self.view.has_tracking_id(self.app.name, notification_id):
                raise

    def _raise_error(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise error

    # -- reporting -------------------------------------------------------------------------

    def _failed(self, failure: ProjectionFailure) -> None:
        with self._lock:
            self._report.failed += 1
        if self.on_failure is not None:
            self.on_failure(failure)

    def log_report(self) -> None:
        """Log the events per second and the lag since the last report."""
        with self._lock:
            report, self._report = self._report, _Report()
        seconds = time.monotonic() - report.began
        if not report.events:
            logger.info("%s: no new events in %.0f s; at event %s", PROJECTION_NAME, seconds,
                        self.position or 0)
        else:
            lags = sorted(report.lags)
            logger.info(
                "%s: %d events in %.1f s (%.0f events/s) in %d transactions; lag p50 %.2f s, "
                "p99 %.2f s, max %.2f s; at event %s", PROJECTION_NAME, report.events,
                seconds, report.events / seconds, report.batches, lags[len(lags) // 2],
                lags[min(len(lags) - 1, int(len(lags) * 0.99))], lags[-1], self.position)
        if report.failed:
            logger.error("%s: %d events could not be applied in %.0f s, skipped and recorded "
                         "(see /health/)", PROJECTION_NAME, report.failed, seconds)

    # -- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                try:
                    self._follow()
                except Exception as error:
                    if not database_unavailable(error, self._alias):
                        raise
                    self._wait_out(error)
        except BaseException as error:
            self._error = error
            logger.exception("%s stopped on an error: %s", PROJECTION_NAME, error)
        finally:
            self._done.set()
            connections[self._alias].close()

    def _follow(self) -> None:
        """Subscribe from the tracked position and process batches until stopped."""
        self.position = self.view.max_tracking_id(self.app.name)
        subscription = cast(DjangoSubscription,
                            self.app.recorder.subscribe(gt=self.position))
        with self._lock:
            self._subscription = subscription
            if self._stopping.is_set():
                subscription.stop()
        with subscription:
            while True:
                try:
                    batch = subscription.next_batch(self.batch_size)
                except StopIteration:
                    return
                self._process(batch)

    def _process(self, batch: Sequence[Notification]) -> None:
        oldest = self.app.mapper.to_domain_event(batch[0])
        self.projection.process_notifications(self.app, batch)  # None: already listed
        committed_at = time.time()
        self.position = batch[-1].id
        lag = max(0.0, committed_at - cast(Game.Happened, oldest).timestamp.timestamp())
        with self._lock:
            self._report.events += len(batch)
            self._report.batches += 1
            self._report.lags.append(lag)
        if self.on_batch is not None:
            self.on_batch(batch, committed_at)

    def _wait_out(self, error: Exception) -> None:
        began = time.monotonic()
        logger.warning("%s: the database is unavailable (%s); waiting for it",
                       PROJECTION_NAME, error)
        if wait_for_database(self._alias, stop=self._stopping):
            logger.info("%s: the database is back after %.1f s; going on after event %s",
                        PROJECTION_NAME, time.monotonic() - began, self.position or 0)


def projection_runner(*, batch_size: int = FOLLOW_BATCH,
                      on_failure: Callable[[ProjectionFailure], None] | None = None
                      ) -> GameListRunner:
    """A runner that follows the store into the game list (``manage.py
    run_projections``): the process's ``Games`` application, from the tracked position."""
    return GameListRunner(batch_size=batch_size, on_failure=on_failure)


__all__ = ["BATCH_SIZE", "FOLLOW_BATCH", "PROJECTION_NAME", "REPORT_EVERY", "GameListProjection",
           "GameListRunner", "GameListView", "Processed", "apply_events", "catch_up",
           "catch_up_after_save", "catch_up_deferred", "game_list_view", "listed_events",
           "projection_runner", "rebuild", "winners_text"]
