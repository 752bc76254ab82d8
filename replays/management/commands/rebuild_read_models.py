"""``manage.py rebuild_read_models``: throw the game list away and build it again from the
events alone (after a bug fix in the projection, or a lost or suspect read model). The
events recorded as failed go with it and are applied again; any that still fail are
recorded anew and told here (replays.health)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from replays.health import game_list_health
from replays.models import GameSummary
from replays.projections import rebuild


class Command(BaseCommand):
    help = ("Wipe the game list and its tracking position and rebuild both from every event "
            "in the store, in one transaction.")

    def handle(self, *args: Any, **options: Any) -> None:
        began = time.perf_counter()
        done = rebuild()
        seconds = time.perf_counter() - began
        listed = GameSummary.objects.count()
        self.stdout.write(self.style.SUCCESS(
            f"Rebuilt the game list from {done.events} events of {len(done.games)} games "
            f"in {seconds:.2f}s: {listed} games listed, up to event {done.position or 0}."
        ))
        still = game_list_health().stalled_line(lag=False)
        if still is not None:
            self.stdout.write(self.style.WARNING(still))
