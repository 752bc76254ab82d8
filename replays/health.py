"""Whether the read models keep up with the store: what ``/health/`` answers and
``manage.py run_projections`` prints.

A projection (today the game list, :mod:`replays.projections`) is *stalled* when

- it has recorded events it could not apply (:class:`~replays.models.ProjectionFailure`):
  each was skipped so that the events after it are applied, and the list lacks what it
  says (a game not listed, or not ended) until the cause is fixed and ``manage.py
  rebuild_read_models`` applies every event again; or
- an event stored has waited for it longer than ``settings.READ_MODELS_STALL_SECONDS``:
  it stopped at an error that is every event's (the database gone, a migration not
  run: it goes on from there once that is fixed), or nothing processes the events
  (``READ_MODELS_CATCH_UP`` off and ``run_projections`` not running).

Only positions, counts and kinds of events are told: no game's id (a private game's
existence is its players' business) and no error message (it may quote a value).
Those go to the log and the failures table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from django.conf import settings
from django.utils import timezone

from bohnanza_core.games import Games
from replays.models import ProjectionFailure
from replays.projections import PROJECTION_NAME, game_list_view
from replays.store import games

STALL_SECONDS = 60
"""How long an event may wait for a projection before it counts as stalled, unless
``settings.READ_MODELS_STALL_SECONDS`` says otherwise."""


def stall_seconds() -> float:
    return float(getattr(settings, "READ_MODELS_STALL_SECONDS", STALL_SECONDS))


@dataclass(frozen=True)
class ProjectionHealth:
    """Where one projection is, against the store."""

    name: str
    position: int
    """The last event it has processed (0: none yet)."""
    head: int
    """The last event stored."""
    waiting: float | None
    """Seconds since the oldest event it has not processed was stored; None if none waits."""
    failed: int
    """Events it could not apply (skipped and recorded)."""
    first_failed: ProjectionFailure | None

    @property
    def behind(self) -> int:
        return max(0, self.head - self.position)

    @property
    def lagging(self) -> bool:
        return self.waiting is not None and self.waiting > stall_seconds()

    @property
    def stalled(self) -> bool:
        return bool(self.failed) or self.lagging

    def as_json(self) -> dict[str, Any]:
        first = self.first_failed
        return {
            "ok": not self.stalled,
            "stalled": self.stalled,
            "position": self.position,
            "head": self.head,
            "behind": self.behind,
            "waiting_seconds": None if self.waiting is None else round(self.waiting, 1),
            "failed": self.failed,
            "first_failed": None if first is None else {
                "event": first.notification_id, "version": first.version,
                "kind": first.event, "at": first.failed_at.isoformat()},
        }

    def stalled_line(self, *, lag: bool = True) -> str | None:
        """``run_projections``'s line for a stalled projection; None while it is not.
        ``lag=False``: for the failures only (a runner that starts after a while away is
        behind, and about to catch up)."""
        if not (self.failed or (lag and self.lagging)):
            return None
        said = []
        first = self.first_failed
        if first is not None:
            said.append(
                f"{self.failed} event{'s' if self.failed != 1 else ''} could not be applied "
                f"and {'are' if self.failed != 1 else 'is'} skipped, the first event "
                f"{first.notification_id} (game {first.game_id}, version {first.version}, "
                f"{first.event}): {first.error}; manage.py rebuild_read_models applies "
                "them again once the cause is fixed")
        if lag and self.lagging:
            assert self.waiting is not None
            said.append(f"event {self.position + 1} has waited {self.waiting:.0f} s "
                        f"({self.behind} events behind)")
        return f"{self.name}: STALLED: {'; '.join(said)}."


def game_list_health(app: Games | None = None, now: datetime | None = None
                     ) -> ProjectionHealth:
    """The game list's health, read from its tracking position, the store and its
    failures (a few indexed reads: cheap enough for a health check)."""
    app = app if app is not None else games()
    view = game_list_view()
    position = view.max_tracking_id(app.name) or 0
    head = app.recorder.max_notification_id() or 0
    waiting = None
    if head > position:
        oldest = app.recorder.select_notifications(start=position, limit=1,
                                                   inclusive_of_start=False)
        if oldest:
            # Every event of the game store is an aggregate event, with its timestamp.
            event = cast(Any, app.mapper.to_domain_event(oldest[0]))
            stored_at: datetime = event.timestamp
            waiting = max(0.0, ((now or timezone.now()) - stored_at).total_seconds())
    failures = ProjectionFailure.objects.using(view.datastore.alias).filter(
        projection=PROJECTION_NAME)
    return ProjectionHealth(PROJECTION_NAME, position, head, waiting, failures.count(),
                            failures.order_by("notification_id").first())


def projections_health() -> dict[str, ProjectionHealth]:
    """Every projection's health, by name."""
    return {PROJECTION_NAME: game_list_health()}


__all__ = ["STALL_SECONDS", "ProjectionHealth", "game_list_health", "projections_health",
           "stall_seconds"]
