"""Whether the Celery workers are there: the heartbeat they write, and what waits for
them (``/health/`` and a competition's page read it; docs/tournaments.md, "Crash
recovery").

The beat sends :data:`HEARTBEAT_TASK` every ``WORKER_HEARTBEAT_SECONDS``; whichever
worker runs it stamps the one :class:`~tournaments.models.WorkersSeen` row. Workers are
*silent* when the stamp is older than ``WORKER_SILENCE_SECONDS`` (or there is none) while
some competition has a periodic task of the beat (a ladder's tick, a competition's watch
or look at its live tables): those are what stand still without workers, and a finished
competition has none. Two indexed reads of small tables, cheap enough for a polled page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.conf import settings
from django.utils import timezone

from tournaments.core import beat
from tournaments.models import WorkersSeen

HEARTBEAT_TASK = "tournaments.workers_seen"
ROW = "workers"


def seen(now: datetime | None = None) -> None:
    """Stamp the heartbeat (a worker runs this)."""
    WorkersSeen.objects.update_or_create(name=ROW, defaults={"seen_at": now or timezone.now()})


def last_seen() -> datetime | None:
    return WorkersSeen.objects.filter(name=ROW).values_list("seen_at", flat=True).first()


def silence_seconds() -> int:
    """How long the workers may go unseen while a competition waits for them."""
    return max(1, int(getattr(settings, "WORKER_SILENCE_SECONDS", 60)))


@dataclass(frozen=True)
class Workers:
    """What is known of the workers now: when they were last seen (``None``: never),
    and whether that is longer ago than the bound while work waits for them."""

    seen_at: datetime | None
    seen_seconds_ago: int | None
    silent: bool

    def as_json(self) -> dict[str, int | bool | None]:
        return {"seen_seconds_ago": self.seen_seconds_ago, "silent": self.silent}


def workers(competition_id: UUID | None = None, now: datetime | None = None) -> Workers:
    """The workers as ``/health/`` (any competition) or one competition's page sees
    them."""
    at = last_seen()
    now = now or timezone.now()
    ago = None if at is None else max(0, int((now - at).total_seconds()))
    late = ago is None or ago > silence_seconds()
    return Workers(at, ago, late and beat.scheduled(competition_id))
