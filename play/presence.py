"""Who is at a running table: each open connection of a seat's person is a row
(:class:`play.models.Presence`), renewed by its connection while it stays open. When a
seat's last connection closes, the seat gets an absence deadline on its row in the
database (``Seat.absence_deadline``), as the clock keeps its deadline on the table: so
another process serving the table, or a restarted one (play/startup.py), fires it;
coming back before it cancels it. The driver (play/driver.py) hands a seat whose
deadline has passed, with no fresh connection, to the table's bot (play.tables.
hand_to_bot). A process that dies with connections open leaves rows that go stale
after :func:`stale_seconds`, and the driver then treats their seat as away.

All of it runs in a worker thread (``database_sync_to_async``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from play.models import Presence, Seat, Table


def stale_seconds() -> float:
    """How long a connection counts as open without renewing its row
    (``PLAY_PRESENCE_STALE_SECONDS``); each connection renews it three times as often."""
    return float(getattr(settings, "PLAY_PRESENCE_STALE_SECONDS", 90.0))


def beat_seconds() -> float:
    """How often an open connection renews its row."""
    return stale_seconds() / 3


def fresh(table_id: UUID, seat: int, now: datetime) -> QuerySet[Presence]:
    """The seat's connections that are open, as far as anyone can tell at ``now``."""
    return Presence.objects.filter(table_id=table_id, seat=seat,
                                   seen_at__gte=now - timedelta(seconds=stale_seconds()))


def arrive(table_id: UUID, seat: int, channel: str, now: datetime | None = None) -> None:
    """A connection of the seat's person opened: they are there, and any absence
    deadline of the seat is cancelled."""
    now = now or timezone.now()
    Presence.objects.update_or_create(channel=channel[:200],
                                      defaults={"table_id": table_id, "seat": seat,
                                                "seen_at": now})
    Seat.objects.filter(table_id=table_id, number=seat, handover="").update(
        absence_deadline=None)


def renew_all(channels: list[str], now: datetime | None = None) -> None:
    """The open connections of one process say they are still there, in one statement
    per thousand (a process serving 400 seats renewed them one by one: 13 updates a
    second on the thread every command of the process waits for)."""
    now = now or timezone.now()
    names = [c[:200] for c in channels]
    for start in range(0, len(names), 1000):
        Presence.objects.filter(channel__in=names[start:start + 1000]).update(seen_at=now)


def depart(table_id: UUID, seat: int, channel: str, now: datetime | None = None
           ) -> datetime | None:
    """A connection closed. If it was the seat's last one, the seat's absence deadline
    is set (a running table with an absence limit, a person's seat); returns it."""
    now = now or timezone.now()
    Presence.objects.filter(channel=channel[:200]).delete()
    table = Table.objects.filter(pk=table_id).only("status", "absence_seconds").first()
    if (table is None or table.status != Table.Status.RUNNING or not table.absence_seconds
            or fresh(table_id, seat, now).exists()):
        return None
    deadline = now + timedelta(seconds=table.absence_seconds)
    updated = Seat.objects.filter(table_id=table_id, number=seat, handover="", bot="",
                                  user__isnull=False, absence_deadline__isnull=True
                                  ).update(absence_deadline=deadline)
    return deadline if updated else None


@dataclass
class Absences:
    """What the driver makes of the people at a table at one moment: the seats whose
    person has been away past the deadline (``due``), and when to look again
    (``next_look``: the next deadline, or when a connection may go stale)."""

    due: list[int]
    next_look: datetime | None


def look(table: Table, seats: list[Seat], now: datetime) -> Absences:
    """Set a deadline on each person's seat with no open connection and none set yet
    (nobody came back after a restart; a process died with their connections), cancel
    it where a connection is open, and say which seats are due. A table without an
    absence limit has none."""
    people = [s for s in seats if s.person]
    if not table.absence_seconds or not people:
        return Absences([], None)
    stale = timedelta(seconds=stale_seconds())
    # The latest renewal of each seat, taken in Python: a table has a few rows, and the
    # query grouped by seat cost the driver's look half as much again (its SQL is
    # compiled anew each time).
    seen: dict[int, datetime] = {}
    for seat_number, seen_at in Presence.objects.filter(
            table=table, seen_at__gte=now - stale).values_list("seat", "seen_at"):
        last = seen.get(seat_number)
        if last is None or seen_at > last:
            seen[seat_number] = seen_at
    due: list[int] = []
    looks: list[datetime] = []
    for seat in people:
        last = seen.get(seat.number)
        if last is not None:
            looks.append(last + stale)
            if seat.absence_deadline is not None:
                Seat.objects.filter(pk=seat.pk).update(absence_deadline=None)
            continue
        if seat.absence_deadline is None:
            deadline = now + timedelta(seconds=table.absence_seconds)
            Seat.objects.filter(pk=seat.pk, absence_deadline__isnull=True).update(
                absence_deadline=deadline)
            looks.append(deadline)
        elif seat.absence_deadline <= now:
            due.append(seat.number)
        else:
            looks.append(seat.absence_deadline)
    return Absences(due, min(looks) if looks else None)
