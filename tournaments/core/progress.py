"""A competition's progress game by game: games stored of those planned, the rate they
are stored at, and when it should end at that rate. What the page's bar, its JSON
answer and ``manage.py tournament follow`` show; a round's games count as each is
stored, so a one-round competition moves from its first game, not at its end.

Stored games are counted from the ``CompetitionGame`` rows (one indexed count), which go
in with the games themselves; the rate runs from the first round's pairing (its event's
time) to now, or to the ``Finished`` event's time once it has ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.db.models import Count
from django.utils import timezone

from tournaments.core.competition import Competition
from tournaments.models import CompetitionGame


@dataclass(frozen=True)
class Progress:
    """``stored`` of ``planned`` games (a ladder plans only the rounds it has paired),
    stored at ``rate`` games a minute (None before the first); at that rate the rest
    take ``remaining`` and it ends at ``eta`` (None when finished, or before the first
    game)."""

    stored: int
    planned: int
    rate: float | None
    remaining: timedelta | None
    eta: datetime | None
    finished: bool

    @property
    def percent(self) -> int:
        if self.finished or not self.planned:
            return 100
        return min(100, 100 * self.stored // self.planned)


def stored_counts(ids: Iterable[UUID]) -> dict[UUID, int]:
    """The games stored of each competition, in one grouped query (a list's)."""
    rows = (CompetitionGame.objects.filter(competition_id__in=list(ids))
            .values("competition_id").annotate(n=Count("game_id")))
    return {row["competition_id"]: row["n"] for row in rows}


def progress(c: Competition, now: datetime | None = None, *,
             stored: int | None = None) -> Progress:
    """``c``'s progress at ``now`` (``stored``: its games stored, if counted already)."""
    now = now or timezone.now()
    if stored is None:
        stored = CompetitionGame.objects.filter(competition_id=c.id).count()
    total = c.games_total()
    planned = total if total is not None else c.games_paired()
    stored = min(stored, planned) if planned else stored
    start = c.paired_at[0] if c.paired_at else None
    end = (c.stopped.at if c.stopped is not None
           else c.finished_at if c.finished and c.finished_at is not None else now)
    elapsed = (end - start).total_seconds() if start is not None else 0.0
    rate = stored * 60 / elapsed if stored and elapsed > 0 else None
    left = eta = None
    if rate and not c.ended and planned > stored:
        left = timedelta(seconds=(planned - stored) * 60 / rate)
        eta = now + left
    return Progress(stored, planned, rate, left, eta, c.finished)


def describe(p: Progress) -> str:
    """The rate and time left in words for the shell: ``42.0 games/min, about 3 min
    left``."""
    if p.rate is None:
        return "no game stored yet" if not p.finished else ""
    text = f"{p.rate:.1f} games/min"
    if p.remaining is not None:
        seconds = int(p.remaining.total_seconds())
        text += (f", about {seconds // 60} min {seconds % 60:02d} s left" if seconds >= 60
                 else f", about {seconds} s left")
    return text


__all__ = ["Progress", "describe", "progress", "stored_counts"]
