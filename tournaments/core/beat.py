"""A competition's periodic tasks, in django-celery-beat's tables: a ladder's or a
scheduled competition's tick, and the look at a competition's live tables. Each is made
once, named by its competition and what it does, so making it again finds it."""

from __future__ import annotations

import json
from uuid import UUID

from django_celery_beat.models import IntervalSchedule, PeriodicTask


def _name(competition_id: UUID, what: str) -> str:
    return f"competition {competition_id} {what}"


def periodic(competition_id: UUID, what: str, task: str, seconds: int) -> PeriodicTask:
    """The beat's entry running ``task`` with the competition's id every ``seconds``
    (made once: an entry of that name is kept as it is)."""
    every, _ = IntervalSchedule.objects.get_or_create(every=seconds,
                                                      period=IntervalSchedule.SECONDS)
    made, _ = PeriodicTask.objects.get_or_create(
        name=_name(competition_id, what),
        defaults={"task": task, "interval": every, "args": json.dumps([str(competition_id)])})
    return made


def stop(competition_id: UUID, what: str) -> None:
    """No more of the competition's ``what`` (nothing happens if there was none)."""
    PeriodicTask.objects.filter(name=_name(competition_id, what)).delete()


def scheduled(competition_id: UUID | None = None) -> bool:
    """Whether a competition (``None``: any) has a periodic task: work that stands still
    while no worker runs (a finished competition has none)."""
    entries = PeriodicTask.objects.filter(enabled=True)
    prefix = _name(competition_id, "") if competition_id is not None else "competition "
    return bool(entries.filter(name__startswith=prefix).exists())
